"""One file's label sets as read (:class:`SetFile`): each item's set as a code into the file's distinct sets.

Every per-item statistic of a system depends only on the pair (gold set, predicted set), so items are kept as
codes into a small table of distinct sets (``sets``: distinct sets × labels, bool) and counted by pairs of codes
(:mod:`.counting`), never as an items × labels matrix.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.io.column import LabelColumn


def set_keys(bits: np.ndarray) -> np.ndarray:
    """One key per row of ``bits`` (rows × labels, bool): an integer for up to 64 labels, else the packed bytes."""
    if bits.shape[1] <= 64:
        weights = np.uint64(1) << np.arange(bits.shape[1], dtype=np.uint64)
        keys = np.zeros(bits.shape[0], dtype=np.uint64)
        for label in range(bits.shape[1]):  # one pass per label column, not per item
            keys |= bits[:, label].astype(np.uint64) * weights[label]
        return keys
    packed = np.packbits(bits, axis=1)
    return packed.view(np.dtype((np.void, packed.shape[1]))).ravel()


def encode_rows(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes (rows,), distinct rows (sets × labels)) of a bool matrix: ``bits == sets[codes]``."""
    keys = set_keys(bits)
    _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
    return codes.astype(np.int64).ravel(), bits[first]


@dataclass(frozen=True, eq=False)
class SetFile:
    """One file's label sets: item n has the labels ``labels[l]`` where ``sets[codes[n], l]``.

    ``column`` carries the ids, lines, format and hash (its codes are not used); ``scores`` (items × labels,
    or None) are the per-label scores a label-column file held (made sets at a threshold by the audit).
    """

    column: LabelColumn
    labels: tuple[str, ...]
    sets: np.ndarray
    codes: np.ndarray
    layout: str
    scores: np.ndarray | None = None

    @property
    def source(self) -> str:
        return self.column.source

    @property
    def bits(self) -> np.ndarray:
        """items × labels (bool), built when asked for."""
        return self.sets[self.codes]

    def first_item_with(self, label: str) -> int:
        """Index of the first item whose set holds ``label``."""
        return int(np.flatnonzero(self.sets[:, self.labels.index(label)][self.codes])[0])

    def __len__(self) -> int:
        return int(self.codes.shape[0])
