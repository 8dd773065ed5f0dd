"""Metrics with a parameter of the audit: informedness at the training prevalence.

Stage "score". A parameterised metric is built per audit (``--training-prevalence``) rather
than registered once; it is scored, bootstrapped and probed like a catalogue metric.
"""
from __future__ import annotations

import numpy as np

from auditor.metrics.registry import ConfusionStats, Metric, Properties, ratio


def informedness_at(training_prevalence: np.ndarray) -> Metric:
    r"""Informedness with the training class distribution π in the bookmaker's odds (Vickers et al.).

    Vickers et al., Limitations: informedness "assumes that the distribution of classes in the
    training and test set are identical. This assumption is used to determine the loss and gain
    for a particular class"; their implementation takes the training distribution instead. In
    their Eq. 4 a bet on class c (a prediction ŷ = c) gains 1/p(y=c) when the item is c and
    loses 1/(1 − p(y=c)) otherwise; Eq. 5 weights class c's bets by p(ŷ = c). With π replacing
    the gold prevalence p in those odds:

    .. math:: \mathrm{BM}_\pi = \sum_c b_c\Big(\frac{C_{cc}}{N\,\pi_c}
              - \frac{\sum_i C_{ic} - C_{cc}}{N\,(1-\pi_c)}\Big)

    At π = p it is informedness (Σ_c b_c (R_c − FPR_c)). For π ≠ p a classifier that ignores
    its input scores Σ_c q_c² (p_c − π_c) / (π_c (1 − π_c)), not 0 — the Limitations' own
    warning that 'guess the most common' may score other than zero. Range
    [−max_c 1/(1 − π_c), max_c 1/π_c]. Undefined (0/0 odds) when a class with π_c = 0 is
    predicted correctly or one with π_c = 1 is predicted wrongly.
    """
    weights = np.asarray(training_prevalence, dtype=float)
    weights = weights / weights.sum()

    def function(s: ConfusionStats) -> np.ndarray:
        n = s.n[..., None]
        gain, gain_undefined = ratio(s.diag, n * weights)
        loss, loss_undefined = ratio(s.col - s.diag, n * (1 - weights))
        undefined = (gain_undefined & (s.diag > 0)) | (loss_undefined & (s.col - s.diag > 0))
        value = (s.bias * (gain - loss)).sum(axis=-1)
        return np.where(undefined.any(axis=-1), np.nan, value)

    with np.errstate(divide="ignore"):
        low = -float(np.max(1 / (1 - weights))) if np.all(weights < 1) else -np.inf
        high = float(np.max(1 / weights[weights > 0]))
    return Metric(
        id="informedness_train", short="BM_π", name="Informedness with the training prevalence in the odds",
        function=function, range=(low, high), classes=len(weights),
        formula=r"\mathrm{BM}_\pi = \sum_c b_c\Big(\frac{C_{cc}}{N\,\pi_c} - "
                r"\frac{\sum_i C_{ic} - C_{cc}}{N\,(1-\pi_c)}\Big)",
        chance="Σ_c q_c² (p_c − π_c)/(π_c(1 − π_c)) for a classifier with bias q that ignores its input: 0 only "
               "when the test prevalence p equals the training prevalence π",
        references=("Vickers et al. 2023, Limitations and Eq. 4–5", "Powers 2003"),
        undefined_when="a class with training share 0 is predicted correctly, or one with share 1 wrongly "
                       "(infinite odds)",
        properties=Properties(monotonicity=False, class_sensitivity=True, decomposability=False,
                              prevalence_invariance=False, chance_correction="none",
                              source="derived (Vickers et al., Limitations; not in Opitz 2024, Table 5): it is "
                                     "informedness at π = p; otherwise the test prevalence no longer cancels, so "
                                     "chance classifiers score ≠ 0 and rescaling gold rows moves the score"),
        family="parameterised",
    )
