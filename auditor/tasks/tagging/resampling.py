"""Resampling over sentences, never tokens: bootstrap intervals and rank distributions, and paired tests.

Each resample draws n sentences with replacement; its weights ``w_b`` (how often each sentence
was drawn) turn every per-sentence count matrix ``M`` (sentences × D, sparse) into the resample's
sums ``w_b M``: one sparse product per block of resamples, and every figure is then evaluated on
the whole block at once (docs/architecture.md, "Counts first").

Paired test of systems a and b under a metric: approximate randomisation over sentences (Noreen 1989; the
test every task's best sets and bold come from, docs/architecture.md "One rule for significance"): each round
swaps the two systems' statistics of each sentence with probability ½, two-sided:
``p = (1 + #{r : |Δ*_r| ≥ |Δ|}) / (R' + 1)`` with ``Δ`` the difference on the test set and ``R'`` the rounds
where both values are defined. p-values are adjusted over the pairs of a metric (Holm or Benjamini–Hochberg,
:func:`auditor.analyses.significance.adjust`).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Mapping, Sequence

import numpy as np
import scipy.sparse

from auditor.analyses.bootstrap import percentile_intervals, rank_probabilities
from auditor.analyses.significance import RANDOMISATION, BestSet, PairTest, adjust, best_sets

#: Resamples evaluated together (memory: block × (n_sentences + Σ D)).
BLOCK = 50
#: The pairwise test: approximate randomisation over sentences, the test every task's best sets come from.
METHOD = RANDOMISATION


def sentence_weights(rng: np.random.Generator, n: int, B: int, dtype: type = float) -> np.ndarray:
    """(n, B) draw counts: column b a resample of n sentences with replacement (sentence-major, so that the
    products of :func:`bootstrap_values` read it without a transposed copy)."""
    draws = rng.integers(0, n, size=(B, n))
    draws *= B
    draws += np.arange(B)[:, None]
    return np.bincount(draws.ravel(), minlength=B * n).reshape(n, B).astype(dtype)


def bootstrap_values(matrix: scipy.sparse.csr_matrix, evaluate: Callable[[np.ndarray], Mapping[str, np.ndarray]],
                     B: int, seed: int, dense: int = 0) -> dict[str, np.ndarray]:
    """id -> (B, S) values of ``evaluate`` (resampled column sums, batch first) on B sentence resamples.

    The first ``dense`` columns (counts every sentence has, such as gold) are summed by a dense
    product, the rest (sparse) by a sparse one; in float32 when no resample's sum can reach 2^24
    (n sentences × the largest count of one sentence), so that counts stay exact.
    """
    rng = np.random.default_rng([seed, 22])
    n = matrix.shape[0]
    dtype = np.float32 if n * (matrix.max() if matrix.nnz else 0) < 2**24 else np.float64
    shared = matrix[:, :dense].toarray().astype(dtype)
    rest = matrix[:, dense:].T.tocsr().astype(dtype)
    out: dict[str, np.ndarray] = {}
    for start in range(0, B, BLOCK):
        size = min(BLOCK, B - start)
        weights = sentence_weights(rng, n, size, dtype)  # (n, size)
        sums = np.concatenate([weights.T @ shared, np.asarray(rest @ weights).T], axis=1)
        for metric, values in evaluate(sums.astype(float)).items():
            out.setdefault(metric, np.empty((B, values.shape[-1])))[start:start + size] = values
    return out


@dataclass(frozen=True)
class SentenceStatistics:
    """Intervals (metric -> (S, 2)), rank probabilities (metric -> (S, S)), pair tests, best sets."""

    B: int
    alpha: float
    correction: str
    intervals: Mapping[str, np.ndarray]
    ranks: Mapping[str, np.ndarray]
    tests: tuple[PairTest, ...] | None
    best_set: Mapping[str, BestSet] | None

    def interval(self, metric: str, s: int) -> tuple[float, float] | None:
        if metric not in self.intervals:
            return None
        lo, hi = self.intervals[metric][s]
        return None if np.isnan(lo) else (float(lo), float(hi))


def randomisation_tests(matrix: scipy.sparse.csr_matrix, shared: int, per_system: int,
                        evaluate_pair: Callable[[int, int, np.ndarray], Mapping[str, np.ndarray]],
                        observed: Mapping[str, np.ndarray], systems: Sequence[str], metrics: Sequence[str],
                        rounds: int, seed: int, correction: str) -> list[PairTest]:
    """Approximate randomisation over sentences of every pair under every metric of ``metrics`` (module docstring):
    each round swaps each sentence's statistics of the two systems with probability ½, one sparse product for all
    rounds; ``evaluate_pair(a, b, sums)`` scores the (rounds, shared + 2 · per_system) sums as two systems."""
    n = matrix.shape[0]
    columns = matrix.tocsc()
    totals = np.asarray(matrix.sum(axis=0), dtype=float).ravel()
    found: dict[str, list[tuple[int, int, float, float]]] = {metric: [] for metric in metrics}
    for a, b in combinations(range(len(systems)), 2):
        block_a = slice(shared + a * per_system, shared + (a + 1) * per_system)
        block_b = slice(shared + b * per_system, shared + (b + 1) * per_system)
        difference = (columns[:, block_b] - columns[:, block_a]).T.tocsr()  # (per_system, n)
        swaps = (np.random.default_rng([seed, 32, a, b]).random((rounds, n)) < 0.5).astype(float)
        moved = np.asarray(difference @ swaps.T).T  # (rounds, per_system)
        sums = np.concatenate([np.broadcast_to(totals[:shared], (rounds, shared)), totals[block_a] + moved,
                               totals[block_b] - moved], axis=1)
        values = evaluate_pair(a, b, sums)
        for metric in metrics:
            delta = float(observed[metric][a] - observed[metric][b])
            star = values[metric][:, 0] - values[metric][:, 1]
            star = star[~np.isnan(star)]
            p = np.nan if np.isnan(delta) or star.size == 0 else \
                (1 + np.count_nonzero(np.abs(star) >= abs(delta) - 1e-12)) / (star.size + 1)
            found[metric].append((a, b, delta, float(p)))
    tests = []
    for metric, family in found.items():
        for (a, b, delta, p), q in zip(family, adjust([p for *_, p in family], correction) if family else []):
            tests.append(PairTest(systems[a], systems[b], metric, METHOD, delta, p, float(q), {"rounds": rounds}))
    return tests


def statistics(values: Mapping[str, np.ndarray], observed: Mapping[str, np.ndarray], systems: Sequence[str],
               B: int, alpha: float, correction: str, tested: Sequence[str] | None,
               tests: Sequence[PairTest] | None = None) -> SentenceStatistics:
    """Intervals and rank distributions of every metric; ``tests`` (:func:`randomisation_tests`) and the best sets
    of ``tested`` (None: none)."""
    intervals = {metric: percentile_intervals(v, alpha)[0] for metric, v in values.items()}
    ranks = {metric: rank_probabilities(v) for metric, v in values.items()}
    best = None
    if tested is None:
        tests = None
    else:
        tests = tuple(tests or ())
        best = best_sets(tests, observed, systems, tested, correction, alpha, lambda metric: METHOD)
    return SentenceStatistics(B, alpha, correction, intervals, ranks, tests, best)
