"""The ordinal report: classification's report skeleton of the levels' audit, with the ordinal sections placed in it.

Sections (place among the registered ones): the levels and each system's shift (25), the annotators' ordinal
agreement and its ceiling (32, with ``--annotators``), the constant baselines (42), the ordinal figures with the
confusion matrices drawn by distance from the diagonal (45), the ordinal property probes (92) and the recommendation
for levels (131), which replaces classification's (its rules are about unordered classes).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from auditor.report import skeleton
from auditor.report.charts import confusion_cells
from auditor.report.context import Context
from auditor.report.model import Bullets, Cell, Column, Facts, Figure, Paragraph, Row, Section, Table
from auditor.report.sections.recommendation import record_section
from auditor.report.tables import _density
from auditor.tasks.ordinal.advice import rules_appendix
from auditor.tasks.ordinal.measures import ORDINAL_IDS
from auditor.tasks.ordinal.probes import QUESTIONS, TITLES

#: The ordinal figures of the report's summary table and chance baselines.
KEY_FIGURES = ("mae_macro", "mae", "quadratic_kappa", "spearman", "kendall_tau_b", "cem_ord", "within_one")


def report_model(result: Any, figures: bool = True) -> Any:
    """The report model of ``result``, an :class:`~auditor.tasks.ordinal.result.OrdinalAudit` (not imported:
    the result imports this module, and no two modules import each other): :func:`auditor.report.build.build`
    of its levels' audit with the ordinal sections, its recommendation and its signature."""
    from auditor.report.build import build

    audit = result.audit
    extra = {"ordinal": result, "advice": result.results["recommendation"], "task_metrics": ORDINAL_IDS}
    sections = ((25, levels_section), (32, agreement_section), (42, constants_section), (45, figures_section),
                (92, properties_section), (131, recommendation_section))
    return build(dataclasses.replace(audit, recommendation=None), figures, title="Ordinal metric audit",
                 rules=list(rules_appendix()), sections=sections, extra=extra, signature=str(result.signature))


def _number(value: float | None) -> Cell:
    return Cell(value, "number")


def levels_section(ctx: Context) -> Section:
    """The order, the gold's level shares against each system's, and each system's shift."""
    result = ctx.extra["ordinal"]
    shift = result.results["level_shift"]
    levels = shift.levels
    n = float(shift.gold_counts.sum())
    rows = [Row("gold", (*(Cell(c / n, "share") for c in shift.gold_counts), _number(shift.mean_gold), Cell(""),
                         Cell(""), Cell(""), Cell("")))]
    for s, name in enumerate(shift.systems):
        rows.append(Row(name, (*(Cell(c / n, "share") for c in shift.predicted_counts[s]),
                               _number(shift.mean_predicted[s]), _number(shift.shift[s]), Cell(shift.above[s], "share"),
                               Cell(shift.below[s], "share"), _number(shift.distance[s]))))
    columns = (*(Column(level) for level in levels), Column("mean", "mean level number (1 = lowest)"),
               Column("shift", "mean predicted − mean gold level, in steps"),
               Column("above", "share predicted above the gold level"),
               Column("below", "share predicted below the gold level"),
               Column("EMD", "earth mover's distance between the level distributions, in steps"))
    constants = result.results["constant_baselines"]
    blocks: list[Any] = [
        Paragraph(result.order.statement),
        Paragraph(f"The gold's most frequent level is {constants.majority} and its median level {constants.median} "
                  "(the lowest level with half the items at or below it). A system can match the gold's spread of "
                  "levels and still be shifted: the shift is the mean predicted level minus the mean gold level, "
                  "and the earth mover's distance the fewest steps that move the gold's level shares onto the "
                  "system's."),
        Table("table-levels", "Level shares of gold and of each system's predictions (%), mean level, shift "
                              "(steps), shares predicted above and below gold (%), and the earth mover's distance "
                              "(steps).", "", columns, tuple(rows), _density(len(columns)), for_paper=True,
              for_summary=True),
    ]
    return Section("levels", "Levels", tuple(blocks), for_summary=True)


def agreement_section(ctx: Context) -> Section | None:
    """Krippendorff's ordinal alpha, the weighted kappas and the ceiling per figure (``--annotators``)."""
    agreement = ctx.extra["ordinal"].results.get("ordinal_agreement")
    if agreement is None:
        return None
    from auditor.tasks.ordinal.agreement import CEILING_MEANING

    facts = Facts((("Krippendorff's α (ordinal)", _shown(agreement.alpha_ordinal, "score")),
                   ("linear κ (mean over pairs)", _shown(agreement.kappa("linear"), "score")),
                   ("quadratic κ (mean over pairs)", _shown(agreement.kappa("quadratic"), "score"))))
    figures = [m for m in KEY_FIGURES if m in agreement.ceiling]
    rows = [Row("ceiling (annotators)", tuple(Cell(agreement.ceiling[m], ctx.records[m].kind) for m in figures))]
    rows += [Row(s, tuple(ctx.score_cell(s, m) for m in figures)) for s in ctx.systems]
    above = agreement.systems_above
    return Section("ordinal-agreement", "Ordinal agreement of the annotators", (
        Paragraph(f"{len(agreement.annotators)} annotators ({', '.join(agreement.annotators)}) levelled the gold "
                  "items. With levels, agreement counts how far two annotators are apart: Krippendorff's alpha at the "
                  "ordinal level (Krippendorff 2004) and weighted kappa (Cohen 1968); scores ×100."),
        facts,
        Table("table-ordinal-ceiling", "The systems against the ceiling the annotators set: each figure of one "
                                       "annotator scored against another (mean over ordered pairs).", "System",
              tuple(Column(ctx.short(m), ctx.name(m)) for m in figures), tuple(rows), _density(len(figures)),
              for_summary=True),
        Paragraph("What the ceiling means: " + CEILING_MEANING),
        Bullets(tuple(f"{s} scores better than the annotators under {', '.join(ctx.short(m) for m in ms)}"
                      for s, ms in above.items()) or ("No system scores better than the annotators.",),
                "Systems past the ceiling"),
    ), for_summary=True)


def _shown(value: float | None, kind: str) -> str:
    from auditor.formatting import format_value

    return format_value(value, kind)


def constants_section(ctx: Context) -> Section:
    """The prevalence sampler (classification's baselines), the majority and the median level, every value exact
    but the sampler's marked ≈."""
    result = ctx.extra["ordinal"]
    constants = result.results["constant_baselines"]
    figures = list(KEY_FIGURES)
    rows = []
    sampler = ctx.audit.baselines.baselines.get("prevalence") if ctx.audit.baselines is not None else None
    if sampler:
        rows.append(Row("prevalence sampler", tuple(
            Cell(None, ctx.records[m].kind) if sampler.get(m) is None else
            Cell(sampler[m].expected, ctx.records[m].kind, low=sampler[m].mc_low, high=sampler[m].mc_high,
                 approximate=not sampler[m].exact) for m in figures)))
    for title, level in ((f"majority level ({constants.majority})", constants.majority),
                         (f"median level ({constants.median})", constants.median)):
        rows.append(Row(title, tuple(Cell(constants.value(m, level), ctx.records[m].kind) for m in figures)))
    rows.append(Row("best constant", tuple(Cell(", ".join(constants.best[m]) or "—") for m in figures)))
    return Section("ordinal-baselines", "Chance baselines for levels", (
        Paragraph("What predictors that ignore the item score: random levels drawn with the gold shares (its expected "
                  f"matrix E[C] = row ⊗ p, with the Monte Carlo {ctx.level} range at this test-set size), the "
                  "majority level and the median level for every item. A constant's matrix is fixed, so its values "
                  "are exact; the median level is the best constant under MAE, as a median minimises a sum of "
                  "absolute distances. Errors in steps; the other figures ×100; “≈” marks a plug-in value f(E[C]) "
                  "that is not the expectation; “—” a figure a constant leaves undefined."),
        Table("table-ordinal-baselines", "Chance baselines under the ordinal figures.", "Baseline",
              tuple(Column(ctx.short(m), ctx.name(m)) for m in figures), tuple(rows), _density(len(figures)),
              for_paper=True, for_summary=True),
    ), for_summary=True)


def figures_section(ctx: Context) -> Section:
    """Every ordinal figure of every system with its interval; the confusion matrices by distance."""
    ids = list(ORDINAL_IDS)
    caption = ("The ordinal figures of every system: MAE, MSE and their macroaveraged forms in steps of the order "
               "(lower is better); the others ×100." + (f" Brackets: {ctx.level} bootstrap percentile interval."
                                                         if any(ctx.interval(s, m) for s in ctx.systems for m in ids)
                                                         else ""))
    blocks: list[Any] = [skeleton.score_table(ctx, "table-ordinal", caption, ids, for_paper=True, for_summary=True)]
    if ctx.figures and len(ctx.labels) <= 12:
        matrices = {s: ctx.audit.systems[s].confusion.tolist() for s in ctx.systems}
        blocks.append(Figure("fig-ordinal-confusion", "Confusion matrices drawn by distance from the diagonal: a "
                             "cell's colour is the signed distance (predicted − gold level, blue below the gold level, "
                             "orange above, white on the diagonal), its opacity the share of the gold level's items, "
                             "its number the items.", ctx.charts.vega_svg(distance_grid_spec(ctx.labels, matrices))))
    return Section("ordinal-figures", "Ordinal figures", tuple(blocks), for_summary=True)


def distance_grid_spec(labels: Sequence[str], matrices: dict[str, list[list[int]]]) -> dict[str, Any]:
    """Small multiples, one per system: cells coloured by signed distance from the diagonal, opacity by row share."""
    k = len(labels)
    position = {label: i for i, label in enumerate(labels)}
    cells = confusion_cells(labels, matrices)
    for cell in cells:
        cell["distance"] = position[cell["predicted"]] - position[cell["gold"]]
    size = max(14, min(32, 420 // (3 * k)))
    x = {"field": "predicted", "type": "nominal", "sort": list(labels), "title": "predicted",
         "axis": {"labelAngle": 0, "grid": False}}
    y = {"field": "gold", "type": "nominal", "sort": list(labels), "title": "gold", "axis": {"grid": False}}
    return {
        "data": {"values": cells}, "columns": 3,
        "facet": {"field": "system", "type": "nominal", "sort": list(matrices), "title": None,
                  "header": {"labelLimit": 150, "labelFontSize": 9}},
        "spec": {"width": size * k, "height": size * k, "layer": [
            {"mark": {"type": "rect", "stroke": "#ddd", "strokeWidth": 0.5}, "encoding": {
                "x": x, "y": y,
                "color": {"field": "distance", "type": "quantitative", "title": "predicted − gold (steps)",
                          "scale": {"scheme": "blueorange", "domain": [-(k - 1), k - 1]},
                          "legend": {"orient": "bottom", "direction": "horizontal"}},
                "opacity": {"field": "share", "type": "quantitative", "scale": {"domain": [0, 1], "range": [0.08, 1]},
                            "legend": None}}},
            {"mark": {"type": "text", "fontSize": 9}, "encoding": {
                "x": x, "y": y, "text": {"field": "count", "type": "quantitative"}}},
        ]},
        "resolve": {"axis": {"x": "independent", "y": "independent"}},
    }


def properties_section(ctx: Context) -> Section:
    """The four ordinal questions for every probed figure, with the witnesses."""
    answers = ctx.extra["ordinal"].results["ordinal_properties"].answers
    rows = tuple(Row(ctx.name(m), tuple(Cell(answers[m][q][0]) for q in QUESTIONS)) for m in answers)
    witnesses = []
    for metric_id, questions in answers.items():
        for question, (answer, witness) in questions.items():
            if witness is None or question == "middle" and answer != "yes":
                continue
            kind = ctx.records[metric_id].kind if metric_id in ctx.records else "score"
            shown = ", ".join(_shown(v, kind) for v in witness.values)
            matrices = "; ".join(str(m.astype(int).tolist()) for m in witness.matrices if m.shape[0] <= 3)
            witnesses.append(f"{ctx.short(metric_id)}, {TITLES[question]} = {answer}: {witness.text} "
                             f"({shown})" + (f"; matrices {matrices}" if matrices else ""))
    return Section("ordinal-properties", "What each figure rewards with levels", (
        Paragraph("Four questions asked of every figure on matrices built for them (Amigó et al. 2020 state the "
                  "first two as properties an ordinal measure should have; Baccianella et al. 2009 show the trivial "
                  "majority system of the second): does moving an item one step nearer its gold level always raise "
                  "the figure; can imbalance make a constant level look as good as an informative system; does "
                  "predicting the middle level pay on uniform gold; does every predictor that ignores its input "
                  "score one value. Each answer other than yes or complete has a witness below (audit.json has "
                  "every witness's matrices)."),
        Table("table-ordinal-properties", "The figures under the four questions.", "Figure",
              tuple(Column(TITLES[q]) for q in QUESTIONS), rows, "small", for_paper=True),
        Bullets(tuple(witnesses), "Witnesses"),
    ))


def recommendation_section(ctx: Context) -> Section:
    """The recommended ordinal figures with the facts measured here and the passages they follow (the record's
    section, :func:`auditor.report.sections.recommendation.record_section`)."""
    return record_section(ctx, ctx.extra["advice"], avoid_title="Not as the headline here", lead=(Paragraph(
        "For levels the recommendation weighs how far a miss is; classification's rules, about unordered classes, do "
        "not apply. Each reason is measured on this data."),))
