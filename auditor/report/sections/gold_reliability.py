"""Reliability of the gold: agreement of the annotators and the ceiling it puts on scores."""
from __future__ import annotations

from typing import Any

from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Bullets, Cell, Column, Paragraph, Row, Section, Table
from auditor.report.tables import _density


def gold_reliability_section(ctx: Context) -> Section | None:
    """Agreement between the annotators of the gold (``--annotators``) and the ceiling it sets."""
    entry = ctx.document.get("gold_reliability")
    if not entry:
        return None
    definitions = entry.get("definitions") or {}
    names = {"raw_agreement": "Raw agreement", "unanimous": "Unanimous items", "cohen_kappa": "Cohen's κ (mean over pairs)",
             "fleiss_kappa": "Fleiss' κ", "krippendorff_alpha": "Krippendorff's α (nominal)"}
    undefined = entry.get("undefined") or {}
    rows = tuple(Row(title, (Cell(entry.get(key), "score"), Cell(undefined.get(key) or definitions.get(key, ""))))
                 for key, title in names.items())
    annotators = entry.get("annotators") or []
    blocks: list[Any] = [
        Paragraph(f"{len(annotators)} annotators ({', '.join(annotators)}) labelled the {entry.get('n_items')} gold "
                  "items. Inter-annotator agreement measures the quality of the gold and the subjectivity of the "
                  "task, and must be measured and reported; raw agreement ignores agreement by chance, which the "
                  "kappas and alpha subtract (slides-nlp-evaluation-protocol.md, 'Measuring inter annotator "
                  "agreement', 'Raw agreement drawback', 'Cohen's kappa'; 'Interpretation of Cohen's kappa': κ above "
                  "0.6 is usually considered ok and above 0.8 good)."),
        Table("table-agreement", "Agreement between the annotators (×100).", "Coefficient",
              (Column("Value"), Column("Definition")), rows, "small"),
    ]
    pairs = entry.get("cohen_kappa_pairs") or []
    if len(annotators) > 2:
        blocks.append(Table("table-agreement-pairs", "Cohen's κ of every pair of annotators (×100).", "Annotator",
                            tuple(Column(a) for a in annotators),
                            tuple(Row(a, tuple(Cell(x, "score") for x in row)) for a, row in zip(annotators, pairs)),
                            _density(len(annotators) + 1)))
    ceiling = entry.get("ceiling") or {}
    systems = [s for s in ctx.systems if "accuracy" in ctx.document["systems"][s]["metrics"]]
    if systems:
        rows = [Row("ceiling (annotators)", (Cell(ceiling.get("accuracy"), "score"), Cell(ceiling.get("kappa"), "score")))]
        rows += [Row(s, (ctx.score_cell(s, "accuracy"), ctx.score_cell(s, "kappa"))) for s in systems]
        blocks.append(Table("table-ceiling", "The systems against the ceiling set by agreement: raw agreement for "
                            "accuracy, mean Cohen's κ for κ (×100).", "System",
                            (Column(ctx.short("accuracy"), ctx.name("accuracy")), Column(ctx.short("kappa"), ctx.name("kappa"))),
                            tuple(rows), "small"))
    blocks.append(Paragraph("What the ceiling means: " + str(ceiling.get("meaning", ""))))
    above = ceiling.get("systems_above") or {}
    blocks.append(Bullets(tuple(f"{s} scores above the annotators' agreement in {', '.join(ms)}" for s, ms in above.items())
                          or ("No system scores above the annotators' agreement.",), "Systems above the ceiling"))
    return Section("gold-reliability", SECTION_TITLES["gold-reliability"], tuple(blocks))
