"""The paired bootstrap on counts (auditor.analyses.bootstrap), against independent computations.

* scipy.stats.bootstrap's percentile interval of the mean of the 0/1 correctness vector is
  the independent source for the accuracy interval;
* counting the reconstructed resample with ``confusion_tensor`` checks the sparse product;
* a coverage simulation checks the intervals' calibration on a system of known accuracy.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats
from synthetic import synthetic_counts

import auditor.metrics.catalogue  # noqa: F401  (registers the catalogue)
from auditor.analyses import bootstrap as bootstrap_module
from auditor.analyses import resample as resample_module
from auditor.analyses.bootstrap import bootstrap, percentile_intervals, rank_probabilities
from auditor.analyses.resample import Resampler
from auditor.io.counts import confusion_tensor, count
from auditor.metrics.catalogue import compute as catalogue_compute
from auditor.metrics.registry import REGISTRY


def _system(rng, n, k, accuracy):
    gold = rng.integers(0, k, size=n)
    wrong = (gold + rng.integers(1, k, size=n)) % k
    return gold, np.where(rng.random(n) < accuracy, gold, wrong)


def test_accuracy_interval_matches_scipy_percentile_bootstrap():
    # Same data, same B = 4000, different random streams. The 2.5% quantile of the bootstrap
    # distribution of a mean of 200 Bernoulli(0.7) has sd sigma = 0.032, density there
    # phi(1.96)/sigma = 1.8, so its Monte Carlo SE at B = 4000 is sqrt(.025*.975/4000)/1.8
    # = 0.0014; two independent estimates differ by SE*sqrt(2) = 0.002 (sd). Allowed: 0.01,
    # i.e. 5 sd, plus at most one 1/200 step of discreteness.
    counts = synthetic_counts(n=200)
    correct = (counts.predictions[0] == counts.gold).astype(float)
    ours = bootstrap(counts, [REGISTRY.get("accuracy")], B=4000, seed=7, alpha=0.05)
    reference = scipy.stats.bootstrap(
        (correct,), np.mean, n_resamples=4000, method="percentile", confidence_level=0.95,
        rng=np.random.default_rng(11),
    ).confidence_interval
    lo, hi = ours.interval("accuracy", "s0")
    assert lo == pytest.approx(reference.low, abs=0.01)
    assert hi == pytest.approx(reference.high, abs=0.01)
    assert ours.observed["accuracy"][0] == pytest.approx(correct.mean())


@pytest.mark.parametrize("items_per_pattern", [1, 40, "mixed"])
def test_resample_confusion_equals_counting_the_resampled_items(items_per_pattern, monkeypatch):
    # 40 items per pattern: every pattern heavy (multinomial); 1: every pattern light (item
    # draws); mixed: 40 items on 6 patterns, one each on the others (both parts).
    rng = np.random.default_rng(3)
    repeats = {1: np.ones(30, dtype=int), 40: np.full(30, 40), "mixed": np.where(np.arange(30) < 6, 40, 1)}
    gold = rng.integers(0, 3, size=30)
    predictions = {f"s{s}": rng.integers(0, 3, size=30) for s in range(3)}
    gold = np.repeat(gold, repeats[items_per_pattern])
    predictions = {name: np.repeat(p, repeats[items_per_pattern]) for name, p in predictions.items()}
    n = gold.size
    counts = count(gold, predictions)
    resampler = Resampler(counts, B=7, seed=5, chunk=3)
    heavy = resampler.n_patterns - resampler.n_light
    assert heavy == {1: 0, 40: resampler.n_patterns, "mixed": (resampler.pattern_counts >= 40).sum()}[items_per_pattern]
    if items_per_pattern == "mixed":
        assert 0 < heavy < resampler.n_patterns
    for index in range(resampler.n_chunks):
        weights = resampler.weights(index)
        batch = resampler.confusion(index)
        assert weights.shape[1] == batch.shape[0] == resampler.chunk_size(index)
        assert (weights.sum(axis=0) == n).all()
        for b in range(weights.shape[1]):
            items = np.repeat(resampler.codes, weights[:, b].astype(int), axis=0)  # the resampled items
            direct = confusion_tensor(items[:, 0], items[:, 1:].T, counts.k)
            np.testing.assert_array_equal(batch[b], direct)


def test_weights_have_the_item_resampling_distribution():
    # Resampling N items with replacement gives pattern counts ~ Multinomial(N, n_u / N):
    # mean n_u and variance n_u (1 - n_u / N).
    counts = synthetic_counts(n=60, accuracies=(0.9,))
    resampler = Resampler(counts, B=4000, seed=1)
    weights = np.concatenate([resampler.weights(i) for i in range(resampler.n_chunks)], axis=1)
    n, expected = counts.n_items, resampler.pattern_counts
    standard_error = np.sqrt(expected * (1 - expected / n) / weights.shape[1])
    assert (np.abs(weights.mean(axis=1) - expected) < 5 * standard_error).all()
    np.testing.assert_allclose(weights.var(axis=1), expected * (1 - expected / n), rtol=0.2)


def test_coverage_of_accuracy_interval_for_known_system():
    # True accuracy 0.8; 200 test sets of 100 items; a 95% interval each. The number that
    # contain 0.8 is ~ Binomial(200, c), c ~ 0.95 (percentile intervals at N = 100 slightly
    # under-cover). 3 sd of Binomial(200, 0.95) is 0.046: accept 0.90 <= coverage <= 0.99.
    rng = np.random.default_rng(2024)
    accuracy = REGISTRY.get("accuracy")
    hits = 0
    for trial in range(200):
        gold, predicted = _system(rng, 100, 2, 0.8)
        result = bootstrap(count(gold, {"sys": predicted}), [accuracy], B=400, seed=trial, alpha=0.05)
        lo, hi = result.interval("accuracy", "sys")
        hits += lo <= 0.8 <= hi
    assert 0.90 <= hits / 200 <= 0.99


def test_same_seed_same_result_regardless_of_threads_and_different_seed_differs():
    counts = synthetic_counts(n=300)
    metrics = REGISTRY.scalar()
    one = bootstrap(counts, metrics, B=100, seed=9, chunk=16, threads=1, alpha=0.05)
    two = bootstrap(counts, metrics, B=100, seed=9, chunk=16, threads=2, alpha=0.05)
    other = bootstrap(counts, metrics, B=100, seed=10, chunk=16, threads=1, alpha=0.05)
    for metric_id in one.metric_ids:
        np.testing.assert_array_equal(one.values[metric_id], two.values[metric_id])
    assert not np.array_equal(one.values["accuracy"], other.values["accuracy"])


@pytest.mark.parametrize("k, n", [(4, 300), (12, 20)])  # dense tables, and cells (k² > 4N)
def test_interval_and_paired_values_equal_one_batch_of_every_system(k, n, monkeypatch):
    """Each group of systems is drawn and scored on a worker, the paired resamples' metrics in batches of a few
    tables: the values equal every system's draws scored in one batch (each system has its own stream; a metric
    of a table is computed table by table)."""
    monkeypatch.setattr(bootstrap_module, "BATCH_TABLES", 20)
    counts = synthetic_counts(seed=3, n=n, k=k, accuracies=(0.9, 0.7, 0.6, 0.5, 0.45, 0.4, 0.3))
    metrics = [metric for metric in REGISTRY.scalar() if not metric.per_class]
    whole = [catalogue_compute(stats, metrics) for stats in bootstrap_module.system_resamples(counts, 40, seed=5)]
    expected = {metric.id: np.concatenate([part[metric.id] for part in whole]) for metric in metrics}
    for threads, chunk in ((1, None), (3, 7)):
        got = bootstrap_module._interval_values(counts, metrics, 40, 5, False, threads, lambda steps: None, chunk)
        for metric in metrics:
            np.testing.assert_array_equal(got[metric.id], expected[metric.id])
    resampler = Resampler(counts, 40, 5, 16)  # the paired resamples' metrics, computed in smaller batches
    joint = bootstrap_module._joint_values(counts, metrics, 40, 5, False, 1, lambda steps: None, 16)
    for metric in metrics:
        np.testing.assert_array_equal(joint[metric.id], np.concatenate(
            [catalogue_compute(resampler.stats(index), metrics)[metric.id] for index in range(resampler.n_chunks)]))


def test_percentile_intervals_equal_each_columns_own():
    values = np.random.default_rng(1).random((101, 6))
    values[[3, 50], 1] = np.nan
    values[:, 4] = np.nan
    intervals, undefined = percentile_intervals(values, 0.05)
    for column in range(6):
        defined = values[:, column][~np.isnan(values[:, column])]
        expected = np.percentile(defined, [2.5, 97.5]) if defined.size else [np.nan, np.nan]
        np.testing.assert_array_equal(intervals[column], expected)
    assert list(undefined) == [0, 2, 0, 0, 101, 0]


def test_every_scalar_metric_gets_values_intervals_and_ranks():
    counts = synthetic_counts()
    result = bootstrap(counts, REGISTRY.scalar(), B=50, seed=12345, alpha=0.05)
    for metric in REGISTRY.scalar():
        assert result.values[metric.id].shape == (50, 3)
        assert result.intervals[metric.id].shape == (3, 2)
        np.testing.assert_allclose(result.rank_probabilities[metric.id].sum(axis=0), 1)
        np.testing.assert_allclose(result.rank_probabilities[metric.id].sum(axis=1), 1)
    assert "class_f1" not in result.values  # per-class metrics are not bootstrapped


def test_percentile_intervals_ignore_and_count_undefined_resamples():
    values = np.array([[1.0, np.nan], [2.0, np.nan], [np.nan, np.nan], [3.0, np.nan], [4.0, np.nan]])
    intervals, undefined = percentile_intervals(values, 0.5)
    np.testing.assert_allclose(intervals[0], np.percentile([1, 2, 3, 4], [25, 75]))
    assert np.isnan(intervals[1]).all()
    assert list(undefined) == [1, 5]


def test_rank_probabilities_split_ties_and_rank_undefined_last():
    values = np.array([
        [0.9, 0.5, 0.1],      # ranks 1, 2, 3
        [0.5, 0.5, 0.1],      # a and b tie for ranks 1-2
        [np.nan, 0.2, 0.3],   # c 1, b 2, a (undefined) 3
        [0.4, 0.4, 0.4],      # all tie: 1/3 each rank
    ])
    expected = np.array([
        [1 + 0.5 + 0 + 1 / 3, 0 + 0.5 + 0 + 1 / 3, 0 + 0 + 1 + 1 / 3],
        [0 + 0.5 + 0 + 1 / 3, 1 + 0.5 + 1 + 1 / 3, 0 + 0 + 0 + 1 / 3],
        [0 + 0 + 1 + 1 / 3, 0 + 0 + 0 + 1 / 3, 1 + 1 + 0 + 1 / 3],
    ]) / 4
    np.testing.assert_allclose(rank_probabilities(values), expected)


def test_chunks_bounded_by_memory_budget(monkeypatch):
    monkeypatch.setattr(bootstrap_module, "CHUNK_BYTES", 4 * 1024)
    monkeypatch.setattr(resample_module, "CHUNK_BYTES", 4 * 1024)
    counts = synthetic_counts(n=300)
    resampler = Resampler(counts, B=100, seed=1)
    assert resampler.chunk < 100 and resampler.n_chunks * resampler.chunk >= 100
    small = bootstrap(counts, [REGISTRY.get("accuracy")], B=100, seed=1, alpha=0.05)
    assert np.isfinite(small.values["accuracy"]).all()


def test_audit_json_has_statistics_only_when_bootstrap_is_on():
    from auditor.pipeline import audit

    rng = np.random.default_rng(0)
    gold = rng.choice(["x", "y", "z"], size=80)
    systems = {"good": np.where(rng.random(80) < 0.8, gold, "x"), "bad": rng.choice(["x", "y", "z"], size=80)}
    off = audit(list(gold), {k: list(v) for k, v in systems.items()}, bootstrap=0).to_json()
    # no draws: the exact McNemar tests of accuracy only, no interval, no rank (tests/test_no_draws.py)
    assert off["statistics"]["B"] == 0 and {test["method"] for test in off["tests"]} == {"mcnemar_exact"}
    assert off["statistics"]["ranks"] == {} and set(off["statistics"]["best_set"]) == {"accuracy"}
    assert off["systems"]["good"]["metrics"]["accuracy"]["ci"] is None

    on = audit(list(gold), {k: list(v) for k, v in systems.items()}, bootstrap=200, seed=3).to_json()
    json.dumps(on, allow_nan=False)
    assert on["statistics"]["B"] == 200 and on["statistics"]["seed"] == 3
    assert on["statistics"]["method"] == bootstrap_module.METHOD  # intervals per system, ranks paired
    lo, hi = on["systems"]["good"]["metrics"]["accuracy"]["ci"]
    assert lo <= on["systems"]["good"]["metrics"]["accuracy"]["value"] <= hi
    assert set(on["statistics"]["ranks"]["accuracy"]) == {"good", "bad"}
    assert on["statistics"]["best_set"]["accuracy"]["top"] == "good"
    assert {test["method"] for test in on["tests"]} == {"mcnemar_exact", "approximate_randomisation"}
    assert len({(t["a"], t["b"], t["metric"]) for t in on["tests"]}) == len(on["tests"])  # one p per pair and metric
    again = audit(list(gold), {k: list(v) for k, v in systems.items()}, bootstrap=200, seed=3).to_json()
    assert again["tests"] == on["tests"] and again["statistics"]["ranks"] == on["statistics"]["ranks"]


#: scipy.sparse and scipy.special: 0.25 s of `score --bootstrap 0`'s start-up when the statistics
#: stage's modules imported them at the top (issue 21).
HEAVY_MODULES = ("jinja2", "altair", "weasyprint", "vl_convert", "pandas", "pyarrow.parquet", "scipy.stats",
                 "scipy.sparse", "scipy.special", "auditor.formats.render", "auditor.report.build",
                 "auditor.report.charts")


@pytest.mark.parametrize("code", [
    "import auditor",
    "from auditor.cli import main\n"
    "try:\n    main([GOLD, SYSTEM, '--bootstrap', '0', '--quiet'], prog_name='auditor', standalone_mode=True)\n"
    "except SystemExit as exit:\n    assert not exit.code, exit.code",
])
def test_import_and_score_without_bootstrap_load_no_rendering_stack(code, germeval_dir, tmp_path):
    import subprocess
    import sys

    root = germeval_dir
    program = (f"import sys\nGOLD, SYSTEM = {str(root / 'gold.tsv')!r}, {str(root / 'systems' / 'char-svm.tsv')!r}\n"
               + code.replace("main([", "main(['score', ")
               + f"\nloaded = [m for m in {HEAVY_MODULES!r} if m in sys.modules]\nassert not loaded, loaded\n")
    # cwd away from the checkout: the child imports the installed package, not ./auditor
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("systems", [2, 30])  # 30 systems x 4 labels: too wide for one int64 key per item
def test_patterns_are_the_unique_items_with_their_counts(systems):
    counts = synthetic_counts(seed=4, n=500, k=4, accuracies=np.linspace(0.3, 0.9, systems))
    codes, pattern_counts = counts.patterns()
    stacked = np.concatenate([counts.gold[None, :], counts.predictions]).T
    assert pattern_counts.sum() == counts.n_items and len({tuple(c) for c in codes.tolist()}) == len(codes)
    np.testing.assert_array_equal(codes[counts.item_patterns()], stacked)  # every item maps to its pattern
    # in lexicographic order of (gold, pred_1, ...), the order the bootstrap's draws are binned in
    np.testing.assert_array_equal(codes, np.unique(stacked, axis=0))
    weighted = np.repeat(codes, pattern_counts, axis=0)
    np.testing.assert_array_equal(confusion_tensor(weighted[:, 0], weighted[:, 1:].T, counts.k), counts.confusion)
    assert counts.patterns()[0] is codes  # computed once


def test_split_patterns_minimises_the_drawing_cost():
    # Hand computation: counts (1, 1, 50, 2, 30) at a pattern cost of 12. Sorted: 1, 1, 2, 30, 50;
    # cost of L light = 12 (5 - L) + (items of the L lightest) = 60, 49, 38, 28, 46, 84: L = 3.
    order, light = resample_module.split_patterns(np.array([1, 1, 50, 2, 30]), pattern_cost=12)
    assert light == 3
    np.testing.assert_array_equal(order, [0, 1, 3, 4, 2])
    assert resample_module.split_patterns(np.ones(7, dtype=int))[1] == 7  # singletons: all drawn as items
    assert resample_module.split_patterns(np.full(7, 10**6))[1] == 0  # huge patterns: all multinomial


def test_split_weights_equal_item_resampling_in_distribution():
    """The light/heavy split against N items drawn with replacement and binned by pattern (the
    item bootstrap), at fixed seeds: a two-sample test per pattern and on a metric, and the exact
    multinomial moments E[W_u] = n_u, Var = n_u (1 − n_u / N), Cov(W_u, W_v) = −n_u n_v / N
    (within and across the two groups)."""
    rng = np.random.default_rng(21)
    repeats = np.concatenate([np.full(4, 30), np.ones(20, dtype=int), np.full(3, 2)])  # heavy, light, light
    gold = np.repeat(rng.integers(0, 3, size=repeats.size), repeats)
    counts = count(gold, {f"s{s}": np.repeat(rng.integers(0, 3, size=repeats.size), repeats) for s in range(4)})
    resampler = Resampler(counts, B=4000, seed=2)
    assert 0 < resampler.n_light < resampler.n_patterns  # both parts drawn
    weights = np.concatenate([resampler.weights(i) for i in range(resampler.n_chunks)], axis=1).astype(np.float64)
    n, expected, B = counts.n_items, resampler.pattern_counts.astype(float), weights.shape[1]
    assert (weights.sum(axis=0) == n).all()
    position = {tuple(row): u for u, row in enumerate(resampler.codes.tolist())}
    item_pattern = np.array([position[tuple(row)] for row in
                             np.concatenate([counts.gold[None, :], counts.predictions]).T.tolist()])
    items = np.random.default_rng(3).integers(0, n, size=(B, n))
    reference = np.stack([np.bincount(item_pattern[row], minlength=resampler.n_patterns) for row in items], axis=1)
    for u in range(resampler.n_patterns):
        assert scipy.stats.ks_2samp(weights[u], reference[u]).pvalue > 1e-4
    covariance = np.cov(weights)
    exact = np.diag(expected) - np.outer(expected, expected) / n
    scale = np.sqrt(np.outer(np.diag(exact), np.diag(exact)))  # sd of a covariance estimate ~ scale * sqrt(2 / B)
    assert (np.abs(covariance - exact) <= 6 * scale * np.sqrt(2 / B)).all()
    assert (np.abs(weights.mean(axis=1) - expected) <= 5 * np.sqrt(np.diag(exact) / B)).all()
    stats = [resampler.confusion(i) for i in range(resampler.n_chunks)]
    f1 = REGISTRY.get("macro_f1")
    ours = np.concatenate([f1(batch)[:, 0] for batch in stats])
    items_codes = np.concatenate([counts.gold[None, :], counts.predictions[:1]])
    theirs = np.array([f1(confusion_tensor(items_codes[0, row], items_codes[1:, row], counts.k))[0] for row in items])
    assert scipy.stats.ks_2samp(ours, theirs).pvalue > 1e-3


@pytest.mark.parametrize("slack, table, inverted", [(2.0, True, True), (0.0, True, True), (1e9, True, True),
                                                    (2.0, False, True), (2.0, True, False)])
def test_heavy_patterns_have_the_exact_multinomial_law(slack, table, inverted, monkeypatch):
    """The heavy patterns' Poisson counts completed item by item (:meth:`PatternDraws.heavy`) against
    ``scipy.stats.multinomial``'s probability of every outcome: 34 items on three heavy patterns (12, 11, 11),
    630 outcomes, a chi-square test over 40,000 draws; whatever the Poisson mean: ``c`` = 2 (the default),
    0 (λ = M: about half the rows drawn again), 10⁹ (λ = 0: every item drawn one by one); the missing
    items found by a binary search instead of the look-up table; the Poisson counts by numpy's sampler instead
    of inversion (:func:`poisson_cdf`)."""
    monkeypatch.setattr(resample_module, "POISSON_SLACK", slack)
    if not table:
        monkeypatch.setattr(resample_module, "TABLE_ITEMS", 0)
    if not inverted:
        monkeypatch.setattr(resample_module, "INVERTED_COUNT", 0)
    draws = resample_module.PatternDraws(np.array([11, 12, 11]))
    assert draws.n_light == 0 and (draws._heavy_pattern is None) == (not table)
    assert draws._inverted_end == (3 if inverted else 0)
    rows = draws.fill(np.random.default_rng(8), np.empty((40_000, 3), dtype=np.float32)).astype(np.int64)
    assert (rows.sum(axis=1) == 34).all()
    shares = draws.counts / 34
    outcomes = [(i, j, 34 - i - j) for i in range(35) for j in range(35 - i)]
    expected = 40_000 * scipy.stats.multinomial.pmf(outcomes, 34, shares)
    seen = dict(zip(*np.unique(rows[:, 0] * 35 + rows[:, 1], return_counts=True)))
    found = np.array([seen.get(i * 35 + j, 0) for i, j, _ in outcomes])
    frequent = expected >= 5  # the rare outcomes pooled into one cell
    observed_cells = np.append(found[frequent], found[~frequent].sum())
    expected_cells = np.append(expected[frequent], expected[~frequent].sum())
    expected_cells *= observed_cells.sum() / expected_cells.sum()
    assert scipy.stats.chisquare(observed_cells, expected_cells).pvalue > 1e-4


def test_poisson_table_is_scipys_cdf():
    """The inversion table against ``scipy.stats.poisson.cdf`` at the means it takes (and mean 0: always 0)."""
    for mean in (0.3, 4.5, 11.0, 48.7, 60.0):
        table = resample_module.poisson_cdf(mean)
        np.testing.assert_allclose(table, scipy.stats.poisson.cdf(np.arange(table.size), mean), rtol=1e-12, atol=1e-15)
        assert table[-1] == 1.0 and scipy.stats.poisson.sf(table.size - 1, mean) < 1e-25
    np.testing.assert_array_equal(resample_module.poisson_cdf(0.0), [1.0])


def test_system_resamples_equal_item_resampling_in_distribution():
    """Each system's Multinomial(N, C_s / N) resample against N items drawn with replacement and
    counted (the item bootstrap), at fixed seeds: two-sample tests on cells and on macro F1, and
    the exact multinomial moments E[C*_ij] = C_ij, Var = C_ij (1 − C_ij / N)."""
    counts = synthetic_counts(n=120, k=3, accuracies=(0.6,))
    B, n = 4000, counts.n_items
    cells = np.concatenate([stats.C[:, 0] for stats in bootstrap_module.system_resamples(counts, B, seed=4)])
    rng = np.random.default_rng(5)
    items = rng.integers(0, n, size=(B, n))
    reference = np.stack([confusion_tensor(counts.gold[i], counts.predictions[:1, i], counts.k)[0] for i in items])
    observed = counts.confusion[0]
    assert (cells.sum(axis=(1, 2)) == n).all()
    for i, j in np.ndindex(observed.shape):
        assert scipy.stats.ks_2samp(cells[:, i, j], reference[:, i, j]).pvalue > 1e-3
        se = np.sqrt(observed[i, j] * (1 - observed[i, j] / n) / B)
        assert abs(cells[:, i, j].mean() - observed[i, j]) <= 5 * se + 1e-12
    np.testing.assert_allclose(cells.var(axis=0), observed * (1 - observed / n), rtol=0.15, atol=1e-12)
    f1 = REGISTRY.get("macro_f1")
    assert scipy.stats.ks_2samp(f1(cells), f1(reference)).pvalue > 1e-3


def test_sparse_resamples_equal_dense_resamples(monkeypatch):
    """The cell representation (k² > 4N) gives the same metric values as the dense tensors, draw for draw."""
    from auditor.analyses import sampling

    counts = synthetic_counts(n=90, k=4, accuracies=(0.5, 0.7))
    metrics = REGISTRY.scalar()
    dense = bootstrap(counts, metrics, B=30, seed=2, alpha=0.05, threads=1)
    monkeypatch.setattr(sampling, "SPARSE_RATIO", 0)
    resampler = Resampler(counts, B=30, seed=2)
    assert resampler.sparse
    np.testing.assert_array_equal(resampler.stats(0).C, resampler.confusion(0))
    sparse = bootstrap(counts, metrics, B=30, seed=2, alpha=0.05, threads=1)
    for metric in metrics:
        np.testing.assert_allclose(sparse.values[metric.id], dense.values[metric.id], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(sparse.rank_probabilities[metric.id], dense.rank_probabilities[metric.id])


def test_intervals_only_skip_the_paired_resample_and_draw_the_same_intervals():
    counts = synthetic_counts(n=150)
    metrics = [REGISTRY.get("accuracy"), REGISTRY.get("macro_f1")]
    full = bootstrap(counts, metrics, B=80, seed=3, alpha=0.05)
    table = bootstrap(counts, metrics, B=80, seed=3, alpha=0.05, ranks=False)
    assert table.rank_probabilities == {} and table.method == bootstrap_module.INTERVALS_METHOD
    for metric in metrics:
        np.testing.assert_array_equal(table.intervals[metric.id], full.intervals[metric.id])
    # a system's draws do not depend on the other systems
    alone = bootstrap(count(counts.gold, {"s0": counts.predictions[0]}), metrics, B=80, seed=3, alpha=0.05)
    np.testing.assert_array_equal(alone.values["accuracy"][:, 0], full.values["accuracy"][:, 0])


def test_resamples_of_more_than_2_to_the_24_items_stay_exact():
    """From 2^24 items on, float32 cannot hold every count (2^24 + 1 rounds to 2^24), so the pattern counts and
    the cells summed from them are float64: every resample of 2^24 + 3 items (an odd total, not a float32) still
    holds exactly N items in each system's matrix. Below 2^24 the counts stay float32 (exact there)."""
    from auditor.analyses.resample import Resampler
    from auditor.io.counts import Counts

    big = Counts.from_patterns(["a", "b"], ["s"], np.array([[0, 0], [1, 0], [1, 1]]), np.array([2**24, 2, 1]))
    resampler = Resampler(big, 4, seed=3)
    assert resampler.dtype == np.float64 and big.n_items == 2**24 + 3
    for matrices in resampler:
        assert (matrices.sum(axis=(2, 3)) == 2**24 + 3).all()
    small = Counts.from_patterns(["a", "b"], ["s"], np.array([[0, 0], [1, 1]]), np.array([100, 5]))
    assert Resampler(small, 2, seed=3).dtype == np.float32


def _drawn_cells(counts, B, seed, chunk, system=0):
    """System ``system``'s drawn cells (B, k²) from :func:`bootstrap_module._system_draws` in chunks of ``chunk``."""
    k = counts.k
    out = np.zeros((B, k * k), dtype=np.int64)
    start = 0
    for cells, drawn in bootstrap_module._system_draws(counts, system, B, seed, chunk):
        out[start:start + drawn.shape[0], cells] = drawn
        start += drawn.shape[0]
    assert start == B
    return out


def _table_key(tables: np.ndarray) -> np.ndarray:
    """One integer per 2 x 2 table of 12 items (its first three cells in base 13)."""
    return (tables[:, 0] * 13 + tables[:, 1]) * 13 + tables[:, 2]


def test_interval_draws_through_patterns_have_the_exact_multinomial_law(monkeypatch):
    """A 2 x 2 table of 12 items (5, 1, 2, 4) drawn through :class:`PatternDraws` (light and heavy cells both,
    in blocks of 1,000 resamples read in chunks of 777) against ``scipy.stats.multinomial``'s probability of
    every one of the 455 tables of 12 items: a chi-square test over 40,000 draws (the rare tables pooled)."""
    monkeypatch.setattr(bootstrap_module, "PATTERN_ROUTE", 0.0)
    monkeypatch.setattr(bootstrap_module, "BLOCK_CELLS", 4_000)
    from auditor.io.counts import Counts

    table = np.array([5, 1, 2, 4])
    counts = Counts.from_patterns(["a", "b"], ["s"], np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), table)
    draws = resample_module.PatternDraws(table)
    assert 0 < draws.n_light < 4  # both parts drawn
    rows = _drawn_cells(counts, 40_000, 3, 777)
    assert (rows.sum(axis=1) == 12).all()
    outcomes = np.array([(a, b, c, 12 - a - b - c) for a in range(13) for b in range(13 - a)
                         for c in range(13 - a - b)])
    expected = 40_000 * scipy.stats.multinomial.pmf(outcomes, 12, table / 12)
    seen = dict(zip(*np.unique(_table_key(rows), return_counts=True)))
    found = np.array([seen.get(code, 0) for code in _table_key(outcomes)])
    assert found.sum() == 40_000
    frequent = expected >= 5
    observed_cells = np.append(found[frequent], found[~frequent].sum())
    expected_cells = np.append(expected[frequent], expected[~frequent].sum())
    assert scipy.stats.chisquare(observed_cells, expected_cells * 40_000 / expected_cells.sum()).pvalue > 1e-4


def test_interval_draws_of_a_leaderboard_table_have_the_multinomial_moments():
    """A 10-class system on 10,000 items (about 100 non-zero cells: the leaderboard's shape, drawn through
    :class:`PatternDraws` by the default rule), 4,000 draws against the exact moments of Multinomial(N, C / N):
    E[C*_c] = C_c and Cov(C*_c, C*_d) = C_c [c = d] − C_c C_d / N. Each covariance is estimated about the exact
    means, an unbiased estimate of variance (E[d_c² d_d²] − Cov²) / B, allowed 6 of its standard errors (the
    plug-in of that variance); each mean 5 standard errors."""
    counts = synthetic_counts(seed=6, n=10_000, k=10, accuracies=(0.6,))
    table = counts.confusion[0].ravel().astype(float)
    cells = np.flatnonzero(table)
    assert bootstrap_module.pattern_route(cells.size, counts.n_items)
    B, n = 4000, counts.n_items
    drawn = _drawn_cells(counts, B, 11, 300)[:, cells].astype(float)
    expected = table[cells]
    exact = np.diag(expected) - np.outer(expected, expected) / n
    assert (np.abs(drawn.mean(axis=0) - expected) <= 5 * np.sqrt(np.diag(exact) / B)).all()
    deviations = drawn - expected
    covariance = deviations.T @ deviations / B
    fourth = (deviations ** 2).T @ (deviations ** 2) / B
    standard_error = np.sqrt(np.maximum(fourth - covariance ** 2, 0) / B)
    assert (np.abs(covariance - exact) <= 6 * standard_error + 1e-9).all()


@pytest.mark.parametrize("route", [0.0, np.inf])  # every system through PatternDraws; every one by numpy
def test_interval_draws_do_not_depend_on_the_chunks_or_the_other_systems(route, monkeypatch):
    """One system's draws in chunks of 1, 3, 7 and all 50 resamples are the same numbers, blocks of 4 resamples
    (``BLOCK_CELLS`` 40 over 9 cells) cutting across the chunks, and the same audited alone; another system's
    stream differs."""
    monkeypatch.setattr(bootstrap_module, "PATTERN_ROUTE", route)
    monkeypatch.setattr(bootstrap_module, "BLOCK_CELLS", 40)
    counts = synthetic_counts(seed=2, n=200, k=3, accuracies=(0.5, 0.7))
    assert np.count_nonzero(counts.confusion[0]) == 9
    whole = _drawn_cells(counts, 50, 4, 50)
    assert (whole.sum(axis=1) == 200).all()
    for chunk in (1, 3, 7):
        np.testing.assert_array_equal(_drawn_cells(counts, 50, 4, chunk), whole)
    alone = count(counts.gold, {"s0": counts.predictions[0]})
    np.testing.assert_array_equal(_drawn_cells(alone, 50, 4, 7), whole)
    assert not np.array_equal(_drawn_cells(counts, 50, 4, 7, system=1), whole)


def test_pattern_route_rule():
    """:func:`pattern_route`: cells ≥ 0.75 √N (the measured break-even, its docstring)."""
    assert bootstrap_module.pattern_route(94, 10_000)  # a leaderboard system: 94 cells of 10,000 items
    assert not bootstrap_module.pattern_route(4, 10_000)  # 2 classes
    assert not bootstrap_module.pattern_route(400, 1_000_000) and bootstrap_module.pattern_route(750, 1_000_000)
    assert not bootstrap_module.pattern_route(0, 0)
