"""The data profile: class prevalence, each system's prediction bias, and what they imply.

Stage "analyse" (the data profile, read by every audit). Reads only the counts. The recommendation rules and the
report's "Data" section consume it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from auditor.formatting import nan_to_none
from auditor.io.counts import Counts


@dataclass(frozen=True)
class SystemBias:
    """One system's prediction distribution b and how far it is from the prevalence p.

    ``total_variation`` = ½ Σ_j |b_j − p_j|; ``kl_divergence`` = Σ_j b_j log2(b_j / p_j) in bits
    (infinite when the system predicts a label with no gold items).
    """

    bias: tuple[float, ...]
    predicted: tuple[int, ...]
    never_predicted: tuple[str, ...]
    predicted_only: tuple[str, ...]
    total_variation: float
    kl_divergence: float

    def to_json(self, labels: Sequence[str]) -> dict[str, Any]:
        """``profile.systems.NAME``; an infinite KL divergence is ``null``."""
        return {
            "bias": dict(zip(labels, self.bias)), "predicted": dict(zip(labels, self.predicted)),
            "never_predicted": list(self.never_predicted), "predicted_only": list(self.predicted_only),
            "total_variation": self.total_variation, "kl_divergence": nan_to_none(self.kl_divergence),
        }


@dataclass(frozen=True)
class DataProfile:
    """k, N, prevalence and its summaries, and every system's bias.

    ``imbalance_ratio`` = max support / min support over gold classes present;
    ``prevalence_entropy`` = −Σ p_i log2 p_i in bits and ``normalised_entropy`` divides it by
    log2 k (1 = balanced). ``majority_share`` = max_i p_i, the majority baseline's accuracy.
    ``identical_systems``: groups (two or more, in system order) of systems whose predictions
    are the same on every item — the same file under two names, for instance.
    """

    labels: tuple[str, ...]
    n_items: int
    support: tuple[int, ...]
    prevalence: tuple[float, ...]
    absent_from_gold: tuple[str, ...]
    min_support: int
    imbalance_ratio: float
    prevalence_entropy: float
    normalised_entropy: float
    majority_label: str
    majority_share: float
    systems: Mapping[str, SystemBias]
    identical_systems: tuple[tuple[str, ...], ...] = ()

    @property
    def k(self) -> int:
        return len(self.labels)

    @property
    def k_gold(self) -> int:
        return self.k - len(self.absent_from_gold)

    def to_json(self) -> dict[str, Any]:
        """``profile``: k, N, support and prevalence per label, their summaries, each system's bias."""
        labels = self.labels
        return {
            "k": self.k, "k_gold": self.k_gold, "n_items": self.n_items,
            "support": dict(zip(labels, self.support)), "prevalence": dict(zip(labels, self.prevalence)),
            "absent_from_gold": list(self.absent_from_gold),
            "min_support": self.min_support, "imbalance_ratio": self.imbalance_ratio,
            "prevalence_entropy": self.prevalence_entropy, "normalised_entropy": self.normalised_entropy,
            "majority_label": self.majority_label, "majority_share": self.majority_share,
            "identical_systems": [list(group) for group in self.identical_systems],
            "systems": {name: bias.to_json(labels) for name, bias in self.systems.items()},
        }


def _entropy_bits(shares: np.ndarray) -> float:
    positive = shares[shares > 0]
    return float(-(positive * np.log2(positive)).sum())


def identical_systems(counts: Counts) -> tuple[tuple[str, ...], ...]:
    """Groups of systems with the same prediction on every item (rows of ``counts.predictions``
    that are equal), each group in system order; empty without per-item predictions.

    Identical predictions give identical confusion matrices, so only the systems whose matrix another system
    shares are compared item by item (:func:`identical_rows`), instead of hashing every row. Counts known by their
    pattern table only (:meth:`~auditor.io.counts.Counts.from_patterns`) compare its columns: two systems agree on
    every item iff they agree on every pattern."""
    if counts.given_pairs is not None:  # the pattern table was too large: from each pair's table
        from auditor.analyses.pairwise_resample import identical_from_pairs

        return identical_from_pairs(counts)
    if counts.given_patterns is not None:
        predictions = counts.patterns()[0][:, 1:].T
    else:
        predictions = np.asarray(counts.predictions)
        if predictions.ndim != 2 or predictions.shape[1] != counts.n_items:
            return ()
    if predictions.shape[0] < 2:
        return ()
    _, matrix_of, shared_by = np.unique(counts.confusion.reshape(len(counts.systems), -1), axis=0,
                                        return_inverse=True, return_counts=True)
    candidates = np.flatnonzero(shared_by[matrix_of.ravel()] > 1)
    return identical_rows([counts.systems[s] for s in candidates], predictions[candidates])


def identical_rows(names: Sequence[str], rows: Iterable[Any]) -> tuple[tuple[str, ...], ...]:
    """Groups (two or more, in system order) of systems whose per-unit predictions are equal, for a task counted
    per unit (tagging's tags, translation's output lines, multi-label's label sets): ``rows`` holds one array or
    ``bytes`` per system. Each row's BLAKE2b digest gathers the candidates in one O(N) pass per system, and each
    candidate is confirmed element for element against its group's first system (``np.array_equal``)."""
    rows = [row if isinstance(row, bytes) else np.ascontiguousarray(row) for row in rows]
    by_digest: dict[bytes, list[int]] = {}
    for index, row in enumerate(rows):
        by_digest.setdefault(hashlib.blake2b(row).digest(), []).append(index)
    groups = []
    for members in by_digest.values():
        first = rows[members[0]]
        same = [m for m in members if rows[m] == first] if isinstance(first, bytes) else \
            [m for m in members if np.array_equal(rows[m], first)]
        if len(same) > 1:
            groups.append(tuple(names[m] for m in same))
    return tuple(sorted(groups, key=lambda group: list(names).index(group[0])))


def profile(counts: Counts) -> DataProfile:
    """Summarise prevalence and every system's bias from ``counts.confusion``."""
    labels = counts.labels
    n = counts.n_items
    support = counts.support
    prevalence = support / n
    present = support > 0
    k_gold = int(present.sum())
    entropy = _entropy_bits(prevalence)
    systems = {}
    for index, name in enumerate(counts.systems):
        predicted = counts.confusion[index].sum(axis=0)
        bias = predicted / n
        with np.errstate(divide="ignore", invalid="ignore"):
            kl_terms = np.where(bias > 0, bias * np.log2(bias / prevalence), 0.0)
        systems[name] = SystemBias(
            bias=tuple(float(x) for x in bias),
            predicted=tuple(int(x) for x in predicted),
            never_predicted=tuple(labels[i] for i in np.flatnonzero(present & (predicted == 0))),
            predicted_only=tuple(labels[i] for i in np.flatnonzero(~present & (predicted > 0))),
            total_variation=float(0.5 * np.abs(bias - prevalence).sum()),
            kl_divergence=float(kl_terms.sum()),
        )
    majority = int(np.argmax(support))
    return DataProfile(
        labels=labels,
        n_items=n,
        support=tuple(int(x) for x in support),
        prevalence=tuple(float(x) for x in prevalence),
        absent_from_gold=tuple(labels[i] for i in np.flatnonzero(~present)),
        min_support=int(support[present].min()),
        imbalance_ratio=float(support[present].max() / support[present].min()),
        prevalence_entropy=entropy,
        normalised_entropy=entropy / np.log2(k_gold) if k_gold > 1 else 0.0,
        majority_label=labels[majority],
        majority_share=float(prevalence[majority]),
        systems=systems,
        identical_systems=identical_systems(counts),
    )
