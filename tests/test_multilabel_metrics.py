"""Multi-label metrics (auditor.tasks.multilabel): a hand-computed case for every metric and every 0/0, scikit-learn
and pycm's MultiLabelCM as oracles on random sets, and hypothesis property tests of the invariants."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.counting import count
from auditor.tasks.multilabel.measures import METRIC_IDS, evaluate_with_undefined, part_conventions


def figures(gold, *systems, labels=None):
    gold = np.asarray(gold, dtype=bool)
    stack = np.stack([np.asarray(s, dtype=bool) for s in systems])
    labels = labels or tuple("abcdefghij"[:gold.shape[1]])
    aligned = Aligned.of_bits([f"s{i}" for i in range(len(systems))], labels, gold, stack)
    counted = count(aligned)
    return counted, evaluate_with_undefined(counted.sums)


# gold {a,b}, {c}, {}; predicted {a}, {}, {} -- every figure worked out by hand below.
HAND_GOLD = [[1, 1, 0], [0, 0, 1], [0, 0, 0]]
HAND_PRED = [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
HAND = {
    "subset_accuracy": 1 / 3,          # only item 3 (both empty) matches
    "hamming_loss": 2 / 9,             # FN of b and of c over 3 items x 3 labels
    "micro_precision": 1.0,            # TP 1 / predicted 1
    "micro_recall": 1 / 3,             # TP 1 / gold 3
    "micro_f1": 0.5,                   # 2 / (2 + 0 + 2)
    "jaccard_micro": 1 / 3,            # 1 / (1 + 0 + 2)
    "macro_precision": 1 / 3,          # a 1, b 0/0 -> 0, c 0/0 -> 0
    "macro_recall": 1 / 3,             # a 1, b 0, c 0
    "macro_f1": 1 / 3,                 # a 1, b 0/1, c 0/1
    "jaccard_macro": 1 / 3,
    "weighted_f1": 1 / 3,              # supports 1, 1, 1
    "samples_precision": 1 / 3,        # 1/1, 0/0 -> 0, 0/0 -> 0
    "samples_recall": 1 / 6,           # 1/2, 0/1, 0/0 -> 0
    "samples_f1": 2 / 9,               # 2/3, 0/1, 0/0 -> 0
    "jaccard_samples": 1 / 6,          # 1/2, 0/1, 0/0 -> 0
}


def test_every_metric_has_a_hand_computed_value():
    assert set(HAND) == set(METRIC_IDS)
    _, values = figures(HAND_GOLD, HAND_PRED)
    for metric, expected in HAND.items():
        assert values[metric][0][0] == pytest.approx(expected), metric
        assert not values[metric][1][0], metric


def test_the_zero_divisions_are_listed_with_the_convention():
    counted, _ = figures(HAND_GOLD, HAND_PRED)
    notes = part_conventions(counted.sums, ("a", "b", "c"), 0)
    assert "2 labels (b, c)" in notes["macro_precision"] and "zero_division=0" in notes["macro_precision"]
    assert "2 items with an empty predicted set" in notes["samples_precision"]
    assert "1 item with an empty gold set" in notes["samples_recall"]
    assert "1 item with both sets empty" in notes["samples_f1"] and "1 item" in notes["jaccard_samples"]
    assert "macro_f1" not in notes  # F1 = 2TP/(2TP+FP+FN) is defined for b and c (FN > 0)


def test_a_figure_that_is_zero_over_zero_as_a_whole_is_flagged_and_shown_as_zero():
    _, values = figures([[1, 0], [0, 1]], [[0, 0], [0, 0]])
    value, undefined = values["micro_precision"]
    assert value[0] == 0 and undefined[0]  # nothing predicted at all
    value, undefined = values["micro_f1"]
    assert value[0] == 0 and not undefined[0]  # FN > 0: F1 is defined and 0
    _, values = figures([[0, 0]], [[0, 0]])
    assert values["micro_f1"][1][0] and values["micro_recall"][1][0] and values["weighted_f1"][1][0]
    assert values["subset_accuracy"][0][0] == 1.0


set_pairs = st.integers(2, 5).flatmap(lambda L: st.integers(1, 25).flatmap(lambda N: st.tuples(
    arrays(bool, (N, L)), arrays(bool, (N, L)))))


def sklearn_figures(Y, P):
    from sklearn import metrics as M

    ref = {"subset_accuracy": M.accuracy_score(Y, P), "hamming_loss": M.hamming_loss(Y, P),
           "weighted_f1": M.f1_score(Y, P, average="weighted", zero_division=0)}
    for average in ("micro", "macro", "samples"):
        ref[f"{average}_precision"] = M.precision_score(Y, P, average=average, zero_division=0)
        ref[f"{average}_recall"] = M.recall_score(Y, P, average=average, zero_division=0)
        ref[f"{average}_f1"] = M.f1_score(Y, P, average=average, zero_division=0)
        ref[f"jaccard_{average}"] = M.jaccard_score(Y, P, average=average, zero_division=0)
    return ref


@settings(max_examples=60, deadline=None)
@given(set_pairs)
def test_every_metric_equals_scikit_learn_on_random_sets(pair):
    Y, P = pair
    _, values = figures(Y, P)
    for metric, expected in sklearn_figures(Y.astype(int), P.astype(int)).items():
        assert values[metric][0][0] == pytest.approx(expected, abs=1e-12), metric


@settings(max_examples=40, deadline=None)
@given(set_pairs)
def test_per_label_counts_and_binary_catalogue_equal_pycm(pair):
    from pycm import MultiLabelCM

    from auditor.tasks.multilabel.result import MultilabelAudit

    Y, P = pair
    counted, _ = figures(Y, P)
    labels = tuple("abcde"[:Y.shape[1]])
    result = MultilabelAudit.__new__(MultilabelAudit)
    object.__setattr__(result, "counted", counted)
    object.__setattr__(result, "aligned", Aligned.of_bits(("s0",), labels, Y, [P]))
    table = result.per_class(0)
    oracle = MultiLabelCM([{labels[j] for j in np.flatnonzero(row)} for row in Y],
                          [{labels[j] for j in np.flatnonzero(row)} for row in P], classes=list(labels))
    for label in labels:
        cm = oracle.get_cm_by_class(label)
        if set(cm.classes) != {0, 1}:  # pycm keeps only the classes it saw (a label on every item or none)
            continue
        counts = (cm.TP[1], cm.FP[1], cm.FN[1])
        assert (table[label]["tp"], table[label]["fp"], table[label]["fn"]) == counts
        for ours, theirs in (("mcc", cm.MCC[1]), ("informedness", cm.BM[1]), ("markedness", cm.MK[1]),
                             ("accuracy", cm.ACC[1])):
            if table[label][ours] is None:
                assert theirs == "None", (label, ours)  # 0/0 in both
            elif theirs != "None":
                assert table[label][ours] == pytest.approx(theirs, abs=1e-9), (label, ours)


@settings(max_examples=60, deadline=None)
@given(set_pairs, st.randoms(use_true_random=False))
def test_invariants(pair, rng):
    Y, P = pair
    _, values = figures(Y, P, Y)
    v = {m: values[m][0] for m in values}
    # a perfect prediction: micro F1 1 whenever gold has a label, subset accuracy 1, Hamming loss 0
    if Y.any():
        assert v["micro_f1"][1] == 1
    assert v["subset_accuracy"][1] == 1 and v["hamming_loss"][1] == 0
    # subset accuracy <= samples Jaccard when no item has both sets empty (0/0 counts 0, an exact match 1)
    if (Y | P).any(axis=1).all():
        assert v["subset_accuracy"][0] <= v["jaccard_samples"][0] + 1e-12
    # Hamming loss = 1 - mean over labels of label-wise accuracy
    assert v["hamming_loss"][0] == pytest.approx(1 - (Y == P).mean(axis=0).mean())
    # permuting the items leaves every figure
    order = list(range(Y.shape[0]))
    rng.shuffle(order)
    _, permuted = figures(Y[order], P[order])
    for metric in values:
        assert permuted[metric][0][0] == pytest.approx(v[metric][0], abs=1e-12)
    # micro Jaccard J and micro F1 F are linked by F = 2J / (1 + J)
    j = v["jaccard_micro"][0]
    assert v["micro_f1"][0] == pytest.approx(2 * j / (1 + j))
