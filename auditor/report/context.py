"""What every section builder reads: the audit, the metric records, the undefined-value ledger
and the chart functions; section titles and the key metrics."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from auditor.metrics.selections import KEY_METRICS  # the verdict's key metrics are the report's
from auditor.report.model import Cell, LedgerEntry
from auditor.report.spine import Spine

if TYPE_CHECKING:
    from auditor.results import Audit


SECTION_TITLES = {
    "summary": "Summary", "data": "Data", "baselines": "Chance baselines", "metrics": "Metrics",
    "per-class": "Per-class results", "properties": "Metric properties",
    "rank-disagreement": "Rank disagreement", "deployment": "At the deployment prevalence",
    "significance": "Significance", "recommendation": "Recommendation", "definitions": "Metric definitions",
    "confusion": "Confusion matrices", "rules": "Recommendation rules",
    "ledger": "Undefined values", "reproducibility": "Reproducibility",
    "gold-reliability": "Reliability of the gold", "slices": "Slices", "scores": "Per-class scores",
    "references": "References", "witnesses": "Property witnesses", "reporting": "Reporting statement",
}


APPENDICES = ("definitions", "witnesses", "confusion", "rules", "ledger", "reproducibility")
#: Sections after the appendices, without a letter.
CLOSING = ("references",)


class Ledger:
    """Collects undefined values and conventions; one entry per (system, state, text)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str, str], list[Any]] = {}

    def mark(self, system: str, state: str, where: str, text: str) -> int:
        key = (system, state, text)
        if key not in self.entries:
            self.entries[key] = [len(self.entries) + 1, []]
        places = self.entries[key][1]
        if where not in places:
            places.append(where)
        return self.entries[key][0]

    def freeze(self) -> tuple[LedgerEntry, ...]:
        return tuple(
            LedgerEntry(number, system, state, ", ".join(places), text)
            for (system, state, text), (number, places) in self.entries.items()
        )


@dataclass
class Context:
    """What a section builder reads: ``audit`` (the typed :class:`~auditor.results.Audit`), the
    metric records (id -> :class:`~auditor.metrics.registry.Metric`), the undefined-value
    ledger, and the chart functions (the :mod:`auditor.report.charts` module; the builder runs under
    :func:`~auditor.report.charts.batched`, so they return placeholders resolved in one batch)."""

    audit: Audit
    records: Mapping[str, Any]
    ledger: Ledger
    figures: bool
    charts: Any = None
    formula_svg: Callable[[str], str] = lambda latex: ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: What every task's audit has (:class:`~auditor.report.spine.Spine`); a classification audit's by default.
    spine: Spine | None = None

    def __post_init__(self) -> None:
        if self.spine is None and self.audit is not None:
            self.spine = Spine.of(self.audit, self.records, self.extra.get("signature"))

    @property
    def systems(self) -> list[str]:
        """Systems ordered by the primary metric (the verdict's order), else in input order."""
        given = list(self.spine.systems)
        order = list(self.spine.verdict.order) if self.spine.verdict is not None else []
        return order if sorted(order) == sorted(given) else given

    @property
    def level(self) -> str:
        """Confidence level of the intervals, ranges and tests: ``1 − alpha`` as a percentage."""
        return f"{100 * (1 - self.alpha):g}%"

    @property
    def alpha(self) -> float:
        """α of the intervals, ranges and tests: the audit's ``options.alpha``."""
        return self.spine.alpha

    @property
    def labels(self) -> list[str]:
        return list(self.audit.labels)

    def brackets(self) -> str:
        """What a table's brackets are, standing alone (a caption pasted into a paper): the level, the method, B and
        the seed of a classification audit's bootstrap."""
        stats = self.audit.statistics if self.audit is not None else None
        boot = stats.bootstrap if stats is not None else None
        drawn = (f" (B = {boot.B:,} resamples, seed {boot.seed})" if boot is not None and boot.B else "")
        return f"Brackets: {self.level} bootstrap percentile interval{drawn}."

    def name(self, metric_id: str) -> str:
        record = self.records.get(metric_id)
        return record.name if record is not None else metric_id

    def short(self, metric_id: str) -> str:
        """Column header from the metric record; a calibrated variant shows its base metric's
        (its table says it is calibrated)."""
        record = self.records.get(metric_id)
        if record is not None and record.base is not None:
            record = self.records.get(record.base, record)
        return record.label if record is not None else metric_id

    def family(self, metric_id: str) -> str:
        record = self.records.get(metric_id)
        return record.family if record is not None else "base"

    def metric_ids(self) -> list[str]:
        return list(self.spine.scores[self.systems[0]])

    def score_cell(self, system: str, metric_id: str) -> Cell:
        """The value of ``metric_id`` for ``system`` with its bootstrap interval; an undefined
        value or a convention gets its ledger mark."""
        entry = self.spine.scores[system].get(metric_id)
        record = self.records.get(metric_id)
        kind = record.kind if record is not None else "score"  # an error in steps of an order: as it is
        if entry is None:
            return Cell(None, kind)
        mark = None
        if entry.value is None:
            mark = self.ledger.mark(system, "undefined", self.short(metric_id), entry.undefined or "0/0")
        elif entry.convention:
            mark = self.ledger.mark(system, "convention", self.short(metric_id), entry.convention)
        low, high = entry.interval or (None, None)
        return Cell(entry.value, kind, mark, low=low, high=high)

    def interval(self, system: str, metric_id: str) -> tuple[float, float] | None:
        """The metric's interval (bootstrap percentile for classification; each task says its own method)."""
        entry = self.spine.scores[system].get(metric_id)
        return None if entry is None else entry.interval

    def best(self, metric_id: str) -> tuple[str, ...] | None:
        """The metric's best set (bold), None where no test covered it (no bold)."""
        entry = self.spine.best_set.get(metric_id)
        return None if entry is None else tuple(entry.systems)

    def key_metrics(self) -> list[str]:
        present = self.metric_ids()
        return [m for m in KEY_METRICS if m in present]


def _profile_line(audit: Any) -> str:
    """k, N, systems and the profile's headline figures, in one line."""
    prof = audit.profile
    n, k, systems = audit.n_items, len(audit.labels), len(audit.systems)
    label, unit = ("levels", "level") if getattr(audit, "ordered", False) else ("labels", "class")
    return (f"{n} items, {k} {label} ({prof.k_gold} in gold), {systems} systems; "
            f"smallest {unit} {prof.min_support} items, imbalance ratio {prof.imbalance_ratio:.1f}, "
            f"majority {unit} “{prof.majority_label}” = {100 * prof.majority_share:.1f}% of items, "
            f"normalised prevalence entropy {prof.normalised_entropy:.2f}")
