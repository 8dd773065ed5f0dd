"""The shuffle test's settled answer (auditor.analyses.shuffle_test): exact p-values for two classes
against Fisher's exact test and a brute-force enumeration of every permutation, and Monte Carlo
draws added until the Holm answer cannot change, or the cap is reached."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import f1_score

import auditor
from auditor.analyses import shuffle_test
from auditor.analyses.baselines import SETTLED, chance_baselines
from auditor.analyses.significance import holm
from auditor.io.counts import count


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=4, max_size=4).filter(lambda c: c[0] + c[1] > 0 and c[2] + c[3] > 0))
def test_exact_p_of_accuracy_is_fishers_one_sided_test(cells):
    """With two classes the shuffled table is fixed by C_00 (hypergeometric), so the accuracy p is
    scipy's one-sided Fisher exact test of the same table."""
    table = np.array(cells).reshape(2, 2)
    gold = np.repeat([0, 0, 1, 1], cells)
    pred = np.repeat([0, 1, 0, 1], cells)
    result = chance_baselines(count(gold, {"s": pred}, labels=["0", "1"]), draws=10, seed=1,
                              alpha=0.05, settle=("accuracy",))
    comparison = result.chance["s"]["accuracy"]
    if table.sum(axis=0).min() == 0:  # a constant prediction: accuracy is the same on every shuffle
        assert comparison.p_shuffle == pytest.approx(1.0)
        return
    assert comparison.shuffle_p.method == "exact"
    assert comparison.p_shuffle == pytest.approx(stats.fisher_exact(table, alternative="greater").pvalue, rel=1e-9)


def test_exact_p_equals_every_permutation_enumerated():
    """Brute force over all 7! orderings of the predictions, macro F1 by scikit-learn: the share of
    orderings scoring at least the observed value is the exact p. The 7! orderings of three 0s and four 1s are
    the 35 distinct sequences, each 3!·4! = 144 times, so the share over the distinct ones is the same."""
    gold = np.array([0, 0, 0, 1, 1, 1, 1])
    pred = np.array([0, 0, 1, 1, 1, 0, 1])
    observed = f1_score(gold, pred, average="macro")
    distinct = sorted(set(itertools.permutations(pred.tolist())))
    assert len(distinct) == 35
    scores = [f1_score(gold, np.array(p), average="macro") for p in distinct]
    expected = np.mean(np.array(scores) >= observed - 1e-12)
    result = chance_baselines(count(gold, {"s": pred}), draws=10, seed=1, alpha=0.05, settle=("macro_f1",))
    assert result.chance["s"]["macro_f1"].p_shuffle == pytest.approx(expected, rel=1e-12)
    assert result.chance["s"]["nit"].shuffle_p.method == "exact"  # every metric, not only the settled ones


def test_monte_carlo_p_values_are_drawn_until_holm_is_settled():
    """Four classes: every system's Holm answer is the same at both ends of its p's interval, and
    the systems near a threshold got more draws than the base."""
    rng = np.random.default_rng(5)
    gold = rng.choice(4, 400, p=[0.4, 0.3, 0.2, 0.1])
    systems = {f"s{skill}": np.where(rng.random(400) < skill, gold, rng.choice(4, 400))
               for skill in (0.0, 0.05, 0.12, 0.16, 0.5)}
    result = chance_baselines(count(gold, systems), draws=500, seed=3, alpha=0.05, settle=("accuracy",))
    tests = {s: result.chance[s]["accuracy"].shuffle_p for s in systems}
    assert all(t.resolved for t in tests.values())
    # far above chance a tail bound settles the answer without draws; near chance the systems are drawn
    assert tests["s0.5"].method == "bound" and tests["s0.5"].interval == (0.0, tests["s0.5"].p)
    assert tests["s0.0"].method == tests["s0.05"].method == "monte carlo"
    low = np.array([t.interval[0] for t in tests.values()])
    high = np.array([t.interval[1] for t in tests.values()])
    assert np.array_equal(holm(low) < 0.05, holm(high) < 0.05)
    assert max(t.draws or 0 for t in tests.values()) > 500
    for system, t in tests.items():  # the p-value is the one of all the draws made for that system
        assert result.shuffle_scores[system]["accuracy"].size == (t.draws or 500)
        assert t.interval[0] <= result.chance[system]["accuracy"].p_shuffle <= t.interval[1]


def test_a_p_value_on_the_threshold_stops_at_the_cap():
    """One system whose true p is exactly α: no number of draws settles it; the cap stops the
    draws and the answer is reported as not settled."""
    rng = np.random.default_rng(0)
    null = {"m": [(rng.random(100) < 0.05).astype(float)]}

    def more(system: int, extra: int) -> None:
        null["m"][system] = np.concatenate([null["m"][system], (rng.random(extra) < 0.05).astype(float)])

    (result,) = shuffle_test.settle({"m": np.array([0.5])}, null, 0.05, "holm", 6400, more)["m"]
    assert result.draws == 6400 and result.resolved is False
    assert "still within Monte Carlo error" in shuffle_test.describe([result], 100)


@pytest.mark.parametrize("systems, correction", [(1, "holm"), (7, "holm"), (10, "holm"), (60, "holm"), (10, "bh")])
def test_settling_draws_are_the_fewest_that_settle_ps_no_draw_reached(systems, correction):
    """S p-values with X = 0 of R draws: the corrected answer is settled (rejected at both ends of every
    interval) at R = settling_draws and not at R − 1 (scipy's beta quantile as the upper bound)."""
    draws = shuffle_test.settling_draws(systems, 0.05, correction)

    def settled(r: int) -> bool:
        high = np.full(systems, stats.beta.ppf(1 - (1 - shuffle_test.INTERVAL_LEVEL) / 2, 1, r))
        return not shuffle_test.unsettled(np.zeros(systems), high, 0.05, correction).any()

    assert settled(draws) and not settled(draws - 1)
    assert (systems, correction) != (10, "holm") or draws == 1517


def test_systems_far_above_chance_are_settled_in_one_extra_round():
    """Ten systems no shuffle reaches, 1,000 base draws: Holm needs 1,517 (settling_draws), which one
    extra round of 517 each brings, where doubling drew 2,000; the extra draws score only the settled metric
    (NIT: no tail bound). Accuracy, settled beside it, needs no draw: a tail bound settles it."""
    rng = np.random.default_rng(4)
    gold = rng.choice(5, 300)
    systems = {f"s{i}": np.where(rng.random(300) < 0.8, gold, rng.choice(5, 300)) for i in range(10)}
    result = chance_baselines(count(gold, systems), draws=1000, seed=2, alpha=0.05, settle=("nit", "accuracy"))
    for system in systems:
        test = result.chance[system]["nit"]
        assert (test.shuffle_p.draws, test.shuffle_p.resolved, test.p_shuffle) == (1517, True, 1 / 1518)
        scores = result.shuffle_scores[system]
        assert scores["nit"].size == 1517 and scores["kappa"].size == 1000
        bounded = result.chance[system]["accuracy"].shuffle_p
        assert (bounded.method, bounded.draws, bounded.resolved) == ("bound", None, True) and bounded.p < 1e-10


def test_unsettled_needs_both_ends_to_agree():
    low, high = np.array([0.001, 0.02, 0.5]), np.array([0.004, 0.03, 0.6])
    # Holm at the low end: 3·0.001, 2·0.02 = 0.04 < 0.05 rejected; at the high end 2·0.03 = 0.06 is not.
    assert shuffle_test.unsettled(low, high, 0.05, "holm").tolist() == [False, True, False]
    np.testing.assert_allclose(shuffle_test.thresholds(3, 0.05, "holm"), [0.05, 0.025, 0.05 / 3])
    np.testing.assert_allclose(shuffle_test.thresholds(3, 0.05, "bh"), [0.05 / 3, 0.1 / 3, 0.05])


def test_clopper_pearson_interval_against_scipy():
    low, high = shuffle_test.p_interval(np.array([0, 7, 50]), np.array([50, 50, 50]), level=0.95)
    for x, lo, hi in zip((0, 7, 50), low, high):
        ci = stats.binomtest(x, 50).proportion_ci(0.95, method="exact")
        assert (lo, hi) == pytest.approx((ci.low, ci.high))


def test_clopper_pearson_interval_once_per_distinct_count_equals_every_entrys_beta_quantiles():
    """Evaluated once per distinct (X, R) and only where the bound is not 0 or 1: the same floats as
    scipy.stats.beta.ppf entry by entry (the independent source)."""
    draws = np.array([1000, 1000, 1000, 1000, 2000, 16000, 0, 5, 5, 1000], dtype=float)
    exceed = np.array([0, 0, 3, 1000, 0, 17, 0, 5, 2, 3], dtype=float)
    low, high = shuffle_test.p_interval(exceed, draws)
    tail = (1 - shuffle_test.INTERVAL_LEVEL) / 2
    for x, r, lo, hi in zip(exceed, draws, low, high):
        assert lo == (stats.beta.ppf(tail, x, r - x + 1) if x > 0 else 0.0)
        assert hi == (stats.beta.ppf(1 - tail, x + 1, r - x) if x < r else 1.0)


def test_semeval_2018_above_chance_is_exact_and_named(semeval2018_dir):
    """SemEval-2018 task 12 (2 classes, 23 systems): exact p-values, Holm over the systems."""
    folder = semeval2018_dir
    gold = folder / "gold" / "truth.txt"
    from click.testing import CliRunner

    from auditor.cli import cli

    submissions = sorted(str(p) for p in (folder / "submissions").glob("*.txt"))
    out = CliRunner().invoke(cli, ["score", str(gold), *submissions, "--json", "--bootstrap", "0", "--quiet"])
    assert out.exit_code == 0, out.output
    document = json.loads(out.stdout)
    assert "two classes: exact" in document["chance"]["method"]["p_shuffle_resolution"]
    chance = document["chance"]["systems"]
    above = [s for s, c in chance.items() if c["macro_recall"]["p_shuffle_adjusted"] < 0.05]
    assert all(c["macro_recall"]["p_shuffle_method"] == "exact" for c in chance.values())
    assert len(chance) == 23 and len(above) == 13
    assert chance["Random bsl."]["macro_recall"]["p_shuffle_adjusted"] > 0.05


def test_audit_settles_the_metrics_page_one_and_the_recommendation_read():
    """Every metric with a tail bound (accuracy and macro recall, page 1's primary; the report's key metrics;
    informedness and kappa, the recommendation's near-chance test) is settled: by the bound far above chance,
    else by draws, whose extra ones score only them."""
    rng = np.random.default_rng(2)
    gold = rng.choice(3, 200)
    audit = auditor.audit(gold, {"a": np.where(rng.random(200) < 0.3, gold, 0), "b": rng.choice(3, 200)},
                          seed=1, analyses=("baselines",))
    entries = audit.to_json()["chance"]["systems"]
    assert entries["a"]["macro_recall"]["p_shuffle_method"] == "bound"
    entry = entries["b"]
    assert entry["macro_recall"]["p_shuffle_method"] == "monte carlo"
    # every metric says whether its answer is settled; only the settled metrics are drawn beyond the base draws
    assert all(e["p_shuffle_resolved"] is not None for e in entry.values())
    assert {m for m, e in entry.items() if e["p_shuffle_draws"] > 1000} <= set(SETTLED)
    assert {"accuracy", "macro_recall", "informedness", "kappa", "mcc", "macro_f1", "macro_f1_hm"} <= set(SETTLED)
    scores = audit.baselines.shuffle_scores["b"]
    assert scores["macro_recall"].size == entry["macro_recall"]["p_shuffle_draws"] >= scores["nit"].size


def test_hypergeometric_pmf_against_scipy():
    from auditor.analyses.shuffle_test import _hypergeometric_pmf

    for n, good, sample in ((444, 214, 230), (10, 3, 5), (100_000, 400, 70_000), (7, 7, 3)):
        x = np.arange(max(0, good + sample - n), min(good, sample) + 1)
        np.testing.assert_allclose(_hypergeometric_pmf(x, n, good, sample), stats.hypergeom.pmf(x, n, good, sample),
                                   rtol=1e-9, atol=1e-300)
