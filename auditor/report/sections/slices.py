"""Scores per slice (group of items), where the winner changes, slices too small to rank."""
from __future__ import annotations

from typing import Any

from auditor.analyses.slices import MIN_ITEMS
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Cell, Column, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.tables import _density, _fit_systems


@section(70)
def slices_section(ctx: Context) -> Section | None:
    """Per-slice scores of the key metrics, where the winner changes, and slices too small to rank
    (``ctx.audit.slices``, :class:`auditor.analyses.slices.SliceAnalysis`)."""
    analysis = ctx.audit.slices if ctx.audit is not None else None
    if analysis is None:
        return None
    groups = analysis.groups
    systems = ctx.systems
    source = analysis.source.path or "the slices"
    blocks: list[Any] = [Paragraph(
        f"Every metric of every system within each group of items given by {source} ({len(groups)} slices). "
        "Vickers et al. (2023, §5.2) score a model per KVQA question type "
        "(their Table 3) and show that the metric decides which sub-task looks strong; here the same breakdown "
        "compares the systems. Leaders of a slice are the systems with its top value (ties all lead); no test is "
        "run within a slice, so a different leader is not by itself a significant difference.")]
    small = analysis.small
    if small:
        blocks.append(Bullets(tuple(
            f"Slice {g} has {analysis.n_items[g]} items, fewer than {MIN_ITEMS}: too small to rank systems on; its "
            f"leaders are left out of 'winner changes'. (The threshold is ours; Vickers et al. §5.1 find low "
            f"variance only for question types 'with many samples'.)" for g in small), "Warning"))
    changes = analysis.winner_changes()
    lines = []
    for metric_id in analysis.key_metrics:
        per_slice = "; ".join(f"{g}: {', '.join(analysis.leaders[g][metric_id] or ['—'])}" for g in groups)
        verdict = "the winner changes across slices" if changes[metric_id] else "the same leader in every slice"
        lines.append(f"{ctx.short(metric_id)}: {verdict} — {per_slice} (all items: "
                     f"{', '.join(analysis.overall_leaders[metric_id] or ['—'])}).")
    blocks.append(Bullets(tuple(lines),
                          f"Leaders per slice (slices of at least {MIN_ITEMS} items count for 'changes')"))
    for metric_id in analysis.key_metrics:
        rows = []
        for g in groups:
            cells = []
            for name in systems:
                value = analysis.values[g][name][metric_id]
                mark = None
                if value.value is None:
                    mark = ctx.ledger.mark(name, "undefined", f"{ctx.short(metric_id)} in slice {g}",
                                           value.undefined or "0/0")
                cells.append(Cell(value.value, "score", mark))
            rows.append((f"{g} (n={analysis.n_items[g]}{', small' if g in small else ''})", cells))
        overall = [ctx.audit.systems[name].metrics.get(metric_id) for name in systems]
        rows.append(("all items", [Cell(None if value is None else value.value, "score") for value in overall]))
        columns = tuple(Column(name, rotate=len(systems) > 3) for name in systems)
        blocks.append(_fit_systems(Table(
            f"table-slices-{metric_id}", f"{ctx.name(metric_id)} per slice (×100); the leaders of each slice are "
            "listed above (bold is kept for best sets, which need tests; none is run within a slice).", "Slice",
            columns, tuple(Row(header, tuple(cells)) for header, cells in rows), _density(len(columns) + 1)),
            systems))
    return Section("slices", SECTION_TITLES["slices"], tuple(blocks))
