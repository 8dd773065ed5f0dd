"""Pair tests, the correction over a family of them, and best sets: the one rule behind every "significantly", bold
cell and best set of every task kind (docs/architecture.md, "One rule for significance").

* A **pair test** (:class:`PairTest`) of systems a and b under one metric: ``difference = m(a) − m(b)``, its p and,
  once its family is adjusted, ``p_adjusted``; the exact McNemar test (:func:`mcnemar_exact`) for a per-unit
  right/wrong share (accuracy), approximate randomisation (:mod:`auditor.analyses.units`, or classification's
  pattern-count fast path :mod:`auditor.analyses.randomisation`) otherwise.
* A **family** is every pair tested under one metric by one method; its p-values are adjusted together with Holm's
  step-down (:func:`holm`, Holm 1979) or Benjamini–Hochberg (:func:`benjamini_hochberg`, Benjamini & Hochberg 1995):
  :func:`adjust_families`.
* The **best set** of a metric (:func:`best_sets`): the top system and every system whose test against it, adjusted
  over the S − 1 comparisons with the top system, has p ≥ α.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from auditor.errors import UsageError
from auditor.formatting import nan_to_none
from auditor.options import CORRECTIONS

RANDOMISATION = "approximate_randomisation"
MCNEMAR = "mcnemar_exact"


# ------------------------------------------------------------------ p-value adjustment


def _adjust_sorted(p: Sequence[float], step: Callable[[np.ndarray, int], np.ndarray]) -> np.ndarray:
    """Apply ``step(sorted p, m)`` to the non-NaN entries of ``p`` in ascending order and put the
    adjusted values back in place; NaN entries are left out of the family and stay NaN."""
    p = np.asarray(p, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    if m:
        order = valid[np.argsort(p[valid], kind="stable")]
        adjusted[order] = step(p[order], m)
    return adjusted


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values: ``max_{j ≤ i} min(1, (m − j + 1) p_(j))``.

    NaN entries are left out of the family and stay NaN.
    """
    return _adjust_sorted(p, lambda ordered, m: np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ordered)))


def benjamini_hochberg(p: Sequence[float]) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values: ``min_{j ≥ i} min(1, m p_(j) / j)``.

    NaN entries are left out of the family and stay NaN.
    """
    return _adjust_sorted(
        p, lambda ordered, m: np.minimum.accumulate(np.minimum(1.0, m * ordered / np.arange(1, m + 1))[::-1])[::-1])


def adjust(p: Sequence[float], correction: str) -> np.ndarray:
    """Adjust ``p`` over one family with ``holm`` or ``bh`` (Benjamini–Hochberg)."""
    if correction == "holm":
        return holm(p)
    if correction == "bh":
        return benjamini_hochberg(p)
    raise UsageError(f"correction must be one of {', '.join(CORRECTIONS)}; found {correction!r}")


def adjust_families(tests: Sequence["PairTest"], correction: str) -> list["PairTest"]:
    """``tests`` with ``p_adjusted`` set, each (metric, method) family adjusted on its own with ``correction``: the
    one correction step of every task kind (docs/architecture.md, "One rule for significance")."""
    out = list(tests)
    for family in dict.fromkeys((test.metric, test.method) for test in tests):
        members = [i for i, test in enumerate(tests) if (test.metric, test.method) == family]
        for i, value in zip(members, adjust([tests[i].p for i in members], correction)):
            out[i] = replace(tests[i], p_adjusted=float(value))
    return out


def mcnemar_exact(n01: int, n10: int) -> float:
    """Exact two-sided McNemar p-value ``min(1, 2 P(X ≤ min(n01, n10)))``, X ~ Bin(n01 + n10, ½)."""
    from scipy.special import bdtr  # the binomial CDF (what scipy.stats.binom.cdf calls)

    n = int(n01) + int(n10)
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * bdtr(min(int(n01), int(n10)), n, 0.5)))


@dataclass(frozen=True)
class PairTest:
    """One test of ``a`` against ``b`` on ``metric``; ``difference = m(a) − m(b)``; ``p_adjusted``
    over the metric's family; ``details`` the method's own figures (rounds, or n01 and n10)."""

    a: str
    b: str
    metric: str
    method: str
    difference: float
    p: float
    p_adjusted: float = float("nan")
    details: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "metric": self.metric, "method": self.method,
                "difference": nan_to_none(self.difference), "p": nan_to_none(self.p),
                "p_adjusted": nan_to_none(self.p_adjusted), **dict(self.details)}


@dataclass(frozen=True)
class BestSet:
    """The systems not significantly worse than the ``top`` system under one metric: ``top``
    and every system whose ``test`` against it has ``p_adjusted`` ≥ ``alpha`` (adjusted over
    the S − 1 comparisons with the top system)."""

    top: str
    systems: tuple[str, ...]
    test: str
    alpha: float
    p_adjusted: Mapping[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"top": self.top, "systems": list(self.systems), "test": self.test, "alpha": self.alpha,
                "p_adjusted": {name: nan_to_none(p) for name, p in self.p_adjusted.items()}}


def primary_method(metric: str) -> str:
    return MCNEMAR if metric == "accuracy" else RANDOMISATION


def significance_lookup(tests: Sequence[PairTest], alpha: float, method_of: Callable[[str], str] | None = None
                        ) -> Callable[[str, str, str], bool | None]:
    """(a, b, metric) -> whether the metric's test (``method_of(metric)``, default :func:`primary_method`; tests by
    other methods, such as sacrebleu's paired bootstrap, are not read) has adjusted p < ``alpha``; None where the
    pair was not tested or its p is undefined. What rank disagreement calls "significant", in every task kind."""
    method_of = method_of or primary_method
    verdicts: dict[tuple[str, str, str], bool | None] = {}
    for test in tests:
        if test.method != method_of(test.metric):
            continue
        p = test.p_adjusted
        verdict = None if p is None or np.isnan(p) else bool(p < alpha)
        verdicts[(test.a, test.b, test.metric)] = verdicts[(test.b, test.a, test.metric)] = verdict
    return lambda a, b, metric: verdicts.get((a, b, metric))


def best_sets(tests: Sequence[PairTest], observed: Mapping[str, np.ndarray], systems: Sequence[str],
              chosen: Sequence[str], correction: str, alpha: float,
              method_of: Callable[[str], str] | None = None) -> dict[str, BestSet]:
    """Per metric of ``chosen``: the top system (highest ``observed`` value, oriented: an error negated) and those
    not significantly worse
    under the metric's test (``method_of(metric)``, default :func:`primary_method`), its p-values against the top
    adjusted over the S − 1 comparisons with it. Every task kind's best sets, and so its bold, come from here
    (docs/architecture.md, "One rule for significance")."""
    systems = tuple(systems)
    best_set = {}
    for metric_id in chosen:
        top = top_system(observed[metric_id])
        if top is None:
            continue
        method = (method_of or primary_method)(metric_id)
        against = {}
        for test in tests:
            if test.metric == metric_id and test.method == method and systems[top] in (test.a, test.b):
                against[test.b if test.a == systems[top] else test.a] = test.p
        names = list(against)
        adjusted = dict(zip(names, (float(x) for x in adjust([against[n] for n in names], correction))))
        members = [systems[top]] + [
            name for name in systems
            if name in adjusted and not adjusted[name] < alpha
            and not np.isnan(observed[metric_id][systems.index(name)])
        ]
        best_set[metric_id] = BestSet(systems[top], tuple(members), method, alpha, adjusted)
    return best_set


def top_system(values: np.ndarray) -> int | None:
    values = np.asarray(values, dtype=float)
    if np.isnan(values).all():
        return None
    return int(np.nanargmax(values))
