"""The metric table: every catalogue metric of every system, with its interval."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from auditor.formatting import format_value
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Cell, Column, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.sections.summary import _strongest_baseline
from auditor.report.skeleton import metric_figure
from auditor.report.tables import _density


@section(50)
def metrics_section(ctx: Context) -> Section:
    ids = ctx.metric_ids()
    own = set(ctx.extra.get("task_metrics", ()))  # a task's own figures: its own section shows them
    main = [m for m in ids if ctx.family(m) != "calibrated" and m not in own]
    calibrated = [m for m in ids if ctx.family(m) == "calibrated"]
    has_ci = any(ctx.interval(s, m) for s in ctx.systems for m in ids)
    blocks: list[Any] = []
    if ctx.figures:
        keys = ctx.key_metrics()
        chance = {m: (best or (None, None))[1] for m in keys for best in [_strongest_baseline(ctx, m)]}
        blocks.append(metric_figure(ctx, "fig-metrics", "Key metric values per system (×100)" +
                                    (f" with {ctx.level} bootstrap intervals" if has_ci else "") +
                                    (", systems ordered by the primary metric; dashed red line: the expected score of "
                                     "the strongest chance baseline (uniform, prevalence or majority; see Chance "
                                     "baselines)." if any(v is not None for v in chance.values()) else "."),
                                    keys, chance=chance))
    for table_id, chosen, caption in (
        ("table-metrics", main, "Every metric for every system (×100)." + _bold_rule(ctx)),
        ("table-calibrated", calibrated, "Prevalence-calibrated variants (Opitz 2024 §5.2): each gold class rescaled "
                                         "to prevalence 1/k before the metric is computed (×100)."),
    ):
        if not chosen:
            continue
        if table_id == "table-calibrated" and _calibration_changes_nothing(ctx, chosen):
            blocks.append(Paragraph("The prevalence-calibrated variants (Opitz 2024 §5.2: each gold class rescaled to "
                                    "prevalence 1/k before the metric is computed) equal the values above at the "
                                    "precision shown, because the gold is balanced or nearly so; they are not repeated "
                                    "here (audit.json has them)."))
            continue
        if has_ci:
            caption += f" {ctx.brackets()}"
        rows = tuple(Row(s, tuple(_in_best_set(ctx, s, m) for m in chosen)) for s in ctx.systems)
        blocks.append(Table(table_id, caption, "System", tuple(Column(ctx.short(m), ctx.name(m)) for m in chosen),
                            rows, _density(len(chosen) + (4 if has_ci else 0)), for_paper=True,
                            for_summary=table_id == "table-metrics"))
    return Section("metrics", SECTION_TITLES["metrics"], tuple(blocks), for_summary=True)


def _bold_rule(ctx: Context) -> str:
    tested = [m for m in ctx.metric_ids() if ctx.best(m) is not None]
    if not tested:
        return " No value is bold: bold marks a best set, and no significance tests ran."
    from auditor.options import correction_name
    from auditor.report.skeleton import TEST_NAMES

    by_test: dict[str, list[str]] = {}
    for m in tested:
        by_test.setdefault(TEST_NAMES.get(ctx.spine.best_set[m].test, ""), []).append(ctx.short(m))
    tests = "; ".join(f"{', '.join(metrics)}: {test}" for test, metrics in by_test.items())
    return (f" Bold: the metric's best set, the top system and every system not significantly worse ({tests}; "
            f"{correction_name(ctx.spine.correction)}-adjusted over the comparisons with the top system, p ≥ α "
            f"({ctx.alpha:g})); no bold under an untested metric.")


def _in_best_set(ctx: Context, system: str, metric_id: str) -> Cell:
    cell = ctx.score_cell(system, metric_id)
    return replace(cell, strong=system in (ctx.best(metric_id) or ()))


def _calibration_changes_nothing(ctx: Context, calibrated: list[str]) -> bool:
    """Whether every calibrated value reads the same as its base metric's (×100, one decimal)."""
    for s in ctx.systems:
        metrics = ctx.audit.systems[s].metrics
        for metric_id in calibrated:
            base = metrics.get(metric_id.removesuffix("_calibrated"))
            value = metrics[metric_id].value
            if base is None or format_value(base.value, "score") != format_value(value, "score"):
                return False
    return True

