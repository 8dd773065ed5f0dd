"""The recommended metric set with reasons and sources, and the rules appendix."""
from __future__ import annotations

from typing import Any, Mapping

from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Bullets, Definition, Facts, Formula, Section


def recommendation_section(ctx: Context) -> Section | None:
    """Recommended metrics with formulas, measured reasons and the passages they follow; metrics to
    avoid; notes; where the two papers differ."""
    rec = ctx.document.get("recommendation")
    if not rec:
        return None
    blocks: list[Any] = []
    for entry in rec.get("metrics", []):
        latex = entry.get("formula") or getattr(ctx.records.get(entry["id"]), "formula", "")
        facts = tuple(("why", r) for r in entry.get("reasons", [])) + tuple(
            ("source", _source_text(source)) for source in entry.get("sources", []))
        blocks.append(Definition(f"recommended-{entry['id']}", f"{ctx.name(entry['id'])} ({entry.get('role', '')})",
                                 Formula(ctx.name(entry["id"]), latex, ctx.formula_svg(latex) if ctx.figures else ""),
                                 Facts(facts)))
    if rec.get("avoid"):
        blocks.append(Bullets(tuple(
            f"{ctx.name(a['id'])}: {'; '.join(a.get('reasons', []))}"
            + (f" ({'; '.join(_source_text(s) for s in a['sources'])})" if a.get("sources") else "")
            for a in rec["avoid"]), "Avoid here"))
    if rec.get("notes"):
        blocks.append(Bullets(tuple(note["text"] for note in rec["notes"]), "Notes"))
    if rec.get("papers_differ"):
        blocks.append(Bullets(tuple(f"{item['topic']}: {item['text']}" for item in rec["papers_differ"]),
                              "Where Opitz (2024) and Vickers et al. (2024) differ"))
    if rec.get("rules_fired"):
        blocks.append(Bullets(tuple(str(r) for r in rec["rules_fired"]), "Rules that fired (listed in the appendix)"))
    return Section("recommendation", SECTION_TITLES["recommendation"], tuple(blocks))


def _source_text(source: Mapping[str, Any]) -> str:
    """``Opitz 2024 §8: “quote”`` from a rule's source record (file, section, quote)."""
    author = "Opitz 2024" if source.get("file", "").startswith("opitz") else "Vickers et al. 2024"
    return f"{author} {source.get('section', '')}: \u201c{source.get('quote', '')}\u201d"


def rules_section(ctx: Context) -> Section | None:
    rules = ctx.extra.get("rules")
    if not rules:
        return None
    return Section("rules", SECTION_TITLES["rules"], (Bullets(tuple(rules)),))


def recommendation_rules() -> list[str] | None:
    """Rule texts from ``auditor.analyses.recommend.RULES`` when that module exists."""
    try:
        from auditor.analyses.recommend import RULES  # type: ignore[attr-defined]
    except ImportError:
        return None
    texts = []
    for rule in RULES:
        if isinstance(rule, str):
            texts.append(rule)
        else:
            name = getattr(rule, "id", None) or getattr(rule, "name", "")
            text = getattr(rule, "text", None) or getattr(rule, "description", None) or str(rule)
            refs = getattr(rule, "references", None)
            texts.append(f"{name}: {text}" + (f" ({'; '.join(refs)})" if refs else "") if name else text)
    return texts
