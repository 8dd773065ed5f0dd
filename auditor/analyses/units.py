"""One resampler over units, and one approximate-randomisation pair test over units, for every task kind.

A task reads its inputs into **units** (items, sentences, segments) and counts each unit's sufficient statistics
as a row of a (units × statistics) matrix ``M`` (docs/architecture.md, "Counts first"); every figure is a function
of column sums. Both random procedures act on those rows only:

* **Bootstrap** (intervals, rank distributions, P(win)): a resample draws n units with replacement, the same
  units for every system (paired); its weights ``w`` (how often each unit was drawn) give the resample's sums
  ``w M``. :class:`UnitResampler` yields the weights of blocks of resamples, ``W`` (block × n), as many rows at
  once as keep ``block × n`` within :data:`BLOCK_ENTRIES`. With **clusters** (units that are not independent:
  questions sharing a subject, sentences of one document) a resample draws C clusters with replacement and every
  unit of a drawn cluster is counted as often as its cluster was drawn (the cluster bootstrap: questions that share
  a subject or a passage are not independent draws, and their clustered errors can be several times the naive ones).
  Classification's fast path (the multinomial over item patterns, :mod:`auditor.analyses.resample`) draws the same
  distribution of unclustered item resamples from counts.
* **Approximate randomisation** of systems a and b (Noreen 1989; Riezler & Maxwell 2005): each round swaps the
  two systems' statistics of each unit (with clusters: of every unit of a cluster together) with probability ½
  (:func:`swap_masks`); ``p = (1 + #{r : |Δ*_r| ≥ |Δ|}) / (R' + 1)``, two-sided, ``Δ`` the difference on the
  test set and ``R'`` the rounds whose difference is defined (:func:`randomisation_p`). A round's sums are
  ``sum_a + s (M_b − M_a)`` and ``sum_b − s (M_b − M_a)`` for the round's swap mask ``s``
  (:func:`randomisation_tests`); a task whose metrics have a faster form under swaps gives its own shuffled
  differences to the one loop over pairs (:func:`pair_tests`: translation's type-level F).

Both feed one record (:class:`UnitStatistics`, built by :func:`unit_statistics`): intervals, ranks, tests and best
sets, and audit.json's ``statistics`` of every task counted per unit.

Every draw comes from a ``numpy.random.default_rng`` seeded with the caller's entropy (the audit's seed and the
stage's own key), consumed in order, so that a block size changes no draw.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Callable, Collection, Iterator, Mapping, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from auditor.analyses.bootstrap import percentile_intervals, rank_probabilities, ranks_json
from auditor.analyses.families import MCNEMAR, RANDOMISATION, BestSet, PairTest, adjust_families, best_sets
from auditor.io.clusters import Clusters
from auditor.options import THREADS
from auditor.progress import SILENT, Progress

#: Largest number of (resample × unit) weights, or (round × unit) swaps, held at once.
BLOCK_ENTRIES = 2**22
#: Relative tolerance of "at least as extreme" (a shuffle that reproduces Δ exactly counts against the null).
TOLERANCE = 1e-12
#: The method name of sacrebleu's paired bootstrap test (:func:`paired_bootstrap_p`): parity only, never a best set.
PAIRED_BOOTSTRAP = "paired_bootstrap"
#: One BLAS thread while resampling: the matrix products are blocks of resamples, small, and OpenBLAS's threads
#: spin-wait on a loaded machine (translation, 200 resamples at 20k segments x 10 systems, load 5.7: 10.5 s with
#: them, 6.1 s without).
ONE_BLAS_THREAD = threadpool_limits.wrap(limits=1, user_api="blas")


def block_rows(n: int, limit: int = BLOCK_ENTRIES) -> int:
    """Resamples (or rounds) per block: as many rows of ``n`` entries as fit ``limit``, at least one."""
    return max(1, limit // max(n, 1))


class UnitResampler:
    """The paired bootstrap over ``n_units`` units: blocks of resample weights, one set shared by every system.

    Parameters
    ----------
    n_units : units of the test set.
    B : resamples.
    entropy : seed of ``numpy.random.default_rng`` (an int or a list of ints: the audit's seed and the stage's key).
    clusters : :class:`Clusters` of the units (None: every unit its own cluster).
    rows : resamples per block (default :func:`block_rows` of the drawn count).
    """

    def __init__(self, n_units: int, B: int, entropy: Any, clusters: Clusters | None = None,
                 rows: int | None = None):
        self.n_units, self.B, self.clusters = int(n_units), int(B), clusters
        self.drawn = self.n_units if clusters is None else clusters.n_clusters
        self.rows = max(1, min(rows or block_rows(max(self.n_units, self.drawn)), max(self.B, 1)))
        self.entropy = entropy

    def draws(self) -> Iterator[tuple[int, np.ndarray]]:
        """(first resample, counts (block, drawn)): how often each unit (each cluster) is drawn; each row a draw of
        ``drawn`` indices uniform with replacement (``Generator.integers``, as sacrebleu's ``choice`` draws)."""
        rng = np.random.default_rng(self.entropy)
        m = self.drawn
        for start in range(0, self.B, self.rows):
            size = min(self.rows, self.B - start)
            index = rng.integers(0, m, size=(size, m))
            index += (np.arange(size) * m)[:, None]
            yield start, np.bincount(index.ravel(), minlength=size * m).reshape(size, m)

    def blocks(self, dtype: Any = np.float64) -> Iterator[tuple[int, np.ndarray]]:
        """(first resample, unit weights ``W`` (block, n_units) of ``dtype``): with clusters, each unit weighted by
        its cluster's draws."""
        for start, counts in self.draws():
            counts = counts.astype(dtype)
            yield start, counts if self.clusters is None else counts[:, self.clusters.codes]

    @ONE_BLAS_THREAD
    def values(self, sums_of: Callable[[np.ndarray], np.ndarray],
               evaluate: Callable[[np.ndarray], Mapping[str, np.ndarray]],
               dtype: Any = np.float64, advance: Callable[[int], None] | None = None) -> dict[str, np.ndarray]:
        """id -> (B, S) values: ``evaluate(sums_of(W))`` on every block of weights, stacked; ``advance(block)``
        after each block (a progress bar's)."""
        out: dict[str, np.ndarray] = {}
        for start, weights in self.blocks(dtype):
            for metric, values in evaluate(sums_of(weights)).items():
                out.setdefault(metric, np.empty((self.B, values.shape[-1])))[start:start + weights.shape[0]] = values
            if advance is not None:
                advance(weights.shape[0])
        return out


def swap_masks(entropy: Any, rounds: int, n_units: int, clusters: Clusters | None = None,
               rows: int | None = None) -> Iterator[np.ndarray]:
    """Blocks of swap masks (block, n_units), bool: True where a round swaps the unit's two systems, each unit (each
    cluster, every unit of it together) with probability ½; ``rounds`` rows in all, ``rows`` per block (default
    :func:`block_rows`). Every pair of systems is shuffled with the same masks (as sacrebleu's ``paired_ar``: with
    one block and no clusters the masks are its ``rng.integers(2, size=(R, N), dtype=bool)``)."""
    rng = np.random.default_rng(entropy)
    drawn = n_units if clusters is None else clusters.n_clusters
    rows = max(1, rows or block_rows(max(n_units, drawn)))
    for start in range(0, rounds, rows):
        mask = rng.integers(2, size=(min(rows, rounds - start), drawn), dtype=bool)
        yield mask if clusters is None else mask[:, clusters.codes]


def randomisation_p(null: np.ndarray, delta: float) -> float:
    """Two-sided approximate-randomisation p of the observed difference ``delta`` against the shuffled differences
    ``null``: ``(1 + #{|Δ*| ≥ |Δ|}) / (R' + 1)`` over the R' defined ones (within :data:`TOLERANCE` of |Δ|, at
    least 1e-12 absolute); NaN when Δ or every Δ* is undefined."""
    null = np.asarray(null, dtype=float)
    null = null[~np.isnan(null)]
    if np.isnan(delta) or null.size == 0:
        return float("nan")
    hits = np.count_nonzero(np.abs(null) >= abs(delta) - TOLERANCE * max(1.0, abs(delta)))
    return float((1 + hits) / (null.size + 1))


def paired_bootstrap_p(resampled: np.ndarray, observed: np.ndarray, a: int, b: int) -> float:
    """sacrebleu's ``paired_bs`` p-value of systems ``a`` and ``b`` from resampled values (B, S) (Koehn 2004): with
    ``d_b = |m_b(a) − m_b(b)|`` and ``Δ = |m(a) − m(b)|``, ``p = (1 + #{d_b − mean(d) ≥ Δ}) / (B' + 1)``. Reported
    for parity with sacrebleu only: it never decides a best set."""
    defined = ~np.isnan(resampled[:, a]) & ~np.isnan(resampled[:, b])
    if not defined.any() or np.isnan(observed[a]) or np.isnan(observed[b]):
        return float("nan")
    diffs = np.abs(resampled[defined, a] - resampled[defined, b])
    delta = abs(observed[a] - observed[b])
    hits = np.count_nonzero(diffs - diffs.mean() >= delta - TOLERANCE * max(1.0, delta))
    return (hits + 1) / (diffs.size + 1)


@ONE_BLAS_THREAD
def pair_tests(systems: Sequence[str], metrics: Sequence[str], observed: Mapping[str, np.ndarray],
               pairs: Sequence[tuple[int, int]], null_of: Callable[[int, int], Mapping[str, np.ndarray]], rounds: int,
               correction: str, resampled: Mapping[str, np.ndarray] | None = None,
               progress: Progress = SILENT) -> list[PairTest]:
    """Approximate randomisation of every pair of ``pairs`` under every metric of ``metrics``; ``null_of(a, b)``: each
    metric's shuffled differences ``Δ*_r = m(a*_r) − m(b*_r)`` over the ``rounds`` rounds (:func:`swap_masks`), p by
    :func:`randomisation_p`. With ``resampled`` (metric -> (B, S) bootstrap values) also sacrebleu's paired bootstrap
    p (:func:`paired_bootstrap_p`, method :data:`PAIRED_BOOTSTRAP`: parity only). Pairs run on :data:`THREADS` threads
    (numpy and scipy release the GIL; every pair's masks are the same draws, so the threads change no p); p adjusted
    over each (metric, method) family."""
    tests: list[PairTest] = []
    with progress.task("paired tests", total=len(pairs)) as advance, ThreadPoolExecutor(THREADS) as pool:
        for (a, b), null in zip(pairs, pool.map(lambda pair: null_of(*pair), pairs)):
            for metric in metrics:
                delta = float(observed[metric][a] - observed[metric][b])
                tests.append(PairTest(systems[a], systems[b], metric, RANDOMISATION, delta,
                                      randomisation_p(null[metric], delta), details={"rounds": rounds}))
                if resampled is not None:
                    tests.append(PairTest(systems[a], systems[b], metric, PAIRED_BOOTSTRAP, delta,
                                          paired_bootstrap_p(resampled[metric], observed[metric], a, b)))
            advance(1)
    return adjust_families(tests, correction)


def randomisation_tests(matrix: Any, shared: int, per_system: int,
                        evaluate_pair: Callable[[int, int, np.ndarray], Mapping[str, np.ndarray]],
                        observed: Mapping[str, np.ndarray], systems: Sequence[str], metrics: Sequence[str],
                        rounds: int, seed: int, correction: str, clusters: Clusters | None = None,
                        pairs: Sequence[tuple[int, int]] | None = None, progress: Progress = SILENT) -> list[PairTest]:
    """Approximate randomisation over units (module docstring) of every pair under every metric of ``metrics``
    (:func:`pair_tests`), the shuffled sums from the units' statistics.

    ``matrix`` (units × (shared + S · per_system), dense or sparse) holds each unit's statistics: ``shared`` columns
    every system has (gold counts), then one block per system. ``evaluate_pair(a, b, sums)`` scores the (rounds,
    shared + 2 · per_system) sums as the two systems a*, b*."""
    import scipy.sparse

    n = matrix.shape[0]
    columns = scipy.sparse.csc_matrix(matrix)
    totals = np.asarray(columns.sum(axis=0), dtype=float).ravel()

    def null_of(a: int, b: int) -> dict[str, np.ndarray]:
        block_a = slice(shared + a * per_system, shared + (a + 1) * per_system)
        block_b = slice(shared + b * per_system, shared + (b + 1) * per_system)
        difference = (columns[:, block_b] - columns[:, block_a]).T.tocsr()  # (per_system, n)
        null: dict[str, list[np.ndarray]] = {metric: [] for metric in metrics}
        for mask in swap_masks(seed, rounds, n, clusters):
            moved = np.asarray(difference @ mask.T.astype(float)).T  # (block, per_system)
            size = moved.shape[0]
            sums = np.concatenate([np.broadcast_to(totals[:shared], (size, shared)), totals[block_a] + moved,
                                   totals[block_b] - moved], axis=1)
            values = evaluate_pair(a, b, sums)
            for metric in metrics:
                null[metric].append(values[metric][:, 0] - values[metric][:, 1])
        return {metric: np.concatenate(parts) for metric, parts in null.items()}

    pairs = list(pairs if pairs is not None else combinations(range(len(systems)), 2))
    return pair_tests(systems, metrics, observed, pairs, null_of, rounds, correction, progress=progress)


#: The family of a unit task's pair tests when every pair is tested (the JSON's ``statistics.family``).
EVERY_PAIR = "every pair of systems under one metric"
#: sacrebleu's paired bootstrap test in words (the JSON's ``statistics.test_methods``).
PAIRED_BOOTSTRAP_RULE = ("for parity with sacrebleu's paired_bs (which counts > where this counts ≥), never deciding "
                         "a best set: p = (1 + #{|Δ_b| − mean(|Δ_b|) ≥ |Δ|}) / (B + 1)")


@dataclass(frozen=True)
class UnitStatistics:
    """Intervals (metric -> (S, 2)), rank probabilities (metric -> (S, S)), pair tests and best sets of a task whose
    metrics are functions of summed unit statistics, and what the record says of them (:meth:`to_json`: every unit
    task's ``statistics``); ``clusters`` the resampled clusters (None: the units)."""

    B: int
    alpha: float
    correction: str
    intervals: Mapping[str, np.ndarray]
    ranks: Mapping[str, np.ndarray]
    tests: tuple[PairTest, ...] | None
    best_set: Mapping[str, BestSet] | None
    clusters: Clusters | None = None
    #: The record's ``resampling`` with clusters (:func:`resampling_json`), else None.
    resampling: Mapping[str, Any] | None = None
    #: The draws: the seed, what a unit is (``sentence``, ``segment``), the resamples in words (default: from the
    #: unit), how ranks are counted, and the resamples in which each metric is undefined (metric -> (S,)).
    seed: int = 0
    unit: str = "unit"
    method: str = ""
    rank_rule: str = ""
    undefined: Mapping[str, np.ndarray] = field(default_factory=dict)
    #: The tests: the metrics tested, the randomisation rounds and why that many, the family of pairs in words, and a
    #: note (why no test ran, or the task's own remark on them).
    test_metrics: tuple[str, ...] = ()
    rounds: int = 0
    rounds_rule: str = ""
    family: str = EVERY_PAIR
    note: str | None = None
    #: metric -> its interval where not the percentile one (:func:`~auditor.analyses.intervals.intervals_by_method`),
    #: and BCa's and the jackknife's figures of every metric.
    interval_method: Mapping[str, str] | None = None
    interval_details: Mapping[str, Mapping[str, np.ndarray]] | None = None
    #: With ``--bootstrap 0``: what did not run, and why (the JSON's ``not_run``).
    not_run: Mapping[str, str] | None = None

    def interval(self, metric: str, s: int) -> tuple[float, float] | None:
        if metric not in self.intervals:
            return None
        lo, hi = self.intervals[metric][s]
        return None if np.isnan(lo) else (float(lo), float(hi))

    def to_json(self, systems: Sequence[str]) -> dict[str, Any]:
        """The audit record's ``statistics`` (docs/architecture.md, "The audit record"), the keys classification's
        has: the draws, the intervals, ranks and P(win) and, where tests ran, their methods, rounds, p floors,
        families and best sets (else ``pairwise_tests_unavailable``: why not)."""
        from auditor.analyses.intervals import details_json

        alpha, unit = self.alpha, self.unit
        out: dict[str, Any] = {
            "B": self.B, "seed": self.seed, "alpha": alpha, "method": self.method or (
                f"paired bootstrap over {unit}s (every system resampled with the same {unit}s)" if self.clusters is None
                else f"paired bootstrap over clusters of {unit}s (whole clusters drawn)"),
            "interval": "none: --bootstrap 0 (no resamples)" if not self.B else "by metric: statistics.interval_method"
            if self.interval_method else f"{100 * (1 - alpha):g}% percentile interval over the {self.B} resamples",
            "undefined_resamples": {name: found for s, name in enumerate(systems) if (found := {
                metric: int(counts[s]) for metric, counts in self.undefined.items() if counts[s]})},
            "rank_rule": self.rank_rule, **ranks_json(self.ranks, systems)}
        if self.resampling is not None:
            out["resampling"] = dict(self.resampling)
        if self.not_run:
            out["not_run"] = dict(self.not_run)
        if self.interval_method:
            out["interval_method"] = dict(self.interval_method)
            out["bca"] = details_json(self.interval_details or {}, systems)
        if self.tests is None:
            out["pairwise_tests_unavailable"] = self.note or "not requested (auditor score shows intervals only)"
            return out
        parity = any(test.method == PAIRED_BOOTSTRAP for test in self.tests)
        exact = list(dict.fromkeys(test.metric for test in self.tests if test.method == MCNEMAR))
        randomised = not exact or any(test.method == RANDOMISATION for test in self.tests)
        over = f"clusters of {unit}s (each cluster's" if self.clusters is not None else f"{unit}s (each {unit}'s"
        test = (f"test (exact McNemar for {', '.join(exact)}, approximate randomisation otherwise)" if exact
                else "approximate randomisation test")
        out.update({
            "correction": self.correction, "family": self.family, "test_metrics": list(self.test_metrics),
            "test_methods": {**({MCNEMAR: f"exact McNemar ({', '.join(exact)}): binomial test of n01 against n01 + "
                                          "n10 at 1/2, two-sided"} if exact else {}),
                             **({RANDOMISATION: f"approximate randomisation over {over} statistics of the two "
                                                "systems swapped with probability 1/2; p = (1 + #{|Δ*| ≥ |Δ|}) / "
                                                "(R' + 1), two-sided)"} if randomised else {}),
                             **({PAIRED_BOOTSTRAP: PAIRED_BOOTSTRAP_RULE} if parity else {})},
            "randomisation_rounds": self.rounds, "rounds_rule": self.rounds_rule,
            "best_set_rule": f"the top system and every system whose {test} against it has adjusted p ≥ {alpha:g}; "
                             f"family: the S − 1 comparisons with the top system of that metric, {self.correction}",
            "best_set": {metric: best.to_json() for metric, best in (self.best_set or {}).items()},
            "p_floor": {**({RANDOMISATION: 1 / (self.rounds + 1)} if randomised else {}),
                        **({PAIRED_BOOTSTRAP: 1 / (self.B + 1)} if parity else {})},
            "family_sizes": {metric: sum(1 for test in self.tests if test.metric == metric and test.method !=
                                         PAIRED_BOOTSTRAP and not np.isnan(test.p)) for metric in self.test_metrics}})
        if self.note:
            out["tests_note"] = self.note
        return out


def unit_statistics(values: Mapping[str, np.ndarray], observed: Mapping[str, np.ndarray], systems: Sequence[str],
                    B: int, alpha: float, correction: str, tested: Sequence[str] | None,
                    tests: Sequence[PairTest] | None = None, clusters: Clusters | None = None,
                    resampling: Mapping[str, Any] | None = None, errors: Collection[str] = (),
                    method_of: Callable[[str], str] | None = None, *, left_out: Mapping[str, np.ndarray] | None = None,
                    methods: Mapping[str, str] | None = None, **record: Any) -> UnitStatistics:
    """Intervals and rank distributions of every metric's resampled ``values`` (metric -> (B, S)): percentile, or by
    ``methods`` (metric -> ``bca`` or ``jackknife_normal``) from the leave-one-unit-out values ``left_out`` (metric ->
    (N, S)); the ``tests`` (:func:`pair_tests`, or any :class:`PairTest`) and the best sets of ``tested`` (None: no
    test ran) by each metric's test (``method_of(metric)``, default approximate randomisation). ``errors``: the
    metrics for which lower is better (ranked, and their best sets topped, by their negation); ``record``: the rest
    of :class:`UnitStatistics` (seed, unit, rounds, ...)."""
    def signed(metric: str, v: np.ndarray) -> np.ndarray:
        return -v if metric in errors else v

    percentile = {metric: percentile_intervals(v, alpha) for metric, v in values.items()}
    intervals = {metric: interval for metric, (interval, _) in percentile.items()}
    details = None
    if methods:
        from auditor.analyses.intervals import intervals_by_method

        details = intervals_by_method(values, observed, left_out or {}, alpha, methods)
        intervals.update({metric: row["interval"] for metric, row in details.items()})
    ranks = {metric: rank_probabilities(signed(metric, v)) for metric, v in values.items()}
    best = None
    if tested is None:
        tests = None
    else:
        tests = tuple(tests or ())
        best = best_sets(tests, {m: signed(m, np.asarray(observed[m])) for m in tested}, systems, tested, correction,
                         alpha, method_of or (lambda metric: RANDOMISATION))
    return UnitStatistics(B, alpha, correction, intervals, ranks, tests, best, clusters, resampling,
                          undefined={metric: undefined for metric, (_, undefined) in percentile.items()},
                          test_metrics=tuple(tested or ()), interval_method=dict(methods) if methods else None,
                          interval_details=details, **record)


def design_effect(numerator: np.ndarray, denominator: np.ndarray | None, clusters: Clusters) -> np.ndarray:
    """Clustered over naive variance of the ratio ``R_s = Σ_i y_si / Σ_i m_i`` of each system (a mean when every
    ``m_i = 1``): with residuals ``e_si = y_si − R_s m_i``, ``Σ_c (Σ_{i∈c} e_si)² / Σ_i e_si²`` (the clustered
    variance of a mean, ``SE² = Σ_c (Σ_{i∈c} (x_i − x̄))² / n²`` with no small-sample factor, over the unclustered
    one, ``Σ_i (x_i − x̄)² / n²``); NaN where the naive variance is 0.

    ``numerator`` (S, n) per-unit sums, ``denominator`` (n,) per-unit sizes (None: 1 each)."""
    y = np.atleast_2d(np.asarray(numerator, dtype=float))
    m = np.ones(y.shape[1]) if denominator is None else np.asarray(denominator, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = y.sum(axis=1) / m.sum()
        residual = y - ratio[:, None] * m[None, :]
        per_cluster = np.stack([np.bincount(clusters.codes, weights=row, minlength=clusters.n_clusters)
                                for row in residual])
        naive = (residual ** 2).sum(axis=1)
        return np.where(naive > 0, (per_cluster ** 2).sum(axis=1) / np.where(naive > 0, naive, 1), np.nan)


def resampling_json(clusters: Clusters | None, unit: str, effects: np.ndarray | None = None,
                    systems: Sequence[str] = (), of: str | None = None, rule: str | None = None) -> dict[str, Any]:
    """The audit record's ``resampling``: what a resample draws (``unit``, or ``cluster`` with the clusters' unit,
    their number, source and sizes) and, with clusters, each system's design effect of ``of``
    (:func:`design_effect`)."""
    if clusters is None:
        return {"unit": unit, "clusters": None}
    sizes = clusters.sizes()
    out: dict[str, Any] = {"unit": "cluster", "clustered_unit": unit, "clusters": clusters.n_clusters,
                           "cluster_sizes": {"min": int(sizes.min()), "max": int(sizes.max())},
                           "source": dict(clusters.source or {})}
    if effects is not None:
        out["design_effect"] = {"of": of, "rule": rule or DESIGN_EFFECT_RULE,
                                "systems": {name: None if np.isnan(x) else float(x)
                                            for name, x in zip(systems, effects)}}
    return out


#: The design effect in words (the JSON's ``resampling.design_effect.rule``).
DESIGN_EFFECT_RULE = ("clustered over naive variance of the figure: Σ_c (Σ_{i∈c} e_i)² / Σ_i e_i², e_i = y_i − R m_i "
                      "the unit's residual from the ratio R = Σ y / Σ m (for a mean, x_i − x̄), no "
                      "small-sample factor")


def resampling_text(resampling: Mapping[str, Any]) -> str:
    """One sentence for the terminal and the report from the record's ``resampling`` (:func:`resampling_json`): what a
    resample draws and, with clusters, their number and the design effects."""
    unit = resampling.get("clustered_unit") or resampling["unit"]
    if resampling.get("clusters") is None:
        return f"Resampling unit: the {unit}."
    text = (f"Resampling unit: the cluster ({resampling['clusters']:,} clusters of {unit}s); intervals, ranks and "
            "pair tests draw or swap whole clusters.")
    effect = resampling.get("design_effect") or {}
    values = [x for x in (effect.get("systems") or {}).values() if x is not None]
    if values:
        low, high = min(values), max(values)
        span = f"{low:.2f}" if round(low, 2) == round(high, 2) else f"{low:.2f} to {high:.2f}"
        text += f" Design effect of {effect['of']} (clustered over naive variance): {span}."
    floor = 2 / 2 ** resampling["clusters"]  # swapping no cluster or every cluster leaves |Δ| as it is
    if floor >= 1e-3:
        text += (f" With only {resampling['clusters']} clusters a swap test's p-value cannot fall much below "
                 f"2/2^{resampling['clusters']} = {floor:.3g}: swapping none or all of them, 2 of the "
                 f"{2 ** resampling['clusters']:,} swaps, leaves the difference as it is.")
    return text
