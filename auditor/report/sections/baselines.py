"""Chance baselines: what uniform, prevalence, majority and shuffled predictors score."""
from __future__ import annotations

from typing import Any

from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Cell, Column, Paragraph, Row, Section, Table
from auditor.report.tables import _density


def baselines_section(ctx: Context) -> Section | None:
    """From the typed :class:`~auditor.analyses.baselines.ChanceBaselines` (None: section absent)."""
    result = ctx.audit.baselines
    if result is None:
        return None
    keys = ctx.key_metrics()
    coverage = ctx.level
    blocks: list[Any] = [Paragraph(
        "Expected score of predictors that ignore the input: uniform random, random with the gold prevalence, "
        f"and always the majority class; the {coverage} range is the Monte Carlo spread at this test-set size.")]
    rows = []
    for name in ("uniform", "prevalence", "majority"):
        metrics = result.baselines.get(name)
        if not metrics:
            continue
        cells = []
        for m in keys:
            entry = metrics.get(m)
            cells.append(Cell(None, "score") if entry is None else
                         Cell(entry.expected, "score", low=entry.mc_low, high=entry.mc_high))
        rows.append(Row(name, tuple(cells)))
    if rows:
        blocks.append(Table("table-baselines", f"Expected score of each chance baseline, with the Monte Carlo {coverage} range.",
                            "Baseline", tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), tuple(rows),
                            _density(len(keys))))
    chance = {s: result.chance[s] for s in ctx.systems if result.chance.get(s)}
    if chance:
        for field_name, kind, caption in (
            ("margin", "score", "Each system's margin over the strongest chance baseline (×100; negative = below chance)."),
            ("p_shuffle", "p", "Permutation p-value of each system against a shuffle of its own predictions "
                               "(same bias, no information)."),
        ):
            rows = tuple(Row(s, tuple(Cell(getattr(c[m], field_name) if m in c else None, kind) for m in keys))
                         for s, c in chance.items())
            blocks.append(Table(f"table-chance-{field_name}", caption, "System",
                                tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys))))
    return Section("baselines", SECTION_TITLES["baselines"], tuple(blocks))
