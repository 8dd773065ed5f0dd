"""Page 1: the verdict, the leaderboard and the strongest chance baseline of each key metric."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from auditor.report.context import Context, SECTION_TITLES, _profile_line
from auditor.report.model import Cell, Column, Facts, Row, Section, Table
from auditor.report.tables import _density


def summary_section(ctx: Context) -> Section:
    doc, prof = ctx.document, ctx.document.get("profile", {})
    blocks: list[Any] = []
    pairs = [("Data", _profile_line(doc))]
    verdict = doc.get("verdict")
    if len(ctx.systems) > 1 and verdict:
        pairs.append(("Winner depends on the metric?", verdict["text"]))
    recommendation = doc.get("recommendation")
    if recommendation and recommendation.get("metrics"):
        primary = [m for m in recommendation["metrics"] if m.get("role") == "primary"] or recommendation["metrics"][:1]
        complements = [m["id"] for m in recommendation["metrics"] if m not in primary]
        text = f"report {ctx.name(primary[0]['id'])}"
        if complements:
            text += " with " + ", ".join(ctx.name(c) for c in complements)
        if recommendation.get("avoid"):
            text += "; avoid " + ", ".join(ctx.name(a["id"]) for a in recommendation["avoid"])
        pairs.append(("Recommendation", text))
    strongest = _strongest_baselines(ctx, ctx.key_metrics())
    if strongest:
        pairs.append(("Strongest chance baseline", "; ".join(strongest)))
    if prof:
        never = sorted({label for s in prof.get("systems", {}).values() for label in s.get("never_predicted", [])})
        if never:
            pairs.append(("Labels some system never predicts", ", ".join(never)))
        for group in prof.get("identical_systems") or []:
            pairs.append(("Identical systems", f"{' = '.join(group)}: the same prediction on every item (the same "
                                               "file under two names?); they tie under every metric"))
    for warning in doc.get("warnings") or []:
        pairs.append(("Label warning", warning))
    blocks.append(Facts(tuple(pairs)))
    if len(ctx.systems) > 1 and verdict:
        blocks.append(leaderboard(ctx, verdict))
    return Section("summary", SECTION_TITLES["summary"], tuple(blocks))


def leaderboard(ctx: Context, verdict: Mapping[str, Any]) -> Table:
    """Systems in the primary metric's order: significance group, key metrics with intervals,
    the best set of each metric in bold."""
    primary, keys = verdict["primary"], list(verdict["key_metrics"])
    leaders = {m: set(v) for m, v in (verdict.get("leaders") or {}).items()}
    group_of = {s: index + 1 for index, group in enumerate(verdict.get("groups") or []) for s in group}
    columns = ([Column("Group", f"significance group under {ctx.name(primary)}")] if group_of else [])
    columns += [Column(ctx.short(m), ctx.name(m)) for m in keys]
    rows = []
    for s in ctx.systems:
        cells = [Cell(group_of.get(s), "count")] if group_of else []
        for m in keys:
            cell = ctx.score_cell(s, m)
            cells.append(Cell(cell.value, cell.kind, cell.mark, s in leaders.get(m, ()), cell.low, cell.high))
        rows.append(Row(s, tuple(cells)))
    has_ci = any(c.low is not None for r in rows for c in r.cells)
    if verdict.get("significance"):
        correction = (ctx.document.get("statistics") or {}).get("correction", "")
        caption = (f"Leaderboard, ordered by {ctx.name(primary)}. Bold: the metric's best set — the top system and "
                   "every system not significantly worse than it (exact McNemar for accuracy, approximate "
                   f"randomisation otherwise; {correction}-adjusted over the comparisons with the top system; "
                   f"p ≥ α = {ctx.alpha:g}). Group: 1 = the best set under {ctx.short(primary)}; 2 = the best set "
                   "of the systems outside group 1, and so on.")
    else:
        caption = (f"Leaderboard, ordered by {ctx.name(primary)}. Bold: the top value of each metric (no "
                   "significance tests ran).")
    if has_ci:
        caption += f" Brackets: {ctx.level} bootstrap percentile interval."
    return Table("summary-leaderboard", caption, "System", tuple(columns), tuple(rows),
                 "small" if has_ci else _density(len(columns)), inline_ci=True)


def _strongest_baseline(ctx: Context, metric_id: str) -> tuple[str, float] | None:
    """(name, expected score) of the chance baseline scoring highest under ``metric_id``."""
    baselines = ctx.document.get("baselines") or {}
    best = None
    for name in ("uniform", "prevalence", "majority"):
        entry = (baselines.get(name) or {}).get("metrics", {}).get(metric_id)
        if entry and entry.get("expected") is not None and (best is None or entry["expected"] > best[1]):
            best = (name, entry["expected"])
    return best


def _strongest_baselines(ctx: Context, keys: Sequence[str]) -> list[str]:
    out = []
    for metric_id in keys[:3]:
        best = _strongest_baseline(ctx, metric_id)
        if best:
            out.append(f"{ctx.short(metric_id)}: {best[0]} {100 * best[1]:.1f}")
    return out
