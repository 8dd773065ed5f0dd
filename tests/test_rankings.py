"""Rank disagreement: τ-b and ρ against scipy, flips, GermEval winners, prevalence shift."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from auditor.analyses import deployment as deployment_module
from auditor.analyses import rankings
from auditor.analyses.deployment import deployment
from auditor.analyses.rankings import (
    DEFAULT_METRICS,
    find_flips,
    kendall_tau_b,
    pearson,
    rank_agreement,
    rank_disagreement,
    rank_table,
)
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY


def test_rank_table_average_ties_and_undefined_last():
    values = np.array([[0.9], [0.5], [0.9], [np.nan], [np.nan]])
    assert rank_table(values)[:, 0].tolist() == [1.5, 3.0, 1.5, 4.5, 4.5]


@pytest.mark.parametrize("seed", range(5))
def test_rank_table_equals_scipy_rankdata(seed):
    from scipy.stats import rankdata

    values = np.random.default_rng(seed).integers(0, 4, size=(9, 5)).astype(float)
    values[values == 3] = np.nan  # undefined: ranked last, tied among themselves
    expected = rankdata(np.where(np.isnan(values), np.inf, -values), method="average", axis=0)
    np.testing.assert_array_equal(rank_table(values), expected)


@pytest.mark.parametrize("seed", range(20))
def test_tau_b_and_rho_equal_scipy_on_rankings_with_ties(seed):
    rng = np.random.default_rng(seed)
    systems = int(rng.integers(3, 15))
    values = rng.integers(0, 4, size=(systems, 4)).astype(float)  # few levels: many ties
    ranks = rank_table(values)
    tau, rho = rank_agreement(ranks)
    for i in range(4):
        for j in range(4):
            expected_tau = kendalltau(ranks[:, i], ranks[:, j], variant="b").statistic
            expected_rho = spearmanr(ranks[:, i], ranks[:, j]).statistic
            np.testing.assert_allclose(tau[i, j], expected_tau, atol=1e-12, equal_nan=True)
            np.testing.assert_allclose(rho[i, j], expected_rho, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("seed", range(10))
def test_one_tau_b_and_r_batched_over_resamples_equal_scipy(seed):
    """The τ-b of rank agreement and of translation's human agreement is one function: along the last axis, leading
    axes broadcast (resamples against one fixed vector, or against resampled ones), equal to scipy's per row."""
    from scipy.stats import pearsonr

    rng = np.random.default_rng(seed)
    systems = int(rng.integers(3, 12))
    x = rng.integers(0, 4, size=(6, systems)).astype(float)  # few levels: ties on both sides
    y = rng.normal(size=systems).round(1)
    y[0] = y[1]
    tau, r = kendall_tau_b(x, y), pearson(x, y)
    assert tau.shape == r.shape == (6,)
    for row in range(6):
        constant = np.all(x[row] == x[row, 0])
        expected_tau = np.nan if constant else kendalltau(x[row], y, variant="b").statistic
        expected_r = np.nan if constant else pearsonr(x[row], y).statistic
        np.testing.assert_allclose(tau[row], expected_tau, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(r[row], expected_r, atol=1e-12, equal_nan=True)
    both = kendall_tau_b(x, x[::-1])
    np.testing.assert_allclose(both, [kendall_tau_b(a, b) for a, b in zip(x, x[::-1])], equal_nan=True)
    assert np.isnan(kendall_tau_b(np.array([1.0, np.nan, 3.0]), np.array([1.0, 2.0, 3.0])))


def test_flips_on_constructed_case():
    # A beats B under m1 and m2, B beats A under m3; C is below both everywhere; A = C under m2.
    values = np.array([[0.8, 0.6, 0.1], [0.7, 0.5, 0.2], [0.1, 0.1, 0.05]])
    flips = find_flips(["A", "B", "C"], ["m1", "m2", "m3"], values)
    assert len(flips) == 1
    flip = flips[0]
    assert (flip.a, flip.b, flip.a_better_under, flip.b_better_under) == ("A", "B", ("m1", "m2"), ("m3",))
    assert flip.significant is None
    with_tests = find_flips(["A", "B", "C"], ["m1", "m2", "m3"], values, lambda a, b, m: m == "m1")
    assert with_tests[0].significant == {"m1": True, "m2": False, "m3": False}


def test_flips_between_two_metrics_are_the_pairs_they_order_differently():
    """m3 reverses m1's order A > B > C; m2 keeps A first but ties B and C: m1 and m3 order every pair differently,
    m2 and m3 the pairs with A (B = C under m2 is no side), m1 and m2 none; the order of the two names is free."""
    values = {"A": {"m1": 0.8, "m2": 0.6, "m3": 0.1}, "B": {"m1": 0.7, "m2": 0.5, "m3": 0.2},
              "C": {"m1": 0.1, "m2": 0.5, "m3": 0.3}}
    result = rank_disagreement(values, ["m1", "m2", "m3"])
    assert {(f.a, f.b) for f in result.flips_between("m1", "m3")} == {("A", "B"), ("A", "C"), ("B", "C")}
    assert result.flips_between("m3", "m1") == result.flips_between("m1", "m3")
    assert {(f.a, f.b) for f in result.flips_between("m2", "m3")} == {("A", "B"), ("A", "C")}  # B = C under m2
    assert result.flips_between("m1", "m2") == []


def test_json_sections_and_undefined_reported():
    values = {"A": {"accuracy": 0.9, "mcc": None}, "B": {"accuracy": 0.8, "mcc": 0.3}}
    result = rank_disagreement(values, ["accuracy", "mcc"])
    document = result.to_json()
    assert document["rankings"] == {"accuracy": ["A", "B"], "mcc": ["B", "A"]}
    assert set(document) == {"rankings", "rank_agreement", "rank_disagreement"}
    section = document["rank_disagreement"]
    assert section["winners"] == {"accuracy": "A", "mcc": "B"}
    assert section["rank_undefined"] == {"mcc": ["A"]}
    assert section["rank_table"] == {"A": {"accuracy": 1.0, "mcc": 2.0}, "B": {"accuracy": 2.0, "mcc": 1.0}}
    assert document["rank_agreement"]["kendall"]["accuracy"]["mcc"] == pytest.approx(-1.0)
    assert section["flips"] == []  # A's MCC is undefined: no metric-by-metric comparison there


def test_germeval_winner_depends_on_the_metric(germeval_counts):
    counts = germeval_counts
    arrays = compute(counts.confusion, REGISTRY.scalar())
    values = {s: {m: (None if np.isnan(a[i]) else float(a[i])) for m, a in arrays.items()}
              for i, s in enumerate(counts.systems)}
    result = rank_disagreement(values, DEFAULT_METRICS)
    # What the data shows: char-svm wins accuracy (0.713 vs 0.712), the class-balanced
    # char-svm wins every macro average (macro F1 0.422 vs 0.354).
    assert result.winners["accuracy"] == "char-svm"
    for metric in ("macro_recall", "macro_f1", "macro_f1_hm", "informedness"):
        assert result.winners[metric] == "char-svm-balanced"
    assert result.winners["macro_precision"] == "word-logreg"
    pairs = {(f.a, f.b): f for f in result.flips}
    flip = pairs[("char-svm-balanced", "char-svm")]
    assert "accuracy" in flip.b_better_under and "macro_f1" in flip.a_better_under
    # The majority baseline beats three trained systems on accuracy only.
    assert pairs[("majority", "word-logreg-balanced")].a_better_under == ("accuracy",)
    assert result.ranking("accuracy").index("majority") == 4


def test_germeval_deployment_uniform_is_calibration(germeval_counts):
    counts = germeval_counts
    shifted = deployment(counts.confusion, counts.labels, counts.systems, "uniform")
    arrays = compute(counts.confusion, [REGISTRY.get("macro_recall")])
    for i, system in enumerate(counts.systems):
        # calibrated accuracy = macro recall (Opitz 2024 §5.2)
        assert shifted.values[system]["accuracy"] == pytest.approx(float(arrays["macro_recall"][i]))
    assert shifted.disagreement.winners["accuracy"] == "char-svm-balanced"
    assert shifted.target == pytest.approx({label: 0.25 for label in counts.labels})
    skewed = deployment(counts.confusion, counts.labels, counts.systems,
                        {"OTHER": 0.9, "ABUSE": 0.05, "INSULT": 0.04, "PROFANITY": 0.01})
    assert skewed.disagreement.winners["accuracy"] == "majority"
    document = skewed.to_json()
    assert set(document["deployment"]) == {"name", "target", "metrics", "rankings", "winners", "notes"}
    assert document["deployment"]["winners"]["accuracy"] == "majority"


def test_deployment_runs_only_for_a_known_prevalence(germeval_counts):
    counts = germeval_counts
    for target in (None, "unknown"):
        assert deployment_module.analyse(counts, target) is None
    shifted = deployment_module.analyse(counts, "uniform")
    assert shifted.name == "uniform" and shifted.disagreement.winners["accuracy"] == "char-svm-balanced"


def test_flips_carry_the_primary_tests_verdict():
    """Significance of a flip comes from the statistics' primary test of that metric (exact McNemar
    for accuracy, approximate randomisation otherwise), adjusted p < alpha; a pair not tested is None."""
    from auditor.analyses.significance import MCNEMAR, RANDOMISATION, PairTest

    class Statistics:  # the attributes rankings read: tests and alpha
        alpha = 0.05
        tests = (PairTest(a="A", b="B", metric="accuracy", method=MCNEMAR, difference=0.1, p=0.01, p_adjusted=0.02),
                 # not accuracy's primary test: not read
                 PairTest(a="A", b="B", metric="accuracy", method=RANDOMISATION, difference=0.1, p=0.5, p_adjusted=0.9),
                 PairTest(a="A", b="B", metric="macro_f1", method=RANDOMISATION, difference=-0.1, p=0.04,
                          p_adjusted=0.08))

    values = {"A": {"accuracy": 0.8, "macro_f1": 0.5, "mcc": 0.4}, "B": {"accuracy": 0.7, "macro_f1": 0.6, "mcc": 0.3}}
    result = rankings.analyse(values, Statistics(), ["accuracy", "macro_f1", "mcc"])
    (flip,) = result.flips
    assert dict(flip.significant) == {"accuracy": True, "mcc": None, "macro_f1": False}
    assert rankings.analyse(values, None, ["accuracy", "macro_f1"]).flips[0].significant is None
