"""Chance baselines: what uniform, prevalence, majority and shuffled predictors score."""
from __future__ import annotations

from typing import Any

from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Cell, Column, Paragraph, Row, Section, Table
from auditor.report.tables import _density


def baselines_section(ctx: Context) -> Section | None:
    baselines = ctx.document.get("baselines")
    if not baselines:
        return None
    keys = ctx.key_metrics()
    coverage = f"{100 * (1 - float((ctx.document.get('baselines_method') or {}).get('alpha', 0.05))):g}%"
    blocks: list[Any] = [Paragraph(
        "Expected score of predictors that ignore the input: uniform random, random with the gold prevalence, "
        f"and always the majority class; the {coverage} range is the Monte Carlo spread at this test-set size.")]
    rows = []
    for name in ("uniform", "prevalence", "majority"):
        metrics = (baselines.get(name) or {}).get("metrics")
        if not metrics:
            continue
        cells = []
        for m in keys:
            entry = metrics.get(m) or {}
            cells.append(Cell(entry.get("expected"), "score", low=entry.get("mc_low"), high=entry.get("mc_high")))
        rows.append(Row(name, tuple(cells)))
    if rows:
        blocks.append(Table("table-baselines", f"Expected score of each chance baseline, with the Monte Carlo {coverage} range.",
                            "Baseline", tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), tuple(rows),
                            _density(len(keys))))
    chance = {s: ctx.document["systems"][s].get("chance") for s in ctx.systems}
    chance = {s: c for s, c in chance.items() if c}
    if chance:
        for field_name, kind, caption in (
            ("margin", "score", "Each system's margin over the strongest chance baseline (×100; negative = below chance)."),
            ("p_shuffle", "p", "Permutation p-value of each system against a shuffle of its own predictions "
                               "(same bias, no information)."),
        ):
            rows = tuple(Row(s, tuple(Cell((c.get(m) or {}).get(field_name), kind) for m in keys))
                         for s, c in chance.items())
            blocks.append(Table(f"table-chance-{field_name}", caption, "System",
                                tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys))))
    return Section("baselines", SECTION_TITLES["baselines"], tuple(blocks))
