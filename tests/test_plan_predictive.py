"""Mode 3 of ``auditor plan``: the predictive-power model of Vickers et al. (2023) §3 (issue 24)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from auditor.analyses.baselines import chance_baselines, predictor_distributions
from auditor.errors import UsageError
from auditor.io.counts import Counts
from auditor.plan.predictive import GUESSES, check_prevalence, guess_distribution, model

shares = st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6).map(lambda v: np.array(v) / sum(v))


@settings(max_examples=40, deadline=None)
@given(shares, st.sampled_from(GUESSES))
def test_informedness_is_x_for_every_x_and_prevalence(p, guess):
    # Vickers et al. §2: "the expected value of a model which predicts correctly x% of the time, and
    # guesses from the prevalence 100-x% of the time is x" (here also for the other guesses).
    result = model({f"c{i}": float(v) for i, v in enumerate(p)}, guess=guess, points=11)
    values = np.array(result.values["informedness"], dtype=float)
    assert values == pytest.approx(np.array(result.x), abs=1e-12)
    assert result.linear["informedness"]


@settings(max_examples=40, deadline=None)
@given(shares)
def test_accuracy_is_x_plus_the_chance_agreement(p):
    result = model({f"c{i}": float(v) for i, v in enumerate(p)}, points=11)
    x = np.array(result.x)
    assert np.array(result.values["accuracy"]) == pytest.approx(x + (1 - x) * (p ** 2).sum(), abs=1e-12)


def _counts(support):
    gold = np.repeat(np.arange(len(support)), support)
    labels = tuple(f"c{i}" for i in range(len(support)))
    predictions = gold[None, :].copy()
    confusion = np.zeros((1, len(support), len(support)), dtype=np.int64)
    np.add.at(confusion[0], (gold, predictions[0]), 1)
    return Counts(labels, ("sys",), gold, predictions, confusion)


@pytest.mark.parametrize("support", [[70, 20, 10], [5, 5], [40, 30, 20, 10]])
@pytest.mark.parametrize("guess", GUESSES)
def test_at_x_zero_every_metric_is_the_audits_baseline_value(support, guess):
    counts = _counts(support)
    p = np.array(support) / sum(support)
    q_audit = predictor_distributions(counts)[0][guess]
    assert guess_distribution(p, guess) == pytest.approx(q_audit)
    baselines = chance_baselines(counts, draws=20, seed=3, alpha=0.05)
    result = model({label: float(v) for label, v in zip(counts.labels, p)}, guess=guess, points=11)
    for metric_id, distribution in baselines.baselines[guess].items():
        ours = result.values[metric_id][0]
        if distribution.expected is None:
            assert ours is None, metric_id
        else:
            assert ours == pytest.approx(distribution.expected, abs=1e-12), metric_id


def test_perfect_classifier_scores_one_on_the_bounded_metrics():
    result = model({"a": 0.7, "b": 0.2, "c": 0.1}, points=11)
    for metric_id in ("accuracy", "macro_f1", "kappa", "mcc", "informedness", "markedness"):
        assert result.values[metric_id][-1] == pytest.approx(1.0)
    # NIT of a perfect classifier = 2^H(p) / k (Vickers et al. Eq. 7 with MI = H(p))
    entropy = -sum(v * np.log2(v) for v in (0.7, 0.2, 0.1))
    assert result.values["nit"][-1] == pytest.approx(2 ** entropy / 3)


def test_simulation_at_n_approaches_the_expected_matrix_values_for_linear_metrics():
    result = model({"a": 0.7, "b": 0.2, "c": 0.1}, items=400, draws=400, seed=1)
    simulated = result.simulation["metrics"]
    x = np.array(result.simulation["x"])
    for metric_id in ("accuracy", "informedness"):
        expected = np.interp(x, result.x, np.array(result.values[metric_id], dtype=float))
        # accuracy: sd of one draw <= 0.5/sqrt(400); the mean of 400 draws is well inside 0.01
        assert np.array(simulated[metric_id]["mean"]) == pytest.approx(expected, abs=0.01)
    # same seed, same numbers
    again = model({"a": 0.7, "b": 0.2, "c": 0.1}, items=400, draws=400, seed=1)
    assert again.simulation == result.simulation


@pytest.mark.parametrize("prevalence, message", [
    ({"a": 1.2, "b": -0.2}, "must be in"),
    ({"a": 0.5, "b": 0.2}, "sum to 1"),
    ({"a": 1.0, "b": 0.0}, "at least two"),
    ({"a": float("nan"), "b": 0.5}, "must be in"),
])
def test_bad_prevalence_gets_one_clear_error(prevalence, message):
    with pytest.raises(UsageError, match=message):
        check_prevalence(prevalence)


def test_bad_guess_and_simulation_sizes_are_refused():
    with pytest.raises(UsageError, match="--guess"):
        model({"a": 0.5, "b": 0.5}, guess="oracle")
    with pytest.raises(UsageError, match="--simulate"):
        model({"a": 0.5, "b": 0.5}, items=0)


def test_balanced_curves_are_the_model_at_uniform_prevalence():
    result = model({"a": 0.7, "b": 0.2, "c": 0.1}, points=11)
    balanced = model({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, points=11)
    for metric in result.metrics:
        assert result.balanced[metric] == pytest.approx(balanced.values[metric], abs=1e-12)
    # with balanced classes accuracy = x + (1 - x)/k and does not depend on prevalence any more
    x = np.array(result.x)
    assert np.array(result.balanced["accuracy"]) == pytest.approx(x + (1 - x) / 3)
