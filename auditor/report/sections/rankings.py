"""Rank disagreement between metrics, and the ranking at the deployment prevalence."""
from __future__ import annotations

from typing import Any

from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Cell, Column, Figure, Paragraph, Row, Section, Table
from auditor.report.sections import EVERY_TASK, section
from auditor.report.tables import _density

#: Flipping pairs listed in the report (audit.json has them all).
FLIPS_SHOWN = 40


@section(100, tasks=EVERY_TASK)
def rank_section(ctx: Context) -> Section | None:
    """The rank table (systems in the primary metric's order), the bump chart, Kendall τ-b between
    metrics and the pairs of systems whose order flips between metrics (every task kind's)."""
    result = ctx.spine.rankings if ctx.spine is not None else None
    if result is None or not result.metrics:
        return None
    metric_ids = list(result.metrics)
    blocks: list[Any] = [Paragraph("Rank of every system under every metric (1 = best). Systems are listed in the "
                                   "order of the primary metric.")]
    first = [s for s in ctx.systems if s in result.systems]
    ranks = {s: {m: result.rank(s, m) for m in metric_ids} for s in first}
    rows = [Row(s, tuple(Cell(ranks[s][m], "rank") for m in metric_ids)) for s in first]
    blocks.append(Table("table-ranks", "Rank per metric (1 = best; tied systems share the mean rank).", "System",
                        tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), tuple(rows),
                        _density(len(metric_ids)), for_paper=True))
    if ctx.figures and len(first) > 1:
        blocks.append(Figure("fig-bump", "Rank of each system under each metric (bump chart); tied systems share "
                                         "the mean rank and are drawn side by side around it (at most 0.3 apart), "
                                         "so none hides another. Each system has its own colour and point shape.",
                             ctx.charts.bump_chart(ranks, metric_ids, first, ctx.short)))
    if ctx.figures:
        blocks.append(Figure("fig-kendall",
                             "Kendall τ-b (Kendall 1938) between the system rankings of every pair of metrics.",
                             ctx.charts.tau_heatmap(result.agreement("kendall"), ctx.short)))
    flips = result.flips
    if flips:
        rows = []
        for flip in flips[:FLIPS_SHOWN]:
            verdicts = flip.significant or {}
            where = [m for m, v in verdicts.items() if v]
            untested = all(v is None for v in verdicts.values())
            rows.append(Row(f"{flip.a} vs {flip.b}", (
                Cell(", ".join(ctx.short(m) for m in flip.a_better_under)),
                Cell(", ".join(ctx.short(m) for m in flip.b_better_under)),
                Cell("not tested" if untested else ", ".join(ctx.short(m) for m in where) or "none"))))
        caption = (f"Pairs of systems whose order flips between metrics ({len(flips)} "
                   f"{'pair' if len(flips) == 1 else 'pairs'}"
                   + (f"; the first {FLIPS_SHOWN} shown, all in audit.json" if len(flips) > FLIPS_SHOWN else "")
                   + "). Columns: metrics under which the first, or the second, system ranks higher; metrics under "
                     "which the difference is significant."
                   + (" No random draws (--bootstrap 0): only accuracy was tested, so “none” speaks for accuracy "
                      "alone." if getattr(getattr(ctx.audit, "statistics", None), "not_run", None) else ""))
        blocks.append(Table("table-flips", caption, "Pair", (Column("first higher under"),
                            Column("second higher under"), Column("significant under")), tuple(rows), "small"))
    return Section("rank-disagreement", SECTION_TITLES["rank-disagreement"], tuple(blocks))


@section(110)
def deployment_section(ctx: Context) -> Section | None:
    """Every ranked metric with the gold rows re-weighted to the deployment prevalence."""
    deployment = ctx.audit.deployment if ctx.audit is not None else None
    if deployment is None or not deployment.values:
        return None
    values = deployment.values
    systems = [s for s in ctx.systems if s in values]
    metric_ids = list(values[systems[0]]) if systems else []
    target = ", ".join(f"{label} {100 * share:.1f}%" for label, share in deployment.target.items())
    blocks: list[Any] = [Paragraph(f"Gold rows re-weighted to the deployment prevalence ({deployment.name}: "
                                   f"{target}); N is kept, so counts become fractional.")]
    rows = [(s, [Cell(values[s].get(m), "score") for m in metric_ids]) for s in systems]
    blocks.append(Table("table-deployment", "Metric values at the deployment prevalence (×100).", "System",
                        tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids),
                        tuple(Row(s, tuple(cells)) for s, cells in rows),
                        _density(len(metric_ids))))
    if deployment.notes:
        blocks.append(Bullets(tuple(str(n) for n in deployment.notes), "Notes"))
    return Section("deployment", SECTION_TITLES["deployment"], tuple(blocks))
