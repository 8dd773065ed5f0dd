"""The multi-label audit's result: audit.json (``task: "multilabel"``), ``auditor score``'s table, the report."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY
from auditor.options import AuditOptions
from auditor.results import SCHEMA, Signature
from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.counting import Counted
from auditor.tasks.multilabel.measures import (
    BY_ID,
    CONVENTION,
    DEFAULT_COLUMNS,
    METRICS,
    evaluate_with_undefined,
    part_conventions,
    per_label,
)
from auditor.tasks.multilabel.sets import SetFile, set_keys

if TYPE_CHECKING:  # the resampling code (scipy) is imported only when intervals are asked for
    from auditor.analyses.rankings import RankDisagreement
    from auditor.analyses.recommend import Recommendation
    from auditor.analyses.units import UnitStatistics
    from auditor.analyses.verdict import Verdict
    from auditor.tasks.multilabel.chance import Baseline

#: The binary catalogue per label (each label's 2 × 2 table [[TN, FP], [FN, TP]]).
BINARY_METRICS = ("accuracy", "kappa", "mcc", "informedness", "markedness")


@dataclass(frozen=True)
class Thresholding:
    """How score files became sets: the systems, each one's thresholds (per label of its file), how chosen."""

    systems: tuple[str, ...]
    thresholds: Mapping[str, np.ndarray]
    how: str
    files: Mapping[str, SetFile]

    def signature_part(self) -> str:
        values = {float(v) for name in self.systems for v in self.thresholds[name]}
        return f"{values.pop():g}" if len(values) == 1 else "per-label"

    def to_json(self) -> dict[str, Any]:
        return {"systems": list(self.systems), "rule": "a label is predicted when its score >= its threshold",
                "how": self.how, "thresholds": {name: dict(zip(self.files[name].labels, map(float, v)))
                                                for name, v in self.thresholds.items()}}


def _number(x: Any) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


@dataclass(frozen=True, eq=False)
class MultilabelAudit:
    """Everything a multi-label audit found (see :func:`auditor.tasks.multilabel.run.audit`)."""

    signature: Signature
    options: AuditOptions
    sources: Mapping[str, Mapping[str, Any]]
    aligned: Aligned
    counted: Counted
    statistics: UnitStatistics | None
    thresholding: Thresholding | None
    separator: str
    label_map: Mapping[str, str] | None
    analyses: tuple[str, ...] | None = None
    warnings: tuple[str, ...] = ()
    ranking: RankDisagreement | None = None
    verdict: Verdict | None = None
    chance: tuple[Baseline, ...] | None = None
    recommendation: Recommendation | None = None
    threshold_curves: Mapping[str, Mapping[str, Any]] | None = None

    @property
    def systems(self) -> tuple[str, ...]:
        return self.aligned.names

    @property
    def labels(self) -> tuple[str, ...]:
        return self.aligned.labels

    @cached_property
    def values(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """id -> ((S,) values, 0/0 shown as 0; (S,) undefined)."""
        return evaluate_with_undefined(self.counted.sums)

    def value(self, metric: str, s: int) -> float:
        return float(self.values[metric][0][s])

    def interval(self, metric: str, s: int) -> tuple[float, float] | None:
        return None if self.statistics is None else self.statistics.interval(metric, s)

    def metric_values(self) -> dict[str, dict[str, float | None]]:
        """system -> id -> value (None where the figure is 0/0 as a whole: ranked last)."""
        values = self.values
        return {name: {m: None if values[m][1][s] else float(values[m][0][s]) for m in values}
                for s, name in enumerate(self.systems)}

    # ------------------------------------------------------------------ JSON

    def _metric_entries(self, s: int) -> dict[str, Any]:
        values, notes = self.values, part_conventions(self.counted.sums, self.labels, s)
        entries = {}
        for metric in METRICS:
            value, undefined = values[metric.id]
            ci = self.interval(metric.id, s)
            whole = bool(undefined[s])
            entries[metric.id] = {
                "value": float(value[s]), "ci": None if ci is None else list(ci),
                "undefined": metric.undefined_when if whole else None,
                "convention": f"shown as 0: {CONVENTION}" if whole else notes.get(metric.id)}
        return entries

    def per_class(self, s: int) -> dict[str, dict[str, Any]]:
        """``systems.NAME.per_class``: per label precision, recall, F1 (0/0 as 0, listed), Jaccard, support,
        predicted and the binary catalogue of its 2 × 2 table."""
        sums = self.counted.sums
        parts = per_label({key: value[s:s + 1] if key in ("tp", "fp", "items") else value
                           for key, value in sums.items()})
        binary = self._binary(s)
        table = {}
        for l, label in enumerate(self.labels):
            undefined = [f"{part} of {label!r} undefined: 0/0 ({why}), {CONVENTION}"
                         for part, why in (("precision", "never predicted"), ("recall", "not in gold"),
                                           ("f1", "neither in gold nor predicted"))
                         if parts[part][1][0, l]]
            row: dict[str, Any] = {part: float(parts[part][0][0, l]) for part in ("precision", "recall", "f1",
                                                                                  "jaccard")}
            row.update(support=int(sums["gold"][l]), predicted=int(sums["tp"][s, l] + sums["fp"][s, l]),
                       tp=int(sums["tp"][s, l]), fp=int(sums["fp"][s, l]),
                       fn=int(sums["gold"][l] - sums["tp"][s, l]))
            row.update({metric: _number(binary[metric][l]) for metric in BINARY_METRICS})
            row["undefined"] = undefined + [f"{metric} of {label!r} undefined: 0/0" for metric in BINARY_METRICS
                                            if not np.isfinite(binary[metric][l])]
            table[label] = row
        return table

    def _binary(self, s: int) -> dict[str, np.ndarray]:
        """Each label's binary catalogue, from its table [[TN, FP], [FN, TP]]."""
        sums = self.counted.sums
        tp, fp = sums["tp"][s], sums["fp"][s]
        fn = sums["gold"] - tp
        tn = sums["n"] - tp - fp - fn
        tables = np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], -2)
        return compute(tables, [REGISTRY.metrics[m] for m in BINARY_METRICS], all_labels_active=True)

    def profile(self) -> dict[str, Any]:
        """Label prevalence against each system's predicted rate, cardinality, empty predictions."""
        sums, n = self.counted.sums, self.aligned.n_items
        predicted = sums["tp"] + sums["fp"]
        return {
            "cardinality": {"gold": self.counted.cardinality(),
                            **{name: self.counted.cardinality(s) for s, name in enumerate(self.systems)}},
            "empty": {"gold": self.counted.empty(),
                      **{name: self.counted.empty(s) for s, name in enumerate(self.systems)}},
            "prevalence": {label: {"gold": float(sums["gold"][l] / n),
                                   **{name: float(predicted[s, l] / n) for s, name in enumerate(self.systems)}}
                           for l, label in enumerate(self.labels)},
            "distinct_sets": {"gold": _distinct(self.aligned.gold_sets, self.aligned.gold_codes),
                              **{name: _distinct(self.aligned.sets[s], table.predicted)
                                 for s, (name, table) in enumerate(zip(self.systems, self.counted.pairs))}}}

    def to_json(self) -> dict[str, Any]:
        """audit.json of a multi-label audit (``task: "multilabel"``)."""
        document: dict[str, Any] = {
            "schema": SCHEMA, "signature": str(self.signature), "task": "multilabel", "labels": list(self.labels),
            "n_items": self.aligned.n_items, "sources": {k: dict(v) for k, v in self.sources.items()},
            "options": {**self.options.to_json(), "label_separator": self.separator,
                        "label_map": None if self.label_map is None else dict(self.label_map),
                        "thresholds": None if self.thresholding is None else self.thresholding.to_json()},
            "warnings": list(self.warnings), "multilabel": {**self.profile(), **self._chance_json()},
            "systems": {name: {"metrics": self._metric_entries(s), "per_class": self.per_class(s)}
                        for s, name in enumerate(self.systems)}}
        if self.statistics is not None:
            from auditor.tasks.multilabel.resampling import statistics_json

            document.update(statistics_json(self.statistics, self.systems))
        if self.ranking is not None:
            document.update(self.ranking.to_json())
        if self.verdict is not None:
            document.update(self.verdict.to_json())
        if self.recommendation is not None:
            document.update(self.recommendation.to_json())
        document["multilabel"]["properties"] = self._properties_json()
        if self.threshold_curves is not None:
            document["multilabel"]["threshold_curves"] = {k: dict(v) for k, v in self.threshold_curves.items()}
        return document

    def _properties_json(self) -> dict[str, Any]:
        from auditor.tasks.multilabel.properties import probes, to_json

        return to_json(probes())

    def _chance_json(self) -> dict[str, Any]:
        if self.chance is None:
            return {}
        return {"chance": {baseline.name: baseline.to_json() for baseline in self.chance}}

    def above_chance(self, metric: str) -> dict[str, float]:
        """system -> its value minus the strongest baseline's expected value (the shared baselines and its own sets
        shuffled; lower-is-better metrics: reversed)."""
        if not self.chance:
            return {}
        sign = better(metric)
        margins = {}
        for s, name in enumerate(self.systems):  # the shared baselines and the system's own shuffle
            known = [sign * value for b in self.chance if (value := b.expected(metric)[0]) is not None
                     and (not b.name.startswith("shuffle:") or b.name == f"shuffle:{name}")]
            if known:  # with --bootstrap 0 a baseline without an exact expectation has no value
                margins[name] = sign * self.value(metric, s) - max(known)
        return margins

    # --------------------------------------------------------------- terminal

    def terminal_lines(self, columns: Sequence[str] = (), sort: str | None = None) -> list[str]:
        """``auditor score``'s table (80 columns): systems × metrics ×100 with one decimal, each interval on the
        line below; ``sort``: systems by that metric, best first (Hamming loss: lowest first)."""
        from auditor.tasks.multilabel.terminal import score_lines

        return score_lines(self, list(columns) or list(DEFAULT_COLUMNS), sort)

    def report_model(self, figures: bool = True) -> Any:
        from auditor.tasks.multilabel.report import build_report

        return build_report(self, figures)


def _distinct(sets: np.ndarray, codes: np.ndarray) -> int:
    """Number of distinct label sets among the codes used (two codes may name one set after a label map)."""
    used = np.flatnonzero(np.bincount(codes, minlength=sets.shape[0]))
    return int(np.unique(set_keys(sets[used])).size)


def better(metric: str) -> int:
    """+1 when higher is better, −1 otherwise."""
    return 1 if BY_ID[metric].higher_is_better else -1
