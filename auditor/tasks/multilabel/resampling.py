"""Intervals, ranks, paired tests and best sets over items, from the per-item statistics (:mod:`.counting`).

* **Bootstrap** (intervals, rank distributions, P(win)): each resample draws N items with replacement, the same
  items for every system. Items with the same (gold set, every system's set) have the same statistics, so the
  items are compressed to these patterns (:func:`~.counting.item_patterns`, as classification's resampler does)
  and a resample is drawn as pattern counts ``w ~ Multinomial(N, n_u / N)``, which turn the (patterns × D)
  matrix ``M`` into the resample's sums ``w M``; every metric is evaluated on a block of resamples at once.
  95% percentile intervals (:func:`auditor.analyses.bootstrap.percentile_intervals`), rank probabilities
  (:func:`~auditor.analyses.bootstrap.rank_probabilities`; Hamming loss ranked by its negation).
* **Paired tests**, one rule for every task (docs/architecture.md): exact McNemar for subset accuracy, a per-item
  right/wrong share (:func:`auditor.analyses.significance.mcnemar_exact`); approximate randomisation over items
  otherwise: each item's two systems' statistics are swapped with probability ½. Items with the same
  (gold set, set of a, set of b) have the same statistics, so per distinct triple ``u`` with ``n_u`` items the
  number swapped is ``Binomial(n_u, ½)`` (:func:`auditor.analyses.randomisation.binomial_half`), and a round's
  sums are ``sum_a + K_u (M_b,u − M_a,u)``; ``p = (1 + #{|Δ*| ≥ |Δ|}) / (R + 1)`` (Noreen 1989), adjusted over
  the pairs of a metric (Holm or Benjamini–Hochberg). Best set: the top system and every system whose test
  against it, adjusted over those S − 1 tests, has p ≥ α.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.bootstrap import percentile_intervals, rank_probabilities
from auditor.analyses.families import best_sets as spine_best_sets
from auditor.analyses.randomisation import AR_ROUNDS, binomial_half
from auditor.analyses.resample import PatternDraws
from auditor.analyses.significance import (
    MCNEMAR,
    METHOD_DESCRIPTIONS,
    NO_DRAWS,
    RANDOMISATION,
    RANK_RULE,
    BestSet,
    PairTest,
    adjust_families,
    best_set_rule,
    interval_rule,
    mcnemar_exact,
    randomisation_rounds,
)
from auditor.analyses.units import (
    Clusters,
    UnitResampler,
    design_effect,
    randomisation_tests,
    resampling_json,
)
from auditor.options import AuditOptions
from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.counting import Counted, Layout, Patterns, item_patterns
from auditor.tasks.multilabel.measures import BY_ID, ITEM, METRIC_IDS, evaluate

#: Float64 entries of one block of resample weights (memory: 8 bytes each).
BLOCK_ENTRIES = 2**23
_TOLERANCE = 1e-12


def _signed(metric: str, values: np.ndarray) -> np.ndarray:
    """Values oriented so that higher is better (Hamming loss negated)."""
    return values if BY_ID[metric].higher_is_better else -values


def bootstrap_values(patterns: Patterns, B: int, seed: int) -> dict[str, np.ndarray]:
    """id -> (B, S) values on B item resamples (the same items for every system), drawn as pattern counts
    (:class:`auditor.analyses.resample.PatternDraws`: ``W ~ Multinomial(N, n_u / N)``, the distribution of the
    pattern counts of N items drawn with replacement) and summed over the patterns' rows, ``W M``."""
    draws = PatternDraws(patterns.counts)
    matrix = patterns.matrix[draws.order]
    rng = np.random.default_rng([seed, 33])
    block = max(1, min(B, BLOCK_ENTRIES // max(draws.n_patterns, 1)))
    rows = np.empty((block, draws.n_patterns))
    out: dict[str, np.ndarray] = {}
    for start in range(0, B, block):
        size = min(block, B - start)
        weights = draws.fill(rng, rows[:size])
        for metric, values in evaluate(patterns.layout.parts(weights @ matrix)).items():
            out.setdefault(metric, np.empty((B, values.shape[-1])))[start:start + size] = values
    return out


def cluster_values(matrix: np.ndarray, layout: Layout, B: int, seed: int, clusters: Clusters) -> dict[str, np.ndarray]:
    """id -> (B, S) values on B resamples of the items' clusters (the same clusters for every system; the spine's
    :class:`~auditor.analyses.units.UnitResampler`), the item rows ``matrix`` summed with the drawn weights."""
    rows = max(1, BLOCK_ENTRIES // max(matrix.shape[0], 1))
    return UnitResampler(matrix.shape[0], B, [seed, 33], clusters, rows).values(
        lambda weights: weights @ matrix, lambda sums: evaluate(layout.parts(sums)))


def _triples(aligned: Aligned, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Representative item and count of every distinct (gold, a's set, b's set) where a and b's codes differ."""
    differ = np.flatnonzero(aligned.codes[a] != aligned.codes[b])
    if differ.size == 0:
        return differ, differ
    rows = np.column_stack([aligned.gold_codes[differ], aligned.codes[a][differ], aligned.codes[b][differ]])
    _, first, counts = np.unique(rows, axis=0, return_index=True, return_counts=True)
    return differ[first], counts


def _pair_sums(shared: np.ndarray, one: np.ndarray) -> np.ndarray:
    """Rows of summed statistics of one system (rounds × (1 + L + per-system width)) for :class:`Layout` (S=1)."""
    return np.concatenate([np.broadcast_to(shared, (one.shape[0], shared.size)), one], axis=1)


def randomisation(matrix: np.ndarray, layout: Layout, aligned: Aligned, a: int, b: int, rounds: int,
                  rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    """id -> (Δ = m(a) − m(b), two-sided approximate-randomisation p) for one pair, every metric at once."""
    width = 2 * layout.labels + len(ITEM)
    start = 1 + layout.labels
    block_a, block_b = (slice(start + s * width, start + (s + 1) * width) for s in (a, b))
    shared = matrix[:, :start].sum(axis=0)
    sum_a, sum_b = matrix[:, block_a].sum(axis=0), matrix[:, block_b].sum(axis=0)
    one = Layout(1, layout.labels)
    observed_a = evaluate(one.parts(_pair_sums(shared, sum_a[None])))
    observed_b = evaluate(one.parts(_pair_sums(shared, sum_b[None])))
    items, counts = _triples(aligned, a, b)
    out = {}
    if items.size == 0:
        return {m: (float(observed_a[m][0, 0] - observed_b[m][0, 0]), 1.0) for m in observed_a}
    delta_rows = matrix[items][:, block_b] - matrix[items][:, block_a]
    swapped = binomial_half(rng, counts, rounds, dtype=np.float64).T  # (rounds, U)
    moved = swapped @ delta_rows
    star_a = evaluate(one.parts(_pair_sums(shared, sum_a + moved)))
    star_b = evaluate(one.parts(_pair_sums(shared, sum_b - moved)))
    for metric in observed_a:
        delta = float(observed_a[metric][0, 0] - observed_b[metric][0, 0])
        null = star_a[metric][:, 0] - star_b[metric][:, 0]
        exceed = np.count_nonzero(np.abs(null) >= abs(delta) - _TOLERANCE)
        out[metric] = (delta, float((1 + exceed) / (rounds + 1)))
    return out


def _exact(aligned: Aligned, counted: Counted, s: int) -> np.ndarray:
    """Whether each item's predicted set equals its gold set."""
    table = counted.pairs[s]
    return table.fields[table.item_rows(aligned.gold_codes, aligned.codes[s]), ITEM["exact"]] == 1


def mcnemar(aligned: Aligned, counted: Counted, a: int, b: int) -> tuple[int, int, float]:
    """(n01, n10, exact McNemar p) of subset accuracy: items only a matches exactly, only b does."""
    exact_a, exact_b = (_exact(aligned, counted, s) for s in (a, b))
    n01, n10 = int(np.count_nonzero(exact_a & ~exact_b)), int(np.count_nonzero(exact_b & ~exact_a))
    return n01, n10, float(mcnemar_exact(n01, n10))


def primary_method(metric: str) -> str:
    return MCNEMAR if metric == "subset_accuracy" else RANDOMISATION


def pair_tests(matrix: np.ndarray, layout: Layout, aligned: Aligned, counted: Counted, values: Mapping[str, np.ndarray],
               rounds: int, seed: int, correction: str) -> list[PairTest]:
    """Every pair under every metric: exact McNemar for subset accuracy, approximate randomisation otherwise;
    p adjusted over each metric's pairs."""
    names = aligned.names
    rng = np.random.default_rng([seed, 34])
    tests: dict[str, list[PairTest]] = {metric: [] for metric in METRIC_IDS}
    for a, b in combinations(range(len(names)), 2):
        randomised = randomisation(matrix, layout, aligned, a, b, rounds, rng)
        for metric in METRIC_IDS:
            delta, p = randomised[metric]
            details: dict[str, int] = {"rounds": rounds}
            method = primary_method(metric)
            if method == MCNEMAR:
                n01, n10, p = mcnemar(aligned, counted, a, b)
                details = {"n01": n01, "n10": n10}
            tests[metric].append(PairTest(names[a], names[b], metric, method, delta, p, details=details))
    return adjust_families([test for family in tests.values() for test in family], correction)


def best_sets(tests: Sequence[PairTest], values: Mapping[str, np.ndarray], names: Sequence[str], alpha: float,
              correction: str, metrics: Sequence[str] = METRIC_IDS) -> dict[str, BestSet]:
    """Per metric of ``metrics``: the spine's best set (:func:`auditor.analyses.families.best_sets`), the top system
    the highest value (the lowest Hamming loss)."""
    return spine_best_sets(tests, {m: _signed(m, values[m]) for m in metrics}, names, metrics, correction, alpha,
                           primary_method)


@dataclass(frozen=True)
class ItemStatistics:
    """Intervals (id -> (S, 2)), rank probabilities (id -> (S, S)), tests and best sets (None: not run)."""

    B: int
    seed: int
    alpha: float
    correction: str
    rounds: int
    intervals: Mapping[str, np.ndarray]
    ranks: Mapping[str, np.ndarray]
    tests: tuple[PairTest, ...] | None
    best_set: Mapping[str, BestSet] | None
    #: Why no pairwise test ran although the bootstrap did (read by :func:`auditor.analyses.verdict.decide`).
    pairwise_unavailable: str | None = None
    #: With clusters of items: the record's ``statistics.resampling`` (:func:`auditor.analyses.units.resampling_json`).
    resampling: Mapping[str, Any] | None = None

    #: What did not run and why (``--bootstrap 0``: :data:`auditor.analyses.significance.NO_DRAWS`).
    not_run: Mapping[str, str] | None = None

    def interval(self, metric: str, s: int) -> tuple[float, float] | None:
        if metric not in self.intervals:
            return None
        lo, hi = self.intervals[metric][s]
        return None if np.isnan(lo) else (float(lo), float(hi))

    def significant(self, a: str, b: str, metric: str) -> bool | None:
        for test in self.tests or ():
            if test.metric == metric and {test.a, test.b} == {a, b}:
                return bool(test.p_adjusted < self.alpha)
        return None

    def to_json(self, names: Sequence[str]) -> dict[str, Any]:
        section: dict[str, Any] = {
            "B": self.B, "seed": self.seed, "alpha": self.alpha, "unit": "item",
            "method": "paired bootstrap over items (every system resampled with the same items)",
            "interval": interval_rule(self.alpha), "rank_rule": RANK_RULE + "; Hamming loss: lowest value first",
            "ranks": {m: {name: {"p_rank": [float(x) for x in p[s]], "p_best": float(p[s][0])}
                          for s, name in enumerate(names)} for m, p in self.ranks.items()},
            "p_win": {m: {name: float(p[s][0]) for s, name in enumerate(names)} for m, p in self.ranks.items()}}
        if self.resampling is not None:
            section.update({"resampling": dict(self.resampling), "unit": "cluster",
                            "method": "paired bootstrap over clusters of items (whole clusters drawn)"})
        if self.tests is None:
            section["pairwise_tests_unavailable"] = "not requested (auditor score shows intervals only)"
            return {"statistics": section}
        section.update({
            "correction": self.correction, "family": "every pair of systems under one metric",
            "test_metrics": list(METRIC_IDS),
            "test_methods": {method: METHOD_DESCRIPTIONS[method].replace("accuracy", "subset accuracy")
                             .replace("pattern counts", "distinct (gold, a, b) label-set triples")
                             for method in (MCNEMAR, RANDOMISATION)},
            "randomisation_rounds": self.rounds, "best_set_rule": best_set_rule(self.alpha, self.correction)
            .replace("for accuracy", "for subset accuracy"),
            "best_set": {m: best.to_json() for m, best in (self.best_set or {}).items()},
            "p_floor": {RANDOMISATION: 1 / (self.rounds + 1)} if self.rounds else {}})
        if self.not_run:
            section.update({"method": "none: --bootstrap 0, no random draws (exact McNemar tests of subset accuracy "
                                      "only)", "not_run": dict(self.not_run),
                            "test_metrics": [m for m in METRIC_IDS if primary_method(m) == MCNEMAR]})
        return {"statistics": section, "tests": [test.to_json() for test in self.tests]}


def item_statistics(aligned: Aligned, counted: Counted, options: AuditOptions, tested: bool = True,
                    clusters: Clusters | None = None) -> ItemStatistics:
    """The bootstrap (``options.bootstrap`` resamples) and, when ``tested``, the paired tests and best sets; with
    ``clusters``, the clusters are drawn and swapped (approximate randomisation for every metric, subset accuracy
    included: McNemar's test assumes independent items); with ``options.bootstrap`` 0 the exact McNemar tests of
    subset accuracy and its best set only (no random draw; none with clusters)."""
    if options.bootstrap <= 0:
        return _exact_statistics(aligned, counted, options, clusters is not None)
    patterns, S = item_patterns(aligned, counted), len(aligned.names)
    layout = patterns.layout
    # the items' rows only where items are summed one by one (clusters, pair tests): else the patterns' rows
    matrix = patterns.matrix[patterns.items] if clusters is not None or (tested and S > 1) else None
    values = bootstrap_values(patterns, options.bootstrap, options.seed) if clusters is None else \
        cluster_values(matrix, layout, options.bootstrap, options.seed, clusters)
    intervals = {m: percentile_intervals(v, options.alpha)[0] for m, v in values.items()}
    ranks = {m: rank_probabilities(_signed(m, v)) for m, v in values.items()}
    observed = evaluate(counted.sums)
    tests = best = None
    rounds = randomisation_rounds(AR_ROUNDS, S * (S - 1) // 2, options.alpha)
    if tested and S > 1 and clusters is not None:
        pair = Layout(2, layout.labels)
        tests = tuple(randomisation_tests(matrix, 1 + layout.labels, 2 * layout.labels + len(ITEM),
                                          lambda a, b, sums: evaluate(pair.parts(sums)), observed, aligned.names,
                                          METRIC_IDS, rounds, options.seed, options.correction, clusters))
        best = spine_best_sets(tests, {m: _signed(m, observed[m]) for m in METRIC_IDS}, aligned.names, METRIC_IDS,
                               options.correction, options.alpha, lambda metric: RANDOMISATION)
    elif tested and S > 1:
        tests = tuple(pair_tests(matrix, layout, aligned, counted, observed, rounds, options.seed, options.correction))
        best = best_sets(tests, observed, aligned.names, options.alpha, options.correction)
    resampling = None
    if clusters is not None:
        exact = np.stack([_exact(aligned, counted, s) for s in range(S)])
        resampling = resampling_json(clusters, "item", design_effect(exact, None, clusters), aligned.names,
                                     "subset accuracy")
    return ItemStatistics(options.bootstrap, options.seed, options.alpha, options.correction, rounds, intervals,
                          ranks, tests, best, resampling=resampling)


def _exact_statistics(aligned: Aligned, counted: Counted, options: AuditOptions,
                      clustered: bool = False) -> ItemStatistics:
    """``--bootstrap 0``: no intervals, ranks or randomisation (:data:`~auditor.analyses.significance.NO_DRAWS`);
    every pair's exact McNemar test of subset accuracy, adjusted over the pairs, and its best set (none with
    ``clustered`` items: McNemar's test assumes independent ones)."""
    names = aligned.names if not clustered else aligned.names[:1]
    observed = evaluate(counted.sums)
    family = []
    for a, b in combinations(range(len(names)), 2):
        n01, n10, p = mcnemar(aligned, counted, a, b)
        delta = float(observed["subset_accuracy"][a] - observed["subset_accuracy"][b])
        family.append(PairTest(names[a], names[b], "subset_accuracy", MCNEMAR, delta, p,
                               details={"n01": n01, "n10": n10}))
    tests = tuple(adjust_families(family, options.correction))
    best = best_sets(tests, observed, names, options.alpha, options.correction, ("subset_accuracy",)) \
        if len(names) > 1 else None
    return ItemStatistics(0, options.seed, options.alpha, options.correction, 0, {}, {}, tests if len(names) > 1
                          else None, best, not_run={**NO_DRAWS, "approximate_randomisation": NO_DRAWS[
                              "approximate_randomisation"].replace("accuracy", "subset accuracy")})
