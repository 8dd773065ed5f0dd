r"""BLEU's and chrF's per-segment sufficient statistics from n-gram counts, with array code.

The statistics are sacrebleu's (Post 2018; ``BLEU._compute_segment_statistics`` and
``CHRF._compute_segment_statistics`` of sacrebleu 2.x), computed on sacrebleu's own tokenisation;
the tests check them equal, number for number, to sacrebleu's on random text.

* **BLEU** (Papineni et al. 2002): per segment ``[hyp_len, ref_len, correct_1..4, total_1..4]``;
  ``correct_n = Σ_g min(H(g), max_r R_r(g))`` over the hypothesis' word n-grams g, ``total_n =
  max(0, hyp_len − n + 1)``, ``ref_len`` the reference length closest to ``hyp_len`` (the shorter on
  a tie).
* **chrF** (Popović 2015): per segment and character order n ≤ 6 (whitespace removed) ``[hyp, ref,
  match]``, with ``hyp`` = 0 where the reference has no n-gram of that order and ``match = Σ_g
  min(H(g), R(g))``; with several references, the statistics of the reference with the highest
  sentence chrF (the first on a tie).

Counting: a side's symbols (word type ids, or Unicode code points) lie flat, segment after
segment. An n-gram starting at position j (all n symbols in one segment) gets a dense id naming
(segment, n-gram): order 1 numbers the distinct (segment, symbol) pairs, order n the distinct
(id of the (n−1)-gram at j, symbol j + n − 1) pairs — one dictionary encoding over every side of a
block of segments, so one n-gram of one segment has one id on every side. ``np.bincount`` of a side's
ids is its count per (segment, n-gram), and matches are ``min`` of counts summed per segment.
Exact: no hashing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from auditor.tasks.translation.measures import chrf_from_statistics

#: Most symbol positions (all sides together) counted in one block of segments.
BLOCK = 2**20


@dataclass(frozen=True)
class Symbols:
    """One side's symbols (int64, flat) and each segment's symbol count."""

    values: np.ndarray
    lengths: np.ndarray

    @property
    def starts(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.lengths)))


def characters(lines: Sequence[str]) -> Symbols:
    """chrF's symbols: each segment's code points with whitespace removed (``''.join(line.split())``)."""
    stripped = ["".join(line.split()) for line in lines]
    values = np.frombuffer("".join(stripped).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    return Symbols(values, np.fromiter(map(len, stripped), dtype=np.int64, count=len(stripped)))


def _blocks(sides: Sequence[Symbols]) -> list[tuple[int, int]]:
    """Segment ranges whose symbols (all sides) stay near :data:`BLOCK` (a segment is never split)."""
    per_segment = np.sum([s.lengths for s in sides], axis=0)
    ends = np.cumsum(per_segment)
    bounds, start, n = [], 0, per_segment.size
    while start < n:
        base = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, base + BLOCK, side="right")))
        bounds.append((start, min(stop, n)))
        start = stop
    return bounds


def _gather(sides: Sequence[Symbols], starts: Sequence[np.ndarray], start: int, stop: int) -> tuple[np.ndarray, ...]:
    """A block's symbols of every side: values, local segment, symbols left in the segment, side edges."""
    values, segments, lengths = [], [], []
    for s, offsets in zip(sides, starts):
        begin, end = offsets[start], offsets[stop]
        values.append(s.values[begin:end])
        lengths.append(s.lengths[start:stop])
        segments.append(np.repeat(np.arange(stop - start), s.lengths[start:stop]))
    lengths_all = np.concatenate(lengths)
    ends = np.cumsum(lengths_all)
    remaining = np.repeat(ends, lengths_all) - np.arange(ends[-1] if ends.size else 0)
    edges = np.concatenate(([0], np.cumsum([v.size for v in values])))
    return np.concatenate(values), np.concatenate(segments), remaining, edges


def block_counts(sides: Sequence[Symbols], starts: Sequence[np.ndarray], start: int, stop: int, order: int):
    """Per order n = 1..order: (segment of each n-gram id, [count per id for each side]); ``starts``: each
    side's :attr:`Symbols.starts`."""
    values, segments, remaining, edges = _gather(sides, starts, start, stop)
    width = int(values.max()) + 1 if values.size else 1
    positions = np.arange(values.size)
    ids = np.full(values.size, -1, dtype=np.int64)
    owner = np.zeros(0, dtype=np.int64)
    for n in range(1, order + 1):
        at = positions[remaining >= n]
        if n == 1:
            keys = segments * width + values
        else:
            keys = ids[at] * width + values[at + n - 1]
        unique, inverse = dense(keys)
        owner = unique // width if n == 1 else owner[unique // width]
        ids = np.full(values.size, -1, dtype=np.int64)
        ids[at] = inverse
        cut = np.searchsorted(at, edges)
        counts = [np.bincount(inverse[cut[k]:cut[k + 1]], minlength=unique.size) for k in range(len(sides))]
        yield owner, counts


def dense(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, index of each key among them): pyarrow's hash dictionary encoding (linear time;
    about 3x faster than ``np.unique``'s sort; the order of the distinct keys is of no consequence)."""
    import pyarrow as pa

    encoded = pa.array(keys, type=pa.int64()).dictionary_encode()
    return (encoded.dictionary.to_numpy(zero_copy_only=False),
            encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64))


def bleu_statistics(references: Sequence[Symbols], systems: Sequence[Symbols], order: int = 4) -> list[np.ndarray]:
    """sacrebleu's BLEU statistics of each system (N x (2 + 2·order)) against ``references`` (word ids)."""
    n, r = references[0].lengths.size, len(references)
    out = [np.zeros((n, 2 + 2 * order)) for _ in systems]
    sides = [*references, *systems]
    starts = [side.starts for side in sides]
    for start, stop in _blocks(sides):
        for g, (owner, counts) in enumerate(block_counts(sides, starts, start, stop, order)):
            most = np.max(counts[:r], axis=0)
            for s, stats in enumerate(out):
                stats[start:stop, 2 + g] = np.bincount(owner, np.minimum(counts[r + s], most), stop - start)
    ref_lengths = np.stack([ref.lengths for ref in references], axis=1)
    for s, system in enumerate(systems):
        hyp = system.lengths
        out[s][:, 0] = hyp
        out[s][:, 1] = closest_length(hyp, ref_lengths)
        out[s][:, 2 + order:] = np.maximum(0, hyp[:, None] - np.arange(order)[None, :])
    return out


def closest_length(hyp: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """The reference length (columns of ``refs``) closest to ``hyp``; the shorter one on a tie."""
    distance = np.abs(refs - hyp[:, None])
    ties = np.where(distance == distance.min(axis=1, keepdims=True), refs, np.iinfo(np.int64).max)
    return ties.min(axis=1)


def chrf_statistics(references: Sequence[Symbols], systems: Sequence[Symbols], order: int = 6,
                    beta: float = 2.0) -> list[np.ndarray]:
    """sacrebleu's chrF statistics of each system (N x 3·order) against ``references`` (code points)."""
    n, r = references[0].lengths.size, len(references)
    match = np.zeros((len(systems), r, n, order))
    sides = [*references, *systems]
    starts = [side.starts for side in sides]
    for start, stop in _blocks(sides):
        for g, (owner, counts) in enumerate(block_counts(sides, starts, start, stop, order)):
            for s in range(len(systems)):
                for k in range(r):
                    match[s, k, start:stop, g] = np.bincount(owner, np.minimum(counts[r + s], counts[k]), stop - start)
    grams = np.arange(order)[None, :]
    out = []
    for s, system in enumerate(systems):
        hyp_total = np.maximum(0, system.lengths[:, None] - grams)
        candidates = []
        for k, ref in enumerate(references):
            ref_total = np.maximum(0, ref.lengths[:, None] - grams)
            stats = np.stack([np.where(ref_total > 0, hyp_total, 0), ref_total, match[s, k]], axis=2)
            candidates.append(stats.reshape(n, 3 * order).astype(np.float64))
        # sentence chrF x100, as sacrebleu compares the references' scores (the same operations in the same order)
        scores = np.stack([100 * chrf_from_statistics(c, beta) for c in candidates], axis=1)
        best = np.argmax(scores, axis=1)  # the first of equal scores, as sacrebleu's strict ">"
        out.append(np.stack(candidates, axis=1)[np.arange(n), best])
    return out

