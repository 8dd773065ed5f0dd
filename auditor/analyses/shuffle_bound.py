"""Shuffle p-values bounded without draws, for metrics affine in the diagonal once the margins are fixed.

Part of the *analyse* stage, used by :mod:`auditor.analyses.baselines` with :mod:`auditor.analyses.shuffle_test`.
Shuffling a system's predictions over the items keeps the gold counts r (rows) and the predicted counts c (columns);
every shuffled table is then a uniform random matching of the N gold labels with the N predicted labels.
For accuracy, macro recall and informedness the metric is then f(C) = a + Σ_i w_i C_ii with a and
w_i ≥ 0 fixed by the margins (:func:`diagonal_form`), so the shuffle p-value p = P(f(C) ≥ f(observed))
is a tail of T = Σ_i w_i C_ii, and two upper bounds need no draw:

Cantelli (one-sided Chebyshev).
    Each C_ii is a sum of r_i indicators "gold-i item t got a predicted i", each with probability
    c_i/N, two of them jointly c_i(c_i − 1)/(N(N − 1)) in one row and c_i c_j/(N(N − 1)) across rows,
    so E C_ii = r_i c_i / N, Var C_ii = r_i c_i (N − r_i)(N − c_i) / (N²(N − 1)) and
    Cov(C_ii, C_jj) = r_i r_j c_i c_j / (N²(N − 1)) (i ≠ j). With a_i = r_i c_i,
    Var T = [N Σ_i w_i² a_i (N − r_i − c_i) + (Σ_i w_i a_i)²] / (N²(N − 1)),
    and P(T − E T ≥ d) ≤ Var T / (Var T + d²) for d > 0 (:func:`moments`, :func:`cantelli`).
A union of hypergeometric tails.
    Each C_ii alone is hypergeometric: the r_i gold-i items take r_i of the N predicted labels without
    replacement, c_i of which are i, so P(C_ii = x) = C(c_i, x) C(N − c_i, r_i − x) / C(N, r_i), whose tail
    is summed exactly. If every C_ii ≤ x_i − 1 then T ≤ Σ_i w_i (x_i − 1); so for integers x_i with
    Σ_i w_i (x_i − 1) < d', the event T ≥ d' needs some C_ii ≥ x_i, and p ≤ Σ_i P(C_ii ≥ x_i). The x_i
    are chosen with (nearly) equal log tails, the lowest level that keeps the sum below d' (bisection).
    Far above chance this bound is astronomically small where Cantelli's decays only as 1/d².

The p-value of a system is bounded by the smaller of the two (:func:`bounds`); ties count as ≥ as in
the Monte Carlo and exact routes (the threshold is lowered by :data:`~auditor.analyses.shuffle_test.TIE_TOLERANCE`).

References
----------
Cantelli (1928) "Sui confini della probabilità", Atti del Congresso Internazionale dei Matematici,
Bologna, 6, 47–59 (the one-sided Chebyshev inequality). Boole's inequality for the union.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from auditor.analyses.shuffle_test import hypergeometric_log_pmf

#: Metrics whose value on a table with fixed margins is a + Σ w_i C_ii with w_i ≥ 0 (:func:`diagonal_form`).
AFFINE_IN_DIAGONAL = ("accuracy", "macro_recall", "informedness")
#: Relative widening of every bound (rounding in the summed logarithms, far below any threshold).
ROUNDING = 1e-9
#: Smallest bound reported (the smallest positive normal double: a bound that underflows is still > 0).
FLOOR = float(np.finfo(float).tiny)
#: Bisection steps on the common log tail level of the union bound.
STEPS = 48
#: Lowest log tail level searched (e^-800 underflows to 0: the bound is then :data:`FLOOR`).
LOWEST = -800.0


def diagonal_form(metric_id: str, row: np.ndarray, col: np.ndarray,
                  all_labels_active: bool) -> tuple[float, np.ndarray] | None:
    """(a, w) with f(C) = a + Σ_i w_i C_ii for every table C with gold counts ``row`` and predicted
    counts ``col`` (None: ``metric_id`` is not affine in the diagonal, or has no defined value).

    accuracy: w_i = 1/N. macro recall: w_i = 1/(k r_i) over the k active labels (gold support or
    predicted, or every label when the label set is given), 0 where r_i = 0 (recall 0/0, counted 0).
    informedness Σ_i b_i (R_i − FPR_i): w_i = c_i / (r_i (N − r_i)), a = −Σ_i b_i c_i / (N − r_i), over
    the classes with 0 < r_i < N (elsewhere the class's term is 0 by convention).
    """
    row, col = np.asarray(row, dtype=float), np.asarray(col, dtype=float)
    n = float(row.sum())
    if n <= 0:
        return None
    if metric_id == "accuracy":
        return 0.0, np.full(row.shape, 1.0 / n)
    if metric_id == "macro_recall":
        active = np.ones(row.shape, dtype=bool) if all_labels_active else (row + col) > 0
        weights = np.where(row > 0, 1.0 / (max(int(active.sum()), 1) * np.where(row > 0, row, 1.0)), 0.0)
        return 0.0, weights
    if metric_id == "informedness":
        defined = (row > 0) & (row < n)
        safe_row, rest = np.where(defined, row, 1.0), np.where(defined, n - row, 1.0)
        weights = np.where(defined, col / (safe_row * rest), 0.0)
        return float(-np.where(defined, (col / n) * col / rest, 0.0).sum()), weights
    return None


def moments(row: np.ndarray, col: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """Mean and variance of T = Σ_i w_i C_ii over the tables with margins ``row``, ``col`` (module docstring)."""
    row, col, weights = (np.asarray(x, dtype=float) for x in (row, col, weights))
    n = float(row.sum())
    a = row * col
    mean = float((weights * a).sum() / n)
    if n < 2:
        return mean, 0.0
    variance = (n * (weights**2 * a * (n - row - col)).sum() + (weights * a).sum() ** 2) / (n * n * (n - 1))
    return mean, max(float(variance), 0.0)


def cantelli(mean: float, variance: float, threshold: float) -> float:
    """Cantelli's bound on P(T ≥ threshold): Var / (Var + d²) with d = threshold − E T > 0, else 1."""
    excess = threshold - mean
    if excess <= 0:
        return 1.0
    return variance / (variance + excess * excess)


#: ln pmf below the mode (relative to it) where a class's window of x stops on the left: the mass left out is at
#: most N e^-80, far below one unit in the last place of the total, so every tail before the window is 1 (ln 0.0),
#: as the whole support summed in double precision gives it.
LEFT_CUT = -80.0
#: ln pmf (relative to the mode) where the window stops on the right: every tail after it is below e^LOWEST.
RIGHT_CUT = LOWEST - 60.0


def _window(n: int, r: int, c: int, low: int, high: int) -> tuple[int, np.ndarray]:
    """(first x, ln pmf relative to the mode) of C_ii ~ Hypergeom(N, c, r) over the x where it is above
    :data:`LEFT_CUT` on the left and :data:`RIGHT_CUT` on the right of the mode (the pmf is log-concave, so it
    only falls away from the mode), widened by doubling until both ends are reached or the support ends."""
    mode = min(max(int((r + 1) * (c + 1) // (n + 2)), low), high)
    spread = np.sqrt(max(r * c * (n - r) * (n - c) / (n * n * max(n - 1, 1)), 1.0))
    width = int(16 * spread) + 64
    while True:
        left, right = max(low, mode - width), min(high, mode + 3 * width)
        log_pmf = hypergeometric_log_pmf(np.arange(left, right + 1), n, c, r)
        log_pmf = log_pmf - log_pmf[mode - left]
        if (left == low or log_pmf[0] < LEFT_CUT + -np.log(n)) and (right == high or log_pmf[-1] < RIGHT_CUT):
            return left, log_pmf
        width *= 2


def log_tails(n: int, row: np.ndarray, col: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    """Per class i (C_ii ~ Hypergeom(N, c_i, r_i)): the smallest possible C_ii, the number of x from there whose
    tail P(C_ii ≥ x) is 1 to double precision, and ln P(C_ii ≥ x) for the x after them, down to below
    :data:`LOWEST` (a window around the mode, :func:`_window`, from
    :func:`~auditor.analyses.shuffle_test.hypergeometric_log_pmf`; the x before the window are those whose tail
    is 1, the x after it have tails below e^LOWEST, which :func:`union_bound` counts as e^LOWEST)."""
    out = []
    for r, c in zip(np.asarray(row, dtype=np.int64), np.asarray(col, dtype=np.int64)):
        low, high = max(0, int(r + c - n)), int(min(r, c))
        start, log_pmf = _window(n, int(r), int(c), low, high)
        tail = np.logaddexp.accumulate(log_pmf[::-1])[::-1]
        out.append((low, start - low, tail - tail[0]))
    return out


def union_bound(tails: list[tuple[int, int, np.ndarray]], weights: np.ndarray, threshold: float) -> float:
    """Boole's bound on P(Σ_i w_i C_ii ≥ threshold): Σ_i P(C_ii ≥ x_i) over integers x_i with
    Σ_i w_i (x_i − 1) < threshold, the x_i those whose log tails first fall to a common level (at least
    :data:`LOWEST`: a tail below e^LOWEST counts as e^LOWEST, so only the tails above it are searched).
    ``tails``: :func:`log_tails`' (smallest x, x whose tail is 1, log tails after them) per class."""
    used = [i for i, w in enumerate(weights) if w > 0]
    if not used:
        return 1.0
    kept = [tails[i][2][tails[i][2] > LOWEST] for i in used]  # a prefix: the tails fall
    flat = np.concatenate(kept)
    ones = np.array([tails[i][1] for i in used])
    sizes = np.array([tail.size for tail in kept])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    lows, w = np.array([tails[i][0] for i in used]), np.asarray(weights, dtype=float)[used]

    def cut(level: float) -> tuple[np.ndarray, bool]:
        """x_i − low_i: the first x whose tail is ≤ e^level (one past the support when none is); the
        tails fall within each class, so this counts the entries above the level (the tails of 1 count when the
        level is below 0)."""
        above = np.add.reduceat((flat > level).astype(np.int64), starts) if flat.size else np.zeros(sizes.size, int)
        above = above + (ones if level < 0 else 0)
        return above, float(w @ (lows + above - 1)) < threshold

    if not cut(0.0)[1]:
        return 1.0
    high, low = 0.0, LOWEST  # cut(high) holds; cut(low) need not
    if not cut(low)[1]:
        for _ in range(STEPS):
            middle = (high + low) / 2
            if cut(middle)[1]:
                high = middle
            else:
                low = middle
    else:
        high = low
    above, _ = cut(high)
    inside = above < sizes + ones
    at = np.minimum(starts + np.maximum(above - ones, 0), max(flat.size - 1, 0))
    logs = np.where(inside, np.where(above < ones, 0.0, flat[at] if flat.size else LOWEST), LOWEST)
    return float(np.exp(np.logaddexp.reduce(logs)))


def bounds(row: np.ndarray, columns: np.ndarray, observed: Mapping[str, np.ndarray], all_labels_active: bool,
           tolerance: float) -> dict[str, np.ndarray]:
    """Upper bounds on each system's shuffle p-value, metric -> one per system (NaN: no bound), for the
    metrics of ``observed`` (metric -> value per system) that are affine in the diagonal; ``columns``
    holds each system's predicted counts; ties within ``tolerance`` (relative) count as ≥."""
    row = np.asarray(row, dtype=np.int64)
    n = int(row.sum())
    wanted = [m for m in AFFINE_IN_DIAGONAL if m in observed]
    out = {m: np.full(len(columns), np.nan) for m in wanted}
    for system, col in enumerate(np.asarray(columns, dtype=np.int64)):
        tails = None
        for metric_id in wanted:
            value = float(observed[metric_id][system])
            form = diagonal_form(metric_id, row, col, all_labels_active)
            if form is None or np.isnan(value):
                continue
            offset, weights = form
            threshold = value - tolerance * max(1.0, abs(value)) - offset
            mean, variance = moments(row, col, weights)
            bound = cantelli(mean, variance, threshold)
            if threshold > mean:
                tails = log_tails(n, row, col) if tails is None else tails
                bound = min(bound, union_bound(tails, weights, threshold))
            out[metric_id][system] = min(1.0, max(FLOOR, bound * (1 + ROUNDING)))
    return out
