"""Reliability of the gold: agreement of the annotators and the ceiling it puts on scores."""
from __future__ import annotations

from typing import Any

from auditor.analyses.agreement import CEILING_MEANING, DEFINITIONS, ceiling
from auditor.formatting import nan_to_none
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Cell, Column, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.tables import _density


@section(30)
def gold_reliability_section(ctx: Context) -> Section | None:
    """Agreement between the annotators of the gold (``--annotators``) and the ceiling it sets
    (``ctx.audit.gold_reliability``, :class:`auditor.analyses.agreement.GoldReliability`)."""
    reliability = ctx.audit.gold_reliability if ctx.audit is not None else None
    if reliability is None:
        return None
    names = {"raw_agreement": "Raw agreement", "unanimous": "Unanimous items",
             "cohen_kappa": "Cohen's κ (mean over pairs)",
             "fleiss_kappa": "Fleiss' κ", "krippendorff_alpha": "Krippendorff's α (nominal)"}
    rows = tuple(Row(title, (Cell(getattr(reliability, key), "score"),
                             Cell(reliability.undefined.get(key) or DEFINITIONS.get(key, ""))))
                 for key, title in names.items())
    annotators = reliability.annotators
    blocks: list[Any] = [
        Paragraph(f"{len(annotators)} annotators ({', '.join(annotators)}) labelled the {reliability.n_items} gold "
                  "items. Inter-annotator agreement measures the quality of the gold and the subjectivity of the "
                  "task, and must be measured and reported; raw agreement ignores agreement by chance, which the "
                  "kappas and alpha subtract (Cohen 1960; Fleiss 1971; Krippendorff 2004)."),
        Table("table-agreement", "Agreement between the annotators (×100).", "Coefficient",
              (Column("Value"), Column("Definition")), rows, "small", for_paper=True, for_summary=True),
    ]
    if len(annotators) > 2:
        pairs = [[nan_to_none(x) for x in row] for row in reliability.cohen_kappa_pairs]
        blocks.append(Table("table-agreement-pairs", "Cohen's κ of every pair of annotators (×100).", "Annotator",
                            tuple(Column(a) for a in annotators),
                            tuple(Row(a, tuple(Cell(x, "score") for x in row)) for a, row in zip(annotators, pairs)),
                            _density(len(annotators) + 1)))
    systems = [s for s in ctx.systems if "accuracy" in ctx.audit.systems[s].metrics]
    bound = ceiling(reliability, {name: system.metrics for name, system in ctx.audit.systems.items()})
    if systems:
        rows = [Row("ceiling (annotators)", (Cell(bound.accuracy, "score"), Cell(bound.kappa, "score")))]
        rows += [Row(s, (ctx.score_cell(s, "accuracy"), ctx.score_cell(s, "kappa"))) for s in systems]
        blocks.append(Table("table-ceiling", "The systems against the ceiling set by agreement: raw agreement for "
                            "accuracy, mean Cohen's κ for κ (×100).", "System",
                            (Column(ctx.short("accuracy"), ctx.name("accuracy")),
                             Column(ctx.short("kappa"), ctx.name("kappa"))),
                            tuple(rows), "small", for_summary=True))
    blocks.append(Paragraph("What the ceiling means: " + CEILING_MEANING))
    above = bound.systems_above
    blocks.append(Bullets(tuple(f"{s} scores above the annotators' agreement in {', '.join(ms)}"
                                for s, ms in above.items())
                          or ("No system scores above the annotators' agreement.",), "Systems above the ceiling"))
    return Section("gold-reliability", SECTION_TITLES["gold-reliability"], tuple(blocks), for_summary=True)
