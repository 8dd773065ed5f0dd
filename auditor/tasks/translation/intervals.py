r"""Intervals of the translation metrics over segments (or clusters of them): BCa for BLEU and chrF, a jackknife
normal interval for MacroF and MicroF (:data:`METHODS`, computed by the spine's
:func:`auditor.analyses.intervals.intervals_by_method`), from the leave-one-segment-out values this module computes
(:func:`jackknife`: the counts minus one segment's, with only that segment's types recomputed).

Why not the bootstrap for MacroF and MicroF: type-level F is not a sum over segments, and a resample that repeats
segments holds about 63% of the distinct ones, so it loses the rare types seen only in the others (mostly of low
F): the resamples stray from :math:`\hat\theta` and spread too little (WMT21 TED, Online-W's MacroF: bootstrap SD
0.71 points ×100 against a jackknife SE of 0.97). Leaving one segment out keeps every other segment once. On WMT21
TED the BCa correction for MicroF is :math:`\hat z_0` from −2.0 to −2.6, and with :math:`\hat a \approx 0` BCa's
upper level :math:`\Phi(2\hat z_0 + z_{1-\alpha/2})` lies below :math:`\Phi(\hat z_0)`, the level of the value
itself: that interval excludes the value by construction. A simulation test (tests/test_translation_intervals.py)
measures the coverage of the mean of the metric over test sets of the same size. BCa's :math:`\hat z_0` and
:math:`\hat a` and the resamples' mean are reported for these metrics too.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse

from auditor.tasks.translation.counting import Corpus, flat_sum
from auditor.tasks.translation.measures import bleu_from_statistics, chrf_from_statistics, f_terms, from_terms
from auditor.tasks.translation.names import METRICS


def _aligned(matrix: scipy.sparse.spmatrix, pattern: scipy.sparse.csr_matrix) -> np.ndarray:
    """``matrix``'s values at ``pattern``'s stored entries (its non-zeros lie within the pattern)."""
    coo = matrix.tocoo()
    stored = coo.data != 0  # an explicit zero may lie outside the pattern
    coo = scipy.sparse.coo_matrix((coo.data[stored], (coo.row[stored], coo.col[stored])), shape=coo.shape)
    width = pattern.shape[1]
    rows = np.repeat(np.arange(pattern.shape[0]), np.diff(pattern.indptr))
    keys = rows * width + pattern.indices
    out = np.zeros(pattern.nnz)
    out[np.searchsorted(keys, coo.row.astype(np.int64) * width + coo.col)] = coo.data
    return out


def type_jackknife(corpus: Corpus, name: str, beta: float, k: float) -> tuple[np.ndarray, np.ndarray]:
    """(MacroF, MicroF) of system ``name`` without each segment (N,): the summed counts minus the
    segment's, with the terms of only the types that segment holds recomputed."""
    counts = corpus.counts[name]
    pattern = (counts.predicted + corpus.reference).tocsr()
    pattern.sum_duplicates()
    pattern.sort_indices()
    rows = np.repeat(np.arange(pattern.shape[0]), np.diff(pattern.indptr))
    cols = pattern.indices
    match, predicted, reference = counts.totals(corpus.reference)
    before = f_terms(match, predicted, reference, beta)
    after = f_terms(match[cols] - _aligned(counts.match, pattern),
                    predicted[cols] - _aligned(counts.predicted, pattern),
                    reference[cols] - _aligned(corpus.reference, pattern), beta)
    n = corpus.n_segments
    sums = [total.sum() + np.bincount(rows, new.astype(np.float64) - old[cols], n)
            for total, new, old in zip(before, after, before)]
    reference_total = reference.sum() - flat_sum(corpus.reference, 1)
    return from_terms(sums[0], sums[1], sums[2], reference_total, k)


def jackknife(corpus: Corpus, beta: float, k: float) -> dict[str, np.ndarray]:
    """metric -> (N, S): every metric of every system without each segment."""
    out = {metric: np.empty((corpus.n_segments, len(corpus.systems))) for metric in METRICS}
    for s, name in enumerate(corpus.systems):
        out["macrof"][:, s], out["microf"][:, s] = type_jackknife(corpus, name, beta, k)
        out["bleu"][:, s] = bleu_from_statistics(corpus.bleu[name].sum(axis=0) - corpus.bleu[name])
        out["chrf"][:, s] = chrf_from_statistics(corpus.chrf[name].sum(axis=0) - corpus.chrf[name])
    return out


#: The interval of each metric (see the module docstring for why type-level F is not the bootstrap's).
METHODS = {"macrof": "jackknife_normal", "microf": "jackknife_normal", "bleu": "bca", "chrf": "bca"}

