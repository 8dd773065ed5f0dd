"""Pairwise significance tests, multiple-comparison correction, rank distributions, best set.

Stage "analyse"; everything is computed from counts and item-pattern counts
(docs/architecture.md, "Counts first"), never from items.

Each pair of systems ``a`` and ``b`` gets **one** two-sided test per tested metric, on the
difference ``Δ = m(a) − m(b)`` measured on the test set:

* **exact McNemar** for accuracy: under H0 the ``n01`` items only ``a`` gets right are
  ``Binomial(n01 + n10, ½)``; ``p = min(1, 2 P(X ≤ min(n01, n10)))`` (McNemar 1947; the
  exact form as in Dietterich 1998). An exact test: no Monte Carlo floor.
* **approximate randomisation** for every other metric (no exact or standard asymptotic
  test exists for macro F1, MCC and the like): each item's two predictions are swapped with
  probability ½. On counts: for every discordant pattern ``(gold, pred_a, pred_b)`` the
  number swapped is binomial (:mod:`auditor.analyses.randomisation`), drawn for all ``R``
  rounds at once; ``p = (1 + #{|Δ*| ≥ |Δ|}) / (R' + 1)`` (Noreen 1989; Riezler & Maxwell
  2005). Its smallest value is ``1 / (R + 1)``, so ``R`` grows with the family
  (:func:`randomisation_rounds`).

A family is every pair of systems compared under one metric (each metric asks its own
question); p-values are adjusted over it with Holm's step-down (default) or
Benjamini–Hochberg. The paired bootstrap (:mod:`auditor.analyses.bootstrap`) gives intervals and rank
distributions, not p-values.
The *best set* of a metric holds the top system (highest value) and every system whose test
against it has an adjusted p ≥ α: the systems not significantly worse than the top one. Its
family is the S − 1 comparisons with the top system of that metric (a many-to-one question),
adjusted with the same correction.

References
----------
Holm (1979) Scand. J. Statist. 6(2). Benjamini & Hochberg (1995) JRSS B 57(1).
Noreen (1989) *Computer-Intensive Methods for Testing Hypotheses*. Riezler & Maxwell (2005)
ACL workshop on MT evaluation. Dror et al. (2018) "The Hitchhiker's Guide to Testing
Statistical Significance in NLP", ACL.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.bootstrap import BootstrapResult, bootstrap
from auditor.analyses.families import MCNEMAR as MCNEMAR
from auditor.analyses.families import RANDOMISATION as RANDOMISATION
from auditor.analyses.families import BestSet as BestSet
from auditor.analyses.families import PairTest as PairTest
from auditor.analyses.families import adjust as adjust
from auditor.analyses.families import adjust_families as adjust_families
from auditor.analyses.families import benjamini_hochberg as benjamini_hochberg
from auditor.analyses.families import best_sets as best_sets
from auditor.analyses.families import holm as holm
from auditor.analyses.families import mcnemar_exact as mcnemar_exact
from auditor.analyses.families import primary_method as primary_method
from auditor.analyses.families import top_system
from auditor.analyses.randomisation import AR_ROUNDS, approximate_randomisation
from auditor.errors import UsageError
from auditor.formatting import format_small
from auditor.io.clusters import Clusters
from auditor.io.counts import Counts
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY, Metric
from auditor.metrics.selections import TEST_METRICS
from auditor.options import THREADS, Correction, correction_name
from auditor.progress import SILENT, Progress

#: Items per block of :func:`discordant_counts` (float32 products of 0/1 stay exact below 2^24 items).
DISCORDANT_CHUNK = 2**18
#: Most approximate-randomisation rounds :func:`randomisation_rounds` asks for.
AR_MAX_ROUNDS = 20_000
#: Up to this many systems every pair is tested; above it, each system only against the
#: top system of each metric (S − 1 tests per metric and method instead of S(S − 1)/2).
MAX_ALL_PAIRS = 30
METHOD_DESCRIPTIONS = {
    RANDOMISATION: "approximate randomisation (every metric but accuracy), per-item swaps with probability "
                   "1/2 drawn on pattern counts: p = (1 + #{|Δ*| ≥ |Δ|}) / (R' + 1), two-sided",
    MCNEMAR: "exact McNemar (accuracy): binomial test of n01 against n01 + n10 at 1/2, two-sided",
}
#: The pair test with clusters (the JSON's ``test_methods``), every metric's, accuracy included.
CLUSTER_TEST = ("approximate randomisation over clusters (every metric, accuracy included: McNemar's exact test "
                "assumes independent items): each cluster's cells of the two systems swapped with probability 1/2, "
                "p = (1 + #{|Δ*| ≥ |Δ|}) / (R' + 1), two-sided")
#: Why confusion matrices alone allow no paired test (stated in the JSON and the report).
UNPAIRED_REASON = ("only confusion matrices were given, so which items two systems both got right or "
                   "wrong is unknown; McNemar's test and approximate randomisation need the items paired across "
                   "systems, and the best sets (which rest on them) are not formed")
#: What ``--bootstrap 0`` leaves out of the statistics, and why (JSON ``statistics.not_run``, the report, the terminal).
NO_DRAWS = {
    "intervals": "not run: --bootstrap 0 (no resamples, so no bootstrap intervals)",
    "ranks": "not run: --bootstrap 0 (no resamples, so no rank distributions or P(win))",
    "approximate_randomisation": "not run: --bootstrap 0 (no randomisation rounds); only accuracy's exact McNemar "
                                 "tests ran, so only accuracy has a best set and bold",
}
#: The statistics' method when nothing was drawn (``--bootstrap 0``).
NO_DRAWS_METHOD = "none: --bootstrap 0, no random draws (exact McNemar tests of accuracy only)"
#: Why no pairwise test ran when only the intervals were asked for (``tests=False``).
NOT_REQUESTED_REASON = ("not run: only the bootstrap intervals and rank distributions were requested "
                        "(the pairwise tests and best sets run in the full audit)")


def discordant_counts(counts: Counts) -> np.ndarray:
    """``D[a, b]`` = items system a gets right and system b gets wrong (all pairs at once).

    ``D = (n ∘ R)ᵀ (1 − R)`` with ``R[u, s] = [pred_{s,u} = gold_u]`` over the item patterns, or over the items
    themselves (n = 1) when they are loaded, in blocks.
    """
    if counts.given_pairs is not None:  # the pattern table was too large: from each pair's table
        from auditor.analyses.pairwise_resample import discordant_from_pairs

        return discordant_from_pairs(counts)
    if counts.gold is not None and counts.predictions is not None:  # the items themselves: R (S, N), no pattern table
        total = np.zeros((len(counts.systems),) * 2, dtype=np.int64)
        for start in range(0, counts.n_items, DISCORDANT_CHUNK):  # float32 sums of 0/1 below 2^24 are exact
            right = (counts.predictions[:, start:start + DISCORDANT_CHUNK]
                     == counts.gold[None, start:start + DISCORDANT_CHUNK]).astype(np.float32)
            total += np.rint(right @ (1.0 - right).T).astype(np.int64)
        return total
    codes, n = counts.patterns()
    correct = (codes[:, 1:] == codes[:, :1]).astype(np.float64)
    return np.rint((correct * n[:, None]).T @ (1.0 - correct)).astype(np.int64)


def discordant_pair(counts: Counts, a: int, b: int) -> tuple[int, int]:
    """(items system a gets right and b wrong, items b gets right and a wrong): :func:`discordant_counts` for
    one pair, from the items when they are loaded, else from the pair's pattern counts
    (:meth:`~auditor.io.counts.Counts.pair_patterns`)."""
    if counts.gold is not None and counts.predictions is not None:
        right_a, right_b = counts.predictions[a] == counts.gold, counts.predictions[b] == counts.gold
        return int(np.count_nonzero(right_a & ~right_b)), int(np.count_nonzero(right_b & ~right_a))
    codes, n = counts.pair_patterns(a, b)
    right_a, right_b = codes[:, 1] == codes[:, 0], codes[:, 2] == codes[:, 0]
    return int(n[right_a & ~right_b].sum()), int(n[right_b & ~right_a].sum())


# ------------------------------------------------------------------ the whole stage


@dataclass(frozen=True)
class Statistics:
    """Result of the statistics stage: bootstrap intervals and ranks, tests, best sets."""

    bootstrap: BootstrapResult
    tests: tuple[PairTest, ...]
    best_set: Mapping[str, BestSet]
    test_metrics: tuple[str, ...]
    correction: Correction
    alpha: float
    rounds: int
    family: str
    #: Why no pairwise test ran although the bootstrap did (confusion matrices only), else None.
    pairwise_unavailable: str | None = None
    #: With clusters: the JSON's ``resampling`` (clusters drawn, design effects; :mod:`auditor.analyses.clustered`).
    resampling: Mapping[str, Any] | None = None
    #: Labels of the bootstrapped metrics that are errors (lower is better: ranked lowest first).
    errors: tuple[str, ...] = ()

    @property
    def rank_rule(self) -> str:
        """How ranks are counted (:func:`rank_rule`), naming this audit's errors."""
        return rank_rule(self.errors)
    #: What did not run and why (``--bootstrap 0``: :data:`NO_DRAWS`); empty when everything ran.
    not_run: Mapping[str, str] = field(default_factory=dict)

    def family_sizes(self) -> dict[str, int]:
        """Number of tests adjusted together per metric: the pairs whose p is defined (a pair with an undefined
        metric value has no p and is left out of the correction, :func:`holm`)."""
        sizes: dict[str, int] = {}
        for test in self.tests:
            sizes[test.metric] = sizes.get(test.metric, 0) + (0 if np.isnan(test.p) else 1)
        return sizes

    def pairs_run(self) -> dict[str, int]:
        """Number of pairs tested per metric, defined p or not."""
        counts: dict[str, int] = {}
        for test in self.tests:
            counts[test.metric] = counts.get(test.metric, 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """``ci`` of every metric of every system (inside ``systems``), ``tests`` (docs/architecture.md, "The audit
        record"), and ``statistics``: the method, ``ranks`` (rank distributions), ``best_set`` and ``p_win``
        (P(rank 1))."""
        boot, alpha = self.bootstrap, self.alpha
        section: dict[str, Any] = {
            "B": boot.B, "seed": boot.seed, "alpha": alpha, "method": boot.method,
            "interval": interval_rule(alpha), "undefined_resamples": boot.undefined_json(), "rank_rule": self.rank_rule,
            **boot.ranks_json(),
        }
        if self.resampling is not None:
            section["resampling"] = dict(self.resampling)
        if self.not_run:
            section["not_run"] = dict(self.not_run)
        if self.pairwise_unavailable:  # no test ran: nothing describes tests; say why instead
            section["pairwise_tests_unavailable"] = self.pairwise_unavailable
        else:
            section.update({
                "correction": self.correction, "family": self.family, "test_metrics": list(self.test_metrics),
                "test_methods": {method: METHOD_DESCRIPTIONS[method] if self.resampling is None else CLUSTER_TEST
                                 for method in (MCNEMAR, RANDOMISATION) if any(test.method == method
                                                                              for test in self.tests)},
                "randomisation_rounds": self.rounds,
                "rounds_rule": rounds_rule(self.rounds, max(self.pairs_run().values(), default=0), alpha),
                "best_set_rule": best_set_rule(alpha, self.correction, self.resampling is not None),
                "best_set": {metric_id: best.to_json() for metric_id, best in self.best_set.items()},
                "p_floor": {RANDOMISATION: 1 / (self.rounds + 1)} if self.rounds else {},
                "family_sizes": self.family_sizes(),
            })
        return {"systems": boot.intervals_json(), "tests": [test.to_json() for test in self.tests],
                "statistics": section}

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


#: How ranks are counted in every resample (JSON ``statistics.rank_rule``, the report's facts).
RANK_RULE = "rank 1 = highest value; tied systems share their ranks equally; an undefined value ranks last"


def rank_rule(errors: Sequence[str] = ()) -> str:
    """:data:`RANK_RULE`, saying that for the ``errors`` (lower is better) rank 1 is the lowest value."""
    if not errors:
        return RANK_RULE
    return RANK_RULE.replace("highest value", f"highest value (lowest for the errors: {', '.join(errors)})", 1)


def interval_rule(alpha: float) -> str:
    """The percentile interval at level ``alpha``, in words."""
    return f"percentile [{100 * alpha / 2:g}%, {100 * (1 - alpha / 2):g}%] of the defined resample values"


def best_set_rule(alpha: float, correction: str, clustered: bool = False) -> str:
    """How a best set is formed, in words (``clustered``: every test is randomisation over clusters)."""
    tests = "approximate randomisation over clusters" if clustered else \
        "exact McNemar for accuracy, approximate randomisation otherwise"
    return (f"the top system and every system whose test against it ({tests}) has adjusted p ≥ {alpha:g}; family: "
            f"the S − 1 comparisons with the top system of that metric, {correction}")


def rounds_rule(rounds: int, family_size: int, alpha: float) -> str:
    """Why the randomisation ran ``rounds`` rounds, in words (for the JSON and the report)."""
    if not rounds:
        return "no approximate randomisation ran (accuracy has an exact test)"
    smallest = family_size / (rounds + 1)
    verdict = ("at most α/2, so every pair can reach significance" if smallest <= alpha / 2
               else f"above α/2 because the rounds are capped at {AR_MAX_ROUNDS}")
    return (f"R = {rounds} rounds = max(R₀, ⌈2m/α⌉), R₀ the rounds asked for ({AR_ROUNDS} by default), m = "
            f"{family_size} tests per metric, α = {alpha:g}, ⌈2m/α⌉ = {int(np.ceil(2 * family_size / alpha))}, at most "
            f"{max(rounds, AR_MAX_ROUNDS)}: a randomisation p-value cannot fall below 1/(R + 1) = "
            f"{format_small(1 / (rounds + 1))}, and after adjusting over m tests the smallest attainable p, "
            f"m/(R + 1) = {format_small(smallest)}, is {verdict}")


def randomisation_rounds(rounds: int, family_size: int, alpha: float) -> int:
    """Rounds enough for a corrected Monte Carlo p-value to reach significance at all.

    The smallest randomisation p is 1/(R + 1), so after Holm or Bonferroni over m tests the
    smallest adjusted p is m/(R + 1): with R = 1000 and m = 140 no pair could ever reach
    α = 0.05. Returns ``max(rounds, ⌈2m/α⌉)`` (smallest adjusted p ≤ α/2), at most
    ``AR_MAX_ROUNDS``; the p floor actually reached is reported with the tests.
    """
    return int(min(max(rounds, int(np.ceil(2 * family_size / alpha))), max(rounds, AR_MAX_ROUNDS)))


def analyse(counts: Counts, metrics: Sequence[Metric], bootstrap: int, seed: int, alpha: float, correction: Correction,
            progress: Progress = SILENT, tests: bool = True,
            test_metrics: Sequence[str] | None = None, clusters: Clusters | None = None) -> Statistics | None:
    """The statistics of the audit (:func:`statistics` with ``bootstrap`` resamples), or None when
    ``bootstrap`` is 0 and only the intervals were asked for (or the items are clustered: McNemar's exact test,
    the one test without draws, assumes independent items); with ``bootstrap`` 0 otherwise, the tests that
    need no draw (:func:`exact_statistics`). ``tests`` False: the intervals and rank distributions only
    (``auditor score``'s table; the bootstrap's draws are the same).
    ``test_metrics``: a task's own metrics to test (default :data:`TEST_METRICS`). ``clusters``: the items'
    clusters (:mod:`auditor.analyses.clustered`: clusters resampled and swapped instead of items)."""
    if bootstrap <= 0 and clusters is not None:
        return None
    if bootstrap <= 0:
        return exact_statistics(counts, metrics, alpha=alpha, correction=correction,
                                test_metrics=TEST_METRICS if test_metrics is None else test_metrics) if tests else None
    return statistics(counts, metrics, B=bootstrap, seed=seed, alpha=alpha, correction=correction, progress=progress,
                      all_labels_active=counts.labels_given, tests=tests,
                      test_metrics=TEST_METRICS if test_metrics is None else test_metrics, clusters=clusters)


def statistics(
    counts: Counts,
    metrics: Sequence[Metric],
    *,
    B: int,
    seed: int,
    alpha: float,
    correction: str,
    test_metrics: Sequence[str] = TEST_METRICS,
    rounds: int = AR_ROUNDS,
    progress: Progress = SILENT,
    all_labels_active: bool = False,
    tests: bool = True,
    clusters: Clusters | None = None,
) -> Statistics:
    """Bootstrap every metric, test pairs of systems, adjust, and find each best set.

    Parameters
    ----------
    counts : the test set's counts.
    metrics : scalar metrics to bootstrap (intervals and rank distributions for each).
    B, seed, alpha : bootstrap resamples, seed of every draw, 1 − coverage / test level.
    correction : ``holm`` or ``bh`` (checked by :func:`auditor.options.check_options`); applied per
        metric over its family.
    test_metrics : metric ids (or aliases) tested pairwise.
    rounds : approximate-randomisation rounds.
    tests : False stops after the bootstrap (no pairwise tests, no best sets: what
        ``auditor score``'s table shows); the bootstrap draws the same resamples either way.
    clusters : the items' clusters: the cluster bootstrap and randomisation over clusters
        (:mod:`auditor.analyses.clustered`) instead of the item resamples and McNemar.
    """
    if clusters is not None:
        return _clustered(counts, metrics, B, seed, alpha, correction, test_metrics, rounds, progress,
                          all_labels_active, tests, clusters)
    boot = bootstrap(counts, metrics, B=B, seed=seed, alpha=alpha, progress=progress,
                     all_labels_active=all_labels_active, ranks=tests)
    errors = tuple(metric.label for metric in metrics if not metric.higher_is_better)
    if not counts.paired:
        return Statistics(boot, (), {}, (), correction, alpha, 0, "none", pairwise_unavailable=UNPAIRED_REASON,
                          errors=errors)
    if not tests:
        return Statistics(boot, (), {}, (), correction, alpha, 0, "none", pairwise_unavailable=NOT_REQUESTED_REASON,
                          errors=errors)
    by_id = {metric.id: metric for metric in metrics}
    chosen = _tested_metrics(by_id, test_metrics)
    oriented = {m: by_id[m].oriented(boot.observed[m]) for m in chosen}  # an error's top is its lowest value
    pairs_of, family = _families(oriented, chosen, len(counts.systems), correction,
                                 [by_id[m].label for m in chosen])
    randomised_metrics = [m for m in chosen if primary_method(m) == RANDOMISATION]
    family_size = max((len(pairs_of[m]) for m in randomised_metrics), default=0)
    rounds = randomisation_rounds(rounds, family_size, alpha) if randomised_metrics else 0
    tests = adjust_families(_pair_tests(counts, boot, [by_id[m] for m in chosen], pairs_of, rounds, seed,
                                        all_labels_active, progress), correction)
    best_set = best_sets(tests, oriented, boot.systems, chosen, correction, alpha)
    return Statistics(boot, tuple(tests), best_set, tuple(chosen), correction, alpha, rounds, family, errors=errors)


def _clustered(counts: Counts, metrics: Sequence[Metric], B: int, seed: int, alpha: float, correction: str,
               test_metrics: Sequence[str], rounds: int, progress: Progress, all_labels_active: bool, tests: bool,
               clusters: Clusters) -> Statistics:
    """:func:`statistics` over clusters (:mod:`auditor.analyses.clustered`): every tested metric by approximate
    randomisation over clusters, accuracy included."""
    from auditor.analyses import clustered

    if counts.gold is None:
        raise UsageError("--clusters needs each item's labels (GOLD and SYSTEM files); these counts have none")
    cells = clustered.cluster_cells(counts, clusters)
    boot = clustered.bootstrap(counts, metrics, cells, clusters, B, seed, alpha, all_labels_active, progress)
    resampling = clustered.resampling(counts, clusters)
    errors = tuple(metric.label for metric in metrics if not metric.higher_is_better)
    if not tests:
        return Statistics(boot, (), {}, (), correction, alpha, 0, "none", pairwise_unavailable=NOT_REQUESTED_REASON,
                          resampling=resampling, errors=errors)
    by_id = {metric.id: metric for metric in metrics}
    chosen = _tested_metrics(by_id, test_metrics)
    oriented = {m: by_id[m].oriented(boot.observed[m]) for m in chosen}
    pairs_of, family = _families(oriented, chosen, len(counts.systems), correction,
                                 [by_id[m].label for m in chosen])
    pairs = sorted({pair for metric_pairs in pairs_of.values() for pair in metric_pairs})
    rounds = randomisation_rounds(rounds, max((len(p) for p in pairs_of.values()), default=0), alpha)
    found = clustered.pair_tests(counts, cells, [by_id[m] for m in chosen], boot.observed, pairs, rounds, seed,
                                 correction, all_labels_active)
    best_set = best_sets(found, oriented, boot.systems, chosen, correction, alpha, lambda metric: RANDOMISATION)
    return Statistics(boot, tuple(found), best_set, tuple(chosen), correction, alpha, rounds, family,
                      resampling=resampling, errors=errors)
def exact_statistics(counts: Counts, metrics: Sequence[Metric], *, alpha: float, correction: str,
                     test_metrics: Sequence[str] = TEST_METRICS) -> Statistics:
    """The statistics without a single random draw (``--bootstrap 0``): no intervals, ranks or randomisation
    tests (:data:`NO_DRAWS`); the exact McNemar tests of accuracy, adjusted as in :func:`statistics`, and
    accuracy's best set from them. Every other tested metric has no test and no best set, so no bold."""
    observed = compute(counts.confusion, metrics, counts.labels_given)
    boot = BootstrapResult(tuple(counts.systems), (), 0, 0, alpha, {}, observed, NO_DRAWS_METHOD, {}, {}, {})
    if not counts.paired:
        return Statistics(boot, (), {}, (), correction, alpha, 0, "none", pairwise_unavailable=UNPAIRED_REASON,
                          not_run=NO_DRAWS)
    by_id = {metric.id: metric for metric in metrics}
    every = _tested_metrics(by_id, test_metrics)
    chosen = [m for m in every if primary_method(m) == MCNEMAR]
    not_run = {**NO_DRAWS, **({"untested_metrics": ", ".join(by_id[m].label for m in every if m not in chosen)}
                              if len(chosen) < len(every) else {})}
    oriented = {m: by_id[m].oriented(observed[m]) for m in chosen}
    pairs_of, family = _families(oriented, chosen, len(counts.systems), correction, [by_id[m].label for m in chosen])
    tests = adjust_families(_pair_tests(counts, boot, [by_id[m] for m in chosen], pairs_of, 0, 0, counts.labels_given,
                                        SILENT), correction)
    best_set = best_sets(tests, oriented, boot.systems, chosen, correction, alpha)
    return Statistics(boot, tuple(tests), best_set, tuple(chosen), correction, alpha, 0,
                      family if chosen else "none", not_run=not_run)


def _tested_metrics(by_id: Mapping[str, Metric], test_metrics: Sequence[str]) -> list[str]:
    """The ids of ``test_metrics`` (aliases resolved) that were computed and are scalar, once each."""
    chosen: list[str] = []
    for name in test_metrics:
        metric_id = name if name in by_id else REGISTRY.resolve(name)
        if metric_id in by_id and metric_id not in chosen and not by_id[metric_id].per_class:
            chosen.append(metric_id)
    return chosen


def _families(observed: Mapping[str, np.ndarray], chosen: Sequence[str], S: int, correction: str,
              labels: Sequence[str]) -> tuple[dict[str, list[tuple[int, int]]], str]:
    """The pairs tested per metric (all pairs up to MAX_ALL_PAIRS systems, else each against the
    metric's top system) and the family, in words (the metrics by their ``labels``, as tables name them)."""
    named, by = ", ".join(labels), correction_name(correction)
    if S <= MAX_ALL_PAIRS:
        pairs_of = {metric_id: list(combinations(range(S), 2)) for metric_id in chosen}
        return pairs_of, (f"all {S * (S - 1) // 2} pairs of systems, for each metric ({named}) "
                          f"separately, adjusted with {by}")
    pairs_of = {}
    for metric_id in chosen:
        top = top_system(observed[metric_id])
        pairs_of[metric_id] = [(top, s) for s in range(S) if s != top]
    return pairs_of, (f"each system against the top system of each metric ({S - 1} pairs; more than {MAX_ALL_PAIRS} "
                      f"systems), for each metric ({named}) separately, adjusted with {by}")


def _pair_tests(counts: Counts, boot: BootstrapResult, chosen: Sequence[Metric],
                pairs_of: Mapping[str, list[tuple[int, int]]], rounds: int, seed: int, all_labels_active: bool,
                progress: Progress) -> list[PairTest]:
    """One test per pair and metric (McNemar for accuracy, randomisation otherwise), unadjusted."""
    systems = counts.systems
    tests: list[PairTest] = []
    pairs = sorted({pair for metric_pairs in pairs_of.values() for pair in metric_pairs})
    if pairs and any(primary_method(m.id) == RANDOMISATION for m in chosen):
        counts.pair_patterns(*pairs[0])  # builds the cached pattern tables once, before the workers share them

    def randomise(pair: tuple[int, int]) -> dict[str, tuple[float, float]]:
        to_randomise = [m for m in chosen if pair in pairs_of[m.id] and primary_method(m.id) == RANDOMISATION]
        return (approximate_randomisation(counts, *pair, to_randomise, seed=seed, rounds=rounds,
                                          all_labels_active=all_labels_active)
                if to_randomise else {})

    with progress.task("significance", total=len(pairs)) as advance, \
            ThreadPoolExecutor(max(1, min(THREADS, len(pairs)))) as pool:
        # each pair has its own stream (SeedSequence([seed, a, b])): the results do not depend on the threads
        for (a, b), randomised in zip(pairs, pool.map(randomise, pairs)):
            for metric in (m for m in chosen if (a, b) in pairs_of[m.id]):
                if metric.id in randomised:
                    difference, p = randomised[metric.id]
                    tests.append(PairTest(systems[a], systems[b], metric.id, RANDOMISATION, difference, p,
                                          details={"rounds": rounds}))
                else:
                    n01, n10 = discordant_pair(counts, a, b)  # this pair's items, not the all-pairs matrix
                    difference = float(boot.observed[metric.id][a] - boot.observed[metric.id][b])
                    tests.append(PairTest(systems[a], systems[b], metric.id, MCNEMAR, difference,
                                          mcnemar_exact(n01, n10), details={"n01": n01, "n10": n10}))
            advance(1)
    return tests


