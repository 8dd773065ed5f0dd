"""Known-answer tests of the metric catalogue, each expected value with its source.

Sources: scikit-learn (its functions, and its own test for Artstein & Poesio's kappa table),
PyCM (``pycm.ConfusionMatrix``: "Kappa", "Overall MCC", "Mutual Information", per-class
"BM", "MK", "TPR", "PPV", "F1"), hand computations written out below, and the papers'
definitions. Orientation everywhere: rows gold, columns predicted.
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from pycm import ConfusionMatrix
from sklearn import metrics as skm

import auditor
from auditor import REGISTRY, ConfusionStats, describe
from auditor.metrics.catalogue import MetricValue, compute, reweight_prevalence
from auditor.metrics.parameterised import informedness_at
from auditor.metrics.registry import Properties, normalise_name

# A 3-class matrix used for the hand computations (rows gold a, b, c; columns predicted).
#   row sums 8, 10, 7; column sums 6, 12, 7; N = 25.
C3 = np.array([[5, 2, 1],
               [1, 7, 2],
               [0, 3, 4]])


def labels_of(matrix):
    """Gold and predicted label arrays that count to ``matrix``."""
    gold, pred = np.nonzero(matrix)
    reps = matrix[gold, pred]
    return np.repeat(gold, reps), np.repeat(pred, reps)


def value(metric_id, matrix, **kwargs):
    return float(REGISTRY.get(metric_id)(np.asarray(matrix), **kwargs))


def pycm_of(matrix):
    k = len(matrix)
    return ConfusionMatrix(matrix={i: {j: int(matrix[i][j]) for j in range(k)} for i in range(k)})


# ------------------------------------------------------------------------- scikit-learn


SKLEARN_CASES = {
    "3-class": C3,
    "skewed": np.array([[50, 5, 5], [2, 8, 0], [3, 1, 6]]),
    "binary": np.array([[20, 20], [10, 50]]),
    "class never predicted": np.array([[6, 0, 2], [3, 0, 1], [1, 0, 4]]),
}


@pytest.mark.parametrize("name", SKLEARN_CASES)
def test_prf_kappa_mcc_match_scikit_learn(name):
    matrix = SKLEARN_CASES[name]
    gold, pred = labels_of(matrix)
    ours = compute(matrix)
    zd = dict(zero_division=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # source: sklearn.metrics.accuracy_score
        assert ours["accuracy"] == pytest.approx(skm.accuracy_score(gold, pred))
        # source: sklearn.metrics.{recall,precision,f1}_score(average="macro"/"weighted"/None, zero_division=0)
        assert ours["macro_recall"] == pytest.approx(skm.recall_score(gold, pred, average="macro", **zd))
        assert ours["macro_precision"] == pytest.approx(skm.precision_score(gold, pred, average="macro", **zd))
        assert ours["macro_f1"] == pytest.approx(skm.f1_score(gold, pred, average="macro", **zd))
        assert ours["weighted_f1"] == pytest.approx(skm.f1_score(gold, pred, average="weighted", **zd))
        assert ours["class_recall"] == pytest.approx(skm.recall_score(gold, pred, average=None, **zd))
        assert ours["class_precision"] == pytest.approx(skm.precision_score(gold, pred, average=None, **zd))
        assert ours["class_f1"] == pytest.approx(skm.f1_score(gold, pred, average=None, **zd))
        # source: sklearn.metrics.cohen_kappa_score, matthews_corrcoef (defined here: ≥ 2 classes on each side)
        assert ours["kappa"] == pytest.approx(skm.cohen_kappa_score(gold, pred))
        assert ours["mcc"] == pytest.approx(skm.matthews_corrcoef(gold, pred))
        # source: sklearn.metrics.balanced_accuracy_score; equal to macro recall, every label has gold items
        assert ours["macro_recall"] == pytest.approx(skm.balanced_accuracy_score(gold, pred))


def test_balanced_accuracy_differs_from_macro_recall_with_a_predicted_only_label():
    # Label 2 is predicted once but never gold. scikit-learn's recall_score(average="macro")
    # averages over unique(gold ∪ pred) = {0, 1, 2}: (3/4 + 2/3 + 0)/3 = 17/36 (R_2 = 0/0 -> 0);
    # balanced_accuracy_score drops the 0/0 recall and averages over {0, 1}: (3/4 + 2/3)/2 = 17/24.
    gold = np.array([0, 0, 0, 0, 1, 1, 1])
    pred = np.array([0, 0, 0, 1, 1, 1, 2])
    matrix, = auditor.count(gold, {"s": pred}).confusion
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert value("macro_recall", matrix) == pytest.approx(17 / 36)  # hand, = sklearn recall_score macro
        theirs = skm.recall_score(gold, pred, average="macro", zero_division=0)
        assert value("macro_recall", matrix) == pytest.approx(theirs)
        assert skm.balanced_accuracy_score(gold, pred) == pytest.approx(17 / 24)  # sklearn
        # our prevalence-calibrated accuracy is exactly scikit-learn's balanced accuracy
        assert value("accuracy_calibrated", matrix) == pytest.approx(skm.balanced_accuracy_score(gold, pred))
    # and the alias table says so
    assert "balanced_accuracy_score" in REGISTRY.alias_note("balanced accuracy")


def test_fixed_label_set_matches_scikit_learn_labels_argument():
    # --labels a,b,c,d with d never seen: macro averages run over 4 labels, as sklearn's labels=.
    gold = np.array(["a", "a", "b", "b", "c", "c"])
    pred = np.array(["a", "b", "b", "b", "c", "a"])
    counts = auditor.count(gold, {"s": pred}, labels=["a", "b", "c", "d"])
    ours = compute(counts.confusion[0], all_labels_active=True)
    kw = dict(labels=["a", "b", "c", "d"], zero_division=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ours["macro_recall"] == pytest.approx(skm.recall_score(gold, pred, average="macro", **kw))  # sklearn
        assert ours["macro_precision"] == pytest.approx(
            skm.precision_score(gold, pred, average="macro", **kw))  # sklearn
        assert ours["macro_f1"] == pytest.approx(skm.f1_score(gold, pred, average="macro", **kw))  # sklearn
    # without --labels, d is not active and the average runs over 3 labels (sklearn's default)
    assert compute(counts.confusion[0])["macro_recall"] == pytest.approx(
        skm.recall_score(gold, pred, average="macro", zero_division=0))


def test_kappa_artstein_poesio_tables_as_in_scikit_learn_test():
    # sklearn/metrics/tests/test_classification.py::test_cohen_kappa rebuilds Artstein & Poesio
    # (2008) Table 1, [[20, 20], [10, 50]], and expects 0.348. By hand: Acc = 70/100,
    # p = (.4, .6), b = (.3, .7), pᵀb = .12 + .42 = .54, kappa = (.70 − .54)/(1 − .54) = .16/.46.
    table1 = np.array([[20, 20], [10, 50]])
    assert value("kappa", table1) == pytest.approx(0.348, abs=5e-4)  # sklearn's test / A&P Table 1
    assert value("kappa", table1) == pytest.approx(0.16 / 0.46)  # hand
    # Same test, A&P Table 4 (3 classes, items in the same order): expected 0.8013 there.
    y1 = np.array([0] * 46 + [1] * 44 + [2] * 10)
    y2 = np.array([0] * 52 + [1] * 32 + [2] * 16)
    matrix, = auditor.count(y1, {"s": y2}).confusion
    assert value("kappa", matrix) == pytest.approx(0.8013, abs=5e-5)  # sklearn's test / A&P Table 4
    # and the weighting example's unweighted value, 0.9315
    y2 = np.array([0] * 50 + [1] * 40 + [2] * 10)
    matrix, = auditor.count(y1, {"s": y2}).confusion
    assert value("kappa", matrix) == pytest.approx(0.9315, abs=5e-5)  # sklearn's test


# ------------------------------------------------------------------------------- PyCM


@pytest.mark.parametrize("name", SKLEARN_CASES)
def test_matches_pycm(name):
    matrix = SKLEARN_CASES[name]
    cm = pycm_of(matrix)
    ours = compute(matrix)
    k, n = len(matrix), matrix.sum()
    bias, prevalence = matrix.sum(axis=0) / n, matrix.sum(axis=1) / n
    num = lambda x: float(x) if isinstance(x, (int, float)) else 0.0  # noqa: E731  PyCM writes "None" for 0/0
    # source: PyCM overall "Kappa", "Overall MCC", "Overall ACC", "F1 Macro", "TPR Macro", "PPV Macro"
    assert ours["kappa"] == pytest.approx(cm.overall_stat["Kappa"])
    assert ours["mcc"] == pytest.approx(cm.overall_stat["Overall MCC"])
    assert ours["accuracy"] == pytest.approx(cm.overall_stat["Overall ACC"])
    assert ours["macro_f1"] == pytest.approx(cm.overall_stat["F1 Macro"])
    # PyCM per-class TPR/PPV/F1
    assert ours["class_recall"] == pytest.approx([num(cm.class_stat["TPR"][i]) for i in range(k)])
    assert ours["class_precision"] == pytest.approx([num(cm.class_stat["PPV"][i]) for i in range(k)])
    assert ours["class_f1"] == pytest.approx([num(cm.class_stat["F1"][i]) for i in range(k)])
    # PyCM per-class BM (= TPR + TNR − 1) is our per-class informedness; the bias-weighted sum
    # is multi-class informedness (Powers 2011); PyCM MK weighted by prevalence is markedness.
    assert ours["class_informedness"] == pytest.approx([num(cm.class_stat["BM"][i]) for i in range(k)])
    assert ours["informedness"] == pytest.approx(sum(bias[i] * num(cm.class_stat["BM"][i]) for i in range(k)))
    assert ours["markedness"] == pytest.approx(sum(prevalence[i] * num(cm.class_stat["MK"][i]) for i in range(k)))
    # PyCM "Mutual Information" is in bits: NIT = 2^MI / k (Valverde-Albacete & Peláez-Moreno 2014)
    assert ours["nit"] == pytest.approx(2 ** cm.overall_stat["Mutual Information"] / k)


def test_binary_informedness_is_pycm_bm_and_youden_j():
    # Binary: every per-class J equals TPR + TNR − 1, so the weighted sum is J whatever the weights.
    # [[20, 20], [10, 50]] with class 1 positive: TPR = 50/60, TNR = 20/40, J = 5/6 + 1/2 − 1 = 1/3.
    table = np.array([[20, 20], [10, 50]])
    cm = pycm_of(table)
    assert value("informedness", table) == pytest.approx(1 / 3)  # hand
    assert value("informedness", table) == pytest.approx(cm.class_stat["BM"][1])  # PyCM BM
    assert value("informedness", table) == pytest.approx(cm.class_stat["BM"][0])  # PyCM BM, other class
    gold, pred = labels_of(table)
    assert value("informedness", table) == pytest.approx(
        skm.balanced_accuracy_score(gold, pred, adjusted=True))  # sklearn


# -------------------------------------------------------------------- hand computations


def test_informedness_by_hand_three_classes():
    # C3: N = 25; bias b = (6, 12, 7)/25; R = (5/8, 7/10, 4/7);
    # FPR_a = (6 − 5)/(25 − 8) = 1/17, FPR_b = (12 − 7)/(25 − 10) = 1/3, FPR_c = (7 − 4)/(25 − 7) = 1/6.
    # BM = Σ_i b_i (R_i − FPR_i) = 6/25·(5/8 − 1/17) + 12/25·(7/10 − 1/3) + 7/25·(4/7 − 1/6)
    #    = 6/25·77/136 + 12/25·11/30 + 7/25·17/42 = 0.135882… + 0.176 + 0.113333… = 0.425216…
    expected = F(6, 25) * (F(5, 8) - F(1, 17)) + F(12, 25) * (F(7, 10) - F(1, 3)) + F(7, 25) * (F(4, 7) - F(1, 6))
    assert value("informedness", C3) == pytest.approx(float(expected), abs=1e-15)


def test_informedness_is_the_bookmakers_expected_gain():
    # Powers (2003) "Recall and Precision versus the Bookmaker": a prediction of class j is a bet
    # at fair odds, paying 1/p_j if right and −1/(1 − p_j) if wrong. Weighting each prediction's
    # gain by the bias b_j of the predicted class and averaging over items gives
    # Σ_j b_j [C_jj/(N p_j) − (col_j − C_jj)/(N (1 − p_j))] = Σ_j b_j (R_j − FPR_j).
    gold, pred = labels_of(C3)
    n = len(gold)
    p = np.bincount(gold) / n
    b = np.bincount(pred) / n
    gain = sum(b[j] * (1 / p[j] if i == j else -1 / (1 - p[j])) for i, j in zip(gold, pred)) / n
    assert value("informedness", C3) == pytest.approx(gain)


def test_markedness_by_hand_three_classes():
    # p = (8, 10, 7)/25; PPV = (5/6, 7/12, 4/7);
    # NPV_i = (N − row_i − col_i + C_ii)/(N − col_i): a (25−8−6+5)/19 = 16/19, b (25−10−12+7)/13 = 10/13,
    # c (25−7−7+4)/18 = 5/6. MK_i = PPV_i + NPV_i − 1 = 77/114, 55/156, 17/42.
    # MK = 8/25·77/114 + 10/25·55/156 + 7/25·17/42 = 0.216140… + 0.141026… + 0.113333… = 0.470499…
    expected = F(8, 25) * F(77, 114) + F(10, 25) * F(55, 156) + F(7, 25) * F(17, 42)
    assert value("markedness", C3) == pytest.approx(float(expected), abs=1e-15)
    # Markedness is informedness of the transposed matrix (Powers 2011: the dual, ΔP vs ΔP′).
    assert value("markedness", C3) == pytest.approx(value("informedness", C3.T))


def test_nit_by_hand_three_classes():
    # MI = Σ_ij (C_ij/N) log2(N C_ij / (row_i col_j)), rows (8, 10, 7), columns (6, 12, 7), N = 25:
    terms = [
        5 / 25 * math.log2(25 * 5 / (8 * 6)), 2 / 25 * math.log2(25 * 2 / (8 * 12)),
        1 / 25 * math.log2(25 * 1 / (8 * 7)), 1 / 25 * math.log2(25 * 1 / (10 * 6)),
        7 / 25 * math.log2(25 * 7 / (10 * 12)), 2 / 25 * math.log2(25 * 2 / (10 * 7)),
        # C_ca = 0 contributes 0 (0·log 0 = 0)
        3 / 25 * math.log2(25 * 3 / (7 * 12)), 4 / 25 * math.log2(25 * 4 / (7 * 7)),
    ]
    mi = sum(terms)  # = 0.362434 bits, PyCM's "Mutual Information" for this matrix
    assert mi == pytest.approx(pycm_of(C3).overall_stat["Mutual Information"])
    assert value("nit", C3) == pytest.approx(2 ** mi / 3)  # NIT = 2^MI / k = 0.428531
    # scikit-learn's mutual_info_score is in nats: same MI after dividing by ln 2
    gold, pred = labels_of(C3)
    assert mi == pytest.approx(skm.mutual_info_score(gold, pred) / math.log(2))


def test_gmean_and_hmean_recall_by_hand():
    # R = (5/8, 7/10, 4/7). GmacR = (5/8 · 7/10 · 4/7)^(1/3) = (140/560)^(1/3) = (1/4)^(1/3) = 0.629961
    assert value("gmean_recall", C3) == pytest.approx(0.25 ** (1 / 3))
    # HmacR = 3 / (8/5 + 10/7 + 7/4) = 3 / (669/140) = 420/669 = 0.627803
    assert value("hmean_recall", C3) == pytest.approx(420 / 669)
    # Both ≤ macro recall (AM ≥ GM ≥ HM): macR = (5/8 + 7/10 + 4/7)/3 = 0.632143
    assert value("hmean_recall", C3) <= value("gmean_recall", C3) <= value("macro_recall", C3)
    # A class with recall 0 sends both to 0 (Opitz §5.1: they punish a neglected class)
    assert value("gmean_recall", SKLEARN_CASES["class never predicted"]) == 0.0
    assert value("hmean_recall", SKLEARN_CASES["class never predicted"]) == 0.0


def test_macro_f1_and_macro_f1_prime_on_a_skewed_case():
    # Opitz & Burst 2019 (arXiv:1911.03347): F1′ (F1 of averages) rewards a skewed error-type
    # distribution; the gap approaches 0.5 for two classes. Their worked example was not
    # retrievable here, so this is our own instance of that construction:
    # C = [[1, 99], [0, 1]]: class a: R = 1/100, P = 1/1; class b: R = 1/1, P = 1/100.
    # F1_a = 2·1/(100 + 1) = 2/101 = F1_b  ->  macro F1 = 2/101 = 0.019802.
    # macP = macR = (1 + 1/100)/2 = 0.505   ->  F1′ = 2·0.505·0.505/1.01 = 0.505.
    skewed = np.array([[1, 99], [0, 1]])
    assert value("macro_f1", skewed) == pytest.approx(2 / 101)
    assert value("macro_f1_hm", skewed) == pytest.approx(0.505)
    assert value("macro_f1_hm", skewed) - value("macro_f1", skewed) == pytest.approx(0.505 - 2 / 101)  # 0.4852 < 0.5
    # On C3 they differ too, and F1′ ≥ macro F1 (Opitz & Burst, Theorem)
    assert value("macro_f1_hm", C3) > value("macro_f1", C3)


# ------------------------------------------------------------------------- degenerate cases


def test_perfect_predictions_reach_every_maximum():
    perfect = np.diag([4, 4, 4])
    described = describe(perfect, ["a", "b", "c"])
    for metric in REGISTRY.scalar():
        assert described[metric.id].value == pytest.approx(metric.range[1]), metric.id
        assert described[metric.id].undefined is None and described[metric.id].convention is None, metric.id


def test_perfect_predictions_on_imbalanced_gold():
    # Every metric but NIT is at its maximum. NIT = 2^MI/k and for perfect predictions
    # MI = H(p), so NIT = 2^H(p)/k < 1 unless gold is uniform (Valverde-Albacete &
    # Peláez-Moreno 2014 define NIT relative to k, not to the gold entropy). p = (.5, .3, .2):
    # H = −(.5 log2 .5 + .3 log2 .3 + .2 log2 .2) = 1.485475 bits -> NIT = 2^1.485475/3 = 0.933365.
    perfect = np.diag([5, 3, 2])
    described = describe(perfect, ["a", "b", "c"])
    for metric in REGISTRY.scalar():
        if metric.id == "nit":
            entropy = -sum(x * math.log2(x) for x in (0.5, 0.3, 0.2))
            assert described["nit"].value == pytest.approx(2 ** entropy / 3)
            assert described["nit"].value == pytest.approx(0.933365, abs=1e-6)
        else:
            assert described[metric.id].value == pytest.approx(metric.range[1]), metric.id


def test_fully_inverted_binary_predictions():
    # Balanced gold (p = (1/2, 1/2)), every prediction wrong: TPR = TNR = 0, so J = −1;
    # Acc = 0, pᵀb = 1/2 -> kappa = (0 − 1/2)/(1 − 1/2) = −1; MCC = (0 − 1/2)/√(1/2 · 1/2) = −1;
    # PPV = NPV = 0 -> markedness −1.
    inverted = np.array([[0, 4], [4, 0]])
    for metric_id in ("mcc", "kappa", "informedness", "markedness"):
        assert value(metric_id, inverted) == pytest.approx(-1.0), metric_id
    # Skewed gold: informedness and MCC stay −1, kappa does not (pᵀb = 2·0.2·0.8 = 0.32:
    # kappa = −0.32/0.68 = −0.470588), which is kappa's known prevalence dependence.
    skew = np.array([[0, 2], [8, 0]])
    assert value("informedness", skew) == pytest.approx(-1.0)
    assert value("mcc", skew) == pytest.approx(-1.0)
    assert value("kappa", skew) == pytest.approx(-0.32 / 0.68)


def test_majority_class_predictor():
    # Everything predicted as "a": C = N p e_aᵀ, a predictor that ignores its input.
    majority = np.array([[6, 0, 0], [3, 0, 0], [1, 0, 0]])
    labels = ["a", "b", "c"]
    described = describe(majority, labels)
    assert described["informedness"].value == 0.0  # exactly 0 (Powers: no information)
    assert described["markedness"].value == 0.0
    assert described["kappa"].value == 0.0  # Acc = pᵀb = 0.6 -> 0/(1 − 0.6)
    assert described["accuracy"].value == pytest.approx(0.6)
    # MCC: 1 − bᵀb = 0 -> 0/0. We say so; scikit-learn returns 0.0 here.
    assert described["mcc"].value is None
    assert "single class" in described["mcc"].undefined
    gold, pred = labels_of(majority)
    assert skm.matthews_corrcoef(gold, pred) == 0.0  # scikit-learn's convention, deliberately not ours
    assert np.isnan(value("mcc", majority))
    # the 0/0 per-class precisions of b and c are recorded, not hidden
    assert "precision of b undefined" in described["macro_precision"].convention
    assert "precision of c undefined" in described["macro_precision"].convention
    assert "zero_division=0" in described["macro_precision"].convention


def test_class_never_predicted_is_recorded():
    matrix = SKLEARN_CASES["class never predicted"]
    described = describe(matrix, ["a", "b", "c"])
    assert "precision of b undefined: never predicted" in described["macro_precision"].convention
    assert described["macro_recall"].convention is None  # every recall is defined
    assert described["macro_f1"].convention is None  # F1_b = 0/(4 + 0) = 0 is defined
    stats = ConfusionStats(matrix)
    assert stats.precision_undefined.tolist() == [False, True, False]


def test_one_gold_class_only():
    # Gold is all "a"; the system predicts a and b.
    one_gold = np.array([[3, 2], [0, 0]])
    described = describe(one_gold, ["a", "b"])
    # MCC: 1 − pᵀp = 0 -> 0/0, undefined with the reason (sklearn would show 0.0)
    assert described["mcc"].value is None and "gold has a single class" in described["mcc"].undefined
    # kappa: Acc = 3/5, pᵀb = 1·3/5 -> (3/5 − 3/5)/(1 − 3/5) = 0, defined
    assert described["kappa"].value == 0.0
    # recall of b is 0/0 (no gold b) and counts as 0 in macro recall: (3/5 + 0)/2
    assert described["macro_recall"].value == pytest.approx(0.3)
    assert "recall of b undefined: no gold item" in described["macro_recall"].convention
    # informedness: FPR_a = 0/0 (every gold item is a) and R_b = 0/0: both terms are by
    # convention 0, and the report says which parts were undefined
    assert described["informedness"].value == 0.0
    assert "informedness of a undefined" in described["informedness"].convention
    # the same single class in gold and predictions: kappa itself is 0/0
    only_a = np.array([[5, 0], [0, 0]])
    described = describe(only_a, ["a", "b"])
    assert described["kappa"] == MetricValue(None, REGISTRY.get("kappa").undefined_when, None)
    assert described["mcc"].value is None
    gold, pred = labels_of(only_a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(skm.cohen_kappa_score(gold, pred))  # scikit-learn agrees: nan


def test_macro_f1_prime_undefined_when_both_averages_are_zero():
    # Every prediction wrong on 3 classes: macP = macR = 0 -> F1′ = 0/0.
    wrong = np.array([[0, 2, 0], [0, 0, 2], [2, 0, 0]])
    described = describe(wrong, ["a", "b", "c"])
    assert described["macro_f1_hm"].value is None
    assert "both 0" in described["macro_f1_hm"].undefined
    assert described["macro_f1"].value == 0.0


# ------------------------------------------------------------------------------- identities


def test_design_identities():
    skewed = SKLEARN_CASES["skewed"]
    values = compute(skewed)
    # Opitz §5.2: calibrated accuracy = macro recall (every class has gold support)
    assert values["accuracy_calibrated"] == pytest.approx(values["macro_recall"])
    # Calibrated weighted F1 = macro F1 *of the calibrated matrix* (p′_i = 1/k). It is not
    # macro F1 of the original matrix: calibration changes precision, hence each F1_i.
    # Hand: N = 80, rows (60, 10, 10), every row scaled to N/k = 80/3: a ×4/9, b ×8/3, c ×8/3
    # -> [[200/9, 20/9, 20/9], [16/3, 64/3, 0], [8, 8/3, 16]].
    expected = np.array([[200 / 9, 20 / 9, 20 / 9], [16 / 3, 64 / 3, 0], [8, 8 / 3, 16]])
    assert reweight_prevalence(skewed) == pytest.approx(expected)
    assert values["weighted_f1_calibrated"] == pytest.approx(values["macro_f1_calibrated"])
    assert values["weighted_f1_calibrated"] != pytest.approx(values["macro_f1"])  # 0.7446 vs 0.7026
    # Binary informedness = TPR + TNR − 1
    binary = np.array([[30, 10], [5, 15]])
    assert value("informedness", binary) == pytest.approx(15 / 20 + 30 / 40 - 1)
    # F1′ ≥ macro F1, and ≠ on a skewed case (Opitz & Burst 2019)
    assert values["macro_f1_hm"] > values["macro_f1"]


def test_weighted_f1_calibrated_equals_macro_f1_when_precision_is_unchanged():
    # With balanced gold the calibrated matrix is the matrix itself, so there the DESIGN's
    # "calibrated weighted F1 = macro F1" holds literally.
    balanced = np.array([[7, 2, 1], [3, 5, 2], [0, 4, 6]])
    values = compute(balanced)
    assert values["weighted_f1_calibrated"] == pytest.approx(values["macro_f1"])


# ------------------------------------------------------------------ informedness_at (Vickers)


def test_informedness_at_the_test_prevalence_is_informedness():
    prevalence = C3.sum(axis=1) / C3.sum()
    assert float(informedness_at(prevalence)(C3)) == pytest.approx(value("informedness", C3))
    # weights are normalised: counts work as well as shares
    assert float(informedness_at(C3.sum(axis=1))(C3)) == pytest.approx(value("informedness", C3))


def test_informedness_train_by_hand_vickers_limitations():
    """Vickers & Monti (sources/vickers-monti-classification-metrics-nlp.md), Eq. 4–5 and Limitations:
    a bet on class c (a prediction of c) gains 1/p(c) when the item is c and loses 1/(1 − p(c))
    otherwise, weighted by the prediction share b_c; with a training distribution π, π_c replaces
    the test prevalence p(c) in those odds.

    C = [[6, 3, 1], [2, 6, 2], [0, 2, 8]] (rows gold), N = 30, π = (1/2, 1/4, 1/4).
    Columns (8, 11, 11): b = (8, 11, 11)/30; hits C_cc = (6, 6, 8); misses col_c − C_cc = (2, 5, 3).
      c = 0: 8/30 · (6/(30·1/2) − 2/(30·1/2)) = 8/30 · 4/15  = 32/450
      c = 1: 11/30 · (6/(30·1/4) − 5/(30·3/4)) = 11/30 · 26/45 = 286/1350
      c = 2: 11/30 · (8/(30·1/4) − 3/(30·3/4)) = 11/30 · 14/15 = 154/450
    BM_π = (96 + 286 + 462)/1350 = 844/1350 = 0.625185…
    """
    matrix = np.array([[6, 3, 1], [2, 6, 2], [0, 2, 8]])
    expected = F(8, 30) * F(4, 15) + F(11, 30) * F(26, 45) + F(11, 30) * F(14, 15)
    assert expected == F(844, 1350)
    assert float(informedness_at([0.5, 0.25, 0.25])(matrix)) == pytest.approx(float(expected), abs=1e-15)
    # two classes, π = (1/2, 1/2), C = [[2, 1], [0, 2]]: b = (2/5, 3/5);
    # 2/5·(2/(5/2) − 0) + 3/5·(2/(5/2) − 1/(5/2)) = 0.32 + 0.24 = 0.56 (Youden's J is 2/3 + 1 − 1 = 2/3)
    assert float(informedness_at([0.5, 0.5])(np.array([[2, 1], [0, 2]]))) == pytest.approx(0.56)


def test_informedness_train_is_not_zero_for_chance_when_pi_differs_from_p():
    # Vickers, Limitations: with the training distribution in the odds, "systems which use
    # strategies such as 'guess the most common' may have Informedness scores other than zero".
    # C = N p qᵀ scores Σ_c q_c² (p_c − π_c)/(π_c (1 − π_c)); p = (0.8, 0.2), q = (1, 0), π = (1/2, 1/2):
    # 1 · (0.8 − 0.5)/(0.25) = 1.2.
    chance = 100 * np.outer([0.8, 0.2], [1.0, 0.0])
    assert float(informedness_at([0.5, 0.5])(chance)) == pytest.approx(1.2)
    assert float(informedness_at([0.8, 0.2])(chance)) == pytest.approx(0.0, abs=1e-12)
    metric = informedness_at([0.5, 0.3, 0.2])
    assert metric.classes == 3 and metric.range == pytest.approx((-2.0, 5.0))


def test_informedness_train_undefined_with_infinite_odds():
    # π_c = 0 for a class predicted correctly: a gain of 1/0
    metric = informedness_at([1.0, 0.0])
    assert np.isnan(float(metric(np.array([[3, 1], [1, 2]]))))
    assert metric.undefined_when


def test_powers_informedness_is_zero_for_every_independent_predictor():
    # C = N p qᵀ: R_i = q_i and FPR_i = (N q_i − N p_i q_i)/(N − N p_i) = q_i, so every term is 0.
    rng = np.random.default_rng(0)
    for _ in range(20):
        k = rng.integers(2, 7)
        p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        independent = 500 * np.outer(p, q)
        assert abs(value("informedness", independent)) < 1e-12
        assert abs(value("markedness", independent)) < 1e-12
        assert abs(value("kappa", independent)) < 1e-12
        assert abs(value("mcc", independent)) < 1e-12
        assert value("nit", independent) == pytest.approx(1 / k)


# ---------------------------------------------------------------------------- registry


@pytest.mark.parametrize("metric", list(REGISTRY), ids=lambda m: m.id)
def test_every_metric_declares_its_record(metric):
    assert metric.formula.strip(), metric.id
    assert metric.name.strip()
    assert metric.references or metric.properties.source.strip()
    assert isinstance(metric.properties, Properties)
    assert metric.range[0] < metric.range[1]
    assert all(hasattr(ConfusionStats, f"{q}_undefined") for q in metric.uses)
    if not metric.per_class:
        assert metric.chance.strip(), metric.id


@pytest.mark.parametrize("name, metric_id", [
    ("balanced accuracy", "macro_recall"),
    ("Balanced_Accuracy", "macro_recall"),
    ("micro F1", "accuracy"),
    ("micro-F1", "accuracy"),
    ("Youden's J", "informedness"),
    ("Youden’s J", "informedness"),  # typographic apostrophe
    ("bookmaker informedness", "informedness"),
    ("F1-macro", "macro_f1"),
    ("average F1", "macro_f1"),
    ("macro F1", "macro_f1"),
    ("macro F1'", "macro_f1_hm"),
    ("macro F1′", "macro_f1_hm"),  # prime
    ("F1 of averages", "macro_f1_hm"),
    ("macro F1 prime", "macro_f1_hm"),
    ("cohen's kappa", "kappa"),
    ("MK", "markedness"),
])
def test_alias_resolution(name, metric_id):
    assert REGISTRY.resolve(name) == metric_id


def test_ambiguous_aliases_carry_a_note():
    for name in ("average F1", "macro F1", "macro-F1"):
        note = REGISTRY.alias_note(name)
        assert note and "macro_f1_hm" in note and "Opitz 2024 §4.5" in note, name
    assert REGISTRY.alias_note("F1 of averages") is None
    assert normalise_name("Macro F1′") == normalise_name("macro f1'") != normalise_name("macro f1")


def test_unknown_metric_is_a_usage_error():
    with pytest.raises(auditor.UsageError):
        REGISTRY.resolve("area under the moon")


def test_vickers_reference_implementation_computes_markedness_in_our_orientation():
    # Vickers et al.'s released code (github.com/petervickers/aacl-informedness,
    # metrics/informedness.py), restated: on scikit-learn's matrix (rows gold) it takes the
    # column shares b as the "real" class probabilities and the row shares p as the prediction
    # probabilities, and sums over items (t = gold, y = prediction) the gain
    # 1/b_t if y = t else −1/(1 − b_t), weighted p_t/N. That is
    # Σ_t p_t (C_tt/col_t − (row_t − C_tt)/(N − col_t)) = Σ_t p_t (PPV_t + NPV_t − 1): our
    # markedness (informedness of Cᵀ), which differs from informedness unless C is symmetric.
    gold, pred = labels_of(C3)
    n = len(gold)
    b, p = np.bincount(pred) / n, np.bincount(gold) / n
    gain = sum((1 / b[t] if t == y else -1 / (1 - b[t])) * p[t] / n for t, y in zip(gold, pred))
    assert gain == pytest.approx(value("markedness", C3))
    assert gain != pytest.approx(value("informedness", C3))
    # Their docstring example ([0,1,0,0,1,0] vs [0,1,0,0,0,1]) prints 0.625; the matrix
    # [[3, 1], [1, 1]] is symmetric and its Youden J is 1/2 + 3/4 − 1 = 0.25, which the loop returns.
    assert value("informedness", np.array([[3, 1], [1, 1]])) == pytest.approx(0.25)


def test_per_class_table_shows_undefined_as_none():
    table = auditor.metrics.catalogue.per_class_table(SKLEARN_CASES["class never predicted"], ["a", "b", "c"])
    assert table["b"]["precision"] is None and table["b"]["recall"] == 0.0
    assert table["b"]["support"] == 4 and table["b"]["predicted"] == 0
    assert any("never predicted" in reason for reason in table["b"]["undefined"])
    assert table["a"]["precision"] == pytest.approx(6 / 10)  # C_aa / col_a = 6 / (6 + 3 + 1)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_training_prevalence_audit_runs_for_k_classes(k):
    """--training-prevalence used to crash on every input: the property probe evaluated the
    k-share metric on matrices of every other size (a broadcasting error). It is now probed
    at its own k only."""
    from auditor.pipeline import audit

    labels = "abcd"[:k]
    gold = [labels[i % k] for i in range(24)]
    pred = [labels[(i + (i % 5 == 0)) % k] for i in range(24)]
    shares = {label: (i + 1) / sum(range(1, k + 1)) for i, label in enumerate(labels)}
    result = audit(gold, {"s": pred}, bootstrap=20, training_prevalence=shares)
    document = result.to_json()
    value = document["systems"]["s"]["metrics"]["informedness_train"]["value"]
    expected = informedness_at([shares[label] for label in labels])(result.systems["s"].confusion)
    assert value == pytest.approx(float(expected))
    assert document["properties"]["informedness_train"]["chance_correction"] in ("none", "bounded")
    assert set(document["properties"]["informedness_train"]["chance_bound"]) == {str(k)}


def test_nit_memory_is_quadratic_in_k():
    """1,000 classes: NIT needs O(k²) memory (a few k×k arrays), never a k×k×k temporary."""
    import tracemalloc

    k = 1000
    rng = np.random.default_rng(0)
    matrix = rng.integers(0, 3, size=(k, k)).astype(float) + np.eye(k) * 5
    stats = ConfusionStats(matrix)
    tracemalloc.start()
    value = float(REGISTRY.get("nit").function(stats))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 12 * k * k * 8  # a dozen k×k float arrays at most (k³ floats would be 8 GB)
    # same value as the cell-by-cell definition Σ_ij (C_ij/N) log2(N C_ij/(row_i col_j)) / k_gold
    n, row, col = matrix.sum(), matrix.sum(1), matrix.sum(0)
    positive = matrix > 0
    mi = np.sum(matrix[positive] / n * np.log2(n * matrix[positive] / np.outer(row, col)[positive]))
    assert value == pytest.approx(2**mi / k)


def test_nit_divides_by_the_gold_classes_only():
    """Vickers Eq. 7: H_{U_y} is the entropy of a uniform distribution over the real (gold)
    classes. A label only the system predicts does not count: gold {a, b}, predictions {a, b, c}."""
    matrix = np.array([[3, 0, 1], [0, 4, 0], [0, 0, 0]])
    gold, pred = labels_of(matrix)
    mi_bits = skm.mutual_info_score(gold, pred) / math.log(2)
    assert value("nit", matrix) == pytest.approx(2**mi_bits / 2)
