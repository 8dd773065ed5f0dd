"""Property-based tests of the metric catalogue, parametrised over the registry.

Like scikit-learn's ``sklearn/metrics/tests/test_common.py``: every registered scalar metric
is checked for the invariances that hold for all of them, and the whole catalogue is checked
against scikit-learn on random label arrays (including degenerate draws).
"""
from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn import metrics as skm

import auditor
from auditor import REGISTRY, ConfusionStats
from auditor.metrics.catalogue import compute
from auditor.metrics.parameterised import informedness_at

SCALAR = REGISTRY.scalar()
SCALAR_IDS = [metric.id for metric in SCALAR]
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def confusion(draw, min_k=2, max_k=5, max_count=12, rows_nonempty=False):
    """A random k×k count matrix with N > 0 (optionally every gold row non-empty)."""
    k = draw(st.integers(min_k, max_k))
    matrix = draw(hnp.arrays(np.int64, (k, k), elements=st.integers(0, max_count)))
    if rows_nonempty:
        matrix[np.arange(k), draw(st.lists(st.integers(0, k - 1), min_size=k, max_size=k))] += 1
    if matrix.sum() == 0:
        matrix[0, 0] = 1
    return matrix


@st.composite
def label_arrays(draw, max_k=4, max_n=30):
    """Gold and predicted integer labels; few items and missing classes are allowed."""
    k = draw(st.integers(1, max_k))
    n = draw(st.integers(1, max_n))
    gold = draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    pred = draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    return gold, pred


def approx_equal(x, tol=1e-9):
    import pytest

    return pytest.approx(x, rel=tol, abs=tol)


def same(a, b, tol=1e-9):
    """Equal up to rounding, NaN equal to NaN (an undefined metric stays undefined)."""
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol, equal_nan=True)


def matrix_of(gold, pred):
    counts = auditor.count(gold, {"s": pred})
    return counts.confusion[0], counts.labels


# --------------------------------------------------------------------------- invariances


@FAST
@given(matrix=confusion(), data=st.data())
def test_label_permutation_leaves_every_scalar_metric_unchanged(matrix, data):
    order = np.array(data.draw(st.permutations(range(matrix.shape[0]))))
    before = compute(matrix, SCALAR)
    after = compute(matrix[np.ix_(order, order)], SCALAR)
    for metric_id in SCALAR_IDS:
        assert same(before[metric_id], after[metric_id]), metric_id


@FAST
@given(arrays=label_arrays(), data=st.data())
def test_item_order_is_irrelevant(arrays, data):
    gold, pred = arrays
    order = np.array(data.draw(st.permutations(range(len(gold)))))
    first, _ = matrix_of(gold, pred)
    shuffled, _ = matrix_of(gold[order], pred[order])
    assert (first == shuffled).all()
    before, after = compute(first, SCALAR), compute(shuffled, SCALAR)
    for metric_id in SCALAR_IDS:
        assert same(before[metric_id], after[metric_id]), metric_id


@FAST
@given(matrix=confusion(), factor=st.integers(2, 50))
def test_scaling_all_counts_leaves_every_metric_unchanged(matrix, factor):
    before, after = compute(matrix), compute(matrix * factor)
    for metric in REGISTRY:
        assert same(before[metric.id], after[metric.id]), metric.id


@settings(max_examples=60, deadline=None)
@given(stack=hnp.arrays(np.int64, st.tuples(st.integers(1, 3), st.integers(1, 3), st.just(3), st.just(3)),
                        elements=st.integers(0, 9)))
def test_batch_axes_equal_one_matrix_at_a_time(stack):
    stack = stack.copy()
    stack[..., 0, 0] += 1  # N > 0 everywhere
    batched = compute(stack)
    for b in range(stack.shape[0]):
        for s in range(stack.shape[1]):
            alone = compute(stack[b, s])
            for metric in REGISTRY:
                assert same(batched[metric.id][b, s], alone[metric.id]), metric.id


@FAST
@given(matrix=confusion(max_k=6))
def test_values_within_declared_range_or_declared_undefined(matrix):
    values = compute(matrix)
    for metric in REGISTRY:
        value = np.asarray(values[metric.id], float)
        lo, hi = metric.range
        nan = np.isnan(value)
        if nan.any():
            assert metric.undefined_when, f"{metric.id} is NaN but declares no undefined_when"
        assert ((value[~nan] >= lo - 1e-12) & (value[~nan] <= hi + 1e-12)).all(), (metric.id, value)


@FAST
@given(matrix=confusion())
def test_macro_f1_hm_is_at_least_macro_f1(matrix):
    # Opitz & Burst 2019 (arXiv:1911.03347), Theorem: F1 of averages ≥ averaged F1.
    values = compute(matrix)
    if not np.isnan(values["macro_f1_hm"]):
        assert values["macro_f1_hm"] >= values["macro_f1"] - 1e-12


@FAST
@given(matrix=confusion(rows_nonempty=True))
def test_prevalence_calibration_identities(matrix):
    # Opitz 2024 §5.2: on C' (every gold class at prevalence 1/k) accuracy is macro recall and
    # weighted F1 is macro F1 *of C'*; calibration is idempotent and does not move recall.
    values = compute(matrix)
    assert same(values["accuracy_calibrated"], values["macro_recall"])
    assert same(values["weighted_f1_calibrated"], values["macro_f1_calibrated"])
    assert same(values["macro_recall_calibrated"], values["macro_recall"])
    assert same(values["gmean_recall_calibrated"], values["gmean_recall"])
    # Opitz §4.7/§5.2: calibrated kappa is affine in macro recall, (macR − 1/k)/(1 − 1/k), once
    # every class has gold items (p′ = 1/k, so p′ᵀb′ = 1/k and the observed agreement is macR)
    k = matrix.shape[0]
    assert same(values["kappa_calibrated"], (values["macro_recall"] - 1 / k) / (1 - 1 / k))
    # calibrated weighted F1 is the macro F1 of the calibrated matrix, computed here from C′ directly
    calibrated_matrix = auditor.metrics.catalogue.reweight_prevalence(matrix)
    assert same(values["weighted_f1_calibrated"], compute(calibrated_matrix)["macro_f1"])
    gold = matrix.sum(axis=1)
    calibrated = auditor.metrics.catalogue.reweight_prevalence(matrix)
    assert same(calibrated.sum(axis=1), np.full(len(gold), gold.sum() / len(gold)))
    assert same(auditor.metrics.catalogue.reweight_prevalence(calibrated), calibrated)


@FAST
@given(matrix=confusion(rows_nonempty=True))
def test_calibrated_accuracy_is_sklearn_balanced_accuracy(matrix):
    # scikit-learn balanced_accuracy_score averages recall over gold classes only
    # (sklearn/metrics/_classification.py), which is exactly accuracy on the calibrated matrix.
    gold, pred = np.nonzero(matrix)
    gold, pred = np.repeat(gold, matrix[gold, pred]), np.repeat(pred, matrix[gold, pred])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = skm.balanced_accuracy_score(gold, pred)
    assert same(compute(matrix)["accuracy_calibrated"], expected)


@FAST
@given(matrix=confusion(max_k=4), training=hnp.arrays(float, 4, elements=st.floats(0.05, 1.0)))
def test_informedness_weights_are_irrelevant_for_a_predictor_that_ignores_its_input(matrix, training):
    # Powers (2003, 2011): every per-class informedness R_i − FPR_i is 0 when C = N p qᵀ, so any
    # weighting (bias, uniform, a training prevalence) gives exactly 0.
    k = matrix.shape[0]
    p = matrix.sum(axis=1) / matrix.sum()
    q = matrix.sum(axis=0) / matrix.sum()
    independent = 1000.0 * np.outer(p, q)
    stats = ConfusionStats(independent)
    assert np.allclose(stats.informedness, 0.0, atol=1e-12)
    assert abs(float(REGISTRY.get("informedness")(independent))) < 1e-12
    # Vickers' training-prevalence informedness (π in the odds) is not 0 unless π = p:
    # Σ_c q_c² (p_c − π_c)/(π_c (1 − π_c)), the Limitations' "scores other than zero".
    pi = training[:k] / training[:k].sum()
    if np.all(pi < 1):
        closed_form = float(np.sum(q**2 * (p - pi) / (pi * (1 - pi))))
        assert float(informedness_at(training[:k])(independent)) == approx_equal(closed_form)
    if np.all((p > 0) & (p < 1)):  # at π = p it is informedness: 0 (Powers 2003)
        assert abs(float(informedness_at(p)(independent))) < 1e-9
    assert abs(float(REGISTRY.get("markedness")(independent))) < 1e-12
    assert abs(float(REGISTRY.get("kappa")(independent))) < 1e-12 or np.isnan(REGISTRY.get("kappa")(independent))


# ----------------------------------------------------------------------- vs scikit-learn


def _sklearn(gold, pred, labels):
    """The scikit-learn value of every metric that scikit-learn has (zero_division=0)."""
    prf = dict(labels=labels, zero_division=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recall = skm.recall_score(gold, pred, average=None, **prf)
        precision = skm.precision_score(gold, pred, average=None, **prf)
        macro_p = skm.precision_score(gold, pred, average="macro", **prf)
        macro_r = skm.recall_score(gold, pred, average="macro", **prf)
        out = {
            "accuracy": skm.accuracy_score(gold, pred),
            "macro_recall": macro_r,
            "macro_precision": macro_p,
            "macro_f1": skm.f1_score(gold, pred, average="macro", **prf),
            "weighted_f1": skm.f1_score(gold, pred, average="weighted", **prf),
            "class_recall": recall,
            "class_precision": precision,
            "class_f1": skm.f1_score(gold, pred, average=None, **prf),
            "kappa": skm.cohen_kappa_score(gold, pred),
            # F1′ by its definition from scikit-learn's macro P and macro R (Opitz & Burst eq. 3)
            "macro_f1_hm": 2 * macro_p * macro_r / (macro_p + macro_r) if macro_p + macro_r else np.nan,
            # NIT = 2^(MI − H_{U_y}) = 2^MI / k_gold (Vickers Eq. 7: uniform entropy of the gold
            # classes); scikit-learn's mutual_info_score is in nats
            "nit": np.exp2(skm.mutual_info_score(gold, pred) / np.log(2)) / len(np.unique(gold)),
            "gmean_recall": float(np.prod(recall) ** (1 / len(labels))),
            "hmean_recall": 0.0 if (recall == 0).any() else len(labels) / float(np.sum(1 / recall)),
        }
        mcc = skm.matthews_corrcoef(gold, pred)
    return out, mcc


@settings(max_examples=200, deadline=None)
@given(arrays=label_arrays())
def test_agrees_with_scikit_learn_on_random_label_arrays(arrays):
    gold, pred = arrays
    matrix, labels = matrix_of(gold, pred)
    codes = [int(label) for label in labels]  # sklearn's default label set: unique(gold ∪ pred)
    assert codes == sorted(set(gold) | set(pred))
    ours = compute(matrix)
    expected, sk_mcc = _sklearn(gold, pred, codes)
    for metric_id, value in expected.items():
        assert same(ours[metric_id], value), (metric_id, ours[metric_id], value)
    # MCC: equal where defined; where both marginals do not each have ≥ 2 classes scikit-learn
    # shows 0.0 and we deliberately return NaN (undefined_when says why).
    single = len(set(gold)) == 1 or len(set(pred)) == 1
    if single:
        assert np.isnan(ours["mcc"]) and sk_mcc == 0.0
    else:
        assert same(ours["mcc"], sk_mcc)
    # Binary with both gold classes: informedness = Youden's J = adjusted balanced accuracy.
    if len(codes) == 2 and len(set(gold)) == 2:
        assert same(ours["informedness"], skm.balanced_accuracy_score(gold, pred, adjusted=True))


@settings(max_examples=120, deadline=None)
@given(arrays=label_arrays(max_k=5), extra=st.integers(0, 2))
def test_fixed_label_set_agrees_with_scikit_learn_labels_argument(arrays, extra):
    # --labels: every given label counts in macro averages, as scikit-learn's labels= does.
    gold, pred = arrays
    labels = sorted(set(gold) | set(pred)) + [100 + i for i in range(extra)]
    counts = auditor.count(gold, {"s": pred}, labels=[str(label) for label in labels])
    ours = compute(counts.confusion[0], all_labels_active=True)
    expected, _ = _sklearn(gold, pred, labels)
    for metric_id in ("macro_recall", "macro_precision", "macro_f1", "weighted_f1", "accuracy",
                      "gmean_recall", "hmean_recall", "macro_f1_hm", "kappa"):
        assert same(ours[metric_id], expected[metric_id]), (metric_id, ours[metric_id], expected[metric_id])


@settings(max_examples=100, deadline=None)
@given(matrix=confusion(max_k=4, max_count=8))
def test_informedness_and_markedness_agree_with_pycm(matrix):
    # PyCM's per-class BM = TPR + TNR − 1 and MK = PPV + NPV − 1; informedness weights BM by
    # the bias, markedness weights MK by the prevalence (Powers 2011). PyCM writes the string
    # "None" where a per-class value is 0/0; that term is 0 by our convention.
    from pycm import ConfusionMatrix

    k = matrix.shape[0]
    cm = ConfusionMatrix(matrix={i: {j: int(matrix[i, j]) for j in range(k)} for i in range(k)})
    n = matrix.sum()
    as_float = lambda x: float(x) if isinstance(x, (int, float)) else 0.0  # noqa: E731
    bias, prevalence = matrix.sum(axis=0) / n, matrix.sum(axis=1) / n
    expected_bm = sum(bias[i] * as_float(cm.class_stat["BM"][i]) for i in range(k))
    expected_mk = sum(prevalence[i] * as_float(cm.class_stat["MK"][i]) for i in range(k))
    ours = compute(matrix)
    assert same(ours["informedness"], expected_bm)
    assert same(ours["markedness"], expected_mk)
