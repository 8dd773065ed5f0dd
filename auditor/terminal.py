"""Terminal output of ``auditor score`` and ``auditor metrics`` (rich tables on stdout)."""
from __future__ import annotations

import sys
from typing import Sequence

from rich.console import Console
from rich.table import Table

from .pipeline import Audit
from .registry import REGISTRY, Metric

UNDEFINED_MARK = "—"
CONVENTION_MARK = "†"


def print_score_table(result: Audit, columns: Sequence[str], console: Console | None = None) -> None:
    """Systems × metrics to 4 decimals; '—' = undefined, '†' = a per-class 0/0 filled by convention.

    Below the table, every undefined value and every convention, each distinct reason once
    with the system/metric cells it applies to.
    """
    console = console or Console(soft_wrap=True, width=None if sys.stdout.isatty() else 220)
    table = Table(title=f"{len(result.systems)} systems, {result.n_items} items, {len(result.labels)} labels",
                  caption=f"{UNDEFINED_MARK} = undefined (0/0); {CONVENTION_MARK} = a per-class 0/0 counted by convention")
    table.add_column("system", no_wrap=True)
    for metric_id in columns:
        table.add_column(REGISTRY.metrics[metric_id].label, justify="right", no_wrap=True)
    notes: dict[str, list[str]] = {}
    for name, system in result.systems.items():
        cells = []
        for metric_id in columns:
            value = system.metrics[metric_id]
            if value.value is None:
                cells.append(UNDEFINED_MARK)
                notes.setdefault(f"undefined: {value.undefined}", []).append(f"{name}/{metric_id}")
            else:
                cells.append(f"{value.value:.4f}{CONVENTION_MARK if value.convention else ''}")
            if value.convention:
                notes.setdefault(value.convention, []).append(f"{name}/{metric_id}")
        table.add_row(name, *cells)
    console.print(table)
    for text, cells in notes.items():
        console.print(f"  {', '.join(cells)}: {text}", highlight=False)
    console.print(f"signature: {result.signature}", highlight=False)


def print_catalogue(console: Console | None = None) -> None:
    """One line per registered metric: id, name, formula, range, declared properties."""
    console = console or Console(soft_wrap=True)
    table = Table(title="metric catalogue (auditor metrics ID for details)")
    for column in ("id", "name", "range", "PI", "PII", "PIII", "PIV", "PV"):
        table.add_column(column)
    for metric in REGISTRY:
        p = metric.properties
        table.add_row(metric.id, metric.name, f"[{metric.range[0]:g}, {metric.range[1]:g}]",
                      *(_tick(x) for x in (p.monotonicity, p.class_sensitivity, p.decomposability,
                                           p.prevalence_invariance)), p.chance_correction)
    console.print(table)


def print_metric(metric: Metric, console: Console | None = None) -> None:
    """Everything the registry knows about one metric."""
    console = console or Console(soft_wrap=True)
    aliases = sorted(alias for alias, target in REGISTRY.aliases.items() if target == metric.id)
    p = metric.properties
    lines = [
        f"[bold]{metric.id}[/bold] — {metric.name}",
        f"formula (LaTeX): {metric.formula}",
        f"range: [{metric.range[0]:g}, {metric.range[1]:g}]   value under chance: {metric.chance or 'n/a'}",
        f"properties ({p.source}): monotonicity {_tick(p.monotonicity)}, class sensitivity {_tick(p.class_sensitivity)}, "
        f"decomposability {_tick(p.decomposability)}, prevalence invariance {_tick(p.prevalence_invariance)}, "
        f"chance correction {p.chance_correction}",
        f"undefined when: {metric.undefined_when or 'never as a whole'}",
        f"per-class 0/0: {metric.convention if metric.uses else 'not used'}",
        f"references: {'; '.join(metric.references) or '—'}",
        f"aliases: {', '.join(aliases) or '—'}",
    ]
    if metric.description:
        lines.insert(1, metric.description)
    for line in lines:
        console.print(line, highlight=False)


def _tick(flag: bool) -> str:
    return "yes" if flag else "no"
