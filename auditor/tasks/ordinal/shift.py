"""Gold level prevalence against each system's predicted levels: the shift, not only the spread.

From the confusion matrices alone (rows gold, columns predicted, levels in order; levels numbered 1..k):
the level shares of gold and of each system, the mean level of each (so the shift = predicted mean − gold mean, in
steps), the share of items predicted above their gold level (Σ_{j>i} C_ij / N) and below it, and the earth mover's
distance between the two level distributions, Σ_l |F_pred(l) − F_gold(l)| over the cumulative shares F (the
fewest steps that move the gold's level distribution onto the system's; 0 when the system predicts every level as
often as gold has it, whatever its errors).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np


@dataclass(frozen=True)
class LevelShift:
    """Level distributions of gold and of every system, and how each system's is moved against gold's."""

    levels: tuple[str, ...]
    systems: tuple[str, ...]
    gold_counts: np.ndarray  # (k,)
    predicted_counts: np.ndarray  # (S, k)
    mean_gold: float
    mean_predicted: np.ndarray  # (S,)
    above: np.ndarray  # (S,) share predicted above the gold level
    below: np.ndarray  # (S,)
    distance: np.ndarray  # (S,) earth mover's distance in steps

    @property
    def shift(self) -> np.ndarray:
        """Mean predicted level − mean gold level, in steps (positive: the system predicts higher levels)."""
        return self.mean_predicted - self.mean_gold

    def to_json(self) -> dict[str, Any]:
        n = float(self.gold_counts.sum())
        return {
            "levels": list(self.levels),
            "gold": {"counts": [int(x) for x in self.gold_counts], "shares": [float(x) / n for x in self.gold_counts],
                     "mean_level": self.mean_gold},
            "systems": {name: {"counts": [int(x) for x in self.predicted_counts[s]],
                               "shares": [float(x) / n for x in self.predicted_counts[s]],
                               "mean_level": float(self.mean_predicted[s]), "shift": float(self.shift[s]),
                               "above": float(self.above[s]), "below": float(self.below[s]),
                               "distance": float(self.distance[s])}
                        for s, name in enumerate(self.systems)},
            "definitions": DEFINITIONS,
        }


DEFINITIONS = {
    "mean_level": "mean level number (1 = lowest level of the order)",
    "shift": "mean predicted level − mean gold level, in steps of the order",
    "above": "share of items predicted above their gold level",
    "below": "share of items predicted below their gold level",
    "distance": "earth mover's distance between the gold and the predicted level distributions, in steps: "
                "Σ_l |F_pred(l) − F_gold(l)| over cumulative shares",
}


def level_shift(confusion: np.ndarray, levels: Sequence[str], systems: Sequence[str]) -> LevelShift:
    """:class:`LevelShift` of the systems' confusion matrices ``C[s, i, j]`` (levels in order)."""
    confusion = np.asarray(confusion, dtype=float)
    k = confusion.shape[-1]
    gold = confusion[0].sum(axis=1)
    predicted = confusion.sum(axis=1)
    n = gold.sum()
    number = np.arange(1, k + 1, dtype=float)
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    cumulative_gold = np.cumsum(gold) / n
    cumulative_predicted = np.cumsum(predicted, axis=-1) / n
    return LevelShift(
        levels=tuple(levels), systems=tuple(systems), gold_counts=gold.astype(np.int64),
        predicted_counts=predicted.astype(np.int64), mean_gold=float(gold @ number / n),
        mean_predicted=predicted @ number / n,
        above=confusion[:, upper].sum(axis=-1) / n, below=confusion[:, upper.T].sum(axis=-1) / n,
        distance=np.abs(cumulative_predicted - cumulative_gold).sum(axis=-1),
    )
