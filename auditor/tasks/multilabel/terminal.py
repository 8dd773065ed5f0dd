"""``auditor score --task multilabel``: the table at 80 columns (values ×100, each interval on the line below)."""
from __future__ import annotations

import textwrap
from typing import Any, Sequence

from auditor.formatting import plural
from auditor.tasks.multilabel.measures import BY_ID, SHORT

NAME_WIDTH = 18
WIDTH = 80
CELL = 12


def _order(audit: Any, sort: str | None) -> list[int]:
    order = list(range(len(audit.systems)))
    if sort is None:
        return order
    values, undefined = audit.values[sort]
    sign = 1 if BY_ID[sort].higher_is_better else -1
    return sorted(order, key=lambda s: (bool(undefined[s]), -sign * float(values[s])))


def score_lines(audit: Any, columns: Sequence[str], sort: str | None) -> list[str]:
    """Header, then per system a line of values and a line of intervals (when the bootstrap ran)."""
    profile = audit.profile()
    n, L = audit.aligned.n_items, len(audit.labels)
    lines = [f"{plural(n, 'item')}, {plural(L, 'label')}, gold {profile['cardinality']['gold']:.2f} labels per "
             f"item; values x100" + (f"; sorted by {sort}" if sort else ""),
             f"{'system':<{NAME_WIDTH}}" + "".join(f"{SHORT.get(m, m)[:CELL - 1]:>{CELL}}" for m in columns)]
    values = audit.values
    for s in _order(audit, sort):
        cells, spans = [], []
        for metric in columns:
            value, undefined = values[metric]
            text = f"{100 * float(value[s]):.1f}" + ("*" if undefined[s] else "")
            cells.append(f"{text:>{CELL}}")
            ci = audit.interval(metric, s)
            spans.append(f"{'' if ci is None else f'[{100 * ci[0]:.1f},{100 * ci[1]:.1f}]':>{CELL}}")
        lines.append(f"{audit.systems[s][:NAME_WIDTH - 1]:<{NAME_WIDTH}}" + "".join(cells))
        if audit.statistics is not None:
            lines.append(" " * NAME_WIDTH + "".join(spans))
    empty = ", ".join(f"{name} {profile['empty'][name]:,}" for name in audit.systems)
    lines += textwrap.wrap(f"empty predicted sets: {empty}", WIDTH)
    if any(values[m][1].any() for m in columns):
        lines.append("* 0/0 as a whole, shown as 0 (scikit-learn's zero_division=0)")
    lines.append("a 0/0 label or item counts 0 (zero_division=0); Hamming loss: lower is better")
    if audit.thresholding is not None:
        lines += textwrap.wrap(f"scores made sets: {', '.join(audit.thresholding.systems)} at threshold "
                               f"{audit.thresholding.signature_part()} ({audit.thresholding.how})", WIDTH)
    return lines
