"""The one rule that turns a number into the text every output shows (report, terminal).

Kept apart from :mod:`auditor.formats.render` so that the terminal can format numbers without
importing jinja2 and the report model.
"""
from __future__ import annotations

import math
import re
from typing import Any, Literal

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
        # a negative value that rounds to 0.0 keeps its sign ("-0.0": −0.03 is not 0.0); an exact 0 is "0.0"
        return "0.0" if abs(value) < ZERO else f"{100 * value:.1f}"
    if kind == "count":
        return str(int(value))
    if kind == "rank":
        return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    if kind == "p":
        return "<0.001" if value < 0.001 else f"{value:.3f}"
    if kind == "tau":
        return f"{value:.2f}".replace("-0.00", "0.00")
    if kind == "number":
        return f"{value:.3f}"
    return str(value)


def nan_to_none(value: Any) -> float | None:
    """A float for the JSON and the report, ``None`` for a missing or undefined one (None, NaN, ±inf:
    JSON has no NaN, and an undefined value is ``null``, never 0)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None
