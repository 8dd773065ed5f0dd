"""Each item's sufficient statistics, and their sums (the input of every metric, :mod:`.measures`).

For item i and system s: per label the bits ``TP = y ∧ ŷ`` and ``FP = ¬y ∧ ŷ`` (``FN = y − TP`` from the gold
bits), and the per-item fields of :data:`~.measures.ITEM_FIELDS`: exact match ``[Y = Ŷ]``, ``|Y∩Ŷ|/|Ŷ|``,
``|Y∩Ŷ|/|Y|``, ``2|Y∩Ŷ|/(|Y|+|Ŷ|)``, ``|Y∩Ŷ|/|Y∪Ŷ|`` (each 0/0 counted 0) and the empty-set flags. They depend
only on the item's (gold set, predicted set), so items are counted by distinct pairs of set codes
(:class:`PairTable`: one row per pair, with its number of items) and the sums are count-weighted sums of the
rows; for the resampling, items of one (gold set, every system's set) share one row (:func:`item_patterns`).
docs/architecture.md, "Counts first".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from auditor.metrics.registry import ratio
from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.measures import ITEM_FIELDS

#: Pairs of set codes counted by a dense bincount up to this many cells, else by sorting the item keys.
DENSE_PAIRS = 2**22


def item_fields(gold: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Per-row fields (rows × len(ITEM_FIELDS)) of pairs of sets (``gold``, ``predicted``: rows × labels bool)."""
    inter = np.count_nonzero(gold & predicted, axis=1)
    size = np.count_nonzero(predicted, axis=1)
    gold_size = np.count_nonzero(gold, axis=1)
    union = gold_size + size - inter
    fields = np.empty((gold.shape[0], len(ITEM_FIELDS)))
    fields[:, 0] = (inter == gold_size) & (inter == size)
    fields[:, 1] = ratio(inter, size)[0]
    fields[:, 2] = ratio(inter, gold_size)[0]
    fields[:, 3] = ratio(2 * inter, gold_size + size)[0]
    fields[:, 4] = ratio(inter, union)[0]
    fields[:, 5] = size == 0
    fields[:, 6] = gold_size == 0
    fields[:, 7] = union == 0
    return fields


@dataclass(frozen=True, eq=False)
class PairTable:
    """One system's distinct (gold set, predicted set) pairs: their codes, items, TP and FP bits and fields."""

    gold: np.ndarray
    predicted: np.ndarray
    count: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    fields: np.ndarray
    width: int

    def item_rows(self, gold_codes: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The row of each item (gold order)."""
        keys = gold_codes.astype(np.int64) * self.width + codes
        pair_keys = self.gold * self.width + self.predicted
        return np.searchsorted(pair_keys, keys)


def pair_table(gold_codes: np.ndarray, gold_sets: np.ndarray, codes: np.ndarray, sets: np.ndarray) -> PairTable:
    """Count the items of every (gold code, system code) pair, then each pair's statistics once."""
    width = max(int(sets.shape[0]), 1)
    keys = gold_codes.astype(np.int64) * width + codes
    if gold_sets.shape[0] * width <= DENSE_PAIRS:
        counts = np.bincount(keys, minlength=gold_sets.shape[0] * width)
        pairs = np.flatnonzero(counts)
        counts = counts[pairs]
    else:
        pairs, counts = np.unique(keys, return_counts=True)
    u, v = pairs // width, pairs % width
    G, P = gold_sets[u], sets[v]
    return PairTable(u, v, counts.astype(np.float64), G & P, P & ~G, item_fields(G, P), width)


@dataclass(frozen=True, eq=False)
class Counted:
    """The summed statistics of every system (``sums``, the input of :mod:`.measures`), the pair tables, and
    how many items have each size of set (``sizes[k]``: gold; ``predicted_sizes[s, k]``: system s)."""

    sums: Mapping[str, np.ndarray]
    pairs: tuple[PairTable, ...]
    sizes: np.ndarray
    predicted_sizes: np.ndarray

    def cardinality(self, s: int | None = None) -> float:
        """Mean set size (labels per item) of gold (``s`` None) or system s."""
        sizes = self.sizes if s is None else self.predicted_sizes[s]
        return float(sizes @ np.arange(sizes.size) / max(sizes.sum(), 1))

    def empty(self, s: int | None = None) -> int:
        """Items with an empty set, in gold (``s`` None) or system s."""
        return int((self.sizes if s is None else self.predicted_sizes[s])[0])


def count(aligned: Aligned) -> Counted:
    """Sums over items: ``n``, ``gold`` (L), ``tp`` and ``fp`` (S, L), ``items`` (S, len(ITEM_FIELDS))."""
    S, L = len(aligned.names), len(aligned.labels)
    gold_counts = np.bincount(aligned.gold_codes, minlength=aligned.gold_sets.shape[0]).astype(np.float64)
    tables = tuple(pair_table(aligned.gold_codes, aligned.gold_sets, aligned.codes[s], aligned.sets[s])
                   for s in range(S))
    sums = {"n": np.array(float(aligned.n_items)), "gold": gold_counts @ aligned.gold_sets,
            "tp": np.stack([t.count @ t.tp for t in tables]) if S else np.zeros((0, L)),
            "fp": np.stack([t.count @ t.fp for t in tables]) if S else np.zeros((0, L)),
            "items": np.stack([t.count @ t.fields for t in tables]) if S else np.zeros((0, len(ITEM_FIELDS)))}
    L1 = L + 1
    sizes = np.bincount(np.count_nonzero(aligned.gold_sets, axis=1), weights=gold_counts, minlength=L1)
    predicted = np.zeros((S, L1))
    for s, table in enumerate(tables):
        predicted[s] = np.bincount(np.count_nonzero(aligned.sets[s], axis=1)[table.predicted], weights=table.count,
                                   minlength=L1)
    return Counted(sums, tables, np.rint(sizes).astype(np.int64), np.rint(predicted).astype(np.int64))


@dataclass(frozen=True)
class Layout:
    """Where each part of the statistics sits in a row of :func:`item_patterns`: ``[1, gold L | per system: TP L,
    FP L, fields F]``."""

    systems: int
    labels: int

    @property
    def width(self) -> int:
        return 1 + self.labels + self.systems * (2 * self.labels + len(ITEM_FIELDS))

    def parts(self, sums: np.ndarray) -> dict[str, np.ndarray]:
        """Rows of summed statistics (..., width) -> the ``sums`` mapping of :mod:`.measures` (batch first)."""
        L, F, S = self.labels, len(ITEM_FIELDS), self.systems
        per = sums[..., 1 + L:].reshape(*sums.shape[:-1], S, 2 * L + F)
        return {"n": sums[..., 0], "gold": sums[..., 1:1 + L], "tp": per[..., :L], "fp": per[..., L:2 * L],
                "items": per[..., 2 * L:]}


@dataclass(frozen=True, eq=False)
class Patterns:
    """The items' distinct (gold set, set of system 1, ..., set of system S): their rows of statistics (``matrix``,
    P × :attr:`Layout.width`), how many items each has (``counts``) and each item's pattern (``items``, gold order)."""

    matrix: np.ndarray
    counts: np.ndarray
    items: np.ndarray
    layout: Layout


def _joint_codes(aligned: Aligned) -> tuple[np.ndarray, np.ndarray]:
    """(pattern of each item, first item of each pattern): the gold code and every system's code combined one
    system at a time (each step renumbers the pairs seen, so the keys never overflow)."""
    key = aligned.gold_codes.astype(np.int64)
    for codes in aligned.codes:
        width = int(codes.max()) + 1 if codes.size else 1
        _, key = np.unique(key * width + codes, return_inverse=True)
        key = key.astype(np.int64).ravel()
    _, first, items = np.unique(key, return_index=True, return_inverse=True)
    return items.astype(np.int64).ravel(), first


def item_patterns(aligned: Aligned, counted: Counted) -> Patterns:
    """The per-item statistics compressed to the items' distinct patterns (:class:`Patterns`): items of one pattern
    have one row, so a resample's sums are ``W M`` over patterns with ``W`` its pattern counts."""
    S, L = len(aligned.names), len(aligned.labels)
    layout = Layout(S, L)
    items, first = _joint_codes(aligned)
    gold_codes = aligned.gold_codes[first]
    blocks = [np.ones((first.size, 1)), aligned.gold_sets[gold_codes].astype(float)]
    for s, table in enumerate(counted.pairs):
        rows = table.item_rows(gold_codes, aligned.codes[s][first])
        blocks.append(np.concatenate([table.tp, table.fp, table.fields], axis=1)[rows].astype(float))
    counts = np.bincount(items, minlength=first.size)
    return Patterns(np.concatenate(blocks, axis=1), counts, items, layout)
