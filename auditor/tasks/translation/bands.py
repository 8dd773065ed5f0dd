"""Reference type frequencies: a Zipf table and frequency bands, with per band and system the
MacroF over the band's types and how many of them the system never produces.

A type's band is set by Refs(c), its count in the references (largest over references per
segment, as in Match and Refs). Types seen only in a system's output have no band (their F is 0
and counts in MacroF over all of V). Gowda et al. (2021) group types by frequency the same way to
show that BLEU is carried by the frequent ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from auditor.tasks.translation.counting import Corpus, flat_sum
from auditor.tasks.translation.measures import f_terms

#: (name, lowest count, highest count) of each band.
BANDS = (("once", 1, 1), ("2-4", 2, 4), ("5-16", 5, 16), ("17-64", 17, 64), ("65+", 65, None))


@dataclass(frozen=True)
class Band:
    name: str
    low: int
    high: int | None
    types: int
    tokens: int
    #: system -> (MacroF over the band's types, reference types never produced, their share)
    systems: Mapping[str, tuple[float | None, int]]


@dataclass(frozen=True)
class TypeProfile:
    """The references' vocabulary: ``frequencies`` sorted descending (the Zipf plot), bands."""

    types: int
    tokens: int
    frequencies: np.ndarray
    bands: tuple[Band, ...]
    top: tuple[tuple[str, int], ...]


def profile(corpus: Corpus, beta: float) -> TypeProfile:
    """Bands and per-system band figures from the corpus' type totals."""
    reference = flat_sum(corpus.reference, 0)
    totals = {name: corpus.counts[name].totals(corpus.reference) for name in corpus.systems}
    bands = []
    for name, low, high in BANDS:
        chosen = (reference >= low) & (reference <= (high if high is not None else np.inf))
        systems = {}
        for system, (match, predicted, ref) in totals.items():
            _, f, _ = f_terms(match[chosen], predicted[chosen], ref[chosen], beta)
            value = float(f.mean()) if f.size else None
            systems[system] = (value, int((predicted[chosen] == 0).sum()))
        bands.append(Band(name, low, high, int(chosen.sum()), int(reference[chosen].sum()), systems))
    order = np.argsort(-reference, kind="stable")
    present = order[reference[order] > 0]
    top = tuple((corpus.types[i], int(reference[i])) for i in present[:10])
    return TypeProfile(int((reference > 0).sum()), int(reference.sum()), reference[present], tuple(bands), top)
