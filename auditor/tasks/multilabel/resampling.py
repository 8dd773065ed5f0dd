"""Intervals, ranks, paired tests and best sets over items, from the per-item statistics (:mod:`.counting`), in the
spine's record of unit statistics (:class:`auditor.analyses.units.UnitStatistics`).

* **Bootstrap** (intervals, rank distributions, P(win)): each resample draws N items with replacement, the same
  items for every system. Items with the same (gold set, every system's set) have the same statistics, so the
  items are compressed to these patterns (:func:`~.counting.item_patterns`, as classification's resampler does)
  and a resample is drawn as pattern counts ``w ~ Multinomial(N, n_u / N)``, which turn the (patterns × D)
  matrix ``M`` into the resample's sums ``w M``; every metric is evaluated on a block of resamples at once.
  95% percentile intervals and rank probabilities (Hamming loss ranked by its negation) are the spine's
  (:func:`auditor.analyses.units.unit_statistics`).
* **Paired tests**, one rule for every task (docs/architecture.md): exact McNemar for subset accuracy, a per-item
  right/wrong share (:func:`auditor.analyses.significance.mcnemar_exact`); approximate randomisation over items
  otherwise, the spine's test over units (:func:`auditor.analyses.units.randomisation_tests`: each item's two
  systems' statistics swapped with probability ½, ``p = (1 + #{|Δ*| ≥ |Δ|}) / (R + 1)``, Noreen 1989), adjusted
  over the pairs of a metric (Holm or Benjamini–Hochberg). With clusters of items every metric, subset accuracy
  included, is tested by swapping whole clusters. Best set: the top system and every system whose test against
  it, adjusted over those S − 1 tests, has p ≥ α.
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.randomisation import AR_ROUNDS
from auditor.analyses.resample import PatternDraws
from auditor.analyses.significance import (
    MCNEMAR,
    NO_DRAWS,
    RANDOMISATION,
    RANK_RULE,
    PairTest,
    adjust_families,
    mcnemar_exact,
    randomisation_rounds,
    rounds_rule,
)
from auditor.analyses.units import (
    Clusters,
    UnitResampler,
    UnitStatistics,
    design_effect,
    randomisation_tests,
    resampling_json,
    unit_statistics,
)
from auditor.options import AuditOptions
from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.counting import Counted, Layout, Patterns, item_patterns
from auditor.tasks.multilabel.measures import BY_ID, ITEM, METRIC_IDS, evaluate

#: Float64 entries of one block of resample weights (memory: 8 bytes each).
BLOCK_ENTRIES = 2**23


#: The metrics for which lower is better (ranked, and their best sets topped, by their negation).
ERRORS = tuple(m for m in METRIC_IDS if not BY_ID[m].higher_is_better)


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


def mcnemar_tests(aligned: Aligned, counted: Counted, observed: Mapping[str, np.ndarray], names: Sequence[str],
                  correction: str) -> list[PairTest]:
    """Every pair's exact McNemar test of subset accuracy, adjusted over the pairs."""
    family = []
    for a, b in combinations(range(len(names)), 2):
        n01, n10, p = mcnemar(aligned, counted, a, b)
        delta = float(observed["subset_accuracy"][a] - observed["subset_accuracy"][b])
        family.append(PairTest(names[a], names[b], "subset_accuracy", MCNEMAR, delta, p,
                               details={"n01": n01, "n10": n10}))
    return adjust_families(family, correction)


def pair_tests(matrix: np.ndarray, layout: Layout, aligned: Aligned, counted: Counted,
               observed: Mapping[str, np.ndarray], rounds: int, seed: int, correction: str,
               clusters: Clusters | None = None) -> list[PairTest]:
    """Every pair under every metric, ``matrix`` the items' rows of statistics: approximate randomisation over items
    (or clusters), the spine's test, and exact McNemar for subset accuracy (unclustered items; with clusters
    randomisation tests it too); p adjusted over each metric's pairs; tests in metric order."""
    pair = Layout(2, layout.labels)
    randomised = METRIC_IDS if clusters is not None else tuple(m for m in METRIC_IDS if primary_method(m) != MCNEMAR)
    tests = randomisation_tests(matrix, 1 + layout.labels, 2 * layout.labels + len(ITEM),
                                lambda a, b, sums: evaluate(pair.parts(sums)), observed, aligned.names, randomised,
                                rounds, seed, correction, clusters)
    if clusters is None:
        tests += mcnemar_tests(aligned, counted, observed, aligned.names, correction)
    return sorted(tests, key=lambda test: METRIC_IDS.index(test.metric))


def item_statistics(aligned: Aligned, counted: Counted, options: AuditOptions, tested: bool = True,
                    clusters: Clusters | None = None) -> UnitStatistics:
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
    observed = evaluate(counted.sums)
    tests = None
    if tested and S > 1:
        rounds = randomisation_rounds(AR_ROUNDS, S * (S - 1) // 2, options.alpha)
        tests = pair_tests(matrix, layout, aligned, counted, observed, rounds, options.seed, options.correction,
                           clusters)
    resampling = None
    if clusters is not None:
        exact = np.stack([_exact(aligned, counted, s) for s in range(S)])
        resampling = resampling_json(clusters, "item", design_effect(exact, None, clusters), aligned.names,
                                     "subset accuracy")
    return unit_statistics(values, observed, aligned.names, options.bootstrap, options.alpha, options.correction,
                           None if tests is None else METRIC_IDS, tests, clusters, resampling, ERRORS,
                           (lambda metric: RANDOMISATION) if clusters is not None else primary_method,
                           **_record(options, tests, S))


def _exact_statistics(aligned: Aligned, counted: Counted, options: AuditOptions,
                      clustered: bool = False) -> UnitStatistics:
    """``--bootstrap 0``: no intervals, ranks or randomisation (:data:`~auditor.analyses.significance.NO_DRAWS`);
    every pair's exact McNemar test of subset accuracy, adjusted over the pairs, and its best set (none with
    ``clustered`` items: McNemar's test assumes independent ones)."""
    names = aligned.names if not clustered else aligned.names[:1]
    observed = evaluate(counted.sums)
    tests = mcnemar_tests(aligned, counted, observed, names, options.correction) if len(names) > 1 else None
    untested = ("not run: --bootstrap 0 (no randomisation rounds), and McNemar's exact test assumes independent "
                "items, not clusters: no pair is tested")
    return unit_statistics({}, observed, names, 0, options.alpha, options.correction,
                           None if tests is None else ("subset_accuracy",), tests, errors=ERRORS,
                           method_of=primary_method, **_record(options, tests, len(names)),
                           note=untested if clustered else None,
                           method="none: --bootstrap 0, no random draws" + (
                               "" if clustered else " (exact McNemar tests of subset accuracy only)"),
                           not_run={**NO_DRAWS, "approximate_randomisation": untested if clustered else NO_DRAWS[
                               "approximate_randomisation"].replace("accuracy", "subset accuracy")})


def _record(options: AuditOptions, tests: Sequence[PairTest] | None, S: int) -> dict[str, Any]:
    """What the record says of the draws and tests (:class:`~auditor.analyses.units.UnitStatistics`' fields)."""
    rounds = max((int(test.details.get("rounds", 0)) for test in tests or ()), default=0)
    return {"seed": options.seed, "unit": "item", "rank_rule": RANK_RULE + "; Hamming loss: lowest value first",
            "rounds": rounds, "rounds_rule": rounds_rule(rounds, S * (S - 1) // 2, options.alpha).replace(
                "(accuracy has", "(subset accuracy has")}


def statistics_json(stats: UnitStatistics, names: Sequence[str]) -> dict[str, Any]:
    """The record's ``statistics`` (:meth:`~auditor.analyses.units.UnitStatistics.to_json`, every unit task's) and
    ``tests``."""
    return {"statistics": stats.to_json(names), **({} if stats.tests is None else
                                                      {"tests": [test.to_json() for test in stats.tests]})}
