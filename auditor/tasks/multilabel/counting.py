"""Each item's sufficient statistics, and their sums (the input of every metric, :mod:`.measures`).

For item i and system s: per label the bits ``TP = y ∧ ŷ`` and ``FP = ¬y ∧ ŷ`` (``FN = y − TP`` from the gold
bits), and the per-item fields of :data:`~.measures.ITEM_FIELDS`: exact match ``[Y = Ŷ]``, ``|Y∩Ŷ|/|Ŷ|``,
``|Y∩Ŷ|/|Y|``, ``2|Y∩Ŷ|/(|Y|+|Ŷ|)``, ``|Y∩Ŷ|/|Y∪Ŷ|`` (each 0/0 counted 0) and the empty-set flags. Summed over
items they give every figure; summed with resampling weights, every resample's (:func:`item_matrix`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from auditor.metrics.registry import ratio
from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.measures import ITEM_FIELDS


@dataclass(frozen=True)
class ItemFields:
    """One system's per-item fields (N, len(ITEM_FIELDS)) float64, and its set sizes."""

    fields: np.ndarray
    predicted_size: np.ndarray
    intersection: np.ndarray


def item_fields(gold: np.ndarray, predicted: np.ndarray, gold_size: np.ndarray) -> ItemFields:
    """Per-item statistics of one system (``gold``, ``predicted``: (N, L) bool)."""
    both = gold & predicted
    inter = np.count_nonzero(both, axis=1)
    size = np.count_nonzero(predicted, axis=1)
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
    return ItemFields(fields, size, inter)


@dataclass(frozen=True, eq=False)
class Counted:
    """The summed statistics of every system (``sums``, the input of :mod:`.measures`) and per-item sizes."""

    sums: Mapping[str, np.ndarray]
    gold_size: np.ndarray
    predicted_size: np.ndarray
    items: tuple[ItemFields, ...]


def count(aligned: Aligned) -> Counted:
    """Sums over items: ``n``, ``gold`` (L), ``tp`` and ``fp`` (S, L), ``items`` (S, len(ITEM_FIELDS))."""
    gold = aligned.gold
    gold_size = np.count_nonzero(gold, axis=1)
    S, L = aligned.systems.shape[0], len(aligned.labels)
    tp, fp = np.zeros((S, L), dtype=np.int64), np.zeros((S, L), dtype=np.int64)
    per_system = []
    for s in range(S):
        predicted = aligned.systems[s]
        tp[s] = np.count_nonzero(gold & predicted, axis=0)
        fp[s] = np.count_nonzero(predicted, axis=0) - tp[s]
        per_system.append(item_fields(gold, predicted, gold_size))
    sums = {"n": np.array(float(aligned.n_items)), "gold": np.count_nonzero(gold, axis=0).astype(float),
            "tp": tp.astype(float), "fp": fp.astype(float),
            "items": np.stack([f.fields.sum(axis=0) for f in per_system]) if per_system else np.zeros((0, 8))}
    return Counted(sums, gold_size, np.stack([f.predicted_size for f in per_system]), tuple(per_system))


@dataclass(frozen=True)
class Layout:
    """Where each part of the statistics sits in a row of :func:`item_matrix`: ``[1, gold L | per system: TP L,
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


def item_matrix(aligned: Aligned, counted: Counted) -> tuple[np.ndarray, Layout]:
    """(N, width) float64 per-item statistics (:class:`Layout`): summed with weights w, ``w @ M`` gives a resample's
    sums; the item order is gold's."""
    S, L = aligned.systems.shape[0], len(aligned.labels)
    layout = Layout(S, L)
    blocks = [np.ones((aligned.n_items, 1)), aligned.gold]
    for s in range(S):
        predicted = aligned.systems[s]
        blocks += [aligned.gold & predicted, predicted & ~aligned.gold, counted.items[s].fields]
    return np.concatenate([b.astype(float) for b in blocks], axis=1), layout
