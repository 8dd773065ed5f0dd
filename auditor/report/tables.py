"""Table helpers shared by the section builders: density, transposition for many systems (a metric's best set in
bold: :func:`auditor.report.skeleton.score_table`)."""
from __future__ import annotations

from typing import Sequence

from auditor.report.model import Column, Row, Table


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
