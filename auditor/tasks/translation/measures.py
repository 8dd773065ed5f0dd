r"""Translation metrics as vectorised functions of summed counts (leading batch axes allowed).

* **MacroF_β / MicroF_β** (Gowda, You, Lignos & May 2021, NAACL; the poster's "Methods" panel):
  per unigram type c, :math:`P_c = Match(c)/Preds(c)` (1 when Preds = 0),
  :math:`R_c = Match(c)/Refs(c)` (1 when Refs = 0),
  :math:`F_{\beta;c} = (1+\beta^2) P_c R_c / (\beta^2 P_c + R_c)` (0 when P = R = 0; the poster
  prints :math:`(1+\beta)^2`, the paper and the authors' code :math:`1+\beta^2`, which is F1 at β = 1);
  :math:`MacroF_\beta = \frac{1}{|V|}\sum_{c\in V} F_{\beta;c}` over V, the types seen in the
  hypotheses or the references; :math:`MicroF_\beta = \sum_c f(c) F_{\beta;c} / \sum_c f(c)` with
  :math:`f(c) = Refs(c) + k`, k ≥ 1. Undefined when V is empty (no token on either side).
* **BLEU** and **chrF** from sacrebleu's per-segment
  statistics summed, with sacrebleu's defaults (BLEU: 4-grams, ``exp`` smoothing, no effective
  order; chrF: character 6-grams, β = 2), written as array code line by line from sacrebleu's
  ``BLEU.compute_bleu`` and ``CHRF._compute_f_score`` (sacrebleu 2.x) so that a batch of resamples
  is scored at once; tests check them against sacrebleu's own functions.

Values are fractions (sacrebleu's 0–100 divided by 100).
"""
from __future__ import annotations

import numpy as np

#: sacrebleu's floor of log(0) (``sacrebleu.utils.my_log``).
LOG_FLOOR = -9999999999.0
#: chrF's epsilon for an undefined precision or recall (``CHRF._compute_f_score``).
CHRF_EPS = 1e-16


def f_terms(match: np.ndarray, predicted: np.ndarray, reference: np.ndarray,
            beta: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Per type (last axis): [c ∈ V], F_β;c and Refs(c)·F_β;c, the one F of every figure (the test set's, a
    resample's, a swap's, one segment's, a frequency band's).

    On V, :math:`F = (1+\beta^2) P R / (\beta^2 P + R)` with P = M/Preds, R = M/Refs equals
    :math:`(1+\beta^2)\,Match / (\beta^2 Refs + Preds)`; the conventions P = 1 at Preds = 0 and R = 1 at Refs = 0
    give F = 0 = M there, and the denominator is positive exactly on V: three array operations.
    """
    b2 = beta * beta
    denominator = b2 * reference + predicted
    in_v = denominator > 0
    f = np.divide((1 + b2) * match, denominator, out=np.zeros(np.broadcast(match, denominator).shape), where=in_v)
    return in_v, f, reference * f


def from_terms(size, f_total, weighted_total, reference_total, k: float) -> tuple[np.ndarray, np.ndarray]:
    """(MacroF, MicroF) from Σ[c ∈ V], Σ F_c, Σ Refs(c)·F_c and Σ Refs(c) (:func:`f_terms` summed over types): f(c)
    = Refs(c) + k on V, and Refs(c) > 0 only on V, so Σ_V f = Σ Refs + k|V| and Σ_V f F = Σ Refs F + k Σ F."""
    return from_sums(size, f_total, reference_total + k * np.asarray(size), weighted_total + k * np.asarray(f_total))


def macro_micro_f(match: np.ndarray, predicted: np.ndarray, reference: np.ndarray, beta: float = 1.0,
                  k: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(MacroF_β, MicroF_β) over the last axis (types); NaN where V is empty."""
    in_v, f, weighted = f_terms(match, predicted, reference, beta)
    return from_terms(in_v.sum(axis=-1), f.sum(axis=-1), weighted.sum(axis=-1),
                      np.broadcast_to(reference, f.shape).sum(axis=-1), k)


def from_sums(size, f_total, weight_total, weighted_f) -> tuple[np.ndarray, np.ndarray]:
    """(MacroF, MicroF) = (Σ F / |V|, Σ f F / Σ f); NaN where V is empty."""
    size = np.asarray(size)
    with np.errstate(divide="ignore", invalid="ignore"):
        macro = np.where(size > 0, f_total / np.where(size > 0, size, 1), np.nan)
        micro = np.where(size > 0, weighted_f / np.where(size > 0, weight_total, 1), np.nan)
    return macro, micro


def bleu_from_statistics(stats: np.ndarray, order: int = 4, effective_order: bool = False) -> np.ndarray:
    """Corpus BLEU (fraction) from summed statistics ``[..., hyp_len, ref_len, correct_1..n, total_1..n]``,
    as ``sacrebleu.BLEU.compute_bleu(smooth_method='exp', effective_order=False)``; with ``effective_order`` the
    mean of the log precisions runs over the orders the hypothesis has n-grams of, as one segment's sentence BLEU
    (``sacrebleu.BLEU(effective_order=True).sentence_score``, what ``sacrebleu.sentence_bleu`` gives)."""
    stats = np.asarray(stats, dtype=np.float64)
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct, total = stats[..., 2:2 + order], stats[..., 2 + order:2 + 2 * order]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / sys_len), 0.0), 1.0)
        # orders from the first with total 0 on keep precision 0 (sacrebleu's loop breaks there)
        reached = np.cumprod(total > 0, axis=-1).astype(bool)
        zero = reached & (correct == 0)
        smooth = 2.0 ** np.cumsum(zero, axis=-1)  # 'exp' smoothing: 1/2, 1/4, ... of one match
        precision = np.where(reached, np.where(zero, 100.0 / (smooth * total), 100.0 * correct / total), 0.0)
        logs = np.where(precision > 0, np.log(np.where(precision > 0, precision, 1.0)), LOG_FLOOR)
        orders = order
        if effective_order:  # the orders not reached leave the mean
            logs, orders = np.where(reached, logs, 0.0), np.maximum(reached.sum(axis=-1), 1)
        score = bp * np.exp(logs.sum(axis=-1) / orders)
    return np.where(correct.sum(axis=-1) > 0, score, 0.0) / 100.0


def chrf_from_statistics(stats: np.ndarray, beta: float = 2.0) -> np.ndarray:
    """Corpus chrF (fraction) from summed ``[..., (hyp, ref, match) per order]``, as
    ``sacrebleu.CHRF._compute_f_score`` (effective-order averaging, no eps smoothing)."""
    stats = np.asarray(stats, dtype=np.float64)
    shaped = stats.reshape(*stats.shape[:-1], -1, 3)
    hyp, ref, match = shaped[..., 0], shaped[..., 1], shaped[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(hyp > 0, match / hyp, CHRF_EPS)
        recall = np.where(ref > 0, match / ref, CHRF_EPS)
        effective = (hyp > 0) & (ref > 0)
        count = effective.sum(axis=-1)
        avg_p = np.where(count > 0, np.where(effective, precision, 0.0).sum(axis=-1) / count, 0.0)
        avg_r = np.where(count > 0, np.where(effective, recall, 0.0).sum(axis=-1) / count, 0.0)
        factor = beta * beta
        score = (1 + factor) * avg_p * avg_r / (factor * avg_p + avg_r)
    return np.where(avg_p + avg_r > 0, score, 0.0)
