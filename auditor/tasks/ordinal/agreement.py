"""Ordinal agreement of the gold's annotators (``--annotators``), and the ceiling it sets on the systems.

Counts only: the pairwise confusions ``C[a, b]`` and the category counts per item of
:mod:`auditor.analyses.agreement` (classification's nominal coefficients are there).

* Krippendorff's alpha at the ordinal level (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"):
  α = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck, o the coincidence matrix, n_c its margins and the
  ordinal metric δ²_ck = (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)²; every annotator labels every item (aligned files).
  The ``krippendorff`` package is the tests' independent reference.
* Weighted kappa (linear and quadratic) of every pair of annotators, as :mod:`.measures` defines them.
* The ceiling: every ordinal figure of one annotator scored against another, averaged over the ordered pairs (the
  gold is one such annotation): a system that labels like a trained annotator is expected near it; a system
  better than it under a figure is listed.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.agreement import category_counts, pairwise_confusion
from auditor.formatting import nan_to_none
from auditor.metrics.registry import ConfusionStats, Metric

CEILING_MEANING = (
    "Each figure of one annotator scored against another (mean over the ordered pairs of annotators). The gold is "
    "one annotation, so a system that levels items as well as a trained annotator is expected to score about this; "
    "it is a practical ceiling, not a bound: a system can pass it by learning the gold annotator's habits.")


@dataclass(frozen=True)
class OrdinalAgreement:
    """Ordinal agreement of the annotators and the systems against the ceiling it sets."""

    annotators: tuple[str, ...]
    alpha_ordinal: float | None
    #: "linear" / "quadratic" -> (m, m) weighted kappa of every pair (NaN on the diagonal and where undefined)
    kappa_pairs: Mapping[str, np.ndarray]
    #: metric id -> the mean over ordered pairs of one annotator's figure against another (None: undefined)
    ceiling: Mapping[str, float | None]
    #: system -> the metric ids under which it scores better than the ceiling
    systems_above: Mapping[str, tuple[str, ...]]

    def kappa(self, weights: str) -> float | None:
        """Mean weighted kappa over the pairs whose kappa is defined."""
        pairs = self.kappa_pairs[weights][np.triu_indices(len(self.annotators), 1)]
        return None if np.isnan(pairs).all() else float(np.nanmean(pairs))

    def to_json(self) -> dict[str, Any]:
        return {
            "annotators": list(self.annotators), "krippendorff_alpha_ordinal": self.alpha_ordinal,
            "linear_kappa": self.kappa("linear"), "quadratic_kappa": self.kappa("quadratic"),
            "kappa_pairs": {weights: [[nan_to_none(x) for x in row] for row in matrix]
                            for weights, matrix in self.kappa_pairs.items()},
            "ceiling": dict(self.ceiling), "ceiling_meaning": CEILING_MEANING,
            "systems_above": {name: list(ids) for name, ids in self.systems_above.items()},
        }


def krippendorff_alpha_ordinal(table: np.ndarray) -> float:
    """Krippendorff's alpha, ordinal metric, from the (N, k) category counts per item (no missing values)."""
    table = np.asarray(table, dtype=float)
    m = table[0].sum()
    coincidence = (table.T @ table - np.diag(table.sum(axis=0))) / (m - 1)
    margins = coincidence.sum(axis=1)
    cumulative = np.cumsum(margins)
    c, k = np.meshgrid(np.arange(len(margins)), np.arange(len(margins)), indexing="ij")
    low, high = np.minimum(c, k), np.maximum(c, k)
    delta = (cumulative[high] - np.where(low > 0, cumulative[low - 1], 0.0) - (margins[c] + margins[k]) / 2) ** 2
    expected = (np.outer(margins, margins) * delta).sum()
    if expected == 0:
        return float("nan")
    return float(1.0 - (margins.sum() - 1) * (coincidence * delta).sum() / expected)


def ordinal_agreement(codes: np.ndarray, annotators: Sequence[str], k: int, metrics: Sequence[Metric],
                      systems: Mapping[str, Mapping[str, Any]]) -> OrdinalAgreement:
    """The agreement of annotators' level codes (m, N) over k levels; ``metrics`` the figures whose ceiling is set;
    ``systems``: system -> metric id -> value (its ``.value``) against the gold."""
    codes = np.asarray(codes, dtype=np.int64)
    m = codes.shape[0]
    confusion = pairwise_confusion(codes, k).astype(float)
    stats = ConfusionStats(confusion, True)
    by_id = {metric.id: metric for metric in metrics}
    with np.errstate(all="ignore"):
        kappas = {weights: np.where(np.eye(m, dtype=bool), np.nan, by_id[f"{weights}_kappa"].function(stats))
                  for weights in ("linear", "quadratic")}
        ordered = list(permutations(range(m), 2))
        ceiling = {}
        for metric in metrics:
            values = metric.function(stats)
            pairs = np.array([values[a, b] for a, b in ordered])
            ceiling[metric.id] = None if np.isnan(pairs).all() else float(np.nanmean(pairs))
    above = {}
    for name, values in systems.items():
        better = tuple(metric_id for metric_id, bound in ceiling.items()
                       if bound is not None and getattr(values.get(metric_id), "value", None) is not None
                       and by_id[metric_id].oriented(np.array(values[metric_id].value)) > by_id[metric_id].oriented(
                           np.array(bound)) + 1e-12)
        if better:
            above[name] = better
    alpha = krippendorff_alpha_ordinal(category_counts(codes, k))
    return OrdinalAgreement(tuple(annotators), nan_to_none(alpha), kappas, ceiling, above)
