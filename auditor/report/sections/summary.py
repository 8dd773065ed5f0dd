"""Page 1: the verdict, the leaderboard and the strongest chance baseline of each key metric."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from auditor.analyses.verdict import Verdict

from auditor.analyses.shuffle_test import untested_reason
from auditor.formatting import format_value
from auditor.options import correction_name
from auditor.report.context import SECTION_TITLES, Context, _profile_line
from auditor.report.model import Cell, Column, Facts, Row, Section, Table
from auditor.report.sections import section
from auditor.report.tables import _density


@section(10)
def summary_section(ctx: Context) -> Section:
    audit, prof = ctx.audit, ctx.audit.profile
    blocks: list[Any] = []
    pairs = [("Data", _profile_line(audit))]
    verdict = audit.verdict
    if len(ctx.systems) > 1 and verdict:
        pairs.append(("Winner depends on the metric?", verdict.text))
    recommendation = audit.recommendation
    if recommendation is not None and recommendation.metrics:
        primary = [m for m in recommendation.metrics if m.role == "primary"] or list(recommendation.metrics[:1])
        complements = [m.id for m in recommendation.metrics if m not in primary]
        text = f"report {ctx.name(primary[0].id)}"
        if complements:
            text += " with " + ", ".join(ctx.name(c) for c in complements)
        if recommendation.avoid:
            text += "; avoid " + ", ".join(ctx.name(a.id) for a in recommendation.avoid)
        pairs.append(("Recommendation", text))
    strongest = _strongest_baselines(ctx, list(verdict.key_metrics) if verdict else ctx.key_metrics())
    if strongest:
        pairs.append(("Strongest chance baseline", "; ".join(strongest)))
    below = not_above_chance(ctx, verdict.primary if verdict else None)
    if below is not None:
        pairs.append(("Not significantly above chance", below))
    never: dict[tuple[str, ...], list[str]] = {}
    for system in ctx.systems:  # systems that never predict the same labels share one entry
        labels = tuple(prof.systems[system].never_predicted) if system in prof.systems else ()
        if labels:
            never.setdefault(labels, []).append(system)
    if never:
        pairs.append(("Labels never predicted", "; ".join(f"{', '.join(systems)} never "
                                                          f"{'predicts' if len(systems) == 1 else 'predict'} "
                                                          f"{', '.join(labels)}" for labels, systems in never.items())))
    for group in prof.identical_systems:
        pairs.append(("Identical systems", f"{' = '.join(group)}: the same prediction on every item (the same "
                                           "file under two names?); they tie under every metric"))
    for warning in audit.warnings:
        pairs.append(("Label warning", warning))
    blocks.append(Facts(tuple(pairs)))
    if len(ctx.systems) > 1 and verdict:
        blocks.append(leaderboard(ctx, verdict))
    return Section("summary", SECTION_TITLES["summary"], tuple(blocks), for_summary=True)


def leaderboard(ctx: Context, verdict: Verdict) -> Table:
    """Systems in the primary metric's order: significance group, key metrics with intervals,
    the best set of each metric in bold."""
    primary, keys = verdict.primary, list(verdict.key_metrics)
    leaders = {m: set(v) for m, v in verdict.leaders.items()} if verdict.tested else {}  # bold: best sets only
    group_of = {s: index + 1 for index, group in enumerate(verdict.groups) for s in group}
    columns = ([Column("Group", f"significance group under {ctx.name(primary)}")] if group_of else [])
    columns += [Column(ctx.short(m), ctx.name(m)) for m in keys]
    chance, untested = _chance_tests(ctx, primary), _untested(ctx, primary)
    if chance:
        columns.append(Column("Above chance", f"{ctx.name(primary)} above its shuffle baseline"))
    rows = []
    for s in ctx.systems:
        cells = [Cell(group_of.get(s), "count")] if group_of else []
        for m in keys:
            cell = ctx.score_cell(s, m)
            cells.append(Cell(cell.value, cell.kind, cell.mark, s in leaders.get(m, ()), cell.low, cell.high))
        if chance:
            p = chance.get(s)
            cells.append(Cell(untested_reason(ctx.audit.baselines.draws) if s in untested else "—" if p is None else
                              "yes" if p < ctx.alpha else "no"))
        rows.append(Row(s, tuple(cells)))
    has_ci = any(c.low is not None for r in rows for c in r.cells)
    if verdict.tested:
        correction = ctx.audit.statistics.correction
        caption = (f"Leaderboard (×100), ordered by {ctx.name(primary)}. Bold: the metric's best set — the top "
                   "system and every system not significantly worse than it ("
                   + ("approximate randomisation over clusters; " if ctx.audit.statistics.resampling is not None
                      else "exact McNemar for accuracy, approximate randomisation otherwise; ")
                   + f"{correction_name(correction)}-adjusted over the comparisons "
                   "with the top system; "
                   f"p ≥ α = {ctx.alpha:g}).")
        if group_of:
            caption += (f" Group: 1 = the best set under {ctx.short(primary)}; 2 = the best set of the systems "
                        "outside group 1, and so on (two members of a group may still differ significantly).")
        if ctx.audit.statistics.not_run:
            caption += (" No random draws (--bootstrap 0): only accuracy's exact McNemar tests ran, so only accuracy "
                        "has a best set and bold.")
    else:
        caption = (f"Leaderboard (×100), ordered by {ctx.name(primary)}. No value is bold: bold marks a best set, "
                   "and no significance tests ran.")
    if has_ci:
        caption += f" {ctx.brackets()}"
    if chance:
        caption += " " + _chance_rule(ctx, primary)
    return Table("summary-leaderboard", caption, "System", tuple(columns), tuple(rows),
                 "small" if has_ci else _density(len(columns)), inline_ci=True, for_paper=True, for_summary=True)


def _strongest_baseline(ctx: Context, metric_id: str) -> tuple[str, float, bool] | None:
    """(name, expected score, exact?) of the chance baseline scoring best under ``metric_id`` (highest; lowest for
    an error)."""
    result = ctx.audit.baselines
    record = ctx.records.get(metric_id)
    sign = 1.0 if record is None or record.higher_is_better else -1.0
    best = None
    for name in ("uniform", "prevalence", "majority"):
        entry = result.baselines.get(name, {}).get(metric_id) if result is not None else None
        stronger = entry is not None and entry.expected is not None and (
            best is None or sign * entry.expected > sign * best[1])
        if stronger:
            best = (name, entry.expected, entry.exact)
    return best


def _strongest_baselines(ctx: Context, keys: Sequence[str]) -> list[str]:
    """The strongest baseline of the first three key metrics (the leaderboard's), each as its tables show it."""
    out = []
    for metric_id in keys[:3]:
        best = _strongest_baseline(ctx, metric_id)
        if best:
            record = ctx.records.get(metric_id)
            shown = format_value(best[1], record.kind if record is not None else "score")
            out.append(f"{ctx.short(metric_id)}: {best[0]} {'' if best[2] else '≈'}{shown}")  # ≈: plug-in
    return out




def _chance_tests(ctx: Context, primary: str) -> dict[str, float | None]:
    """System -> the primary metric's shuffle p-value adjusted over the systems (None: undefined)."""
    result = ctx.audit.baselines
    if result is None:
        return {}
    return {s: (c.p_shuffle_adjusted if (c := result.chance.get(s, {}).get(primary)) is not None else None)
            for s in ctx.systems}


def _untested(ctx: Context, primary: str) -> set[str]:
    """The systems whose shuffle test of ``primary`` did not run (no draws, no exact test or settling bound)."""
    from auditor.analyses.shuffle_test import NOT_TESTED

    result = ctx.audit.baselines
    if result is None:
        return set()
    return {s for s in ctx.systems if (c := result.chance.get(s, {}).get(primary)) is not None
            and c.undefined is None and c.shuffle_p is not None and c.shuffle_p.method == NOT_TESTED}


def _chance_rule(ctx: Context, primary: str) -> str:
    """How "above chance" is decided, in one sentence."""
    result = ctx.audit.baselines
    correction = correction_name(result.correction)
    return (f"Above chance: {ctx.short(primary)} beats a shuffle of the system's own predictions (one-sided "
            f"permutation test, {result.p_method(primary)}; {correction}-adjusted over the {len(ctx.systems)} systems, "
            f"p < α).")


def not_above_chance(ctx: Context, primary: str | None) -> str | None:
    """Page 1's line naming the systems whose primary metric is not above chance (None: no test)."""
    if primary is None:
        return None
    tests = _chance_tests(ctx, primary)
    if not tests:
        return None
    untested = _untested(ctx, primary)
    below = [s for s, p in tests.items() if s not in untested and (p is None or p >= ctx.alpha)]
    total = len(tests)
    result = ctx.audit.baselines
    rule = (f"{ctx.short(primary)} against each system's own shuffle, "
            f"{correction_name(result.correction)} over the {total} systems")
    text = (f"{len(below)} of {total} {'system' if total == 1 else 'systems'} ({rule}): {', '.join(below)}" if below
            else f"none ({rule})")
    if untested and result.draws:
        named = ", ".join(s for s in ctx.systems if s in untested) if len(untested) <= 10 else \
            f"{len(untested)} of {total} systems"
        text = ("" if not below and len(untested) == total else f"{text}; ") + (
            f"not tested for {named}: their shuffles were not drawn, as {result.undrawn_because()}, and "
            f"{ctx.short(primary)} has no bound that settles the answer without draws")
    elif untested:
        text += (f"; {untested_reason(0)} for {', '.join(s for s in ctx.systems if s in untested)} (--bootstrap 0, and "
                 "no exact test or bound settles their answer)")
    return text
