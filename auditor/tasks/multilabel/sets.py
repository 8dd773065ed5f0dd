"""One file's label sets as read (:class:`SetFile`), before alignment with the gold items."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.io.column import LabelColumn


@dataclass(frozen=True, eq=False)
class SetFile:
    """One file's label sets: ``bits[n, l]`` is True when item n has label ``labels[l]``.

    ``column`` carries the ids, lines, format and hash (its codes are not used); ``scores`` (items × labels,
    or None) are the per-label scores a label-column file held, ``thresholds`` what made them sets.
    """

    column: LabelColumn
    labels: tuple[str, ...]
    bits: np.ndarray
    layout: str
    scores: np.ndarray | None = None

    @property
    def source(self) -> str:
        return self.column.source

    def __len__(self) -> int:
        return int(self.bits.shape[0])
