"""Per-class precision, recall and F1 of every system."""
from __future__ import annotations

from typing import Callable

from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Cell, Section
from auditor.report.sections import section
from auditor.report.skeleton import category_table


@section(60)
def per_class_section(ctx: Context) -> Section:
    systems, labels = ctx.systems, ctx.labels

    def cell(quantity: str, title: str) -> Callable[[str, int], Cell]:
        def score(system: str, index: int) -> Cell:
            label = labels[index]
            entry = ctx.audit.systems[system].per_class[label]
            mark = None
            if entry.get(quantity) is None:
                reasons = [r for r in entry.get("undefined", []) if r.lower().startswith(f"{quantity} of")]
                mark = ctx.ledger.mark(system, "undefined", f"{title} {label}", reasons[0] if reasons else "0/0")
            return Cell(entry.get(quantity), "score", mark)
        return score

    return Section("per-class", SECTION_TITLES["per-class"], tuple(
        category_table(f"table-class-{quantity}", f"{title} per class and system (×100).", "Label", labels,
                       ctx.audit.profile.support, systems, cell(quantity, title), for_paper=quantity == "f1")
        for quantity, title in (("f1", "F1"), ("recall", "Recall"), ("precision", "Precision"))))
