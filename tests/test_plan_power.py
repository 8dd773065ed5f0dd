"""Mode 1 of ``auditor plan``: exact power of the audit's exact McNemar test (issue 24)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.analyses.power import (
    MAX_ITEMS,
    critical_counts,
    detectable_difference,
    hypothesis,
    items_needed,
    power,
    with_difference,
)
from auditor.analyses.significance import mcnemar_exact
from auditor.errors import UsageError


def simulate(h, draws: int, seed: int) -> tuple[float, float, float]:
    """Monte Carlo of the audit's own test: draw the four cells of the paired 2x2 table per test
    set (multinomial over p11, p10, p01, p00), run ``mcnemar_exact`` (significant when p < alpha,
    as the best sets use it); return power, its standard error and Type S."""
    p10 = (1 - h.agreement + h.difference) / 2
    p01 = (1 - h.agreement - h.difference) / 2
    p11 = h.accuracy - p01
    cells = np.random.default_rng(seed).multinomial(h.items, [p11, p10, p01, max(0.0, 1 - p11 - p10 - p01)], draws)
    n10, n01 = cells[:, 1], cells[:, 2]
    pairs, inverse = np.unique(np.stack([n01, n10], 1), axis=0, return_inverse=True)
    p = np.array([mcnemar_exact(a, b) for a, b in pairs])[inverse.ravel()]
    significant = p < h.alpha
    b_wins = significant & (n10 > n01)
    share = b_wins.mean()
    type_s = (significant & (n01 > n10)).sum() / max(significant.sum(), 1)
    return float(share), float(np.sqrt(share * (1 - share) / draws)), float(type_s)


# Card et al. (2020), the accuracy notebook of their released code
# (notebooks_for_power_calculations/accuracy.ipynb, r = 10,000 simulations of statsmodels' exact McNemar):
# .70 vs .72 at N = 1000 with minimal agreement: power 0.119, Type M 3.004, Type S 0.022;
# .80 vs .82 at N = 500 with agreement .975: power 0.800, Type M 1.118, Type S 0.000.
# Power, Type S and Type M depend on A only through the allowed agreements, so A = .70 there too.
# Tolerances: 4 Monte Carlo standard errors of their r = 10,000 runs (power sd <= 0.005; Type S over
# ~1,200 significant runs: sd 0.004; Type M: sd of the ratio over the significant runs / sqrt(count)).
@pytest.mark.parametrize("items, accuracy, difference, agreement, card", [
    (1000, 0.70, 0.02, None, (0.119, 3.004, 0.022)),
    (500, 0.80, 0.02, 0.975, (0.800, 1.118, 0.000)),
    (500, 0.70, 0.02, 0.975, (0.800, 1.118, 0.000)),
])
def test_card_et_al_cases_and_a_monte_carlo_of_the_audits_own_test(items, accuracy, difference, agreement, card):
    h = hypothesis(items, accuracy, difference, agreement)
    figures = power(h)
    assert figures.power == pytest.approx(card[0], abs=4 * np.sqrt(card[0] * (1 - card[0]) / 10_000))
    assert figures.type_m == pytest.approx(card[1], abs=0.05 if card[1] > 2 else 0.012)
    assert figures.type_s == pytest.approx(card[2], abs=0.016)
    simulated, se, type_s = simulate(h, 40_000, seed=7)
    assert abs(simulated - figures.power) < 4 * se
    assert figures.type_s == pytest.approx(type_s, abs=0.02)


def test_smallest_agreement_is_the_conservative_case_and_said():
    h = hypothesis(1000, 0.70, 0.02)
    assert not h.agreement_given and h.agreement == pytest.approx(0.42)  # |0.70 + 0.72 - 1|
    assert power(h).power < power(hypothesis(1000, 0.70, 0.02, 0.6)).power


def test_critical_counts_match_mcnemar_exact():
    d = np.arange(0, 400)
    for alpha in (0.05, 0.01, 0.2):
        k = critical_counts(d, alpha)
        for n, kk in zip(d, k):
            if kk >= 0:
                assert mcnemar_exact(kk, n - kk) < alpha
            assert kk + 1 > n or mcnemar_exact(kk + 1, n - kk - 1) >= alpha


def test_type_m_by_hand_small_case():
    # N = 12, G = 0 (every item discordant), D = 0.5: W ~ Bin(12, 0.75); k_12 = 2
    # (2 P(Bin(12, .5) <= 2) = 0.0386 < .05, <= 3 gives 0.146). Reject iff W >= 10 or W <= 2.
    from scipy.stats import binom
    h = hypothesis(12, 0.25, 0.5, 0.0)
    assert critical_counts(np.array([12]), 0.05)[0] == 2
    w = np.arange(13)
    pmf = binom.pmf(w, 12, 0.75)
    up, down = w >= 10, w <= 2
    figures = power(h)
    assert figures.power == pytest.approx(pmf[up].sum(), rel=1e-12)
    assert figures.type_s == pytest.approx(pmf[down].sum() / pmf[up | down].sum(), rel=1e-12)
    magnitude = (pmf[up | down] * np.abs(2 * w[up | down] - 12) / 12).sum() / pmf[up | down].sum()
    assert figures.type_m == pytest.approx(magnitude / 0.5, rel=1e-12)


@pytest.mark.parametrize("args", [(1000, 0.70, 0.02, None), (500, 0.70, 0.02, 0.975), (200, 0.6, 0.1, 0.8)])
def test_items_needed_is_the_first_n_from_which_power_stays(args):
    h = hypothesis(*args)
    found = items_needed(h)
    n = found.items
    assert power(h, n - 1).power < h.target_power  # the last failure
    for m in range(max(1, n - 40), found.checked_to + 300):  # checked directly, one N at a time
        assert (power(h, m).power >= h.target_power) == (m >= n), m


def test_items_needed_beyond_the_cap_is_undefined_with_a_reason():
    found = items_needed(hypothesis(1000, 0.70, 0.00001))
    assert found.items is None and str(MAX_ITEMS)[:2] in found.undefined.replace(",", "")


def test_detectable_difference_reaches_the_target_and_nothing_smaller_does():
    h = hypothesis(500, 0.70, 0.02, 0.975)
    found = detectable_difference(h).difference
    assert power(with_difference(h, found)).power >= 0.8
    assert power(with_difference(h, found - 2e-6)).power < 0.8


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3000), st.floats(0.05, 0.9), st.floats(0.005, 0.1), st.floats(0, 1))
def test_power_is_a_probability_and_splits_the_rejections(n, accuracy, difference, where):
    if accuracy + difference > 1:
        return
    low, high = abs(2 * accuracy + difference - 1), 1 - difference
    h = hypothesis(n, accuracy, difference, low + where * (high - low))
    figures = power(h)
    assert 0 <= figures.power <= figures.p_reject <= 1 + 1e-12
    if figures.p_reject > 0:
        assert 0 <= figures.type_s <= 0.5 and figures.type_m >= 0


@pytest.mark.parametrize("args, message", [
    ((0, 0.7, 0.02), "--items"),
    ((100, 1.2, 0.02), "--accuracy"),
    ((100, 0.7, -0.1), "--difference"),
    ((100, 0.7, 0.05, 0.97), "larger than the discordant share"),
    ((100, 0.7, 0.02, 0.1), "allow an agreement"),
    ((100, 0.7, 0.02, 1.5), "--agreement"),
    ((100, 0.9, 0.2), "above 1"),
])
def test_bad_inputs_get_one_clear_error(args, message):
    with pytest.raises(UsageError, match=message):
        hypothesis(*args)


def test_items_needed_when_the_bound_only_covers_the_cap(monkeypatch):
    # With the cap at 15,000 items, the Hoeffding tail cannot reach the target within the d any
    # N <= 15,000 reaches: the bound then proves "stays" up to the cap only, and says so.
    import auditor.analyses.power as module

    monkeypatch.setattr(module, "MAX_ITEMS", 15_000)
    h = hypothesis(1000, 0.70, 0.02)
    found = items_needed(h)
    assert found.proved_to == 15_000
    assert found.items == 11477  # as without the cap (test above)
    for m in range(found.items - 30, 15_001, 7):
        assert (power(h, m).power >= 0.8) == (m >= found.items), m


@settings(max_examples=25, deadline=None)
@given(st.integers(20, 2000), st.floats(0.5, 0.99), st.floats(0.001, 0.2), st.floats(0.001, 0.2))
def test_power_grows_with_the_difference_at_a_fixed_agreement(n, agreement, first, second):
    # pi = 1/2 + D / (2(1 - G)) grows with D and W | d grows stochastically with pi; the critical
    # counts do not depend on D: so the power cannot fall (the basis of detectable_difference's bisection)
    small, large = sorted((first, second))
    if large > 1 - agreement:
        return
    accuracy = (1 - large) / 2 if (1 - large) / 2 + large <= 1 else 0.3
    low = hypothesis(n, accuracy, small, agreement) if abs(2 * accuracy + small - 1) <= agreement else None
    high = hypothesis(n, accuracy, large, agreement) if abs(2 * accuracy + large - 1) <= agreement else None
    if low is None or high is None:
        return
    assert power(low).power <= power(high).power + 1e-12


def test_the_summed_discordant_counts_hold_all_the_mass_even_when_the_mean_is_small():
    from scipy.stats import binom

    from auditor.analyses.power import _window

    for n, q in [(1000, 0.001), (20, 0.5), (10**6, 0.3), (5, 1.0), (10**7, 1e-6)]:
        d = _window(n, q)
        left_out = binom.cdf(d[0] - 1, n, q) + binom.sf(d[-1], n, q)
        assert left_out < 2e-30


def test_binomial_and_normal_tails_are_scipy_stats_bit_for_bit():
    """power's pmf, cdf and sf (``scipy.special``'s Boost routines, without importing ``scipy.stats``) equal
    ``scipy.stats.binom``'s exactly, outside the support 0..n included; its normal isf equals ``norm.isf``."""
    from scipy import stats

    from auditor.analyses.power import binom_cdf, binom_pmf, binom_sf, normal_isf

    rng = np.random.default_rng(5)
    n = np.concatenate([np.arange(0, 12), rng.integers(0, 10**6, 300)])
    for p in (0.0, 1e-9, 0.3, 0.5, 0.73, 1 - 1e-12, 1.0):
        for x in (n - 1, n, n + 1, n // 2, -1 - n, rng.integers(-5, 10**6, n.size), np.zeros_like(n) - 1):
            assert np.array_equal(binom_pmf(x, n, p), stats.binom.pmf(x, n, p))
            assert np.array_equal(binom_cdf(x, n, p), stats.binom.cdf(x, n, p))
            assert np.array_equal(binom_sf(x, n, p), stats.binom.sf(x, n, p))
    assert binom_pmf(np.arange(5), 4, 0.2).tolist() == stats.binom.pmf(np.arange(5), 4, 0.2).tolist()
    for q in (1e-12, 0.0125, 0.025, 0.2, 0.5, 0.9):
        assert normal_isf(q) == stats.norm.isf(q)


def test_the_score_path_does_not_import_scipy_stats(tmp_path):
    """``scipy.stats`` costs about 1 s to import: ``auditor score --json`` (reporting statement included) runs
    without it (where scipy keeps the binomial routines in scipy.special, as recent releases do)."""
    import subprocess
    import sys

    import scipy.special._ufuncs

    if not hasattr(scipy.special._ufuncs, "_binom_pmf"):
        pytest.skip("this scipy keeps its binomial routines in scipy.stats")

    gold, system = tmp_path / "gold.tsv", tmp_path / "a.tsv"
    gold.write_text("id\tlabel\n" + "".join(f"{i}\t{'xy'[i % 2]}\n" for i in range(40)))
    system.write_text("id\tlabel\n" + "".join(f"{i}\t{'xy'[i % 3 % 2]}\n" for i in range(40)))
    other = tmp_path / "b.tsv"
    other.write_text("id\tlabel\n" + "".join(f"{i}\t{'yx'[i % 5 % 2]}\n" for i in range(40)))
    code = ("import sys; from auditor.cli import main\ntry:\n main()\nexcept SystemExit:\n pass\n"
            "assert 'scipy.stats' not in sys.modules, 'scipy.stats imported'\n")
    done = subprocess.run([sys.executable, "-c", code, "score", str(gold), str(system), str(other), "--json",
                           "--bootstrap", "50", "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert '"reporting"' in done.stdout
