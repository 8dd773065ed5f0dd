"""The paired resampler over items: every system's item resample drawn as counts from one set of weights.

Part of the *analyse* stage: :mod:`auditor.analyses.bootstrap` (ranks and P(win)) and
:mod:`auditor.analyses.pairwise_resample` (each pair's own resample) draw through :class:`Resampler`. The items
are reduced to their unique patterns ``u = (gold, pred_1, ..., pred_S)`` with multiplicity ``n_u``; a chunk of
resamples draws per-pattern counts ``W ~ Multinomial(N, n / N)`` (the exact distribution of drawing N items with
replacement), light patterns item by item and heavy ones as Poisson counts completed item by item
(:class:`PatternDraws`), and ``C[b, s, i, j]`` is one sparse-dense product with the patterns' incidence matrix
(docs/architecture.md, "Resampling units": the classification task's fast path behind the one resampler over units).
"""
from __future__ import annotations

import threading
from typing import Iterator

import numpy as np

from auditor.analyses.sampling import sparse_draws
from auditor.io.counts import Counts
from auditor.metrics.registry import ConfusionStats

#: Upper bound on the bytes of the per-chunk weight matrix W (float32; float64 from 2^24 items) and batch tensor.
CHUNK_BYTES = 64 * 2**20
#: Cost of one heavy pattern (a Poisson draw: 20-35 ns by inversion, 30-65 ns by numpy's sampler;
#: :meth:`PatternDraws._poisson`) in units of one drawn item (a uniform index, its pattern looked up and binned,
#: 4-7 ns) on this machine; at 1M items the weights took 5-15% less at 4 than at 10 (a pair's table of 4-6k
#: cells, and 97k patterns of systems sharing errors). :func:`split_patterns` minimises
#: ``PATTERN_COST · heavy patterns + light items``.
PATTERN_COST = 4
#: ``c`` in the Poisson mean ``λ = M − c √M`` of :meth:`PatternDraws.heavy`: P(a row is drawn again) =
#: P(Poisson(λ) > M) ≈ 2.3%, and about ``c √M`` items complete a row.
POISSON_SLACK = 2.0
#: Heavy patterns of at most this many items are drawn by inversion (:func:`poisson_cdf`), the others by numpy.
INVERTED_COUNT = 50
#: Heavy items up to which their patterns are a look-up table (int32: 16 MB); above, a binary search.
TABLE_ITEMS = 2**22
#: Several resamples' light items share one ``bincount`` while they draw at most this many items together and
#: their counts fit this many bins (beyond, the bins leave the cache: 40% slower at 7 x 94k bins).
LIGHT_DRAWS, LIGHT_BINS = 2**20, 2**16
#: Patterns per block of the (Bc, U) -> (U, Bc) transposition (a block of rows stays in cache).
_TRANSPOSE_BLOCK = 2048


def _index_dtype(bound: int) -> type[np.integer]:
    """int32 for indices in ``[0, bound)`` when they fit, else int64."""
    return np.int32 if bound <= np.iinfo(np.int32).max else np.int64


def split_patterns(pattern_counts: np.ndarray, pattern_cost: float = PATTERN_COST) -> tuple[np.ndarray, int]:
    """The patterns reordered light first (ascending count), and how many are light.

    Drawing the light ones item by item costs their items, the heavy ones one multinomial
    category each: the split minimises ``pattern_cost · (U − L) + Σ_{light} n_u`` over L.
    """
    n = np.asarray(pattern_counts, dtype=np.int64)
    order = np.argsort(n, kind="stable")
    light_items = np.concatenate([[0], np.cumsum(n[order])])
    cost = pattern_cost * (n.size - np.arange(n.size + 1)) + light_items
    return order, int(np.argmin(cost))


def poisson_cdf(mean: float) -> np.ndarray:
    """``P(Poisson(mean) ≤ k)`` for k = 0, 1, ..., K, the last entry 1: the table :meth:`PatternDraws._poisson`
    inverts (``k`` = the number of entries ≤ a uniform u in [0, 1)). K = mean + 12 √mean + 30 leaves a tail
    below 10⁻²⁵ for the means it takes (up to about 60); the entries are the pmf ``e^{−m} m^k / k!`` summed in
    float64 (relative error about K · 2⁻⁵³, the rounding of numpy's own samplers)."""
    if mean <= 0:
        return np.ones(1)
    k = np.arange(int(mean + 12 * np.sqrt(mean) + 30) + 1)
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(k[1:]))])
    cdf = np.minimum(np.cumsum(np.exp(k * np.log(mean) - mean - log_factorial)), 1.0)
    cdf[-1] = 1.0
    return cdf


class PatternDraws:
    """Item resamples drawn as counts of patterns: ``N = Σ n_u`` items of the patterns of multiplicities ``n_u``,
    drawn uniformly with replacement, give per-pattern counts ``W ~ Multinomial(N, n_u / N)``.

    Drawn in two parts (:func:`split_patterns`), exactly as that multinomial: ``N_L ~ Binomial(N, n_L / N)`` of
    the N draws fall on the ``n_L`` items of the *light* patterns, each uniform over those items and binned by
    pattern; the other ``M = N − N_L`` are ``Multinomial(M, n_h / n_H)`` over the *heavy* patterns, drawn by
    :meth:`heavy` (independent Poisson counts, completed item by item).

    ``order`` puts the patterns light first (``counts`` is in that order, and so is every row :meth:`fill` draws):
    the caller lays its pattern rows out in the same order. Used by :class:`Resampler` (classification) and the
    multi-label bootstrap (:mod:`auditor.tasks.multilabel.resampling`).
    """

    def __init__(self, pattern_counts: np.ndarray):
        self.order, self.n_light = split_patterns(pattern_counts)
        self.counts = np.asarray(pattern_counts, dtype=np.int64)[self.order]
        self.n_patterns, self.n_items = len(self.counts), int(self.counts.sum())
        light, heavy = self.counts[:self.n_light], self.counts[self.n_light:]
        self.light_items, self.heavy_items = int(light.sum()), int(heavy.sum())
        # items numbered pattern by pattern, lightest first: a drawn item's pattern is a look-up
        self._light_pattern = np.repeat(np.arange(self.n_light, dtype=_index_dtype(self.n_light)), light)
        self.heavy_shares = heavy / max(self.heavy_items, 1)
        self._heavy_pattern = (np.repeat(np.arange(heavy.size, dtype=_index_dtype(heavy.size)), heavy)
                               if self.heavy_items <= TABLE_ITEMS else None)
        self._heavy_ends = np.cumsum(heavy)  # the heavy items' numbering, for a search where no table is kept
        # λ below the heavy total M = N − N_L by c sd(M − T): E[M] = n_H, Var[M] + Var[T] ≈ n_L n_H / N + n_H
        spread = self.heavy_items * (1 + self.light_items / max(self.n_items, 1))
        self.poisson_mean = max(self.heavy_items - POISSON_SLACK * np.sqrt(spread), 0.0)
        self._means = self.poisson_mean * self.heavy_shares
        # heavy patterns of at most INVERTED_COUNT items: one inversion table per count (they are sorted by count)
        self._inverted_end = int(np.searchsorted(heavy, INVERTED_COUNT, side="right"))
        starts = np.flatnonzero(np.diff(heavy[:self._inverted_end], prepend=-1))
        self._inverted = [(int(start), int(stop), poisson_cdf(self._means[start]))
                          for start, stop in zip(starts, [*starts[1:], self._inverted_end])]

    def fill(self, rng: np.random.Generator, rows: np.ndarray) -> np.ndarray:
        """``rows`` (resamples × patterns, in :attr:`order`) filled with one resample's pattern counts each."""
        size = rows.shape[0]
        n, U, L = self.n_items, self.n_patterns, self.n_light
        light = (np.full(size, n, dtype=np.int64) if L == U
                 else rng.binomial(n, self.light_items / n, size=size) if L else np.zeros(size, dtype=np.int64))
        if L < U:
            rows[:, L:] = self.heavy(rng, n - light)
        if L:
            self._light(rng, light, rows[:, :L])
        return rows

    def heavy(self, rng: np.random.Generator, totals: np.ndarray) -> np.ndarray:
        """One ``Multinomial(M_b, n_h / n_H)`` row over the heavy patterns for every total ``M_b`` of ``totals``.

        Let ``Y_h ~ Poisson(λ q_h)``, independent (:meth:`_poisson`), with ``T = Σ Y_h ~ Poisson(λ)``: given
        ``T = t``, ``Y ~ Multinomial(t, q)`` whatever λ. A row with ``T > M`` is drawn again (a choice made on
        ``T`` alone, which leaves that conditional law as it is), and the ``M − T`` missing draws are added item by
        item (each uniform over the ``n_H`` heavy items): ``Multinomial(t, q) + Multinomial(M − t, q) =
        Multinomial(M, q)`` for every t, so the row is exactly ``Multinomial(M, q)``. With λ =
        :attr:`poisson_mean` (c = :data:`POISSON_SLACK` standard deviations of ``M − T`` below ``E[M]``) about 2%
        of rows are drawn again and about ``c √n_H`` items complete a row; a Poisson draw costs a third to a half
        of the conditional binomial numpy's multinomial makes per pattern.
        """
        totals = np.asarray(totals, dtype=np.int64)
        H = self.heavy_shares.size
        drawn = self._poisson(rng, totals.size)
        again = np.flatnonzero(drawn.sum(axis=1) > totals)
        while again.size:
            drawn[again] = self._poisson(rng, again.size)
            again = again[drawn[again].sum(axis=1) > totals[again]]
        missing = totals - drawn.sum(axis=1)
        items = rng.integers(0, max(self.heavy_items, 1), size=int(missing.sum()))
        pattern = (self._heavy_pattern[items] if self._heavy_pattern is not None
                   else np.searchsorted(self._heavy_ends, items, side="right"))
        flat = np.repeat(np.arange(totals.size, dtype=np.int64) * H, missing) + pattern
        drawn += np.bincount(flat, minlength=totals.size * H).reshape(totals.size, H)
        return drawn

    def _poisson(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` rows of independent ``Poisson(λ q_h)`` over the heavy patterns: by inversion of a uniform
        (:func:`poisson_cdf`) for the patterns of at most :data:`INVERTED_COUNT` items (about 20-35 ns a draw),
        by numpy's sampler above (PTRS, 30-40 ns at these means, 45-65 ns below)."""
        drawn = np.empty((size, self.heavy_shares.size), dtype=np.int64)
        for start, stop, cdf in self._inverted:
            drawn[:, start:stop] = np.searchsorted(cdf, rng.random((size, stop - start)), side="right")
        end = self._inverted_end
        drawn[:, end:] = rng.poisson(self._means[end:], size=(size, self._means.size - end))
        return drawn

    def _light(self, rng: np.random.Generator, totals: np.ndarray, out: np.ndarray) -> None:
        """``out[b]`` = the light patterns' counts of ``totals[b]`` items drawn uniformly from the light items, a few
        rows at a time (:data:`LIGHT_DRAWS`, :data:`LIGHT_BINS`)."""
        L = self.n_light
        start, most = 0, max(1, LIGHT_BINS // L)
        while start < totals.size:
            together = int(np.searchsorted(np.cumsum(totals[start:start + most]), LIGHT_DRAWS, side="right"))
            stop = start + max(1, together)
            pattern = self._light_pattern[rng.integers(0, self.light_items, size=int(totals[start:stop].sum()))]
            if stop - start > 1:  # resample r's patterns binned at r · L + pattern
                pattern = np.repeat(np.arange(stop - start, dtype=np.int64) * L, totals[start:stop]) + pattern
            out[start:stop] = np.bincount(pattern, minlength=(stop - start) * L).reshape(stop - start, L)
            start = stop


class Resampler:
    """Draws the paired item resamples of one test set as counts.

    Parameters
    ----------
    counts : the test set's :class:`~auditor.io.counts.Counts`.
    B : number of resamples.
    seed : seed of the ``numpy.random.SeedSequence``; chunk ``c`` uses its ``c``-th spawned
        child, so the draws do not depend on the number of threads.
    chunk : resamples per chunk (default: as many as fit ``CHUNK_BYTES``).
    """

    def __init__(self, counts: Counts, B: int, seed: int, chunk: int | None = None):
        self.counts = counts
        self.B = int(B)
        self.seed = seed
        self.n_items = counts.n_items
        self.n_systems = len(counts.systems)
        self.k = counts.k
        self.paired = counts.paired
        if not self.paired:  # confusion matrices only: each system's cells drawn on their own
            cells = self.n_systems * self.k * self.k
            self.chunk = max(1, min(self.B or 1, chunk or max(1, CHUNK_BYTES // (8 * cells * 4)), 256))
            self.n_chunks = -(-self.B // self.chunk) if self.B else 0
            self._children = np.random.SeedSequence(seed).spawn(self.n_chunks)
            self.cell_shares = counts.confusion.reshape(self.n_systems, -1) / max(self.n_items, 1)
            return
        codes, pattern_counts = counts.patterns()
        # the drawn counts and the cells summed from them are integers of at most N: exact in float32 below 2^24
        self.dtype = np.float32 if self.n_items < 2**24 else np.float64
        # light patterns first, then heavy ones: W's rows in this order (codes and counts reordered alike)
        self.draws = PatternDraws(pattern_counts)
        self.codes, self.pattern_counts = codes[self.draws.order], self.draws.counts
        self.n_patterns, self.n_light = self.draws.n_patterns, self.draws.n_light
        cells = self.n_systems * self.k * self.k
        self.sparse = sparse_draws(self.k, self.n_items)
        per_resample = 4 * max(self.n_patterns, 1) + (
            self.n_systems * (40 * min(self.n_patterns, self.n_items) + 400 * self.k) if self.sparse else 8 * cells * 4)
        self.chunk = max(1, min(self.B or 1, chunk or max(1, CHUNK_BYTES // per_resample), 256))
        self.n_chunks = -(-self.B // self.chunk) if self.B else 0
        gold, predictions = self.codes[:, 0], self.codes[:, 1:].T
        rows = (np.arange(self.n_systems)[:, None] * self.k + gold[None, :]) * self.k + predictions
        # CSC built directly: column u holds its S cells, one per system, in ascending row order
        import scipy.sparse  # here, not at import: `score --bootstrap 0` never loads it

        self.incidence = scipy.sparse.csc_matrix(
            (np.ones(rows.size, dtype=self.dtype), rows.T.ravel().astype(np.int32),
             np.arange(0, rows.size + 1, self.n_systems, dtype=np.int64)),
            shape=(cells, self.n_patterns),
        )
        self._children = np.random.SeedSequence(seed).spawn(self.n_chunks)
        self._local = threading.local()

    def chunk_size(self, index: int) -> int:
        return min(self.chunk, self.B - index * self.chunk)

    def weights(self, index: int) -> np.ndarray:
        """Per-pattern counts ``W`` (U x Bc, :attr:`dtype`, C order; rows in :attr:`codes` order) of chunk ``index``.

        Column ``b`` is distributed as the pattern counts of ``N`` items drawn uniformly
        with replacement: ``W[:, b] ~ Multinomial(N, n_u / N)`` (module docstring: light
        patterns by item draws, heavy ones by numpy's multinomial).
        """
        size = self.chunk_size(index)
        U = self.n_patterns
        rows = self.draws.fill(np.random.default_rng(self._children[index]), self._scratch(size))
        weights = np.empty((U, size), dtype=self.dtype)
        for start in range(0, U, _TRANSPOSE_BLOCK):
            weights[start:start + _TRANSPOSE_BLOCK] = rows[:, start:start + _TRANSPOSE_BLOCK].T
        return weights

    def _scratch(self, size: int) -> np.ndarray:
        """A (size, U) buffer (:attr:`dtype`) of this thread, reused by its chunks (fresh memory costs page
        faults: 0.3 ms per resample at 97k patterns)."""
        buffer = getattr(self._local, "rows", None)
        if buffer is None or buffer.shape[0] < size:
            buffer = self._local.rows = np.empty((size, self.n_patterns), dtype=self.dtype)
        return buffer[:size]

    def confusion(self, index: int) -> np.ndarray:
        """``C[b, s, i, j]`` (float64, shape (Bc, S, k, k)) of every resample of chunk ``index``."""
        if not self.paired:
            size = self.chunk_size(index)
            rng = np.random.default_rng(self._children[index])
            drawn = rng.multinomial(self.n_items, self.cell_shares, size=(size, self.n_systems))
            return drawn.astype(np.float64).reshape(size, self.n_systems, self.k, self.k)
        weights = self.weights(index)
        product = self.incidence @ weights  # (S k^2, Bc), exact: integer counts of at most N (see dtype)
        size = weights.shape[1]
        return np.asarray(product, dtype=np.float64).T.reshape(size, self.n_systems, self.k, self.k)

    def stats(self, index: int, all_labels_active: bool = False) -> ConfusionStats:
        """The resamples of chunk ``index`` as stats of a (Bc, S, k, k) batch: dense, or from the
        non-zero cells when k² > 4N (memory O(S · patterns) per resample instead of O(S · k²))."""
        if not (self.paired and self.sparse):
            return ConfusionStats(self.confusion(index), all_labels_active)
        weights = self.weights(index)
        pattern, resample = np.nonzero(weights)
        count = weights[pattern, resample].astype(np.float64)
        S, k = self.n_systems, self.k
        gold = self.codes[pattern, 0]
        flat = np.concatenate([((resample * S + s) * k + gold) * k + self.codes[pattern, 1 + s] for s in range(S)])
        return ConfusionStats.from_cells((weights.shape[1], S, k, k), flat, np.tile(count, S), all_labels_active)

    def __iter__(self) -> Iterator[np.ndarray]:
        for index in range(self.n_chunks):
            yield self.confusion(index)
