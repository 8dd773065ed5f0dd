r"""Bootstrap intervals of the translation metrics over segments: BCa for BLEU and chrF, a
bias-removed percentile interval for MacroF and MicroF.

* **BCa** (bias-corrected and accelerated; Efron & Tibshirani 1993, sections 14.3 and 15.4, as
  ``scipy.stats.bootstrap(method='BCa')`` computes it; the tests compare the two): bias correction
  :math:`\hat z_0 = \Phi^{-1}\big((\#\{\theta^*_b < \hat\theta\} + \#\{\theta^*_b \le \hat\theta\}) / 2B\big)`;
  acceleration :math:`\hat a = \sum_i d_i^3 / \big(6 (\sum_i d_i^2)^{3/2}\big)`, :math:`d_i =
  \bar\theta_{(\cdot)} - \hat\theta_{(i)}`, from the jackknife over segments (:math:`\hat\theta_{(i)}`:
  the metric without segment i, from the counts minus that segment's); interval
  :math:`[\theta^*_{(\alpha_1)}, \theta^*_{(\alpha_2)}]` (linear quantiles),
  :math:`\alpha_{1,2} = \Phi\big(\hat z_0 + (\hat z_0 + z_{\alpha/2, 1-\alpha/2}) / (1 - \hat a(\hat z_0 +
  z_{\alpha/2, 1-\alpha/2}))\big)`. Where :math:`\hat\theta` lies outside every resample
  (:math:`\hat z_0 = \pm\infty`) the levels are not finite and the percentile interval is given.
* **Bias-removed percentile** for MacroF and MicroF: :math:`[\hat\theta + q_{\alpha/2} - \bar\theta^*,
  \hat\theta + q_{1-\alpha/2} - \bar\theta^*]`, the percentile interval shifted by the bootstrap bias
  estimate :math:`\bar\theta^* - \hat\theta` (Efron & Tibshirani 1993, ch. 10). Why not BCa: BCa's bias
  correction presumes that the resamples stray from :math:`\hat\theta` as :math:`\hat\theta` strays from
  the metric's value. For type-level F the shift is an artefact of drawing with replacement: a
  resample holds about 63% of the distinct segments, so it loses the rare types seen only in the
  others (mostly of low F) and scores higher. On WMT21 TED the shift is 2.0–2.6 bootstrap standard
  errors for MicroF (:math:`\hat z_0` from −2.0 to −2.6), and with :math:`\hat a \approx 0` BCa's upper level
  :math:`\Phi(2\hat z_0 + z_{1-\alpha/2})` then lies below :math:`\Phi(\hat z_0)`, the level of the value
  itself: the interval excludes the value by construction, as the percentile one did. The
  bias-removed interval keeps the resamples' spread and centres it on the value. BCa's
  :math:`\hat z_0` and :math:`\hat a` are reported for these metrics too.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import scipy.sparse
from scipy.special import ndtr, ndtri

from auditor.tasks.translation.counting import Corpus
from auditor.tasks.translation.measures import bleu_from_statistics, chrf_from_statistics, f_terms, from_terms
from auditor.tasks.translation.names import METRICS


def bca_levels(resampled: np.ndarray, observed: np.ndarray, jackknife: np.ndarray,
               alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(z0, a, levels (S, 2)) from resampled values (B, S), the values (S,) and jackknife values (N, S);
    NaN resamples and jackknife values left out."""
    defined = ~np.isnan(resampled)
    below = np.count_nonzero(defined & (resampled < observed), axis=0)
    at_most = np.count_nonzero(defined & (resampled <= observed), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = ndtri((below + at_most) / (2.0 * defined.sum(axis=0)))
        d = np.nanmean(jackknife, axis=0) - jackknife
        a = np.nansum(d ** 3, axis=0) / (6.0 * np.nansum(d ** 2, axis=0) ** 1.5)
        a = np.where(np.isfinite(a), a, 0.0)  # no jackknife spread: no acceleration
        z = ndtri(np.array([alpha / 2, 1 - alpha / 2]))
        num = z0[:, None] + z[None, :]
        levels = ndtr(z0[:, None] + num / (1 - a[:, None] * num))
    return z0, a, levels


def bca_intervals(resampled: np.ndarray, observed: np.ndarray, jackknife: np.ndarray,
                  alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(intervals (S, 2), z0, a, fallback (S,) bool): BCa, or the percentile interval where its levels are
    not finite; NaN where no resample is defined."""
    z0, a, levels = bca_levels(resampled, observed, jackknife, alpha)
    fallback = ~np.isfinite(levels).all(axis=1)
    levels[fallback] = (alpha / 2, 1 - alpha / 2)
    out = np.full((resampled.shape[1], 2), np.nan)
    for s in range(resampled.shape[1]):  # systems (a handful), not items
        values = resampled[:, s][~np.isnan(resampled[:, s])]
        if values.size and not np.isnan(observed[s]):
            out[s] = np.quantile(values, levels[s])
    return out, z0, a, fallback & ~np.isnan(observed)


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
    after = f_terms(match[cols] - _aligned(counts.match, pattern), predicted[cols] - _aligned(counts.predicted, pattern),
                    reference[cols] - _aligned(corpus.reference, pattern), beta)
    n = corpus.n_segments
    sums = [total.sum() + np.bincount(rows, new.astype(np.float64) - old[cols], n)
            for total, new, old in zip(before, after, before)]
    reference_total = reference.sum() - np.asarray(corpus.reference.sum(axis=1)).ravel()
    return from_terms(sums[0], sums[1], sums[2], reference_total, k)


def jackknife(corpus: Corpus, beta: float, k: float) -> dict[str, np.ndarray]:
    """metric -> (N, S): every metric of every system without each segment."""
    out = {metric: np.empty((corpus.n_segments, len(corpus.systems))) for metric in METRICS}
    for s, name in enumerate(corpus.systems):
        out["macrof"][:, s], out["microf"][:, s] = type_jackknife(corpus, name, beta, k)
        out["bleu"][:, s] = bleu_from_statistics(corpus.bleu[name].sum(axis=0) - corpus.bleu[name])
        out["chrf"][:, s] = chrf_from_statistics(corpus.chrf[name].sum(axis=0) - corpus.chrf[name])
    return out


#: The interval of each metric (see the module docstring for why type-level F is not BCa).
METHODS = {"macrof": "bias_removed_percentile", "microf": "bias_removed_percentile", "bleu": "bca", "chrf": "bca"}


def bias_removed_intervals(resampled: np.ndarray, observed: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """([θ̂ + q_{α/2} − mean θ*, θ̂ + q_{1−α/2} − mean θ*] (S, 2), mean θ* (S,)); NaN resamples left out."""
    mean = np.full(resampled.shape[1], np.nan)
    out = np.full((resampled.shape[1], 2), np.nan)
    for s in range(resampled.shape[1]):  # systems (a handful), not items
        values = resampled[:, s][~np.isnan(resampled[:, s])]
        if values.size and not np.isnan(observed[s]):
            mean[s] = values.mean()
            out[s] = observed[s] + np.quantile(values, [alpha / 2, 1 - alpha / 2]) - mean[s]
    return out, mean


def intervals(corpus: Corpus, observed: Mapping[str, np.ndarray], resampled: Mapping[str, np.ndarray], alpha: float,
              beta: float, k: float) -> dict[str, dict[str, np.ndarray]]:
    """metric -> {"interval" (S, 2), "z0", "acceleration", "percentile_fallback", "resample_mean" (S,)}, the
    interval by :data:`METHODS`."""
    left_out = jackknife(corpus, beta, k)
    out = {}
    for m in METRICS:
        bca, z0, a, fallback = bca_intervals(resampled[m], observed[m], left_out[m], alpha)
        removed, mean = bias_removed_intervals(resampled[m], observed[m], alpha)
        use_bca = METHODS[m] == "bca"
        out[m] = {"interval": bca if use_bca else removed, "z0": z0, "acceleration": a,
                  "percentile_fallback": fallback & use_bca, "resample_mean": mean}
    return out
