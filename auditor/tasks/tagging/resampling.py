"""Bootstrap over sentences, never tokens: intervals, rank distributions and paired tests.

Each resample draws n sentences with replacement; its weights ``w_b`` (how often each sentence
was drawn) turn every per-sentence count matrix ``M`` (sentences × D, sparse) into the resample's
sums ``w_b M``: one sparse product per block of resamples, and every figure is then evaluated on
the whole block at once (docs/architecture.md, "Counts first").

Paired test of systems a and b under a metric: the paired bootstrap over sentences, two-sided on
the differences centred at the observed one (Hall & Wilson, "Two Guidelines for Bootstrap Hypothesis
Testing", first guideline: resample θ* − θ̂, not θ* − θ₀):
``p = (1 + #{b : |Δ*_b − Δ| ≥ |Δ|}) / (B' + 1)`` with ``Δ`` the difference on the test set and
``B'`` the resamples where both values are defined. p-values are adjusted over the pairs of a
metric (Holm or Benjamini–Hochberg, :func:`auditor.analyses.significance.adjust`).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Mapping, Sequence

import numpy as np
import scipy.sparse

from auditor.analyses.bootstrap import percentile_intervals, rank_probabilities
from auditor.analyses.significance import BestSet, PairTest, adjust, best_sets

#: Resamples evaluated together (memory: block × (n_sentences + Σ D)).
BLOCK = 50
#: The pairwise test's name in audit.json.
METHOD = "paired_bootstrap_sentences"


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


def paired_tests(values: Mapping[str, np.ndarray], observed: Mapping[str, np.ndarray], systems: Sequence[str],
                 metrics: Sequence[str], correction: str) -> list[PairTest]:
    """Paired bootstrap test of every pair under every metric of ``metrics`` (module docstring)."""
    tests = []
    for metric in metrics:
        family = []
        for a, b in combinations(range(len(systems)), 2):
            delta = observed[metric][a] - observed[metric][b]
            star = values[metric][:, a] - values[metric][:, b]
            star = star[~np.isnan(star)]
            if np.isnan(delta) or star.size == 0:
                family.append((a, b, np.nan, np.nan))
                continue
            p = (1 + np.count_nonzero(np.abs(star - delta) >= abs(delta) - 1e-12)) / (star.size + 1)
            family.append((a, b, float(delta), float(min(p, 1.0))))
        adjusted = adjust([p for *_, p in family], correction) if family else []
        for (a, b, delta, p), q in zip(family, adjusted):
            tests.append(PairTest(systems[a], systems[b], metric, METHOD, float(delta), float(p), float(q)))
    return tests


def statistics(values: Mapping[str, np.ndarray], observed: Mapping[str, np.ndarray], systems: Sequence[str],
               B: int, alpha: float, correction: str, tested: Sequence[str] | None) -> SentenceStatistics:
    """Intervals and rank distributions of every metric; tests and best sets of ``tested`` (None: none)."""
    intervals = {metric: percentile_intervals(v, alpha)[0] for metric, v in values.items()}
    ranks = {metric: rank_probabilities(v) for metric, v in values.items()}
    tests = best = None
    if tested is not None:
        tests = tuple(paired_tests(values, observed, systems, tested, correction))
        best = best_sets(tests, observed, systems, tested, correction, alpha, lambda metric: METHOD)
    return SentenceStatistics(B, alpha, correction, intervals, ranks, tests, best)
