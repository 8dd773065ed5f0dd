"""Align gold and system files one to one (same sentences, same lengths, same tokens) and put
every file's tags on one shared vocabulary."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from auditor.errors import InputError
from auditor.tasks.tagging.reading import TagFile


@dataclass(frozen=True)
class Aligned:
    """Gold and system tag codes on one vocabulary ``tags``: ``gold`` (N,), ``systems`` (S, N);
    ``first`` marks each sentence's first token, ``sentence`` is each token's sentence index."""

    tags: tuple[str, ...]
    gold: np.ndarray
    systems: np.ndarray
    names: tuple[str, ...]
    first: np.ndarray
    sentence: np.ndarray
    lines: np.ndarray
    tokens: object | None

    @property
    def n_tokens(self) -> int:
        return int(self.gold.size)

    @property
    def n_sentences(self) -> int:
        return int(self.first.sum())


def _lengths(first: np.ndarray) -> np.ndarray:
    starts = np.flatnonzero(first)
    return np.diff(np.r_[starts, first.size])


def check_alignment(gold: TagFile, system: TagFile) -> None:
    """One clear error at the first sentence whose count, length or tokens differ."""
    if not np.array_equal(gold.first, system.first):  # the same sentence starts: counts and lengths agree
        _check_sentences(gold, system)
    if gold.tokens is not None and system.tokens is not None and not gold.tokens.equals(system.tokens):
        import pyarrow.compute as pc  # only to find the first difference

        equal = pc.equal(gold.tokens, system.tokens).to_numpy(zero_copy_only=False)
        if not equal.all():
            t = int(np.flatnonzero(~equal)[0])
            gold_starts = np.flatnonzero(gold.first)
            s = int(np.searchsorted(gold_starts, t, side="right") - 1)
            raise InputError(
                f"sentence {s + 1}, token {t - gold_starts[s] + 1}: {gold.source} line {gold.lines[t]} has "
                f"{gold.tokens[t].as_py().decode()!r}, {system.source} line {system.lines[t]} has "
                f"{system.tokens[t].as_py().decode()!r}; tokens must align one to one")


def _check_sentences(gold: TagFile, system: TagFile) -> None:
    """The first sentence whose length differs, or the first without a partner."""
    gold_lengths, system_lengths = _lengths(gold.first), _lengths(system.first)
    gold_starts, system_starts = np.flatnonzero(gold.first), np.flatnonzero(system.first)
    shared = min(gold_lengths.size, system_lengths.size)
    differ = np.flatnonzero(gold_lengths[:shared] != system_lengths[:shared])
    if differ.size:
        s = int(differ[0])
        raise InputError(
            f"sentence {s + 1} has {gold_lengths[s]} tokens in {gold.source} (line {gold.lines[gold_starts[s]]}) "
            f"and {system_lengths[s]} in {system.source} (line {system.lines[system_starts[s]]}); sentences and "
            f"tokens must align one to one")
    if gold_lengths.size != system_lengths.size:
        longer, count = (gold, gold_lengths.size) if gold_lengths.size > system_lengths.size else \
            (system, system_lengths.size)
        starts = np.flatnonzero(longer.first)
        raise InputError(
            f"{gold.source} has {gold_lengths.size} sentences and {system.source} {system_lengths.size}; sentence "
            f"{shared + 1} ({longer.source} line {longer.lines[starts[shared]]}) has no partner (of {count})")


def align(gold: TagFile, systems: Mapping[str, TagFile]) -> Aligned:
    """Check every system against gold, then recode all tags on their sorted union."""
    for system in systems.values():
        check_alignment(gold, system)
    vocab = sorted(set(gold.vocab).union(*(s.vocab for s in systems.values())))
    index = {tag: code for code, tag in enumerate(vocab)}

    dtype = np.int16 if len(vocab) < 2**15 else np.int64

    def recode(file: TagFile, out: np.ndarray) -> np.ndarray:
        lookup = np.array([index[tag] for tag in file.vocab], dtype=dtype)[file.lookup]
        return np.take(lookup, file.indices, out=out)

    stacked = np.empty((len(systems), gold.n_tokens), dtype=dtype)
    for row, file in enumerate(systems.values()):
        recode(file, stacked[row])
    return Aligned(tuple(vocab), recode(gold, np.empty(gold.n_tokens, dtype)), stacked, tuple(systems), gold.first,
                   np.cumsum(gold.first) - 1, gold.lines, gold.tokens)
