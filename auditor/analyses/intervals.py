r"""Intervals from resamples and leave-one-out values, for any task's units: BCa and the jackknife normal interval.

* **BCa** (bias-corrected and accelerated; Efron & Tibshirani 1993, sections 14.3 and 15.4, as
  ``scipy.stats.bootstrap(method='BCa')`` computes it; tests/test_translation_intervals.py compares the two): bias
  correction :math:`\hat z_0 = \Phi^{-1}\big((\#\{\theta^*_b < \hat\theta\} + \#\{\theta^*_b \le \hat\theta\}) /
  2B\big)`; acceleration :math:`\hat a = \sum_i d_i^3 / \big(6 (\sum_i d_i^2)^{3/2}\big)`, :math:`d_i =
  \bar\theta_{(\cdot)} - \hat\theta_{(i)}`, from the jackknife over units (:math:`\hat\theta_{(i)}`: the figure
  without unit i); interval :math:`[\theta^*_{(\alpha_1)}, \theta^*_{(\alpha_2)}]` (linear quantiles),
  :math:`\alpha_{1,2} = \Phi\big(\hat z_0 + (\hat z_0 + z_{\alpha/2, 1-\alpha/2}) / (1 - \hat a(\hat z_0 +
  z_{\alpha/2, 1-\alpha/2}))\big)`. Where :math:`\hat\theta` lies outside every resample
  (:math:`\hat z_0 = \pm\infty`) the levels are not finite and the percentile interval is given.
* **Jackknife normal**: :math:`\hat\theta \pm z_{1-\alpha/2}\,\widehat{se}_J`,
  :math:`\widehat{se}_J = \big(\tfrac{n-1}{n}\sum_i (\hat\theta_{(i)} - \hat\theta_{(\cdot)})^2\big)^{1/2}`,
  Tukey's jackknife estimate over units, whose variance Efron & Stein (1981) show tends always to be biased upwards.

The units are those of the resamples (:mod:`auditor.analyses.units`): leaving out a cluster's row when the units
are clusters. :func:`intervals_by_method` gives each metric the interval its task names (translation: BCa for BLEU
and chrF, the jackknife normal interval for type-level F) with BCa's and the jackknife's figures for every metric.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from scipy.special import ndtr, ndtri


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


def jackknife_se(left_out: np.ndarray) -> np.ndarray:
    """Tukey's jackknife standard error (S,) from leave-one-out values (N, S): sqrt((n − 1)/n Σ (θ_(i) − θ_(·))²),
    n the defined values; NaN where fewer than two are defined."""
    n = np.count_nonzero(~np.isnan(left_out), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = left_out - np.nanmean(left_out, axis=0)
        return np.where(n > 1, np.sqrt((n - 1) / np.maximum(n, 1) * np.nansum(centred ** 2, axis=0)), np.nan)


def jackknife_intervals(left_out: np.ndarray, observed: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(θ̂ ± z_{1−α/2} se_J (S, 2), se_J (S,)); NaN where θ̂ or se_J is."""
    se = jackknife_se(left_out)
    half = ndtri(1 - alpha / 2) * se
    return np.stack([observed - half, observed + half], axis=1), se


def resample_means(resampled: np.ndarray) -> np.ndarray:
    """Mean of the defined resamples of each system (S,); NaN where none is."""
    defined = ~np.isnan(resampled)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined.any(axis=0), np.nansum(resampled, axis=0) / defined.sum(axis=0), np.nan)


#: The figures :func:`intervals_by_method` reports for every metric and system beside the interval.
DETAILS = ("z0", "acceleration", "percentile_fallback", "resample_mean", "jackknife_se")


def intervals_by_method(resampled: Mapping[str, np.ndarray], observed: Mapping[str, np.ndarray],
                        left_out: Mapping[str, np.ndarray], alpha: float,
                        methods: Mapping[str, str]) -> dict[str, dict[str, np.ndarray]]:
    """metric -> {"interval" (S, 2), and (S,) each of :data:`DETAILS`}: the interval by ``methods[metric]`` (``bca``
    or ``jackknife_normal``) from the metric's resampled values (B, S), values (S,) and leave-one-unit-out values
    (N, S); ``percentile_fallback`` only where a BCa interval fell back."""
    out = {}
    for metric, method in methods.items():
        bca, z0, a, fallback = bca_intervals(resampled[metric], observed[metric], left_out[metric], alpha)
        normal, se = jackknife_intervals(left_out[metric], observed[metric], alpha)
        out[metric] = {"interval": bca if method == "bca" else normal, "z0": z0, "acceleration": a,
                       "percentile_fallback": fallback & (method == "bca"),
                       "resample_mean": resample_means(resampled[metric]), "jackknife_se": se}
    return out


def details_json(details: Mapping[str, Mapping[str, np.ndarray]],
                 systems: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """metric -> system -> :data:`DETAILS` of :func:`intervals_by_method` (JSON has no infinity: ±inf as the strings
    "inf"/"-inf", NaN as null)."""
    def finite(x: float) -> float | str | None:
        return None if np.isnan(x) else ("inf" if x > 0 else "-inf") if np.isinf(x) else float(x)

    return {metric: {system: {key: bool(row[key][i]) if key == "percentile_fallback" else finite(row[key][i])
                              for key in DETAILS} for i, system in enumerate(systems)}
            for metric, row in details.items()}
