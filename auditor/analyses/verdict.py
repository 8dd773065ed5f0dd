"""The verdict: who leads under each key metric, and does the winner depend on the metric?

Last analysis stage: it reads the audit JSON the other stages wrote (metric values, the
statistics' best sets and pairwise tests, the recommendation, the profile) and adds a
``verdict`` section.

* ``leaders[m]`` is the *best set* of key metric ``m``: the top system and every system
  whose primary test against it (exact McNemar for accuracy, approximate randomisation
  otherwise; adjusted over the S − 1 comparisons with the top system) has p ≥ α — the
  systems not significantly worse than the top one (``auditor.analyses.significance``). Without the
  statistics stage (``--bootstrap 0``) it is the systems sharing the top value.
* ``winner_depends_on_metric`` is true only when the best sets of two key metrics share no
  system: a different top value inside overlapping best sets is not a metric-dependent
  winner (Dror et al. 2018 on reporting significance with the ranking).
* ``order`` ranks the systems by the primary metric (the recommendation's, else the first
  key metric), undefined values last; every table of the report follows it.
* ``groups`` splits that order into significance groups: group 1 is the best set; group 2
  is the best set of the systems outside group 1 (their top system and every one whose
  pairwise test against it, adjusted over all pairs, has p ≥ α), and so on. Groups stop
  where a pair was not tested (more systems than the statistics test pairwise).
* ``ties``: systems with exactly the same value of a key metric.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Mapping, Sequence

#: Metrics the verdict weighs, when present (the recommendation's primary metric comes first).
KEY_METRICS = ("accuracy", "macro_f1", "macro_f1_hm", "macro_recall", "mcc", "informedness")
_EPSILON = 1e-12


@dataclass
class Verdict:
    """Leaders (best sets) per key metric, whether the winner depends on the metric, and why."""

    primary: str
    key_metrics: list[str]
    leaders: dict[str, list[str]]
    tested: bool
    winner_depends_on_metric: bool
    disjoint: list[tuple[str, str]]
    order: list[str]
    groups: list[list[str]]
    ties: dict[str, list[list[str]]]
    identical: list[list[str]] = field(default_factory=list)
    text: str = ""

    def add_to_json(self, document: dict[str, Any]) -> None:
        document["verdict"] = {
            "primary": self.primary,
            "key_metrics": self.key_metrics,
            "leaders": self.leaders,
            "significance": self.tested,
            "winner_depends_on_metric": self.winner_depends_on_metric,
            "disjoint_best_sets": [list(pair) for pair in self.disjoint],
            "order": self.order,
            "groups": self.groups,
            "ties": self.ties,
            "text": self.text,
        }


def analyse(result: Any) -> Verdict:
    """The verdict of an :class:`~auditor.pipeline.Audit` whose other analyses have run."""
    return from_document(result.to_json(), {metric.id: metric.label for metric in result.metrics})


def _values(document: Mapping[str, Any], metric_id: str) -> dict[str, float | None]:
    return {name: (system["metrics"].get(metric_id) or {}).get("value")
            for name, system in document["systems"].items()}


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


def _ties(values: Mapping[str, float | None], order: Sequence[str]) -> list[list[str]]:
    groups: list[list[str]] = []
    for name in order:
        value = values[name]
        if value is None:
            continue
        if groups and abs(values[groups[-1][0]] - value) <= _EPSILON:  # type: ignore[operator]
            groups[-1].append(name)
        else:
            groups.append([name])
    return [g for g in groups if len(g) > 1]


def primary_metric(document: Mapping[str, Any], present: Sequence[str]) -> str:
    """The recommendation's primary metric when there is one, else the first key metric present."""
    recommended = (document.get("recommendation") or {}).get("metrics") or []
    for entry in recommended:
        if entry.get("role") == "primary" and entry.get("id") in present:
            return entry["id"]
    for metric_id in KEY_METRICS:
        if metric_id in present:
            return metric_id
    return present[0]


def _pair_p(document: Mapping[str, Any], metric_id: str, method: str) -> dict[frozenset[str], float | None]:
    found: dict[frozenset[str], float | None] = {}
    for test in document.get("tests") or []:
        if test.get("metric") == metric_id and test.get("method") == method:
            found[frozenset((test["a"], test["b"]))] = test.get("p_adjusted")
    return found


def significance_groups(document: Mapping[str, Any], metric_id: str, order: Sequence[str]) -> list[list[str]]:
    """Group 1 = the metric's best set; each later group = the best set of the systems left.

    Later groups use the pairwise tests of the best set's method (adjusted over all pairs) and
    stop where a pair was not tested. Empty without a best set.
    """
    best = (document.get("best_set") or {}).get(metric_id)
    if not best:
        return []
    values = _values(document, metric_id)
    first = [s for s in order if s in set(best.get("systems", []))]
    groups = [first]
    alpha = float(best.get("alpha", (document.get("statistics") or {}).get("alpha", 0.05)))
    p_values = _pair_p(document, metric_id, best.get("test", ""))
    left = [s for s in order if s not in first and values.get(s) is not None]
    while left:
        top, members = left[0], [left[0]]
        for other in left[1:]:
            p = p_values.get(frozenset((top, other)), "missing")
            if p == "missing":
                return groups
            if p is None or p >= alpha:
                members.append(other)
        groups.append(members)
        left = [s for s in left if s not in members]
    return groups


def from_document(document: Mapping[str, Any], short: Mapping[str, str] | None = None) -> Verdict:
    """The verdict of an audit JSON ``document`` (see the module docstring).

    ``short`` maps metric ids to the names used in the text (default: the ids).
    """
    systems = list(document["systems"])
    present = list(document["systems"][systems[0]]["metrics"]) if systems else []
    primary = primary_metric(document, present)
    best_sets = document.get("best_set") or {}
    tested = bool(best_sets)
    keys = [m for m in KEY_METRICS if m in present and (not tested or m in best_sets)]
    if primary not in keys:
        keys.insert(0, primary)
    else:
        keys.remove(primary)
        keys.insert(0, primary)
    leaders: dict[str, list[str]] = {}
    ties: dict[str, list[list[str]]] = {}
    for metric_id in keys:
        values = _values(document, metric_id)
        order_m = ordered(values)
        if metric_id in best_sets:
            members = set(best_sets[metric_id].get("systems", []))
            leaders[metric_id] = [s for s in order_m if s in members]
        else:
            leaders[metric_id] = _top_systems(values)
        found = _ties(values, order_m)
        if found:
            ties[metric_id] = found
    leaders = {m: v for m, v in leaders.items() if v}
    disjoint = [(a, b) for a, b in combinations(leaders, 2) if not set(leaders[a]) & set(leaders[b])]
    order = ordered(_values(document, primary))
    groups = significance_groups(document, primary, order)
    identical = [list(g) for g in ((document.get("profile") or {}).get("identical_systems") or [])]
    verdict = Verdict(primary, keys, leaders, tested, bool(disjoint), disjoint, order, groups, ties, identical)
    verdict.text = _text(verdict, document, short or {})
    return verdict


def _join(names: Sequence[str]) -> str:
    return ", ".join(names)


def _text(v: Verdict, document: Mapping[str, Any], short: Mapping[str, str]) -> str:
    """One paragraph: the answer, the reason, and the caveats (no tests, ties, identical systems)."""
    name = lambda m: short.get(m, m)  # noqa: E731
    if len(document["systems"]) < 2:
        return "One system: nothing to compare."
    sets = "best set" if v.tested else "top value"
    if v.disjoint:
        a, b = v.disjoint[0]
        text = (f"Yes: the {sets}s of {name(a)} ({_join(v.leaders[a])}) and {name(b)} ({_join(v.leaders[b])}) "
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
            tops.setdefault(ordered(_values(document, metric_id))[0], []).append(name(metric_id))
        if len(tops) > 1 and v.tested:
            text += (" The top value differs ("
                     + "; ".join(f"{system} under {_join(metrics)}" for system, metrics in tops.items())
                     + "), but not significantly.")
    if not v.tested and (document.get("statistics") or {}).get("pairwise_tests_unavailable"):
        text += (" No significance tests: only confusion matrices were given, so items cannot be paired across "
                 "systems; leaders are the systems with the top value.")
    elif not v.tested:
        text += " No significance tests ran (--bootstrap 0), so leaders are the systems with the top value."
    identical = {frozenset(group) for group in v.identical}
    tied: dict[tuple[str, ...], list[str]] = {}
    for metric_id, groups in v.ties.items():
        for group in groups:
            if frozenset(group) not in identical:
                tied.setdefault(tuple(group), []).append(name(metric_id))
    for group, metrics in tied.items():
        text += f" Tied under {_join(metrics)}: {' = '.join(group)}."
    for group in v.identical:
        text += f" Identical predictions: {' = '.join(group)}."
    return text
