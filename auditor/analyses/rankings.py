"""Rank disagreement and prevalence shift: does the winner depend on the metric?

Analysis stage (DESIGN.md "Rank disagreement"). Reads only metric values computed from the
counts: a systems × metrics rank table (rank 1 = best, ties share the average rank, an
undefined value ranks last and is listed as such), the winner under each metric, Kendall τ-b
and Spearman ρ between every pair of metrics, and the pairs of systems whose order flips
between metrics, with the metrics on each side and — when the statistics analysis ran —
whether each difference is significant and the bootstrap probability of winning.

:func:`deployment` re-weights the gold rows to a deployment prevalence
(:func:`auditor.metrics.catalogue.reweight_prevalence`) and ranks the systems again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from auditor.errors import UsageError
from auditor.metrics.catalogue import BASE_METRIC_IDS, compute, prevalence_vector, reweight_prevalence
from auditor.metrics.registry import REGISTRY

#: The main (non-calibrated) scalar metrics ranked by default.
DEFAULT_METRICS: tuple[str, ...] = BASE_METRIC_IDS
#: Their prevalence-calibrated variants (``rank_disagreement(..., metrics=CALIBRATED_METRICS)``).
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


def _pair_signs(ranks: np.ndarray) -> np.ndarray:
    """sign(r_a − r_b) for every pair a < b of systems: shape (pairs, metrics)."""
    a, b = np.triu_indices(ranks.shape[0], k=1)
    return np.sign(ranks[a] - ranks[b])


def kendall_tau_b(ranks: np.ndarray) -> np.ndarray:
    r"""Kendall's τ-b between every pair of columns of ``ranks`` (systems × metrics).

    :math:`\tau_b = \sum_{a<b} s_{ab} t_{ab} / \sqrt{\sum s_{ab}^2 \sum t_{ab}^2}` with
    :math:`s_{ab} = \mathrm{sign}(x_a - x_b)`, which is the tie-corrected
    :math:`(n_c - n_d)/\sqrt{(n_0 - n_1)(n_0 - n_2)}` of Kendall (1945) and
    ``scipy.stats.kendalltau(variant='b')``. NaN where a column is constant.
    """
    signs = _pair_signs(np.asarray(ranks, dtype=float))
    numerator = signs.T @ signs
    norms = np.sqrt(np.diag(numerator))
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = numerator / np.outer(norms, norms)
    return np.where(np.outer(norms, norms) > 0, tau, np.nan)


def spearman_rho(ranks: np.ndarray) -> np.ndarray:
    """Spearman's ρ (Pearson correlation of average ranks) between every pair of columns."""
    ranks = np.asarray(ranks, dtype=float)
    centred = ranks - ranks.mean(axis=0)
    covariance = centred.T @ centred
    norms = np.sqrt(np.diag(covariance))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = covariance / np.outer(norms, norms)
    return np.where(np.outer(norms, norms) > 0, rho, np.nan)


# ------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Flip:
    """Systems ``a`` and ``b`` whose order depends on the metric.

    ``significant`` maps each metric to True/False (difference significant after the
    statistics analysis's correction) or is None when no statistics ran.
    """

    a: str
    b: str
    a_better_under: tuple[str, ...]
    b_better_under: tuple[str, ...]
    significant: dict[str, bool | None] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "a_better_under": list(self.a_better_under),
                "b_better_under": list(self.b_better_under), "significant": self.significant}


@dataclass
class RankDisagreement:
    """Rank table, winners, agreement between metrics and flipping pairs.

    ``values`` and ``ranks`` have shape (systems, metrics); ``undefined[metric]`` lists the
    systems whose value is undefined there (ranked last). ``p_win[metric][system]`` is the
    bootstrap probability of rank 1, when the statistics analysis provided it.
    """

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    values: np.ndarray
    ranks: np.ndarray
    kendall: np.ndarray
    spearman: np.ndarray
    flips: list[Flip]
    undefined: dict[str, list[str]] = field(default_factory=dict)
    p_win: dict[str, dict[str, float]] | None = None

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

    @property
    def tied_winners(self) -> dict[str, list[str]]:
        """Metric -> every system sharing the best rank (length > 1 only when tied)."""
        result = {}
        for column, metric in enumerate(self.metrics):
            best = self.ranks[:, column].min()
            result[metric] = [s for s, r in zip(self.systems, self.ranks[:, column]) if r == best]
        return result

    def _matrix(self, matrix: np.ndarray) -> dict[str, dict[str, float | None]]:
        return {m1: {m2: (None if np.isnan(matrix[i, j]) else float(matrix[i, j]))
                     for j, m2 in enumerate(self.metrics)} for i, m1 in enumerate(self.metrics)}

    def add_to_json(self, document: dict[str, Any]) -> None:
        document["rankings"] = self.rankings
        document["rank_agreement"] = {"kendall": self._matrix(self.kendall), "spearman": self._matrix(self.spearman)}
        document["winners"] = self.winners
        document["flips"] = [flip.to_json() for flip in self.flips]
        document["rank_table"] = {
            name: {metric: float(self.ranks[s, m]) for m, metric in enumerate(self.metrics)}
            for s, name in enumerate(self.systems)
        }
        document["rank_undefined"] = {metric: names for metric, names in self.undefined.items() if names}
        if self.p_win is not None:
            document["p_win"] = self.p_win


#: (a, b, metric) -> significant? (None when unknown)
SignificanceLookup = Callable[[str, str, str], "bool | None"]


def find_flips(systems: Sequence[str], metrics: Sequence[str], values: np.ndarray,
               significance: SignificanceLookup | None = None) -> list[Flip]:
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
                significant = {m: significance(systems[a], systems[b], m) for m in a_better + b_better}
            flips.append(Flip(systems[a], systems[b], a_better, b_better, significant))
    return flips


def rank_disagreement(values: Mapping[str, Mapping[str, float | None]], metrics: Sequence[str] | None = None,
                      statistics: Any = None) -> RankDisagreement:
    """Rank disagreement from ``values[system][metric]`` (None or NaN = undefined).

    ``metrics`` default to :data:`DEFAULT_METRICS` that are present. ``statistics`` is the
    statistics analysis result (``audit.statistics``) or None.
    """
    systems = tuple(values)
    if metrics is None:
        available = set().union(*(set(v) for v in values.values())) if values else set()
        metrics = [m for m in DEFAULT_METRICS if m in available]
    metrics = tuple(metrics)
    table = np.array([[_number(values[s].get(m)) for m in metrics] for s in systems], dtype=float).reshape(
        len(systems), len(metrics))
    ranks = rank_table(table)
    significance = _significance_lookup(statistics)
    return RankDisagreement(
        systems=systems, metrics=metrics, values=table, ranks=ranks,
        kendall=kendall_tau_b(ranks), spearman=spearman_rho(ranks),
        flips=find_flips(systems, metrics, table, significance),
        undefined={m: [s for s, v in zip(systems, table[:, j]) if np.isnan(v)] for j, m in enumerate(metrics)},
        p_win=_p_win(statistics, systems, metrics),
    )


def _number(value: Any) -> float:
    if value is None:
        return np.nan
    value = getattr(value, "value", value)
    return np.nan if value is None else float(value)


# ---------------------------------------------------------------- optional statistics


def _significance_lookup(statistics: Any) -> SignificanceLookup | None:
    """Adapter to the statistics analysis: (a, b, metric) -> significant or None.

    Accepts an object with a ``significant(a, b, metric)`` method, or any object whose JSON
    section lists pairwise tests as ``{"a", "b", "metric", "p_adjusted"|"p", "significant"?}``.
    """
    if statistics is None:
        return None
    if callable(getattr(statistics, "significant", None)):
        return statistics.significant
    if callable(getattr(statistics, "p_matrix", None)) and hasattr(statistics, "bootstrap"):
        return _p_matrix_lookup(statistics)
    tests = _tests(statistics)
    if not tests:
        return None
    alpha = float(getattr(statistics, "alpha", 0.05) or 0.05)
    table: dict[tuple[str, str, str], bool] = {}
    for test in tests:
        try:
            a, b, metric = test["a"], test["b"], test["metric"]
        except (KeyError, TypeError):
            continue
        if "significant" in test and test["significant"] is not None:
            verdict = bool(test["significant"])
        else:
            p = test.get("p_adjusted", test.get("p"))
            if p is None:
                continue
            verdict = float(p) < alpha
        # Several methods may test the same pair: significant if any says so is too lenient;
        # keep the least significant (conservative) verdict.
        key = (a, b, metric)
        table[key] = table.get(key, True) and verdict
        table[(b, a, metric)] = table[key]
    return lambda a, b, metric: table.get((a, b, metric))


def _p_matrix_lookup(statistics: Any) -> SignificanceLookup:
    """Significance from :class:`auditor.analyses.significance.Statistics`: the metric's primary test
    (exact McNemar for accuracy, approximate randomisation otherwise), adjusted p < alpha."""
    systems = list(statistics.bootstrap.systems)
    tested = set(getattr(statistics, "test_metrics", ()) or ())
    cache: dict[str, np.ndarray] = {}

    def lookup(a: str, b: str, metric: str) -> bool | None:
        if (tested and metric not in tested) or a not in systems or b not in systems:
            return None
        if metric not in cache:
            try:
                cache[metric] = statistics.p_matrix(metric)
            except Exception:  # noqa: BLE001 - optional section
                cache[metric] = np.full((len(systems), len(systems)), np.nan)
        p = cache[metric][systems.index(a), systems.index(b)]
        return None if np.isnan(p) else bool(p < statistics.alpha)

    return lookup


def _statistics_json(statistics: Any) -> dict[str, Any]:
    document: dict[str, Any] = {}
    if hasattr(statistics, "add_to_json"):
        try:
            statistics.add_to_json(document)
        except Exception:  # noqa: BLE001 - an optional section must never break the rankings
            return {}
    elif isinstance(statistics, Mapping):
        document = dict(statistics)
    return document


def _tests(statistics: Any) -> list[dict[str, Any]]:
    tests = getattr(statistics, "tests", None)
    if isinstance(tests, list) and tests and isinstance(tests[0], Mapping):
        return tests
    document = _statistics_json(statistics)
    nested = document.get("statistics") if isinstance(document.get("statistics"), Mapping) else {}
    for key in ("tests", "pairwise"):
        found = document.get(key, nested.get(key))
        if isinstance(found, list):
            return [t if isinstance(t, Mapping) else getattr(t, "__dict__", {}) for t in found]
    return []


def _p_win(statistics: Any, systems: Sequence[str], metrics: Sequence[str]) -> dict[str, dict[str, float]] | None:
    """P(rank = 1) per metric per system from the statistics analysis, when it offers it."""
    if statistics is None:
        return None
    boot = getattr(statistics, "bootstrap", None)
    probabilities = getattr(boot, "rank_probabilities", None)
    if isinstance(probabilities, Mapping):
        order = list(boot.systems)
        result = {m: {s: float(probabilities[m][order.index(s), 0]) for s in systems if s in order}
                  for m in metrics if m in probabilities}
        return result or None
    getter = getattr(statistics, "p_win", None)
    if callable(getter):
        try:
            return {m: {s: float(getter(s, m)) for s in systems} for m in metrics}
        except Exception:  # noqa: BLE001
            return None
    document = _statistics_json(statistics)
    if isinstance(document.get("statistics"), Mapping):
        document = {**document["statistics"], **document}
    for key in ("p_win", "rank_probabilities", "p_rank"):
        found = document.get(key)
        if isinstance(found, Mapping):
            result: dict[str, dict[str, float]] = {}
            for metric in metrics:
                per_system = found.get(metric)
                if not isinstance(per_system, Mapping):
                    continue
                result[metric] = {}
                for system, probability in per_system.items():
                    if isinstance(probability, Sequence) and not isinstance(probability, str):
                        probability = probability[0] if probability else None
                    elif isinstance(probability, Mapping):
                        probability = probability.get("1", probability.get(1))
                    if probability is not None:
                        result[metric][system] = float(probability)
            return result or None
    return None


# ------------------------------------------------------------------------- prevalence shift


@dataclass
class Deployment:
    """Metric values and rankings after re-weighting gold rows to a target prevalence."""

    target: dict[str, float]
    name: str
    values: dict[str, dict[str, float | None]]
    disagreement: RankDisagreement
    notes: list[str] = field(default_factory=list)

    def add_to_json(self, document: dict[str, Any]) -> None:
        document["deployment"] = {
            "name": self.name, "target": self.target, "metrics": self.values,
            "rankings": self.disagreement.rankings, "winners": self.disagreement.winners, "notes": self.notes,
        }


def target_prevalence(labels: Sequence[str], support: Sequence[int],
                      target: str | Mapping[str, float]) -> tuple[str, np.ndarray, list[str]]:
    """The target prevalence vector for ``uniform``, ``test`` or a label -> share mapping."""
    support = np.asarray(support, dtype=float)
    present = support > 0
    notes = []
    if isinstance(target, str):
        if target == "uniform":
            vector = present / present.sum()
            notes.append("uniform over the gold classes: prevalence calibration (Opitz 2024 §5.2)")
            return "uniform", vector, notes
        if target == "test":
            return "test", support / support.sum(), ["the test set's own prevalence: values equal the plain metrics"]
        raise UsageError(f"--deployment-prevalence: expected uniform, test, unknown, a file or 'a=0.2,b=0.8', "
                         f"found {target!r}")
    unknown = [label for label in target if label not in labels]
    if unknown:
        raise UsageError(f"--deployment-prevalence: label(s) {', '.join(map(repr, unknown))} not in the label set "
                         f"({', '.join(labels)})")
    vector = prevalence_vector(labels, target)
    missing = [label for label, share, ok in zip(labels, vector, present) if ok and share == 0]
    if missing:
        notes.append(f"no deployment share given for {', '.join(missing)}: their gold rows get weight 0")
    dropped = [label for label, share, ok in zip(labels, vector, present) if share > 0 and not ok]
    if dropped:
        notes.append(f"{', '.join(dropped)} has a deployment share but no gold items; the other shares are "
                     f"renormalised")
    vector = np.where(present, vector, 0.0)
    if vector.sum() <= 0:
        raise UsageError("--deployment-prevalence: no share falls on a class with gold items")
    return "file", vector / vector.sum(), notes


def deployment(confusion: np.ndarray, labels: Sequence[str], systems: Sequence[str],
               target: str | Mapping[str, float], metrics: Sequence[str] | None = None,
               all_labels_active: bool = False) -> Deployment:
    """Metrics and rankings of every system with gold rows re-weighted to ``target``.

    ``confusion`` is ``C[s, i, j]``; N is kept, so counts become fractional.
    """
    confusion = np.asarray(confusion, dtype=float)
    support = confusion[0].sum(axis=1)
    name, vector, notes = target_prevalence(labels, support, target)
    shifted = reweight_prevalence(confusion, vector)
    chosen = [REGISTRY.get(m) for m in (metrics or DEFAULT_METRICS)]
    computed = compute(shifted, chosen, all_labels_active)
    values = {
        system: {metric_id: (None if np.isnan(array[index]) else float(array[index]))
                 for metric_id, array in computed.items()}
        for index, system in enumerate(systems)
    }
    return Deployment(
        target={label: float(share) for label, share in zip(labels, vector)}, name=name, values=values,
        disagreement=rank_disagreement(values, [m.id for m in chosen]), notes=notes,
    )


# ------------------------------------------------------------------------------- pipeline


def analyse(audit: Any, metrics: Sequence[str] | None = None) -> RankDisagreement:
    """Rank disagreement of an :class:`auditor.pipeline.Audit` (statistics used when present)."""
    values = {name: {metric_id: value.value for metric_id, value in result.metrics.items()}
              for name, result in audit.systems.items()}
    return rank_disagreement(values, metrics, audit.statistics)


def analyse_deployment(audit: Any) -> Deployment | None:
    """The deployment analysis of an audit, or None when the option is unset or ``unknown``."""
    target = audit.options.deployment_prevalence
    if target is None or target == "unknown":
        return None
    return deployment(audit.counts.confusion, audit.labels, audit.counts.systems, target,
                      all_labels_active=audit.counts.labels_given)
