"""The data: class prevalence, each system's prediction bias, the label-check warnings."""
from __future__ import annotations

from typing import Any

from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Cell, Column, Figure, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.tables import _density, _fit_systems


@section(20)
def data_section(ctx: Context) -> Section:
    """From the typed :class:`~auditor.analyses.profile.DataProfile`."""
    prof = ctx.audit.profile
    labels, systems = ctx.labels, ctx.systems
    columns = [Column("Support"), Column("Prevalence")] + [Column(s, rotate=len(systems) > 3) for s in systems]
    rows = []
    for index, label in enumerate(labels):
        cells = [Cell(prof.support[index], "count"), Cell(prof.prevalence[index], "share")]
        cells += [Cell(prof.systems[s].bias[index], "share") for s in systems]
        rows.append(Row(label, tuple(cells)))
    blocks: list[Any] = [Paragraph(
        "Prevalence p_i is the share of gold items in class i; a system's bias b_j is the share of its "
        "predictions that are class j. A system whose bias departs from the prevalence gains or loses on "
        "metrics that reward the majority class.")]
    if ctx.figures:
        blocks.append(Figure("fig-bias", "Prevalence (top) and each system's prediction bias minus prevalence: colour "
                             "and number both in percentage points (blue = predicted more often than it occurs); the "
                             "shares themselves are in the table below.",
                             ctx.charts.bias_chart(labels, systems, ctx.audit.profile.prevalence,
                                                   {s: ctx.audit.profile.systems[s].bias for s in systems})))
    blocks.append(_fit_systems(Table("table-bias", "Class support, prevalence and each system's prediction bias (%).",
                                     "Label", tuple(columns), tuple(rows), _density(len(columns))), systems))
    notes = []
    for s in systems:
        bias = prof.systems[s]
        if bias.never_predicted:
            notes.append(f"{s} never predicts: {', '.join(bias.never_predicted)}")
        if bias.predicted_only:
            notes.append(f"{s} predicts labels absent from gold: {', '.join(bias.predicted_only)}")
    if prof.absent_from_gold:
        notes.append("Labels with no gold item (kept as error classes): " + ", ".join(prof.absent_from_gold))
    blocks.append(Bullets(tuple(notes) or ("Every system predicts every gold label, and no system predicts a label "
                                           "absent from gold.",), "Never-predicted and predicted-only labels"))
    return Section("data", SECTION_TITLES["data"], tuple(blocks), for_summary=True)
