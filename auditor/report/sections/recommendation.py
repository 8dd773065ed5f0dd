"""The recommended metric set with reasons and sources, and the rules appendix."""
from __future__ import annotations

from typing import Any, Sequence

from auditor.analyses.recommend import PAPERS_DIFFER, RULES, rule_lines
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Paragraph, Section
from auditor.report.sections import EVERY_TASK, section
from auditor.report.skeleton import recommendation_section as recommendation_section_of


@section(130)
def recommendation_section(ctx: Context) -> Section | None:
    """Recommended metrics with formulas, measured reasons and the passages they follow; metrics to
    avoid; notes; where the two papers differ."""
    rec = ctx.audit.recommendation if ctx.audit is not None else None
    if rec is None:
        return None
    return record_section(ctx, rec, [Bullets(tuple(f"{item.topic}: {item.text}" for item in PAPERS_DIFFER),
                                             "Where Opitz (2024) and Vickers et al. (2023) differ")])


def record_section(ctx: Context, rec: Any, blocks: Sequence[Any] = (), title: str = SECTION_TITLES["recommendation"],
                   avoid_title: str = "Avoid here", for_summary: bool = True, lead: Sequence[Any] = ()) -> Section:
    """The section of a :class:`~auditor.analyses.recommend.Recommendation` (every task kind's record): the task's
    ``lead`` blocks, each recommended metric with its formula, the measured reasons and the passages quoted; the
    metrics to avoid with theirs; the notes, the task's own ``blocks`` and the rules that fired."""
    metrics = []
    for entry in rec.metrics:
        record = ctx.records.get(entry.id)
        facts = tuple(("why", r) for r in entry.reasons) + tuple(("source", s.quoted) for s in entry.sources)
        metrics.append((entry.id, entry.role, entry.formula or (record.formula if record is not None else ""), facts))
    avoid = ((a.id, "; ".join(a.reasons) + (f" ({'; '.join(s.quoted for s in a.sources)})" if a.sources else ""))
             for a in rec.avoid)
    shown: list[Any] = [Bullets(tuple(note.text for note in rec.notes), "Notes")] if rec.notes else []
    shown += blocks
    if rec.rules_fired:
        shown.append(Paragraph(f"Rules that fired (each stated in the appendix “{SECTION_TITLES['rules']}”): "
                               f"{', '.join(rec.rules_fired)}."))
    return recommendation_section_of(ctx, metrics, avoid, shown, title, avoid_title, for_summary, lead)


@section(130, tasks=("tagging", "translation"))
def unit_recommendation_section(ctx: Context) -> Section | None:
    """The recommendation record of a task counted per unit (tagging, translation), as :func:`record_section` lays
    out every task's: the metrics with formulas, measured reasons and passages, those to avoid, the rules fired."""
    rec = ctx.audit.recommendation
    return None if rec is None else record_section(ctx, rec)


@section(170, tasks=EVERY_TASK)
def rules_section(ctx: Context) -> Section | None:
    """The rules appendix the recommendation's "Rules that fired" points to, for every task kind that states its
    rules (``extra["rules"]``)."""
    rules = ctx.extra.get("rules")
    if not rules:
        return None
    return Section("rules", SECTION_TITLES["rules"], (Bullets(tuple(rules)),))


def recommendation_rules() -> list[str]:
    """Every rule of :data:`auditor.analyses.recommend.RULES` as one line: ``id: statement (references)``."""
    return rule_lines(RULES)
