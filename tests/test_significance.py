"""Pairwise tests, p-value adjustment and best sets (auditor.analyses.significance).

Independent sources: scipy.stats.binomtest (exact McNemar), scipy.stats.permutation_test
with ``permutation_type="samples"`` (approximate randomisation of paired accuracy), an
item-level swap loop scored by scikit-learn (approximate randomisation of macro F1), and
hand computations of Holm and Benjamini–Hochberg written out below with their arithmetic
(the same step-down / step-up rules as statsmodels' ``multipletests``).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import f1_score
from synthetic import synthetic_counts

import auditor.metrics.catalogue  # noqa: F401  (registers the catalogue)
from auditor.analyses import randomisation as randomisation_module
from auditor.analyses import significance as significance_module
from auditor.analyses.randomisation import approximate_randomisation, binomial_half, swapped_matrices
from auditor.analyses.significance import (
    MCNEMAR,
    RANDOMISATION,
    PairTest,
    Statistics,
    adjust,
    benjamini_hochberg,
    discordant_counts,
    holm,
    mcnemar_exact,
    rounds_rule,
    statistics,
)
from auditor.errors import UsageError
from auditor.io.counts import count
from auditor.metrics.registry import REGISTRY, ConfusionStats

_pair = functools.partial(synthetic_counts, n=150, accuracies=(0.72, 0.62))


# ------------------------------------------------------------------ McNemar


@pytest.mark.parametrize("n01, n10", [(10, 3), (3, 10), (7, 7), (0, 5), (1, 0), (40, 25), (100, 71)])
def test_exact_mcnemar_equals_scipy_binomtest(n01, n10):
    assert mcnemar_exact(n01, n10) == pytest.approx(scipy.stats.binomtest(n01, n01 + n10, 0.5).pvalue, rel=1e-12)


def test_mcnemar_without_discordant_items_is_one():
    assert mcnemar_exact(0, 0) == 1.0


def test_discordant_counts_by_hand():
    gold = np.array([0, 0, 1, 1, 2, 2])
    counts = count(gold, {"a": np.array([0, 0, 1, 0, 2, 1]), "b": np.array([0, 1, 0, 0, 2, 2])})
    # a right & b wrong: items 2 (gold 0... index 1), 3 -> items 1 and 2; b right & a wrong: item 5
    table = discordant_counts(counts)
    assert table[0, 1] == 2 and table[1, 0] == 1 and table[0, 0] == 0


# ------------------------------------------------------------------ randomisation


def test_randomisation_accuracy_close_to_scipy_paired_permutation_test():
    # Both estimate the same exact permutation p-value with R = 5000 random swaps each: the
    # p here is about 0.05-0.2, Monte Carlo sd <= sqrt(.2*.8/5000) = 0.006 per estimate, so
    # two estimates differ by <= 0.008 sd; allowed 0.03 (> 3.5 sd). scipy's two-sided p is
    # 2 min(P(<=), P(>=)), ours P(|D*| >= |D|): equal for the symmetric swap distribution.
    counts = _pair(n=150)
    correct_a = (counts.predictions[0] == counts.gold).astype(float)
    correct_b = (counts.predictions[1] == counts.gold).astype(float)
    ours = approximate_randomisation(counts, 0, 1, [REGISTRY.get("accuracy")], rounds=5000, seed=1)
    difference, p = ours["accuracy"]
    reference = scipy.stats.permutation_test(
        (correct_a, correct_b), lambda x, y, axis=-1: x.mean(axis=axis) - y.mean(axis=axis),
        permutation_type="samples", alternative="two-sided", n_resamples=5000, vectorized=True,
        rng=np.random.default_rng(2),
    )
    assert difference == pytest.approx(reference.statistic)
    assert 0.005 < reference.pvalue < 0.5  # the comparison is informative
    assert p == pytest.approx(reference.pvalue, abs=0.03)


def macro_f1_rows(gold: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """scikit-learn's macro F1 of each row of ``predicted`` (R, N) against ``gold``, vectorised: the mean of
    2 TP_c / (gold_c + predicted_c) over the labels in gold or in that row (an F1 of 0/0 counted as 0, as
    ``zero_division`` does by default)."""
    labels = np.union1d(gold, predicted)
    hit = predicted == gold
    tp = np.stack([(hit & (gold == c)).sum(axis=1) for c in labels], axis=1)
    shown = np.stack([(predicted == c).sum(axis=1) for c in labels], axis=1)
    support = np.array([(gold == c).sum() for c in labels])
    denominator = support + shown
    f1 = np.divide(2 * tp, denominator, out=np.zeros(tp.shape), where=denominator > 0)
    present = denominator > 0
    return (f1 * present).sum(axis=1) / present.sum(axis=1)


def test_randomisation_macro_f1_close_to_item_level_swaps_scored_by_sklearn():
    # Independent implementation: swap each item's two predictions with probability 1/2 and
    # score both systems with sklearn's f1_score(average="macro") (vectorised over the rounds, checked equal to
    # f1_score on the first 40). R = 2000 each; the sd of
    # one estimate is <= sqrt(.25/2000) = 0.011, of the difference <= 0.016; allowed 0.05.
    counts = _pair(seed=4, n=120, accuracies=(0.7, 0.58))
    gold, a, b = counts.gold, counts.predictions[0], counts.predictions[1]
    ours = approximate_randomisation(counts, 0, 1, [REGISTRY.get("macro_f1")], rounds=2000, seed=3)
    difference, p = ours["macro_f1"]
    observed = f1_score(gold, a, average="macro") - f1_score(gold, b, average="macro")
    assert difference == pytest.approx(observed)
    swap = np.random.default_rng(5).random((2000, gold.size)) < 0.5  # round r: the r-th draw of gold.size
    x, y = np.where(swap, b, a), np.where(swap, a, b)
    scored = macro_f1_rows(gold, x) - macro_f1_rows(gold, y)
    for r in range(40):  # the vectorised scorer is scikit-learn's f1_score(average="macro"), round by round
        sklearn = f1_score(gold, x[r], average="macro") - f1_score(gold, y[r], average="macro")
        assert scored[r] == pytest.approx(sklearn, abs=1e-12)
    extreme = int((np.abs(scored) >= abs(observed) - 1e-12).sum())
    reference = (1 + extreme) / 2001
    assert 0.01 < reference < 0.95
    assert p == pytest.approx(reference, abs=0.05)


def test_randomisation_p_is_never_zero_and_identical_systems_give_one():
    counts = count(np.array([0, 1, 0, 1] * 20), {"a": np.array([0, 1, 0, 1] * 20), "b": np.array([0, 1, 0, 1] * 20)})
    result = approximate_randomisation(counts, 0, 1, [REGISTRY.get("accuracy")], rounds=100, seed=12345)
    assert result["accuracy"] == (0.0, 1.0)
    strong = _pair(n=400, accuracies=(0.95, 0.3))
    difference, p = approximate_randomisation(strong, 0, 1, [REGISTRY.get("accuracy")],
                                              rounds=200, seed=12345)["accuracy"]
    assert p == pytest.approx(1 / 201)


def _item_level_swaps(counts, a, b, rounds, rng):
    """The definition, item by item: swap each item's two predictions with probability 1/2."""
    gold, x, y, k = counts.gold, counts.predictions[a], counts.predictions[b], counts.k
    out = np.empty((rounds, 2, k, k))
    for r in range(rounds):
        swap = rng.random(gold.size) < 0.5
        out[r, 0] = np.bincount(gold * k + np.where(swap, y, x), minlength=k * k).reshape(k, k)
        out[r, 1] = np.bincount(gold * k + np.where(swap, x, y), minlength=k * k).reshape(k, k)
    return out


def test_swaps_on_pattern_counts_match_item_level_swaps_in_distribution():
    # k = 4 with both orders of every discordant pattern present, so the one-draw-per-
    # unordered-pattern rule is exercised. Every cell of both matrices is compared with a
    # two-sample Kolmogorov-Smirnov test (R = 3000 each; the data and seeds are fixed, so
    # the test is deterministic; each p > 1e-3 with margin, 32 cells).
    counts = synthetic_counts(seed=6, n=400, k=4, accuracies=(0.6, 0.5))
    ours = np.concatenate(list(swapped_matrices(counts, 0, 1, 3000, np.random.default_rng(1))))
    reference = _item_level_swaps(counts, 0, 1, 3000, np.random.default_rng(2))
    assert ours.shape == reference.shape
    np.testing.assert_array_equal(ours.sum(axis=(2, 3)), reference.sum(axis=(2, 3)))  # row sums kept
    np.testing.assert_array_equal(ours.sum(axis=3), reference.sum(axis=3))
    for system in range(2):
        for i in range(4):
            for j in range(4):
                a, b = ours[:, system, i, j], reference[:, system, i, j]
                assert a.mean() == pytest.approx(b.mean(), abs=0.15 + 0.1 * b.std())
                assert scipy.stats.ks_2samp(a, b).pvalue > 1e-3, (system, i, j)


def test_swaps_are_blocked_without_changing_the_draws(monkeypatch):
    counts = synthetic_counts(seed=2, n=300, k=5, accuracies=(0.6, 0.4))
    whole = np.concatenate(list(swapped_matrices(counts, 0, 1, 50, np.random.default_rng(9))))
    again = np.concatenate(list(swapped_matrices(counts, 0, 1, 50, np.random.default_rng(9))))
    np.testing.assert_array_equal(whole, again)  # deterministic given the seed
    monkeypatch.setattr(randomisation_module, "_DRAWS_PER_BLOCK", 7)
    blocked = list(swapped_matrices(counts, 0, 1, 50, np.random.default_rng(9)))
    assert len(blocked) > 1 and sum(len(block) for block in blocked) == 50


@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 128, 129, 500, 512, 513, 2000])
def test_binomial_half_matches_the_binomial_distribution(n):
    # Chi-square goodness of fit of 20,000 draws against scipy's Binomial(n, 1/2) pmf, cells
    # with expected count >= 5 (the rest pooled); fixed seed, p > 1e-3.
    draws = binomial_half(np.random.default_rng(n), np.array([n]), 20_000)[0]
    assert draws.min() >= 0 and draws.max() <= n
    support = np.arange(n + 1)
    expected = 20_000 * scipy.stats.binom.pmf(support, n, 0.5)
    observed = np.bincount(draws, minlength=n + 1).astype(float)
    keep = expected >= 5
    if keep.all():
        obs, exp = observed, expected
    else:
        obs = np.append(observed[keep], observed[~keep].sum())
        exp = np.append(expected[keep], expected[~keep].sum())
    if len(exp) > 1:
        assert scipy.stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-3


def test_pair_patterns_are_the_item_tally():
    counts = synthetic_counts(seed=3, n=500, k=4, accuracies=(0.7, 0.5, 0.4))
    codes, n = counts.pair_patterns(2, 0)
    gold, a, b = counts.gold, counts.predictions[2], counts.predictions[0]
    for (g, x, y), m in zip(codes, n):
        assert m == np.sum((gold == g) & (a == x) & (b == y))
    assert n.sum() == counts.n_items and len(codes) == len({tuple(c) for c in codes.tolist()})


# ------------------------------------------------------------------ adjustment


def test_holm_by_hand():
    # p = [0.01, 0.04, 0.03, 0.005], m = 4. Sorted: 0.005, 0.01, 0.03, 0.04.
    # (m - j + 1) p_(j): 4*0.005 = 0.02, 3*0.01 = 0.03, 2*0.03 = 0.06, 1*0.04 = 0.04;
    # running max: 0.02, 0.03, 0.06, 0.06. Back in input order:
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    # capped at 1 and NaN left out of the family (m = 2): 2*0.5 = 1.0, 1*0.8 -> max 1.0
    np.testing.assert_allclose(holm([0.5, 0.8, np.nan]), [1.0, 1.0, np.nan])


def test_benjamini_hochberg_by_hand():
    # p = [0.01, 0.04, 0.03, 0.005], m = 4. Sorted p_(j) * m / j:
    # 0.005*4/1 = 0.02, 0.01*4/2 = 0.02, 0.03*4/3 = 0.04, 0.04*4/4 = 0.04;
    # running min from the largest: 0.02, 0.02, 0.04, 0.04. Back in input order:
    np.testing.assert_allclose(benjamini_hochberg([0.01, 0.04, 0.03, 0.005]), [0.02, 0.04, 0.04, 0.02])
    # step-up: p = [0.02, 0.03, 0.9] -> 0.06, 0.045, 0.9 -> min from the end: 0.045, 0.045, 0.9
    np.testing.assert_allclose(benjamini_hochberg([0.02, 0.03, 0.9]), [0.045, 0.045, 0.9])
    np.testing.assert_allclose(benjamini_hochberg([0.5, 0.8, np.nan]), [0.8, 0.8, np.nan])


def test_adjust_rejects_unknown_correction():
    with pytest.raises(UsageError, match="holm, bh"):
        adjust([0.1], "bonferroni")


# ------------------------------------------------------------------ the stage


def _three(seed=1):
    # "close" is "best" with 6 of its right answers made wrong and 3 wrong ones made right
    # (accuracy 1 point lower, McNemar p = 0.51); "poor" is independent at accuracy 0.5.
    rng = np.random.default_rng(seed)
    n = 300
    gold = rng.integers(0, 3, size=n)
    best = np.where(rng.random(n) < 0.85, gold, (gold + 1) % 3)
    close = best.copy()
    right, wrong = np.flatnonzero(best == gold), np.flatnonzero(best != gold)
    close[right[:6]] = (gold[right[:6]] + 1) % 3
    close[wrong[:3]] = gold[wrong[:3]]
    poor = np.where(rng.random(n) < 0.5, gold, (gold + rng.integers(1, 3, size=n)) % 3)
    return count(gold, {"best": best, "close": close, "poor": poor})


def test_statistics_tests_families_and_best_set():
    counts = _three()
    result = statistics(counts, REGISTRY.scalar(), B=300, seed=4, rounds=500, alpha=0.05, correction="holm")
    methods = {}
    for test in result.tests:
        methods.setdefault(test.method, []).append(test)
    assert set(methods) == {MCNEMAR, RANDOMISATION}
    assert len(methods[MCNEMAR]) == 3  # 3 pairs, accuracy only: the exact test, no Monte Carlo
    assert {t.metric for t in methods[MCNEMAR]} == {"accuracy"}
    assert len(methods[RANDOMISATION]) == 3 * (len(result.test_metrics) - 1)
    keys = [(t.a, t.b, t.metric) for t in result.tests]
    assert len(keys) == len(set(keys)) == 3 * len(result.test_metrics)  # one p-value per pair and metric
    for metric_id in result.test_metrics:  # Holm within each metric's family
        family = result.tests_for(metric_id)
        np.testing.assert_allclose([t.p_adjusted for t in family], holm([t.p for t in family]))
    mcnemar = {(t.a, t.b): t for t in methods[MCNEMAR]}[("best", "poor")]
    assert mcnemar.p == pytest.approx(scipy.stats.binomtest(mcnemar.details["n01"],
                                                            mcnemar.details["n01"] + mcnemar.details["n10"]).pvalue)
    for metric_id in result.test_metrics:
        best = result.best_set[metric_id]
        assert best.top == "best" and "poor" not in best.systems
        assert "close" in best.systems
    assert result.correction == "holm"
    assert "all 3 pairs of systems" in result.family
    assert result.bootstrap.interval("accuracy", "best")[0] < 0.9
    assert result.bootstrap.rank_probabilities["accuracy"][0].sum() == pytest.approx(1)
    matrix = result.p_matrix("accuracy")
    assert matrix[0, 2] == matrix[2, 0] == mcnemar.p_adjusted


def test_statistics_bh_and_bad_correction():
    counts = _three()
    result = statistics(counts, [REGISTRY.get("accuracy")], B=100, correction="bh", rounds=200, seed=12345, alpha=0.05)
    members = result.tests
    assert {t.method for t in members} == {MCNEMAR}
    np.testing.assert_allclose([t.p_adjusted for t in members], benjamini_hochberg([t.p for t in members]))
    with pytest.raises(UsageError):
        statistics(counts, [REGISTRY.get("accuracy")], B=10, correction="sidak", seed=12345, alpha=0.05)


def test_many_systems_are_tested_against_the_top_only(monkeypatch):
    monkeypatch.setattr(significance_module, "MAX_ALL_PAIRS", 2)
    counts = _three()
    result = statistics(counts, REGISTRY.scalar(), B=100, rounds=100, test_metrics=("accuracy",), seed=12345,
                        alpha=0.05, correction="holm")
    pairs = {(t.a, t.b) for t in result.tests}
    assert pairs == {("best", "close"), ("best", "poor")}
    assert "against the top system" in result.family


def test_statistics_stage_is_deterministic():
    counts = _three()
    one = statistics(counts, REGISTRY.scalar(), B=100, seed=8, rounds=100, alpha=0.05, correction="holm")
    two = statistics(counts, REGISTRY.scalar(), B=100, seed=8, rounds=100, alpha=0.05, correction="holm")
    assert one.tests == two.tests


def test_pair_tests_do_not_depend_on_the_worker_threads(monkeypatch):
    # Pairs are tested on worker threads (speed, issue 10); each pair draws from its own
    # SeedSequence([seed, a, b]), so one thread and two give the same tests in the same order.
    counts = _three()
    two = statistics(counts, REGISTRY.scalar(), B=0, seed=8, rounds=300, alpha=0.05, correction="holm")
    monkeypatch.setattr(significance_module, "THREADS", 1)
    one = statistics(counts, REGISTRY.scalar(), B=0, seed=8, rounds=300, alpha=0.05, correction="holm")
    assert one.tests == two.tests
    a, b = counts.systems.index("best"), counts.systems.index("poor")
    direct = approximate_randomisation(counts, a, b, [REGISTRY.get("macro_f1")], seed=8, rounds=300)["macro_f1"]
    assert [(t.difference, t.p) for t in one.tests if (t.a, t.b, t.metric) == ("best", "poor", "macro_f1")] \
        == [direct]


def test_cli_alpha_and_correction_reach_the_json(germeval_dir):
    import json

    from click.testing import CliRunner

    from auditor.cli import cli

    root = germeval_dir
    arguments = [str(root / "gold.tsv")] + [str(p) for p in sorted((root / "systems").glob("*.tsv"))]
    result = CliRunner().invoke(cli, ["score", *arguments, "--json", "--quiet", "--bootstrap", "200",
                                      "--alpha", "0.1", "--correction", "bh"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["statistics"]["alpha"] == 0.1 and document["statistics"]["correction"] == "bh"
    assert "correction:bh" in document["signature"] and "alpha:0.1" in document["signature"]
    lo, hi = document["systems"]["word-logreg"]["metrics"]["macro_f1"]["ci"]
    assert lo < document["systems"]["word-logreg"]["metrics"]["macro_f1"]["value"] < hi
    for metric_id, best in document["statistics"]["best_set"].items():
        assert "majority" not in best["systems"] and "prior-sampler" not in best["systems"], metric_id
    bad = CliRunner().invoke(cli, ["score", *arguments, "--json", "--quiet", "--correction", "sidak"])
    assert bad.exit_code != 0


def test_randomisation_rounds_let_a_corrected_p_reach_alpha():
    from auditor.analyses.significance import AR_MAX_ROUNDS, randomisation_rounds

    # a family of m = 140 tests, α = 0.05: 2·140/0.05 = 5600 rounds, so the
    # smallest Holm-adjusted p is 140/5601 = 0.025 ≤ α/2 (with 1000 rounds it would be 0.14)
    assert randomisation_rounds(1000, 140, 0.05) == 5600
    assert 140 / (5600 + 1) <= 0.025
    assert randomisation_rounds(1000, 10, 0.05) == 1000  # small families keep the default
    assert randomisation_rounds(1000, 10**6, 0.05) == AR_MAX_ROUNDS  # bounded cost
    assert randomisation_rounds(50_000, 10, 0.05) == 50_000  # never fewer than asked


def test_report_states_one_test_per_pair_and_metric_the_family_once_and_the_rounds():
    from auditor.report.sections.significance import _tests_text

    result = statistics(_three(), REGISTRY.scalar(), B=50, seed=2, rounds=100, alpha=0.05, correction="holm")
    # 100 rounds asked, m = 3 tests per metric: 2·3/0.05 = 120 rounds
    assert result.rounds == 120
    assert rounds_rule(result.rounds, 3, result.alpha).startswith("R = 120 rounds")
    stats = {"randomisation_rounds": result.rounds}
    text = _tests_text(result)
    assert text.count("Family:") == 1 and result.family in text
    assert "exact McNemar" in text and "no Monte Carlo floor" in text
    assert f"{stats['randomisation_rounds']} rounds" in text and "1/(R + 1)" in text
    assert f"{3 * len(result.test_metrics)} pairwise tests, one per pair" in text


def test_binomial_half_keeps_the_order_of_unsorted_counts():
    n = np.array([300, 1, 70, 0, 64, 1000, 5, 12, 30, 8])
    draws = binomial_half(np.random.default_rng(3), n, 4000)
    assert draws.shape == (10, 4000)
    assert (draws >= 0).all() and (draws <= n[:, None]).all() and (draws[3] == 0).all()
    # each row's mean within 4 standard errors of n/2 (sd of Bin(n, 1/2) is sqrt(n)/2)
    assert (np.abs(draws.mean(axis=1) - n / 2) <= 4 * np.sqrt(n / 4 / 4000) + 1e-9).all()
    # the rows are independent (narrow words of one draw hold several rows' coins): every
    # correlation of two non-constant rows within 5 standard errors (1/sqrt(4000)) of 0
    varying = draws[n > 0]
    correlation = np.corrcoef(varying)[np.triu_indices(len(varying), 1)]
    assert (np.abs(correlation) < 5 / np.sqrt(4000)).all()


def test_pairwise_matrix_marks_p_values_at_the_randomisation_floor_as_bounds():
    from types import SimpleNamespace

    from auditor.report.sections.significance import _pairwise_table

    floor = 1 / 1121
    tests = (
        PairTest("x", "y", "mcc", RANDOMISATION, 0.1, floor, 28 * floor),
        PairTest("x", "z", "mcc", RANDOMISATION, 0.1, 0.2, 0.6),
    )
    stats = Statistics(bootstrap=None, tests=tests, best_set={}, test_metrics=("mcc",), correction="holm",
                       alpha=0.05, rounds=1120, family="all pairs")
    ctx = SimpleNamespace(systems=["x", "y", "z"], name=lambda m: m, short=lambda m: m)
    table = _pairwise_table(ctx, {"mcc": RANDOMISATION}, stats)
    assert [(row.header, row.cells[0].value) for row in table.rows] == [("x", "y"), ("x", "z"), ("y", "z")]
    assert table.rows[0].cells[1].value == "≤0.025"
    assert table.rows[1].cells[1].value == 0.6 and table.rows[1].cells[1].kind == "p"
    assert table.rows[2].cells[1].value is None  # y-z untested
    assert "at most this bound" in table.caption


def test_swapped_rounds_as_cells_equal_the_dense_rounds(monkeypatch):
    """Many classes, few items (k² > 4N): the rounds listed as cells give the dense rounds' metric
    values, round for round (same stream), so the p-values are the same."""
    from auditor.analyses import sampling
    from auditor.analyses.randomisation import swapped_stats
    from auditor.metrics.catalogue import compute

    rng = np.random.default_rng(6)
    gold = rng.integers(0, 5, 80)
    counts = count(gold, {"a": np.where(rng.random(80) < 0.6, gold, rng.integers(0, 5, 80)),
                          "b": np.where(rng.random(80) < 0.5, gold, rng.integers(0, 5, 80))})
    metrics = REGISTRY.scalar()
    dense = [compute(batch, metrics) for batch in swapped_matrices(counts, 0, 1, 40, np.random.default_rng(2))]
    monkeypatch.setattr(sampling, "SPARSE_RATIO", 0)
    sparse = [compute(stats, metrics) for stats in swapped_stats(counts, 0, 1, 40, np.random.default_rng(2))]
    for metric in metrics:
        np.testing.assert_allclose(np.concatenate([d[metric.id] for d in sparse]),
                                   np.concatenate([d[metric.id] for d in dense]), rtol=1e-12, atol=1e-12)
    forced = approximate_randomisation(counts, 0, 1, metrics, seed=3, rounds=60)
    monkeypatch.setattr(sampling, "SPARSE_RATIO", 10**9)
    dense_rounds = approximate_randomisation(counts, 0, 1, metrics, seed=3, rounds=60)
    assert dense_rounds.keys() == forced.keys()
    for metric_id, values in forced.items():  # (difference, p) per metric; approx takes no nested mappings
        assert dense_rounds[metric_id] == pytest.approx(values, nan_ok=True)


def test_swapped_rounds_from_margins_equal_the_dense_rounds():
    """The rounds as margins (columns and diagonal shifted, :class:`_SwappedRounds`) give every scalar metric the
    dense rounds' values exactly, round for round (same stream); the default tested metrics never form the k × k
    matrices, and NIT and the calibrated metrics form exactly the dense ones."""
    from auditor.analyses.randomisation import _SwappedRounds, swapped_stats
    from auditor.metrics.catalogue import compute
    from auditor.metrics.selections import TEST_METRICS

    counts = synthetic_counts(seed=9, n=600, k=5, accuracies=(0.6, 0.4))
    dense = list(swapped_matrices(counts, 0, 1, 200, np.random.default_rng(4)))
    rounds = list(swapped_stats(counts, 0, 1, 200, np.random.default_rng(4)))
    assert all(isinstance(stats, _SwappedRounds) for stats in rounds)
    tested = [REGISTRY.get(name) for name in TEST_METRICS]
    for stats, batch in zip(rounds, dense):
        plain = ConfusionStats(batch)
        for name in ("row", "col", "diag", "n"):
            np.testing.assert_array_equal(getattr(stats, name), getattr(plain, name))
        for metric_id, values in compute(stats, tested).items():
            np.testing.assert_array_equal(values, compute(plain, [REGISTRY.get(metric_id)])[metric_id])
        assert "C" not in stats.__dict__  # margins only
        everything = compute(stats, REGISTRY.scalar())
        np.testing.assert_array_equal(stats.C, batch)
        for metric_id, values in compute(plain, REGISTRY.scalar()).items():
            np.testing.assert_array_equal(everything[metric_id], values)


@pytest.mark.parametrize("sparse_ratio", [0, 10**9])  # rounds as cells, and dense rounds
def test_swap_counts_in_float32_equal_float64(monkeypatch, sparse_ratio):
    """Below 2^24 discordant items the swap counts and their per-cell sums are drawn and summed in
    float32 (exact there); forcing float64 gives the same rounds, so the same p-values."""
    from auditor.analyses import sampling

    monkeypatch.setattr(sampling, "SPARSE_RATIO", sparse_ratio)
    counts = synthetic_counts(seed=5, n=400, k=4, accuracies=(0.6, 0.5))
    metrics = REGISTRY.scalar()
    assert randomisation_module._draw_dtype(np.array([2**24 - 1])) is np.float32
    assert randomisation_module._draw_dtype(np.array([2**23, 2**23])) is np.float64
    narrow = approximate_randomisation(counts, 0, 1, metrics, seed=3, rounds=300)
    monkeypatch.setattr(randomisation_module, "_draw_dtype", lambda total: np.float64)
    wide = approximate_randomisation(counts, 0, 1, metrics, seed=3, rounds=300)
    for metric_id, values in narrow.items():
        assert wide[metric_id] == pytest.approx(values, nan_ok=True, rel=1e-12)


def test_discordant_pair_is_the_matrix_entry_from_items_and_patterns():
    """One pair's discordant counts (the reporting statement's agreement) equal the all-pairs matrix, read from the
    items and from the pattern table."""
    from auditor.analyses.significance import discordant_counts, discordant_pair
    from auditor.io.counts import Counts

    rng = np.random.default_rng(2)
    gold = rng.integers(0, 4, 300)
    systems = {f"s{s}": np.where(rng.random(300) < 0.4 + 0.1 * s, gold, rng.integers(0, 4, 300)) for s in range(4)}
    counts = count(gold, systems)
    matrix = discordant_counts(counts)
    codes, n = counts.patterns()
    routes = [counts, Counts.from_patterns(counts.labels, tuple(counts.systems), codes, n)]
    for route in routes:
        for a in range(4):
            for b in range(4):
                assert discordant_pair(route, a, b) == (matrix[a, b], matrix[b, a])
