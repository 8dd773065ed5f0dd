"""Terminal output of ``auditor score`` and ``auditor metrics`` (rich tables on stdout)."""
from __future__ import annotations

import sys
from typing import Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.formatting import plural
from auditor.metrics.registry import REGISTRY, Metric
from auditor.pipeline import Audit

UNDEFINED_MARK = "—"
CONVENTION_MARK = "†"


def visible(text: str) -> str:
    """``text`` with control characters (an ESC would drive the terminal) as ``\\xHH``."""
    return "".join(f"\\x{ord(ch):02x}" if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else ch for ch in str(text))


def terminal_width() -> int:
    """Columns to fit: the terminal's (``COLUMNS`` honoured); 220 when the output is not a terminal
    and ``COLUMNS`` is unset (a file or a pipe has no width)."""
    import os
    import shutil

    if "COLUMNS" in os.environ or sys.stdout.isatty():
        return max(40, shutil.get_terminal_size((220, 24)).columns)
    return 220


def _cell(result: Audit, name: str, metric: Metric, notes: dict[str, list[str]]) -> str:
    """One value ×100 (an error in steps: as it is) with its interval; '—' = undefined, '†' = a convention; the
    notes collected."""
    from auditor.formatting import format_value

    metric_id, kind = metric.id, metric.kind
    value = result.systems[name].metrics[metric_id]
    if value.convention:
        notes.setdefault(value.convention, []).append(f"{name}/{metric_id}")
    if value.value is None:
        notes.setdefault(f"undefined: {value.undefined}", []).append(f"{name}/{metric_id}")
        return UNDEFINED_MARK
    text = format_value(value.value, kind) + (CONVENTION_MARK if value.convention else "")
    ci = result.interval(name, metric_id)
    return text + (f" [{format_value(ci[0], kind)}, {format_value(ci[1], kind)}]" if ci is not None else "")


def _groups(widths: Sequence[int], first: int, width: int) -> list[list[int]]:
    """Column indices in groups that fit ``width`` beside the first column (2 characters between columns)."""
    groups: list[list[int]] = [[]]
    used = first + 1
    for index, w in enumerate(widths):
        if groups[-1] and used + w + 2 > width:
            groups.append([])
            used = first + 1
        groups[-1].append(index)
        used += w + 2
    return groups


def print_score_table(result: Audit, columns: Sequence[str], console: Console | None = None,
                      sort_by: str | None = None, signature: str | None = None, order: str | None = None) -> None:
    """Systems × metrics as the report shows them: ×100 with one decimal, each with its
    bootstrap percentile interval ``[lo, hi]`` when resamples were drawn; '—' = undefined,
    '†' = a per-class 0/0 filled by convention. ``sort_by``: systems by that metric, best first
    (undefined last), else in input order.

    No name, number or interval is ever broken: when the columns do not fit the terminal's width,
    the table is printed in several parts, each with the system column. Below it, every undefined
    value and every convention, each distinct reason once with the cells it applies to. Names are
    printed literally (no rich markup). A task may pass its own ``signature`` and a sentence on its label
    ``order`` (ordinal levels), printed under the title.
    """
    console = console or Console(soft_wrap=True, width=terminal_width())
    names = list(result.systems)
    records = {**REGISTRY.metrics, **{metric.id: metric for metric in result.metrics}}
    if sort_by is not None:
        value = {s: result.systems[s].metrics[sort_by].value for s in names}
        sign = 1.0 if records[sort_by].higher_is_better else -1.0
        names.sort(key=lambda s: (value[s] is None, -sign * (value[s] or 0.0)))
    notes: dict[str, list[str]] = {}
    cells = {name: [_cell(result, name, records[metric_id], notes) for metric_id in columns] for name in names}
    labels = [records[metric_id].label for metric_id in columns]
    errors = [records[metric_id].label for metric_id in columns if records[metric_id].kind == "number"]
    widths = [max([len(label)] + [len(cells[n][i]) for n in names]) for i, label in enumerate(labels)]
    first = max([len("system")] + [len(visible(n)) for n in names])
    title = (f"{plural(len(result.systems), 'system')}, {plural(result.n_items, 'item')}, "
             f"{plural(len(result.labels), 'label')}; scores ×100 as in the report"
             + (f" ({', '.join(errors)} in steps, lower is better)" if errors else "")
             + (f"; sorted by {records[sort_by].label}" if sort_by else ""))
    _wrapped(console, visible(title))
    if order:
        _wrapped(console, visible(order))
    for group in _groups(widths, first, console.width):
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
        table.add_column("system", no_wrap=True, min_width=first)
        for index in group:
            table.add_column(Text(labels[index]), justify="right", no_wrap=True, min_width=widths[index])
        for name in names:
            table.add_row(Text(visible(name)), *(Text(cells[name][index]) for index in group))
        console.print(table)
        console.print()
    _wrapped(console, f"{_interval_note(result)}; {UNDEFINED_MARK} = undefined (0/0); {CONVENTION_MARK} = a "
                      "per-class 0/0 counted by convention")
    for text, where in notes.items():
        _wrapped(console, visible(f"{', '.join(where)}: {text}"), indent="  ")
    reliability = result.gold_reliability
    if reliability is not None:  # --annotators: agreement of the gold's annotators, ×100 like the scores
        from auditor.formatting import format_value

        parts = [f"{title} {format_value(getattr(reliability, key), 'score')}" for key, title in (
            ("raw_agreement", "raw agreement"), ("cohen_kappa", "Cohen's κ (mean over pairs)"),
            ("fleiss_kappa", "Fleiss' κ"), ("krippendorff_alpha", "Krippendorff's α"))]
        _wrapped(console, visible(f"gold reliability ({len(reliability.annotators)} annotators, ×100): "
                                  + ", ".join(parts)))
    console.print(Text(f"signature: {signature or result.signature}"))


def _interval_note(result: Audit) -> str:
    """What the ``[lo, hi]`` after a value is (or that there are none)."""
    statistics = result.statistics
    if statistics is None or not statistics.bootstrap.B:
        return ("no intervals (--bootstrap 0: no random draws, so no intervals, ranks, randomisation tests or Monte "
                "Carlo chance ranges; exact tests and exact expectations stay)")
    return (f"[lo, hi] = {100 * (1 - statistics.alpha):g}% percentile bootstrap interval "
            f"({statistics.bootstrap.B:,} resamples"
            + ("; each confusion matrix resampled on its own, no paired tests" if not result.counts.paired else "")
            + ")")


def _wrapped(console: Console, text: str, indent: str = "") -> None:
    """``text`` wrapped at spaces to the console's width (a word is never cut)."""
    import textwrap

    lines = textwrap.wrap(text, width=max(20, console.width), initial_indent=indent, subsequent_indent=indent + "  ",
                          break_long_words=False, break_on_hyphens=False)
    for line in lines:
        console.print(Text(line))


def print_catalogue(console: Console | None = None) -> None:
    """One line per registered metric: id, name, range, declared properties. Ids are never
    cut: the id column is as wide as the longest id and the name column wraps instead."""
    console = console or Console(width=terminal_width())
    table = Table(title="metric catalogue (auditor metrics ID for details)", box=box.SIMPLE_HEAD, pad_edge=False,
                  padding=0, show_edge=False)  # the box draws one space between columns: all eight fit 80 columns
    import textwrap

    widest = max((len(metric.id) for metric in REGISTRY), default=2)
    table.add_column("id", no_wrap=True, min_width=widest)
    widths = {"range": max(len(metric.range_label) for metric in REGISTRY), "PV": len("complete")}
    small = {column: max(len(column), 3, widths.get(column, 0))
             for column in ("range", "PI", "PII", "PIII", "PIV", "PV")}
    # the name column takes what the others leave, wrapped at spaces and hyphens (never mid-word)
    name_width = max(console.width - widest - sum(small.values()) - len(small) - 1,
                     max((len(part) for metric in REGISTRY for part in metric.name.replace("-", "- ").split()),
                         default=10))
    table.add_column("name", no_wrap=True, width=name_width)
    for column, width in small.items():
        table.add_column(column, no_wrap=True, min_width=width)
    for metric in REGISTRY:
        p = metric.properties
        name = textwrap.fill(metric.name, name_width, break_long_words=False, break_on_hyphens=True)
        table.add_row(Text(metric.id), Text(name), metric.range_label,
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
        f"range: {metric.range_label}   value under chance: {metric.chance or 'n/a'}",
        f"properties ({p.source}): monotonicity {_tick(p.monotonicity)}, "
        f"class sensitivity {_tick(p.class_sensitivity)}, "
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
