"""Resampling segments: bootstrap intervals and paired tests, on per-segment sufficient statistics.

Segments are the resampled unit (Koehn 2004; sacrebleu's significance module). A
resample is a weight vector over segments, never a re-read of text: every metric's summed
statistics are ``W @ X`` — BLEU's and chrF's statistic rows, and the sparse per-type match,
predicted and reference counts — and each metric is evaluated on the whole batch at once
(:mod:`~auditor.tasks.translation.measures`).

* **Bootstrap** (paired: one set of weights shared by all systems): ``B`` resamples drawn as
  sacrebleu draws them, ``rng.choice(N, size=(B, N))`` with ``numpy.random.default_rng(seed)``
  (chunked draws give the same stream), so with the same seed and B the resamples are sacrebleu's.
  Percentile intervals (Efron & Tibshirani 1993, ch. 13).
* **Paired bootstrap test**, as sacrebleu's ``paired_bs`` (Koehn 2004): with
  ``d_b = |m_b(a) − m_b(b)|`` over the resamples and ``Δ = |m(a) − m(b)|``,
  ``p = (1 + #{d_b − mean(d) ≥ Δ}) / (B + 1)``.
* **Approximate randomisation**, as sacrebleu's ``paired_ar`` (Riezler & Maxwell 2005): each
  segment's two outputs swapped with probability ½ (``rng.integers(2, size=(R, N), dtype=bool)``,
  one mask for every pair); ``p = (1 + #{|m(a*) − m(b*)| ≥ Δ}) / (R + 1)``.

sacrebleu counts ``>`` where this module counts ``≥`` (within 1e-12 relative): a shuffle that
reproduces the observed difference exactly (e.g. two identical systems) then counts against the
null, as Noreen (1989) defines the test, instead of making every such difference significant.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import scipy.sparse

from auditor.progress import SILENT, Progress
from auditor.tasks.translation.counting import Corpus
from auditor.tasks.translation.measures import bleu_from_statistics, chrf_from_statistics, macro_micro_f, type_f

METRICS = ("macrof", "microf", "bleu", "chrf")
#: Largest number of (resample x segment) weights held at once.
BLOCK = 2**22
_TOLERANCE = 1e-12


def _sum(weights: np.ndarray, matrix: scipy.sparse.csr_matrix | np.ndarray) -> np.ndarray:
    """``weights @ matrix`` (resamples x columns), sparse matrices through their transpose."""
    if scipy.sparse.issparse(matrix):
        return np.asarray((matrix.T @ weights.T).T)
    return weights @ matrix


def scores(corpus: Corpus, weights: np.ndarray, beta: float, k: float,
           systems: Sequence[str] | None = None) -> dict[str, np.ndarray]:
    """Every metric of every system under segment ``weights`` (resamples x N) -> metric -> (resamples, S)."""
    systems = tuple(systems or corpus.systems)
    reference = _sum(weights, corpus.reference)
    out = {metric: np.empty((weights.shape[0], len(systems))) for metric in METRICS}
    for s, name in enumerate(systems):
        counts = corpus.counts[name]
        macro, micro = macro_micro_f(_sum(weights, counts.match), _sum(weights, counts.predicted), reference, beta, k)
        out["macrof"][:, s], out["microf"][:, s] = macro, micro
        out["bleu"][:, s] = bleu_from_statistics(weights @ corpus.bleu[name])
        out["chrf"][:, s] = chrf_from_statistics(weights @ corpus.chrf[name])
    return out


def point_scores(corpus: Corpus, beta: float, k: float) -> dict[str, np.ndarray]:
    """The test set's own metric values: metric -> (S,)."""
    return {metric: values[0] for metric, values in scores(corpus, np.ones((1, corpus.n_segments)), beta, k).items()}


@dataclass(frozen=True)
class Bootstrap:
    """Resampled values (metric -> (B, S)) and, with segment-level human scores, their resampled
    system means (B, S)."""

    values: Mapping[str, np.ndarray]
    human: np.ndarray | None


def bootstrap(corpus: Corpus, resamples: int, seed: int, beta: float, k: float,
              human: np.ndarray | None = None, progress: Progress = SILENT) -> Bootstrap:
    """``resamples`` paired bootstrap resamples of every metric (and of the human means)."""
    n = corpus.n_segments
    rng = np.random.default_rng(seed)
    rows = max(1, BLOCK // max(n, 1))
    parts: list[dict[str, np.ndarray]] = []
    human_parts = []
    with progress.task("bootstrap over segments", total=resamples) as advance:
        for start in range(0, resamples, rows):
            size = min(rows, resamples - start)
            index = rng.choice(n, size=(size, n), replace=True)
            offsets = (np.arange(size) * n)[:, None]
            weights = np.bincount((index + offsets).ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
            parts.append(scores(corpus, weights, beta, k))
            if human is not None:
                human_parts.append(resampled_means(weights, human))
            advance(size)
    values = {metric: np.concatenate([part[metric] for part in parts]) for metric in METRICS}
    return Bootstrap(values, np.concatenate(human_parts) if human_parts else None)


def resampled_means(weights: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Mean rated score per system under each weight row; NaN (unrated) segments left out."""
    rated = ~np.isnan(segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ np.where(rated, segments, 0.0)) / (weights @ rated.astype(np.float64))


def paired_bootstrap_p(resampled: np.ndarray, observed: np.ndarray, a: int, b: int) -> float:
    """sacrebleu's ``paired_bs`` p-value of systems ``a`` and ``b`` from resampled values (B, S)."""
    defined = ~np.isnan(resampled[:, a]) & ~np.isnan(resampled[:, b])
    if not defined.any() or np.isnan(observed[a]) or np.isnan(observed[b]):
        return float("nan")
    diffs = np.abs(resampled[defined, a] - resampled[defined, b])
    delta = abs(observed[a] - observed[b])
    hits = np.count_nonzero(diffs - diffs.mean() >= delta - _TOLERANCE * max(1.0, delta))
    return (hits + 1) / (diffs.size + 1)


def _pair_metrics(corpus: Corpus, a: str, b: str, mask: np.ndarray, beta: float,
                  k: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every metric of the shuffled pseudo-systems a*, b* (each row of ``mask`` takes a's output
    where True, b's where False, for a*; b* gets the rest)."""
    ca, cb = corpus.counts[a], corpus.counts[b]
    reference = np.asarray(corpus.reference.sum(axis=0)).ravel()
    varying = np.flatnonzero(np.asarray(abs(ca.match - cb.match).sum(axis=0)).ravel()
                             + np.asarray(abs(ca.predicted - cb.predicted).sum(axis=0)).ravel())
    mask = mask.astype(np.float64)
    shuffled: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    total_m = [np.asarray(x.sum(axis=0)).ravel() for x in (ca.match, cb.match, ca.predicted, cb.predicted)]
    dm = (ca.match - cb.match)[:, varying]
    dp = (ca.predicted - cb.predicted)[:, varying]
    match_a = total_m[1][varying] + _sum(mask, dm)
    pred_a = total_m[3][varying] + _sum(mask, dp)
    match_b = total_m[0][varying] + total_m[1][varying] - match_a
    pred_b = total_m[2][varying] + total_m[3][varying] - pred_a
    fixed = np.setdiff1d(np.arange(reference.size), varying)
    shuffled.update(_f_with_fixed(match_a, pred_a, match_b, pred_b, reference, varying, fixed, total_m, beta, k))
    for metric, stats, score in (("bleu", corpus.bleu, bleu_from_statistics),
                                 ("chrf", corpus.chrf, chrf_from_statistics)):
        diff = stats[a] - stats[b]
        sa = stats[b].sum(axis=0) + mask @ diff
        sb = stats[a].sum(axis=0) + stats[b].sum(axis=0) - sa
        shuffled[metric] = (score(sa), score(sb))
    return shuffled


def _f_with_fixed(match_a, pred_a, match_b, pred_b, reference, varying, fixed, totals, beta, k):
    """MacroF/MicroF of a* and b*: the types whose counts the swaps change are evaluated per round,
    the others once (their contribution is the same in every round; a's and b's agree on them)."""
    out = {}
    match_fixed, pred_fixed, ref_fixed = totals[0][fixed], totals[2][fixed], reference[fixed]
    fixed_f = np.asarray(macro_parts(match_fixed, pred_fixed, ref_fixed, beta, k))
    for side, (match, pred) in enumerate(((match_a, pred_a), (match_b, pred_b))):
        parts = np.asarray(macro_parts(match, pred, reference[varying], beta, k))
        total = parts + fixed_f[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            macro = np.where(total[0] > 0, total[1] / total[0], np.nan)
            micro = np.where(total[0] > 0, total[3] / total[2], np.nan)
        out.setdefault("macrof", [None, None])[side] = macro
        out.setdefault("microf", [None, None])[side] = micro
    return {metric: tuple(pair) for metric, pair in out.items()}


def macro_parts(match, pred, ref, beta, k):
    """(|V|, Σ_V F, Σ_V f, Σ_V f F) over the last axis: the sums MacroF and MicroF divide."""
    f = type_f(match, pred, ref, beta)
    in_v = (pred > 0) | (ref > 0)
    weight = np.where(in_v, ref + k, 0.0)
    return in_v.sum(axis=-1), np.where(in_v, f, 0.0).sum(axis=-1), weight.sum(axis=-1), (weight * f).sum(axis=-1)


def randomisation_p(shuffled: tuple[np.ndarray, np.ndarray], observed: np.ndarray, a: int, b: int) -> float:
    """Approximate-randomisation p-value from the shuffled pseudo-systems' values."""
    if np.isnan(observed[a]) or np.isnan(observed[b]):
        return float("nan")
    diffs = np.abs(shuffled[0] - shuffled[1])
    diffs = diffs[~np.isnan(diffs)]
    delta = abs(observed[a] - observed[b])
    hits = np.count_nonzero(diffs >= delta - _TOLERANCE * max(1.0, delta))
    return (hits + 1) / (diffs.size + 1)


@dataclass(frozen=True)
class PairTest:
    a: str
    b: str
    metric: str
    method: str
    difference: float
    p: float
    p_adjusted: float = float("nan")


def paired_tests(corpus: Corpus, observed: Mapping[str, np.ndarray], resampled: Bootstrap | None, rounds: int,
                 seed: int, beta: float, k: float, pairs: Sequence[tuple[int, int]],
                 adjust: Callable[[np.ndarray], np.ndarray], progress: Progress = SILENT) -> list[PairTest]:
    """Approximate randomisation (and, with the bootstrap, the paired bootstrap test) for every
    pair and metric; p adjusted over each (metric, method) family with ``adjust``."""
    mask = np.random.default_rng(seed).integers(2, size=(rounds, corpus.n_segments), dtype=bool)
    tests: list[PairTest] = []
    names = corpus.systems
    with progress.task("paired tests", total=len(pairs)) as advance:
        for a, b in pairs:
            shuffled = _pair_metrics(corpus, names[a], names[b], mask, beta, k)
            for metric in METRICS:
                difference = float(observed[metric][a] - observed[metric][b])
                tests.append(PairTest(names[a], names[b], metric, "approximate_randomisation", difference,
                                      randomisation_p(shuffled[metric], observed[metric], a, b)))
                if resampled is not None:
                    tests.append(PairTest(names[a], names[b], metric, "paired_bootstrap", difference,
                                          paired_bootstrap_p(resampled.values[metric], observed[metric], a, b)))
            advance(1)
    return _adjusted(tests, adjust)


def _adjusted(tests: list[PairTest], adjust: Callable[[np.ndarray], np.ndarray]) -> list[PairTest]:
    out = list(tests)
    for family in {(t.metric, t.method) for t in tests}:
        members = [i for i, t in enumerate(tests) if (t.metric, t.method) == family]
        adjusted = adjust(np.array([tests[i].p for i in members]))
        for i, value in zip(members, adjusted):
            t = tests[i]
            out[i] = PairTest(t.a, t.b, t.metric, t.method, t.difference, t.p, float(value))
    return out
