"""The one rule that turns a number into the text every output shows (report, terminal).

Kept apart from :mod:`auditor.formats.render` so that the terminal can format numbers without
importing jinja2 and the report model.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Literal, Sequence

#: How a number is shown (:func:`format_value`): a score or share x 100 with one decimal, a count,
#: a rank, a p-value, a rank correlation, a plain number, or text as given.
CellKind = Literal["score", "share", "pp", "count", "rank", "p", "tau", "number", "text"]

MISSING = "—"
#: The typographic minus (U+2212) of the report's HTML, PDF and Markdown (TeX writes its own).
MINUS = "\u2212"
#: Before a value that approximates its quantity (a plug-in f(E[C]) where E[f(C)] differs).
APPROXIMATE = "≈"
#: Values this close to 0 are 0 (an exact zero computed in floating point, e.g. −1e−17).
ZERO = 1e-12
#: Levels a p-value is read against: near one of them a p-value gets the digits that show its side.
ALPHAS = (0.1, 0.05, 0.01)
#: A hyphen-minus that is a sign: before a digit, at the start or after a space or an opening bracket.
_SIGN = re.compile(r"(?:(?<=^)|(?<=[\s(\[=,;:/]))-(?=\d|\.\d)")


def plural(count: int, noun: str) -> str:
    """``1 system``, ``2 systems``, ``1,000 items``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def typographic_minus(text: str) -> str:
    """``text`` with every sign "-" before a number written as U+2212 (hyphens in words left alone)."""
    return _SIGN.sub(MINUS, text)


def format_value(value: Any, kind: CellKind | str) -> str:
    """One number as the report shows it (the single formatting rule of every renderer)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if kind in ("score", "share"):
        return fixed(100 * value, 1, 100 * ZERO)
    if kind == "count":
        return str(int(value))
    if kind == "rank":
        return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    if kind == "p":
        return "<0.001" if value < 0.001 else format_p(value)
    if kind == "tau":
        return fixed(value, 2)
    if kind == "number":
        return fixed(value, 3)
    return str(value)


def fixed(value: float, digits: int, zero: float = ZERO) -> str:
    """``value`` with ``digits`` decimals, never a signed zero: a value within ``zero`` of 0 (an exact zero computed
    in floating point) is "0.0…"; any other value that would print as 0 gets up to three more decimals, enough to
    show its first digit and so its sign (−0.03 as "-0.03", not "-0.0" or "0.0"), else "0.0…"."""
    if abs(value) >= zero:
        for places in range(digits, digits + 4):
            text = f"{value:.{places}f}"
            if float(text) != 0:
                return text
    return f"{0:.{digits}f}"


def format_p(value: float, alphas: tuple[float, ...] = ALPHAS) -> str:
    """A p-value with three decimals, or with as many more as it takes (up to ten) for the printed number to
    sit on the same side of each level in ``alphas`` as the value: 0.049955 -> "0.04996", not "0.050"
    beside "p < 0.05"."""
    for digits in range(3, 11):
        text = f"{value:.{digits}f}"
        shown = float(text)
        if all((shown < alpha) == (value < alpha) and (shown == alpha) == (value == alpha) for alpha in alphas):
            return text
    return text


def format_small(value: float, significant: int = 2) -> str:
    """A small positive number in prose with ``significant`` digits and no exponent: 1/10101 -> "0.000099"."""
    if value == 0 or not math.isfinite(value):
        return str(value)
    digits = max(0, significant - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{digits}f}"


def nan_to_none(value: Any) -> float | None:
    """A float for the JSON and the report, ``None`` for a missing or undefined one (None, NaN, ±inf:
    JSON has no NaN, and an undefined value is ``null``, never 0)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def score_lines(systems: Sequence[str], metrics: Sequence[str], heads: Sequence[str],
                score: Callable[[str, str], tuple[float | None, float | None, float | None]], sort: str | None = None,
                width: int = 80) -> list[str]:
    """``auditor score``'s table of a task kind (:func:`fit_lines`): ``systems`` (by ``sort``'s value, best first,
    undefined last, ties in input order) × ``metrics`` (column ``heads``), each value ×100 as the report shows it
    with its interval ``[lo, hi]``; ``score(system, metric)`` is (value, lo, hi), None where there is none."""
    order = list(systems)
    if sort:
        values = {s: score(s, sort)[0] for s in order}
        order.sort(key=lambda s: (values[s] is None, -(values[s] or 0.0)))
    rows = []
    for system in order:
        cells = []
        for metric in metrics:
            value, low, high = score(system, metric)
            interval = "" if low is None or high is None else \
                f" [{format_value(low, 'score')}, {format_value(high, 'score')}]"
            cells.append(format_value(value, "score") + interval)
        rows.append((system, cells))
    return fit_lines(heads, rows, width)


def fit_lines(head: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]], width: int = 80,
              first: str = "system") -> list[str]:
    """A plain-text table that fits ``width`` columns: the first column (``first``, then each row's name, cut to
    24 characters), then right-aligned cells. A cell "value [lo, hi]" keeps its interval on its line while the
    table fits; otherwise every interval moves to a second line under its value, and columns that still do not
    fit go to a further block, the first column repeated."""
    name_width = min(24, max(len(first), *(len(name) for name, _ in rows))) if rows else len(first)

    def split(cell: str) -> tuple[str, str]:
        value, _, interval = cell.partition(" [")
        return value, f"[{interval}" if interval else ""

    for stacked in (False, True):
        widths = [max(len(h), *((len(c) if not stacked else max(map(len, split(c)))) for c in column))
                  for h, column in zip(head, zip(*(cells for _, cells in rows)) if rows else [()] * len(head))]
        if not stacked and name_width + sum(w + 2 for w in widths) <= width:
            break
    blocks, current, used = [], [], name_width
    for index, w in enumerate(widths):
        if current and used + w + 2 > width:
            blocks.append(current)
            current, used = [], name_width
        current.append(index)
        used += w + 2
    blocks.append(current)
    out = []
    for block in blocks:
        out.append(f"{first:<{name_width}}" + "".join(f"  {head[i]:>{widths[i]}}" for i in block))
        for name, cells in rows:
            parts = [split(cells[i]) if stacked else (cells[i], "") for i in block]
            out.append(f"{name[:name_width]:<{name_width}}" + "".join(f"  {v:>{widths[i]}}" for i, (v, _) in
                                                                      zip(block, parts)))
            if stacked and any(interval for _, interval in parts):
                out.append(" " * name_width + "".join(f"  {iv:>{widths[i]}}" for i, (_, iv) in zip(block, parts)))
    return out
