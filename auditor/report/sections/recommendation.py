"""The recommended metric set with reasons and sources, and the rules appendix."""
from __future__ import annotations

from typing import Any

from auditor.analyses.recommend import PAPERS_DIFFER, RULES, rule_lines
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Paragraph, Section
from auditor.report.sections import section
from auditor.report.skeleton import recommendation_section as recommendation_section_of


@section(130)
def recommendation_section(ctx: Context) -> Section | None:
    """Recommended metrics with formulas, measured reasons and the passages they follow; metrics to
    avoid; notes; where the two papers differ."""
    rec = ctx.audit.recommendation if ctx.audit is not None else None
    if rec is None:
        return None
    metrics = []
    for entry in rec.metrics:
        record = ctx.records.get(entry.id)
        facts = tuple(("why", r) for r in entry.reasons) + tuple(("source", s.quoted) for s in entry.sources)
        metrics.append((entry.id, entry.role, entry.formula or (record.formula if record is not None else ""), facts))
    avoid = ((a.id, "; ".join(a.reasons) + (f" ({'; '.join(s.quoted for s in a.sources)})" if a.sources else ""))
             for a in rec.avoid)
    blocks: list[Any] = []
    if rec.notes:
        blocks.append(Bullets(tuple(note.text for note in rec.notes), "Notes"))
    blocks.append(Bullets(tuple(f"{item.topic}: {item.text}" for item in PAPERS_DIFFER),
                          "Where Opitz (2024) and Vickers et al. (2023) differ"))
    if rec.rules_fired:
        blocks.append(Paragraph(f"Rules that fired (each stated in the appendix “{SECTION_TITLES['rules']}”): "
                                f"{', '.join(rec.rules_fired)}."))
    return recommendation_section_of(ctx, metrics, avoid, blocks)


@section(170)
def rules_section(ctx: Context) -> Section | None:
    rules = ctx.extra.get("rules")
    if not rules:
        return None
    return Section("rules", SECTION_TITLES["rules"], (Bullets(tuple(rules)),))


def recommendation_rules() -> list[str]:
    """Every rule of :data:`auditor.analyses.recommend.RULES` as one line: ``id: statement (references)``."""
    return rule_lines(RULES)
