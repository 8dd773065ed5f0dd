"""Chance baselines: analytic expectations against Monte Carlo, the shuffle's margins, the
permutation p-value against scipy.stats.permutation_test, and the GermEval 2018 example."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import auditor
from auditor.analyses.baselines import (
    SETTLED,
    SHUFFLE,
    ChanceComparison,
    adjust_shuffle_p,
    chance_baselines,
    permutation_p_value,
    sample_random,
    sample_shuffle,
)
from auditor.io.counts import count
from auditor.options import CHANCE_DRAWS

LABELS = np.array(list("abcd"))
PREVALENCE = [0.5, 0.3, 0.15, 0.05]


def synthetic(n: int = 400, seed: int = 0, skill: float = 0.5):
    """Imbalanced 4-class gold and one system that copies gold with probability ``skill``."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(4, n, p=PREVALENCE)
    pred = np.where(rng.random(n) < skill, gold, rng.choice(4, n, p=[0.4, 0.3, 0.2, 0.1]))
    return LABELS[gold], LABELS[pred]


@pytest.fixture(scope="module")
def large_run():
    gold, pred = synthetic()
    counts = count(gold, {"s": pred})
    return counts, chance_baselines(counts, draws=4000, seed=3, alpha=0.05)


def _all_distributions(result):
    yield from result.baselines.items()
    for system, metrics in result.shuffle.items():
        yield f"{SHUFFLE}:{system}", metrics


def test_exact_expectations_equal_monte_carlo_means(large_run):
    _, result = large_run
    checked = 0
    for baseline, metrics in _all_distributions(result):
        for metric_id, d in metrics.items():
            if d.expected is None:
                assert d.mc_mean is None and d.undefined, (baseline, metric_id)
                continue
            if d.exact:
                # within 4 standard errors (se = 0 when every draw gives the same value)
                assert abs(d.expected - d.mc_mean) <= 4 * d.mc_se + 1e-12, (baseline, metric_id)
                checked += 1
            else:
                # plug-in f(E[C]) of a non-linear metric: close, not equal, at N = 400
                assert abs(d.expected - d.mc_mean) <= 0.05, (baseline, metric_id)
            assert d.mc_low <= d.mc_mean <= d.mc_high
    assert checked >= 30


def test_exactness_flags_follow_the_derivations(large_run):
    _, result = large_run
    for name in ("uniform", "prevalence"):
        flags = {m: d.exact for m, d in result.baselines[name].items()}
        # linear in C with gold rows fixed; informedness by the proof in the module docstring
        assert flags["accuracy"] and flags["macro_recall"] and flags["informedness"]
        # ratios with random denominators: approximate at finite N
        assert not flags["kappa"] and not flags["mcc"] and not flags["macro_f1"]
    shuffle = result.shuffle["s"]
    for metric_id in ("accuracy", "macro_recall", "macro_f1", "kappa", "mcc", "informedness", "markedness"):
        assert shuffle[metric_id].exact, metric_id  # both margins fixed: affine in C
    for metric_id in ("kappa", "mcc", "informedness", "markedness"):
        assert shuffle[metric_id].expected == pytest.approx(0.0, abs=1e-12)
    assert not shuffle["nit"].exact  # 2^MI is convex: E[NIT] > 1/k at finite N
    assert shuffle["nit"].mc_mean > shuffle["nit"].expected
    assert all(d.exact for d in result.baselines["majority"].values())  # deterministic


def test_a_metric_that_is_zero_on_most_draws_is_not_called_exact():
    """60 items in 12 classes: a random predictor misses some class on almost every draw, so the geometric mean of
    recalls is 0 on both ends of most drawn segments. It is not affine: its expectation, computed here by plain
    Monte Carlo outside the tool, is far below the plug-in f(E[C]) = 1/12 for the uniform predictor."""
    rng = np.random.default_rng(3)
    gold, pred = rng.integers(0, 12, 60), rng.integers(0, 12, 60)
    result = chance_baselines(count(gold, {"s": pred}), draws=400, seed=1, alpha=0.05)
    support = np.bincount(gold, minlength=12)
    drawn = rng.integers(0, 12, (20_000, 60)) == gold  # uniform predictor, right or wrong per item
    recalls = np.stack([drawn[:, gold == c].sum(axis=1) / support[c] for c in range(12)], axis=1)
    mean_gmean = float((recalls.prod(axis=1) ** (1 / 12)).mean())
    uniform = result.baselines["uniform"]["gmean_recall"]
    assert uniform.expected == pytest.approx(1 / 12) and mean_gmean < 0.01
    assert not uniform.exact and not result.shuffle["s"]["gmean_recall"].exact
    assert result.baselines["uniform"]["accuracy"].exact  # linear in C: still exact


def test_majority_baseline():
    # a system predicting a label absent from gold: k = 5 labels, k_gold = 4
    gold, pred = synthetic(n=300, seed=5)
    pred = pred.copy()
    pred[:3] = "z"
    counts = count(gold, {"s": pred})
    assert counts.k == 5
    result = chance_baselines(counts, draws=50, seed=1, alpha=0.05)
    majority = result.baselines["majority"]
    p = np.bincount(counts.gold, minlength=counts.k) / counts.n_items
    assert result.majority_label == "a"
    assert majority["informedness"].expected == 0.0 and majority["informedness"].exact
    assert majority["accuracy"].expected == pytest.approx(p.max(), abs=1e-15)
    assert majority["macro_recall"].expected == pytest.approx(1 / 4, abs=1e-15)  # 1/k_gold
    assert majority["mcc"].expected is None and majority["mcc"].mc_mean is None
    assert "MCC is 0/0" in majority["mcc"].undefined
    assert majority["accuracy"].mc_se == 0.0 and majority["accuracy"].mc_low == majority["accuracy"].mc_high


def test_uniform_and_prevalence_closed_forms():
    gold, pred = synthetic(n=500, seed=7)
    counts = count(gold, {"s": pred})
    result = chance_baselines(counts, draws=2000, seed=2, alpha=0.05)
    p = np.bincount(counts.gold, minlength=counts.k) / counts.n_items
    uniform, prevalence = result.baselines["uniform"], result.baselines["prevalence"]
    assert uniform["macro_recall"].exact and uniform["macro_recall"].expected == pytest.approx(1 / 4, abs=1e-15)
    assert uniform["accuracy"].expected == pytest.approx(1 / 4, abs=1e-15)
    assert prevalence["accuracy"].exact
    assert prevalence["accuracy"].expected == pytest.approx((p**2).sum(), abs=1e-15)
    assert prevalence["macro_recall"].expected == pytest.approx(p.mean(), abs=1e-15)  # mean of q over classes
    assert abs(prevalence["accuracy"].mc_mean - (p**2).sum()) <= 4 * prevalence["accuracy"].mc_se
    # kappa's expectation is approximately, not exactly, 0 for a random predictor
    assert not prevalence["kappa"].exact and abs(prevalence["kappa"].mc_mean) < 0.01


def test_uniform_over_the_fixed_label_set():
    gold, pred = synthetic(n=200, seed=8)
    counts = count(gold, {"s": pred}, labels=list("abcde"))  # "e" is never in gold
    result = chance_baselines(counts, draws=100, seed=2, alpha=0.05)
    assert result.predictors["uniform"] == pytest.approx(np.full(5, 0.2))
    # every label counts in the macro average: (1/5) * (4 gold classes * 1/5)
    assert result.baselines["uniform"]["macro_recall"].expected == pytest.approx(4 / 25)
    assert result.baselines["uniform"]["macro_recall"].exact


def test_shuffle_keeps_margins_and_has_no_information():
    rng = np.random.default_rng(11)
    row = np.array([200, 120, 60, 20])
    col = np.array([150, 150, 0, 100])
    samples = sample_shuffle(rng, row, col, 3000)
    assert samples.dtype == np.int64 and samples.min() >= 0
    assert (samples.sum(axis=2) == row).all() and (samples.sum(axis=1) == col).all()
    # independent check: each cell is hypergeometric with mean row_i col_j / N and the
    # variance of drawing row_i from the pool of predicted labels
    n = row.sum()
    assert samples.mean(axis=0) == pytest.approx(np.outer(row, col) / n, abs=0.5)
    variance = row[0] * col[0] / n * (1 - col[0] / n) * (n - row[0]) / (n - 1)
    assert samples[:, 0, 0].var() == pytest.approx(variance, rel=0.1)
    reference = np.random.default_rng(12).multivariate_hypergeometric(col, row[0], size=3000)
    assert samples[:, 0, :].mean(axis=0) == pytest.approx(reference.mean(axis=0), abs=0.5)

    gold, pred = synthetic(n=400, seed=4)
    counts = count(gold, {"s": pred})
    result = chance_baselines(counts, draws=2000, seed=9, alpha=0.05)
    informedness = result.shuffle["s"]["informedness"]
    assert informedness.expected == 0.0 or abs(informedness.expected) < 1e-15
    assert abs(informedness.mc_mean) <= 4 * informedness.mc_se


def test_random_sampler_keeps_gold_rows():
    samples = sample_random(np.random.default_rng(0), np.array([5, 0, 7]), np.array([0.2, 0.3, 0.5]), 100)
    assert (samples.sum(axis=2) == [5, 0, 7]).all()


def test_system_equal_to_gold_has_the_smallest_p_value():
    gold, _ = synthetic(n=200, seed=1)
    counts = count(gold, {"oracle": gold})
    draws = 500
    result = chance_baselines(counts, draws=draws, seed=4, alpha=0.05)
    for metric_id in ("accuracy", "macro_f1", "kappa", "mcc", "informedness"):
        comparison = result.chance["oracle"][metric_id]
        assert comparison.p_shuffle == pytest.approx(1 / (draws + 1)), metric_id
        assert comparison.margin > 0


def test_random_system_p_values_are_roughly_uniform():
    values = []
    for seed in range(24):
        rng = np.random.default_rng(100 + seed)
        gold = LABELS[rng.choice(4, 150, p=PREVALENCE)]
        noise = LABELS[rng.choice(4, 150, p=[0.4, 0.3, 0.2, 0.1])]
        result = chance_baselines(count(gold, {"r": noise}), draws=200, seed=seed, alpha=0.05)
        values.append(result.chance["r"]["accuracy"].p_shuffle)
    values = np.array(values)
    assert 0.3 < values.mean() < 0.7
    assert (values < 0.05).sum() <= 4 and (values > 0.5).sum() >= 6


def test_permutation_p_value_agrees_with_scipy():
    rng = np.random.default_rng(21)
    gold = rng.choice(3, 60, p=[0.5, 0.3, 0.2])
    pred = np.where(rng.random(60) < 0.05, gold, rng.choice(3, 60, p=[0.5, 0.3, 0.2]))
    draws = 4000
    ours = chance_baselines(count(gold, {"s": pred}), draws=draws, seed=5, alpha=0.05).chance["s"]["accuracy"].p_shuffle

    def accuracy(x, axis=-1):
        return (x == gold).mean(axis=axis)

    reference = stats.permutation_test(
        (pred,), accuracy, permutation_type="pairings", alternative="greater",
        n_resamples=draws, vectorized=True, random_state=6,
    ).pvalue
    assert 0.02 < reference < 0.6  # a case where the p-value is neither tiny nor 1
    tolerance = 4 * np.sqrt(2 * reference * (1 - reference) / draws)
    assert abs(ours - reference) <= tolerance


def test_permutation_p_value_counts_ties_and_skips_undefined():
    assert permutation_p_value(0.5, np.array([0.5, 0.4, np.nan, 0.6])) == pytest.approx(3 / 4)
    assert permutation_p_value(float("nan"), np.array([0.1])) is None


def test_seed_reproducible_and_independent_of_other_systems():
    gold, pred = synthetic(n=200, seed=2)
    _, other = synthetic(n=200, seed=3)
    alone = chance_baselines(count(gold, {"s": pred}), draws=100, seed=8, alpha=0.05)
    together = chance_baselines(count(gold, {"t": other, "s": pred}), draws=100, seed=8, alpha=0.05)
    assert alone.shuffle["s"]["kappa"] == together.shuffle["s"]["kappa"]
    assert alone.baselines["uniform"]["macro_f1"] == together.baselines["uniform"]["macro_f1"]


def test_json_sections():
    gold, pred = synthetic(n=200, seed=2)
    result = auditor.audit(gold, {"s": pred, "m": np.full(200, "a")}, seed=8, analyses=("baselines",))
    document = result.to_json()
    json.dumps(document, allow_nan=False)
    assert set(document["baselines"]) == {"uniform", "prevalence", "majority", "shuffle"}
    entry = document["baselines"]["uniform"]["metrics"]["accuracy"]
    assert {"expected", "exact", "mc_mean", "mc_se", "mc_low", "mc_high"} <= set(entry)
    assert set(document["baselines"]["shuffle"]) == {"s", "m"}
    assert document["baselines"]["shuffle"]["s"]["metrics"]["kappa"]["exact"] is True
    chance = document["chance"]["systems"]["s"]["kappa"]
    assert {"margin", "strongest_baseline", "p_shuffle"} <= set(chance)
    assert document["chance"]["systems"]["m"]["mcc"]["p_shuffle"] is None
    assert document["chance"]["method"]["draws"] == CHANCE_DRAWS and document["chance"]["method"]["seed"] == 8


# ------------------------------------------------------------------------- GermEval 2018


def _read_tsv(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return dict(line.split("\t")[:2] for line in lines if line)


@pytest.fixture(scope="module")
def germeval(germeval_dir):
    gold = _read_tsv(germeval_dir / "gold.tsv")
    ids = list(gold)
    systems = {}
    for path in sorted((germeval_dir / "systems").glob("*.tsv")):
        predicted = _read_tsv(path)
        systems[path.stem] = np.array([predicted[i] for i in ids])
    counts = count(np.array([gold[i] for i in ids]), systems)
    return counts, chance_baselines(counts, draws=1000, seed=12345, alpha=0.05)


CHANCE_CORRECTED = ("kappa", "mcc", "informedness")
TRAINED = ("char-svm", "char-svm-balanced", "word-complement-nb", "word-logreg", "word-logreg-balanced", "word-nb")


def test_germeval_chance_systems_are_not_distinguishable(germeval):
    _, result = germeval
    for system in ("majority", "prior-sampler"):
        for metric_id in CHANCE_CORRECTED:
            comparison = result.chance[system][metric_id]
            if system == "majority" and metric_id == "mcc":
                assert comparison.p_shuffle is None and "0/0" in comparison.undefined
            else:
                assert comparison.p_shuffle > 0.05, (system, metric_id, comparison)


def test_germeval_trained_systems_beat_chance(germeval):
    counts, result = germeval
    assert set(TRAINED) <= set(counts.systems)
    for system in TRAINED:
        for metric_id in CHANCE_CORRECTED:
            comparison = result.chance[system][metric_id]
            assert comparison.p_shuffle <= 0.01, (system, metric_id)
            assert comparison.margin > 0.1, (system, metric_id)


def test_monte_carlo_range_follows_alpha_and_draws_do_not_depend_on_threads():
    gold, pred = synthetic(n=300, seed=5)
    counts = count(gold, {"s": pred, "t": pred[::-1].copy()})
    wide = chance_baselines(counts, draws=400, seed=7, alpha=0.2, threads=1)
    narrow = chance_baselines(counts, draws=400, seed=7, alpha=0.01, threads=2)
    drawn = wide.shuffle_scores["s"]["accuracy"]
    np.testing.assert_array_equal(drawn, narrow.shuffle_scores["s"]["accuracy"])  # same draws
    entry = wide.shuffle["s"]["accuracy"]
    assert (entry.mc_low, entry.mc_high) == tuple(np.quantile(drawn, [0.1, 0.9]))
    wider = narrow.shuffle["s"]["accuracy"]
    assert (wider.mc_low, wider.mc_high) == tuple(np.quantile(drawn, [0.005, 0.995]))
    method = auditor.audit(["a", "b", "b"], {"s": ["a", "b", "a"]},
                           bootstrap=0, alpha=0.2).to_json()["chance"]["method"]
    assert method["alpha"] == 0.2 and "80%" in method["range"]


def test_sparse_draws_equal_dense_draws_in_distribution(monkeypatch):
    """Cells drawn item by item (many classes, few items) against the dense samplers, same case:
    two-sample tests on the drawn scores at fixed seeds, exact expectations for both."""
    import auditor.analyses.baselines as module
    import auditor.analyses.sampling as sampling_module

    gold, pred = synthetic(n=60, seed=4)
    counts = count(gold, {"s": pred})
    runs = {}
    for name, ratio in (("dense", 10**9), ("sparse", 0)):
        monkeypatch.setattr(sampling_module, "SPARSE_RATIO", ratio)
        assert module.sparse_draws(counts.k, counts.n_items) is (name == "sparse")
        runs[name] = chance_baselines(counts, draws=3000, seed=9 if name == "dense" else 10, alpha=0.05)
    dense, sparse = runs["dense"], runs["sparse"]
    for metric_id in ("accuracy", "macro_f1", "kappa", "mcc", "nit"):
        a, b = dense.shuffle_scores["s"][metric_id], sparse.shuffle_scores["s"][metric_id]
        assert stats.ks_2samp(a[~np.isnan(a)], b[~np.isnan(b)]).pvalue > 1e-3, metric_id
        for baseline in ("uniform", "prevalence"):
            d, s = dense.baselines[baseline][metric_id], sparse.baselines[baseline][metric_id]
            assert abs(d.mc_mean - s.mc_mean) <= 5 * np.hypot(d.mc_se, s.mc_se), (baseline, metric_id)
            assert d.exact == s.exact, (baseline, metric_id)
        assert dense.shuffle["s"][metric_id].exact == sparse.shuffle["s"][metric_id].exact
    # shuffle accuracy: E = Σ row_i col_i / N², exactly (hand formula; both margins fixed)
    row, col = counts.support, counts.confusion[0].sum(axis=0)
    assert sparse.shuffle["s"]["accuracy"].expected == pytest.approx((row * col).sum() / 60**2)


def test_many_classes_few_items_stay_small():
    """1,000 classes x 3,000 items: no (draws, k, k) array (it would be 8 GB)."""
    import resource

    rng = np.random.default_rng(0)
    gold = rng.integers(0, 1000, 3000)
    counts = count(gold, {"s": np.where(rng.random(3000) < 0.5, gold, rng.integers(0, 1000, 3000))})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = chance_baselines(counts, draws=200, seed=1, alpha=0.05)
    grown_gb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 2**20
    assert grown_gb < 1.0
    assert result.shuffle["s"]["kappa"].exact and result.shuffle["s"]["kappa"].expected == pytest.approx(0, abs=1e-12)
    assert result.chance["s"]["accuracy"].p_shuffle == pytest.approx(1 / 201)


# ------------------------------------------------------ "above chance?" corrected over the systems


def test_shuffle_p_values_are_adjusted_over_the_systems_per_metric():
    """Holm by hand (Holm 1979): p = 0.01, 0.04, 0.03 over m = 3 systems, sorted 0.01, 0.03, 0.04
    -> 3 x 0.01 = 0.03, max(0.03, 2 x 0.03) = 0.06, max(0.06, 1 x 0.04) = 0.06. BH (Benjamini &
    Hochberg 1995): 3 x 0.04 / 3 = 0.04, min(0.04, 3 x 0.03 / 2 = 0.045) = 0.04, 3 x 0.01 = 0.03.
    An undefined value stays out of the family."""
    chance = {s: {"kappa": ChanceComparison(0.1, "uniform", p), "mcc": ChanceComparison(None, None, None, "0/0")
                  if s == "b" else ChanceComparison(0.1, "uniform", 0.02)}
              for s, p in (("a", 0.01), ("b", 0.04), ("c", 0.03))}
    holm = adjust_shuffle_p(chance, "holm")
    assert [holm[s]["kappa"].p_shuffle_adjusted for s in "abc"] == pytest.approx([0.03, 0.06, 0.06])
    assert holm["b"]["mcc"].p_shuffle_adjusted is None
    assert [holm[s]["mcc"].p_shuffle_adjusted for s in "ac"] == pytest.approx([0.04, 0.04])
    bh = adjust_shuffle_p(chance, "bh")
    assert [bh[s]["kappa"].p_shuffle_adjusted for s in "abc"] == pytest.approx([0.03, 0.04, 0.04])


def _leaderboard(classes: int, near_chance: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """60 systems right on 90% of 200 items, the first ``near_chance`` of them guessing instead."""
    rng = np.random.default_rng(3)
    gold = rng.choice(classes, 200)
    return gold, {f"s{i:02d}": np.where(rng.random(200) < (0.0 if i < near_chance else 0.9), gold,
                                        rng.choice(classes, 200)) for i in range(60)}


def test_many_systems_far_above_chance_draw_no_shuffle():
    """60 systems far above chance, Holm: a Monte Carlo p over R = 1,000 draws is at least 1/1,001, so its adjusted
    p is at least 60/1,001 > α and cannot decide an answer, and every metric with a bound is settled by it without a
    draw: no system's shuffles are drawn (issue 40: "draw only for the systems the bound leaves open"). NIT, which
    has no bound, is not tested; the shuffle keeps its exact expectations (accuracy's Σ row_i col_i / N²) and has
    no Monte Carlo range, while the fixed baselines are still drawn."""
    gold, systems = _leaderboard(3)
    document = auditor.audit(gold, systems, seed=4, analyses=("baselines",)).to_json()
    method = document["chance"]["method"]
    assert method["draws"] == 1000 and method["shuffles_not_drawn"] == sorted(systems)
    for name, entry in document["chance"]["systems"].items():
        assert all(entry[m]["p_shuffle_method"] == "bound" and entry[m]["p_shuffle_resolved"] for m in SETTLED)
        nit = entry["nit"]
        assert (nit["p_shuffle_method"], nit["p_shuffle"], nit["p_shuffle_adjusted"]) == ("not tested", None, None)
        shuffle = document["baselines"]["shuffle"][name]["metrics"]
        row, col = np.bincount(gold, minlength=3), np.bincount(systems[name], minlength=3)
        assert shuffle["accuracy"]["expected"] == pytest.approx(row @ col / 200 ** 2) and shuffle["accuracy"]["exact"]
        assert shuffle["nit"]["mc_mean"] is None and shuffle["accuracy"]["mc_low"] is None
    assert document["baselines"]["uniform"]["metrics"]["accuracy"]["mc_low"] is not None


def test_many_systems_with_bh_draw_every_shuffle():
    """The same 60 systems with Benjamini–Hochberg: with every p at 1/1,001 BH adjusts them to 1/1,001 < α, so a
    Monte Carlo p can decide an answer and every system's shuffles are drawn (NIT: p = 1/(R + 1), and its BH
    adjustment is that p as all 60 share it)."""
    gold, systems = _leaderboard(3)
    document = auditor.audit(gold, systems, seed=4, correction="bh", analyses=("baselines",)).to_json()
    assert document["chance"]["method"]["shuffles_not_drawn"] == []
    for entry in document["chance"]["systems"].values():
        nit = entry["nit"]
        assert (nit["p_shuffle_method"], nit["p_shuffle_draws"]) == ("monte carlo", 1000)
        assert nit["p_shuffle"] == pytest.approx(1 / 1001) and nit["p_shuffle_adjusted"] == pytest.approx(1 / 1001)


def test_a_system_the_bound_leaves_open_is_drawn_alone(monkeypatch):
    """Two of the 60 systems guess: their bounds cannot settle their answers, so their shuffles (and only theirs)
    are drawn, and their p-values are Monte Carlo over those draws, against the other 58 systems' bounds: the same
    p-values and shuffle summaries as when every system is drawn (each system has its own stream)."""
    from auditor.analyses import baselines

    gold, systems = _leaderboard(3, near_chance=2)
    document = auditor.audit(gold, systems, seed=4, analyses=("baselines",)).to_json()
    assert document["chance"]["method"]["shuffles_not_drawn"] == sorted(systems)[2:]
    monkeypatch.setattr(baselines, "_needless_shuffles", lambda counts, *_: (np.zeros(60, dtype=bool), None))
    drawn = auditor.audit(gold, systems, seed=4, analyses=("baselines",)).to_json()
    for name in sorted(systems)[:2]:
        entry = document["chance"]["systems"][name]
        assert entry["accuracy"]["p_shuffle_method"] == "monte carlo" and entry["accuracy"]["p_shuffle"] > 0.05
        assert entry["accuracy"]["p_shuffle"] == drawn["chance"]["systems"][name]["accuracy"]["p_shuffle"]
        assert entry["nit"]["p_shuffle"] == drawn["chance"]["systems"][name]["nit"]["p_shuffle"]
        assert document["baselines"]["shuffle"][name] == drawn["baselines"]["shuffle"][name]


def test_many_systems_two_classes_draw_no_shuffle():
    """Two classes: every shuffle p is exact (every table enumerated), so with 60 systems under Holm no answer
    depends on a draw and none is made; the p-values are those of the drawn run (exact either way)."""
    gold, systems = _leaderboard(2, near_chance=1)
    document = auditor.audit(gold, systems, seed=4, analyses=("baselines",)).to_json()
    assert document["chance"]["method"]["shuffles_not_drawn"] == sorted(systems)
    drawn = auditor.audit(gold, systems, seed=4, correction="bh", analyses=("baselines",)).to_json()
    assert drawn["chance"]["method"]["shuffles_not_drawn"] == []
    for name, entry in document["chance"]["systems"].items():
        assert {m: e["p_shuffle"] for m, e in entry.items()} == {
            m: e["p_shuffle"] for m, e in drawn["chance"]["systems"][name].items()}
        assert all(e["p_shuffle_method"] == "exact" for e in entry.values() if e["undefined"] is None)


def test_json_has_the_adjusted_shuffle_p_value_and_its_correction():
    gold, pred = synthetic(n=200, seed=2)
    document = auditor.audit(gold, {"s": pred, "m": np.full(200, "a")}, seed=8, correction="bh",
                             analyses=("baselines",)).to_json()
    assert "bh" in document["chance"]["method"]["p_shuffle_correction"]
    entry = document["chance"]["systems"]["s"]["kappa"]
    # one defined system in the family (m's kappa is 0 for a constant predictor, p = 1): BH of 2
    assert entry["p_shuffle_adjusted"] >= entry["p_shuffle"]
    assert document["chance"]["systems"]["m"]["mcc"]["p_shuffle_adjusted"] is None


@pytest.mark.parametrize("k, n", [(4, 300), (12, 20)])  # dense tables, and cells (k² > 4N)
def test_every_systems_shuffle_checked_and_summarised_at_once_equals_one_by_one(k, n):
    """The shuffles' affine checks and summaries are computed for every system at once: the same answers and
    floats as system by system (each table's stats are its own sums, in the same order)."""
    from auditor.analyses import baselines
    from auditor.analyses.affine_check import affine_of_baselines, affine_pairs, stacked
    from auditor.metrics.registry import REGISTRY

    rng = np.random.default_rng(7)
    gold = rng.integers(0, k, n)
    counts = count(gold, {f"s{s}": np.where(rng.random(n) < 0.3 + 0.1 * s, gold, rng.integers(0, k, n))
                          for s in range(5)})
    metrics = [m for m in REGISTRY.scalar() if not m.per_class]
    support = counts.support.astype(np.int64)
    columns = counts.confusion.sum(axis=1).astype(np.int64)
    pairs = [affine_pairs(np.random.default_rng(s), 30) for s in range(5)]
    drawn = [baselines._draw_values("shuffle", np.random.default_rng(10 + s), support, columns[s], 30, metrics,
                                    False, pairs[s]) for s in range(5)]
    mixed = [m for _, m in drawn]
    whole = stacked(mixed)
    for index, one in enumerate(mixed):
        for name in ("row", "col", "diag", "n"):
            np.testing.assert_array_equal(getattr(whole, name)[index], getattr(one, name))
    together = affine_of_baselines(pairs, mixed, [v for v, _ in drawn], "shuffle", support, columns, metrics, False)
    alone = [affine_of_baselines([pairs[s]], [mixed[s]], [drawn[s][0]], "shuffle", support, columns[s][None],
                                 metrics, False)[0] for s in range(5)]
    assert together == alone
    expected = support[None, :, None] * columns[:, None, :] / n
    summaries = baselines._distributions_of(expected, together, [v for v, _ in drawn], metrics, False, alpha=0.05)
    for s in range(5):
        assert summaries[s] == baselines._distributions(expected[s], together[s], drawn[s][0], metrics, False,
                                                        alpha=0.05)


def test_a_baseline_without_two_draws_is_checked_on_its_hull_points():
    """One draw gives no pair of draws to mix: exactness is then checked on the hull's points alone, as without
    draws (accuracy and macro recall exact for every baseline, kappa for the shuffle; macro F1 of a random
    predictor not), the same answers as ``--bootstrap 0``'s."""
    rng = np.random.default_rng(6)
    gold = rng.choice(3, 300)
    counts = count(gold, {"s": np.where(rng.random(300) < 0.7, gold, rng.choice(3, 300))})
    one = chance_baselines(counts, draws=1, seed=1, alpha=0.05)
    none = chance_baselines(counts, draws=0, seed=1, alpha=0.05)
    for result in (one, none):
        assert result.shuffle["s"]["accuracy"].exact and result.shuffle["s"]["kappa"].exact
        assert result.baselines["uniform"]["macro_recall"].exact and not result.baselines["uniform"]["macro_f1"].exact
    assert {m: d.exact for m, d in one.shuffle["s"].items()} == {m: d.exact for m, d in none.shuffle["s"].items()}
