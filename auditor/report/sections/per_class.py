"""Per-class precision, recall and F1 of every system."""
from __future__ import annotations

from typing import Any

from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Cell, Column, Row, Section, Table
from auditor.report.sections import section
from auditor.report.tables import _density, _fit_systems


@section(60)
def per_class_section(ctx: Context) -> Section:
    systems, labels = ctx.systems, ctx.labels
    support = dict(zip(labels, ctx.audit.profile.support))
    blocks: list[Any] = []
    for quantity, title in (("f1", "F1"), ("recall", "Recall"), ("precision", "Precision")):
        rows = []
        for label in labels:
            cells = [Cell(support[label], "count")]
            for s in systems:
                entry = ctx.audit.systems[s].per_class[label]
                mark = None
                if entry.get(quantity) is None:
                    reasons = [r for r in entry.get("undefined", []) if r.lower().startswith(f"{quantity} of")]
                    mark = ctx.ledger.mark(s, "undefined", f"{title} {label}", reasons[0] if reasons else "0/0")
                cells.append(Cell(entry.get(quantity), "score", mark))
            rows.append(Row(label, tuple(cells)))
        columns = (Column("Support"),) + tuple(Column(s, rotate=len(systems) > 3) for s in systems)
        blocks.append(_fit_systems(Table(f"table-class-{quantity}", f"{title} per class and system (×100).", "Label",
                                         columns, tuple(rows), _density(len(columns)),
                                         for_paper=quantity == "f1"), systems))
    return Section("per-class", SECTION_TITLES["per-class"], tuple(blocks))
