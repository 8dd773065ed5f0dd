"""Table helpers shared by the section builders: density, transposition for many systems, best
values in bold."""
from __future__ import annotations

from typing import Sequence

from auditor.report.model import Cell, Column, Row, Table


def _density(columns: int) -> str:
    return "normal" if columns <= 9 else "small" if columns <= 16 else "tiny"


#: Above this many systems, a table with one column per system is drawn with one row per
#: system instead (labels as columns), so that 23+ systems fit the page width.
WIDE_SYSTEMS = 16


def _transposed(table: Table, corner: str) -> Table:
    """``table`` with rows and columns swapped: each column becomes a row, each row a column."""
    labels = [row.header for row in table.rows]
    columns = tuple(Column(label, rotate=len(labels) > 6 and max(map(len, labels)) > 6) for label in labels)
    rows = tuple(Row(column.label, tuple(row.cells[index] for row in table.rows))
                 for index, column in enumerate(table.columns))
    return Table(table.id, table.caption, corner, columns, rows, _density(len(columns) + 1), table.kind,
                 table.inline_ci, table.for_paper, table.for_summary)


def _fit_systems(table: Table, systems: Sequence[str]) -> Table:
    """One row per system when there are more than :data:`WIDE_SYSTEMS` system columns."""
    return _transposed(table, "System") if len(systems) > WIDE_SYSTEMS else table


def _with_best(rows: list[tuple[str, list[Cell]]], higher_better: Sequence[bool] | None = None) -> tuple[Row, ...]:
    """Mark the best defined value of every column strong (ties all strong)."""
    if not rows:
        return ()
    width = len(rows[0][1])
    best = []
    for column in range(width):
        values = [cells[column].value for _, cells in rows if isinstance(cells[column].value, (int, float))]
        best.append(max(values) if values and len(rows) > 1 else None)
    return tuple(
        Row(header, tuple(Cell(c.value, c.kind, c.mark, best[i] is not None and c.value == best[i], c.low, c.high)
                          for i, c in enumerate(cells)))
        for header, cells in rows
    )
