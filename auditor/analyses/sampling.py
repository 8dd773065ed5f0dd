"""Random confusion tables on counts: fixed-margin (shuffle) and fixed-row (random predictor) draws.

Part of the *analyse* stage; written once and used by the chance baselines
(:mod:`auditor.analyses.baselines`). Every sampler draws exactly from the distribution it
names; none is limited by the size of the counts.

``hypergeometric``
    X ~ Hypergeom(good, bad, sample), vectorised, for any counts up to 2^53. numpy's sampler
    refuses ``good`` or ``bad`` of 10^9 or more; those entries use Stadlober's ratio-of-uniforms
    rejection sampler HRUA (the algorithm numpy itself runs for samples of 10 or more; Stadlober
    1989) with every log-factorial difference computed from a Stirling expansion of
    ln Γ(z + d) − ln Γ(z) (so no precision is lost to the 10^10-sized ln Γ values), and samples
    below 10 by drawing the items one at a time.
``fixed_margin_tables``
    Tables with row sums ``row`` and column sums ``col`` as a uniform random matching of the
    items' gold and predicted labels makes them (a permutation test's null): row i takes row_i
    labels without replacement from the predicted labels left by rows < i, a multivariate
    hypergeometric drawn colour by colour, X_ij | X_i,<j ~ Hypergeom(R_j, Σ_{l>j} R_l, row_i − Σ_{l<j} X_il)
    with R the remaining pool, all draws advancing together: k² vectorised calls whatever N is.
``shuffled_cells``
    The same distribution from the items: each draw permutes the N predicted labels over the
    gold labels. O(N) per draw and returned as non-zero cells, so with many classes and few items
    (k² > N) memory and work grow with N per draw, never with k².
``random_row_tables`` / ``random_row_cells``
    A predictor that ignores its input and answers with distribution q: gold row i ~
    Multinomial(row_i, q), densely, or one categorical draw per item, as cells.

References
----------
Stadlober (1989) "Sampling from Poisson, binomial and hypergeometric distributions: ratio of
uniforms as a simple and fast alternative", Bericht 303, Math. Stat. Sektion, Forschungsgesellschaft
Joanneum, Graz. Stadlober (1990) "The ratio of uniforms approach for generating discrete random
variates", J. Comput. Appl. Math. 31(1).
"""
from __future__ import annotations

from functools import partial

import numpy as np

#: The samplers in the audit's signature (``samplers:`` part): intervals from each system's cells
#: (Multinomial(N, C_s/N)), ranks from the paired resample with its patterns split into light ones
#: drawn as items and heavy ones drawn by multinomial (``paired-split``; ``paired`` drew every
#: pattern one way), chance tables drawn row by row (multinomial rows; multivariate
#: hypergeometric rows for shuffles), and the settled shuffle p-values' extra draws first up to the
#: fewest that settle a p no draw reached (``fewest``: :func:`auditor.analyses.shuffle_test.settling_draws`;
#: before, doubling only), after a tail bound that settles without draws where it can (``bound``:
#: :mod:`auditor.analyses.shuffle_bound`; ``settle=bound+fewest``), the bound for every metric affine in the
#: diagonal or below such a metric, and R = 1,000 shuffles per system whatever the number of systems (``shuffles=
#: 1000``; before, ⌈2S/α⌉ above 25 systems), drawn only for the systems whose answer needs them once no Monte Carlo
#: p can pass the correction (``+needed``: :data:`auditor.analyses.baselines.UNDRAWN`; before, every system's). The
#: cells of a table with at least 0.75 √N of them are drawn by the paired resample's pattern sampler (``cells+
#: patterns``: :func:`auditor.analyses.bootstrap.pattern_route`; before, numpy's multinomial for every table).
#: Change it with the draws.
RANKS = "paired-split"


def signature(ranks: str = RANKS) -> str:
    """The ``samplers:`` part with ``ranks`` naming how the ranks were drawn (``pairs`` when each pair
    was resampled on its own: :mod:`auditor.analyses.pairwise_resample`)."""
    return f"ci=cells+patterns,ranks={ranks},chance=rows,shuffles=1000+needed,settle=affine-bound+fewest"


SIGNATURE = signature()
#: numpy's ``Generator.hypergeometric`` refuses ``good`` or ``bad`` at or above this.
NUMPY_LIMIT = 10**9
#: Largest population drawn exactly (integers stay exact in float64 below 2^53).
MAX_POPULATION = 2**53
#: HRUA's hat constants (Stadlober 1989; numpy's ``D1``, ``D2``).
_D1, _D2 = 1.7155277699214135, 0.8989161620588988
#: Below this sample size the items are drawn one at a time (as numpy does).
_SMALL_SAMPLE = 10
#: Stirling's series is used for ln Γ differences once both arguments exceed this.
_STIRLING_FROM = 1e5
#: Tables are drawn as non-zero cells (O(N) per draw) instead of dense k × k arrays (O(k²)
#: per draw) when k² exceeds this many times N: many classes, few items.
SPARSE_RATIO = 4


def sparse_draws(k: int, n: int) -> bool:
    """Whether random tables are made as cells (k² > SPARSE_RATIO · N) rather than dense arrays."""
    return k * k > SPARSE_RATIO * max(n, 1)


def log_factorial_difference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ln x! − ln y! for non-negative integers (as floats), accurate when x, y are huge and close.

    With z = y + 1 and d = x − y, ln Γ(z + d) − ln Γ(z) = (z − ½) ln(1 + d/z) + d ln(z + d) − d
    + 1/(12(z + d)) − 1/(12z) − 1/(360(z + d)³) + 1/(360z³) (Stirling's series, error below
    10⁻²⁰ for z ≥ 10⁵); smaller arguments use ``gammaln`` directly.
    """
    from scipy.special import gammaln  # here, not at import: only draws above numpy's limit need it

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    z, d = y + 1.0, x - y
    large = np.minimum(x, y) >= _STIRLING_FROM
    with np.errstate(all="ignore"):
        w = z + d
        stirling = ((z - 0.5) * np.log1p(d / z) + d * np.log(w) - d
                    + (1 / (12 * w) - 1 / (12 * z)) - (1 / (360 * w**3) - 1 / (360 * z**3)))
    direct = gammaln(np.where(large, 1.0, x + 1)) - gammaln(np.where(large, 1.0, y + 1))
    return np.where(large, stirling, direct)


def _hrua(rng: np.random.Generator, good: np.ndarray, bad: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """HRUA rejection sampler (Stadlober 1989, as numpy's ``hypergeometric_hrua``), vectorised.

    Needs min(sample, good + bad − sample) ≥ 10. Returns float64 integer values.
    """
    population = good + bad
    m_sample = np.minimum(sample, population - sample)
    small, large = np.minimum(good, bad), np.maximum(good, bad)
    p, q = small / population, large / population
    a = m_sample * p + 0.5
    c = np.sqrt((population - m_sample) * m_sample * p * q / (population - 1) + 0.5)
    h = _D1 * c + _D2
    mode = np.floor((m_sample + 1) * (small + 1) / (population + 2))
    bound = np.minimum(np.minimum(m_sample, small) + 1, np.floor(a + 16 * c))
    out = np.empty(good.shape)
    pending = np.arange(good.size)
    while pending.size:
        u, v = rng.random(pending.size), rng.random(pending.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = a[pending] + h[pending] * (v - 0.5) / u
        inside = (x >= 0) & (x < bound[pending])
        value = np.floor(np.where(inside, x, mode[pending]))
        s, m, n, big = small[pending], mode[pending], m_sample[pending], large[pending]
        log_ratio = (log_factorial_difference(m, value) + log_factorial_difference(s - m, s - value)
                     + log_factorial_difference(n - m, n - value)
                     + log_factorial_difference(big - n + m, big - n + value))
        with np.errstate(divide="ignore"):
            accept = inside & (2.0 * np.log(u) <= log_ratio)
        out[pending[accept]] = value[accept]
        pending = pending[~accept]
    out = np.where(good > bad, m_sample - out, out)
    return np.where(m_sample < sample, good - out, out)


def _one_at_a_time(rng: np.random.Generator, good: np.ndarray, bad: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """Draw min(sample, population − sample) < 10 items one by one; count the good ones."""
    population = good + bad
    m_sample = np.minimum(sample, population - sample)
    drawn = np.zeros(good.shape)
    for step in range(int(m_sample.max(initial=0))):
        active = step < m_sample
        left_good, left = good - drawn, population - step
        with np.errstate(invalid="ignore", divide="ignore"):
            hit = rng.random(good.shape) * left < left_good
        drawn += active & hit
    return np.where(m_sample < sample, good - drawn, drawn)


def hypergeometric(rng: np.random.Generator, good, bad, sample) -> np.ndarray:
    """Hypergeom(good, bad, sample) draws (arrays broadcast together), int64, without numpy's 10^9 limit.

    Entries with good and bad below 10^9 use ``rng.hypergeometric``; the others HRUA with
    accurate log-factorial differences (module docstring). Raises ValueError for a population
    of 2^53 or more, or a sample larger than the population.
    """
    good, bad, sample = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (good, bad, sample)))
    if np.any(good + bad >= MAX_POPULATION) or np.any(good + bad < 0):
        raise ValueError(f"hypergeometric draws are exact up to a population of 2^53 items; found "
                         f"{int((good + bad).max())}")
    if np.any(sample > good + bad) or np.any(np.minimum(np.minimum(good, bad), sample) < 0):
        raise ValueError("hypergeometric: counts must be >= 0 and the sample at most the population")
    out = np.empty(good.shape, dtype=np.int64)
    huge = (good >= NUMPY_LIMIT) | (bad >= NUMPY_LIMIT)
    if not huge.any():
        return rng.hypergeometric(good, bad, sample) if good.ndim else np.int64(rng.hypergeometric(good, bad, sample))
    out[~huge] = rng.hypergeometric(good[~huge], bad[~huge], sample[~huge])
    out[huge] = _hypergeometric_float(rng, good[huge], bad[huge], sample[huge])
    return out


def _hypergeometric_float(rng: np.random.Generator, good: np.ndarray, bad: np.ndarray,
                          sample: np.ndarray) -> np.ndarray:
    """HRUA or one-at-a-time draws for any population below 2^53 (used above numpy's limit)."""
    good, bad, sample = (np.asarray(x, dtype=float) for x in (good, bad, sample))
    m_sample = np.minimum(sample, good + bad - sample)
    out = np.empty(good.shape)
    few = m_sample < _SMALL_SAMPLE
    out[few] = _one_at_a_time(rng, good[few], bad[few], sample[few])
    out[~few] = _hrua(rng, good[~few], bad[~few], sample[~few])
    return out.astype(np.int64)


def fixed_margin_tables(rng: np.random.Generator, row: np.ndarray, col: np.ndarray, draws: int) -> np.ndarray:
    """``draws`` tables (int64, (draws, k, k)) with row sums ``row`` and column sums ``col``, uniform over
    the matchings of items to predicted labels (a shuffle of the predictions)."""
    row = np.asarray(row, dtype=np.int64)
    col = np.asarray(col, dtype=np.int64)
    if row.sum() != col.sum():
        raise ValueError(f"row sums ({row.sum()}) and column sums ({col.sum()}) differ")
    if (row < 0).any() or (col < 0).any() or row.sum() >= MAX_POPULATION:
        raise ValueError("fixed_margin_tables: margins must be >= 0 and total below 2^53")
    # every argument below is a valid count by construction: below numpy's limit, call it directly
    draw = rng.hypergeometric if row.sum() < NUMPY_LIMIT else partial(hypergeometric, rng)
    k = row.shape[0]
    out = np.zeros((draws, k, k), dtype=np.int64)
    remaining = np.repeat(col[None, :], draws, axis=0)
    gold_rows = np.flatnonzero(row)
    colours = np.flatnonzero(col)
    for position, i in enumerate(gold_rows):
        if position == len(gold_rows) - 1:
            out[:, i, :] = remaining  # the last row takes what is left
            break
        need = np.full(draws, row[i], dtype=np.int64)
        left = remaining.sum(axis=1)
        for j in colours[:-1]:
            left = left - remaining[:, j]  # colours after j
            taken = draw(remaining[:, j], left, need)
            out[:, i, j] = taken
            need = need - taken
        out[:, i, colours[-1]] = need
        remaining = remaining - out[:, i, :]
    return out


def shuffled_cells(rng: np.random.Generator, row: np.ndarray, col: np.ndarray, draws: int) -> np.ndarray:
    """Flat cell indices ``(b·k + i)·k + j`` of ``draws`` shuffles, one entry per item (N per draw).

    Draw b pairs the gold labels (row_i copies of i) with a uniform random permutation of the
    predicted labels (col_j copies of j): the distribution of :func:`fixed_margin_tables`.
    """
    row = np.asarray(row, dtype=np.int64)
    col = np.asarray(col, dtype=np.int64)
    if row.sum() != col.sum():
        raise ValueError(f"row sums ({row.sum()}) and column sums ({col.sum()}) differ")
    k = row.shape[0]
    gold = np.repeat(np.arange(k, dtype=np.int64), row)
    predicted = rng.permuted(np.broadcast_to(np.repeat(np.arange(k, dtype=np.int64), col), (draws, gold.size)), axis=1)
    return (np.arange(draws, dtype=np.int64)[:, None] * k + gold[None, :]) * k + predicted


def random_row_tables(rng: np.random.Generator, row: np.ndarray, q: np.ndarray, draws: int) -> np.ndarray:
    """``draws`` tables (int64, (draws, k, k)) of a random predictor: gold row i ~ Multinomial(row_i, q)."""
    row = np.asarray(row, dtype=np.int64)
    k = row.shape[0]
    out = np.zeros((draws, k, k), dtype=np.int64)
    for i in np.flatnonzero(row):
        out[:, i, :] = rng.multinomial(int(row[i]), q, size=draws)
    return out


def random_row_cells(rng: np.random.Generator, row: np.ndarray, q: np.ndarray, draws: int) -> np.ndarray:
    """Flat cell indices of ``draws`` random-predictor tables, one entry per item: each of the row_i
    items of gold class i gets a label drawn from q (so row i ~ Multinomial(row_i, q))."""
    row = np.asarray(row, dtype=np.int64)
    k = row.shape[0]
    gold = np.repeat(np.arange(k, dtype=np.int64), row)
    cumulative = np.cumsum(np.asarray(q, dtype=float))
    cumulative /= cumulative[-1]
    predicted = np.searchsorted(cumulative, rng.random((draws, gold.size)), side="right")
    predicted = np.minimum(predicted, k - 1)
    return (np.arange(draws, dtype=np.int64)[:, None] * k + gold[None, :]) * k + predicted
