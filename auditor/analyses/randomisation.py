"""Approximate randomisation on counts: the paired permutation test of two systems.

Stage "analyse", used by :mod:`auditor.analyses.significance` (and the plan's pilot). Each item's
two predictions are swapped with probability ½; on counts, for every discordant pattern
``(gold, pred_a, pred_b)`` the number swapped is binomial, drawn for all ``R`` rounds at once
(:func:`swapped_matrices`); ``p = (1 + #{|Δ*| ≥ |Δ|}) / (R' + 1)`` (Noreen 1989; Riezler & Maxwell 2005).
"""
from __future__ import annotations

from functools import cached_property
from typing import Any, Iterator, Sequence

import numpy as np

from auditor.analyses.sampling import sparse_draws
from auditor.io.counts import Counts
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import ConfusionStats, Metric

#: Rounds of approximate randomisation.
AR_ROUNDS = 1000
_TOLERANCE = 1e-12
#: Bits in each byte value, for popcounts without ``np.bitwise_count`` (numpy < 2).
_BYTE_BITS = np.array([bin(value).count("1") for value in range(256)], dtype=np.uint8)
#: Binomial(n, ½) draws with n up to 64 times this are popcounts of random words.
POPCOUNT_WORDS = 8
#: Largest number of (rounds x patterns) draws held at once by the randomisation.
_DRAWS_PER_BLOCK = 2**22


def _bit_count(words: np.ndarray) -> np.ndarray:
    """Number of set bits of every unsigned integer in ``words``."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    return _BYTE_BITS[words.view(np.uint8)].reshape(*words.shape, words.itemsize).sum(axis=-1)


def binomial_half(rng: np.random.Generator, n: np.ndarray, rounds: int, dtype: type = np.int64) -> np.ndarray:
    """``rounds`` draws of ``Binomial(n_p, ½)`` for every entry of ``n``: (P, rounds) of ``dtype``
    (float64 holds every count exactly and saves the caller a conversion pass)."""
    return _binomial_half(rng, np.asarray(n, dtype=np.int64), rounds, dtype)


def _binomial_half(rng: np.random.Generator, n: np.ndarray, rounds: int, dtype: type) -> np.ndarray:
    """:func:`binomial_half`'s draws.

    For ``n_p ≤ 64 · POPCOUNT_WORDS`` the draw is the number of set bits among ``n_p``
    random bits, each a fair coin, so the count is exactly Binomial(n_p, ½), at a fraction of
    the cost of ``Generator.binomial``: ``n_p ≤ 8, 16, 32`` take one random byte, 16-bit or
    32-bit word (the random 64-bit words viewed narrower, masked to ``n_p`` bits), larger
    ``n_p`` ``⌈n_p / 64⌉`` 64-bit words, the last one masked. Larger ``n_p`` use
    ``Generator.binomial``, one call per distinct ``n_p`` (a scalar n keeps numpy's sampler
    set-up out of the per-draw cost). Fastest when ``n`` is sorted (the groups are then slices).
    """
    order = None
    if n.size > 1 and (np.diff(n) < 0).any():
        order = np.argsort(n, kind="stable")
        n = n[order]
    out = np.empty((n.size, rounds), dtype=dtype)
    first = 0
    for width, word in ((8, np.uint8), (16, np.uint16), (32, np.uint32)):  # one narrow word per draw
        last = int(np.searchsorted(n, width, side="right"))
        if last > first:
            size = (last - first) * rounds
            words = rng.bit_generator.random_raw(size=-(-size * width // 64)).view(word)[:size]
            words = words.reshape(last - first, rounds)
            words &= ((np.uint64(1) << n[first:last].astype(np.uint64)) - np.uint64(1)).astype(word)[:, None]
            out[first:last] = _bit_count(words)
        first = last
    words_needed = (n + 63) // 64
    bounds = np.searchsorted(words_needed, np.arange(1, POPCOUNT_WORDS + 2))
    for width in range(1, POPCOUNT_WORDS + 1):
        low, last = max(first, bounds[width - 1]), bounds[width]
        if low >= last:
            continue
        out[low:last] = 0
        bits = rng.bit_generator.random_raw(size=(width, last - low, rounds))
        tail = (n[low:last] - 64 * (width - 1)).astype(np.uint64)  # 1..64 bits used in the last word
        bits[-1] &= np.where(tail >= 64, ~np.uint64(0),
                             (np.uint64(1) << np.minimum(tail, np.uint64(63))) - np.uint64(1))[:, None]
        for plane in bits:
            out[low:last] += _bit_count(plane)
    start = bounds[POPCOUNT_WORDS]
    while start < n.size:
        stop = int(np.searchsorted(n, n[start], side="right"))
        out[start:stop] = rng.binomial(int(n[start]), 0.5, size=(stop - start, rounds))
        start = stop
    if order is not None:
        unsorted = np.empty_like(out)
        unsorted[order] = out
        out = unsorted
    return out


def _swap_plan(counts: Counts, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The discordant (gold, x < y) patterns of a pair, sorted by size: their keys ``(g·k + x)·k + y``,
    item counts ``n_xy + n_yx`` and the reversed counts ``n_yx`` (see :func:`swapped_matrices`)."""
    k = counts.k
    codes, n = counts.pair_patterns(a, b)
    discordant = codes[:, 1] != codes[:, 2]
    gold, x, y, n = codes[discordant, 0], codes[discordant, 1], codes[discordant, 2], n[discordant]
    unordered, index = np.unique((gold * k + np.minimum(x, y)) * k + np.maximum(x, y), return_inverse=True)
    index = index.ravel()
    total = np.bincount(index, weights=n, minlength=unordered.size).astype(np.int64)
    reversed_count = np.bincount(index, weights=np.where(x > y, n, 0), minlength=unordered.size)
    by_size = np.argsort(total, kind="stable")  # binomial_half is fastest on sorted counts
    return unordered[by_size], total[by_size], reversed_count[by_size]


def _draw_dtype(total: np.ndarray) -> type:
    """float32 for the swap counts and their sums per cell when every one is exact in it (all the
    discordant items together below 2^24): half the memory traffic of float64; else float64."""
    return np.float32 if int(total.sum()) < 2**24 else np.float64


def _swap_moves(counts: Counts, a: int, b: int) -> tuple[Any, np.ndarray, np.ndarray, type]:
    """The pair's swap plan as a linear map (see :func:`swapped_matrices`): ``moves`` (k² × P, sparse) sends the P
    unordered patterns' swap counts ``T`` to system a's cell shifts, ``offset`` (k²,) is the ``n_yx`` part of every
    round's shift, ``total`` (P,) the patterns' items, and the dtype the rounds are drawn and summed in."""
    import scipy.sparse  # here, not at import: loaded only when a test runs

    k = counts.k
    unordered, total, reversed_count = _swap_plan(counts, a, b)
    row = unordered // (k * k)
    P = unordered.size
    moves = scipy.sparse.csr_matrix(
        (np.concatenate([np.ones(P), -np.ones(P)]),
         (np.concatenate([row * k + unordered % k, row * k + (unordered // k) % k]),
          np.concatenate([np.arange(P), np.arange(P)]))),
        shape=(k * k, P),
    )
    offset = moves @ reversed_count  # moved = T − n_yx: the n_yx part is the same in every round
    return moves, offset, total, _draw_dtype(total)


def _swap_draws(total: np.ndarray, rounds: int, rng: np.random.Generator, dtype: type) -> Iterator[np.ndarray]:
    """``T`` (P, R_c) of every block of rounds, at most ``_DRAWS_PER_BLOCK`` draws per block."""
    block = max(1, _DRAWS_PER_BLOCK // max(total.size, 1))
    for start in range(0, rounds, block):
        yield binomial_half(rng, total, min(block, rounds - start), dtype)


def _shifted(pair: np.ndarray, moves: Any, offset: np.ndarray, swapped: np.ndarray) -> np.ndarray:
    """The (R_c, 2, k, k) matrices of the rounds ``swapped`` (P, R_c): a's cells shifted, b's the opposite way."""
    k, size = pair.shape[-1], swapped.shape[1]
    shift = (np.asarray(moves @ swapped, dtype=np.float64) - offset[:, None]).T.reshape(size, k, k)
    batch = np.empty((size, 2, k, k))
    batch[:, 0] = pair[0] + shift
    batch[:, 1] = pair[1] - shift
    return batch


def swapped_matrices(counts: Counts, a: int, b: int, rounds: int,
                     rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Confusion matrices of systems ``a`` and ``b`` after random per-item swaps, in blocks.

    Yields float64 arrays (R_c, 2, k, k) whose blocks add up to ``rounds`` rounds; at most
    ``_DRAWS_PER_BLOCK`` draws are held at once. Works on the pair's pattern counts
    (:meth:`~auditor.io.counts.Counts.pair_patterns`), so a round costs O(k³), not O(N).
    Swapping each item's two predictions with probability ½ only matters for items with
    ``pred_a ≠ pred_b``. For gold class g and labels x < y let ``n_xy`` items have (a = x,
    b = y) and ``n_yx`` items (a = y, b = x); ``T₁ ~ Bin(n_xy, ½)`` and ``T₂ ~ Bin(n_yx, ½)``
    of them are swapped, and the matrices depend on the swaps only through ``T₁ − T₂ = T −
    n_yx`` with ``T = T₁ + (n_yx − T₂) ~ Bin(n_xy + n_yx, ½)``: one draw per unordered
    pattern, exactly distributed as the item swaps. A round moves ``T − n_yx`` of system a's
    items from cell (g, x) to (g, y) and as many of system b's from (g, y) to (g, x).
    """
    pair = counts.confusion[[a, b]].astype(np.float64)
    moves, offset, total, dtype = _swap_moves(counts, a, b)
    moves = moves.astype(dtype)
    for swapped in _swap_draws(total, rounds, rng, dtype):
        yield _shifted(pair, moves, offset, swapped)


class _SwappedRounds(ConfusionStats):
    """Stats of a block of swapped rounds (R_c, 2, k, k) from their margins: every round keeps the gold rows, and
    its columns and diagonal are the pair's shifted by ``margins @ T`` (2k × P: each pattern's moves summed per
    column and onto the diagonal), so the metrics that read only the margins and the diagonal (every default
    tested one) never form the k × k matrices; :attr:`C` forms them (:func:`_shifted`) when a metric reads it
    (NIT, the calibrated metrics). Sums of integer counts below 2^24 (:func:`_draw_dtype`): the same values as
    the dense rounds', exactly."""

    def __init__(self, pair: np.ndarray, margins: Any, margin_offset: np.ndarray, dense: tuple,
                 swapped: np.ndarray, all_labels_active: bool):
        k = pair.shape[-1]
        shift = (np.asarray(margins @ swapped, dtype=np.float64) - margin_offset[:, None]).T  # (R_c, 2k)
        sign = np.array([1.0, -1.0])[None, :, None]  # a's shift, and b's the opposite way
        self.k = k
        self.col = pair.sum(axis=-2)[None] + sign * shift[:, None, :k]
        self.diag = np.diagonal(pair, axis1=-2, axis2=-1)[None] + sign * shift[:, None, k:]
        self.row = np.broadcast_to(pair.sum(axis=-1), self.col.shape)
        self.n = self.row.sum(axis=-1)
        self.all_labels_active = all_labels_active
        self._dense = (pair, *dense, swapped)

    @cached_property
    def C(self) -> np.ndarray:  # type: ignore[override]
        return _shifted(*self._dense)


def _margin_rounds(counts: Counts, a: int, b: int, rounds: int, rng: np.random.Generator,
                   all_labels_active: bool) -> Iterator[ConfusionStats]:
    """:func:`swapped_matrices`' rounds (same draws, same order) as :class:`_SwappedRounds`."""
    import scipy.sparse

    k = counts.k
    pair = counts.confusion[[a, b]].astype(np.float64)
    moves, offset, total, dtype = _swap_moves(counts, a, b)
    cells = np.arange(k * k)
    to_margins = scipy.sparse.csr_matrix(  # column j sums cells (g, j); diagonal g is cell (g, g)
        (np.ones(2 * k * k)[:k * k + k], (np.concatenate([cells % k, k + np.arange(k)]),
                                          np.concatenate([cells, np.arange(k) * (k + 1)]))), shape=(2 * k, k * k))
    margins = (to_margins @ moves).astype(dtype)
    margin_offset = to_margins @ offset
    dense = (moves.astype(dtype), offset)
    for swapped in _swap_draws(total, rounds, rng, dtype):
        yield _SwappedRounds(pair, margins, margin_offset, dense, swapped, all_labels_active)


def swapped_stats(counts: Counts, a: int, b: int, rounds: int, rng: np.random.Generator,
                  all_labels_active: bool = False) -> Iterator[ConfusionStats]:
    """The rounds of :func:`swapped_matrices` (same draws, same order) as stats of (R_c, 2, k, k) batches.

    With many classes and few items (k² > 4N) each round is listed as non-zero cells (the pair's
    cells and the ≤ 2P moved ones) instead of two dense k × k matrices.
    """
    if not sparse_draws(counts.k, counts.n_items):
        yield from _margin_rounds(counts, a, b, rounds, rng, all_labels_active)
        return
    import scipy.sparse

    k, k2 = counts.k, counts.k * counts.k
    unordered, total, reversed_count = _swap_plan(counts, a, b)
    gold = unordered // k2
    to_cell, from_cell = gold * k + unordered % k, gold * k + (unordered // k) % k  # (g, y) and (g, x)
    base_a, base_b = (np.flatnonzero(counts.confusion[s]) for s in (a, b))
    # every round touches the same cells of the (2, k, k) pair: list them once, sorted
    touched = (base_a, k2 + base_b, to_cell, from_cell, k2 + to_cell, k2 + from_cell)
    template = np.unique(np.concatenate(touched))
    base = np.zeros(template.size)
    base[np.searchsorted(template, base_a)] = counts.confusion[a].ravel()[base_a]
    base[np.searchsorted(template, k2 + base_b)] += counts.confusion[b].ravel()[base_b]
    P = unordered.size
    moves = scipy.sparse.csr_matrix(  # round counts = base + moves @ moved
        (np.repeat([1.0, -1.0, -1.0, 1.0], P),
         (np.searchsorted(template, np.concatenate(touched[2:])), np.tile(np.arange(P), 4))),
        shape=(template.size, P))
    base = base - moves @ reversed_count  # moved = T − n_yx: the n_yx part is the same in every round
    dtype = _draw_dtype(total)
    moves = moves.astype(dtype)
    block = max(1, _DRAWS_PER_BLOCK // max(template.size, P, 1))
    for start in range(0, rounds, block):
        size = min(block, rounds - start)
        swapped = np.asarray(moves @ binomial_half(rng, total, size, dtype), dtype=np.float64)
        count = base[None, :] + swapped.T  # (R_c, cells)
        flat = np.arange(size, dtype=np.int64)[:, None] * (2 * k2) + template[None, :]
        yield ConfusionStats.from_cells((size, 2, k, k), flat.ravel(), count.ravel(), all_labels_active)


def approximate_randomisation(
    counts: Counts, a: int, b: int, metrics: Sequence[Metric], *, seed: int, rounds: int = AR_ROUNDS,
    all_labels_active: bool = False,
) -> dict[str, tuple[float, float]]:
    """Approximate-randomisation test of systems ``a`` and ``b`` (indices) on every metric.

    Returns metric id -> ``(difference, p)`` with ``difference = m(a) − m(b)`` and
    ``p = (1 + #{|Δ*| ≥ |Δ|}) / (R' + 1)`` over the R' rounds where Δ* is defined. The
    rounds come from :func:`swapped_matrices` with ``SeedSequence([seed, a, b])``.
    """
    observed = compute(counts.confusion[[a, b]].astype(np.float64), metrics, all_labels_active)
    rng = np.random.default_rng(np.random.SeedSequence([seed, a, b]))
    deltas: dict[str, list[np.ndarray]] = {metric.id: [] for metric in metrics}
    for batch in swapped_stats(counts, a, b, rounds, rng, all_labels_active):
        resampled = compute(batch, metrics, all_labels_active)
        for metric in metrics:
            deltas[metric.id].append(resampled[metric.id][:, 0] - resampled[metric.id][:, 1])
    result = {}
    for metric in metrics:
        difference = float(observed[metric.id][0] - observed[metric.id][1])
        if np.isnan(difference):
            result[metric.id] = (difference, float("nan"))
            continue
        delta = np.concatenate(deltas[metric.id])
        delta = delta[~np.isnan(delta)]
        extreme = (np.abs(delta) >= abs(difference) - _TOLERANCE).sum()
        result[metric.id] = (difference, float((1 + extreme) / (delta.size + 1)))
    return result
