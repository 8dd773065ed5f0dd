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


def _form_value(metric_id: str, table: np.ndarray, given: bool) -> float:
    offset, weights = shuffle_bound.diagonal_form(metric_id, table.sum(axis=1), table.sum(axis=0), given)
    return offset + float(weights @ np.diag(table))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: st.lists(st.integers(0, 6), min_size=k * k, max_size=k * k)
                                 .map(lambda cells: np.array(cells).reshape(k, k))), st.booleans())
def test_the_affine_form_is_the_registrys_metric(table, given):
    """a + Σ w_i C_ii equals accuracy, macro recall and informedness as the catalogue computes them, empty
    classes (recall or FPR 0/0) and a fixed label set included."""
    if table.sum() == 0:
        return
    values = compute(table.astype(float), METRICS, given)
    for metric in METRICS:
        assert _form_value(metric.id, table, given) == pytest.approx(float(values[metric.id]), abs=1e-12)


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
        _, weights = shuffle_bound.diagonal_form(metric_id, row, col, False)
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
    observed = compute(table, METRICS, False)
    bounds = shuffle_bound.bounds(row, col[None, :], {m: np.array([observed[m]]) for m in observed}, False, 1e-12)
    scored = compute(null[0].astype(float), METRICS, False)
    for metric_id, bound in bounds.items():
        exact = shuffle_test.exact_p(float(observed[metric_id]), scored[metric_id], null[1])
        assert bound[0] >= exact * (1 - 1e-9), metric_id


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
        observed = compute(table, METRICS, False)
        bounds = shuffle_bound.bounds(row, table.sum(axis=0)[None, :], {m: np.array([observed[m]]) for m in observed},
                                      False, 1e-12)
        null = compute(fixed_margin_tables(rng, row, table.sum(axis=0).astype(np.int64), 200_000), METRICS, False)
        for metric_id, bound in bounds.items():
            exceed = np.count_nonzero(null[metric_id] >= float(observed[metric_id]) - 1e-12)
            low, _ = shuffle_test.p_interval(np.array([exceed]), np.array([200_000]))
            assert bound[0] >= low[0], (skill, metric_id, bound[0], exceed)
