"""The paired resampler over items: every system's item resample drawn as counts from one set of weights.

Part of the *analyse* stage: :mod:`auditor.analyses.bootstrap` (ranks and P(win)) and
:mod:`auditor.analyses.pairwise_resample` (each pair's own resample) draw through :class:`Resampler`. The items
are reduced to their unique patterns ``u = (gold, pred_1, ..., pred_S)`` with multiplicity ``n_u``; a chunk of
resamples draws per-pattern counts ``W ~ Multinomial(N, n / N)`` (the exact distribution of drawing N items with
replacement), light patterns item by item and heavy ones by numpy's multinomial (:func:`split_patterns`), and
``C[b, s, i, j]`` is one sparse-dense product with the patterns' incidence matrix (docs/architecture.md,
"Resampling units": the classification task's fast path behind the one resampler over units).
"""
from __future__ import annotations

import threading
from typing import Iterator

import numpy as np

from auditor.analyses.sampling import sparse_draws
from auditor.io.counts import Counts
from auditor.metrics.registry import ConfusionStats

#: Upper bound on the bytes of the per-chunk weight matrix W (float32) and batch tensor.
CHUNK_BYTES = 64 * 2**20
#: Cost of one pattern in numpy's multinomial (a conditional binomial, with its set-up, ~100 ns)
#: in units of one drawn item (a uniform index and its bincount, 5-7 ns): 15-20x at 1M items on
#: this machine (97k and 569k patterns; the weights took 3-8% less at 24 than at 12).
#: :func:`split_patterns` minimises ``PATTERN_COST · heavy patterns + light items``.
PATTERN_COST = 24
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


class PatternDraws:
    """Item resamples drawn as counts of patterns: ``N = Σ n_u`` items of the patterns of multiplicities ``n_u``,
    drawn uniformly with replacement, give per-pattern counts ``W ~ Multinomial(N, n_u / N)``; the light patterns
    are drawn item by item and the heavy ones by numpy's multinomial (:func:`split_patterns`).

    ``order`` puts the patterns light first (``counts`` is in that order, and so is every row :meth:`fill` draws):
    the caller lays its pattern rows out in the same order. Used by :class:`Resampler` (classification) and the
    multi-label bootstrap (:mod:`auditor.tasks.multilabel.resampling`).
    """

    def __init__(self, pattern_counts: np.ndarray):
        self.order, self.n_light = split_patterns(pattern_counts)
        self.counts = np.asarray(pattern_counts, dtype=np.int64)[self.order]
        self.n_patterns, self.n_items = len(self.counts), int(self.counts.sum())
        light = self.counts[:self.n_light]
        self.light_items = int(light.sum())
        # the light patterns' items are numbered pattern by pattern, lightest first: the first
        # ``singles`` items are the one-item patterns themselves, the others are summed per pattern
        self._singles = int(np.searchsorted(light, 2))
        self._firsts = np.concatenate([[0], np.cumsum(light[self._singles:])[:-1]]).astype(np.int64)
        heavy = self.counts[self.n_light:]
        self.heavy_shares = heavy / max(int(heavy.sum()), 1)
        self._draw_dtype = _index_dtype(self.light_items)

    def fill(self, rng: np.random.Generator, rows: np.ndarray) -> np.ndarray:
        """``rows`` (resamples × patterns, in :attr:`order`) filled with one resample's pattern counts each."""
        size = rows.shape[0]
        n, U, L = self.n_items, self.n_patterns, self.n_light
        light = (np.full(size, n, dtype=np.int64) if L == U
                 else rng.binomial(n, self.light_items / n, size=size) if L else np.zeros(size, dtype=np.int64))
        if L < U:
            rows[:, L:] = rng.multinomial(n - light, self.heavy_shares)
        singles = self._singles
        for b in range(size):
            items = np.bincount(rng.integers(0, self.light_items, size=int(light[b]), dtype=self._draw_dtype),
                                minlength=self.light_items)  # draws per light item
            rows[b, :singles] = items[:singles]
            if singles < L:
                rows[b, singles:L] = np.add.reduceat(items[singles:], self._firsts)
        return rows


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
            (np.ones(rows.size, dtype=np.float32), rows.T.ravel().astype(np.int32),
             np.arange(0, rows.size + 1, self.n_systems, dtype=np.int64)),
            shape=(cells, self.n_patterns),
        )
        self._children = np.random.SeedSequence(seed).spawn(self.n_chunks)
        self._local = threading.local()

    def chunk_size(self, index: int) -> int:
        return min(self.chunk, self.B - index * self.chunk)

    def weights(self, index: int) -> np.ndarray:
        """Per-pattern counts ``W`` (U x Bc, float32, C order; rows in :attr:`codes` order) of chunk ``index``.

        Column ``b`` is distributed as the pattern counts of ``N`` items drawn uniformly
        with replacement: ``W[:, b] ~ Multinomial(N, n_u / N)`` (module docstring: light
        patterns by item draws, heavy ones by numpy's multinomial).
        """
        size = self.chunk_size(index)
        U = self.n_patterns
        rows = self.draws.fill(np.random.default_rng(self._children[index]), self._scratch(size))
        weights = np.empty((U, size), dtype=np.float32)
        for start in range(0, U, _TRANSPOSE_BLOCK):
            weights[start:start + _TRANSPOSE_BLOCK] = rows[:, start:start + _TRANSPOSE_BLOCK].T
        return weights

    def _scratch(self, size: int) -> np.ndarray:
        """A (size, U) float32 buffer of this thread, reused by its chunks (fresh memory costs page
        faults: 0.3 ms per resample at 97k patterns)."""
        buffer = getattr(self._local, "rows", None)
        if buffer is None or buffer.shape[0] < size:
            buffer = self._local.rows = np.empty((size, self.n_patterns), dtype=np.float32)
        return buffer[:size]

    def confusion(self, index: int) -> np.ndarray:
        """``C[b, s, i, j]`` (float64, shape (Bc, S, k, k)) of every resample of chunk ``index``."""
        if not self.paired:
            size = self.chunk_size(index)
            rng = np.random.default_rng(self._children[index])
            drawn = rng.multinomial(self.n_items, self.cell_shares, size=(size, self.n_systems))
            return drawn.astype(np.float64).reshape(size, self.n_systems, self.k, self.k)
        weights = self.weights(index)
        product = self.incidence @ weights  # (S k^2, Bc), exact: integer counts < 2^24
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
