"""The report model: typed, frozen dataclasses built from the typed audit (stage "build").

``build(audit)`` reads the :class:`~auditor.results.Audit` (``ctx.audit``) plus the metric
records (names, LaTeX formulas, references) and returns a :class:`Report`. Each section
builder reads its analysis's result; when the analysis did not run the section is absent —
never a placeholder. Numbers stay numbers here: every value is a :class:`Cell` whose
``kind`` tells the renderers' filters how to format it (scores ×100 with one decimal,
shares as percentages, p-values with three decimals). Undefined values (``null``) and
values filled by a convention carry the number of their entry in the undefined-value
ledger. Renderers (``auditor.formats.render``) read only this model.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from auditor.report.context import APPENDICES, SECTION_TITLES, Context, Ledger, _profile_line
from auditor.report.model import SCALE_NOTE, Bullets, Cell, Column, Paragraph, Report, Row, Section, Table
from auditor.report.references import cited, entry_text
from auditor.report.sections import builders
from auditor.report.sections.appendices import reproducibility_section
from auditor.report.sections.recommendation import recommendation_rules

if TYPE_CHECKING:
    from auditor.metrics.registry import Metric
    from auditor.results import Audit


#: The section builders in report order (each registered in its own module: auditor.report.sections).
BUILDERS: tuple[Callable[[Context], Section | None], ...] = builders()


def build(audit: Audit, figures: bool = True, records: Mapping[str, Metric] | None = None,
          rules: Sequence[str] | None = None, title: str = "Metric audit",
          sections: Sequence[tuple[int, Callable[[Context], Section | None]]] = (),
          extra: Mapping[str, Any] | None = None, signature: str | None = None) -> Report:
    """The report model of an :class:`~auditor.results.Audit`; ``records`` maps metric id ->
    :class:`~auditor.metrics.registry.Metric` (default: the audit's metrics and the per-class
    ones, which the recommendation can name), ``rules`` the rules appendix (default: the
    recommendation's rules). A task kind adds its own ``sections`` ((place, builder) pairs placed among the
    registered ones), what they read in ``extra`` (``Context.extra``) and its ``signature``."""
    from auditor.report import charts

    # every chart converted at once, in one child process, as the task and plan reports do
    return charts.batched(lambda: _build(audit, figures, records, rules, title, sections, extra or {}, signature))


def _build(audit: Audit, figures: bool, records: Mapping[str, Metric] | None, rules: Sequence[str] | None,
           title: str, sections: Sequence[tuple[int, Callable[[Context], Section | None]]] = (),
           extra: Mapping[str, Any] | None = None, signature: str | None = None) -> Report:
    from auditor.metrics.registry import REGISTRY
    from auditor.report import charts

    ledger = Ledger()
    if records is None:  # per-class records too: the recommendation can name class_recall (Opitz §8)
        records = {metric.id: metric for metric in (*audit.metrics, *REGISTRY.per_class())}
    ctx = Context(audit, records, ledger, figures, charts, charts.formula_svg,
                  {"rules": recommendation_rules() if rules is None else rules, "signature": signature, **(extra or {})})
    sections = [section for builder in (builders(sections) if sections else BUILDERS)
                if (section := builder(ctx)) is not None]
    entries = ledger.freeze()
    if entries:
        rows = tuple(Row(str(e.number), (Cell(e.system), Cell(e.state), Cell(e.where), Cell(e.text)), f"ledger-{e.number}")
                     for e in entries)
        sections.append(Section("ledger", SECTION_TITLES["ledger"], (
            Paragraph("Undefined values (0/0) are shown as “—”; values computed with a convention for a 0/0 part carry "
                      "a superscript number. Each number points to an entry here."),
            Table("table-ledger", "Undefined-value ledger.", "#",
                  (Column("System"), Column("State"), Column("Where"), Column("What and which convention")),
                  rows, "small", for_paper=True),
        )))
    sections.append(reproducibility_section(ctx))
    cited_works = references_section(sections)
    if cited_works is not None:
        sections.append(cited_works)
    letters = iter("ABCDEFGHIJ")
    sections = [dataclasses.replace(x, title=f"Appendix {next(letters)}: {x.title}") if x.id in APPENDICES else x
                for x in sections]
    gold = audit.sources["gold"].path if "gold" in audit.sources else None
    subtitle = f"{len(audit.systems)} systems scored against {gold}" if gold else _profile_line(audit)
    return Report(title, subtitle, signature or str(audit.signature), SCALE_NOTE, tuple(sections), entries)


def section_texts(sections: Sequence[Section]) -> list[str]:
    """Every sentence a reader sees in ``sections``: captions, paragraphs, facts, bullets, cells."""
    texts = []
    for section in sections:
        for block in section.blocks:
            texts += [str(getattr(block, name, "")) for name in ("caption", "text", "title", "name")]
            texts += [f"{a} {b}" for a, b in getattr(block, "pairs", ())]
            texts += [f"{a} {b}" for a, b in getattr(getattr(block, "facts", None), "pairs", ())]
            texts += list(getattr(block, "items", ()))
            texts += [str(c.value) for row in getattr(block, "rows", ()) for c in row.cells if c.kind == "text"]
    return texts


def references_section(sections: Sequence[Section]) -> Section | None:
    """Full entries (``auditor/references.bib``) of every work the sections cite by author and year."""
    works = cited(section_texts(sections))
    if not works:
        return None
    return Section("references", SECTION_TITLES["references"], (
        Paragraph("Works cited in this report, cited by author, year and section."),
        Bullets(tuple(entry_text(work) for work in works)),
    ), for_summary=True)
