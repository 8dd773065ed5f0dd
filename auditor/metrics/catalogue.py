"""The metric catalogue: every metric of the catalogue as a vectorised function of counts.

Stage "score". Each function takes a :class:`~auditor.metrics.registry.ConfusionStats`
over a confusion tensor ``C[..., i, j]`` (rows gold, columns predicted, any leading batch
axes) and returns one value per batch entry, NaN where the metric is 0/0 as a whole.

Notation (docs/architecture.md, "Conventions"): N items, p_i = row_i/N (prevalence), b_j = col_j/N (bias),
R_i = C_ii/row_i, P_i = C_ii/col_i, F1_i = 2C_ii/(row_i + col_i),
FPR_i = (col_i − C_ii)/(N − row_i), NPV_i = (N − row_i − col_i + C_ii)/(N − col_i),
k = number of labels averaged over (labels in gold or predicted, scikit-learn's default).

References
----------
Opitz (2024) "A Closer Look at Classification Evaluation Metrics and a Critical Reflection of
Common Evaluation Practice", TACL 12. Cohen (1960) Educ. Psychol. Meas. 20(1). Gorodkin (2004)
Comput. Biol. Chem. 28(5). Powers (2003) "Recall and Precision versus the Bookmaker", ICCS;
Powers (2011) J. Mach. Learn. Technol. 2(1). Valverde-Albacete & Peláez-Moreno (2014)
PLoS ONE 9(1) e84217. Vickers, Barrault, Monti & Aletras (2023) "We Need to Talk About
Classification Evaluation Metrics in NLP", IJCNLP-AACL 2023.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from auditor.metrics.registry import (
    REGISTRY,
    UNDEFINED_REASONS,
    ConfusionStats,
    Metric,
    Properties,
    ratio,
    register,
    sum_last,
)

OPITZ = "Opitz 2024"
PER_CLASS_CONVENTION = (
    "counted as 0 in the average, as scikit-learn's zero_division=0 does"
)
MACRO_F1_AMBIGUITY = (
    "ambiguous: papers use this name both for the mean of class F1 (macro_f1, scikit-learn's "
    "average='macro') and for the F1 of macro P and macro R (macro_f1_hm, F1′); resolved to "
    "macro_f1 (Opitz 2024 §4.5: the two 'can diverge to a large degree of up to 0.5')"
)
BALANCED_ACCURACY_NOTE = (
    "resolved to macro_recall; scikit-learn's balanced_accuracy_score averages recall over the "
    "gold classes only, so the two differ when a system predicts a label absent from gold "
    "(balanced_accuracy_score then equals accuracy_calibrated)"
)
NO_INFORMATION_CONVENTION = "the class's term counted as 0 (a class never or always chosen carries no information)"


# ----------------------------------------------------------------------------- functions


def _shared(s: ConfusionStats, key: str, make: Callable[[], Any]) -> Any:
    """``make()`` once per stats object: a value several metrics read (macro recall for F1′, accuracy for kappa)."""
    shared = s.__dict__.setdefault("_shared", {})
    if key not in shared:
        shared[key] = make()
    return shared[key]


def accuracy(s: ConfusionStats) -> np.ndarray:
    r"""Accuracy :math:`\sum_i C_{ii} / N` (= micro precision, recall and F1); NaN when N = 0."""
    n = np.asarray(s.n, dtype=float)
    return np.divide(sum_last(s.diag), n, out=np.full(np.shape(n), np.nan), where=n > 0)


def macro_recall(s: ConfusionStats) -> np.ndarray:
    r"""Macro recall (balanced accuracy) :math:`\frac1k\sum_i R_i` (Opitz §4.2)."""
    return _shared(s, "macro_recall", lambda: s.macro(s.recall))


def macro_precision(s: ConfusionStats) -> np.ndarray:
    r"""Macro precision :math:`\frac1k\sum_i P_i` (Opitz §4.3)."""
    return _shared(s, "macro_precision", lambda: s.macro(s.precision))


def macro_f1(s: ConfusionStats) -> np.ndarray:
    r"""Macro F1, the mean of class F1 :math:`\frac1k\sum_i F1_i` (Opitz §4.4)."""
    return s.macro(s.f1)


def macro_f1_hm(s: ConfusionStats) -> np.ndarray:
    r"""Macro F1′ :math:`2\,\mathrm{macP}\,\mathrm{macR}/(\mathrm{macP}+\mathrm{macR})` (Opitz §4.5).

    F1′ ≥ macro F1 (the harmonic mean is concave: Jensen's inequality); the two "can diverge to a
    large degree of up to 0.5" (Opitz 2024 §4.5, after Opitz & Burst 2019).
    """
    precision, recall = macro_precision(s), macro_recall(s)
    value, undefined = ratio(2 * precision * recall, precision + recall)
    return np.where(undefined, np.nan, value)


def weighted_f1(s: ConfusionStats) -> np.ndarray:
    r"""Weighted F1 :math:`\sum_i p_i F1_i` (Opitz §4.6; scikit-learn ``average='weighted'``)."""
    return sum_last(s.prevalence * s.f1)


def gmean_recall(s: ConfusionStats) -> np.ndarray:
    r"""Geometric-mean macro recall :math:`(\prod_i R_i)^{1/k}` (Opitz §5.1)."""
    positive, some_zero = _recall_parts(s)
    logs = sum_last(s.only_active(np.log(positive)))
    return np.where(some_zero, 0.0, np.exp(logs / np.maximum(s.k_active, 1)))


def hmean_recall(s: ConfusionStats) -> np.ndarray:
    r"""Harmonic-mean macro recall :math:`k / \sum_i R_i^{-1}` (Opitz §5.1); 0 if some R_i = 0."""
    positive, some_zero = _recall_parts(s)
    inverse = sum_last(s.only_active(1.0 / positive))
    return np.where(some_zero, 0.0, s.k_active / np.where(inverse > 0, inverse, 1.0))


def _recall_parts(s: ConfusionStats) -> tuple[np.ndarray, np.ndarray]:
    """R_i with 1 in place of 0, and whether some active label's R_i is 0 (per matrix): GmacR's and HmacR's."""
    def parts() -> tuple[np.ndarray, np.ndarray]:
        zero = s.recall == 0
        return np.where(s.recall > 0, s.recall, 1.0), (zero if s.every_label_active else s.active & zero).any(axis=-1)

    return _shared(s, "recall parts", parts)


def _agreement_terms(s: ConfusionStats) -> tuple[np.ndarray, np.ndarray]:
    """Observed agreement (accuracy) and chance agreement pᵀb."""
    return _shared(s, "agreement", lambda: (accuracy(s), sum_last(s.prevalence * s.bias)))


def kappa(s: ConfusionStats) -> np.ndarray:
    r"""Cohen's kappa :math:`(\mathrm{Acc} - p^\top b)/(1 - p^\top b)` (Cohen 1960)."""
    observed, expected = _agreement_terms(s)
    value, undefined = ratio(observed - expected, 1 - expected)
    return np.where(undefined, np.nan, value)


def mcc(s: ConfusionStats) -> np.ndarray:
    r"""Multi-class MCC :math:`(\mathrm{Acc} - p^\top b)/\sqrt{(1-p^\top p)(1-b^\top b)}` (Gorodkin 2004)."""
    observed, expected = _agreement_terms(s)
    gold_spread = 1 - sum_last(s.prevalence**2)
    prediction_spread = 1 - sum_last(s.bias**2)
    denominator = np.sqrt(np.clip(gold_spread * prediction_spread, 0.0, None))
    value, undefined = ratio(observed - expected, denominator)
    return np.where(undefined, np.nan, value)


def informedness(s: ConfusionStats) -> np.ndarray:
    r"""Bookmaker informedness :math:`\sum_i b_i (R_i - \mathrm{FPR}_i)` (Powers 2003).

    Exactly 0 for every predictor whose counts factor as C = N p qᵀ (it ignores its input),
    the majority-class predictor included; Youden's J = TPR + TNR − 1 for two classes.
    """
    return sum_last(s.bias * s.informedness)


def markedness(s: ConfusionStats) -> np.ndarray:
    r"""Markedness :math:`\sum_i p_i (\mathrm{PPV}_i + \mathrm{NPV}_i - 1)` (Powers 2011).

    Informedness with gold and prediction swapped (computed on Cᵀ).
    """
    return sum_last(s.prevalence * s.markedness)


def _entropy_terms(x: np.ndarray) -> np.ndarray:
    """Σ x log2 x over the last axis with 0·log 0 = 0 (x are shares)."""
    safe = np.where(x > 0, x, 1.0)  # x where x > 0; 1 elsewhere (NaN included), whose 1·log2 1 is 0
    terms = np.log2(safe)
    terms *= safe
    return sum_last(terms)


def nit(s: ConfusionStats) -> np.ndarray:
    r"""Normalised information transfer :math:`2^{\mathrm{MI}(Y;\hat Y) - H_{U_Y}} = 2^{\mathrm{MI}}/k_Y`, MI in bits.

    Vickers et al. Eq. 7 (after Valverde-Albacete & Peláez-Moreno 2014): H_{U_Y} = log2 k_Y is
    the entropy of a uniform distribution over the *gold* classes (k_Y = classes with gold
    items; a label only a system predicts does not count), as their released code does
    (``k = len(set(y_true))``). MI = H(Y) + H(Ŷ) − H(Y, Ŷ), 0·log 0 = 0; memory O(k²) per
    matrix (no k×k×k temporary). Range [1/k_Y, 1] for a single gold class set.
    """
    n = np.where(s.n > 0, s.n, 1.0)  # Σ (C/N) log2 (C/N) = (Σ C ln C − N ln N) / (N ln 2); 0 when N = 0
    joint = (sum_last(s.row_xlogx) - s.n * np.log(n)) / (n * np.log(2))
    mutual_information = joint - _entropy_terms(s.prevalence) - _entropy_terms(s.bias)
    gold_classes = (s.row > 0).sum(axis=-1)
    return np.exp2(np.maximum(mutual_information, 0.0)) / np.maximum(gold_classes, 1)


def class_recall(s: ConfusionStats) -> np.ndarray:
    return s.recall


def class_precision(s: ConfusionStats) -> np.ndarray:
    return s.precision


def class_f1(s: ConfusionStats) -> np.ndarray:
    return s.f1


def class_informedness(s: ConfusionStats) -> np.ndarray:
    return s.informedness


# ------------------------------------------------------------------------ prevalence shift


def reweight_prevalence(confusion: np.ndarray, target: np.ndarray | None = None) -> np.ndarray:
    r"""Rescale gold rows to a target prevalence: :math:`C'_{ij} = N\,\pi_i\,C_{ij}/\mathrm{row}_i`.

    ``target`` (shape (k,) or broadcastable, summing to 1) defaults to uniform over the gold
    classes present (prevalence calibration, Opitz §5.2). Rows without gold items stay 0 and
    the target is renormalised over the rows present. N is kept.
    """
    confusion = np.asarray(confusion, dtype=float)
    return confusion * _calibration_scale(confusion.sum(axis=-1), target)[..., :, None]


def _calibration_scale(row: np.ndarray, target: np.ndarray | None = None, n: np.ndarray | None = None) -> np.ndarray:
    """Per gold row, the factor N π_i / row_i of :func:`reweight_prevalence` (0 for empty rows); ``n``: Σ_i row_i
    when known."""
    present = row > 0
    target = np.ones(row.shape[-1]) if target is None else np.asarray(target, dtype=float)
    target = np.where(present, np.broadcast_to(target, row.shape), 0.0)
    total = sum_last(target)[..., None]
    target = np.divide(target, total, out=np.zeros_like(target), where=total > 0)  # no row present: every factor 0
    n = (sum_last(row) if n is None else n)[..., None]
    return ratio(n * target, row)[0]


def weighted_informedness(s: ConfusionStats, weights: np.ndarray) -> np.ndarray:
    r"""Informedness with user weights :math:`\sum_i w_i (R_i - \mathrm{FPR}_i)`, :math:`\sum_i w_i = 1`."""
    return sum_last(np.asarray(weights, dtype=float) * s.informedness)


# ------------------------------------------------------------------------------ catalogue

P = Properties
register(Metric(
    id="accuracy", short="Acc", name="Accuracy", function=accuracy,
    formula=r"\mathrm{Acc} = \frac{1}{N}\sum_i C_{ii}",
    chance="pᵀq for a predictor with bias q; maxᵢ pᵢ for the majority class",
    references=(f"{OPITZ} §4.1",),
    properties=P(monotonicity=True, class_sensitivity=False, decomposability=False,
                 prevalence_invariance=False, chance_correction="none", source=f"{OPITZ}, §6.1 Table 5"),
    description="Share of items whose prediction equals the gold label; equals micro P, R and F1.",
), aliases=("acc", "micro f1", "micro-f1", "f1 micro", "micro precision", "micro recall", "micro average"))

register(Metric(
    id="macro_recall", short="macR", name="Macro recall", function=macro_recall,
    formula=r"\mathrm{macR} = \frac{1}{k}\sum_i R_i,\quad R_i = \frac{C_{ii}}{\sum_j C_{ij}}",
    chance="exactly 1/k on the expected matrix N p qᵀ of any classifier that ignores its input (Opitz §4.2)",
    references=(f"{OPITZ} §4.2",), uses=("recall",), convention=PER_CLASS_CONVENTION,
    properties=P(monotonicity=True, class_sensitivity=True, decomposability=True,
                 prevalence_invariance=True, chance_correction="strict", source=f"{OPITZ}, §6.1 Table 5"),
    description="Mean of the per-class recalls; scikit-learn's balanced_accuracy_score when every label has gold "
                "items.",
), aliases=("balanced accuracy", "balanced_accuracy", "macro-recall", "recall macro", "average recall", "UAR",
            "unweighted average recall"),
   notes={"balanced accuracy": BALANCED_ACCURACY_NOTE})

register(Metric(
    id="macro_precision", short="macP", name="Macro precision", function=macro_precision,
    formula=r"\mathrm{macP} = \frac{1}{k}\sum_i P_i,\quad P_i = \frac{C_{ii}}{\sum_j C_{ji}}",
    chance="1/k for a classifier that ignores its input and predicts every class (P_j = p_j); less if it never "
           "predicts a class (0/0 precision counted as 0); Opitz §4.3 states strictly 1/n",
           references=(f"{OPITZ} §4.3",),
    uses=("precision",), convention=PER_CLASS_CONVENTION,
    properties=P(monotonicity=True, class_sensitivity=True, decomposability=True,
                 prevalence_invariance=False, chance_correction="strict", source=f"{OPITZ}, §6.1 Table 5"),
), aliases=("precision macro", "macro-precision", "average precision over classes"))

register(Metric(
    id="macro_f1", short="macF1", name="Macro F1 (mean of class F1)", function=macro_f1,
    formula=r"\mathrm{macF1} = \frac{1}{k}\sum_i \frac{2\,C_{ii}}{\sum_j C_{ij} + \sum_j C_{ji}}",
    chance="at most 1/k, reached only when the classifier's bias equals the prevalence (Opitz §4.4)",
    references=(f"{OPITZ} §4.4",),
    uses=("f1",), convention=PER_CLASS_CONVENTION,
    properties=P(monotonicity=True, class_sensitivity=True, decomposability=True,
                 prevalence_invariance=False, chance_correction="bounded", source=f"{OPITZ}, §6.1 Table 5"),
    description="Arithmetic mean of per-class F1 (scikit-learn f1_score average='macro'). Not the same as F1′.",
), aliases=("f1 macro", "F1-macro", "macro-f1", "macro f-score", "average F1", "macro averaged F1",
            "macro F1 (averaged F1)"),
   notes={name: MACRO_F1_AMBIGUITY for name in ("macro F1", "average F1", "macro-F1", "macro f-score",
                                                "macro averaged F1")})

register(Metric(
    id="macro_f1_hm", short="macF1′", name="Macro F1′ (harmonic mean of macP and macR)", function=macro_f1_hm,
    formula=r"\mathrm{macF1'} = \frac{2\,\mathrm{macP}\,\mathrm{macR}}{\mathrm{macP} + \mathrm{macR}}",
    chance="1/k for a classifier that ignores its input and predicts every class; less if it never predicts a "
           "class (Opitz §4.5 states strictly 1/n)", references=(f"{OPITZ} §4.5",),
    uses=("precision", "recall"), convention=PER_CLASS_CONVENTION,
    undefined_when="macro precision and macro recall are both 0, so the harmonic mean is 0/0",
    properties=P(monotonicity=True, class_sensitivity=True, decomposability=False,
                 prevalence_invariance=False, chance_correction="strict", source=f"{OPITZ}, §6.1 Table 5"),
    description="F1 of the averages; never below macro F1 (the harmonic mean is concave), and the two can differ "
                "by up to 0.5 (Opitz 2024 §4.5).",
), aliases=("f1 of averages", "macro F1 prime", "macro f1'", "F1 of macro P and macro R", "average F"))

register(Metric(
    id="weighted_f1", short="wF1", name="Weighted F1", function=weighted_f1,
    formula=r"\mathrm{wF1} = \sum_i p_i\,F1_i",
    chance="Σ_i p_i 2 p_i q_i/(p_i + q_i) for a classifier with bias q; up to 1 for the majority class on skewed gold",
    references=(f"{OPITZ} §4.6",),
    properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                 prevalence_invariance=False, chance_correction="none", source=f"{OPITZ}, §6.1 Table 5"),
    description="Support-weighted mean of class F1 (scikit-learn average='weighted').",
), aliases=("f1 weighted", "weighted-f1", "weighted average f1"))

register(Metric(
    id="gmean_recall", short="GmacR", name="Geometric-mean macro recall (GmacR)", function=gmean_recall,
    formula=r"\mathrm{GmacR} = \Big(\prod_i R_i\Big)^{1/k}",
    chance="at most 1/k; 1/k only for the uniform classifier (Opitz §6.2)", references=(f"{OPITZ} §5.1",),
    uses=("recall",), convention=PER_CLASS_CONVENTION,
    properties=P(monotonicity=True, class_sensitivity=True, decomposability=True,
                 prevalence_invariance=True, chance_correction="bounded", source=f"{OPITZ}, §6.1 Table 5"),
), aliases=("GmacR", "geometric mean recall", "g-mean"))

register(Metric(
    id="hmean_recall", short="HmacR", name="Harmonic-mean macro recall (HmacR)", function=hmean_recall,
    formula=r"\mathrm{HmacR} = \frac{k}{\sum_i R_i^{-1}}",
    chance="at most 1/k; 1/k only for the uniform classifier (Opitz §6.2)", references=(f"{OPITZ} §5.1",),
    uses=("recall",), convention=PER_CLASS_CONVENTION,
    properties=P(monotonicity=True, class_sensitivity=True, decomposability=True,
                 prevalence_invariance=True, chance_correction="bounded", source=f"{OPITZ}, §6.1 Table 5"),
), aliases=("HmacR", "harmonic mean recall"))

register(Metric(
    id="kappa", short="κ", name="Cohen's kappa", function=kappa, range=(-1.0, 1.0),
    formula=r"\kappa = \frac{\mathrm{Acc} - p^\top b}{1 - p^\top b}",
    chance="0 on the expected matrix N p qᵀ of any classifier that ignores its input (Opitz §4.7: complete, Ω = 0)",
    references=("Cohen 1960", f"{OPITZ} §4.7"),
    undefined_when="p·b = 1 (one class in gold and in the predictions), so kappa is 0/0",
    properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                 prevalence_invariance=False, chance_correction="complete", source=f"{OPITZ}, §6.1 Table 5"),
), aliases=("cohen kappa", "cohen's kappa", "kappa score"))

register(Metric(
    id="mcc", short="MCC", name="Matthews correlation (multi-class R_K)", function=mcc, range=(-1.0, 1.0),
    formula=r"\mathrm{MCC} = \frac{\mathrm{Acc} - p^\top b}{\sqrt{(1 - p^\top p)(1 - b^\top b)}}",
    chance="0 on the expected matrix N p qᵀ of any classifier that ignores its input (0/0 for a constant prediction; "
           "Opitz §4.7: complete, Ω = 0)",
    references=("Gorodkin 2004", f"{OPITZ} §4.7"),
    undefined_when=("the system predicts a single class (1 − bᵀb = 0) or gold has a single class (1 − pᵀp = 0), "
                    "so MCC is 0/0; scikit-learn shows 0"),
    properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                 prevalence_invariance=False, chance_correction="complete", source=f"{OPITZ}, §6.1 Table 5"),
), aliases=("matthews", "matthews correlation coefficient", "R_K", "phi"))

register(Metric(
    id="informedness", short="BM", name="Informedness (bookmaker; Youden's J for 2 classes)", function=informedness,
    range=(-1.0, 1.0),
    formula=r"\mathrm{BM} = \sum_i b_i\,(R_i - \mathrm{FPR}_i),\quad "
            r"\mathrm{FPR}_i = \frac{\sum_j C_{ji} - C_{ii}}{N - \sum_j C_{ij}}",
    chance="0 in expectation for any classifier that ignores its input (R_i = FPR_i = q_i on its expected matrix "
           "N p qᵀ)",
    references=("Powers 2003", "Powers 2011", "Vickers et al. 2023, Eq. 4–5"),
    uses=("informedness",), convention=NO_INFORMATION_CONVENTION,
    properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                 prevalence_invariance=False, chance_correction="complete",
                 source="derived, not in Opitz 2024, Table 5; PI refuted by the probe (auditor.analyses.properties): "
                        "the weights b_i move when an error is corrected"),
), aliases=("bookmaker informedness", "bookmaker", "youden's j", "youden j", "youden index", "BM", "J statistic"))

register(Metric(
    id="markedness", short="MK", name="Markedness", function=markedness, range=(-1.0, 1.0),
    formula=r"\mathrm{MK} = \sum_i p_i\,(\mathrm{PPV}_i + \mathrm{NPV}_i - 1)",
    chance="0 when gold and prediction are independent", references=("Powers 2011",),
    uses=("markedness",), convention=NO_INFORMATION_CONVENTION,
    properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                 prevalence_invariance=False, chance_correction="complete",
                 source="derived, not in Opitz 2024, Table 5: chance value 0 as for informedness (it is informedness "
                        "of Cᵀ); PI refuted by the probe (auditor.analyses.properties)"),
), aliases=("MK", "deltaP"))

register(Metric(
    id="nit", short="NIT", name="Normalised information transfer", function=nit,
    range=(0.0, 1.0), range_text="[1/k, 1]",  # MI ≥ 0: 2^MI/k ≥ 1/k; MI ≤ log2 k: ≤ 1
    formula=r"\mathrm{NIT} = 2^{\mathrm{MI}(Y;\hat{Y}) - H_{U_Y}} = \frac{2^{\mathrm{MI}(Y;\hat{Y})}}{k_Y},\quad "
            r"\mathrm{MI} = \sum_{i,j} \frac{C_{ij}}{N}\log_2\frac{N\,C_{ij}}{\sum_l C_{il}\sum_l C_{lj}}",
    chance="exactly 1/k (k gold classes) on the expected matrix N p qᵀ of any classifier that ignores its input "
           "(MI = 0; a finite sample's MI is above 0)",
    references=("Vickers et al. 2023, Eq. 7", "Valverde-Albacete & Peláez-Moreno 2014"),
    properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                 prevalence_invariance=False, chance_correction="strict",
                 source="derived, not in Opitz 2024, Table 5; mutual information also rewards systematic "
                        "errors, so PI fails; chance value exactly 1/k, so strict, not complete "
                        "(auditor.analyses.properties)"),
), aliases=("normalized information transfer", "NIT factor"))

_PER_CLASS = P(monotonicity=True, class_sensitivity=False, decomposability=True,
               prevalence_invariance=False, chance_correction="none", source="per-class value")
register(Metric(
    id="class_recall", short="R_i", name="Recall per class", function=class_recall, per_class=True,
    formula=r"R_i = \frac{C_{ii}}{\sum_j C_{ij}}", chance="qᵢ (the predictor's rate for class i)",
    uses=("recall",), convention="shown as undefined", properties=_PER_CLASS,
), aliases=("recall per class", "sensitivity", "TPR"))
register(Metric(
    id="class_precision", short="P_i", name="Precision per class", function=class_precision, per_class=True,
    formula=r"P_i = \frac{C_{ii}}{\sum_j C_{ji}}", chance="pᵢ", uses=("precision",),
    convention="shown as undefined", properties=_PER_CLASS,
), aliases=("precision per class", "PPV"))
register(Metric(
    id="class_f1", short="F1_i", name="F1 per class", function=class_f1, per_class=True,
    formula=r"F1_i = \frac{2\,C_{ii}}{\sum_j C_{ij} + \sum_j C_{ji}}", chance="2pᵢqᵢ / (pᵢ + qᵢ)",
    uses=("f1",), convention="shown as undefined", properties=_PER_CLASS,
), aliases=("f1 per class",))
register(Metric(
    id="class_informedness", short="BM_i", name="Informedness per class", function=class_informedness, per_class=True,
    range=(-1.0, 1.0), formula=r"R_i - \mathrm{FPR}_i", chance="0", uses=("informedness",),
    convention="shown as undefined", properties=_PER_CLASS,
), aliases=("informedness per class",))


_CAL_SOURCE = "derived for the variant (Opitz 2024 §5.2), checked by the probes"
_EXACT_1_K = "exactly 1/k on the expected matrix of any classifier that ignores its input"
_ZERO = "0 on the expected matrix of any classifier that ignores its input"
#: Declared properties and chance value of each prevalence-calibrated variant, derived for the
#: variant itself (not copied from the base metric). On C' = calibrated C every gold class has
#: prevalence 1/k, so a classifier that ignores its input (C = N p qᵀ) becomes C' = (N/k) 1 qᵀ.
CALIBRATED: dict[str, tuple[Properties, str]] = {
    "accuracy": (Properties(monotonicity=True, class_sensitivity=True, decomposability=True,
                            prevalence_invariance=True, chance_correction="strict",
                            source=_CAL_SOURCE + ": equals macro recall (Opitz §4.2, Eq. 8)"),
                 _EXACT_1_K + " (it equals macro recall)"),
    "macro_recall": (Properties(monotonicity=True, class_sensitivity=True, decomposability=True,
                                prevalence_invariance=True, chance_correction="strict",
                                source=_CAL_SOURCE + ": recall does not depend on prevalence"),
                     _EXACT_1_K),
    "macro_precision": (Properties(monotonicity=False, class_sensitivity=True, decomposability=True,
                                   prevalence_invariance=True, chance_correction="bounded",
                                   source=_CAL_SOURCE + ": one more error in row i shrinks the other cells of row i "
                                                        "of C′ (the row is renormalised), which can raise another "
                                                        "class's precision"),
                        "1/k for a classifier that predicts every class (P′_j = 1/k); less if it never predicts a "
                        "class (0/0 precision counted as 0)"),
    "macro_f1": (Properties(monotonicity=False, class_sensitivity=True, decomposability=True,
                            prevalence_invariance=True, chance_correction="bounded",
                            source=_CAL_SOURCE + ": row renormalisation, as for macro precision"),
                 "at most 1/k; 1/k only for the uniform classifier (F1′_j = 2q_j/(1 + k q_j))"),
    "macro_f1_hm": (Properties(monotonicity=False, class_sensitivity=True, decomposability=False,
                               prevalence_invariance=True, chance_correction="bounded",
                               source=_CAL_SOURCE + ": row renormalisation, as for macro precision"),
                    "1/k for a classifier that predicts every class (HM of 1/k and 1/k); less if it never predicts "
                    "a class"),
    "weighted_f1": (Properties(monotonicity=False, class_sensitivity=True, decomposability=True,
                               prevalence_invariance=True, chance_correction="bounded",
                               source=_CAL_SOURCE + ": equals the macro F1 of the calibrated matrix (Opitz §4.6), "
                                                    "not plain macro F1"),
                    "at most 1/k; 1/k only for the uniform classifier (it is macro F1 of C′)"),
    "gmean_recall": (Properties(monotonicity=True, class_sensitivity=True, decomposability=True,
                                prevalence_invariance=True, chance_correction="bounded",
                                source=_CAL_SOURCE + ": recall does not depend on prevalence"),
                     "at most 1/k; 1/k only for the uniform classifier"),
    "hmean_recall": (Properties(monotonicity=True, class_sensitivity=True, decomposability=True,
                                prevalence_invariance=True, chance_correction="bounded",
                                source=_CAL_SOURCE + ": recall does not depend on prevalence"),
                     "at most 1/k; 1/k only for the uniform classifier"),
    "kappa": (Properties(monotonicity=False, class_sensitivity=True, decomposability=False,
                         prevalence_invariance=True, chance_correction="complete",
                         source=_CAL_SOURCE + ": (macR − 1/k)/(1 − 1/k), affine in macro recall, when every class "
                                              "has gold items (Opitz §4.7); not so when a predicted class is absent "
                                              "from gold"),
              _ZERO),
    "mcc": (Properties(monotonicity=False, class_sensitivity=True, decomposability=False,
                       prevalence_invariance=True, chance_correction="complete",
                       source=_CAL_SOURCE + ": bᵀb of C′ still rewards uneven biases (Opitz §4.7)"),
            _ZERO + " (0/0 for a constant prediction)"),
    "informedness": (Properties(monotonicity=False, class_sensitivity=True, decomposability=False,
                                prevalence_invariance=True, chance_correction="complete", source=_CAL_SOURCE), _ZERO),
    "markedness": (Properties(monotonicity=False, class_sensitivity=True, decomposability=False,
                              prevalence_invariance=True, chance_correction="complete", source=_CAL_SOURCE), _ZERO),
    "nit": (Properties(monotonicity=False, class_sensitivity=True, decomposability=False,
                       prevalence_invariance=True, chance_correction="strict", source=_CAL_SOURCE),
            "1/k (k gold classes) on the expected matrix of any classifier that ignores its input"),
}


def _calibrated(base: Metric) -> Metric:
    """The prevalence-calibrated variant of ``base`` (Opitz §5.2): ``base`` on C′ with p′ = 1/k.

    Its properties and chance value are its own (:data:`CALIBRATED`), probed like any metric's.
    """

    def function(s: ConfusionStats) -> np.ndarray:
        return base.function(calibrated_stats(s))

    function.__doc__ = f"{base.name} on the prevalence-calibrated matrix (Opitz §5.2)."
    properties, chance = CALIBRATED[base.id]
    return Metric(
        id=f"{base.id}_calibrated", name=f"{base.name}, prevalence-calibrated", function=function,
        formula=base.formula + r",\ \text{on } C'_{ij} = \frac{N}{k}\,\frac{C_{ij}}{\sum_l C_{il}}",
        range=base.range, range_text=base.range_text, chance=chance, references=base.references + (f"{OPITZ} §5.2",),
        uses=base.uses, convention=base.convention, undefined_when=base.undefined_when,
        properties=properties, family="calibrated", base=base.id, short=f"cal-{base.label}",
        description=f"{base.name} computed after rescaling every gold class to prevalence 1/k.",
    )


def calibrated_stats(s: ConfusionStats) -> ConfusionStats:
    """ConfusionStats of the prevalence-calibrated matrix, computed once per stats object."""
    cached = s.__dict__.get("_calibrated_stats")
    if cached is None and "cells" in s.__dict__:  # sparse: scale each cell by its row's factor
        shape, flat, count = s.cells
        scale = _calibration_scale(s.row)
        cached = ConfusionStats.from_cells(shape, flat, count * scale.ravel()[flat // s.k], s.all_labels_active)
        s.__dict__["_calibrated_stats"] = cached
    elif cached is None:
        known = "_margins_from_C" in s.__dict__  # row and n summed from C itself: not summed again
        scale = _calibration_scale(s.row, n=s.n) if known else _calibration_scale(sum_last(s.C))
        cached = ConfusionStats(s.C * scale[..., :, None], s.all_labels_active)
        s.__dict__["_calibrated_stats"] = cached
    return cached


BASE_METRIC_IDS = tuple(metric.id for metric in REGISTRY.scalar())
for _id in BASE_METRIC_IDS:
    register(_calibrated(REGISTRY.metrics[_id]), aliases=(f"calibrated {_id}",))


# ------------------------------------------------------------------------------- evaluate


@dataclass(frozen=True)
class MetricValue:
    """One metric value of one system, with what was undefined about it.

    ``value`` is None when the metric is 0/0 as a whole (``undefined`` says why). When
    per-class parts were 0/0 and a convention filled them, ``value`` is the number under
    that convention and ``convention`` names the parts and the convention.
    """

    value: float | None
    undefined: str | None = None
    convention: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``systems.NAME.metrics.ID``; ``ci`` is the statistics stage's (``null`` until it runs)."""
        return {"value": self.value, "ci": None, "undefined": self.undefined, "convention": self.convention}


def compute(
    confusion: np.ndarray | ConfusionStats, metrics: Iterable[Metric] | None = None, all_labels_active: bool = False
) -> dict[str, np.ndarray]:
    """Every metric on a batch of confusion tensors (or their stats): id -> array over the batch axes."""
    stats = confusion if isinstance(confusion, ConfusionStats) else ConfusionStats(confusion, all_labels_active)
    chosen = REGISTRY if metrics is None else metrics
    return {metric.id: metric.function(stats) for metric in chosen}


def undefined_parts(metric: Metric, stats: ConfusionStats, labels: Sequence[str], index: tuple = ()) -> list[str]:
    """Reasons for every per-class 0/0 that ``metric`` used, for the matrix at batch ``index``."""
    reasons = []
    for quantity in metric.uses:
        mask = (getattr(stats, f"{quantity}_undefined") & stats.active)[index]
        reasons += [UNDEFINED_REASONS[quantity].format(label=labels[i]) for i in np.flatnonzero(mask)]
    return reasons


def describe(
    confusion: np.ndarray,
    labels: Sequence[str],
    metrics: Iterable[Metric] | None = None,
    all_labels_active: bool = False,
) -> dict[str, MetricValue] | list[dict[str, MetricValue]]:
    """Scalar metrics with their undefined/convention notes.

    ``confusion`` is one matrix (k, k) -> one dict, or a stack (S, k, k) -> one dict per
    system; every metric is evaluated once over the whole stack.
    """
    confusion = np.asarray(confusion)
    single = confusion.ndim == 2
    stats = ConfusionStats(confusion[None] if single else confusion, all_labels_active)
    chosen = [m for m in (REGISTRY if metrics is None else metrics) if not m.per_class]
    values = {metric.id: metric.function(stats) for metric in chosen}
    results: list[dict[str, MetricValue]] = []
    for system in range(stats.C.shape[0]):
        result = {}
        for metric in chosen:
            value = float(values[metric.id][system])
            target = calibrated_stats(stats) if metric.family == "calibrated" else stats
            parts = undefined_parts(metric, target, labels, (system,))
            convention = f"{'; '.join(parts)}; {metric.convention}" if parts else None
            if np.isnan(value):
                result[metric.id] = MetricValue(None, metric.undefined_when or "0/0", convention)
            else:
                result[metric.id] = MetricValue(value, None, convention)
        results.append(result)
    return results[0] if single else results


def per_class_table(confusion: np.ndarray, labels: Sequence[str]) -> dict[str, dict[str, object]]:
    """Per-class precision, recall, F1 (None where 0/0), support and predicted count."""
    stats = ConfusionStats(confusion)
    table = {}
    for i, label in enumerate(labels):
        reasons = [UNDEFINED_REASONS[q].format(label=label) for q in ("precision", "recall", "f1", "informedness")
                   if getattr(stats, f"{q}_undefined")[i]]
        table[label] = {
            "precision": None if stats.precision_undefined[i] else float(stats.precision[i]),
            "recall": None if stats.recall_undefined[i] else float(stats.recall[i]),
            "f1": None if stats.f1_undefined[i] else float(stats.f1[i]),
            "informedness": None if stats.informedness_undefined[i] else float(stats.informedness[i]),
            "support": int(stats.row[i]),
            "predicted": int(stats.col[i]),
            "undefined": reasons,
        }
    return table


def prevalence_vector(labels: Sequence[str], prevalence: Mapping[str, float]) -> np.ndarray:
    """A prevalence mapping as a vector in label order (missing labels get 0)."""
    return np.array([float(prevalence.get(label, 0.0)) for label in labels])
