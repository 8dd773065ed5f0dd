"""The one rule that turns a number into the text every output shows (report, terminal).

Kept apart from :mod:`auditor.formats.render` so that the terminal can format numbers without
importing jinja2 and the report model.
"""
from __future__ import annotations

import math
from typing import Any, Literal

#: How a number is shown (:func:`format_value`): a score or share x 100 with one decimal, a count,
#: a rank, a p-value, a rank correlation, a plain number, or text as given.
CellKind = Literal["score", "share", "pp", "count", "rank", "p", "tau", "number", "text"]

MISSING = "—"


def format_value(value: Any, kind: CellKind | str) -> str:
    """One number as the report shows it (the single formatting rule of every renderer)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if kind in ("score", "share"):
        return f"{100 * value:.1f}".replace("-0.0", "0.0") if value < 0 and value > -0.0005 else f"{100 * value:.1f}"
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
