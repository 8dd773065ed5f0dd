"""Terminal output of ``auditor score`` and ``auditor metrics`` (rich tables on stdout)."""
from __future__ import annotations

import sys
from typing import Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.pipeline import Audit
from auditor.metrics.registry import REGISTRY, Metric

UNDEFINED_MARK = "—"
CONVENTION_MARK = "†"


def visible(text: str) -> str:
    """``text`` with control characters (an ESC would drive the terminal) as ``\\xHH``."""
    return "".join(f"\\x{ord(ch):02x}" if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else ch for ch in str(text))


def plural(count: int, noun: str) -> str:
    """``1 system``, ``2 systems``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def print_score_table(result: Audit, columns: Sequence[str], console: Console | None = None) -> None:
    """Systems × metrics as the report shows them: ×100 with one decimal, each with its
    bootstrap percentile interval ``[lo, hi]`` when resamples were drawn; '—' = undefined,
    '†' = a per-class 0/0 filled by convention.

    Below the table, every undefined value and every convention, each distinct reason once
    with the system/metric cells it applies to. Names are printed literally (no rich markup).
    """
    from auditor.formatting import format_value

    console = console or Console(soft_wrap=True, width=None if sys.stdout.isatty() else 220)
    statistics = result.statistics
    if statistics is not None:
        interval = (f"[lo, hi] = {100 * (1 - statistics.alpha):g}% percentile bootstrap interval "
                    f"({statistics.bootstrap.B:,} resamples"
                    + ("; each confusion matrix resampled on its own, no paired tests" if
                       not result.counts.paired else "") + ")")
    else:
        interval = "no intervals (--bootstrap 0)"
    title = (f"{plural(len(result.systems), 'system')}, {plural(result.n_items, 'item')}, "
             f"{plural(len(result.labels), 'label')}; scores ×100 as in the report")
    table = Table(title=Text(title), caption=Text(f"{interval}; {UNDEFINED_MARK} = undefined (0/0); "
                                                  f"{CONVENTION_MARK} = a per-class 0/0 counted by convention"))
    table.add_column("system", overflow="fold")
    for metric_id in columns:
        table.add_column(Text(REGISTRY.metrics[metric_id].label), justify="right", overflow="fold")
    notes: dict[str, list[str]] = {}
    for name, system in result.systems.items():
        cells = []
        for metric_id in columns:
            value = system.metrics[metric_id]
            if value.value is None:
                cells.append(Text(UNDEFINED_MARK))
                notes.setdefault(f"undefined: {value.undefined}", []).append(f"{name}/{metric_id}")
            else:
                text = format_value(value.value, "score") + (CONVENTION_MARK if value.convention else "")
                ci = result.interval(name, metric_id)
                if ci is not None:
                    text += f" [{format_value(ci[0], 'score')}, {format_value(ci[1], 'score')}]"
                cells.append(Text(text))
            if value.convention:
                notes.setdefault(value.convention, []).append(f"{name}/{metric_id}")
        table.add_row(Text(visible(name)), *cells)
    console.print(table)
    for text, cells in notes.items():
        console.print(Text(visible(f"  {', '.join(cells)}: {text}")))
    reliability = result.gold_reliability
    if reliability is not None:  # --annotators: agreement of the gold's annotators, ×100 like the scores
        parts = [f"{title} {format_value(getattr(reliability, key), 'score')}" for key, title in (
            ("raw_agreement", "raw agreement"), ("cohen_kappa", "Cohen's κ (mean over pairs)"),
            ("fleiss_kappa", "Fleiss' κ"), ("krippendorff_alpha", "Krippendorff's α"))]
        console.print(Text(visible(f"gold reliability ({len(reliability.annotators)} annotators, ×100): "
                                   + ", ".join(parts))))
    console.print(Text(f"signature: {result.signature}"))


def print_catalogue(console: Console | None = None) -> None:
    """One line per registered metric: id, name, range, declared properties. Ids are never
    cut: the id column is as wide as the longest id and the name column wraps instead."""
    console = console or Console(soft_wrap=True)
    table = Table(title="metric catalogue (auditor metrics ID for details)", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True)
    widest = max((len(metric.id) for metric in REGISTRY), default=2)
    table.add_column("id", no_wrap=True, min_width=widest)
    table.add_column("name", overflow="fold", min_width=10, ratio=1)
    for column in ("range", "PI", "PII", "PIII", "PIV", "PV"):
        table.add_column(column, overflow="fold")
    for metric in REGISTRY:
        p = metric.properties
        table.add_row(Text(metric.id), Text(metric.name), f"[{metric.range[0]:g}, {metric.range[1]:g}]",
                      *(_tick(x) for x in (p.monotonicity, p.class_sensitivity, p.decomposability,
                                           p.prevalence_invariance)), p.chance_correction)
    console.print(table)


def print_metric(metric: Metric, console: Console | None = None) -> None:
    """Everything the registry knows about one metric."""
    console = console or Console(soft_wrap=True)
    aliases = sorted(alias for alias, target in REGISTRY.aliases.items() if target == metric.id)
    p = metric.properties
    lines = [
        Text.assemble((metric.id, "bold"), f" — {metric.name}"),
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
        console.print(line if isinstance(line, Text) else Text(line))


def _tick(flag: bool) -> str:
    return "yes" if flag else "no"
