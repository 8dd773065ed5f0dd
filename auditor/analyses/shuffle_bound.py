"""Shuffle p-values bounded without draws, for metrics affine in the diagonal once the margins are fixed.

Part of the *analyse* stage, used by :mod:`auditor.analyses.baselines` with :mod:`auditor.analyses.shuffle_test`.
Shuffling a system's predictions over the items keeps the gold counts r (rows) and the predicted counts c (columns);
every shuffled table is then a uniform random matching of the N gold labels with the N predicted labels.
Every metric of :data:`AFFINE_IN_DIAGONAL` is then f(C) = a + Σ_i w_i C_ii with a and w_i ≥ 0 fixed by the
margins (:func:`diagonal_form` gives each one's derivation), so the shuffle p-value p = P(f(C) ≥ f(observed))
is a tail of T = Σ_i w_i C_ii. Kappa and MCC have every w_i equal, so they are increasing affine functions of
the diagonal sum, as accuracy is: their shuffle p-values are accuracy's, exactly (the same event). Each metric of
:data:`BOUNDED_BY_AFFINE` is at most an affine one g on every table (:func:`dominating_form`), so
P(f ≥ t) ≤ P(g ≥ t). Two upper bounds on a tail of T need no draw:

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
    are chosen with (nearly) equal log tails, the lowest level that keeps the sum below d' (one pass over the
    tails sorted).
    Far above chance this bound is astronomically small where Cantelli's decays only as 1/d².

The p-value of a system is bounded by the smaller of the two (:func:`bounds`); ties count as ≥ as in
the Monte Carlo and exact routes (the threshold is lowered by :data:`~auditor.analyses.shuffle_test.TIE_TOLERANCE`).

References
----------
Cantelli (1928) "Sui confini della probabilità", Atti del Congresso Internazionale dei Matematici,
Bologna, 6, 47–59 (the one-sided Chebyshev inequality). Boole's inequality for the union. Cohen (1960) and
Gorodkin (2004) for kappa and MCC, Opitz (2024) §4–5 for the macro averages and the calibrated matrix, Powers
(2011) for informedness and markedness: the definitions each form is derived from (docs/metrics.md).
"""
from __future__ import annotations

from math import lgamma
from typing import Mapping

import numpy as np

from auditor.analyses.shuffle_test import hypergeometric_log_pmf

#: Metrics whose value on a table with fixed margins is a + Σ w_i C_ii with w_i ≥ 0 (:func:`diagonal_form`).
AFFINE_IN_DIAGONAL = ("accuracy", "macro_recall", "informedness", "kappa", "mcc", "macro_precision", "macro_f1",
                      "weighted_f1", "markedness", "accuracy_calibrated", "macro_recall_calibrated")
#: Metrics at most an affine one on every table with fixed margins (:func:`dominating_form`): metric -> that one.
BOUNDED_BY_AFFINE = {"gmean_recall": "macro_recall", "hmean_recall": "macro_recall",
                     "gmean_recall_calibrated": "macro_recall", "hmean_recall_calibrated": "macro_recall",
                     "macro_f1_hm": "macro_precision_recall"}
#: Every metric whose shuffle p-value has a bound here.
BOUNDED = AFFINE_IN_DIAGONAL + tuple(BOUNDED_BY_AFFINE)
#: Relative widening of every bound (rounding in the summed logarithms, far below any threshold).
ROUNDING = 1e-9
#: Smallest bound reported (the smallest positive normal double: a bound that underflows is still > 0).
FLOOR = float(np.finfo(float).tiny)
#: Lowest log tail level searched (e^-800 underflows to 0: the bound is then :data:`FLOOR`).
LOWEST = -800.0


def diagonal_form(metric_id: str, row: np.ndarray, col: np.ndarray,
                  all_labels_active: bool) -> tuple[float, np.ndarray] | None:
    """(a, w) with f(C) = a + Σ_i w_i C_ii for every table C with gold counts ``row`` and predicted
    counts ``col`` (None: ``metric_id`` is not affine in the diagonal, or has no defined value there).

    Every 0/0 convention below reads the margins only, so it is the same on every such table. p_i = r_i/N,
    b_i = c_i/N; the k active labels are those with gold or predicted items (every label when the label set
    is given), as in the macro averages; a per-class ratio with a zero denominator counts 0.

    accuracy Σ_i C_ii / N: w_i = 1/N. kappa (Acc − pᵀb)/(1 − pᵀb) with pᵀb fixed: w_i = 1/(N(1 − pᵀb)),
    a = −pᵀb/(1 − pᵀb) (undefined when pᵀb = 1). MCC (Acc − pᵀb)/√((1 − pᵀp)(1 − bᵀb)): w_i = 1/(N D),
    a = −pᵀb/D, D the root (undefined when 0). macro recall (1/k) Σ_i C_ii/r_i: w_i = 1/(k r_i) (0 where
    r_i = 0). macro precision (1/k) Σ_i C_ii/c_i: w_i = 1/(k c_i). macro F1 (1/k) Σ_i 2C_ii/(r_i + c_i):
    w_i = 2/(k(r_i + c_i)). weighted F1 Σ_i p_i 2C_ii/(r_i + c_i): w_i = 2p_i/(r_i + c_i). informedness
    Σ_i b_i (C_ii/r_i − (c_i − C_ii)/(N − r_i)) over 0 < r_i < N: w_i = c_i/(r_i (N − r_i)),
    a = −Σ_i b_i c_i/(N − r_i). markedness Σ_i p_i (C_ii/c_i + (N − r_i − c_i + C_ii)/(N − c_i) − 1) over
    0 < c_i < N: w_i = r_i/(c_i (N − c_i)), a = −Σ_i p_i r_i/(N − c_i). The calibrated matrix
    C′_ij = N C_ij/(k_g r_i) (k_g gold classes) keeps N, the rows' recalls and the active labels (c′_j > 0
    exactly when c_j > 0): accuracy on it is Σ_i C_ii/(k_g r_i), macro recall on it is macro recall.
    """
    row, col = np.asarray(row, dtype=float), np.asarray(col, dtype=float)
    n = float(row.sum())
    if n <= 0:
        return None
    active = np.ones(row.shape, dtype=bool) if all_labels_active else (row + col) > 0
    k = max(int(active.sum()), 1)
    agreement = float((row * col).sum()) / (n * n)  # pᵀb

    def per(denominator: np.ndarray, numerator: np.ndarray | float = 1.0) -> np.ndarray:
        """numerator / denominator over the active labels, 0 where the denominator is 0 (the convention)."""
        defined = active & (denominator > 0)
        return np.where(defined, numerator / np.where(defined, denominator, 1.0), 0.0)

    if metric_id == "accuracy":
        return 0.0, np.full(row.shape, 1.0 / n)
    if metric_id == "kappa":
        return None if agreement == 1 else (-agreement / (1 - agreement), np.full(row.shape, 1 / (n * (1 - agreement))))
    if metric_id == "mcc":
        spread = (1 - float((row**2).sum()) / n**2) * (1 - float((col**2).sum()) / n**2)
        root = float(np.sqrt(max(spread, 0.0)))
        return None if root == 0 else (-agreement / root, np.full(row.shape, 1 / (n * root)))
    if metric_id in ("macro_recall", "macro_recall_calibrated"):
        return 0.0, per(row) / k
    if metric_id == "macro_precision":
        return 0.0, per(col) / k
    if metric_id == "macro_f1":
        return 0.0, per(row + col, 2.0) / k
    if metric_id == "weighted_f1":
        return 0.0, per(row + col, 2 * row / n)
    if metric_id == "accuracy_calibrated":
        present = row > 0
        return 0.0, np.where(present, 1 / (max(int(present.sum()), 1) * np.where(present, row, 1.0)), 0.0)
    if metric_id == "informedness":
        defined = (row > 0) & (row < n)
        safe_row, rest = np.where(defined, row, 1.0), np.where(defined, n - row, 1.0)
        weights = np.where(defined, col / (safe_row * rest), 0.0)
        return float(-np.where(defined, (col / n) * col / rest, 0.0).sum()), weights
    if metric_id == "markedness":
        defined = (col > 0) & (col < n)
        safe_col, rest = np.where(defined, col, 1.0), np.where(defined, n - col, 1.0)
        weights = np.where(defined, row / (safe_col * rest), 0.0)
        return float(-np.where(defined, (row / n) * row / rest, 0.0).sum()), weights
    return None


def dominating_form(metric_id: str, row: np.ndarray, col: np.ndarray,
                    all_labels_active: bool) -> tuple[float, np.ndarray, float] | None:
    """(a, w, q): g(C) = a + Σ_i w_i C_ii with f(C) ≤ g(C) on every table C with these margins, and q a lower
    bound on the share of those tables where f is defined (a p-value is a tail among the defined values, so
    P(f ≥ t | f defined) ≤ P(g ≥ t) / q); None: no such form here.

    A metric of :data:`AFFINE_IN_DIAGONAL` is its own g (q = 1). The geometric and harmonic means of the active
    labels' recalls are at most their arithmetic mean, macro recall (AM ≥ GM ≥ HM for numbers ≥ 0; their
    calibrated variants read the same recalls, :func:`diagonal_form`). Macro F1′ = 2PR/(P + R) ≤ (P + R)/2
    (as 4PR ≤ (P + R)²), the mean of the macro precision and macro recall forms; it is undefined where
    P + R = 0, which needs C_jj = 0 for every active j with a weight, so q = 1 − min_j P(C_jj = 0) over them
    (C_jj ~ Hypergeom(N, c_j, r_j): P(C_jj = 0) = C(N − c_j, r_j)/C(N, r_j)).
    """
    surrogate = BOUNDED_BY_AFFINE.get(metric_id, metric_id)
    if surrogate != "macro_precision_recall":
        form = diagonal_form(surrogate, row, col, all_labels_active)
        return None if form is None else (*form, 1.0)
    precision = diagonal_form("macro_precision", row, col, all_labels_active)
    recall = diagonal_form("macro_recall", row, col, all_labels_active)
    if precision is None or recall is None:
        return None
    weights = (precision[1] + recall[1]) / 2
    row, col = np.asarray(row, dtype=np.int64), np.asarray(col, dtype=np.int64)
    n = int(row.sum())
    none_right = [_log_none(n, int(r), int(c)) for r, c, w in zip(row, col, weights) if w > 0]
    return 0.0, weights, 1.0 - float(np.exp(min(none_right))) if none_right else 0.0


def _log_none(n: int, r: int, c: int) -> float:
    """ln P(C_ii = 0) for C_ii ~ Hypergeom(n, c, r): ln C(n − c, r) − ln C(n, r) (−inf where r + c > n)."""
    if r + c > n:
        return -np.inf
    return lgamma(n - c + 1) + lgamma(n - r + 1) - lgamma(n + 1) - lgamma(n - c - r + 1)


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
    return _union(SortedTails(tails), weights, threshold)


class SortedTails:
    """:func:`log_tails`' tails of every class, those above :data:`LOWEST` in one array sorted from the highest
    (built once per system, shared by its metrics' :func:`union_bound`)."""

    def __init__(self, tails: list[tuple[int, int, np.ndarray]]):
        kept = [tail[tail > LOWEST] for _, _, tail in tails]  # a prefix: the tails fall
        self.lows = np.array([low for low, _, _ in tails], dtype=float)
        self.ones = np.array([ones for _, ones, _ in tails], dtype=np.int64)
        self.sizes = np.array([tail.size for tail in kept], dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        self.flat = np.concatenate(kept) if kept else np.empty(0)
        order = np.argsort(-self.flat, kind="stable")
        self.values = self.flat[order]
        self.classes = np.repeat(np.arange(len(kept)), self.sizes)[order]
        # the last entry of each run of equal values: a common level counts a run whole or not at all
        self.ends = np.flatnonzero(np.append(self.values[1:] != self.values[:-1], True))


def _union(tails: SortedTails, weights: np.ndarray, threshold: float) -> float:
    """:func:`union_bound` on tails sorted once: lowering the common level from 0 adds the sorted entries one
    run of equal values at a time, each raising Σ_i w_i (x_i − 1) by its class's weight, so the lowest level that
    keeps the sum below the threshold is found from one cumulative sum (the tails of 1 count below level 0)."""
    w = np.asarray(weights, dtype=float)
    used = w > 0
    if not used.any():
        return 1.0
    if not float(w @ (tails.lows - 1)) < threshold:  # level 0: no tail of 1 counted
        return 1.0
    sums = float(w @ (tails.lows + tails.ones - 1)) + np.cumsum(w[tails.classes])[tails.ends]
    sums = np.concatenate([[float(w @ (tails.lows + tails.ones - 1))], sums])  # runs 0..J counted
    allowed = sums < threshold
    if tails.values.size and tails.values[0] >= 0:  # a run at 0 counts at every level below 0
        allowed[0] = False
    if not allowed.any():
        above = np.zeros(tails.ones.size, dtype=np.int64)  # level 0
    else:
        runs = int(np.flatnonzero(allowed)[-1])  # the sums rise with the runs: the last allowed is the lowest level
        counted = int(tails.ends[runs - 1]) + 1 if runs else 0
        above = tails.ones + np.bincount(tails.classes[:counted], minlength=tails.ones.size)
    inside = above < tails.sizes + tails.ones
    flat = tails.flat
    at = np.minimum(tails.starts + np.maximum(above - tails.ones, 0), max(flat.size - 1, 0))
    logs = np.where(inside, np.where(above < tails.ones, 0.0, flat[at] if flat.size else LOWEST), LOWEST)
    return float(np.exp(np.logaddexp.reduce(logs[used])))


def bounds(row: np.ndarray, columns: np.ndarray, observed: Mapping[str, np.ndarray], all_labels_active: bool,
           tolerance: float) -> dict[str, np.ndarray]:
    """Upper bounds on each system's shuffle p-value, metric -> one per system (NaN: no bound), for the
    metrics of ``observed`` (metric -> value per system) in :data:`BOUNDED`; ``columns`` holds each system's
    predicted counts; ties within ``tolerance`` (relative) count as ≥."""
    row = np.asarray(row, dtype=np.int64)
    n = int(row.sum())
    wanted = [m for m in BOUNDED if m in observed]
    out = {m: np.full(len(columns), np.nan) for m in wanted}
    for system, col in enumerate(np.asarray(columns, dtype=np.int64)):
        tails = None
        for metric_id in wanted:
            value = float(observed[metric_id][system])
            form = dominating_form(metric_id, row, col, all_labels_active)
            if form is None or np.isnan(value):
                continue
            offset, weights, defined = form
            threshold = value - tolerance * max(1.0, abs(value)) - offset
            mean, variance = moments(row, col, weights)
            bound = cantelli(mean, variance, threshold)
            if threshold > mean:
                tails = SortedTails(log_tails(n, row, col)) if tails is None else tails
                bound = min(bound, _union(tails, weights, threshold))
            bound = bound / defined if defined > 0 else 1.0
            out[metric_id][system] = min(1.0, max(FLOOR, bound * (1 + ROUNDING)))
    return out
