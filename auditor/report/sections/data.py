"""The data: class prevalence, each system's prediction bias, the label-check warnings."""
from __future__ import annotations

from typing import Any

from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Cell, Column, Paragraph, Section
from auditor.report.sections import section
from auditor.report.skeleton import shares_blocks


@section(20)
def data_section(ctx: Context) -> Section:
    """From the typed :class:`~auditor.analyses.profile.DataProfile`."""
    prof = ctx.audit.profile
    labels, systems = ctx.labels, ctx.systems
    blocks: list[Any] = [Paragraph(
        "Prevalence p_i is the share of gold items in class i; a system's bias b_j is the share of its "
        "predictions that are class j. A system whose bias departs from the prevalence gains or loses on "
        "metrics that reward the majority class."), *shares_blocks(
        ctx, systems, labels, "Label", ((Column("Support"), [Cell(n, "count") for n in prof.support]),
                                        (Column("Prevalence"), [Cell(p, "share") for p in prof.prevalence])),
        prof.prevalence, {s: prof.systems[s].bias for s in systems},
        ("table-bias", "Class support, prevalence and each system's prediction bias (%)."),
        ("fig-bias", "Prevalence (top) and each system's prediction bias minus prevalence: colour and number both in "
                     "percentage points (blue = predicted more often than it occurs); the shares themselves are in "
                     "the table below."))]
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
