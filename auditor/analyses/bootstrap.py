"""Bootstrap on counts: confidence intervals and rank distributions for every metric.

Part of the *analyse* stage. Every resample is formed on counts, never by re-indexing label
arrays (docs/architecture.md, "Counts first"), and two samplers serve two questions (a system's interval and its P(win)
therefore come from different draws, which is fine: each is an exact item bootstrap):

* **Intervals**: each system's resampled confusion matrix is ``Multinomial(N, C_s / N)`` over
  its non-zero cells (:func:`system_resamples`) -- exactly what drawing N of its items with
  replacement and counting them gives, at a cost of a draw or two per cell instead of N draws (the
  cells as patterns of :class:`auditor.analyses.resample.PatternDraws`, or numpy's multinomial when the
  table has few cells for its items: :func:`pattern_route`). One stream per system, so adding a system
  changes no other system's interval.
* **Ranks and P(win)** compare systems, so they use the paired resample, one set of weights
  shared by all systems (:class:`Resampler`):

  * items are reduced to their unique patterns ``u = (gold, pred_1, ..., pred_S)`` with
    multiplicity ``n_u`` (:meth:`~auditor.io.counts.Counts.patterns`);
  * a chunk of ``Bc`` resamples draws per-pattern counts ``W`` (U x Bc) exactly as drawing
    ``N`` items uniformly with replacement does, ``W ~ Multinomial(N, n / N)``, split in two
    (:func:`auditor.analyses.resample.split_patterns`): the *light* patterns (few items each: most
    patterns of real data) by drawing items: ``N_L ~ Binomial(N, n_L / N)`` of the N draws fall on
    the n_L items of light patterns, each uniform over those items (binned by pattern), and the
    other ``N − N_L`` are ``Multinomial(N − N_L, n_h / n_H)`` over the *heavy* patterns (many items
    each), drawn as independent Poisson counts completed item by item
    (:meth:`auditor.analyses.resample.PatternDraws.heavy`). Given N_L the two parts are independent
    multinomials, which is exactly the decomposition of ``Multinomial(N, n / N)`` into the two groups;
  * ``C[b, s, i, j] = sum_u W[u, b] [gold_u = i][pred_{s,u} = j]`` for the whole chunk is one
    sparse-dense product ``M @ W`` (:class:`auditor.analyses.resample.Resampler`) with ``M`` the (S k^2 x U) 0/1
    incidence matrix; with many classes and few items (k² > 4N) the non-zero cells are listed instead
    (:meth:`Resampler.stats`), so memory grows with the patterns, not with k²;
  * every metric is evaluated on the (Bc, S, k, k) batch at once
    (:func:`auditor.metrics.catalogue.compute`).

Without per-item codes (only confusion matrices, :mod:`auditor.io.confusion`) the items
of different systems cannot be paired, so the ranks too come from each system's own resamples
(:data:`INDEPENDENT_METHOD`).

Intervals are percentile intervals ``[q_{alpha/2}, q_{1-alpha/2}]`` of the defined resample
values (Efron & Tibshirani 1993, ch. 13); rank distributions count, per resample, the rank
of each system (1 = best) with ties sharing their ranks equally.

References
----------
Efron & Tibshirani (1993) *An Introduction to the Bootstrap*, Chapman & Hall.
Koehn (2004) "Statistical Significance Tests for Machine Translation Evaluation", EMNLP.
"""
from __future__ import annotations

import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from auditor.analyses.resample import CHUNK_BYTES, PatternDraws, Resampler
from auditor.analyses.sampling import sparse_draws
from auditor.io.counts import Counts
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import ConfusionStats, Metric
from auditor.options import THREADS
from auditor.progress import SILENT, Progress

#: Method written into the JSON: where the intervals and where the ranks come from.
METHOD = ("percentile bootstrap: each system's intervals from Multinomial(N, C_s / N) over its confusion cells "
          "(the exact distribution of an item bootstrap of that system); ranks and P(win) from the paired "
          "resample of the items shared by all systems, so a system's interval and its P(win) come from "
          "different draws")
#: Method when the pattern table is too large to resample jointly (:mod:`auditor.analyses.pairwise_resample`).
PAIRS_METHOD = ("percentile bootstrap: each system's intervals from Multinomial(N, C_s / N) over its confusion cells "
                "(the exact distribution of an item bootstrap of that system); P(a beats b) and the expected ranks "
                "from each pair's own item resample of its (gold, pred_a, pred_b) table: the pattern table is too "
                "large to resample all systems jointly, so P(rank = r) is not formed")
#: Method when only the intervals were asked for (no paired resample, no ranks).
INTERVALS_METHOD = ("percentile bootstrap: each system's intervals from Multinomial(N, C_s / N) over its confusion "
                    "cells (the exact distribution of an item bootstrap of that system); no paired resample ran, "
                    "so there are no ranks")
#: Method name when only confusion matrices are known (no pairing of items across systems).
INDEPENDENT_METHOD = ("independent multinomial percentile bootstrap of each system's confusion matrix "
                      "(items cannot be paired across systems: only confusion matrices were given)")
@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap distribution of every metric of every system, and what follows from it.

    Attributes
    ----------
    systems, metric_ids : axis labels.
    values : metric id -> (B, S) resample values (NaN where undefined in that resample).
    observed : metric id -> (S,) value on the test set itself.
    intervals : metric id -> (S, 2) percentile interval ``[q_{alpha/2}, q_{1-alpha/2}]`` of
        the defined resample values; NaN when no resample is defined.
    undefined : metric id -> (S,) number of resamples in which the metric was undefined.
    rank_probabilities : metric id -> (S, S) ``P[s, r-1] = P(rank of s = r)``, rank 1 = best
        (higher value); tied systems share their ranks equally; an undefined value ranks
        below every defined one.
    """

    systems: tuple[str, ...]
    metric_ids: tuple[str, ...]
    B: int
    seed: int
    alpha: float
    values: Mapping[str, np.ndarray]
    observed: Mapping[str, np.ndarray]
    method: str
    intervals: Mapping[str, np.ndarray]
    undefined: Mapping[str, np.ndarray]
    rank_probabilities: Mapping[str, np.ndarray]
    #: Ranks from each pair's own resample (:mod:`auditor.analyses.pairwise_resample`) instead of
    #: ``rank_probabilities``, when the pattern table is too large to resample jointly.
    pairwise: Any = None

    def p_best(self, metric_id: str) -> np.ndarray:
        """P(rank = 1) of every system (ties split equally): the probability of winning."""
        return self.rank_probabilities[metric_id][:, 0]

    def interval(self, metric_id: str, system: str) -> tuple[float, float] | None:
        lo, hi = self.intervals[metric_id][self.systems.index(system)]
        return None if np.isnan(lo) else (float(lo), float(hi))

    def intervals_json(self) -> dict[str, Any]:
        """Each system's ``metrics.ID.ci`` (``null`` when no resample is defined)."""
        return {name: {"metrics": {metric_id: {"ci": None if np.isnan(self.intervals[metric_id][s][0])
                                               else [float(x) for x in self.intervals[metric_id][s]]}
                                   for metric_id in self.metric_ids}}
                for s, name in enumerate(self.systems)}

    def undefined_json(self) -> dict[str, dict[str, int]]:
        """System -> metric id -> resamples in which the metric was undefined (none: left out)."""
        found = {name: {metric_id: int(self.undefined[metric_id][s]) for metric_id in self.metric_ids
                        if self.undefined[metric_id][s]} for s, name in enumerate(self.systems)}
        return {name: metrics for name, metrics in found.items() if metrics}

    def ranks_json(self) -> dict[str, Any]:
        """``ranks`` (each system's P(rank = r) and P(rank 1)) and ``p_win`` (P(rank 1)) per metric."""
        # empty when only the intervals were drawn (no paired resample: the method says so)
        shared = ranks_json(self.rank_probabilities, self.systems)
        route = "pairs" if self.pairwise is not None else "joint" if self.method == METHOD else (
            "independent" if self.method == INDEPENDENT_METHOD else
            "clusters" if self.method.startswith("cluster bootstrap") else "none")
        from auditor.analyses.pairwise_resample import PAIRS_RULE

        pairwise = {"pairwise_ranks": self.pairwise.to_json()} if self.pairwise is not None else {}
        rule = {"rank_route_rule": PAIRS_RULE} if route in ("joint", "pairs") else {}
        return {**shared, "rank_route": route, **rule, **pairwise}


def ranks_json(rank_probabilities: Mapping[str, np.ndarray], systems: Sequence[str]) -> dict[str, Any]:
    """``statistics.ranks`` (metric -> system -> ``p_rank``, P(rank = r) for r = 1..S, and ``p_best``, P(rank 1)) and
    ``statistics.p_win`` (metric -> system -> P(rank 1)) from (S, S) rank probabilities: every task kind's shape."""
    return {"ranks": {metric_id: {name: {"p_rank": row, "p_best": row[0]}
                                  for name, row in zip(systems, np.asarray(p, dtype=float).tolist())}
                      for metric_id, p in rank_probabilities.items()},
            "p_win": {metric_id: {name: float(p[s][0]) for s, name in enumerate(systems)}
                      for metric_id, p in rank_probabilities.items()}}


def percentile_intervals(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column of ``values`` (B, S), ignoring NaN; and NaN counts.

    The columns without NaN take one ``np.percentile`` call (the same floats as column by column); the others
    ``np.nanpercentile`` over their defined values."""
    undefined = np.isnan(values).sum(axis=0)
    intervals = np.full((values.shape[1], 2), np.nan)
    levels = [100 * alpha / 2, 100 * (1 - alpha / 2)]
    full = undefined == 0
    if full.any() and values.shape[0]:
        intervals[full] = np.percentile(values[:, full], levels, axis=0).T
    partly = (undefined > 0) & (undefined < values.shape[0])
    if partly.any():
        with np.errstate(invalid="ignore"):
            intervals[partly] = np.nanpercentile(values[:, partly], levels, axis=0).T
    return intervals, undefined


def rank_probabilities(values: np.ndarray) -> np.ndarray:
    """``P[s, r-1]``: share of resamples (rows of ``values`` (B, S)) where system s has rank r.

    Rank 1 = highest value. Systems tied at positions ``r..r+t-1`` each get ``1/t`` of
    every one of those ranks; NaN ranks below every number (ties with other NaNs).

    Each row is sorted once (:func:`_rank_counts`); a cell's shares are added in the order of the
    tie sizes, ``1/t`` once per resample, so the sums are the same floats as adding them resample by resample.
    """
    B, S = values.shape
    if B == 0:
        return np.full((S, S), np.nan)
    better, ties = _rank_counts(np.where(np.isnan(values), -np.inf, values))
    probabilities = np.zeros((S, S))
    systems = np.broadcast_to(np.arange(S), (B, S))
    for t in np.unique(ties):
        tied = ties == t
        first, owner = better[tied], systems[tied]
        times = sum(np.bincount(owner * S + first + offset, minlength=S * S) for offset in range(t)).reshape(S, S)
        if t == 1:
            probabilities += times  # whole counts: exact in any order
            continue
        for repeat in range(int(times.max())):  # 1/t added to each cell as many times as it falls there
            probabilities[times > repeat] += 1.0 / t
    return probabilities / B


def _rank_counts(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each entry of ``score`` (B, S; no NaN): how many in its row are larger, and how many equal (itself
    included), from one sort of each row."""
    B, S = score.shape
    order = np.argsort(score, axis=1, kind="stable")
    ordered = np.take_along_axis(score, order, axis=1)
    starts = np.ones((B, S + 1), dtype=bool)
    starts[:, 1:S] = ordered[:, 1:] != ordered[:, :-1]  # a new value begins at this position (and at the end)
    position = np.arange(S + 1)
    first = np.maximum.accumulate(np.where(starts[:, :S], position[:S], 0), axis=1)  # where its value begins
    after = np.minimum.accumulate(np.where(starts[:, 1:], position[1:], S)[:, ::-1], axis=1)[:, ::-1]  # ends
    better, ties = np.empty((B, S), dtype=np.int64), np.empty((B, S), dtype=np.int64)
    np.put_along_axis(better, order, S - after, axis=1)
    np.put_along_axis(ties, order, after - first, axis=1)
    return better, ties


#: A system's cells are drawn through :class:`~auditor.analyses.resample.PatternDraws` when it has at least
#: ``PATTERN_ROUTE · √N`` non-zero cells, else by numpy's multinomial (:func:`pattern_route`).
PATTERN_ROUTE = 0.75
#: Cells per block of one system's draws through :class:`~auditor.analyses.resample.PatternDraws` (int64: 1 MB):
#: ``BLOCK_CELLS // cells`` resamples a block, fixed by the system's own cells, so its draws do not depend on the
#: chunks (a block's rows consume the stream in another order than row by row).
BLOCK_CELLS = 2**17


def pattern_route(cells: int, n: int) -> bool:
    """Whether a system's ``cells`` non-zero cells of ``n`` items are drawn through :class:`PatternDraws`.

    numpy's multinomial costs one conditional binomial per cell a resample (about 65-180 ns); :class:`PatternDraws`
    one Poisson per cell (20-65 ns) plus the ``2 √N`` items that complete a row (8-12 ns each,
    :meth:`~auditor.analyses.resample.PatternDraws.heavy`). Measured on this machine (B = 1,000 rows of a
    system's cells, both routes in one run), the two cost the same at ``cells ≈ 0.55-0.65 √N`` (3,000-10,000
    items), 0.7 √N (100,000) and 0.9-1.0 √N (1,000,000): the rule ``cells ≥`` :data:`PATTERN_ROUTE` ``· √N``
    loses at most about 10% near that line; a leaderboard's system (94 cells, 10,000 items) draws in 0.55 of
    numpy's time, a 2-class table of 10,000 items would take 9 times numpy's.
    """
    return cells > 0 and cells >= PATTERN_ROUTE * np.sqrt(n)


def _system_draws(counts: Counts, system: int, B: int,
                  seed: int, chunk: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Chunks of ``B`` draws of system ``system``'s cells: (non-zero cell indices, counts (Bc, cells)).

    C* ~ Multinomial(N, C_s / N) over the non-zero cells: exactly what drawing N of its items with
    replacement and counting them gives. Drawn through :class:`PatternDraws` (the cells as patterns of
    multiplicity ``C_ij``; the cell indices listed in its order) or numpy's multinomial, by
    :func:`pattern_route`. One stream per system (``SeedSequence([seed, crc32(name)])``) consumed in order --
    row by row by numpy, in blocks of ``BLOCK_CELLS // cells`` rows by :class:`PatternDraws` -- so the draws
    depend neither on the chunks nor on the other systems.
    """
    n = counts.n_items
    matrix = counts.confusion[system].ravel()
    cells = np.flatnonzero(matrix)
    name = counts.systems[system]
    rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(f"interval:{name}".encode())]))
    if not pattern_route(cells.size, n):
        shares = matrix[cells] / max(n, 1)
        for start in range(0, B, chunk):
            size = min(chunk, B - start)
            yield cells, (rng.multinomial(n, shares, size=size) if cells.size
                          else np.zeros((size, 0), dtype=np.int64))
        return
    draws = PatternDraws(matrix[cells])
    cells, block = cells[draws.order], max(1, BLOCK_CELLS // cells.size)
    pending, drawn = np.empty((0, cells.size), dtype=np.int64), 0
    for start in range(0, B, chunk):
        size = min(chunk, B - start)
        while pending.shape[0] < size:  # the next block: its size depends on B and the cells alone
            rows = draws.fill(rng, np.empty((min(block, B - drawn), cells.size), dtype=np.int64))
            pending, drawn = np.concatenate([pending, rows]) if pending.size else rows, drawn + rows.shape[0]
        yield cells, pending[:size]
        pending = pending[size:]


def _stack(counts: Counts, draws: Sequence[tuple[np.ndarray, np.ndarray]], sparse: bool,
           all_labels_active: bool) -> ConfusionStats:
    """Every system's drawn cells of one chunk as stats of a (Bc, S, k, k) batch."""
    k, S = counts.k, len(draws)
    size = draws[0][1].shape[0]
    if sparse:
        flat = np.concatenate([((np.arange(size, dtype=np.int64)[:, None] * S + s) * (k * k) + cells[None, :]).ravel()
                               for s, (cells, _) in enumerate(draws)])
        order = np.argsort(flat, kind="stable")
        count = np.concatenate([drawn.ravel() for _, drawn in draws])
        return ConfusionStats.from_cells((size, S, k, k), flat[order], count[order], all_labels_active)
    dense = np.zeros((size, S, k * k))
    for s, (cells, drawn) in enumerate(draws):
        dense[:, s, cells] = drawn
    return ConfusionStats(dense.reshape(size, S, k, k), all_labels_active)


#: Tables per batch the metrics are computed on: about 2,000 10 x 10 tables stay in the cache (100,000 tables of
#: 100 systems' resamples cost 0.54 s of metrics in batches of 2,000, 0.67 s in batches of 16,000).
BATCH_TABLES = 2048


def system_resamples(counts: Counts, B: int, seed: int, all_labels_active: bool = False,
                     chunk: int | None = None, systems: Sequence[int] | None = None) -> Iterator[ConfusionStats]:
    """``B`` resamples of every system's own confusion matrix (:func:`_system_draws`), as stats of
    (Bc, S, k, k) batches: dense, or from the cells when k² > 4N. System s's draws are the same
    whichever other systems are audited with it, and however the resamples are chunked. ``systems``: the
    indices of the systems drawn (default: every one), the S of the batches."""
    k, n = counts.k, counts.n_items
    chosen = range(len(counts.systems)) if systems is None else systems
    S = len(chosen)
    sparse = sparse_draws(k, n)
    cells = int(sum(np.count_nonzero(counts.confusion[s]) for s in chosen))
    per_draw = 24 * cells + (400 * k * S if sparse else 16 * k * k * S)
    chunk = max(1, min(B, chunk or min(CHUNK_BYTES // max(per_draw, 1), max(1, BATCH_TABLES // max(S, 1)))))
    streams = [_system_draws(counts, s, B, seed, chunk) for s in chosen]
    for draws in zip(*streams):
        yield _stack(counts, draws, sparse, all_labels_active)


#: Groups of systems per worker thread in :func:`_interval_values` (a group's draws and metrics are one task).
GROUPS_PER_THREAD = 4


def _interval_values(counts: Counts, metrics: Sequence[Metric], B: int, seed: int, all_labels_active: bool,
                     threads: int, advance, chunk: int | None = None) -> dict[str, np.ndarray]:
    """Metric id -> (B, S) values on each system's own resamples (:func:`system_resamples`). The systems are
    split into groups, each drawn and scored on a worker thread (every system has its own stream, so the
    values do not depend on the groups or the threads: a metric of a table is computed table by table)."""
    S = len(counts.systems)
    values = {metric.id: np.empty((B, S)) for metric in metrics}
    groups = [group for group in np.array_split(np.arange(S), max(1, min(S, max(1, threads) * GROUPS_PER_THREAD)))
              if group.size]

    def work(group: np.ndarray) -> int:
        start = 0
        for stats in system_resamples(counts, B, seed, all_labels_active, chunk, group.tolist()):
            size = stats.n.shape[0]
            for metric_id, array in compute(stats, metrics, all_labels_active).items():
                values[metric_id][start:start + size, group] = array
            start += size
        return group.size

    done = 0
    with ThreadPoolExecutor(max(1, threads)) as pool:
        for drawn in pool.map(work, groups):  # progress in resamples, each group a share of every resample
            advance(B * (done + drawn) // S - B * done // S)
            done += drawn
    return values


def _joint_values(counts: Counts, metrics: Sequence[Metric], B: int, seed: int, all_labels_active: bool,
                  threads: int, advance, chunk: int | None = None) -> dict[str, np.ndarray]:
    """Metric id -> (B, S) values on the paired resamples (:class:`Resampler`), for ranks."""
    values = {metric.id: np.empty((B, len(counts.systems))) for metric in metrics}
    resampler = Resampler(counts, B, seed, chunk)

    def work(index: int) -> tuple[int, dict[str, np.ndarray]]:
        if resampler.paired and resampler.sparse:
            return index, compute(resampler.stats(index, all_labels_active), metrics, all_labels_active)
        confusion = resampler.confusion(index)  # the metrics in batches of about BATCH_TABLES tables
        step = max(1, BATCH_TABLES // max(confusion.shape[1], 1))
        parts = [compute(ConfusionStats(confusion[start:start + step], all_labels_active), metrics,
                         all_labels_active) for start in range(0, confusion.shape[0], step)]
        return index, {metric.id: np.concatenate([part[metric.id] for part in parts]) for metric in metrics}

    indices = range(resampler.n_chunks)
    if threads > 1 and resampler.n_chunks > 1:
        with ThreadPoolExecutor(threads) as pool:
            for index, chunk_values in pool.map(work, indices):
                _store(values, chunk_values, index * resampler.chunk)
                advance(resampler.chunk_size(index))
    else:
        for index in indices:
            _store(values, work(index)[1], index * resampler.chunk)
            advance(resampler.chunk_size(index))
    return values


def bootstrap(
    counts: Counts,
    metrics: Sequence[Metric],
    *,
    B: int,
    seed: int,
    alpha: float,
    progress: Progress = SILENT,
    all_labels_active: bool = False,
    chunk: int | None = None,
    threads: int = THREADS,
    ranks: bool = True,
) -> BootstrapResult:
    """Bootstrap intervals of every scalar metric of every system, and rank distributions.

    Parameters
    ----------
    counts : the test set's counts.
    metrics : scalar metrics to resample (per-class metrics are skipped).
    B : resamples (``B = 0`` gives empty distributions).
    seed : seed of every draw; the result does not depend on ``threads``, chunks or timing.
    alpha : the intervals cover ``1 - alpha``.
    progress : advanced by each finished chunk of resamples.
    all_labels_active : every label enters macro averages (the user fixed the label set).
    chunk : resamples per chunk (default from ``CHUNK_BYTES``).
    threads : worker threads.
    ranks : False skips the paired resample (no rank distributions): what a table of
        intervals needs. Without per-item codes the systems' own resamples give the ranks.

    Returns
    -------
    BootstrapResult : ``values`` and ``intervals`` from each system's own resamples; rank
        distributions from the paired resample (:data:`METHOD`).
    """
    scalar = [metric for metric in metrics if not metric.per_class]
    ids = tuple(metric.id for metric in scalar)
    observed = compute(counts.confusion, scalar, all_labels_active)
    joint = ranks and counts.paired and B > 0
    from auditor.analyses import pairwise_resample  # the route for pattern tables too large to resample jointly

    pairs = joint and pairwise_resample.route(counts) == pairwise_resample.PAIRS
    with progress.task("bootstrap", total=B * (2 if joint else 1)) as advance:
        values = _interval_values(counts, scalar, B, seed, all_labels_active, threads, advance, chunk)
        pairwise = pairwise_resample.pairwise_ranks(counts, scalar, B, seed, all_labels_active, threads,
                                                    advance) if pairs else None
        joint_values = (_joint_values(counts, scalar, B, seed, all_labels_active, threads, advance, chunk)
                        if joint and not pairs else values if ranks and not pairs else None)
    summaries = {metric_id: percentile_intervals(values[metric_id], alpha) for metric_id in ids}
    method = (PAIRS_METHOD if pairs else METHOD if counts.paired else INDEPENDENT_METHOD) if ranks else INTERVALS_METHOD
    return BootstrapResult(
        systems=tuple(counts.systems), metric_ids=ids, B=B, seed=seed, alpha=alpha,
        values=values, observed={k: np.asarray(v, dtype=float) for k, v in observed.items()},
        method=method,
        intervals={metric_id: summary[0] for metric_id, summary in summaries.items()},
        undefined={metric_id: summary[1] for metric_id, summary in summaries.items()},
        rank_probabilities={} if joint_values is None else {  # rank 1 = best: an error's lowest value
            metric.id: rank_probabilities(metric.oriented(joint_values[metric.id])) for metric in scalar},
        pairwise=pairwise,
    )


def _store(values: dict[str, np.ndarray], chunk_values: dict[str, np.ndarray], start: int) -> None:
    for metric_id, array in chunk_values.items():
        values[metric_id][start:start + array.shape[0]] = array
