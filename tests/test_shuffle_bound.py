"""Shuffle p-values bounded without draws (auditor.analyses.shuffle_bound): the affine form against the
registry's metrics, the permutation mean and variance against every permutation enumerated and against
scipy's hypergeometric, and the bounds never below an exact p (two classes: every table enumerated;
three classes: every permutation) or a long Monte Carlo run."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from auditor.analyses import shuffle_bound, shuffle_test
from auditor.analyses.sampling import fixed_margin_tables
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY

METRICS = [REGISTRY.metrics[m] for m in shuffle_bound.AFFINE_IN_DIAGONAL]
#: Every metric with a bound: the affine ones and those at most an affine one.
BOUNDED = [REGISTRY.metrics[m] for m in shuffle_bound.BOUNDED]


def _form_value(metric_id: str, table: np.ndarray, given: bool) -> float:
    """a + Σ w_i C_ii of ``metric_id``'s form on ``table`` (NaN: no form, the metric undefined on these margins)."""
    form = shuffle_bound.diagonal_form(metric_id, table.sum(axis=1), table.sum(axis=0), given)
    return np.nan if form is None else form[0] + float(form[1] @ np.diag(table))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: st.lists(st.integers(0, 6), min_size=k * k, max_size=k * k)
                                 .map(lambda cells: np.array(cells).reshape(k, k))), st.booleans())
def test_the_affine_form_is_the_registrys_metric(table, given):
    """a + Σ w_i C_ii equals every metric of AFFINE_IN_DIAGONAL as the catalogue computes it (accuracy, kappa,
    MCC, the macro averages, weighted F1, informedness, markedness, calibrated accuracy and macro recall), empty
    classes (recall, precision, FPR or NPV 0/0) and a fixed label set included; no form where the catalogue's
    value is undefined (kappa's 1 − pᵀb or MCC's denominator 0, fixed by the margins)."""
    if table.sum() == 0:
        return
    values = compute(table.astype(float), METRICS, given)
    for metric in METRICS:
        assert _form_value(metric.id, table, given) == pytest.approx(float(values[metric.id]), abs=1e-12,
                                                                     nan_ok=True), metric.id


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: st.lists(st.integers(0, 6), min_size=k * k, max_size=k * k)
                                 .map(lambda cells: np.array(cells).reshape(k, k))), st.booleans())
def test_the_dominating_form_is_never_below_the_metric(table, given):
    """Geometric and harmonic mean recall (and their calibrated variants) never exceed macro recall's form, macro
    F1′ never exceeds the mean of macro precision's and macro recall's (AM ≥ GM ≥ HM; 4PR ≤ (P + R)²), on any table
    with given margins (hypothesis draws the tables, scored by the catalogue)."""
    if table.sum() == 0:
        return
    values = compute(table.astype(float), BOUNDED, given)
    for metric_id in shuffle_bound.BOUNDED_BY_AFFINE:
        offset, weights, defined = shuffle_bound.dominating_form(metric_id, table.sum(axis=1), table.sum(axis=0),
                                                                 given)
        assert 0 <= defined <= 1
        if not np.isnan(values[metric_id]):
            assert offset + float(weights @ np.diag(table)) >= float(values[metric_id]) - 1e-12, metric_id


def test_kappa_and_mcc_shuffle_p_values_are_accuracys():
    """Kappa = (Acc − pᵀb)/(1 − pᵀb) and MCC = (Acc − pᵀb)/√((1 − pᵀp)(1 − bᵀb)) with both margins fixed are
    increasing affine functions of the diagonal sum (Cohen 1960; Gorodkin 2004), so "kappa ≥ observed" is the
    event "accuracy ≥ observed": on 20,000 shuffled tables the counts are equal, and so are the bounds."""
    rng = np.random.default_rng(5)
    gold = rng.choice(5, 300, p=[0.4, 0.25, 0.15, 0.15, 0.05])
    row = np.bincount(gold, minlength=5)
    wanted = [REGISTRY.metrics[m] for m in ("accuracy", "kappa", "mcc")]
    for skill in (0.0, 0.05, 0.1, 0.3):
        pred = np.where(rng.random(300) < skill, gold, rng.choice(5, 300, p=[0.1, 0.2, 0.3, 0.2, 0.2]))
        table = np.zeros((5, 5))
        np.add.at(table, (gold, pred), 1)
        col = table.sum(axis=0).astype(np.int64)
        observed = compute(table, wanted, False)
        null = compute(fixed_margin_tables(rng, row, col, 20_000), wanted, False)
        counts = {m: np.count_nonzero(null[m] >= float(observed[m]) - 1e-12 * max(1.0, abs(float(observed[m]))))
                  for m in observed}
        assert counts["kappa"] == counts["mcc"] == counts["accuracy"], (skill, counts)
        bounds = shuffle_bound.bounds(row, col[None, :], {m: np.array([observed[m]]) for m in observed}, False, 1e-12)
        assert bounds["kappa"][0] == pytest.approx(bounds["accuracy"][0], rel=1e-6)
        assert bounds["mcc"][0] == pytest.approx(bounds["accuracy"][0], rel=1e-6)


def _all_tables(gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """The diagonal of the table of every permutation of ``pred`` against ``gold`` (k ≤ 3, N ≤ 8)."""
    k = int(max(gold.max(), pred.max())) + 1
    out = []
    for order in itertools.permutations(pred):
        out.append(np.bincount(gold[np.array(order) == gold], minlength=k))
    return np.array(out, dtype=float)


@pytest.mark.parametrize("gold, pred", [
    ([0, 0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0, 0]),
    ([0, 1, 1, 1, 2, 2, 2, 2], [2, 2, 2, 1, 1, 0, 2, 1]),
    ([0, 0, 1, 1, 2, 2, 2], [0, 0, 0, 0, 1, 2, 2]),
])
def test_moments_and_bounds_against_every_permutation(gold, pred):
    """Three classes, every one of the N! orderings of the predictions: the mean and variance of
    Σ w_i C_ii are the enumeration's, and each bound is at least the exact p of the observed table."""
    gold, pred = np.array(gold), np.array(pred)
    diagonals = _all_tables(gold, pred)
    row, col = np.bincount(gold, minlength=3), np.bincount(pred, minlength=3)
    observed_diagonal = np.bincount(gold[gold == pred], minlength=3).astype(float)
    for metric_id in shuffle_bound.AFFINE_IN_DIAGONAL:
        form = shuffle_bound.diagonal_form(metric_id, row, col, False)
        if form is None:
            continue
        weights = form[1]
        values = diagonals @ weights
        mean, variance = shuffle_bound.moments(row, col, weights)
        assert mean == pytest.approx(values.mean(), abs=1e-12)
        assert variance == pytest.approx(values.var(), abs=1e-12)
        threshold = float(observed_diagonal @ weights)
        exact = np.mean(values >= threshold - 1e-12)
        assert shuffle_bound.cantelli(mean, variance, threshold) >= exact or threshold <= mean
        tails = shuffle_bound.log_tails(int(row.sum()), row, col)
        assert shuffle_bound.union_bound(tails, weights, threshold - 1e-12) >= exact - 1e-12


def test_one_diagonal_cell_is_scipys_hypergeometric():
    """Accuracy's T = Σ C_ii with two classes is C_00 + C_11 = 2 C_00 + (r_1 − c_0): its variance is 4 Var C_00,
    C_00 ~ Hypergeom(N, c_0, r_0) (scipy.stats.hypergeom); each log tail is scipy's survival function."""
    row, col = np.array([30, 50]), np.array([45, 35])
    _, variance = shuffle_bound.moments(row, col, np.ones(2))
    assert variance == pytest.approx(4 * stats.hypergeom.var(80, 45, 30), rel=1e-12)
    (low, ones, tail), _ = shuffle_bound.log_tails(80, row, col)
    x = np.arange(low, low + ones + tail.size)
    np.testing.assert_allclose(np.exp(np.concatenate([np.zeros(ones), tail])), stats.hypergeom.sf(x - 1, 80, 45, 30),
                               rtol=1e-9, atol=1e-300)


def test_the_window_keeps_every_tail_above_the_floor():
    """A large N: the window around the mode (:func:`shuffle_bound._window`) gives scipy's survival function for
    every x whose tail is above e^LOWEST, and a tail of 1 before it. scipy's ``logsf`` costs ~5 ms a value at this
    N (4,040 values: 16 s of CPU), so it is taken at every 50th x and the values between follow from scipy's own
    pmf, log P(X >= x) = log(P(X >= x + 1) + P(X = x)), summed from the right (no cancellation)."""
    n, good, sample = 1_000_000, 60_000, 90_000
    (low, ones, tail), = shuffle_bound.log_tails(n, np.array([sample]), np.array([good]))[:1]
    kept = tail[tail > shuffle_bound.LOWEST]
    x = np.arange(low + ones, low + ones + kept.size)
    ends = np.arange(x.size - 1, -1, -50)
    anchored = dict(zip(ends.tolist(), stats.hypergeom.logsf(x[ends] - 1, n, good, sample)))
    logpmf = stats.hypergeom.logpmf(x, n, good, sample)
    expected = np.empty(x.size)
    for j in range(x.size - 1, -1, -1):
        expected[j] = anchored[j] if j in anchored else np.logaddexp(expected[j + 1], logpmf[j])
    np.testing.assert_allclose(kept, expected, rtol=1e-9, atol=1e-9)
    assert stats.hypergeom.logsf(low + ones - 1, n, good, sample) > -1e-15
    assert stats.hypergeom.logsf(x[-1] + 1, n, good, sample) < shuffle_bound.LOWEST


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 25), min_size=4, max_size=4).filter(lambda c: c[0] + c[1] > 0 and c[2] + c[3] > 0))
def test_the_bound_never_undercuts_the_exact_two_class_p(cells):
    """Two classes: every possible table enumerated (:func:`shuffle_test.binary_null`), the exact p of
    each metric is at most its bound."""
    table = np.array(cells, dtype=float).reshape(2, 2)
    row, col = table.sum(axis=1), table.sum(axis=0)
    null = shuffle_test.binary_null(row, col)
    observed = compute(table, BOUNDED, False)
    bounds = shuffle_bound.bounds(row, col[None, :], {m: np.array([observed[m]]) for m in observed}, False, 1e-12)
    scored = compute(null[0].astype(float), BOUNDED, False)
    for metric_id, bound in bounds.items():
        exact = shuffle_test.exact_p(float(observed[metric_id]), scored[metric_id], null[1])
        assert np.isnan(bound[0]) if exact is None else bound[0] >= exact * (1 - 1e-9), metric_id


def test_the_bound_never_undercuts_a_long_monte_carlo_run():
    """Four classes, 200,000 shuffled tables: for each metric and system the bound is at least the lower end of
    the Monte Carlo p's 99.9% Clopper–Pearson interval (systems from near chance to far above it)."""
    rng = np.random.default_rng(11)
    gold = rng.choice(4, 60, p=[0.4, 0.3, 0.2, 0.1])
    row = np.bincount(gold, minlength=4)
    for skill in (0.0, 0.15, 0.3, 0.45):
        pred = np.where(rng.random(60) < skill, gold, rng.choice(4, 60))
        table = np.zeros((4, 4))
        np.add.at(table, (gold, pred), 1)
        observed = compute(table, BOUNDED, False)
        bounds = shuffle_bound.bounds(row, table.sum(axis=0)[None, :], {m: np.array([observed[m]]) for m in observed},
                                      False, 1e-12)
        null = compute(fixed_margin_tables(rng, row, table.sum(axis=0).astype(np.int64), 200_000), BOUNDED, False)
        for metric_id, bound in bounds.items():
            defined = null[metric_id][~np.isnan(null[metric_id])]
            exceed = np.count_nonzero(defined >= float(observed[metric_id]) - 1e-12)
            low, _ = shuffle_test.p_interval(np.array([exceed]), np.array([defined.size]))
            assert bound[0] >= low[0], (skill, metric_id, bound[0], exceed)


def test_each_systems_bounds_alone_equal_every_systems_at_once():
    """The chance baselines find each system's bounds beside its own draws: the same floats as all systems'
    bounds found together."""
    rng = np.random.default_rng(11)
    row = np.array([40, 25, 20, 15])
    columns = np.array([rng.multinomial(100, [0.3, 0.3, 0.2, 0.2]) for _ in range(4)])
    observed = {m: rng.uniform(0.2, 0.9, 4) for m in shuffle_bound.BOUNDED}
    together = shuffle_bound.bounds(row, columns, observed, False, 1e-9)
    alone = [shuffle_bound.bounds(row, columns[s:s + 1], {m: v[s:s + 1] for m, v in observed.items()}, False, 1e-9)
             for s in range(4)]
    for metric, values in together.items():
        np.testing.assert_array_equal(values, np.concatenate([found[metric] for found in alone]))
