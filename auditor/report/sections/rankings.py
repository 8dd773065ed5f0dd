"""Rank disagreement between metrics, and the ranking at the deployment prevalence."""
from __future__ import annotations

from typing import Any, Mapping

from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Bullets, Cell, Column, Figure, Paragraph, Row, Section, Table
from auditor.report.tables import _density, _with_best


#: Short column headers for the metric tables (the appendix gives every definition).
#: Metrics the summary, charts and baseline tables concentrate on, when present.
FLIPS_SHOWN = 40


def rank_section(ctx: Context) -> Section | None:
    doc = ctx.document
    rankings = doc.get("rankings")
    if not rankings:
        return None
    metric_ids = [m for m in rankings if m in ctx.metric_ids() or True]
    blocks: list[Any] = [Paragraph("Rank of every system under every metric (1 = best). Systems are listed in the "
                                   "order of the primary metric.")]
    first = [s for s in ctx.systems if s in rankings[metric_ids[0]]]
    table = doc.get("rank_table") or {}
    ranks = {s: {m: (table.get(s) or {}).get(m, rankings[m].index(s) + 1 if s in rankings[m] else None)
                 for m in metric_ids} for s in first}
    rows = [Row(s, tuple(Cell(ranks[s][m], "rank") for m in metric_ids)) for s in first]
    blocks.append(Table("table-ranks", "Rank per metric (1 = best; tied systems share the mean rank).", "System",
                        tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), tuple(rows),
                        _density(len(metric_ids))))
    if ctx.figures and len(first) > 1:
        blocks.append(Figure("fig-bump", "Rank of each system under each metric (bump chart); tied systems share "
                                         "the mean rank and are drawn at the same height. Each system has its own "
                                         "colour and point shape.",
                             ctx.charts.bump_chart(ranks, metric_ids, first, ctx.short)))
    agreement = doc.get("rank_agreement") or {}
    kendall = agreement.get("kendall")
    if kendall and ctx.figures:
        blocks.append(Figure("fig-kendall", "Kendall τ-b between the system rankings of every pair of metrics.",
                             ctx.charts.tau_heatmap(kendall, ctx.short)))
    flips = doc.get("flips") or []
    if flips:
        shown = flips[:FLIPS_SHOWN]
        rows = []
        for f in shown:
            significant = f.get("significant")
            where = [m for m, v in significant.items() if v] if isinstance(significant, Mapping) else []
            rows.append(Row(f"{f['a']} vs {f['b']}", (
                Cell(", ".join(ctx.short(m) for m in f.get("a_better_under", []))),
                Cell(", ".join(ctx.short(m) for m in f.get("b_better_under", []))),
                Cell(", ".join(ctx.short(m) for m in where) or "none"))))
        caption = (f"Pairs of systems whose order flips between metrics ({len(flips)} pairs"
                   + (f"; the first {FLIPS_SHOWN} shown, all in audit.json" if len(flips) > FLIPS_SHOWN else "")
                   + "). Columns: metrics under which the first, or the second, system ranks higher; metrics under "
                     "which the difference is significant.")
        blocks.append(Table("table-flips", caption, "Pair", (Column("first higher under"),
                            Column("second higher under"), Column("significant under")), tuple(rows), "small"))
    return Section("rank-disagreement", SECTION_TITLES["rank-disagreement"], tuple(blocks))


def deployment_section(ctx: Context) -> Section | None:
    deployment = ctx.document.get("deployment")
    if not deployment or not deployment.get("metrics"):
        return None
    values = deployment["metrics"]
    systems = [s for s in ctx.systems if s in values]
    metric_ids = list(values[systems[0]]) if systems else []
    target = ", ".join(f"{label} {100 * share:.1f}%" for label, share in (deployment.get("target") or {}).items())
    blocks: list[Any] = [Paragraph(f"Gold rows re-weighted to the deployment prevalence ({deployment.get('name', '')}: "
                                   f"{target}); N is kept, so counts become fractional.")]
    rows = [(s, [Cell(values[s].get(m), "score") for m in metric_ids]) for s in systems]
    blocks.append(Table("table-deployment", "Metric values at the deployment prevalence (×100).", "System",
                        tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), _with_best(rows),
                        _density(len(metric_ids))))
    if deployment.get("notes"):
        blocks.append(Bullets(tuple(str(n) for n in deployment["notes"]), "Notes"))
    return Section("deployment", SECTION_TITLES["deployment"], tuple(blocks))
