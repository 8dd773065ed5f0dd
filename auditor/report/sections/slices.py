"""Scores per slice (group of items), where the winner changes, slices too small to rank."""
from __future__ import annotations

from typing import Any

from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Bullets, Cell, Column, Paragraph, Section, Table
from auditor.report.tables import _best_per_row, _density, _fit_systems


def slices_section(ctx: Context) -> Section | None:
    """Per-slice scores of the key metrics, where the winner changes, and slices too small to rank
    (``slices`` and ``slice_summary`` of the JSON; :mod:`auditor.analyses.slices`)."""
    slices, summary = ctx.document.get("slices"), ctx.document.get("slice_summary")
    if not slices or not summary:
        return None
    groups = list(slices)
    systems = ctx.systems
    minimum = summary["min_items"]
    source = (summary.get("source") or {}).get("path") or "the slices"
    blocks: list[Any] = [Paragraph(
        f"Every metric of every system within each group of items given by {source} ({len(groups)} slices). "
        "Vickers et al. (vickers-monti-classification-metrics-nlp.md §5.2) score a model per KVQA question type "
        "(their Table 3) and show that the metric decides which sub-task looks strong; here the same breakdown "
        "compares the systems. Leaders of a slice are the systems with its top value (ties all lead); no test is "
        "run within a slice, so a different leader is not by itself a significant difference.")]
    small = summary.get("small") or []
    if small:
        blocks.append(Bullets(tuple(
            f"Slice {g} has {slices[g]['n_items']} items, fewer than {minimum}: too small to rank systems on; its "
            f"leaders are left out of 'winner changes'. (The threshold is ours; Vickers et al. §5.1 find low "
            f"variance only for question types 'with many samples'.)" for g in small), "Warning"))
    changes = summary.get("winner_changes") or {}
    overall = summary.get("overall_leaders") or {}
    lines = []
    for metric_id in summary["key_metrics"]:
        per_slice = "; ".join(f"{g}: {', '.join(slices[g]['leaders'].get(metric_id) or ['—'])}" for g in groups)
        verdict = "the winner changes across slices" if changes.get(metric_id) else "the same leader in every slice"
        lines.append(f"{ctx.short(metric_id)}: {verdict} — {per_slice} (all items: "
                     f"{', '.join(overall.get(metric_id) or ['—'])}).")
    blocks.append(Bullets(tuple(lines), f"Leaders per slice (slices of at least {minimum} items count for 'changes')"))
    all_rows = "all items"
    for metric_id in summary["key_metrics"]:
        rows = []
        for g in groups:
            cells = []
            for name in systems:
                entry = slices[g]["systems"][name]["metrics"].get(metric_id) or {}
                mark = None
                if entry.get("value") is None:
                    mark = ctx.ledger.mark(name, "undefined", f"{ctx.short(metric_id)} in slice {g}",
                                           entry.get("undefined") or "0/0")
                cells.append(Cell(entry.get("value"), "score", mark))
            rows.append((f"{g} (n={slices[g]['n_items']}{', small' if g in small else ''})", cells))
        rows.append((all_rows, [Cell((ctx.document["systems"][name]["metrics"].get(metric_id) or {}).get("value"),
                                     "score") for name in systems]))
        columns = tuple(Column(name, rotate=len(systems) > 3) for name in systems)
        blocks.append(_fit_systems(Table(
            f"table-slices-{metric_id}", f"{ctx.name(metric_id)} per slice (×100); best per row in bold.", "Slice",
            columns, _best_per_row(rows), _density(len(columns) + 1)), systems))
    return Section("slices", SECTION_TITLES["slices"], tuple(blocks))
