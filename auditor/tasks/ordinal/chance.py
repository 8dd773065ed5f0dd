"""Chance baselines for levels: the prevalence sampler, the majority level and the median level, exactly.

A constant prediction of level c has the matrix C = row ⊗ e_c (every gold item in column c): its figures are
exact, no expectation is involved. Every one of the k constants is scored at once (a (k, k, k) batch); the
majority level (most gold items, the lowest on ties) and the median level (the lowest level whose cumulative gold
share reaches one half: a constant there minimises the mean absolute error, as a median minimises Σ|x − c|) are
named, and so is the best constant under each figure. The prevalence sampler (random levels with the gold shares)
is classification's ``prevalence`` baseline (:mod:`auditor.analyses.baselines`): f(E[C]) with E[C] = row ⊗ p,
exact where f is affine in C with the gold rows fixed (the mean errors, within-one, CEM-Ord, accuracy), and its
Monte Carlo range at this N; it is read from there, not drawn again.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.formatting import nan_to_none
from auditor.metrics.registry import ConfusionStats, Metric


@dataclass(frozen=True)
class ConstantBaselines:
    """Every constant level's figures, the majority and median levels, the best constant per figure."""

    levels: tuple[str, ...]
    majority: str
    median: str
    #: metric id -> (k,) the figure of predicting each level for every item (NaN = undefined)
    values: Mapping[str, np.ndarray]
    #: metric id -> the levels whose constant scores best (ties all listed; empty if all undefined)
    best: Mapping[str, tuple[str, ...]]

    def value(self, metric_id: str, level: str) -> float | None:
        return nan_to_none(self.values[metric_id][self.levels.index(level)])

    def to_json(self) -> dict[str, Any]:
        return {
            "majority_level": self.majority, "median_level": self.median,
            "constants": {metric_id: dict(zip(self.levels, (nan_to_none(x) for x in values)))
                          for metric_id, values in self.values.items()},
            "best_constant": {metric_id: list(levels) for metric_id, levels in self.best.items()},
            "exact": "a constant prediction's matrix is fixed (row ⊗ e_c): every value is exact",
            "prevalence_sampler": "classification's baselines.prevalence: f(E[C]), E[C] = row ⊗ p, exact where "
                                  "baselines.prevalence.metrics.ID.exact",
        }


def median_level(gold_counts: np.ndarray) -> int:
    """Index of the lowest level whose cumulative gold count reaches half the items."""
    gold_counts = np.asarray(gold_counts, dtype=float)
    return int(np.searchsorted(np.cumsum(gold_counts), gold_counts.sum() / 2))


def constant_baselines(gold_counts: np.ndarray, levels: Sequence[str], metrics: Sequence[Metric]) -> ConstantBaselines:
    """The figures of each of the k constant predictions on gold with ``gold_counts`` (levels in order)."""
    gold_counts = np.asarray(gold_counts, dtype=float)
    k = len(levels)
    matrices = np.zeros((k, k, k))
    for c in range(k):
        matrices[c, :, c] = gold_counts
    stats = ConfusionStats(matrices, True)
    values, best = {}, {}
    with np.errstate(all="ignore"):
        for metric in metrics:
            if metric.per_class:
                continue
            scores = np.asarray(metric.function(stats), dtype=float)
            values[metric.id] = scores
            oriented = metric.oriented(scores)
            top = np.nanmax(oriented) if not np.isnan(oriented).all() else np.nan
            best[metric.id] = tuple(levels[c] for c in range(k) if not np.isnan(top) and
                                    abs(oriented[c] - top) <= 1e-12 * max(1.0, abs(top)))
    return ConstantBaselines(tuple(levels), levels[int(np.argmax(gold_counts))], levels[median_level(gold_counts)],
                             values, best)
