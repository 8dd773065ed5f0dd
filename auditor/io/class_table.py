"""Read a paper's per-class results table (precision, recall, support per class) as printed.

A CSV, TSV or whitespace-separated UTF-8 file with a header naming the columns ``label``
(or ``class``), ``precision`` (``p``, ``prec``), ``recall`` (``r``, ``rec``), ``support``
(``n``, ``count``) and optionally ``f1`` (``f``, ``f-score``, ``f1-score``, ``fscore``); then
one line per class. Cells stay text (the digits as printed): how many digits a paper printed
is what bounds the counts behind them (:mod:`auditor.claims.evidence`). Lines starting with
``#`` and blank lines are skipped; line numbers in messages are the file's own.
"""
from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

from auditor.errors import InputError

#: A paper's table is a few kilobytes; anything larger is not one.
MAX_FILE_BYTES = 10_000_000
HEADER = "a header 'label precision recall support [f1]'"
#: Accepted header names per column (lower case).
COLUMN_NAMES = {
    "label": ("label", "class"), "precision": ("precision", "p", "prec"), "recall": ("recall", "r", "rec"),
    "support": ("support", "n", "count"), "f1": ("f1", "f", "f-score", "f1-score", "fscore"),
}


@dataclass(frozen=True)
class ClassRow:
    """One class of a per-class table, its numbers as printed (``f1`` None when not given)."""

    label: str
    precision: str
    recall: str
    support: str
    f1: str | None = None


def _read_text(path: str | os.PathLike[str], expected: str) -> str:
    """The file's UTF-8 text (at most :data:`MAX_FILE_BYTES`), or one :class:`InputError`."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise InputError(f"{name}: cannot read it ({error.strerror or error})") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{name}: larger than {MAX_FILE_BYTES // 1_000_000} MB; expected {expected}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{name} line {line}: not UTF-8 text") from None


def _split_cells(line: str) -> list[str]:
    """Cells of one line: tab-separated if it holds a tab, else CSV if it holds a comma, else
    separated by runs of whitespace."""
    if "\t" in line:
        return [cell.strip() for cell in line.split("\t")]
    if "," in line:
        return [cell.strip() for cell in next(csv.reader(io.StringIO(line)))]
    return line.split()


def read_class_table(path: str | os.PathLike[str]) -> tuple[ClassRow, ...]:
    """The rows of a per-class table file (layout in the module doc)."""
    name = os.fspath(path)
    lines = [(number, line) for number, line in enumerate(_read_text(name, "a paper's table").splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{name}: empty; expected {HEADER}")
    header_line, header_text = lines[0]
    header = [cell.lower() for cell in _split_cells(header_text)]
    index = {}
    for key, names in COLUMN_NAMES.items():
        found = [i for i, cell in enumerate(header) if cell in names]
        if found:
            index[key] = found[0]
        elif key != "f1":
            raise InputError(f"{name} line {header_line}: no {key!r} column; expected {HEADER}, "
                             f"found {header_text!r}")
    rows = []
    for number, line in lines[1:]:
        cells = _split_cells(line)
        if len(cells) < len(header):
            raise InputError(f"{name} line {number}: expected {len(header)} columns, found {len(cells)}")
        rows.append(ClassRow(cells[index["label"]], cells[index["precision"]], cells[index["recall"]],
                             cells[index["support"]], cells[index["f1"]] if "f1" in index else None))
    return tuple(rows)
