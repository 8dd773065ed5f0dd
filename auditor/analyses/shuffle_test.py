"""The shuffle test's answer, settled: exact p-values for two classes, enough draws otherwise.

Part of the *analyse* stage, used by :mod:`auditor.analyses.baselines`. "Is system s above
chance?" is a one-sided permutation test of a metric against a shuffle of s's own predictions,
corrected over the S systems (Holm or Benjamini–Hochberg). With a fixed number of draws R the
Monte Carlo p-value p̂ = (1 + X)/(R + 1) can land on either side of a corrected threshold for a
borderline system, so the answer would depend on R and the seed. Two remedies:

Two classes: exact.
    Under shuffling the table has fixed margins, so with k = 2 it is fixed by C_00, which is
    hypergeometric: P(C_00 = x) = C(c_0, x) C(N − c_0, r_0 − x) / C(N, r_0) (r = gold, c = predicted
    counts). Enumerating the ≤ min(r_0, c_0) + 1 possible tables gives every metric's null
    distribution exactly, and p = P(f(C) ≥ f(observed) | f(C) defined), ties counted as ≥ (for
    accuracy, kappa, MCC and informedness, which increase with C_00, this is the one-sided Fisher
    exact test).
More classes: draws until the answer is clear.
    X ~ Binomial(R, p) for the true p, so p has a Clopper–Pearson interval [p_lo, p_hi] at level
    :data:`INTERVAL_LEVEL`. Holm's and BH's adjusted p-values never decrease when one input
    increases, so the systems rejected with every p at p_hi are rejected for the true p, and those
    not rejected with every p at p_lo are not: when the two sets agree, Monte Carlo error cannot
    change the corrected answer. Otherwise every system whose interval holds one of the
    correction's thresholds (α/m for Holm, mα/S for BH, m = 1..S) below α gets more draws: first
    up to :func:`settling_draws` (enough when no draw reaches the observed value), then as many
    again each round, until the sets agree or :func:`draw_cap` is reached (then ``resolved`` is False).

References
----------
Clopper & Pearson (1934) "The use of confidence or fiducial limits illustrated in the case of the
binomial", Biometrika 26(4). Holm (1979) "A simple sequentially rejective multiple test
procedure", Scand. J. Statist. 6(2). Phipson & Smyth (2010), Stat. Appl. Genet. Mol. Biol. 9(1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

#: Largest number of possible 2 × 2 tables enumerated for an exact p (else Monte Carlo).
EXACT_SUPPORT = 2**20
#: Level of each Clopper–Pearson interval of a Monte Carlo p-value.
INTERVAL_LEVEL = 0.999
#: At most this many shuffle draws per system, and at most :data:`DRAW_BUDGET` numbers drawn.
MAX_DRAWS = 100_000
DRAW_BUDGET = 2**24
#: Relative tolerance of "null ≥ observed" (ties computed in floating point), as in
#: scipy.stats.permutation_test; also :func:`auditor.analyses.baselines.permutation_p_value`'s.
TIE_TOLERANCE = 1e-12

#: The metrics :mod:`~auditor.analyses.shuffle_bound` bounds, in words.
AFFINE_NAMES = ("accuracy, kappa, MCC, macro recall, precision and F1, weighted F1, informedness, markedness, "
                "calibrated accuracy and macro recall")
DOMINATED_NAMES = ("geometric and harmonic mean recall (at most macro recall) and macro F1' (at most the mean of "
                   "macro precision and recall)")
#: How the p-values are settled, in words (JSON ``chance.method.p_shuffle_resolution``).
RESOLUTION = (
    "two classes: exact (the shuffled table is fixed by C_00, hypergeometric; every possible table "
    "enumerated, p = P(f >= observed)); more classes: Monte Carlo, and each system whose p's "
    f"{100 * INTERVAL_LEVEL:g}% Clopper-Pearson interval could change the corrected answer at alpha gets "
    "more draws (first up to the fewest that settle a p no draw reached, floor(ln t / ln(1 - alpha/m)) + 1 with "
    "t = (1 - level)/2 and m = S for holm, 1 for bh; then doubling) until the systems rejected at the upper and "
    "at the lower ends agree, "
    f"at most {MAX_DRAWS} draws per system; p_shuffle_resolved says whether they agree. Before any draw, the "
    f"metrics affine in the diagonal once the margins are fixed ({AFFINE_NAMES}) get an upper bound on p from the "
    "exact permutation mean and variance (Cantelli) and from each diagonal cell's hypergeometric tail (Boole), the "
    "smaller of the two (kappa and MCC, affine in the diagonal sum as accuracy is, get accuracy's bound), and "
    f"{DOMINATED_NAMES} the bound of the affine metric they never exceed; a system keeps it as its p "
    "(p_shuffle_method bound, p_shuffle_interval [0, bound]) unless [0, bound] could change the corrected answer, "
    "when it is drawn like the others")
#: ``p_shuffle_method`` of a test that did not run: no draws (``--bootstrap 0``) and no exact test or settling bound.
NOT_TESTED = "not tested"
#: Why, in words (the report's above-chance column and captions, the JSON).
NO_DRAWS_REASON = "not tested: no draws"
#: Why, when the audit drew but not this system's shuffles (:data:`auditor.analyses.baselines.UNDRAWN`).
UNDRAWN_REASON = "not tested: shuffles not drawn"
#: The bounds, as the report's captions name them (:mod:`~auditor.analyses.shuffle_bound`).
BOUND_NAMES = "the smaller of Cantelli's bound and a union of hypergeometric tails"


@dataclass(frozen=True)
class ShuffleP:
    """One system's shuffle p-value on one metric: ``p``, how it was found (``exact`` or
    ``monte carlo``), the draws (None when exact), the Clopper–Pearson interval of the true p
    (None when exact) and whether the corrected answer at α is settled (``resolved``)."""

    p: float | None
    method: str
    draws: int | None = None
    interval: tuple[float, float] | None = None
    resolved: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {"p_shuffle_method": self.method, "p_shuffle_draws": self.draws,
                "p_shuffle_interval": None if self.interval is None else list(self.interval),
                "p_shuffle_resolved": self.resolved}


#: The result of a test that did not run (:data:`NOT_TESTED`).
NO_DRAW_P = ShuffleP(None, NOT_TESTED)


def untested_reason(draws: int) -> str:
    """Why a p is not tested: no draws at all (``--bootstrap 0``), or the system's shuffles not drawn."""
    return UNDRAWN_REASON if draws else NO_DRAWS_REASON


def binary_support(row: np.ndarray, col: np.ndarray) -> tuple[int, int]:
    """The smallest and largest C_00 of a 2 × 2 table with gold counts ``row`` and predicted counts ``col``."""
    n, r0, c0 = int(np.sum(row)), int(row[0]), int(col[0])
    return max(0, r0 + c0 - n), min(r0, c0)


def binary_null(row: np.ndarray, col: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Every 2 × 2 table with gold counts ``row`` and predicted counts ``col`` and its probability
    under shuffling (C_00 ~ Hypergeom(N, c_0, r_0)); None when there are more than
    :data:`EXACT_SUPPORT` of them."""
    row, col = np.asarray(row, dtype=np.int64), np.asarray(col, dtype=np.int64)
    n, r0, c0 = int(row.sum()), int(row[0]), int(col[0])
    low, high = binary_support(row, col)
    if high - low + 1 > EXACT_SUPPORT:
        return None
    x = np.arange(low, high + 1, dtype=np.int64)
    tables = np.empty((x.size, 2, 2), dtype=np.int64)
    tables[:, 0, 0], tables[:, 0, 1] = x, r0 - x
    tables[:, 1, 0], tables[:, 1, 1] = c0 - x, int(row[1]) - c0 + x
    pmf = _hypergeometric_pmf(x, n, c0, r0)
    keep = pmf > 0  # tables whose probability underflows (below 1e-308) add nothing to any p
    return tables[keep], pmf[keep]


def _hypergeometric_pmf(x: np.ndarray, n: int, good: int, sample: int) -> np.ndarray:
    """P(X = x) for X ~ Hypergeom(n, good, sample) over the whole support ``x`` (consecutive), from
    :func:`hypergeometric_log_pmf`, normalised (no scipy.stats import; exact up to rounding)."""
    log_pmf = hypergeometric_log_pmf(x, n, good, sample)
    pmf = np.exp(log_pmf - log_pmf.max())
    return pmf / pmf.sum()


def hypergeometric_log_pmf(x: np.ndarray, n: int, good: int, sample: int) -> np.ndarray:
    """ln P(X = x) + const for X ~ Hypergeom(n, good, sample) over the whole support ``x`` (consecutive),
    from the ratio P(x + 1)/P(x) = (good − x)(sample − x) / ((x + 1)(n − good − sample + x + 1)) summed in logs."""
    step = np.asarray(x[:-1], dtype=float)
    log_ratio = (np.log(good - step) + np.log(sample - step) - np.log(step + 1)
                 - np.log(n - good - sample + step + 1))
    return np.concatenate([[0.0], np.cumsum(log_ratio)])


def exact_p(observed: float, null: np.ndarray, pmf: np.ndarray) -> float | None:
    """p = P(f ≥ observed | f defined) over the enumerated tables (ties within a relative
    tolerance count as ≥); None when the observed value or every table's value is undefined."""
    defined = ~np.isnan(null)
    if np.isnan(observed) or not defined.any():
        return None
    tolerance = TIE_TOLERANCE * max(1.0, abs(observed))
    total = pmf[defined].sum()
    return float(min(1.0, pmf[defined & (null >= observed - tolerance)].sum() / total))


def exact_binary(row: np.ndarray, columns: np.ndarray, observed: Mapping[str, np.ndarray],
                 score: Callable[[np.ndarray], Mapping[str, np.ndarray]]) -> dict[str, list[ShuffleP]] | None:
    """Exact shuffle p-values of every metric in ``observed`` (metric -> value per system) for two
    classes: ``columns`` holds each system's predicted counts, ``score`` maps tables to metric
    values. None when a system has too many possible tables (:data:`EXACT_SUPPORT`)."""
    nulls = [binary_null(row, col) for col in columns]
    if any(null is None for null in nulls):
        return None
    scored = [score(tables) for tables, _ in nulls]
    return {m: [ShuffleP(exact_p(float(values[s]), scored[s][m], nulls[s][1]), "exact", resolved=True)
                for s in range(len(nulls))] for m, values in observed.items()}


def p_interval(exceed: np.ndarray, draws: np.ndarray, level: float = INTERVAL_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson interval of a binomial proportion from ``exceed`` of ``draws`` (beta quantiles
    as scipy.special.betaincinv, which scipy.stats.beta.ppf calls), each evaluated once per distinct
    (exceed, draws) and only where the bound is not 0 or 1 (most systems share X = 0 of R draws: about 60 µs
    a quantile)."""
    from scipy.special import betaincinv

    exceed, draws = np.broadcast_arrays(np.asarray(exceed, dtype=float), np.asarray(draws, dtype=float))
    tail = (1 - level) / 2
    low, high = np.zeros(exceed.shape), np.ones(exceed.shape)
    for out, where, a, b, q in ((low, exceed > 0, exceed, draws - exceed + 1, tail),
                                (high, exceed < draws, exceed + 1, draws - exceed, 1 - tail)):
        if where.any():
            shapes, inverse = np.unique(np.stack([a[where], b[where]]), axis=1, return_inverse=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[where] = betaincinv(shapes[0], shapes[1], q)[inverse.ravel()]
    return low, high


def thresholds(systems: int, alpha: float, correction: str) -> np.ndarray:
    """The per-step thresholds a raw p is compared with: α/m (Holm) or mα/S (BH), m = 1..S."""
    m = np.arange(1, max(systems, 1) + 1)
    return alpha / m if correction == "holm" else m * alpha / max(systems, 1)


def unsettled(low: np.ndarray, high: np.ndarray, alpha: float, correction: str) -> np.ndarray:
    """Systems the corrected answer (adjusted p < α) differs for at the lower and upper ends."""
    from auditor.analyses.significance import adjust

    return (adjust(low, correction) < alpha) & ~(adjust(high, correction) < alpha)


def draw_cap(base: int, per_draw: int) -> int:
    """Most draws one system gets: :data:`MAX_DRAWS`, less when a draw holds many numbers."""
    return max(base, min(MAX_DRAWS, DRAW_BUDGET // max(per_draw, 1)))


def _mc_state(observed: np.ndarray,
              null: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per system: defined draws, p̂ = (1 + X)/(R + 1) with X the draws ≥ observed, and the
    Clopper–Pearson interval of the true p widened to hold p̂ (NaN throughout: undefined)."""
    draws = np.array([np.count_nonzero(~np.isnan(v)) for v in null], dtype=float)
    tolerance = TIE_TOLERANCE * np.maximum(1.0, np.abs(observed))
    exceed = np.array([np.count_nonzero(v >= o - t) for v, o, t in zip(null, observed, tolerance)], dtype=float)
    p = np.where(np.isnan(observed), np.nan, (1 + exceed) / (draws + 1))
    low, high = p_interval(exceed, draws)
    unknown = np.isnan(p)
    return draws, p, np.where(unknown, np.nan, np.minimum(low, p)), np.where(unknown, np.nan, np.maximum(high, p))


def can_reject(family: int, draws: int, alpha: float, correction: str) -> bool:
    """Whether a Monte Carlo p over ``draws`` draws can be rejected after the correction over ``family`` systems:
    the smallest p is 1/(R + 1), adjusted to S/(R + 1) by Holm and, with every p there, to 1/(R + 1) by BH."""
    smallest = 1 / (draws + 1)
    return (family * smallest if correction == "holm" else smallest) < alpha


def settling_draws(systems: int, alpha: float, correction: str) -> int:
    """Fewest draws at which a p no draw reached (X = 0) is settled below α after the correction:
    its Clopper–Pearson upper bound is 1 − t^(1/R), t = (1 − level)/2, and with every one of the S
    p-values there the adjusted bound is m(1 − t^(1/R)) (m = S for Holm, 1 for BH), below α once
    R > ln t / ln(1 − α/m)."""
    tail = (1 - INTERVAL_LEVEL) / 2
    family = max(int(systems), 1) if correction == "holm" else 1
    return int(np.floor(np.log(tail) / np.log1p(-alpha / family))) + 1


def settle(observed: Mapping[str, np.ndarray], null: Mapping[str, list[np.ndarray]], alpha: float,
           correction: str, cap: int, more: Callable[[int, int], None],
           bounds: Mapping[str, np.ndarray] | None = None) -> dict[str, list[ShuffleP]]:
    """Monte Carlo p-values of each metric (``observed``: value per system; ``null``: each system's
    drawn values, extended in place by ``more(system, draws)``) with draws added until the corrected
    answer is settled (module docstring) or ``cap`` draws. Returns metric -> one :class:`ShuffleP`
    per system.

    ``bounds`` (metric -> an upper bound on each system's p, NaN: none; :mod:`~auditor.analyses.shuffle_bound`)
    settle without draws: such a system's p lies in [0, bound], and it keeps the bound as its p unless
    that interval holds a threshold that matters, when it is drawn like the others.
    A system short of :func:`settling_draws` is first brought up to them (systems far above chance
    with no bound are then settled in one extra round: 1,517 draws in all instead of 2,000 for 10 systems
    at α = 0.05 with Holm); otherwise its draws are doubled.
    """
    bound = {m: np.array(bounds[m], dtype=float) if bounds and m in bounds else np.full(len(null[m]), np.nan)
             for m in observed}
    while True:
        goals: dict[int, int] = {}
        dropped = False
        for metric_id, values in observed.items():
            _, p, low, high = _state(values, null[metric_id], bound[metric_id])
            if not unsettled(low, high, alpha, correction).any():
                continue
            family = int(np.count_nonzero(~np.isnan(p)))
            cut = thresholds(family, alpha, correction)
            straddle = ((low[:, None] <= cut[None, :]) & (cut[None, :] <= high[:, None])).any(axis=1) & (low < alpha)
            bounded = ~np.isnan(bound[metric_id])
            if (straddle & bounded).any():  # these bounds are too loose: draw for them (next round)
                bound[metric_id][straddle & bounded] = np.nan
                dropped = True
                continue
            sizes = np.array([v.size for v in null[metric_id]])
            goal = settling_draws(family, alpha, correction)
            for system in np.flatnonzero(straddle & (sizes < cap)):
                goals[int(system)] = max(goals.get(int(system), 0), goal)
        if not goals and not dropped:
            break
        for system, goal in sorted(goals.items()):
            current = int(null[next(iter(null))][system].size)
            more(system, min(goal - current if goal > current else current, cap - current))
    return {metric_id: _results(values, null[metric_id], alpha, correction, bound[metric_id])
            for metric_id, values in observed.items()}


def monte_carlo(observed: Mapping[str, np.ndarray], null: Mapping[str, list[np.ndarray]], alpha: float,
                correction: str) -> dict[str, list[ShuffleP]]:
    """Monte Carlo p-values over the draws made, none added (metrics without a bound): each with its
    Clopper–Pearson interval and whether the corrected answer at α is settled (``resolved`` False where more
    draws could change it), metric -> one :class:`ShuffleP` per system."""
    return {metric_id: _results(np.asarray(values, dtype=float), null[metric_id], alpha, correction,
                                np.full(len(null[metric_id]), np.nan))
            for metric_id, values in observed.items()}


def settle_without_draws(observed: Mapping[str, np.ndarray], bounds: Mapping[str, np.ndarray], alpha: float,
                         correction: str) -> dict[str, list[ShuffleP]]:
    """The shuffle p-values that need no draw (``--bootstrap 0``), metric -> one :class:`ShuffleP` per system: a
    system keeps its bound as p (method ``bound``) when the correction rejects it with every bounded p at its
    bound and every other defined p at 1, the upper ends of what they can be (the adjusted p-values never
    decrease when an input increases, so the true ones reject it too); every other system is not tested
    (:data:`NO_DRAW_P`)."""
    from auditor.analyses.significance import adjust

    out = {}
    for metric_id, values in observed.items():
        bound = np.asarray(bounds.get(metric_id, np.full(len(values), np.nan)), dtype=float)
        values = np.asarray(values, dtype=float)
        upper = np.where(np.isnan(values), np.nan, np.where(np.isnan(bound), 1.0, bound))
        rejected = adjust(upper, correction) < alpha
        out[metric_id] = [ShuffleP(float(bound[s]), "bound", None, (0.0, float(bound[s])), True)
                          if rejected[s] and not np.isnan(bound[s]) else NO_DRAW_P for s in range(values.size)]
    return out


def _state(observed: np.ndarray, null: Sequence[np.ndarray],
           bound: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_mc_state` with each bounded system's p at its bound and its interval [0, bound]."""
    draws, p, low, high = _mc_state(observed, null)
    bounded = ~np.isnan(bound)
    return draws, np.where(bounded, bound, p), np.where(bounded, 0.0, low), np.where(bounded, bound, high)


def _results(observed: np.ndarray, null: list[np.ndarray], alpha: float, correction: str,
             bound: np.ndarray) -> list[ShuffleP]:
    draws, p, low, high = _state(observed, null, bound)
    open_ = unsettled(low, high, alpha, correction)
    return [ShuffleP(None, "monte carlo", int(draws[s])) if np.isnan(p[s]) else
            ShuffleP(float(p[s]), "bound", None, (0.0, float(p[s])), not bool(open_[s])) if not np.isnan(bound[s])
            else ShuffleP(float(p[s]), "monte carlo", int(draws[s]), (float(low[s]), float(high[s])),
                          not bool(open_[s]))
            for s in range(p.size)]


def describe(tests: Sequence[ShuffleP | None], draws: int) -> str:
    """How one metric's shuffle p-values were found, in words (the report's captions); ``draws``
    is the base number of draws, used when the p-values were not settled."""
    settled = [t for t in tests if t is not None]
    untested = sum(t.method == NOT_TESTED for t in settled)
    if untested and draws:
        found = describe([t for t in settled if t.method != NOT_TESTED], draws) if untested < len(settled) else ""
        return (f"{found}; " if found else "") + (
            f"not tested for {untested} of {len(settled)} systems, whose shuffles were not drawn: "
            "no answer depended on them (chance.method.shuffles_not_drawn)")
    if untested:
        bounded = len(settled) - untested
        return (f"no draws (--bootstrap 0): p bounded without draws for {bounded} of {len(settled)} systems "
                f"({BOUND_NAMES}), where the bound settles the corrected answer; the others not tested"
                if bounded else "no draws (--bootstrap 0) and no exact test: not tested")
    if settled and all(t.method == "exact" for t in settled):
        return "exact p-values: every shuffled table enumerated"
    bounded = sum(t.method == "bound" for t in settled)
    if settled and bounded == len(settled):
        return f"every p an upper bound found without draws ({BOUND_NAMES})"
    counts = sorted({t.draws for t in settled if t.draws}) or [draws]
    drawn = f"{counts[0]:,} draws" if len(counts) == 1 else f"{counts[0]:,}–{counts[-1]:,} draws"
    if counts[-1] > draws:
        drawn += ", as many as settle the corrected answer"
    text = f"p bounded without draws for {bounded} of {len(settled)} systems ({BOUND_NAMES}); {drawn} for the others" \
        if bounded else drawn
    open_ = sum(t.resolved is False for t in settled)
    if open_:
        text += (f"; {open_} {'answer' if open_ == 1 else 'answers'} still within Monte Carlo error after "
                 f"{counts[-1]:,} draws")
    return text
