"""Reproductions of the numbers printed in the project's sources (``sources/`` in the design notes).

Each test restates the printed numbers, cites the file and section they come from, and
recomputes them with auditor's metrics. Where a source's own table is inconsistent, the test
says so and checks the inconsistency, instead of bending the code to it.
"""
from __future__ import annotations

import numpy as np
import pytest

from auditor import REGISTRY


def score(metric_id: str, matrix, all_labels_active: bool = False) -> float:
    return float(REGISTRY.get(metric_id)(np.asarray(matrix, dtype=float), all_labels_active))


# --------------------------------------------------------------- Opitz (2024), §7.1 Table 6

#: SemEval-2017 Task 4A test set (Rosenthal et al. 2017), gold counts: negative, neutral,
#: positive. Opitz's r1, r2, r3 are the class recalls in this order: with these counts they give
#: back the printed accuracy of every system (below).
SEMEVAL_2017_4A_COUNTS = np.array([3972, 5937, 2375])

#: Opitz 2024 (opitz-2024-closer-look-classification-metrics.md), §7.1 Table 6, ×100:
#: sys: standard Acc, macR, macP, macF1, macF1′, weightF1, Kappa, MCC, GmacR, HmacR, r1, r2, r3;
#: after prevalence calibration macF1, macF1′, Kappa, MCC.
TABLE_6 = {
    "A": (65.1, 68.1, 65.5, 65.4, 66.8, 64.5, 46.5, 48.0, 66.8, 65.4, 82.9, 51.2, 70.2, 67.7, 68.2, 52.1, 52.6),
    "B": (65.8, 68.1, 67.4, 66.0, 67.8, 65.1, 47.3, 49.2, 66.5, 65.0, 87.8, 51.4, 65.2, 67.7, 68.7, 52.2, 53.1),
    "C": (66.1, 67.6, 66.2, 66.0, 66.9, 65.7, 47.2, 48.1, 66.8, 66.0, 81.7, 56.0, 65.2, 67.5, 68.0, 51.4, 51.8),
    "D": (65.2, 67.4, 64.9, 65.1, 66.1, 64.8, 46.3, 47.3, 66.5, 65.6, 80.3, 54.2, 67.6, 67.1, 67.5, 51.0, 51.3),
    "E": (66.4, 66.9, 65.4, 66.0, 66.1, 66.4, 47.0, 47.0, 66.8, 66.8, 69.8, 64.0, 66.8, 67.3, 67.5, 50.3, 50.5),
    "F": (64.8, 65.9, 63.9, 64.5, 64.9, 64.7, 45.0, 45.4, 65.6, 65.4, 73.5, 58.7, 65.6, 66.1, 66.3, 48.9, 49.0),
    "G": (63.3, 64.9, 63.6, 63.4, 64.2, 63.1, 43.0, 43.8, 64.2, 63.5, 77.4, 53.9, 63.5, 64.9, 65.4, 47.4, 47.7),
    "H": (64.3, 64.5, 63.1, 63.7, 63.8, 64.4, 43.6, 43.6, 64.5, 64.5, 65.3, 63.6, 64.5, 64.9, 65.2, 46.7, 47.0),
}
COLUMNS = ("acc", "macr", "macp", "macf1", "macf1_hm", "wf1", "kappa", "mcc", "gmacr", "hmacr", "r1", "r2", "r3",
           "cal_macf1", "cal_macf1_hm", "cal_kappa", "cal_mcc")
#: Printed to one decimal (×100): ±0.05 per printed number, so a value recomputed from printed
#: recalls carries up to ±0.05 more.
PRINTED = 0.0005


def matrix_with_recalls(recalls: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """A confusion matrix (rows gold) with the given gold counts and class recalls: C_ii = r_i n_i,
    each class's errors all predicted as the next class. Every metric that depends on the recalls
    only (accuracy, macR, GmacR, HmacR, calibrated accuracy and kappa) is fixed by them; real-valued
    counts are allowed (Opitz §2, footnote 1)."""
    k = len(counts)
    matrix = np.zeros((k, k))
    for i in range(k):
        matrix[i, i] = recalls[i] * counts[i]
        matrix[i, (i + 1) % k] = (1 - recalls[i]) * counts[i]
    return matrix


@pytest.mark.parametrize("system", sorted(TABLE_6))
def test_opitz_table_6_columns_that_follow_from_the_published_recalls(system):
    row = dict(zip(COLUMNS, np.array(TABLE_6[system]) / 100))
    recalls = np.array([row["r1"], row["r2"], row["r3"]])
    matrix = matrix_with_recalls(recalls, SEMEVAL_2017_4A_COUNTS)
    # Acc = Σ_i p_i r_i with the test counts 3972/5937/2375
    assert score("accuracy", matrix) == pytest.approx(row["acc"], abs=2 * PRINTED)
    # macR = (r1 + r2 + r3)/3; GmacR and HmacR: geometric and harmonic mean of r (§5.1)
    assert score("macro_recall", matrix) == pytest.approx(row["macr"], abs=2 * PRINTED)
    assert score("gmean_recall", matrix) == pytest.approx(row["gmacr"], abs=2 * PRINTED)
    assert score("hmean_recall", matrix) == pytest.approx(row["hmacr"], abs=2 * PRINTED)
    # calibrated accuracy = macR (§4.2, Eq. 8); calibrated kappa = (macR − 1/3)/(1 − 1/3) (§4.7, §5.2)
    assert score("accuracy_calibrated", matrix) == pytest.approx(score("macro_recall", matrix))
    assert score("kappa_calibrated", matrix) == pytest.approx(row["cal_kappa"], abs=3 * PRINTED)
    # from the printed macR: its ±0.05 grows by 1/(1 − 1/3) = 1.5, plus the ±0.05 of the printed kappa
    assert (row["macr"] - 1 / 3) / (2 / 3) == pytest.approx(row["cal_kappa"], abs=2.5 * PRINTED + 1e-12)
    # macF1′ = 2·macP·macR/(macP + macR) from the printed macP and macR (§4.5)
    assert 2 * row["macp"] * row["macr"] / (row["macp"] + row["macr"]) == pytest.approx(row["macf1_hm"],
                                                                                        abs=2 * PRINTED)
    # |MCC| ≥ |Kappa| with the same sign (§4.7), standard and calibrated; F1′ ≥ macro F1 (Opitz & Burst 2019)
    assert row["mcc"] >= row["kappa"] and row["cal_mcc"] >= row["cal_kappa"]
    assert row["macf1_hm"] >= row["macf1"] and row["cal_macf1_hm"] >= row["cal_macf1"]


def test_opitz_table_6_counts_and_the_text_about_system_e():
    """§7.1: 'system E ... obtains highest Accuracy, and it achieves a better balance over the three
    classes (R1 = 69.8, R2 = 64.0, R3 = 66.8, max. Δ = 5.8) as opposed to, e.g., system B
    (R1 = 87.8, R2 = 51.4, R3 = 65.2 max. Δ = 36.4)'. The winners A and B were chosen by macR."""
    assert SEMEVAL_2017_4A_COUNTS.sum() == 12284
    accuracy = {s: score("accuracy", matrix_with_recalls(np.array(v[10:13]) / 100, SEMEVAL_2017_4A_COUNTS))
                for s, v in TABLE_6.items()}
    assert max(accuracy, key=accuracy.get) == "E"
    spread = {s: max(v[10:13]) - min(v[10:13]) for s, v in TABLE_6.items()}
    assert spread["E"] == pytest.approx(5.8) and spread["B"] == pytest.approx(36.4)
    assert TABLE_6["A"][1] == TABLE_6["B"][1] == max(v[1] for v in TABLE_6.values())


# ------------------------------------------------------------ slides: Cohen's kappa example


def test_slides_cohens_kappa_example():
    """slides-nlp-evaluation-protocol.md, "Cohen's kappa", Example: annotators A (columns) and B
    (rows): B yes/A yes 0, B yes/A no 10, B no/A yes 20, B no/A no 70. Chance of yes: A 0.2, B 0.1;
    chance agreement 0.02 + 0.72 = 0.74; observed 0.7; κ = (0.7 − 0.74)/(1 − 0.74) = −0.15."""
    # A as the reference (rows), B as the 'system' (columns); labels (yes, no)
    matrix = np.array([[0, 20], [10, 70]])
    assert score("accuracy", matrix) == pytest.approx(0.7)
    kappa = score("kappa", matrix)
    assert kappa == pytest.approx((0.7 - 0.74) / (1 - 0.74))  # −0.153846…
    assert round(kappa, 2) == -0.15
    assert score("kappa", matrix.T) == pytest.approx(kappa)  # kappa is symmetric in the two annotators


# --------------------------------------------------------------- blog: MCC vs F1 examples


def test_blog_confusion_matrix_example():
    """blog-nlp-evaluation-metrics.md, "Confusion Matrix": y_true = [1, 0, 1, 0, 1],
    y_pred = [1, 0, 1, 1, 0] -> (tn, fp, fn, tp) = (1, 1, 1, 2); row-normalised
    (tnr, fpr, fnr, tpr) = (1/2, 1/2, 1/3, 2/3)."""
    matrix = np.array([[1, 1], [1, 2]])  # rows gold (0, 1), as scikit-learn and the blog
    recall = REGISTRY.get("class_recall")(matrix)
    assert recall == pytest.approx([1 / 2, 2 / 3])  # tnr, tpr


def test_blog_mcc_example_1_all_predicted_positive():
    """Blog, "Matthews Correlation Coefficient", Example 1: 10 samples, y = (1, …, 1, 0),
    ŷ = (1, …, 1): F1 = 0.9474, MCC = 0. F1 of the positive class is 2·9/(2·9 + 1) = 18/19.
    The blog's MCC = 0 is scikit-learn's convention for a constant prediction; the formula is
    0/0 there (1 − bᵀb = 0), so auditor reports it as undefined rather than 0."""
    matrix = np.array([[0, 1], [0, 9]])  # rows gold (0, 1): the one 0 predicted as 1
    assert REGISTRY.get("class_f1")(matrix)[1] == pytest.approx(18 / 19)
    assert round(18 / 19, 4) == 0.9474
    assert np.isnan(score("mcc", matrix))
    assert "0/0" in REGISTRY.get("mcc").undefined_when and "scikit-learn shows 0" in REGISTRY.get("mcc").undefined_when


def test_blog_mcc_example_2_chicco_jurman_a1():
    """Blog, Example 2 (use case A1 of Chicco & Jurman): 91 positive, 9 negative; TP = 90, TN = 0,
    FP = 9, FN = 1: F1 = 0.95, MCC = −0.03. By hand: F1 = 180/190 = 0.947;
    MCC = (90·0 − 9·1)/√(99·91·9·1) = −9/√81081 = −0.0316."""
    matrix = np.array([[0, 9], [1, 90]])  # rows gold (negative, positive)
    f1_positive = REGISTRY.get("class_f1")(matrix)[1]
    assert f1_positive == pytest.approx(180 / 190) and round(f1_positive, 2) == 0.95
    assert score("mcc", matrix) == pytest.approx(-9 / np.sqrt(99 * 91 * 9 * 1))
    assert round(score("mcc", matrix), 2) == -0.03


# ------------------------------------------------- Vickers & Monti: the predictive-power model


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("x", [0.0, 0.25, 0.5, 0.9, 1.0])
def test_vickers_right_x_percent_otherwise_guess_from_the_prevalence(k, x):
    """vickers-monti-classification-metrics-nlp.md §2 (Informedness): 'the expected value of a
    model which predicts correctly x% of the time, and guesses from the prevalence 100-x% of the
    time is x' (the §3 toy model). Expected counts: C = N (x diag(p) + (1 − x) p pᵀ); then
    R_i = x + (1 − x) p_i and FPR_i = (1 − x) p_i, so every R_i − FPR_i = x and so is their
    bias-weighted sum, whatever the prevalence."""
    rng = np.random.default_rng(k)
    for p in (np.full(k, 1 / k), rng.dirichlet(np.ones(k)), np.r_[0.9, np.full(k - 1, 0.1 / (k - 1))]):
        matrix = 1000 * (x * np.diag(p) + (1 - x) * np.outer(p, p))
        assert score("informedness", matrix) == pytest.approx(x, abs=1e-12)


def test_vickers_toy_model_accuracy_and_a_sample():
    """§5.1: 'F1-Macro and Accuracy converge on 0.75, which reflects correctly predicting a binary task
    half the time, and randomly guessing the other half' — accuracy = x + (1 − x) Σ p_i² = 0.75 at
    x = 0.5 on balanced binary data, while informedness is 0.5. A sampled run of the §3 model (N =
    200,000) lands within 0.01 of x."""
    p = np.array([0.5, 0.5])
    matrix = 1000 * (0.5 * np.diag(p) + 0.5 * np.outer(p, p))
    assert score("accuracy", matrix) == pytest.approx(0.75)
    assert score("macro_f1", matrix) == pytest.approx(0.75)
    assert score("informedness", matrix) == pytest.approx(0.5)
    rng = np.random.default_rng(2024)
    gold = rng.choice(3, size=200_000, p=[0.6, 0.3, 0.1])
    informed = rng.random(200_000) < 0.7
    guess = rng.choice(3, size=200_000, p=[0.6, 0.3, 0.1])
    pred = np.where(informed, gold, guess)
    counts = np.zeros((3, 3))
    np.add.at(counts, (gold, pred), 1)
    assert score("informedness", counts) == pytest.approx(0.7, abs=0.01)


def test_vickers_table_4_is_inconsistent_with_their_own_binary_identity():
    """Vickers et al. §2: 'the binary case [of balanced accuracy] is equivalent to a re-scaled
    Informedness', i.e. informedness = 2·BA − 1 for two classes — which auditor satisfies exactly.
    Their Table 4 (§6, formality-aware MT) prints balanced accuracy 95.3 and informedness 91.8:
    2·95.3 − 100 = 90.6, 1.2 points from the printed 91.8, beyond rounding (±0.1). The
    off-the-shelf system (BA 50.0, informedness 00.0) is consistent. We do not bend the code to the
    table; the released implementation computes markedness in our orientation (see
    tests/test_metrics.py), which may explain the gap."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        matrix = rng.integers(1, 50, size=(2, 2))
        assert score("informedness", matrix) == pytest.approx(2 * score("macro_recall", matrix) - 1)
    printed_ba, printed_informedness = 95.3, 91.8
    implied = 2 * printed_ba - 100
    assert abs(implied - printed_informedness) > 1.0  # the table's inconsistency, beyond ±0.1 rounding
    assert 2 * 50.0 - 100 == pytest.approx(0.0)      # the off-the-shelf row is consistent


def test_vickers_eq_4_5_read_as_the_bookmaker():
    """Vickers et al. Eq. 4–5 as converted: i(y, ŷ) = 1/p(y=c) if ŷ = c, −1/(1 − p(y=c)) if ŷ ≠ c, and
    I = Σ_c p(ŷ=c)/N Σ_y 1(y = c) i(y, ŷ). Read literally (sum over the items of gold class c, gain
    when predicted c) a constant prediction of any class scores exactly 1 — contradicting the same
    section ('a model with no predictive capability is unable to gain any credit through either
    label bias or baseline credit'). The reading that satisfies §2's own statements is Powers'
    bookmaker, which auditor implements: a bet on class c (a prediction of c) gains 1/p(c) when the
    item is c and loses 1/(1 − p(c)) otherwise, weighted by p(ŷ = c); it is 0 for the constant
    prediction and x for the 'right x% of the time' model (tests above)."""
    gold = np.array([0] * 6 + [1] * 3 + [2] * 1)
    pred = np.zeros(10, dtype=int)  # always class 0
    n, p = len(gold), np.bincount(gold, minlength=3) / len(gold)
    b = np.bincount(pred, minlength=3) / n
    literal = sum(b[c] / n * sum(1 / p[c] if y_hat == c else -1 / (1 - p[c])
                                  for y, y_hat in zip(gold, pred) if y == c) for c in range(3))
    assert literal == pytest.approx(1.0)
    bookmaker = sum(b[c] / n * sum(1 / p[c] if y == c else -1 / (1 - p[c])
                                    for y, y_hat in zip(gold, pred) if y_hat == c) for c in range(3))
    assert bookmaker == pytest.approx(0.0)
    counts = np.zeros((3, 3))
    np.add.at(counts, (gold, pred), 1)
    assert score("informedness", counts) == pytest.approx(bookmaker)
