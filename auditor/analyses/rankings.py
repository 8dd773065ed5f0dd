"""Rank disagreement: does the winner depend on the metric?

Stage "analyse" (docs/architecture.md, "Rank disagreement"). Reads only metric values computed from the
counts: a systems × metrics rank table (rank 1 = best, ties share the average rank, an
undefined value ranks last and is listed as such), the winner under each metric, Kendall τ-b
and Spearman ρ between every pair of metrics, and the pairs of systems whose order flips
between metrics, with the metrics on each side and — when the statistics analysis ran —
whether each difference is significant (the bootstrap probability of winning is the
statistics analysis's own ``p_win``).

The rankings at another prevalence are :mod:`auditor.analyses.deployment`'s.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

import numpy as np

from auditor.formatting import nan_to_none
from auditor.metrics.catalogue import BASE_METRIC_IDS

if TYPE_CHECKING:  # the statistics module loads scipy; only its result type is named here
    from auditor.analyses.significance import Statistics
    from auditor.metrics.registry import Metric

#: The main (non-calibrated) scalar metrics ranked by default.
DEFAULT_METRICS: tuple[str, ...] = BASE_METRIC_IDS
#: Their prevalence-calibrated variants (``rank_disagreement(values, CALIBRATED_METRICS)``).
CALIBRATED_METRICS: tuple[str, ...] = tuple(f"{metric_id}_calibrated" for metric_id in BASE_METRIC_IDS)


# ------------------------------------------------------------------------------ primitives


def rank_table(values: np.ndarray) -> np.ndarray:
    """Ranks of systems (axis 0) under every metric (axis 1); higher value = better = rank 1.

    Ties get the average of the ranks they span; NaN (undefined) values rank after every
    defined value, tied among themselves.
    """
    values = np.asarray(values, dtype=float)
    keyed = np.where(np.isnan(values), np.inf, -values)
    ranks = np.empty(keyed.shape, dtype=float)
    for column in range(keyed.shape[1]):  # scipy.stats.rankdata(method="average"), without importing scipy.stats
        order = np.argsort(keyed[:, column], kind="stable")
        ordered = keyed[order, column]
        starts_group = np.r_[True, ordered[1:] != ordered[:-1]]
        starts = np.flatnonzero(starts_group)
        ends = np.r_[starts[1:], ordered.size]
        ranks[order, column] = ((starts + 1 + ends) / 2)[np.cumsum(starts_group) - 1]
    return ranks


def pair_signs(values: np.ndarray) -> np.ndarray:
    """sign(v_a − v_b) for every pair a < b along the last axis: shape (..., pairs)."""
    a, b = np.triu_indices(values.shape[-1], k=1)
    return np.sign(values[..., a] - values[..., b])


def _cosine(products: np.ndarray, squares_x: np.ndarray, squares_y: np.ndarray) -> np.ndarray:
    """Σ x y / √(Σ x² Σ y²) (one rounding in the root: a τ of 30 pairs out of 78 is 30/78 to the last digit); NaN
    where a side is all zeros (its product is then 0: 0/0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return products / np.sqrt(squares_x * squares_y)


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r"""Kendall's τ-b between ``x`` and ``y`` along the last axis (systems; leading axes broadcast: resamples).

    :math:`\tau_b = \sum_{a<b} s_{ab} t_{ab} / \sqrt{\sum s_{ab}^2 \sum t_{ab}^2}` with
    :math:`s_{ab} = \mathrm{sign}(x_a - x_b)`, :math:`t_{ab} = \mathrm{sign}(y_a - y_b)`, which is the tie-corrected
    :math:`(n_c - n_d)/\sqrt{(n_0 - n_1)(n_0 - n_2)}` of Kendall (1945) and ``scipy.stats.kendalltau(variant='b')``.
    NaN where either side is constant or holds NaN. Between every pair of columns: :func:`rank_agreement`.
    """
    s, t = pair_signs(np.asarray(x, dtype=float)), pair_signs(np.asarray(y, dtype=float))
    return _cosine((s * t).sum(axis=-1), (s * s).sum(axis=-1), (t * t).sum(axis=-1))


def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r between ``x`` and ``y`` along the last axis (leading axes broadcast); NaN where a side is
    constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    xc, yc = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    return _cosine((xc * yc).sum(axis=-1), (xc * xc).sum(axis=-1), (yc * yc).sum(axis=-1))


def rank_agreement(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Kendall's τ-b, Spearman's ρ) between every pair of columns of ``ranks`` (systems × metrics), two (metrics ×
    metrics) matrices: :func:`kendall_tau_b` and :func:`pearson` of the columns (ρ is Pearson's r of average
    ranks), their sums of products taken for all pairs at once (one matrix product each)."""
    ranks = np.asarray(ranks, dtype=float).T
    out = []
    for vectors in (pair_signs(ranks), ranks - ranks.mean(axis=-1, keepdims=True)):
        products = vectors @ vectors.T
        squares = np.diag(products)
        out.append(_cosine(products, squares[:, None], squares[None, :]))
    return out[0], out[1]


# ------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Flip:
    """Systems ``a`` and ``b`` whose order depends on the metric.

    ``significant`` maps each metric to True/False (difference significant after the
    statistics analysis's correction) or None where that pair was not tested there; the
    whole field is None when no statistics ran.
    """

    a: str
    b: str
    a_better_under: tuple[str, ...]
    b_better_under: tuple[str, ...]
    significant: Mapping[str, bool | None] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "a_better_under": list(self.a_better_under),
                "b_better_under": list(self.b_better_under),
                "significant": None if self.significant is None else dict(self.significant)}


@dataclass(frozen=True, eq=False)
class RankDisagreement:
    """Rank table, winners, agreement between metrics and flipping pairs.

    ``values`` and ``ranks`` have shape (systems, metrics); ``undefined[metric]`` lists the
    systems whose value is undefined there (ranked last).
    """

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    values: np.ndarray
    ranks: np.ndarray
    kendall: np.ndarray
    spearman: np.ndarray
    flips: tuple[Flip, ...]
    undefined: Mapping[str, tuple[str, ...]]

    def ranking(self, metric: str) -> list[str]:
        """Systems best first under ``metric`` (ties in input order, undefined last)."""
        column = self.metrics.index(metric)
        return [self.systems[i] for i in np.argsort(self.ranks[:, column], kind="stable")]

    @property
    def rankings(self) -> dict[str, list[str]]:
        return {metric: self.ranking(metric) for metric in self.metrics}

    @property
    def winners(self) -> dict[str, str]:
        return {metric: self.ranking(metric)[0] for metric in self.metrics}

    def flips_between(self, first: str, second: str) -> list[Flip]:
        """The flipping pairs that ``first`` and ``second`` order differently (one on each side)."""
        return [f for f in self.flips if (first in f.a_better_under and second in f.b_better_under)
                or (first in f.b_better_under and second in f.a_better_under)]

    def rank(self, system: str, metric: str) -> float:
        """Average rank of ``system`` under ``metric`` (1 = best)."""
        return float(self.ranks[self.systems.index(system), self.metrics.index(metric)])

    def agreement(self, kind: str) -> dict[str, dict[str, float | None]]:
        """``kind`` "kendall" (τ-b) or "spearman" (ρ) as metric -> metric -> value (None: undefined)."""
        matrix = {"kendall": self.kendall, "spearman": self.spearman}[kind]
        return {m1: {m2: nan_to_none(matrix[i, j]) for j, m2 in enumerate(self.metrics)}
                for i, m1 in enumerate(self.metrics)}

    def to_json(self) -> dict[str, Any]:
        """``rankings`` and ``rank_agreement`` (docs/architecture.md, "The audit record"), and
        ``rank_disagreement``: the winner under each metric, the flipping pairs, every system's rank, the systems
        ranked last as undefined."""
        return {
            "rankings": self.rankings,
            "rank_agreement": {"kendall": self.agreement("kendall"), "spearman": self.agreement("spearman")},
            "rank_disagreement": {
                "winners": self.winners,
                "flips": [flip.to_json() for flip in self.flips],
                "rank_table": {name: {metric: self.rank(name, metric) for metric in self.metrics}
                               for name in self.systems},
                "rank_undefined": {metric: list(names) for metric, names in self.undefined.items() if names},
            },
        }


#: (a, b, metric) -> significant? (None when unknown)
SignificanceLookup = Callable[[str, str, str], "bool | None"]


def find_flips(systems: Sequence[str], metrics: Sequence[str], values: np.ndarray,
               significance: SignificanceLookup | None = None) -> tuple[Flip, ...]:
    """Pairs of systems ordered one way by some metrics and the other way by others.

    Only metrics under which both systems have a defined value take part; equal values
    favour neither side.
    """
    values = np.asarray(values, dtype=float)
    flips = []
    for a, b in zip(*np.triu_indices(len(systems), k=1)):
        difference = values[a] - values[b]
        a_better = tuple(m for m, d in zip(metrics, difference) if d > 0)
        b_better = tuple(m for m, d in zip(metrics, difference) if d < 0)
        if a_better and b_better:
            significant = None
            if significance is not None:
                significant = MappingProxyType({m: significance(systems[a], systems[b], m)
                                                for m in a_better + b_better})
            flips.append(Flip(systems[a], systems[b], a_better, b_better, significant))
    return tuple(flips)


def rank_disagreement(values: Mapping[str, Mapping[str, float | None]], metrics: Sequence[str],
                      significance: SignificanceLookup | None = None,
                      lower_better: Collection[str] = ()) -> RankDisagreement:
    """Rank disagreement from ``values[system][metric]`` (None or NaN = undefined) under ``metrics``;
    ``significance`` says which differences are significant (flips only); ``lower_better``: the errors among
    ``metrics``, ranked and flipped by their negation (the values kept as they are)."""
    systems = tuple(values)
    metrics = tuple(metrics)
    table = np.array([[_number(values[s].get(m)) for m in metrics] for s in systems], dtype=float).reshape(
        len(systems), len(metrics))
    oriented = table * np.array([-1.0 if m in lower_better else 1.0 for m in metrics])
    ranks = rank_table(oriented)
    kendall, spearman = rank_agreement(ranks)
    return RankDisagreement(
        systems=systems, metrics=metrics, values=table, ranks=ranks, kendall=kendall, spearman=spearman,
        flips=find_flips(systems, metrics, oriented, significance),
        undefined=MappingProxyType({m: tuple(s for s, v in zip(systems, table[:, j]) if np.isnan(v))
                                    for j, m in enumerate(metrics)}),
    )


def _number(value: float | None) -> float:
    return np.nan if value is None else float(value)


def significance_lookup(statistics: Statistics) -> SignificanceLookup:
    """(a, b, metric) -> whether the metric's test (exact McNemar for accuracy, approximate randomisation otherwise;
    randomisation over clusters for every metric with clusters) has adjusted p < alpha; None where that pair was not
    tested (:func:`auditor.analyses.families.significance_lookup`)."""
    from auditor.analyses.families import RANDOMISATION
    from auditor.analyses.families import significance_lookup as lookup

    clustered = getattr(statistics, "resampling", None) is not None
    return lookup(statistics.tests, statistics.alpha, (lambda metric: RANDOMISATION) if clustered else None)


def analyse(values: Mapping[str, Mapping[str, float | None]], statistics: Statistics | None,
            rank_metrics: Sequence[str] | None = None, metrics: Sequence[Metric] = ()) -> RankDisagreement:
    """Rank disagreement of the systems' metric values (system -> metric id -> value) under ``rank_metrics``
    (default :data:`DEFAULT_METRICS`; ``metrics``, the records, say which are errors); with the statistics result,
    each flip says where its difference is significant."""
    return rank_disagreement(values, DEFAULT_METRICS if rank_metrics is None else rank_metrics,
                             None if statistics is None else significance_lookup(statistics),
                             {metric.id for metric in metrics if not metric.higher_is_better})
