"""The verdict: who leads under each key metric, and does the winner depend on the metric?

Stage "analyse": a function of the key metrics' values, the statistics' best sets and
pairwise tests (None without ``--bootstrap``), the recommendation's primary metric and the
profile's identical systems.

* ``leaders[m]`` is the *best set* of key metric ``m``: the top system and every system
  whose primary test against it (exact McNemar for accuracy, approximate randomisation
  otherwise; adjusted over the S − 1 comparisons with the top system) has p ≥ α — the
  systems not significantly worse than the top one (``auditor.analyses.significance``). Without the
  statistics stage (``--bootstrap 0``) it is the systems sharing the top value.
* ``winner_depends_on_metric`` is true only when the best sets of two key metrics share no
  system: a different top value inside overlapping best sets is not a metric-dependent
  winner (Dror et al. 2018 on reporting significance with the ranking). Without tests it is
  false and the text says "Not tested" where the top values differ (``significance``: false).
* ``order`` ranks the systems by the primary metric (the recommendation's, else the first
  key metric), undefined values last; every table of the report follows it.
* ``groups`` splits that order into significance groups: group 1 is the best set; group 2
  is the best set of the systems outside group 1 (their top system and every one whose
  pairwise test against it, adjusted over all pairs, has p ≥ α), and so on. Groups stop
  where a pair was not tested (more systems than the statistics test pairwise).
* ``ties``: systems with exactly the same value of a key metric.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from auditor.formatting import nan_to_none
from auditor.metrics.selections import KEY_METRICS  # weighed when present; the recommendation's primary first

if TYPE_CHECKING:  # the significance module loads scipy; the verdict needs only its types
    from auditor.analyses.profile import DataProfile
    from auditor.analyses.recommend import Recommendation
    from auditor.analyses.significance import BestSet, PairTest, Statistics
    from auditor.metrics.registry import Metric

_EPSILON = 1e-12


@dataclass(frozen=True)
class Verdict:
    """Leaders (best sets) per key metric, whether the winner depends on the metric, and why."""

    primary: str
    key_metrics: tuple[str, ...]
    leaders: Mapping[str, tuple[str, ...]]
    tested: bool
    winner_depends_on_metric: bool
    disjoint: tuple[tuple[str, str], ...]
    order: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    ties: Mapping[str, tuple[tuple[str, ...], ...]]
    identical: tuple[tuple[str, ...], ...] = ()
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"verdict": {
            "primary": self.primary,
            "key_metrics": list(self.key_metrics),
            "leaders": {metric_id: list(systems) for metric_id, systems in self.leaders.items()},
            "significance": self.tested,
            "winner_depends_on_metric": self.winner_depends_on_metric,
            "disjoint_best_sets": [list(pair) for pair in self.disjoint],
            "order": list(self.order),
            "groups": [list(group) for group in self.groups],
            "ties": {metric_id: [list(group) for group in groups] for metric_id, groups in self.ties.items()},
            "identical_systems": [list(group) for group in self.identical],
            "text": self.text,
        }}


@dataclass(frozen=True)
class Tested:
    """What :func:`decide` reads of a task's significance: its best sets and pairwise tests (classification
    passes its :class:`~auditor.analyses.significance.Statistics`, which has the same fields)."""

    best_set: Mapping[str, BestSet]
    tests: Sequence[PairTest] = ()
    pairwise_unavailable: str | None = None


def _top_systems(values: Mapping[str, float | None]) -> list[str]:
    defined = {s: v for s, v in values.items() if v is not None}
    if not defined:
        return []
    top = max(defined.values())
    return [s for s, v in defined.items() if v >= top - _EPSILON]


def ordered(values: Mapping[str, float | None]) -> list[str]:
    """Systems by value, best first; undefined last; equal values keep their input order."""
    names = list(values)
    return sorted(names, key=lambda s: (values[s] is None, -(values[s] or 0.0), names.index(s)))


def _ties(values: Mapping[str, float | None], order: Sequence[str]) -> list[tuple[str, ...]]:
    groups: list[list[str]] = []
    for name in order:
        value = values[name]
        if value is None:
            continue
        if groups and abs(values[groups[-1][0]] - value) <= _EPSILON:  # type: ignore[operator]
            groups[-1].append(name)
        else:
            groups.append([name])
    return [tuple(g) for g in groups if len(g) > 1]


def primary_metric(recommended: str | None, present: Sequence[str], key_metrics: Sequence[str] = KEY_METRICS) -> str:
    """The recommendation's primary metric when there is one, else the first key metric present."""
    if recommended in present:
        return recommended  # type: ignore[return-value]
    for metric_id in key_metrics:
        if metric_id in present:
            return metric_id
    return present[0]


def _pair_p(tests: Sequence[PairTest], metric_id: str, method: str) -> dict[frozenset[str], float | None]:
    return {frozenset((test.a, test.b)): nan_to_none(test.p_adjusted)
            for test in tests if test.metric == metric_id and test.method == method}


def significance_groups(metric_id: str, values: Mapping[str, float | None], best: BestSet | None,
                        tests: Sequence[PairTest], order: Sequence[str]) -> list[tuple[str, ...]]:
    """Group 1 = the metric's best set; each later group = the best set of the systems left.

    ``values``: system -> the value of metric ``metric_id``. Later groups use the pairwise ``tests`` of the
    best set's method (adjusted over all pairs) and stop where a pair was not tested. Empty
    without a best set.
    """
    if best is None:
        return []
    first = [s for s in order if s in set(best.systems)]
    groups = [tuple(first)]
    p_values = _pair_p(tests, metric_id, best.test)
    left = [s for s in order if s not in first and values.get(s) is not None]
    while left:
        top, members = left[0], [left[0]]
        for other in left[1:]:
            p = p_values.get(frozenset((top, other)), "missing")
            if p == "missing":
                return groups
            if p is None or p >= best.alpha:
                members.append(other)
        groups.append(tuple(members))
        left = [s for s in left if s not in members]
    return groups


def analyse(metrics: Sequence[Metric], values: Mapping[str, Mapping[str, float | None]],
            statistics: Statistics | None, recommendation: Recommendation | None, profile: DataProfile,
            key_metrics: Sequence[str] | None = None) -> Verdict:
    """The verdict of the audit: :func:`decide` on every scalar metric's ``values`` (system -> metric
    id -> value; an error negated, so that higher is better), the statistics' best sets, the recommendation's
    primary metric (a task's own ``key_metrics``: the first of them unless the primary is one) and the profile's
    identical systems; the text names metrics by their short labels."""
    scalar = [metric for metric in metrics if not metric.per_class]
    by_metric = {metric.id: {name: None if system[metric.id] is None else
                             system[metric.id] if metric.higher_is_better else -system[metric.id]
                             for name, system in values.items()} for metric in scalar}
    primary = next((entry.id for entry in (recommendation.metrics if recommendation is not None else ())
                    if entry.role == "primary"), None)
    if key_metrics is not None and primary not in key_metrics:
        primary = None
    return decide(by_metric, statistics, primary, profile.identical_systems,
                  {metric.id: metric.label for metric in metrics}, KEY_METRICS if key_metrics is None else key_metrics)


def decide(values: Mapping[str, Mapping[str, float | None]], statistics: Statistics | Tested | None,
           recommended: str | None = None, identical: Sequence[Sequence[str]] = (),
           short: Mapping[str, str] | None = None, key_metrics: Sequence[str] = KEY_METRICS) -> Verdict:
    """The verdict (see the module docstring).

    ``values``: metric id -> system -> value (None = undefined), systems in input order, for
    the key metrics at least; ``statistics``: the statistics stage's result, None when it did
    not run; ``recommended``: the recommendation's primary metric, if any; ``identical``: the
    groups of systems with identical predictions (:attr:`DataProfile.identical_systems`);
    ``short`` maps metric ids to the names used in the text (default: the ids); ``key_metrics``: a task's own
    key metrics (default: classification's), each oriented so that higher is better.
    """
    present = list(values)
    systems = list(values[present[0]]) if present else []
    primary = primary_metric(recommended, present, key_metrics)
    best_sets: Mapping[str, BestSet] = statistics.best_set if statistics is not None else {}
    tests: Sequence[PairTest] = statistics.tests if statistics is not None else ()
    tested = bool(best_sets)
    keys = [m for m in key_metrics if m in present and (not tested or m in best_sets)]
    if primary in keys:
        keys.remove(primary)
    keys.insert(0, primary)
    leaders: dict[str, tuple[str, ...]] = {}
    ties: dict[str, tuple[tuple[str, ...], ...]] = {}
    for metric_id in keys:
        order_m = ordered(values[metric_id])
        if tested and metric_id not in best_sets:  # e.g. --bootstrap 0: only the exact tests ran
            continue
        if metric_id in best_sets:
            members = set(best_sets[metric_id].systems)
            leaders[metric_id] = tuple(s for s in order_m if s in members)
        else:
            leaders[metric_id] = tuple(_top_systems(values[metric_id]))
        found = _ties(values[metric_id], order_m)
        if found:
            ties[metric_id] = tuple(found)
    leaders = {m: v for m, v in leaders.items() if v}
    disjoint = tuple((a, b) for a, b in combinations(leaders, 2) if not set(leaders[a]) & set(leaders[b]))
    order = ordered(values[primary])
    groups = significance_groups(primary, values[primary], best_sets.get(primary), tests, order)
    unpaired = statistics is not None and statistics.pairwise_unavailable is not None
    verdict = Verdict(primary, tuple(keys), leaders, tested, tested and bool(disjoint), disjoint, tuple(order),
                      tuple(groups), ties, tuple(tuple(g) for g in identical))
    return replace(verdict, text=_text(verdict, values, len(systems), unpaired, short or {}))


def _join(names: Sequence[str]) -> str:
    return ", ".join(names)


def _text(v: Verdict, values: Mapping[str, Mapping[str, float | None]], n_systems: int, unpaired: bool,
          short: Mapping[str, str]) -> str:
    """One paragraph: the answer, the reason, and the caveats (no tests, ties, identical systems)."""
    name = lambda m: short.get(m, m)  # noqa: E731
    if n_systems < 2:
        return "One system: nothing to compare."
    sets = "best set" if v.tested else "top value"
    if v.disjoint and not v.tested:  # point estimates alone never answer "yes" (docs/architecture.md)
        a, b = v.disjoint[0]
        text = (f"Not tested: the top values of {name(a)} ({_join(v.leaders[a])}) and {name(b)} "
                f"({_join(v.leaders[b])}) differ")
        if len(v.disjoint) > 1:
            text += f" ({len(v.disjoint)} such pairs of key metrics)"
        text += ", but whether any difference is more than sampling noise needs a test."
    elif v.disjoint:
        a, b = v.disjoint[0]
        text = (f"Yes: the best sets of {name(a)} ({_join(v.leaders[a])}) and {name(b)} ({_join(v.leaders[b])}) "
                "share no system")
        if len(v.disjoint) > 1:
            text += f" ({len(v.disjoint)} such pairs of key metrics)"
        text += "."
    else:
        common = [s for s in v.order if all(s in members for members in v.leaders.values())]
        if common:
            text = (f"No: {_join(common)} {'is' if len(common) == 1 else 'are'} in the {sets} of every key metric "
                    f"({_join(name(m) for m in v.leaders)}).")
        else:
            text = "No: the best sets of every two key metrics overlap, though no one system is in all of them."
        tops: dict[str, list[str]] = {}
        for metric_id in v.leaders:
            tops.setdefault(ordered(values[metric_id])[0], []).append(name(metric_id))
        if len(tops) > 1 and v.tested:
            lead = (f"{_join(common)} {'is' if len(common) == 1 else 'are'} not significantly worse than the top "
                    "system under any of them" if common else "the best sets overlap")
            text += (" The top value differs ("
                     + "; ".join(f"{system} under {_join(metrics)}" for system, metrics in tops.items())
                     + f"), but {lead}.")
    untested = [m for m in v.key_metrics if v.tested and m not in v.leaders]
    if untested:
        text += (f" {_join(name(m) for m in untested)}: no test ran (--bootstrap 0 runs only the exact tests), so "
                 f"{'it is' if len(untested) == 1 else 'they are'} left out.")
    if not v.tested and unpaired:
        text += (" No significance tests: only confusion matrices were given, so items cannot be paired across "
                 "systems; leaders are the systems with the top value.")
    elif not v.tested:
        text += " No significance tests ran (--bootstrap 0), so leaders are the systems with the top value."
    identical = {frozenset(group) for group in v.identical}
    tied: dict[tuple[str, ...], list[str]] = {}
    for metric_id, groups in v.ties.items():
        top = v.leaders.get(metric_id, ())[:1]
        for group in groups:  # only a tie for the top value matters to the verdict (every tie is in the JSON)
            if frozenset(group) not in identical and set(top) & set(group):
                tied.setdefault(tuple(group), []).append(name(metric_id))
    for group, metrics in tied.items():
        text += f" Tied under {_join(metrics)}: {' = '.join(group)}."
    for group in v.identical:
        text += f" Identical predictions: {' = '.join(group)}."
    return text
