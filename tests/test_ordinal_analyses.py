"""The ordinal analyses (issue 34): level shift by hand, constant baselines exactly, ordinal agreement against the
``krippendorff`` package and scikit-learn, the property probes' answers and witnesses."""
from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, mean_absolute_error

from auditor.metrics.registry import REGISTRY, ConfusionStats
from auditor.options import AuditOptions
from auditor.tasks.ordinal.agreement import krippendorff_alpha_ordinal, ordinal_agreement
from auditor.tasks.ordinal.chance import constant_baselines, median_level
from auditor.tasks.ordinal.measures import ORDINAL_METRICS
from auditor.tasks.ordinal.probes import ordinal_properties
from auditor.tasks.ordinal.run import audit
from auditor.tasks.ordinal.shift import level_shift

BY_ID = {metric.id: metric for metric in ORDINAL_METRICS}


def test_level_shift_by_hand():
    # gold levels 1 1 2 3, predicted 2 1 3 3: mean gold 7/4, predicted 9/4, two items above, none below
    confusion = np.zeros((1, 3, 3))
    for g, p in ((0, 1), (0, 0), (1, 2), (2, 2)):
        confusion[0, g, p] += 1
    shift = level_shift(confusion, ("a", "b", "c"), ("s",))
    assert shift.mean_gold == pytest.approx(7 / 4) and shift.shift[0] == pytest.approx(0.5)
    assert shift.above[0] == pytest.approx(0.5) and shift.below[0] == 0
    # cumulative shares gold (2/4, 3/4, 1), predicted (1/4, 2/4, 1): |−1/4| + |−1/4| = 1/2 step
    assert shift.distance[0] == pytest.approx(0.5)
    assert shift.to_json()["systems"]["s"]["counts"] == [1, 1, 2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=2, max_size=7).filter(lambda n: sum(n) > 0))
def test_the_median_level_is_the_best_constant_under_mae(counts):
    counts = np.array(counts, dtype=float)
    levels = tuple(f"L{i}" for i in range(len(counts)))
    result = constant_baselines(counts, levels, ORDINAL_METRICS)
    gold = np.repeat(np.arange(len(counts)), counts.astype(int))
    by_hand = [mean_absolute_error(gold, np.full(gold.size, c)) for c in range(len(counts))]
    assert result.values["mae"] == pytest.approx(by_hand)
    assert levels[median_level(counts)] in result.best["mae"]
    assert result.value("mae", result.median) == pytest.approx(min(by_hand))


def test_cefr_sp_constants_and_annotator_agreement(shared_data):
    """figures.md: the majority level and the level above it tie on MAE^M (1.5) and differ on MAE; annotator B has
    low accuracy against A but high quadratic kappa; ordinal alpha equals the krippendorff package."""
    import pandas as pd

    folder = shared_data / "cefr-sp-wikiauto" / "audit"
    levels = (folder / "order.txt").read_text().strip().split(",")
    result = audit(str(folder / "gold.tsv"), {"majority": str(folder / "systems" / "majority.tsv")},
                   order_file=str(folder / "order.txt"), options=AuditOptions(bootstrap=0), analyses=(),
                   annotators={"A": str(folder / "gold.tsv"), "B": str(folder / "annotator-b.tsv")})
    constants = result.results["constant_baselines"]
    assert constants.value("mae_macro", "B1") == constants.value("mae_macro", "B2") == pytest.approx(1.5)
    assert constants.value("mae", "B1") == pytest.approx(0.8780, abs=5e-5)
    assert constants.value("mae", "B2") == pytest.approx(0.7598, abs=5e-5)
    assert constants.median == "B2" and constants.best["mae"] == ("B2",)
    agreement = result.results["ordinal_agreement"]
    position = {level: i for i, level in enumerate(levels)}
    gold = pd.read_csv(folder / "gold.tsv", sep="\t")
    other = pd.read_csv(folder / "annotator-b.tsv", sep="\t").set_index("id").loc[gold["id"]]
    a, b = gold["level"].map(position).to_numpy(), other["level"].map(position).to_numpy()
    assert agreement.alpha_ordinal == pytest.approx(
        krippendorff.alpha(reliability_data=np.stack([a, b]).astype(float), level_of_measurement="ordinal"), abs=1e-12)
    assert agreement.kappa("quadratic") == pytest.approx(cohen_kappa_score(a, b, weights="quadratic"), abs=1e-12)
    assert agreement.kappa("linear") == pytest.approx(cohen_kappa_score(a, b, weights="linear"), abs=1e-12)
    assert round(agreement.kappa("quadratic"), 4) == 0.6751 and np.mean(a == b) < 0.37


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(2, 6), st.data())
def test_ordinal_alpha_equals_the_krippendorff_package(m, k, data):
    n = data.draw(st.integers(3, 25))
    codes = np.array(data.draw(st.lists(st.lists(st.integers(0, k - 1), min_size=n, max_size=n), min_size=m,
                                        max_size=m)))
    table = np.zeros((n, k))
    for row in codes:
        table[np.arange(n), row] += 1
    ours = krippendorff_alpha_ordinal(table)
    if len(np.unique(codes)) < 2:
        assert np.isnan(ours)
        return
    theirs = krippendorff.alpha(reliability_data=codes.astype(float), level_of_measurement="ordinal",
                                value_domain=list(range(k)))
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_the_ceiling_lists_systems_better_than_the_annotators():
    codes = np.array([[0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1]])

    class Value:
        def __init__(self, value):
            self.value = value

    result = ordinal_agreement(codes, ("A", "B"), 3, ORDINAL_METRICS,
                               {"good": {"mae": Value(0.0)}, "bad": {"mae": Value(2.0)}})
    assert result.ceiling["mae"] == pytest.approx(0.5)
    assert result.systems_above == {"good": ("mae",)}


def test_the_probes_answer_as_the_figures_are_built():
    metrics = (*ORDINAL_METRICS, REGISTRY.metrics["accuracy"], REGISTRY.metrics["kappa"])
    answers = ordinal_properties(metrics, seed=1).answers
    assert answers["mae"]["nearer_miss"][0] == "yes" and answers["cem_ord"]["nearer_miss"][0] == "yes"
    assert answers["accuracy"]["nearer_miss"][0] == "no"  # a miss is a miss: the nearer one scores the same
    assert answers["mae"]["imbalance"][0] == "yes" and answers["mae_macro"]["imbalance"][0] == "no"
    assert answers["mae"]["middle"][0] == "yes" and answers["accuracy"]["middle"][0] == "no"
    assert answers["quadratic_kappa"]["chance"][0] == "complete" and answers["mae"]["chance"][0] == "no"
    assert answers["spearman"]["middle"][0] == "undefined"
    for metric in metrics:  # every witness's values are the metric's values of its matrices
        for answer, witness in answers[metric.id].values():
            if witness is not None and witness.matrices:
                stats = ConfusionStats(np.array(witness.matrices), True)
                with np.errstate(all="ignore"):
                    again = metric.function(stats)
                for value, expected in zip(again, witness.values):
                    assert (np.isnan(value) and np.isnan(expected)) or value == pytest.approx(expected)


def test_an_error_metric_s_shuffle_p_counts_the_shuffles_at_or_below_it():
    """MAE is lower-is-better: its shuffle p is (1 + #{shuffled MAE ≤ observed}) / (R + 1). A system right on 90% of
    300 items (off by one level otherwise) is far below any shuffle's MAE, so p = 1/(R + 1); the settling route
    once counted the shuffles at or above it and gave p = 1 ("not above chance") for every MAE figure."""
    rng = np.random.default_rng(4)
    gold = rng.integers(0, 5, 300)
    good = np.where(rng.random(300) < 0.9, gold, np.clip(gold + 1, 0, 4))
    result = audit(gold, {"good": good, "flat": np.full(300, 2)}, options=AuditOptions(bootstrap=200),
                   analyses=["baselines"]).audit
    for metric in ("mae", "mae_macro"):
        drawn = result.baselines.shuffle_scores["good"][metric]
        observed = result.systems["good"].metrics[metric].value
        by_hand = (1 + np.count_nonzero(drawn <= observed + 1e-9)) / (drawn.size + 1)
        comparison = result.baselines.chance["good"][metric]
        assert comparison.p_shuffle == pytest.approx(by_hand) == pytest.approx(1 / (drawn.size + 1))
        assert comparison.p_shuffle_adjusted < 0.05
        assert result.baselines.chance["flat"][metric].p_shuffle == 1.0  # a constant is its own shuffle
