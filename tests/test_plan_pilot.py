"""Mode 2 of ``auditor plan``: power at N from a pilot's pattern table (issue 24), on a subset of
GermEval-2018 (shared data, the ``germeval_dir`` fixture)."""
from __future__ import annotations

import numpy as np
import pytest

from auditor.analyses.power import hypothesis, power
from auditor.analyses.randomisation import approximate_randomisation
from auditor.errors import UsageError
from auditor.io.counts import Counts
from auditor.metrics.registry import REGISTRY
from auditor.plan.pilot import plan_pilot_counts, rank_stability, simulated_counts


def test_simulated_counts_rebuild_the_pilot_from_its_own_pattern_counts(germeval_pilot):
    counts = germeval_pilot("word-logreg", "char-svm", "word-nb")
    _, n = counts.patterns()
    again = simulated_counts(counts, n)
    assert np.array_equal(again.confusion, counts.confusion)
    assert again.n_items == counts.n_items


def test_accuracy_power_matches_the_exact_mode_one_power_of_the_pilots_table(germeval_pilot):
    # Resampling patterns is the multinomial of mode 1 with the pilot's own p11, p10, p01:
    # the simulated power must agree with the exact sum within Monte Carlo error.
    counts = germeval_pilot("word-logreg", "word-nb")
    correct = counts.predictions == counts.gold[None]
    accuracy = correct.mean(axis=1)
    agreement = float((correct[0] == correct[1]).mean())
    better, worse = int(np.argmax(accuracy)), int(np.argmin(accuracy))
    items = 3000
    exact = power(hypothesis(items, float(accuracy[worse]), float(accuracy[better] - accuracy[worse]), agreement)).power
    result = plan_pilot_counts(counts, items=items, simulations=1000, seed=5, metric_ids=("accuracy",))
    simulated = float(result.power["accuracy"][0])
    assert 0.1 < exact < 0.9  # a case where the check has teeth
    assert abs(simulated - exact) < 4 * np.sqrt(exact * (1 - exact) / 1000)


def test_macro_f1_power_matches_a_direct_item_resampling_simulation(germeval_pilot):
    counts = germeval_pilot("word-logreg", "char-svm")
    items, draws, rounds = 1500, 150, 200
    result = plan_pilot_counts(counts, items=items, simulations=draws, rounds=rounds, seed=11,
                               metric_ids=("macro_f1",))
    planned = float(result.power["macro_f1"][0])
    # direct: resample the pilot's items themselves, build each test set's counts, run the audit's test
    rng = np.random.default_rng(99)
    metric = REGISTRY.metrics["macro_f1"]
    sign = np.sign(result.pilot_difference["macro_f1"][0])
    hits = 0
    for r in range(draws):
        index = rng.integers(0, counts.n_items, items)
        gold, predictions = counts.gold[index], counts.predictions[:, index]
        confusion = np.zeros_like(counts.confusion)
        for s in range(2):
            np.add.at(confusion[s], (gold, predictions[s]), 1)
        test_set = Counts(counts.labels, counts.systems, gold, predictions, confusion)
        difference, p = approximate_randomisation(test_set, 0, 1, [metric], seed=r, rounds=rounds)["macro_f1"]
        hits += p < 0.05 and np.sign(difference) == sign
    direct = hits / draws
    mean = (planned + direct) / 2
    assert abs(planned - direct) < 4 * np.sqrt(max(mean * (1 - mean), 0.01) * 2 / draws)


def test_rank_stability_by_hand():
    pilot_values = np.array([0.9, 0.5, 0.1])
    simulated = np.array([[0.9, 0.5, 0.1],    # same order: tau 1, top stays
                          [0.5, 0.9, 0.1],    # top and second swap: tau 1/3
                          [0.9, 0.9, 0.1]])   # tie at the top: top stays with share 1/2; tau-b = 2/sqrt(6)
    p_top, tau = rank_stability(pilot_values, simulated)
    assert p_top == pytest.approx((1 + 0 + 0.5) / 3)
    assert tau == pytest.approx((1 + 1 / 3 + 2 / np.sqrt(6)) / 3)


def test_same_seed_same_plan_and_bad_inputs(germeval_pilot):
    counts = germeval_pilot("word-logreg", "char-svm")
    first = plan_pilot_counts(counts, items=500, simulations=20, rounds=50, seed=3)
    second = plan_pilot_counts(counts, items=500, simulations=20, rounds=50, seed=3)
    for metric in first.metrics:
        assert np.array_equal(first.power[metric], second.power[metric], equal_nan=True)
    with pytest.raises(UsageError, match="--items"):
        plan_pilot_counts(counts, items=0)
    with pytest.raises(UsageError, match="at least two"):
        plan_pilot_counts(germeval_pilot("word-logreg"), items=100)


def test_more_sizes_name_the_metric_needing_the_fewest_items(germeval_pilot):
    counts = germeval_pilot("word-logreg", "char-svm", "word-nb")
    result = plan_pilot_counts(counts, items=400, simulations=30, rounds=50, seed=2, sizes=(100, 3200),
                               metric_ids=("accuracy", "macro_f1"))
    for metric, by_size in result.mean_power_by_size.items():
        assert sorted(by_size) == [100, 400, 3200]
        assert by_size[100] <= by_size[3200]  # 32 times the items: far more power
    reached = {m: min([n for n, v in s.items() if v >= 0.8], default=None)
               for m, s in result.mean_power_by_size.items()}
    if len(set(reached.values())) > 1 and None not in reached.values():
        assert result.best_metric() == min(reached, key=reached.get)
    # the power at N is the same whether or not other sizes were simulated (each size has its own stream)
    alone = plan_pilot_counts(counts, items=400, simulations=30, rounds=50, seed=2, metric_ids=("accuracy", "macro_f1"))
    for metric in alone.metrics:
        assert np.array_equal(alone.power[metric], result.power[metric], equal_nan=True)
