"""Read a paper's per-class results table (precision, recall, support per class) as printed or pasted.

Three shapes, chosen from the content:

* a CSV, TSV or whitespace-separated UTF-8 file with a header naming the columns ``label``
  (or ``class``, or an unnamed first column as pandas writes it), ``precision`` (``p``, ``prec``),
  ``recall`` (``r``, ``rec``), ``support`` (``n``, ``count``) and optionally ``f1`` (``f``,
  ``f-score``, ``f1-score``, ``fscore``); then one line per class;
* scikit-learn's ``classification_report`` text pasted as it is: a header of the value columns
  only (``precision recall f1-score support``), columns aligned by runs of two or more spaces,
  class names that may hold single spaces;
* its ``output_dict=True`` JSON (class -> {precision, recall, f1-score, support}).

Rows named ``accuracy``, ``macro avg``, ``weighted avg``, ``micro avg`` or ``samples avg``
(:data:`SUMMARY_NAMES`) are summaries of the classes, never classes: they are kept apart
(:class:`SummaryRow`) for the checker to hold against the classes. A class named twice is
refused; a support of 0 (a class never in gold, normal in scikit-learn reports) is a class.
Cells stay text (the digits as printed): how many digits a paper printed is what bounds the
counts behind them (:mod:`auditor.claims.evidence`). Lines starting with ``#`` and blank lines
are skipped; line numbers in messages are the file's own.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Iterator

from auditor.errors import InputError
from auditor.files import read_small_text

#: A paper's table is a few kilobytes; anything larger is not one.
MAX_FILE_BYTES = 10_000_000
HEADER = "a header 'label precision recall support [f1]'"
#: Accepted header names per column (lower case).
COLUMN_NAMES = {
    "label": ("label", "class"), "precision": ("precision", "p", "prec"), "recall": ("recall", "r", "rec"),
    "support": ("support", "n", "count"), "f1": ("f1", "f", "f-score", "f1-score", "fscore"),
}
#: Row names of scikit-learn's summary rows (lower case).
SUMMARY_NAMES = ("accuracy", "macro avg", "weighted avg", "micro avg", "samples avg")
_VALUES = ("precision", "recall", "f1", "support")


@dataclass(frozen=True)
class ClassRow:
    """One class of a per-class table, its numbers as printed (``f1`` None when not given)."""

    label: str
    precision: str
    recall: str
    support: str
    f1: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class SummaryRow:
    """A summary row (``macro avg``...), its numbers as printed; None where the row has no cell
    (scikit-learn's ``accuracy`` row prints only its value, in the f1-score column, and support)."""

    name: str
    precision: str | None
    recall: str | None
    f1: str | None
    support: str | None
    line: int | None = None


@dataclass(frozen=True)
class ClassTable:
    """The class rows of a table (iterating gives them) and its summary rows."""

    rows: tuple[ClassRow, ...]
    summaries: tuple[SummaryRow, ...] = ()
    source: str = ""

    def __iter__(self) -> Iterator[ClassRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> ClassRow:
        return self.rows[index]


def _splitter(header: str):
    """How to cut a line into cells, from the header: tabs, CSV, runs of two or more spaces
    (aligned text such as scikit-learn's report, whose names may hold single spaces), or
    single runs of whitespace."""
    if "\t" in header:
        return lambda line: [cell.strip() for cell in line.split("\t")]
    if "," in header:
        return lambda line: [cell.strip() for cell in next(csv.reader(io.StringIO(line)))]
    if len(re.split(r"\s{2,}", header.strip())) >= 3:
        width = len(re.split(r"\s{2,}", header.strip()))

        def aligned(line: str) -> list[str]:
            cells = re.split(r"\s{2,}", line.strip())
            return cells if len(cells) >= width else line.split()  # a row spaced by single spaces

        return aligned
    return lambda line: line.split()


def _columns(header: list[str], name: str, line: int, text: str) -> dict[str, int]:
    """Column index per value; ``label`` -1 when the header names only values (scikit-learn)."""
    cells = [cell.lower() for cell in header]
    index = {}
    for key, names in COLUMN_NAMES.items():
        found = [i for i, cell in enumerate(cells) if cell in names]
        if found:
            index[key] = found[0]
        elif key == "label" and cells and cells[0] == "":
            index[key] = 0  # pandas' unnamed index column
        elif key == "label":
            index[key] = -1
        elif key != "f1":
            raise InputError(f"{name} line {line}: no {key!r} column; expected {HEADER}, found {text!r}")
    return index


def _cells_by_column(cells: list[str], index: dict[str, int], header_width: int, summary: bool
                     ) -> dict[str, str | None]:
    """Values of one row by column name (empty cells None); a summary row with fewer cells than
    the header (scikit-learn's ``accuracy``: value and support) is aligned from the right."""
    if index["label"] == -1:
        cells = cells[1:]  # the values alone, numbered as the header's cells
    shift = max(0, header_width - len(cells)) if summary else 0

    def cell(key: str) -> str | None:
        j = index[key] - shift if key in index else -1
        return cells[j] if 0 <= j < len(cells) and cells[j] != "" else None

    return {key: cell(key) for key in _VALUES}


def _table(rows: list[tuple[int, str, dict[str, str | None]]], name: str) -> ClassTable:
    """Rows (line, label, values) -> a :class:`ClassTable`, refusing a class or summary named twice."""
    seen: dict[str, int] = {}
    classes, summaries = [], []
    for number, label, values in rows:
        key = label.strip().lower() if label.strip().lower() in SUMMARY_NAMES else label
        if key in seen:
            raise InputError(f"{name} line {number}: {'summary row' if key in SUMMARY_NAMES else 'class'} "
                             f"{label!r} appears twice (first on line {seen[key]}); expected one row per class")
        seen[key] = number
        if key in SUMMARY_NAMES:
            summaries.append(SummaryRow(key, values["precision"], values["recall"], values["f1"], values["support"],
                                        number))
            continue
        missing = [k for k in ("precision", "recall", "support") if not values[k]]
        if missing:
            raise InputError(f"{name} line {number}: class {label!r} has no {missing[0]}; expected {HEADER}")
        classes.append(ClassRow(label, values["precision"] or "", values["recall"] or "", values["support"] or "",
                                values["f1"], number))
    return ClassTable(tuple(classes), tuple(summaries), name)


def _json_table(text: str, name: str) -> ClassTable:
    """scikit-learn's ``classification_report(..., output_dict=True)`` JSON."""
    try:
        report = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise InputError(f"{name}: not valid JSON ({error}); expected scikit-learn's output_dict report") from None
    if not isinstance(report, dict):
        raise InputError(f"{name}: a JSON {type(report).__name__}; expected an object of class -> "
                         "{precision, recall, f1-score, support}")

    def text_of(value: Any, key: str, label: str) -> str | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"{name}: {label!r} {key} is {value!r}; expected a number")
        # full-precision floats: 15 decimals keep them exact to well below any count's resolution
        return str(int(value)) if key == "support" and float(value).is_integer() else f"{value:.15f}"

    rows = []
    for label, entry in report.items():
        if label.strip().lower() == "accuracy" and not isinstance(entry, dict):
            entry = {"f1-score": entry}
        if not isinstance(entry, dict):
            raise InputError(f"{name}: {label!r} is {entry!r}; expected {{precision, recall, f1-score, support}}")
        values = {key: text_of(entry.get(json_key), key, label)
                  for key, json_key in (("precision", "precision"), ("recall", "recall"), ("f1", "f1-score"),
                                        ("support", "support"))}
        rows.append((None, label, values))
    return _table(rows, name)


def read_class_table(path: str | os.PathLike[str]) -> ClassTable:
    """The class and summary rows of a per-class table file (shapes in the module doc)."""
    name = os.fspath(path)
    text = read_small_text(name, os.fspath(name), MAX_FILE_BYTES, "a paper's table")
    if text.lstrip().startswith("{"):
        return _json_table(text, name)
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{name}: empty; expected {HEADER}")
    header_line, header_text = lines[0]
    split = _splitter(header_text)
    header = split(header_text)
    index = _columns(header, name, header_line, header_text)
    if index["label"] == -1:  # scikit-learn: the values are the last cells, the name (spaces and all) the rest
        split = lambda line: line.strip().rsplit(None, len(header))  # noqa: E731
    width = len(header) + (1 if index["label"] == -1 else 0)
    rows = []
    for number, line in lines[1:]:
        cells = split(line)
        label = cells[max(index["label"], 0)] if len(cells) > max(index["label"], 0) else ""
        summary = label.strip().lower() in SUMMARY_NAMES
        if len(cells) < width and not summary:
            raise InputError(f"{name} line {number}: expected {width} columns, found {len(cells)}")
        rows.append((number, label, _cells_by_column(cells, index, len(header), summary)))
    return _table(rows, name)
