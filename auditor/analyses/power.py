"""Exact power of the audit's accuracy test: the planner's mode 1 and the reporting statement's detectable difference.

The audit compares two systems' accuracy with the two-sided exact McNemar test
(:func:`auditor.analyses.significance.mcnemar_exact`), significant when ``p < α``. Before the
test set exists, state the hypotheses: N items, system A's accuracy ``A``, system B's
``A + D`` (D > 0), and the agreement ``G`` = share of items both get right or both get wrong.
Then, item by item independently, the discordant count is ``d ~ Binomial(N, 1 − G)`` and,
given d, B's wins (B right, A wrong) are ``W ~ Binomial(d, π)`` with
``π = p₁₀ / (1 − G) = ½ + D / (2(1 − G))`` (from ``p₁₀ − p₀₁ = D``, ``p₁₀ + p₀₁ = 1 − G``).

Given d the test rejects when ``min(W, d − W) ≤ k_d``, ``k_d`` the largest k with
``min(1, 2 P(Bin(d, ½) ≤ k)) < α`` (the very expression ``mcnemar_exact`` evaluates; −1 when
no k qualifies). So, exactly, with ``h(d) = P(W ≥ d − k_d)``:

* power ``= Σ_d P(d) h(d)`` (the test rejects **and** B wins);
* Type S ``= P(reject, A wins) / P(reject)`` (a significant result with the wrong sign);
* Type M ``= E[|Δ̂| | reject] / D`` with ``Δ̂ = (2W − d)/N`` the observed difference (the
  exaggeration ratio), using ``E[W 1{W ≥ c}] = dπ P(Bin(d − 1, π) ≥ c − 1)``;

(Gelman & Carlin 2014, abstract: Type S is the probability that a significant estimate has the
wrong sign, Type M the factor by which it exaggerates the effect; Card et al. 2020 estimate all
three by simulation in the accuracy notebook of their released code, ``compute_power``, with the
same definitions: power counts significant results of the true sign). ``P(d)`` is summed over the
d that carry all but 2e-30 of its mass (a Bernstein bound, :func:`_window`).

Items needed: h(d) jumps with the exact test's critical values, and power mixes it over
d ~ Binomial(N, 1 − G); the mixture rises smoothly in N unless nearly every item is discordant
(G near 0, d ≈ N), where the jumps show. Power is not proved monotone in N, so "the smallest N from
which on the power stays ≥ target" is proved, not assumed. ``h_low(d) = min_{d' ≥ d} h(d')``
is nondecreasing and ≤ h, so ``L(N) = E[h_low(d_N)]`` is a nondecreasing lower bound of the power
(d_N grows stochastically with N). Beyond ``d_max`` the minimum uses Hoeffding bounds:
``k_d ≥ d/2 − √(d c) − 1`` with ``c = ln(2/α)/2``, so ``h(d) ≥ b(d) = 1 − exp(−2 s²/d)`` with
``s = d(π − ½) − √(d c) − 1`` (when s > 0), and b is increasing in d. Every N ≥ N_hi (the first N
with L(N) ≥ target) is then covered by the bound; every N below N_hi down to the last failure is
checked exactly (a forward recursion of the binomial pmf in N).

References
----------
Card, Henderson, Khandelwal, Jia, Mahowald & Jurafsky (2020) "With Little Power Comes Great
Responsibility", EMNLP. Gelman & Carlin (2014) "Beyond Power Calculations: Assessing Type S
(Sign) and Type M (Magnitude) Errors", Perspect. Psychol. Sci. 9(6). McNemar (1947).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

try:  # the Boost binomial routines scipy.stats.binom calls, kept in scipy.special by recent scipy (1.17 here)
    from scipy.special._ufuncs import _binom_cdf, _binom_pmf, _binom_sf
except ImportError:  # older scipy keeps them in scipy.stats (whose import then costs its second)
    from scipy.stats._boost import _binom_cdf, _binom_sf
    from scipy.stats._boost import _binom_pdf as _binom_pmf

from auditor.errors import UsageError

#: Largest test set items_needed looks at.
MAX_ITEMS = 10**7
#: ln(1e30): the binomial mass of d left out of every sum is below 2e-30 (:func:`_window`).
TAIL_LOG = math.log(1e30)
CONSERVATIVE_NOTE = ("no --agreement given: the smallest agreement the two accuracies allow, |A + B − 1| "
                     "(the most discordant items, the conservative case)")


def normal_isf(q: float) -> float:
    """z with P(Z > z) = q for a standard normal Z: ``−ndtri(q)``, the very value ``scipy.stats.norm.isf`` gives."""
    return float(-special.ndtri(q))


# The binomial pmf, cdf and sf of ``scipy.stats.binom``, bit for bit, without importing ``scipy.stats`` (about 1 s
# of ``auditor score``'s start-up): the same Boost routines that ``binom`` calls (imported above), with
# ``rv_discrete``'s handling of counts outside the support 0..n (n >= 0 and p in [0, 1] here by construction).


def binom_pmf(x: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """P(Bin(n, p) = x); 0 outside 0..n (``scipy.stats.binom.pmf``)."""
    x, n = np.broadcast_arrays(np.asarray(x), np.asarray(n))
    inside = (x >= 0) & (x <= n)
    return np.where(inside, np.clip(_binom_pmf(np.where(inside, x, 0), n, p), 0, 1), 0.0)


def binom_cdf(x: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """P(Bin(n, p) ≤ x): 0 below 0, 1 from n on (``scipy.stats.binom.cdf``)."""
    x, n = np.broadcast_arrays(np.asarray(x), np.asarray(n))
    inside = (x >= 0) & (x < n)
    value = np.clip(_binom_cdf(np.where(inside, x, 0), n, p), 0, 1)
    return np.where(inside, value, np.where(x >= n, 1.0, 0.0))


def binom_sf(x: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """P(Bin(n, p) > x): 1 below 0, 0 from n on (``scipy.stats.binom.sf``)."""
    x, n = np.broadcast_arrays(np.asarray(x), np.asarray(n))
    inside = (x >= 0) & (x < n)
    value = np.clip(_binom_sf(np.where(inside, x, 0), n, p), 0, 1)
    return np.where(inside, value, np.where(x < 0, 1.0, 0.0))


@dataclass(frozen=True)
class Hypothesis:
    """Mode 1's inputs: N items, A's accuracy, D = B − A, agreement G (given or the smallest)."""

    items: int
    accuracy: float
    difference: float
    agreement: float
    agreement_given: bool
    alpha: float = 0.05
    target_power: float = 0.8

    @property
    def discordant(self) -> float:
        """Share of items exactly one system gets right: 1 − G."""
        return 1.0 - self.agreement

    @property
    def win_share(self) -> float:
        """π = P(B is the one right | discordant) = ½ + D / (2(1 − G))."""
        return min(1.0, 0.5 + self.difference / (2.0 * self.discordant))


@dataclass(frozen=True)
class PowerFigures:
    """Power, P(reject), Type S and Type M of one hypothesis; None with a reason when undefined."""

    power: float
    p_reject: float
    type_s: float | None
    type_m: float | None
    undefined: dict[str, str]


def agreement_range(accuracy: float, difference: float) -> tuple[float, float]:
    """Agreements two accuracies A and A + D allow: [|2A + D − 1|, 1 − |D|] (p₁₁ between
    max(0, A + B − 1) and min(A, B); G = 1 − A − B + 2p₁₁)."""
    return abs(2 * accuracy + difference - 1), 1 - abs(difference)


def _share(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value <= 1:
        raise UsageError(f"{name}: expected a share in [0, 1], found {value!r}")
    return float(value)


def hypothesis(items: Any, accuracy: Any, difference: Any, agreement: Any = None, *, alpha: Any = 0.05,
               target_power: Any = 0.8) -> Hypothesis:
    """Check mode 1's inputs (one clear :class:`UsageError` each) and fill in the agreement."""
    if isinstance(items, bool) or not isinstance(items, (int, np.integer)) or items < 1:
        raise UsageError(f"--items: expected a whole number of items >= 1, found {items!r}")
    if items > MAX_ITEMS:
        raise UsageError(f"--items: at most {MAX_ITEMS:,} items, found {items!r}")
    accuracy = _share("--accuracy", accuracy)
    difference = _share("--difference", difference)
    if difference <= 0:
        raise UsageError("--difference: expected D > 0, the accuracy of system B minus that of system A "
                         "(name the better system B); found 0")
    if accuracy + difference > 1 + 1e-12:
        raise UsageError(f"--difference: B's accuracy A + D = {accuracy + difference:g} is above 1 "
                         f"(--accuracy {accuracy:g}, --difference {difference:g})")
    alpha = _share("--alpha", alpha)
    target_power = _share("--target-power", target_power)
    if not 0 < alpha < 1 or not 0 < target_power < 1:
        raise UsageError(f"--alpha and --target-power: expected numbers strictly between 0 and 1, found "
                         f"{alpha:g} and {target_power:g}")
    low, high = agreement_range(accuracy, difference)
    if agreement is None:
        return Hypothesis(int(items), accuracy, difference, low, False, alpha, target_power)
    agreement = _share("--agreement", agreement)
    if difference > 1 - agreement + 1e-12:
        raise UsageError(f"--difference: D = {difference:g} is larger than the discordant share 1 − G = "
                         f"{1 - agreement:g} allows (B can only gain on items exactly one system gets right)")
    if not low - 1e-12 <= agreement <= high + 1e-12:
        raise UsageError(f"--agreement: accuracies {accuracy:g} and {accuracy + difference:g} allow an agreement "
                         f"from {low:g} to {high:g} (G = 1 − A − B + 2·P(both right)), found {agreement:g}")
    return Hypothesis(int(items), accuracy, difference, agreement, True, alpha, target_power)


def critical_counts(d: np.ndarray, alpha: float) -> np.ndarray:
    """``k_d``: largest k with ``min(1, 2·bdtr(k, d, ½)) < α`` for every d (−1 when none).

    Starts from the normal approximation and steps until the exact condition holds at k and
    fails at k + 1, evaluated with ``scipy.special.bdtr`` as ``mcnemar_exact`` does; only the
    entries not yet settled are evaluated again.
    """
    d = np.asarray(d, dtype=np.int64)
    z = normal_isf(alpha / 2)
    k = np.clip(np.floor(d / 2 - z * np.sqrt(d) / 2), -1, d).astype(np.int64)

    def rejects(kk: np.ndarray, dd: np.ndarray) -> np.ndarray:
        p = np.minimum(1.0, 2.0 * special.bdtr(np.maximum(kk, 0), dd, 0.5))
        return (kk >= 0) & (kk <= dd) & (p < alpha)

    todo = np.arange(d.size)
    for _ in range(10_000):
        if not todo.size:
            return k
        kk, dd = k[todo], d[todo]
        step = rejects(kk + 1, dd).astype(np.int64) - (~rejects(kk, dd) & (kk >= 0))
        k[todo] = kk + step
        todo = todo[step != 0]
    raise RuntimeError("critical_counts did not converge")  # pragma: no cover


def _window(n: int, q: float) -> np.ndarray:
    """Discordant counts d carrying all but < 2e-30 of Binomial(n, q).

    Bernstein's inequality, P(|d − nq| ≥ t) ≤ 2 exp(−t² / (2(σ² + t/3))), is below 2e-30 for
    t = L/3 + √((L/3)² + 2Lσ²), L = ln(1e30) (heavier than normal tails when nq is small are covered).
    """
    mean, variance = n * q, max(n * q * (1 - q), 0.0)
    spread = TAIL_LOG / 3 + math.sqrt((TAIL_LOG / 3) ** 2 + 2 * TAIL_LOG * variance)
    low = max(0, int(math.floor(mean - spread)))
    high = min(n, int(math.ceil(mean + spread)))
    return np.arange(low, high + 1, dtype=np.int64)


def win_given_discordant(d: np.ndarray, h: Hypothesis) -> np.ndarray:
    """``h(d)`` = P(the test rejects and B wins | d discordant items) = P(W ≥ d − k_d)."""
    k = critical_counts(d, h.alpha)
    return np.where(k >= 0, binom_sf(d - k - 1, d, h.win_share), 0.0)


def power(h: Hypothesis, items: int | None = None) -> PowerFigures:
    """Exact power, P(reject), Type S and Type M at ``items`` (default ``h.items``)."""
    n = h.items if items is None else int(items)
    d = _window(n, h.discordant)
    weight = binom_pmf(d, n, h.discordant)
    k = critical_counts(d, h.alpha)
    pi = h.win_share
    has = k >= 0
    upper = np.where(has, d - k, d + 1)  # B wins significantly when W >= upper
    p_b = np.where(has, binom_sf(upper - 1, d, pi), 0.0)
    p_a = np.where(has, binom_cdf(k, d, pi), 0.0)
    # E[W 1{W >= c}] = d π P(Bin(d − 1, π) >= c − 1); E[W 1{W <= k}] = d π P(Bin(d − 1, π) <= k − 1)
    dm1 = np.maximum(d - 1, 0)
    w_upper = np.where(has & (d > 0), d * pi * binom_sf(upper - 2, dm1, pi), 0.0)
    w_lower = np.where(has & (d > 0), d * pi * binom_cdf(k - 1, dm1, pi), 0.0)
    magnitude = (2 * w_upper - d * p_b) + (d * p_a - 2 * w_lower)  # E[|2W − d| 1{reject}] given d
    power_value = float(weight @ p_b)
    wrong = float(weight @ p_a)
    p_reject = power_value + wrong
    undefined = {}
    if p_reject > 0:
        type_s: float | None = wrong / p_reject
        type_m: float | None = float(weight @ magnitude) / n / p_reject / h.difference
    else:
        type_s = type_m = None
        undefined["type_s"] = undefined["type_m"] = (
            f"the test can never reject at N = {n} (no discordant count reaches p < {h.alpha:g}): 0/0")
    return PowerFigures(power_value, p_reject, type_s, type_m, undefined)


# ------------------------------------------------------------------ items needed


def hoeffding_floor(d: np.ndarray, h: Hypothesis) -> np.ndarray:
    """``b(d) = 1 − exp(−2 s²/d)``, ``s = d(π − ½) − √(d c) − 1``, ``c = ln(2/α)/2`` (0 where s ≤ 0):
    a lower bound of h(d), increasing in d (module docstring)."""
    d = np.asarray(d, dtype=np.float64)
    c = math.log(2 / h.alpha) / 2
    s = d * (h.win_share - 0.5) - np.sqrt(d * c) - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = 1 - np.exp(-2 * s * s / np.maximum(d, 1))
    return np.where(s > 0, bound, 0.0)


class _Envelope:
    """h(d) exactly for d ≤ top, and the nondecreasing lower bound h_low(d) of the module docstring.

    Beyond ``top`` the Hoeffding bound b(d) (increasing) stands in for h; when ``top`` is the
    largest d any N ≤ MAX_ITEMS reaches (``capped``), no tail is needed for N ≤ MAX_ITEMS and the
    bound then covers only those N.
    """

    def __init__(self, h: Hypothesis, top: int, capped: bool) -> None:
        self.h = h
        self.top = top
        self.exact = win_given_discordant(np.arange(top + 1, dtype=np.int64), h)
        self.tail = float(hoeffding_floor(np.array([top + 1]), h)[0])
        self.capped = capped and self.tail < h.target_power
        suffix_min = np.minimum.accumulate(self.exact[::-1])[::-1]
        self.low = suffix_min if self.capped else np.minimum(suffix_min, self.tail)

    def lower(self, d: np.ndarray) -> np.ndarray:
        inside = d <= self.top
        return np.where(inside, self.low[np.minimum(d, self.top)], 0.0 if self.capped else hoeffding_floor(d, self.h))

    def lower_bound(self, n: int) -> float:
        """L(n) = E[h_low(d_n)]: nondecreasing in n, at most the power at n."""
        d = _window(n, self.h.discordant)
        return float(binom_pmf(d, n, self.h.discordant) @ self.lower(d))


def _envelope(h: Hypothesis) -> _Envelope:
    """An envelope whose Hoeffding tail reaches the target, or one that covers every d that an
    N ≤ MAX_ITEMS reaches (with less than 2e-30 of its mass beyond)."""
    last = int(_window(MAX_ITEMS, h.discordant)[-1])
    z = normal_isf(h.alpha / 2) + normal_isf(1 - h.target_power)
    guess = (z / (2 * (h.win_share - 0.5))) ** 2 if h.win_share > 0.5 else float(last)
    top = int(min(last, max(1000.0, 4 * guess)))
    while True:
        envelope = _Envelope(h, top, capped=top >= last)
        if envelope.tail >= h.target_power or top >= last:
            return envelope
        top = min(last, 4 * top)


def _first_passing(predicate: Any, low: int, high: int) -> int:
    """Smallest n in [low, high] with predicate(n) (predicate nondecreasing); high + 1 if none."""
    if not predicate(high):
        return high + 1
    while low < high:
        middle = (low + high) // 2
        if predicate(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _powers(h: Hypothesis, exact: np.ndarray, first: int, last: int) -> np.ndarray:
    """Exact power at every n in [first, last] from one forward recursion of the pmf of d in n:
    P_{n+1}(d) = (1 − q) P_n(d) + q P_n(d − 1), on a window holding all but < 2e-30 of each."""
    q = h.discordant
    low, high = int(_window(first, q)[0]), int(_window(last, q)[-1])
    d = np.arange(low, high + 1)
    pmf = binom_pmf(d, first, q)
    gain = exact[low:high + 1]
    out = np.empty(last - first + 1)
    out[0] = pmf @ gain
    for index in range(1, out.size):
        pmf[1:] = (1 - q) * pmf[1:] + q * pmf[:-1]
        pmf[0] *= 1 - q
        out[index] = pmf @ gain
    return out


@dataclass(frozen=True)
class ItemsNeeded:
    """Smallest N from which on the power stays ≥ target; every N in [checked_from, checked_to] was
    computed exactly, every larger N is covered by the bound: for every N when ``proved_to`` is
    None, else up to ``proved_to``. ``items`` None with ``undefined`` saying why."""

    items: int | None
    checked_from: int | None
    checked_to: int | None
    proved_to: int | None = None
    undefined: str | None = None


def items_needed(h: Hypothesis) -> ItemsNeeded:
    """The smallest N ≤ MAX_ITEMS such that power(n) ≥ target for every n ≥ N (module docstring)."""
    target = h.target_power
    if power(h, MAX_ITEMS).power < target:
        return ItemsNeeded(None, None, None, None, f"the power at {MAX_ITEMS:,} items is below {target:g}")
    envelope = _envelope(h)
    bound_from = _first_passing(lambda n: envelope.lower_bound(n) >= target, 1, MAX_ITEMS)
    proved_to = MAX_ITEMS if envelope.capped else None
    if bound_from > MAX_ITEMS:
        return ItemsNeeded(None, None, None, proved_to, f"the power reaches {target:g} by {MAX_ITEMS:,} items, but "
                                                        f"that it stays there could not be proved within {MAX_ITEMS:,}")
    top = int(_window(bound_from, h.discordant)[-1])
    exact = envelope.exact if envelope.top >= top else win_given_discordant(np.arange(top + 1), h)
    step, start = 1, bound_from - 1  # walk down (step doubling) to an N that fails, then check every N above it
    while start >= 1 and power(h, start).power >= target:
        step *= 2
        start = max(0, bound_from - step) if start > 1 else 0
    start = max(start, 1)
    if bound_from - 1 < start:
        return ItemsNeeded(bound_from, None, None, proved_to)
    values = _powers(h, exact, start, bound_from - 1)
    failing = np.flatnonzero(values < target)
    first_ok = start + int(failing[-1]) + 1 if failing.size else start
    return ItemsNeeded(first_ok, start, bound_from - 1, proved_to)


# ------------------------------------------------------------------ detectable difference


def difference_range(h: Hypothesis) -> tuple[float, float]:
    """Differences D > 0 the hypothesis allows at A: B = A + D ≤ 1, and with a given agreement G
    also D ≤ 1 − G and |2A + D − 1| ≤ G."""
    high = 1 - h.accuracy
    low = 0.0
    if h.agreement_given:
        g = h.agreement
        high = min(high, 1 - g, 1 + g - 2 * h.accuracy)
        low = max(low, 1 - g - 2 * h.accuracy)
    return low, high


def with_difference(h: Hypothesis, difference: float) -> Hypothesis:
    """``h`` with D replaced (the agreement kept when given, else the smallest allowed again)."""
    agreement = h.agreement if h.agreement_given else agreement_range(h.accuracy, difference)[0]
    return Hypothesis(h.items, h.accuracy, difference, agreement, h.agreement_given, h.alpha, h.target_power)


@dataclass(frozen=True)
class Detectable:
    """Smallest D reaching the target power at N (to ``tolerance``); None with ``undefined``."""

    difference: float | None
    tolerance: float
    method: str
    undefined: str | None = None


GRID = 256
TOLERANCE = 1e-6


def detectable_difference(h: Hypothesis) -> Detectable:
    """Smallest D in the allowed range with power(D) ≥ target at N = ``h.items``.

    With a given agreement, power grows with D (π grows, and W given d grows stochastically with
    π), so bisection finds it. With the smallest agreement (which changes with D) monotonicity is
    not guaranteed: a grid of ``GRID`` differences finds the first that passes, and bisection refines
    it between that grid point and the one before.
    """
    low, high = difference_range(h)
    if high <= low:
        return Detectable(None, TOLERANCE, "", f"no D > 0 fits A = {h.accuracy:g} with G = {h.agreement:g}")

    def passes(difference: float) -> bool:
        return power(with_difference(h, difference)).power >= h.target_power

    if h.agreement_given:
        method = "bisection (power grows with D at a fixed agreement)"
        below, above = low, high
        if not passes(above):
            return Detectable(None, TOLERANCE, method, f"even D = {high:g}, the largest allowed, has power below "
                                                       f"{h.target_power:g} at N = {h.items}")
    else:
        method = f"first of {GRID} equally spaced D that passes, refined by bisection"
        grid = low + (high - low) * np.arange(1, GRID + 1) / GRID
        first = next((i for i, value in enumerate(grid) if passes(float(value))), None)
        if first is None:
            return Detectable(None, TOLERANCE, method, f"no D up to {high:g} reaches power {h.target_power:g} "
                                                       f"at N = {h.items}")
        below, above = (low if first == 0 else float(grid[first - 1])), float(grid[first])
    while above - below > TOLERANCE:
        middle = (below + above) / 2
        if passes(middle):
            above = middle
        else:
            below = middle
    return Detectable(above, TOLERANCE, method)
