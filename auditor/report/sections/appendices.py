"""Appendices: metric definitions and confusion matrices (the ledger and reproducibility: auditor.report.skeleton)."""
from __future__ import annotations

from typing import Any

from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Cell, Column, Definition, Facts, Figure, Formula, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.skeleton import catalogue_facts
from auditor.report.tables import _density


@section(140)
def definitions_section(ctx: Context) -> Section:
    blocks: list[Any] = [Paragraph(
        "Notation: C_ij counts items of gold class i predicted as j (rows gold, columns predicted); N items; "
        "p_i = Σ_j C_ij / N prevalence; b_j = Σ_i C_ij / N bias; k labels averaged over.")]
    calibrated = []
    for metric_id in ctx.metric_ids():
        record = ctx.records.get(metric_id)
        if record is None:
            continue
        if record.family == "calibrated":
            calibrated.append(ctx.name(record.base) if record.base else record.name)
            continue
        blocks.append(Definition(metric_id, record.name,
                                 Formula(record.name, record.formula,
                                         ctx.formula_svg(record.formula) if ctx.figures else ""),
                                 Facts(tuple(catalogue_facts(record, metric_id)))))
    if calibrated:
        latex = r"C'_{ij} = \frac{N}{k}\,\frac{C_{ij}}{\sum_l C_{il}}"
        blocks.append(Definition("calibrated", "Prevalence-calibrated variants (Opitz 2024 §5.2)",
                                 Formula("calibration", latex, ctx.formula_svg(latex) if ctx.figures else ""),
                                 Facts((("definition", "the base metric computed on C′, where every gold class has "
                                         "prevalence 1/k; calibrated accuracy equals macro recall and calibrated "
                                         "weighted F1 equals the macro F1 of the calibrated matrix (Opitz §4.6)"),
                                        ("variants", "; ".join(calibrated)),
                                        ("id", "the base metric's id followed by “_calibrated”")))))
    return Section("definitions", SECTION_TITLES["definitions"], tuple(blocks), two_columns=True)


@section(160)
def confusion_section(ctx: Context) -> Section:
    labels, systems = ctx.labels, ctx.systems
    matrices = {s: ctx.audit.systems[s].confusion.tolist() for s in systems}
    blocks: list[Any] = [Paragraph("Orientation: rows = gold class, columns = predicted class (scikit-learn's "
                                   "convention; some papers use the transpose). A cell's colour is the step of its "
                                   "share of the gold class's items (the legend names each step; an empty cell is "
                                   "white); the numbers are counts.")]
    if len(labels) <= 3:
        if ctx.figures:
            blocks += _confusion_figures(ctx, "Confusion matrix of every system (rows gold, columns predicted).",
                                         matrices, counts=True)
        pairs = [(i, j) for i in range(len(labels)) for j in range(len(labels))]
        rows = tuple(Row(s, tuple(Cell(matrices[s][i][j], "count") for i, j in pairs)) for s in systems)
        blocks.append(Table("table-confusion", "Counts per system: column “g → p” counts items of gold class g "
                            "predicted as p.", "System",
                            tuple(Column(f"{labels[i]} → {labels[j]}", rotate=True) for i, j in pairs),
                            rows, _density(len(pairs) + 1)))
        return Section("confusion", SECTION_TITLES["confusion"], tuple(blocks))
    if len(labels) > ctx.charts.MAX_MATRIX_CLASSES:  # no chart of k × k cells: the largest confusions instead
        blocks.append(_largest_confusions(ctx, labels))
        return Section("confusion", SECTION_TITLES["confusion"], tuple(blocks))
    in_chart = ctx.figures and ctx.charts.confusion_counts_fit(labels, matrices)
    leaderboard = len(systems) > COUNT_TABLES_MAX_SYSTEMS
    if ctx.figures:  # small multiples, a page of them a chart (counts that overflow: left out)
        caption = "Confusion matrix of every system (rows gold, columns predicted), coloured by row share" + (
            ", every count printed in its cell (also in audit.json)." if in_chart else ".")
        blocks += _confusion_figures(ctx, caption, matrices, counts=in_chart or not leaderboard)
    if in_chart:  # one form: the chart carries every count
        return Section("confusion", SECTION_TITLES["confusion"], tuple(blocks))
    if leaderboard:  # counts in audit.json, not one table a system
        blocks.append(Paragraph(f"With {len(systems)} systems (more than {COUNT_TABLES_MAX_SYSTEMS}) the counts are "
                                "not tabulated system by system: every count is in audit.json, under each "
                                "system's confusion matrix."))
        return Section("confusion", SECTION_TITLES["confusion"], tuple(blocks))
    for index, s in enumerate(systems):
        matrix = matrices[s]
        if len(labels) <= 12:
            rows = tuple(Row(g, tuple(Cell(v, "count") for j, v in enumerate(matrix[i])))
                         for i, g in enumerate(labels))
            blocks.append(Table(f"table-confusion-{index}", f"{s}: counts (rows gold, columns predicted).",
                                "gold \\ predicted", tuple(Column(label, rotate=len(labels) > 6) for label in labels),
                                rows, _density(len(labels))))
    return Section("confusion", SECTION_TITLES["confusion"], tuple(blocks))


def _confusion_figures(ctx: Context, caption: str, matrices: dict[str, Any], counts: bool) -> list[Figure]:
    """The confusion small multiples, one figure a page (:func:`auditor.report.charts.confusion_pages`): the first
    ``fig-confusion``, the next ``fig-confusion-2`` and on, each caption saying which systems it holds."""
    pages = ctx.charts.confusion_pages(ctx.labels, ctx.systems)
    figures = []
    for number, systems in enumerate(pages, start=1):
        part = f" Chart {number} of {len(pages)}: systems {systems[0]} to {systems[-1]}." if len(pages) > 1 else ""
        figures.append(Figure("fig-confusion" if number == 1 else f"fig-confusion-{number}", caption + part,
                              ctx.charts.confusion_grid(ctx.labels, {s: matrices[s] for s in systems}, counts)))
    return figures


#: Above this many systems the confusion counts the chart cannot print get no table per system (audit.json has them).
COUNT_TABLES_MAX_SYSTEMS = 12
#: Off-diagonal cells listed per system when the matrices are too large to draw.
LARGEST_CONFUSIONS = 10


def _largest_confusions(ctx: Context, labels: tuple[str, ...] | list[str]) -> Table:
    """Per system, the ``LARGEST_CONFUSIONS`` largest off-diagonal cells (ties: first in label order)."""
    import numpy as np

    rows = []
    for s in ctx.systems:
        matrix = np.array(ctx.audit.systems[s].confusion, dtype=float)
        support = matrix.sum(axis=1)
        np.fill_diagonal(matrix, 0)
        flat = matrix.ravel()
        top = np.argsort(-flat, kind="stable")[:LARGEST_CONFUSIONS]
        for cell in top[flat[top] > 0]:
            i, j = divmod(int(cell), len(labels))
            rows.append(Row(s, (Cell(labels[i]), Cell(labels[j]), Cell(int(flat[cell]), "count"),
                                Cell(flat[cell] / support[i], "share"))))
    return Table("table-confusion-largest",
                 f"With {len(labels)} classes (more than {ctx.charts.MAX_MATRIX_CLASSES}) the k × k matrices are not "
                 f"drawn (audit.json has them in full): each system's "
                 f"{LARGEST_CONFUSIONS} largest confusions, with their share of the gold class.", "System",
                 (Column("Gold"), Column("Predicted"), Column("Items"), Column("Share of gold class")),
                 tuple(rows), "small")
