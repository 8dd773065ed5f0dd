"""The order of the levels: ``--order A1,A2,B1``, ``--order-file FILE``, or integer labels ordered by value.

Distances are steps of the order, and the order holds every level given, seen or not (a level no file
uses is still a step between its neighbours). Without an order, labels that are all integers are ordered
numerically and the report says so; ``1`` and ``1.0`` (two spellings of one value) are refused as
ambiguous; anything else is refused, asking for ``--order``. A level outside the order is refused with
one error naming it, its file and its line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from auditor.errors import InputError, UsageError
from auditor.io.column import LabelColumn

#: An integer, possibly written with a zero fraction (``3``, ``-2``, ``+1``, ``4.0``).
INTEGER = re.compile(r"^[+-]?\d+(\.0*)?$")
#: Levels shown in a message before "... and N more".
SHOWN = 8


@dataclass(frozen=True)
class Order:
    """The levels in order and where the order came from.

    ``how``: ``"given"`` (``--order``), ``"file"`` (``--order-file``) or ``"numeric"`` (integer labels ordered
    by value); ``source`` names it in messages and in the report (``--order``, the file's path).
    """

    levels: tuple[str, ...]
    how: str
    source: str

    @property
    def statement(self) -> str:
        """One sentence for the report: where the order comes from."""
        listed = " < ".join(self.levels)
        if self.how == "numeric":
            return (f"No order was given: the labels are all integers, so they are ordered by value ({listed}); "
                    f"a distance is a number of steps of this order (give --order to add levels no file uses).")
        return f"Levels in the order given by {self.source}: {listed}; a distance is a number of steps of this order."

    def to_json(self) -> dict[str, object]:
        return {"levels": list(self.levels), "how": self.how, "source": self.source}


def _listing(levels: Sequence[str]) -> str:
    shown = ", ".join(levels[:SHOWN])
    return shown + (f" and {len(levels) - SHOWN} more" if len(levels) > SHOWN else "")


def _checked(levels: list[str], source: str, lines: Sequence[int] | None = None) -> tuple[str, ...]:
    """``levels`` with empty and repeated levels refused (naming ``source`` and the line), at least two."""
    seen: dict[str, int] = {}
    for index, level in enumerate(levels):
        where = f"{source} line {lines[index]}" if lines is not None else source
        if not level:
            raise UsageError(f"{where}: an empty level in the order; expected levels separated by commas "
                             f"(--order A1,A2,B1) or one per line")
        if level in seen:
            raise UsageError(f"{where}: level {level!r} is given twice in the order; each level once, lowest first")
        seen[level] = index
    if len(levels) < 2:
        raise UsageError(f"{source}: an order needs at least two levels, lowest first (e.g. --order low,mid,high); "
                         f"found {len(levels)}")
    return tuple(levels)


def parse_order(text: str | None, path: str | None) -> Order | None:
    """The order of ``--order`` (comma-separated) or ``--order-file`` (comma-separated, or one level per line;
    blank lines and ``#`` comments skipped); None when neither is given."""
    if text is not None and path is not None:
        raise UsageError("--order and --order-file both give the order; give one of them")
    if text is not None:
        return Order(_checked([part.strip() for part in text.split(",")], "--order"), "given", "--order")
    if path is None:
        return None
    try:
        content = Path(path).read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise UsageError(f"--order-file {path}: no such file") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"--order-file {path}: not UTF-8 text (byte {error.start}); expected the levels, lowest "
                         f"first, comma-separated or one per line") from None
    except OSError as error:
        raise UsageError(f"--order-file {path}: cannot read it ({error.strerror})") from None
    numbered = [(number, line.strip()) for number, line in enumerate(content.splitlines(), 1)
                if line.strip() and not line.strip().startswith("#")]
    if len(numbered) == 1 and "," in numbered[0][1]:
        number, line = numbered[0]
        return Order(_checked([part.strip() for part in line.split(",")], f"{path} line {number}"), "file", path)
    return Order(_checked([line for _, line in numbered], path, [number for number, _ in numbered]), "file", path)


def _first_use(columns: Iterable[LabelColumn], text: str) -> str:
    """Where ``text`` is first used in ``columns`` (``gold.tsv line 3``)."""
    for column in columns:
        if text in column.categories:
            code = column.categories.index(text)
            return column.where(int(np.flatnonzero(column.codes == code)[0]))
    return "<nowhere>"


def numeric_order(columns: Sequence[LabelColumn]) -> Order:
    """The levels of ``columns`` ordered by value, when every label is an integer; else one error asking for an
    order (naming the first label that is not an integer and where it is), or naming two spellings of one value."""
    texts = sorted({text for column in columns for text in column.categories})
    value_of: dict[int, str] = {}
    for text in texts:
        if not INTEGER.match(text.strip()):
            raise UsageError(f"the levels need an order: label {text!r} ({_first_use(columns, text)}) is not an "
                             f"integer; give the levels lowest first with --order A,B,C or --order-file FILE")
        value = int(float(text)) if "." in text else int(text)
        if value in value_of:
            other = value_of[value]
            raise InputError(f"labels {other!r} ({_first_use(columns, other)}) and {text!r} "
                             f"({_first_use(columns, text)}) are one integer written two ways, so their order is "
                             f"ambiguous; write each level one way, or give them with --order")
        value_of[value] = text
    levels = tuple(value_of[value] for value in sorted(value_of))
    return Order(levels, "numeric", "the labels' integer values")


def check_levels(columns: Sequence[LabelColumn], order: Order) -> None:
    """Refuse a label outside the order: one error naming it, its file and line (and any other outside)."""
    allowed = set(order.levels)
    for column in columns:
        outside = [code for code, text in enumerate(column.categories) if text not in allowed]
        if not outside:
            continue
        first_item = int(np.flatnonzero(np.isin(column.codes, outside))[0])
        first = column.categories[column.codes[first_item]]
        others = sorted(column.categories[code] for code in outside if column.categories[code] != first)
        raise InputError(f"{column.where(first_item)}: level {first!r} is not in the order given by {order.source} "
                         f"({_listing(order.levels)})"
                         + (f"; also outside it: {_listing(others)}" if others else ""))
