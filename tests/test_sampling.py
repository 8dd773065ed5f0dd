"""Samplers of random confusion tables: equal in distribution to what they replace, exact moments.

Each sampler is checked against an independent reference at fixed seeds: scipy's exact
hypergeometric pmf (chi-square goodness of fit), numpy's own hypergeometric sampler and the
item-level shuffle (two-sample tests), and the known moments: for Hypergeom(K, N − K, n),
mean nK/N and variance n (K/N)(1 − K/N)(N − n)/(N − 1) (e.g. Johnson, Kemp & Kotz 2005,
*Univariate Discrete Distributions*, §6.3).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from auditor.analyses import sampling


def _moments(good, bad, sample):
    n_pop = good + bad
    mean = sample * good / n_pop
    var = sample * (good / n_pop) * (bad / n_pop) * (n_pop - sample) / (n_pop - 1)
    return mean, var


def _chi_square_p(draws, good, bad, sample):
    support = np.arange(max(0, sample - bad), min(sample, good) + 1)
    pmf = stats.hypergeom.pmf(support, good + bad, good, sample)
    observed = np.array([(draws == x).sum() for x in support])
    keep = pmf * draws.size >= 5  # pool the thin tails into one bin
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(pmf[keep], pmf[~keep].sum()) * draws.size
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


@pytest.mark.parametrize("good, bad, sample", [(30, 50, 40), (7, 200, 60), (500, 20, 300), (40, 40, 12)])
def test_hrua_matches_the_exact_pmf(good, bad, sample):
    rng = np.random.default_rng(11)
    size = 40_000
    drawn = sampling._hypergeometric_float(rng, np.full(size, good), np.full(size, bad), np.full(size, sample))
    assert _chi_square_p(drawn, good, bad, sample) > 1e-3
    mean, var = _moments(good, bad, sample)
    assert abs(drawn.mean() - mean) < 5 * np.sqrt(var / size)


@pytest.mark.parametrize("good, bad, sample", [(30, 50, 4), (30, 50, 77), (3, 10, 6)])
def test_one_at_a_time_matches_the_exact_pmf(good, bad, sample):
    rng = np.random.default_rng(5)
    size = 40_000
    drawn = sampling._hypergeometric_float(rng, np.full(size, good), np.full(size, bad), np.full(size, sample))
    assert _chi_square_p(drawn, good, bad, sample) > 1e-3


def test_hrua_two_sample_against_numpy():
    rng = np.random.default_rng(3)
    size = 20_000
    ours = sampling._hypergeometric_float(rng, np.full(size, 400), np.full(size, 900), np.full(size, 650))
    numpy_draws = np.random.default_rng(4).hypergeometric(400, 900, 650, size=size)
    assert stats.ks_2samp(ours, numpy_draws).pvalue > 1e-3


@pytest.mark.parametrize("good, bad, sample", [
    (3 * 10**9, 5 * 10**9, 4 * 10**9), (10**12, 10**15, 10**13), (2 * 10**9, 5, 20), (10**10, 10**10, 7),
])
def test_beyond_numpys_limit_mean_and_variance(good, bad, sample):
    rng = np.random.default_rng(8)
    size = 20_000
    drawn = sampling.hypergeometric(rng, np.full(size, good), np.full(size, bad), np.full(size, sample))
    assert drawn.min() >= max(0, sample - bad) and drawn.max() <= min(sample, good)
    mean, var = _moments(good, bad, sample)
    assert abs(drawn.mean() - mean) < 5 * np.sqrt(var / size) + 1e-9
    if var >= 1:  # the sample variance's standard error is about var·sqrt(2/size)
        assert abs(drawn.var(ddof=1) / var - 1) < 5 * np.sqrt(2 / size)


def test_numpy_path_and_refusals():
    rng = np.random.default_rng(0)
    assert sampling.hypergeometric(rng, 5, 0, 3) == 3
    with pytest.raises(ValueError, match="2\\^53"):
        sampling.hypergeometric(rng, 2**53, 1, 3)
    with pytest.raises(ValueError, match="population"):
        sampling.hypergeometric(rng, 2, 1, 5)


def test_log_factorial_difference_against_exact_sums():
    # ln(x!/y!) = Σ_{t=y+1}^{x} ln t, summed exactly for a short range at a huge y
    y = 10**12
    exact = sum(np.log(float(t)) for t in range(y + 1, y + 6))
    assert sampling.log_factorial_difference(np.array([y + 5.0]),
                                             np.array([float(y)]))[0] == pytest.approx(exact, rel=1e-13)
    from scipy.special import gammaln
    assert sampling.log_factorial_difference(np.array([30.0]), np.array([12.0]))[0] == pytest.approx(
        gammaln(31) - gammaln(13), rel=1e-14)


def _table_counts(tables):
    return {tuple(t.ravel()): c for t, c in zip(*np.unique(tables.reshape(len(tables), -1), axis=0,
                                                           return_counts=True))}


def test_fixed_margin_tables_equal_item_shuffles_in_distribution():
    # rows (3, 2, 1), columns (2, 2, 2): few enough tables to compare the whole distribution
    row, col, draws = np.array([3, 2, 1]), np.array([2, 2, 2]), 30_000
    chain = sampling.fixed_margin_tables(np.random.default_rng(1), row, col, draws)
    flat = sampling.shuffled_cells(np.random.default_rng(2), row, col, draws)
    items = np.bincount(flat.ravel(), minlength=draws * 9).reshape(draws, 3, 3)
    assert (chain.sum(axis=2) == row).all() and (chain.sum(axis=1) == col).all()
    a, b = _table_counts(chain), _table_counts(items)
    keys = sorted(set(a) | set(b))
    table = np.array([[a.get(key, 0) for key in keys], [b.get(key, 0) for key in keys]])
    assert stats.chi2_contingency(table)[1] > 1e-3
    # exact cell means: E[C_ij] = row_i col_j / N
    expected = np.outer(row, col) / 6
    assert np.abs(chain.mean(axis=0) - expected).max() < 0.03


def test_fixed_margin_tables_with_counts_beyond_numpys_limit():
    row = np.array([4 * 10**9, 10**9, 3])
    col = np.array([2 * 10**9, 3 * 10**9 + 2, 1])
    tables = sampling.fixed_margin_tables(np.random.default_rng(0), row, col, 2000)
    assert (tables.sum(axis=2) == row).all() and (tables.sum(axis=1) == col).all()
    n = row.sum()
    # C_00 ~ Hypergeom(col_0, n − col_0, row_0)
    mean, var = _moments(col[0], n - col[0], row[0])
    assert abs(tables[:, 0, 0].mean() - mean) < 5 * np.sqrt(var / 2000)


def test_random_row_cells_equal_multinomial_rows_in_distribution():
    row, q, draws = np.array([4, 3]), np.array([0.5, 0.3, 0.2]), 20_000
    dense = sampling.random_row_tables(np.random.default_rng(1), np.append(row, 0), q, draws)
    flat = sampling.random_row_cells(np.random.default_rng(2), np.append(row, 0), q, draws)
    items = np.bincount(flat.ravel(), minlength=draws * 9).reshape(draws, 3, 3)
    for i in range(2):
        for j in range(3):
            assert stats.ks_2samp(dense[:, i, j], items[:, i, j]).pvalue > 1e-3
            mean, var = row[i] * q[j], row[i] * q[j] * (1 - q[j])  # binomial cell
            assert abs(items[:, i, j].mean() - mean) < 5 * np.sqrt(var / draws)
    assert (items[:, 2].sum() == 0) and (items.sum(axis=2)[:, :2] == row).all()
