"""Slices: every metric of every system within each group of items (``--slices FILE``).

An organiser often holds a grouping of the test items — question types, domains, sources.
Vickers et al. (sources/vickers-monti-classification-metrics-nlp.md, §5.1 GQA and §5.2
KVQA) score one model per question type ("accuracy grouped by question type in Table 3")
and show that the metric decides which sub-task looks strong: intra-dataset comparison is
where prevalence-sensitive metrics mislead. This module gives that table for every system.

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
from typing import Any

import numpy as np

from auditor.errors import InputError
from auditor.io.load import LabelColumn
from auditor.metrics.catalogue import MetricValue, describe

__all__ = ["MIN_ITEMS", "SliceAnalysis", "align_groups", "slice_confusion", "analyse", "read_slices"]

#: Slices with fewer items are flagged "too small to rank" (see the module docstring).
MIN_ITEMS = 50
_EPSILON = 1e-12
_SHOW = 5


def _missing_group(text: str) -> bool:
    from auditor.io.validate import _missing

    return _missing(text)


def align_groups(column: LabelColumn, gold_name: str, id_array: Any, n_items: int) -> np.ndarray:
    """Group code of every gold item (gold order), codes into ``column.categories``.

    By id when the gold has ids (every gold id exactly once; an id the gold lacks is refused
    too), by line otherwise (one group per gold line). ``gold_name`` names the gold file in
    messages; ``id_array`` is the gold ids (Arrow) or None.

    Raises
    ------
    InputError
        An empty or missing group, a duplicate id, a gold id without a group (the first one
        named), an id not in the gold, ids on one side only, or a length mismatch.
    """
    if len(column) == 0:
        raise InputError(f"{column.source}: no items; expected one group per gold item")
    bad = [code for code, text in enumerate(column.categories) if _missing_group(text)]
    if bad:
        i = int(np.flatnonzero(np.isin(column.codes, bad))[0])
        raise InputError(f"{column.where(i)}: empty or missing group "
                         f"({column.categories[column.codes[i]]!r}); every gold item needs exactly one group")
    if (column.id_array is not None) != (id_array is not None):
        has, lacks = (column.source, gold_name) if column.id_array is not None else (gold_name, column.source)
        raise InputError(f"{lacks} has no ids but {has} has ids; give ids in both (`id<TAB>group`) or in "
                         f"neither (then groups are matched to gold items by line)")
    if id_array is None:
        if len(column) != n_items:
            raise InputError(f"{column.source}: {len(column)} groups but {gold_name} has {n_items} items; "
                             f"without ids groups are matched by line, so every gold item needs one line")
        return np.asarray(column.codes, dtype=np.int64)
    import pyarrow.compute as pc

    at = pc.index_in(column.id_array, value_set=id_array.combine_chunks() if hasattr(id_array, "combine_chunks")
                     else id_array).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    extra = np.flatnonzero(at < 0)
    if extra.size:
        shown = ", ".join(repr(v) for v in column.id_array.take(extra[:_SHOW]).to_pylist())
        raise InputError(f"{column.where(int(extra[0]))}: id {column.id_array[int(extra[0])].as_py()!r} is not in "
                         f"{gold_name} ({extra.size} such ids: {shown}{' ...' if extra.size > _SHOW else ''}); "
                         f"expected a group for the gold ids only")
    hits = np.bincount(at, minlength=n_items)
    if (hits > 1).any():
        item = int(np.flatnonzero(hits > 1)[0])
        rows = np.flatnonzero(at == item)[:2]
        raise InputError(f"{column.source}: id {id_array[item].as_py()!r} has more than one group "
                         f"({column.where(int(rows[0]))} and {column.where(int(rows[1]))}); every gold item needs "
                         f"exactly one group")
    absent = np.flatnonzero(hits == 0)
    if absent.size:
        first = id_array[int(absent[0])].as_py()
        raise InputError(f"{column.source}: no group for gold id {first!r} ({gold_name} item {int(absent[0]) + 1}; "
                         f"{absent.size} gold id{'s' if absent.size > 1 else ''} without a group); every gold item "
                         f"needs exactly one group")
    codes = np.empty(n_items, dtype=np.int64)
    codes[at] = np.asarray(column.codes, dtype=np.int64)
    return codes


def slice_confusion(groups: np.ndarray, gold: np.ndarray, predictions: np.ndarray, n_groups: int, k: int) -> np.ndarray:
    """``C[g, s, i, j]``: items of group g and gold class i that system s predicted as j.

    One ``np.bincount`` over the (S, N) keys ``((s·G + g)·k + gold)·k + pred``; no loop over
    items or systems.
    """
    predictions = np.asarray(predictions, dtype=np.int64)
    n_systems = predictions.shape[0]
    base = (np.asarray(groups, dtype=np.int64) * k + np.asarray(gold, dtype=np.int64)) * k
    keys = (np.arange(n_systems, dtype=np.int64)[:, None] * (n_groups * k * k) + base[None, :] + predictions)
    counted = np.bincount(keys.ravel(), minlength=n_systems * n_groups * k * k)
    return counted.reshape(n_systems, n_groups, k, k).transpose(1, 0, 2, 3)


def _leaders(values: dict[str, MetricValue]) -> list[str]:
    defined = {s: v.value for s, v in values.items() if v.value is not None}
    if not defined:
        return []
    top = max(defined.values())
    return [s for s, v in defined.items() if v >= top - _EPSILON]


@dataclass
class SliceAnalysis:
    """Metrics per slice and system, the leaders per key metric, and small slices."""

    groups: tuple[str, ...]
    n_items: dict[str, int]
    values: dict[str, dict[str, dict[str, MetricValue]]]  # group -> system -> metric -> value
    key_metrics: list[str]
    leaders: dict[str, dict[str, list[str]]]  # group -> metric -> systems
    overall_leaders: dict[str, list[str]]
    source: dict[str, Any]

    @property
    def small(self) -> list[str]:
        return [g for g in self.groups if self.n_items[g] < MIN_ITEMS]

    def winner_changes(self) -> dict[str, bool]:
        """Per key metric: True when two slices (of at least MIN_ITEMS items) have disjoint leaders."""
        changes = {}
        for metric_id in self.key_metrics:
            sets = [set(self.leaders[g][metric_id]) for g in self.groups
                    if g not in self.small and self.leaders[g][metric_id]]
            changes[metric_id] = any(not (a & b) for n, a in enumerate(sets) for b in sets[n + 1:])
        return changes

    def summary_lines(self) -> list[str]:
        """Terminal lines: the leaders of the first key metric per slice, small slices flagged."""
        metric_id = self.key_metrics[0]
        lines = [f"slices ({metric_id} leaders; every metric in --json under 'slices'):"]
        for group in self.groups:
            value = self.values[group][self.leaders[group][metric_id][0]][metric_id].value \
                if self.leaders[group][metric_id] else None
            shown = "—" if value is None else f"{100 * value:.1f}"
            small = f"  (under {MIN_ITEMS} items: too small to rank)" if group in self.small else ""
            lines.append(f"  {group} (n={self.n_items[group]}): {', '.join(self.leaders[group][metric_id]) or '—'} "
                         f"{shown}{small}")
        return lines

    def add_to_json(self, document: dict[str, Any]) -> None:
        document["slices"] = {
            group: {
                "n_items": self.n_items[group],
                "systems": {name: {"metrics": {m: {"value": v.value, "undefined": v.undefined}
                                               for m, v in metrics.items()}}
                            for name, metrics in self.values[group].items()},
                "leaders": self.leaders[group],
            }
            for group in self.groups
        }
        document["slice_summary"] = {
            "source": self.source, "key_metrics": self.key_metrics, "min_items": MIN_ITEMS,
            "small": self.small, "overall_leaders": self.overall_leaders,
            "winner_changes": self.winner_changes(),
            "leaders_rule": "systems with the top value in the slice (ties within 1e-12 all lead; undefined never "
                            "leads); no significance test within a slice",
        }


def analyse(result: Any, column: LabelColumn, group_codes: np.ndarray) -> SliceAnalysis:
    """Slice metrics of an :class:`~auditor.pipeline.Audit` whose verdict has run.

    ``group_codes`` (N,) index ``column.categories`` in gold order (:func:`align_groups`).
    Groups are listed in sorted order; a group no gold item has cannot occur (every
    category is used by an item).
    """
    counts = result.counts
    names = sorted(column.categories)
    order = np.array([names.index(c) for c in column.categories], dtype=np.int64)
    groups = order[group_codes]
    tensor = slice_confusion(groups, counts.gold, counts.predictions, len(names), counts.k)
    sizes = np.bincount(groups, minlength=len(names))
    verdict = result.verdict
    present = [m.id for m in result.metrics]
    key_metrics = list(verdict.key_metrics) if verdict is not None else [m for m in present][:1]
    values: dict[str, dict[str, dict[str, MetricValue]]] = {}
    leaders: dict[str, dict[str, list[str]]] = {}
    for g, group in enumerate(names):
        described = describe(tensor[g], counts.labels, result.metrics, counts.labels_given)
        values[group] = dict(zip(counts.systems, described))
        leaders[group] = {m: _leaders({s: values[group][s][m] for s in counts.systems}) for m in key_metrics}
    overall = {m: _leaders({s: r.metrics[m] for s, r in result.systems.items()}) for m in key_metrics}
    return SliceAnalysis(tuple(names), {g: int(n) for g, n in zip(names, sizes)}, values, key_metrics, leaders,
                         overall, {"path": column.source, "sha256": column.sha256, "n_items": len(column)})


def read_slices(value: Any) -> LabelColumn:
    """A slices file (path, :func:`auditor.io.load.read_groups`) or in-memory groups (a list or
    array by position, a dict or pandas Series by id)."""
    import os

    from auditor.io.load import from_values, read_groups

    if isinstance(value, LabelColumn):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_groups(value)
    return from_values(value, "<slices>")
