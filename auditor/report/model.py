"""The report model: typed, frozen dataclasses that every renderer reads (cells, tables, figures,
sections, the undefined-value ledger's entries)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from auditor.formatting import CellKind

SCALE_NOTE = "Scores are shown ×100 with one decimal; shares as percentages."


@dataclass(frozen=True)
class Cell:
    """One table value. ``kind``: score, share, pp, count, p, tau, number, text.

    ``value`` None is shown as "—"; ``mark`` is the undefined-value ledger entry number;
    ``low``/``high`` a confidence interval (same kind); ``strong`` marks the column's best;
    ``approximate`` puts "≈" before the value (a plug-in value, not the exact expectation).
    """

    value: float | int | str | None
    kind: CellKind = "text"
    mark: int | None = None
    strong: bool = False
    low: float | None = None
    high: float | None = None
    approximate: bool = False


@dataclass(frozen=True)
class Column:
    label: str
    title: str = ""
    rotate: bool = False


@dataclass(frozen=True)
class Row:
    header: str
    cells: tuple[Cell, ...]
    anchor: str = ""


@dataclass(frozen=True)
class Table:
    id: str
    caption: str
    corner: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    density: str = "normal"  # normal | small | tiny (chosen from the column count)
    kind: str = "table"
    #: Intervals on the value's line instead of below it (one line per row).
    inline_ci: bool = False
    #: Goes into ``tables.tex`` (a table a paper ``\input``s).
    for_paper: bool = False
    #: Goes into ``summary.md`` (when its section does).
    for_summary: bool = False

    @property
    def lines(self) -> int:
        """Text lines the body takes (estimate): two where an interval sits below a value, more
        where a text cell wraps (about 45 characters a line)."""
        below = not self.inline_ci and any(c.low is not None for r in self.rows for c in r.cells)
        total = 0
        for row in self.rows:
            wrapped = max([len(row.header) // 28 + 1] + [len(str(c.value)) // 45 + 1 for c in row.cells
                                                          if c.kind == "text"])
            total += max(wrapped, 2 if below else 1)
        return total

    @property
    def compact(self) -> bool:
        """Kept on one page (with its caption) when it is short: moving it to the next page then
        leaves less than half a page empty. Longer tables break between rows, repeating their
        header; the caption stays with the first rows."""
        return self.lines <= 18

    @property
    def header_height(self) -> float:
        """Height (em) that rotated column headers need: the longest label's length."""
        longest = max((len(c.label) for c in self.columns if c.rotate), default=0)
        return round(0.62 * longest + 0.6, 1)


@dataclass(frozen=True)
class Figure:
    id: str
    caption: str
    svg: str
    kind: str = "figure"


@dataclass(frozen=True)
class Formula:
    label: str
    latex: str
    svg: str
    kind: str = "formula"


@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = "paragraph"


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    title: str = ""
    kind: str = "bullets"


@dataclass(frozen=True)
class Facts:
    """A definition list: (term, description) pairs."""

    pairs: tuple[tuple[str, str], ...]
    kind: str = "facts"


@dataclass(frozen=True)
class Definition:
    id: str
    name: str
    formula: Formula
    facts: Facts
    kind: str = "definition"


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    blocks: tuple[Any, ...]
    #: Goes into ``summary.md`` (its facts, bullets and the tables marked ``for_summary``).
    for_summary: bool = False
    #: Laid out in two balanced columns on paper (the classification report's formula cards: several per
    #: page). Balancing re-lays the section out several times, so a section that saves no page keeps one.
    two_columns: bool = False


@dataclass(frozen=True)
class LedgerEntry:
    number: int
    system: str
    state: str  # "undefined" | "convention"
    where: str
    text: str


@dataclass(frozen=True)
class Report:
    title: str
    subtitle: str
    signature: str
    scale_note: str
    sections: tuple[Section, ...]
    ledger: tuple[LedgerEntry, ...]
    #: A page's own legend in place of the audit's (undefined values, ledger, bold = best set): the plan pages.
    legend: str | None = None
    #: What the data is and where it comes from, said on page 1 (any task; e.g. that it is simulated, and how).
    about_data: str = ""

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)
