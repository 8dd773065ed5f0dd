"""Pairwise significance tests, multiple-comparison correction, rank distributions, best set.

Part of the *analyse* stage; everything is computed from counts (STYLE.md 1).

Tests between two systems ``a`` and ``b`` on one metric, all two-sided, on the difference
``Δ = m(a) − m(b)`` measured on the test set:

* **paired bootstrap** (shift method): the bootstrap distribution of ``Δ*`` from the shared
  resamples of :mod:`auditor.bootstrap` is centred on the null by subtracting ``Δ``;
  ``p = (1 + #{|Δ* − Δ| ≥ |Δ|}) / (B' + 1)`` over the ``B'`` resamples where both values
  are defined (Koehn 2004; Berg-Kirkpatrick et al. 2012, two-sided).
* **approximate randomisation**: each item's two predictions are swapped with probability ½.
  On counts: for every discordant pattern ``(gold, pred_a, pred_b)`` with ``n`` items, the
  number swapped is ``Binomial(n, ½)``, drawn for all ``R`` rounds at once;
  ``p = (1 + #{|Δ*| ≥ |Δ|}) / (R' + 1)`` (Noreen 1989; Riezler & Maxwell 2005).
* **exact McNemar** for accuracy: under H0 the ``n01`` items only ``a`` gets right are
  ``Binomial(n01 + n10, ½)``; ``p = min(1, 2 P(X ≤ min(n01, n10)))`` (McNemar 1947; the
  exact form as in Dietterich 1998).

A family is every pair of systems compared under one metric by one method (each metric asks
its own question); p-values are adjusted over it with Holm's step-down (default) or
Benjamini–Hochberg.
The *best set* of a metric holds the top system (highest value) and every system whose
primary test against it (McNemar for accuracy, approximate randomisation otherwise) has an
adjusted p ≥ α: the systems not significantly worse than the top one. Its family is the
S − 1 comparisons with the top system of that metric (a many-to-one question), adjusted with
the same correction. (A Monte Carlo p-value cannot fall below ``1 / (R + 1)``, so the rounds
grow with the family, :func:`randomisation_rounds`; the JSON states the floor reached.)

References
----------
Holm (1979) Scand. J. Statist. 6(2). Benjamini & Hochberg (1995) JRSS B 57(1).
Noreen (1989) *Computer-Intensive Methods for Testing Hypotheses*. Riezler & Maxwell (2005)
ACL workshop on MT evaluation. Dror et al. (2018) "The Hitchhiker's Guide to Testing
Statistical Significance in NLP", ACL.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Sequence

import numpy as np
import scipy.sparse
import scipy.stats

from .bootstrap import METHOD, BootstrapResult, bootstrap
from .counts import Counts
from .errors import UsageError
from .metrics import compute
from .progress import SILENT, Progress
from .registry import REGISTRY, Metric

#: Metrics tested pairwise by default (accuracy also gets exact McNemar).
TEST_METRICS = ("accuracy", "macro_f1", "macro_recall", "mcc", "informedness")
#: Rounds of approximate randomisation.
AR_ROUNDS = 1000
#: Most approximate-randomisation rounds :func:`randomisation_rounds` asks for.
AR_MAX_ROUNDS = 20_000
#: Up to this many systems every pair is tested; above it, each system only against the
#: top system of each metric (S − 1 tests per metric and method instead of S(S − 1)/2).
MAX_ALL_PAIRS = 30
CORRECTIONS = ("holm", "bh")
PAIRED_BOOTSTRAP = "paired_bootstrap"
RANDOMISATION = "approximate_randomisation"
MCNEMAR = "mcnemar_exact"
METHOD_DESCRIPTIONS = {
    PAIRED_BOOTSTRAP: "paired bootstrap, shift method: p = (1 + #{|Δ* − Δ| ≥ |Δ|}) / (B' + 1), two-sided",
    RANDOMISATION: "approximate randomisation, per-item swaps with probability 1/2 drawn on counts: "
                   "p = (1 + #{|Δ*| ≥ |Δ|}) / (R' + 1), two-sided",
    MCNEMAR: "exact McNemar: binomial test of n01 against n01 + n10 at 1/2, two-sided",
}
_TOLERANCE = 1e-12


# ------------------------------------------------------------------ p-value adjustment


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values: ``max_{j ≤ i} min(1, (m − j + 1) p_(j))``.

    NaN entries are left out of the family and stay NaN.
    """
    p = np.asarray(p, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    if m:
        order = valid[np.argsort(p[valid], kind="stable")]
        scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
        adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def benjamini_hochberg(p: Sequence[float]) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values: ``min_{j ≥ i} min(1, m p_(j) / j)``.

    NaN entries are left out of the family and stay NaN.
    """
    p = np.asarray(p, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    if m:
        order = valid[np.argsort(p[valid], kind="stable")]
        scaled = np.minimum(1.0, m * p[order] / np.arange(1, m + 1))
        adjusted[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return adjusted


def adjust(p: Sequence[float], correction: str = "holm") -> np.ndarray:
    """Adjust ``p`` over one family with ``holm`` or ``bh`` (Benjamini–Hochberg)."""
    if correction == "holm":
        return holm(p)
    if correction == "bh":
        return benjamini_hochberg(p)
    raise UsageError(f"correction must be one of {', '.join(CORRECTIONS)}; found {correction!r}")


# ------------------------------------------------------------------ single tests


def mcnemar_exact(n01: int, n10: int) -> float:
    """Exact two-sided McNemar p-value ``min(1, 2 P(X ≤ min(n01, n10)))``, X ~ Bin(n01 + n10, ½)."""
    n = int(n01) + int(n10)
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * scipy.stats.binom.cdf(min(int(n01), int(n10)), n, 0.5)))


def discordant_counts(counts: Counts) -> np.ndarray:
    """``D[a, b]`` = items system a gets right and system b gets wrong (all pairs at once)."""
    correct = (counts.predictions == counts.gold[None, :]).astype(np.float64)
    return np.rint(correct @ (1.0 - correct).T).astype(np.int64)


def paired_bootstrap_p(values_a: np.ndarray, values_b: np.ndarray, difference: float) -> float:
    """Two-sided paired-bootstrap p-value of ``difference`` (shift method, +1 correction)."""
    if np.isnan(difference):
        return float("nan")
    resampled = values_a - values_b
    resampled = resampled[~np.isnan(resampled)]
    if resampled.size == 0:
        return float("nan")
    extreme = np.abs(resampled - difference) >= abs(difference) - _TOLERANCE
    return float((1 + extreme.sum()) / (resampled.size + 1))


def _pair_patterns(counts: Counts, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Discordant patterns (gold, pred_a, pred_b) with pred_a ≠ pred_b, and their item counts."""
    k = counts.k
    gold, pa, pb = counts.gold, counts.predictions[a], counts.predictions[b]
    key = (gold * k + pa) * k + pb
    key = key[pa != pb]
    if k**3 <= 4_000_000:
        tally = np.bincount(key, minlength=k**3)
        unique = np.flatnonzero(tally)
        n = tally[unique]
    else:
        unique, n = np.unique(key, return_counts=True)
    return unique // (k * k), (unique // k) % k, unique % k, n


def approximate_randomisation(
    counts: Counts, a: int, b: int, metrics: Sequence[Metric], rounds: int = AR_ROUNDS,
    seed: int = 12345, all_labels_active: bool = False,
) -> dict[str, tuple[float, float]]:
    """Approximate-randomisation test of systems ``a`` and ``b`` (indices) on every metric.

    Returns metric id -> ``(difference, p)`` with ``difference = m(a) − m(b)``. The swaps
    are drawn on counts: pattern (g, x, y) with n items moves ``m ~ Binomial(n, ½)`` items of
    system a from cell (g, x) to (g, y) and as many of system b from (g, y) to (g, x).
    The draws use ``SeedSequence([seed, a, b])``.
    """
    k = counts.k
    pair = counts.confusion[[a, b]].astype(np.float64)
    observed = compute(pair, metrics, all_labels_active)
    gold, pa, pb, n = _pair_patterns(counts, a, b)
    rng = np.random.default_rng(np.random.SeedSequence([seed, a, b]))
    swapped = rng.binomial(n[None, :], 0.5, size=(rounds, len(n))).astype(np.float64)
    patterns = np.arange(len(n))
    moves = scipy.sparse.csr_matrix(
        (np.concatenate([np.ones(len(n)), -np.ones(len(n))]),
         (np.concatenate([gold * k + pb, gold * k + pa]), np.concatenate([patterns, patterns]))),
        shape=(k * k, len(n)),
    )
    shift = np.asarray(moves @ swapped.T).T.reshape(rounds, k, k)  # (R, k, k)
    batch = np.empty((rounds, 2, k, k))
    batch[:, 0] = pair[0] + shift
    batch[:, 1] = pair[1] - shift
    resampled = compute(batch, metrics, all_labels_active)
    result = {}
    for metric in metrics:
        difference = float(observed[metric.id][0] - observed[metric.id][1])
        if np.isnan(difference):
            result[metric.id] = (difference, float("nan"))
            continue
        delta = resampled[metric.id][:, 0] - resampled[metric.id][:, 1]
        delta = delta[~np.isnan(delta)]
        extreme = (np.abs(delta) >= abs(difference) - _TOLERANCE).sum()
        result[metric.id] = (difference, float((1 + extreme) / (delta.size + 1)))
    return result


# ------------------------------------------------------------------ the whole stage


@dataclass
class PairTest:
    """One test of ``a`` against ``b`` on ``metric``; ``difference = m(a) − m(b)``."""

    a: str
    b: str
    metric: str
    method: str
    difference: float
    p: float
    p_adjusted: float = float("nan")
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b, "metric": self.metric, "method": self.method,
            "difference": _number(self.difference), "p": _number(self.p), "p_adjusted": _number(self.p_adjusted),
            **self.details,
        }


@dataclass
class Statistics:
    """Result of the statistics stage: bootstrap intervals and ranks, tests, best sets."""

    bootstrap: BootstrapResult
    tests: list[PairTest]
    best_set: dict[str, dict[str, Any]]
    test_metrics: tuple[str, ...]
    correction: str
    alpha: float
    rounds: int
    family: str

    def family_sizes(self) -> dict[str, dict[str, int]]:
        """Number of tests adjusted together, per method and metric."""
        sizes: dict[str, dict[str, int]] = {}
        for test in self.tests:
            per_metric = sizes.setdefault(test.method, {})
            per_metric[test.metric] = per_metric.get(test.metric, 0) + 1
        return sizes

    def tests_for(self, metric: str, method: str | None = None) -> list[PairTest]:
        return [t for t in self.tests if t.metric == metric and (method is None or t.method == method)]

    def p_matrix(self, metric: str, method: str | None = None, adjusted: bool = True) -> np.ndarray:
        """Symmetric (S, S) matrix of (adjusted) p-values of one metric; NaN where untested."""
        method = method or primary_method(metric)
        systems = self.bootstrap.systems
        matrix = np.full((len(systems), len(systems)), np.nan)
        for test in self.tests_for(metric, method):
            i, j = systems.index(test.a), systems.index(test.b)
            matrix[i, j] = matrix[j, i] = test.p_adjusted if adjusted else test.p
        return matrix

    def add_to_json(self, document: dict[str, Any]) -> None:
        """Fill ``ci`` of every metric of every system; add ``tests``, ``ranks``,
        ``best_set`` and ``statistics``."""
        boot = self.bootstrap
        undefined: dict[str, dict[str, int]] = {}
        for s, name in enumerate(boot.systems):
            entries = document.get("systems", {}).get(name, {}).get("metrics", {})
            for metric_id in boot.metric_ids:
                if metric_id in entries:
                    entries[metric_id]["ci"] = _interval(boot.intervals[metric_id][s])
                missing = int(boot.undefined[metric_id][s])
                if missing:
                    undefined.setdefault(name, {})[metric_id] = missing
        document["tests"] = [test.to_json() for test in self.tests]
        document["ranks"] = {
            metric_id: {
                name: {"p_rank": [float(x) for x in boot.rank_probabilities[metric_id][s]],
                       "p_best": float(boot.rank_probabilities[metric_id][s, 0])}
                for s, name in enumerate(boot.systems)
            }
            for metric_id in boot.metric_ids
        }
        document["best_set"] = self.best_set
        document["statistics"] = {
            "B": boot.B, "seed": boot.seed, "alpha": self.alpha, "method": METHOD,
            "interval": f"percentile [{100 * self.alpha / 2:g}%, {100 * (1 - self.alpha / 2):g}%] of the defined "
                        "resample values",
            "undefined_resamples": undefined,
            "ranks": "rank 1 = highest value; tied systems share their ranks equally; "
                     "an undefined value ranks last",
            "correction": self.correction,
            "family": self.family,
            "test_metrics": list(self.test_metrics),
            "tests": {method: METHOD_DESCRIPTIONS[method] for method in (MCNEMAR, RANDOMISATION, PAIRED_BOOTSTRAP)},
            "randomisation_rounds": self.rounds,
            "best_set": "the top system and every system whose primary test against it (exact McNemar for "
                        f"accuracy, approximate randomisation otherwise) has adjusted p ≥ {self.alpha:g}; "
                        f"family: the S − 1 comparisons with the top system of that metric, {self.correction}",
            "p_floor": {RANDOMISATION: 1 / (self.rounds + 1), PAIRED_BOOTSTRAP: 1 / (boot.B + 1)},
            "family_sizes": self.family_sizes(),
        }


def primary_method(metric: str) -> str:
    return MCNEMAR if metric == "accuracy" else RANDOMISATION


def randomisation_rounds(rounds: int, family_size: int, alpha: float) -> int:
    """Rounds enough for a corrected Monte Carlo p-value to reach significance at all.

    The smallest randomisation p is 1/(R + 1), so after Holm or Bonferroni over m tests the
    smallest adjusted p is m/(R + 1): with R = 1000 and m = 140 no pair could ever reach
    α = 0.05. Returns ``max(rounds, ⌈2m/α⌉)`` (smallest adjusted p ≤ α/2), at most
    ``AR_MAX_ROUNDS``; the p floor actually reached is reported with the tests.
    """
    return int(min(max(rounds, int(np.ceil(2 * family_size / alpha))), max(rounds, AR_MAX_ROUNDS)))


def statistics(
    counts: Counts,
    metrics: Sequence[Metric],
    B: int = 1000,
    seed: int = 12345,
    alpha: float = 0.05,
    correction: str = "holm",
    test_metrics: Sequence[str] = TEST_METRICS,
    rounds: int = AR_ROUNDS,
    progress: Progress = SILENT,
    all_labels_active: bool = False,
) -> Statistics:
    """Bootstrap every metric, test pairs of systems, adjust, and find each best set.

    Parameters
    ----------
    counts : the test set's counts.
    metrics : scalar metrics to bootstrap (intervals and rank distributions for each).
    B, seed, alpha : bootstrap resamples, seed of every draw, 1 − coverage / test level.
    correction : ``holm`` (default) or ``bh``; applied per method over its family.
    test_metrics : metric ids (or aliases) tested pairwise.
    rounds : approximate-randomisation rounds.
    """
    if correction not in CORRECTIONS:
        raise UsageError(f"correction must be one of {', '.join(CORRECTIONS)}; found {correction!r}")
    boot = bootstrap(counts, metrics, B, seed, alpha, progress, all_labels_active)
    by_id = {metric.id: metric for metric in metrics}
    chosen = []
    for name in test_metrics:
        metric_id = name if name in by_id else REGISTRY.resolve(name)
        if metric_id in by_id and metric_id not in chosen and not by_id[metric_id].per_class:
            chosen.append(metric_id)
    systems = counts.systems
    S = len(systems)
    all_pairs = S <= MAX_ALL_PAIRS
    if all_pairs:
        pairs_of = {metric_id: list(combinations(range(S), 2)) for metric_id in chosen}
        family = (f"all {S * (S - 1) // 2} pairs of systems, for each metric ({', '.join(chosen)}) and each "
                  f"test method separately, adjusted with {correction}")
    else:
        pairs_of = {}
        for metric_id in chosen:
            top = _top(boot.observed[metric_id])
            pairs_of[metric_id] = [(top, s) for s in range(S) if s != top]
        family = (f"each system against the top system of each metric ({S - 1} pairs; more than {MAX_ALL_PAIRS} "
                  f"systems), for each metric ({', '.join(chosen)}) and each test method separately, "
                  f"adjusted with {correction}")

    rounds = randomisation_rounds(rounds, max(map(len, pairs_of.values()), default=0), alpha)
    tests: list[PairTest] = []
    pairs = sorted({pair for metric_pairs in pairs_of.values() for pair in metric_pairs})
    discordant = discordant_counts(counts) if "accuracy" in chosen else None
    with progress.task("significance", total=len(pairs)) as advance:
        for a, b in pairs:
            wanted = [by_id[m] for m in chosen if (a, b) in pairs_of[m]]
            randomised = approximate_randomisation(counts, a, b, wanted, rounds, seed, all_labels_active)
            for metric in wanted:
                difference, p = randomised[metric.id]
                if metric.id == "accuracy":
                    n01, n10 = int(discordant[a, b]), int(discordant[b, a])
                    tests.append(PairTest(systems[a], systems[b], metric.id, MCNEMAR, difference,
                                          mcnemar_exact(n01, n10), details={"n01": n01, "n10": n10}))
                tests.append(PairTest(systems[a], systems[b], metric.id, RANDOMISATION, difference, p,
                                      details={"rounds": rounds}))
                values = boot.values[metric.id]
                tests.append(PairTest(systems[a], systems[b], metric.id, PAIRED_BOOTSTRAP, difference,
                                      paired_bootstrap_p(values[:, a], values[:, b], difference),
                                      details={"B": boot.B}))
            advance(1)
    for method in (MCNEMAR, RANDOMISATION, PAIRED_BOOTSTRAP):
        for metric_id in chosen:
            members = [test for test in tests if test.method == method and test.metric == metric_id]
            for test, value in zip(members, adjust([test.p for test in members], correction)):
                test.p_adjusted = float(value)

    best_set = {}
    for metric_id in chosen:
        top = _top(boot.observed[metric_id])
        if top is None:
            continue
        method = primary_method(metric_id)
        against = {}
        for test in tests:
            if test.metric == metric_id and test.method == method and systems[top] in (test.a, test.b):
                against[test.b if test.a == systems[top] else test.a] = test.p
        names = list(against)
        adjusted = dict(zip(names, (float(x) for x in adjust([against[n] for n in names], correction))))
        members = [systems[top]] + [
            name for name in systems
            if name in adjusted and not adjusted[name] < alpha
            and not np.isnan(boot.observed[metric_id][systems.index(name)])
        ]
        best_set[metric_id] = {
            "top": systems[top], "systems": members, "test": method, "alpha": alpha,
            "p_adjusted": {name: _number(value) for name, value in adjusted.items()},
        }
    return Statistics(boot, tests, best_set, tuple(chosen), correction, alpha, rounds, family)


def _top(values: np.ndarray) -> int | None:
    values = np.asarray(values, dtype=float)
    if np.isnan(values).all():
        return None
    return int(np.nanargmax(values))


def _number(value: float) -> float | None:
    return None if value is None or np.isnan(value) else float(value)


def _interval(row: np.ndarray) -> list[float] | None:
    return None if np.isnan(row[0]) else [float(row[0]), float(row[1])]
