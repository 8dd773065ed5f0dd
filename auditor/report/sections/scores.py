"""Per-class scores: ROC AUC, average precision, log loss, Brier, ECE and the reliability diagram."""
from __future__ import annotations

from dataclasses import asdict
from typing import Any

from auditor.analyses.scores import ECE_BINS, SUM_TOLERANCE
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Cell, Column, Figure, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.tables import _density

SCORE_COLUMNS = (("roc_auc_macro", "AUC macro", "One-vs-rest ROC AUC, unweighted mean over classes"),
                 ("roc_auc_weighted", "AUC weighted", "One-vs-rest ROC AUC weighted by gold prevalence"),
                 ("average_precision_macro", "AP macro", "Average precision per class, unweighted mean"),
                 ("log_loss", "Log loss", "−(1/N) Σ ln p(gold); lower is better"),
                 ("brier", "Brier", "(1/N) Σ_i Σ_c (p_ic − y_ic)², in [0, 2]; lower is better"),
                 ("ece", "ECE", "Top-label expected calibration error, 15 equal-width bins; lower is better"))


@section(80)
def scores_section(ctx: Context) -> Section | None:
    """Ranking and calibration metrics of the systems that gave per-class scores, and a reliability
    diagram (``ctx.audit.scores``, :class:`auditor.analyses.scores.ScoreAnalysis`)."""
    analysis = ctx.audit.scores if ctx.audit is not None else None
    if analysis is None:
        return None
    systems = [s for s in ctx.systems if s in analysis.values]
    blocks: list[Any] = [Paragraph(
        f"{len(systems)} of {len(ctx.systems)} systems gave one score per label; their predicted label is the file's "
        "label column, else the highest score (a tie goes to the label whose name sorts first). AUC and AP rank items "
        "by each class's score (one-vs-rest, tied scores count ½); log loss, Brier (multi-class: sum over classes of "
        "the squared difference from the one-hot gold, averaged over items) and ECE (top label, "
        f"{ECE_BINS} equal-width confidence bins, (m−1)/M < confidence ≤ m/M) need probabilities: rows "
        f"summing to 1 within {SUM_TOLERANCE:g}, used as given. Intervals: {analysis.intervals}.")]
    rows = []
    for name in systems:
        cells = []
        for metric_id, short, _ in SCORE_COLUMNS:
            value = analysis.values[name][metric_id]
            mark = None
            if value.value is None:
                mark = ctx.ledger.mark(name, "undefined", short, value.undefined or "undefined")
            low, high = value.ci or (None, None)
            cells.append(Cell(value.value, "number", mark, low=low, high=high))
        rows.append((name, cells))
    table_rows = tuple(Row(name, tuple(cells)) for name, cells in rows)  # bold marks best sets only (no test here)
    blocks.append(Table("table-scores", "Ranking and calibration metrics of the per-class scores (three decimals, "
                                        "not ×100; higher AUC and AP, lower log loss, Brier and ECE are better).",
                        "System", tuple(Column(short, title) for _, short, title in SCORE_COLUMNS), table_rows,
                        _density(len(SCORE_COLUMNS) + 3), for_paper=True, for_summary=True))
    if analysis.notes:
        blocks.append(Bullets(analysis.notes, "Intervals not computed (time budget)"))
    reliability = {name: asdict(bins) for name in systems if (bins := analysis.reliability[name]) is not None}
    if ctx.figures and reliability:
        blocks.append(Figure("fig-reliability", f"Reliability diagram: mean confidence against accuracy in each of "
                                                f"the {ECE_BINS} confidence bins (empty bins left out; "
                                                "point area ~ items in the bin). On the dashed diagonal a system is "
                                                "calibrated; below it, over-confident.",
                             ctx.charts.reliability_chart(reliability)))
    return Section("scores", SECTION_TITLES["scores"], tuple(blocks), for_summary=True)
