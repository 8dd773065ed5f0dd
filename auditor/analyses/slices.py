"""Slices: every metric of every system within each group of items (``--slices FILE``).

An organiser often holds a grouping of the test items — question types, domains, sources.
Vickers et al. (sources/vickers-monti-classification-metrics-nlp.md, §5.1 GQA and §5.2
KVQA) score one model per question type ("accuracy grouped by question type in Table 3")
and show that the metric decides which sub-task looks strong: intra-dataset comparison is
where prevalence-sensitive metrics mislead. This module gives that table for every system;
the groups are read and aligned to the gold items by :mod:`auditor.io.slices`.

Counts first: one ``np.bincount`` of ``((s·G + g)·k + gold)·k + pred`` over all systems and
items gives ``C[g, s, i, j]``, the confusion tensor of every slice; every metric is then a
function of it (:func:`auditor.metrics.catalogue.describe`), with the full audit's label set (a class
absent from a slice's gold and predictions drops out of its macro averages, as it would if
the slice's files were audited on their own; with ``--labels`` every label stays).

``leaders`` of a slice, per key metric: the systems with the top value in that slice (every
system within 1e-12 of it: ties are all leaders; undefined values never lead). They are
top values, not best sets: no significance test is run within a slice.

Small slices: a slice of fewer than :data:`MIN_ITEMS` items is flagged as too small to rank.
The threshold is ours (issue 13), not the paper's: Vickers et al. §5.1 note that "for the
questions with many samples ('relO', 'exist', and 'existRel'), all metrics have low
variance", while their smallest type, 'dir', has 46 samples; they give no threshold.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from auditor.io.counts import Counts
from auditor.io.source import Source
from auditor.metrics.catalogue import MetricValue, describe
from auditor.metrics.registry import Metric

if TYPE_CHECKING:
    from auditor.analyses.verdict import Verdict
    from auditor.io.slices import SliceGroups

__all__ = ["MIN_ITEMS", "SliceAnalysis", "slice_confusion", "slice_table", "analyse"]

#: Slices with fewer items are flagged "too small to rank" (see the module docstring).
MIN_ITEMS = 50
_EPSILON = 1e-12


def slice_confusion(groups: np.ndarray, gold: np.ndarray, predictions: np.ndarray, n_groups: int, k: int,
                    weights: np.ndarray | None = None) -> np.ndarray:
    """``C[g, s, i, j]``: items of group g and gold class i that system s predicted as j.

    One ``np.bincount`` over the (S, N) keys ``((s·G + g)·k + gold)·k + pred``; no loop over
    items or systems. ``weights`` (N,): the items each column stands for (rows of a pattern
    table, :mod:`auditor.engines`); default one each.
    """
    predictions = np.asarray(predictions, dtype=np.int64)
    n_systems = predictions.shape[0]
    base = (np.asarray(groups, dtype=np.int64) * k + np.asarray(gold, dtype=np.int64)) * k
    keys = (np.arange(n_systems, dtype=np.int64)[:, None] * (n_groups * k * k) + base[None, :] + predictions)
    if weights is None:
        counted = np.bincount(keys.ravel(), minlength=n_systems * n_groups * k * k)
    else:
        spread = np.broadcast_to(np.asarray(weights, dtype=np.float64), keys.shape).ravel()
        counted = np.rint(np.bincount(keys.ravel(), weights=spread, minlength=n_systems * n_groups * k * k)
                          ).astype(np.int64)
    return counted.reshape(n_systems, n_groups, k, k).transpose(1, 0, 2, 3)


def _leaders(values: Mapping[str, MetricValue]) -> tuple[str, ...]:
    defined = {s: v.value for s, v in values.items() if v.value is not None}
    if not defined:
        return ()
    top = max(defined.values())
    return tuple(s for s, v in defined.items() if v >= top - _EPSILON)


#: How ``leaders`` are chosen (written beside them in the JSON).
LEADERS_RULE = ("systems with the top value in the slice (ties within 1e-12 all lead; undefined never leads); no "
                "significance test within a slice")


@dataclass(frozen=True)
class SliceAnalysis:
    """Metrics per slice and system, the leaders per key metric, and small slices."""

    groups: tuple[str, ...]
    n_items: Mapping[str, int]
    #: Group -> system -> metric id -> value.
    values: Mapping[str, Mapping[str, Mapping[str, MetricValue]]]
    key_metrics: tuple[str, ...]
    #: Group -> key metric -> the systems with the top value (:data:`LEADERS_RULE`).
    leaders: Mapping[str, Mapping[str, tuple[str, ...]]]
    #: Key metric -> the leaders over all items.
    overall_leaders: Mapping[str, tuple[str, ...]]
    #: The slices' source: path, sha256, n_items.
    source: Source

    @property
    def small(self) -> tuple[str, ...]:
        """Slices of fewer than :data:`MIN_ITEMS` items: too small to rank."""
        return tuple(g for g in self.groups if self.n_items[g] < MIN_ITEMS)

    def winner_changes(self) -> dict[str, bool]:
        """Per key metric: True when two slices (of at least MIN_ITEMS items) have disjoint leaders."""
        changes = {}
        for metric_id in self.key_metrics:
            sets = [set(self.leaders[g][metric_id]) for g in self.groups
                    if g not in self.small and self.leaders[g][metric_id]]
            changes[metric_id] = any(not (a & b) for n, a in enumerate(sets) for b in sets[n + 1:])
        return changes

    def to_json(self) -> dict[str, Any]:
        """``slices`` (per group: items, every system's metrics, the leaders) and ``slice_summary``."""
        slices = {
            group: {
                "n_items": self.n_items[group],
                "systems": {name: {"metrics": {m: {"value": v.value, "undefined": v.undefined}
                                               for m, v in metrics.items()}}
                            for name, metrics in self.values[group].items()},
                "leaders": {m: list(systems) for m, systems in self.leaders[group].items()},
            }
            for group in self.groups
        }
        return {"slices": slices, "slice_summary": {
            "source": self.source.to_json(), "key_metrics": list(self.key_metrics), "min_items": MIN_ITEMS,
            "small": list(self.small), "overall_leaders": {m: list(s) for m, s in self.overall_leaders.items()},
            "winner_changes": self.winner_changes(), "leaders_rule": LEADERS_RULE,
        }}

    def summary_lines(self, metric_id: str | None = None, name: str | None = None) -> list[str]:
        """Terminal lines: the leaders (top value, ties all) of ``metric_id`` (default: the first key
        metric) per slice, small slices flagged; ``name`` is the metric's display name."""
        metric_id = metric_id or self.key_metrics[0]
        lines = [f"slices ({name or metric_id}: leaders per slice ×100; every metric in --json under 'slices'):"]
        for group in self.groups:
            values = {s: v[metric_id].value for s, v in self.values[group].items() if metric_id in v}
            defined = {s: v for s, v in values.items() if v is not None}
            top = max(defined.values(), default=None)
            leaders = [s for s, v in defined.items() if top is not None and v >= top - 1e-12]
            shown = "—" if top is None else f"{100 * top:.1f}"
            small = f"  (under {MIN_ITEMS} items: too small to rank)" if group in self.small else ""
            lines.append(f"  {group} (n={self.n_items[group]}): {', '.join(leaders) or '—'} {shown}{small}")
        return lines


def analyse(groups: SliceGroups, counts: Counts, metrics: Sequence[Metric],
            metric_values: Mapping[str, Mapping[str, MetricValue]], verdict: Verdict | None) -> SliceAnalysis:
    """Every metric within each slice of ``groups`` (:func:`auditor.io.slices.slice_groups`), and the
    leaders of the verdict's key metrics (without a verdict: the first metric's); ``metric_values``
    are the systems' values over all items (system -> metric id -> value)."""
    key_metrics = verdict.key_metrics if verdict is not None else (metrics[0].id,)
    return slice_table(groups.names, groups.codes, counts, metrics, key_metrics, metric_values, groups.source,
                       groups.patterns)


def slice_table(groups: Sequence[str], group_codes: np.ndarray, counts: Counts, metrics: Sequence[Metric],
                key_metrics: Sequence[str], overall: Mapping[str, Mapping[str, MetricValue]],
                source: Source, patterns: tuple[np.ndarray, np.ndarray] | None = None) -> SliceAnalysis:
    """Every metric of every system within each slice, and the leaders of ``key_metrics``.

    ``group_codes`` (N,) index ``groups`` (sorted names, each used by an item) in gold order
    (:func:`auditor.io.slices.slice_groups`); ``counts`` holds the gold and prediction codes;
    ``overall`` the systems' values over all items (system -> metric id -> value), for the
    overall leaders; ``source`` describes the slices file. ``patterns``: ``(codes (1 + S, V),
    counts (V,))`` of (gold, systems) rows when the items are known by a pattern table refined by
    slice (:mod:`auditor.engines`); ``group_codes`` (V,) is then each row's group.
    """
    if patterns is None:
        tensor = slice_confusion(group_codes, counts.gold, counts.predictions, len(groups), counts.k)
        sizes = np.bincount(group_codes, minlength=len(groups))
    else:
        codes, weights = patterns
        tensor = slice_confusion(group_codes, codes[0], codes[1:], len(groups), counts.k, weights)
        sizes = np.rint(np.bincount(group_codes, weights=weights, minlength=len(groups))).astype(np.int64)
    values: dict[str, Mapping[str, Mapping[str, MetricValue]]] = {}
    leaders: dict[str, Mapping[str, tuple[str, ...]]] = {}
    for g, group in enumerate(groups):
        described = describe(tensor[g], counts.labels, list(metrics), counts.labels_given)
        values[group] = MappingProxyType({s: MappingProxyType(v) for s, v in zip(counts.systems, described)})
        leaders[group] = MappingProxyType({m: _leaders({s: values[group][s][m] for s in counts.systems})
                                           for m in key_metrics})
    overall_leaders = {m: _leaders({s: system[m] for s, system in overall.items()}) for m in key_metrics}
    return SliceAnalysis(tuple(groups), MappingProxyType({g: int(n) for g, n in zip(groups, sizes)}),
                         MappingProxyType(values), tuple(key_metrics), MappingProxyType(leaders),
                         MappingProxyType(overall_leaders), source)
