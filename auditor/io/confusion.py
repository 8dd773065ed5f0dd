"""Audit from confusion matrices alone (what a reviewer holds): read, check, count, audit.

Read, align and count stages for input that is already counted. A matrix file is CSV
(comma) or TSV (tab; chosen when the first line holds a tab), UTF-8, in this layout::

    gold\\predicted  OFFENSE  OTHER        <- a corner cell (any text, may be empty), then
    OFFENSE         1002      686           the k predicted labels
    OTHER           301       2543         <- per gold label: the label, then k counts

Rows = gold class, columns = predicted class (scikit-learn's orientation). Lines starting
with ``#`` and blank lines are skipped. Every count is a non-negative whole number written
in digits; the row labels are the column labels (any order; the rows are put in column
order); no label twice. Several files must share the label set and the gold margins (row
sums): they describe one test set. The first file's column order is the label order unless
``labels`` fixes it.

What follows from counts runs as for item files: the catalogue, chance baselines,
properties, rankings, the recommendation. The bootstrap resamples each matrix on its own
(:data:`auditor.analyses.bootstrap.INDEPENDENT_METHOD`): without items, pairing across systems is
unknown, so paired tests are stated as unavailable (:data:`auditor.analyses.significance.UNPAIRED_REASON`).
"""
from __future__ import annotations

import csv
import hashlib
import io
import os
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.io.source import Source
from auditor.errors import InputError, UsageError
from auditor.io.counts import Counts
from auditor.io.validate import check_given_labels, is_missing, single_class_error

#: A paper's matrix is a few kilobytes; larger files are refused before reading.
MAX_FILE_BYTES = 10_000_000
#: Most classes a matrix may have.
MAX_CLASSES = 1_000
#: Largest total count: above 2^53 float64 (every metric's arithmetic) no longer holds every whole number.
MAX_TOTAL = 2 ** 53
_TOO_LARGE = ("above 2^53 (9,007,199,254,740,992), where floating point loses whole numbers; expected counts "
              "whose total is at most 2^53")
LAYOUT = ("a header row (a corner cell, then the predicted labels) and one row per gold label "
          "(the label, then its counts)")


def read_matrix(path: str | os.PathLike[str]) -> tuple[list[str], np.ndarray, str]:
    """Read one matrix file: ``(labels, counts (k, k) int64, sha256)``; rows reordered to the
    column order. Raises :class:`InputError` naming the file and line for every bad case."""
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        if size > MAX_FILE_BYTES:
            raise InputError(f"{name}: {size:,} bytes; a confusion matrix file is at most {MAX_FILE_BYTES:,} bytes")
        with open(name, "rb") as handle:
            raw = handle.read()
    except InputError:
        raise
    except OSError as error:
        raise InputError(f"{name}: cannot read ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{name}: not UTF-8 (byte {error.start + 1}); expected a UTF-8 CSV/TSV of counts") from None
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.startswith("#")]
    if not lines:
        raise InputError(f"{name}: empty; expected {LAYOUT}")
    delimiter = "\t" if "\t" in lines[0][1] else ","
    rows = [(number, [cell.strip() for cell in next(csv.reader(io.StringIO(line), delimiter=delimiter))])
            for number, line in lines]
    header_line, header = rows[0]
    columns = header[1:]
    if not columns:
        raise InputError(f"{name} line {header_line}: no predicted labels; expected {LAYOUT}")
    if len(columns) > MAX_CLASSES:
        raise InputError(f"{name} line {header_line}: {len(columns):,} labels; at most {MAX_CLASSES:,}")
    _check_labels(columns, f"{name} line {header_line}")
    if all(cell.isdigit() for cell in header):
        raise InputError(f"{name} line {header_line}: the first row holds only numbers; expected {LAYOUT}")
    gold_labels, matrix = _body(rows[1:], columns, name, header_line)
    _check_labels(gold_labels, f"{name} (row labels)")
    if set(gold_labels) != set(columns) or len(gold_labels) != len(columns):
        detail = _label_difference(gold_labels, columns, "only as rows:", "only as columns:")
        raise InputError(f"{name}: the row labels (gold) and the column labels (predicted) differ ({detail}); "
                         "expected the same labels in both")
    order = [gold_labels.index(label) for label in columns]
    matrix = matrix[order]
    _check_total(matrix, name)
    return list(columns), matrix, hashlib.sha256(raw).hexdigest()


def _check_total(matrix: np.ndarray, where: str) -> None:
    """Refuse an all-zero matrix, a total above :data:`MAX_TOTAL` (cells are at most 2^53 each,
    so the k <= 1,000 row sums are exact in int64 and their total exact as a Python int)."""
    rows = matrix.sum(axis=1, dtype=np.int64)
    total = sum(int(x) for x in rows)
    if total == 0:
        raise InputError(f"{where}: every count is 0; expected at least one item")
    if total > MAX_TOTAL:
        raise InputError(f"{where}: the counts total {total:,}, {_TOO_LARGE}")


def _body(body: list[tuple[int, list[str]]], columns: list[str], name: str, header_line: int
          ) -> tuple[list[str], np.ndarray]:
    """The gold labels and the (k, k) counts of a matrix file's rows after the header."""
    k = len(columns)
    gold_labels = []
    matrix = np.zeros((k, k), dtype=np.int64)
    for row_index, (number, cells) in enumerate(body):
        where = f"{name} line {number}"
        if len(cells) != k + 1:
            raise InputError(f"{where}: {len(cells)} cells; expected {k + 1} (a gold label, then {k} counts, "
                             f"one per predicted label of line {header_line})")
        if row_index >= k:
            raise InputError(f"{where}: more rows than the {k} labels of line {header_line}; expected one row per "
                             "gold label")
        gold_labels.append(cells[0])
        for column, cell in enumerate(cells[1:]):
            if not (cell.isascii() and cell.isdigit()):
                raise InputError(f"{where}, column {columns[column]!r}: {cell!r} is not a count; expected a "
                                 "non-negative whole number in digits")
            if len(cell.lstrip("0")) > 16 or int(cell) > MAX_TOTAL:  # 17 digits and more: above 2^53
                raise InputError(f"{where}, column {columns[column]!r}: the count {cell[:30]}"
                                 f"{'...' if len(cell) > 30 else ''} is {_TOO_LARGE}")
            matrix[row_index, column] = int(cell)
    return gold_labels, matrix


def format_matrix(labels: Sequence[str], matrix: Any, corner: str = "gold\\predicted") -> str:
    """A matrix as the TSV :func:`read_matrix` reads (rows = gold; labels free of tabs and newlines)."""
    lines = ["\t".join([corner, *labels])]
    lines += ["\t".join([label, *(str(int(x)) for x in row)]) for label, row in zip(labels, np.asarray(matrix))]
    return "\n".join(lines) + "\n"


def _label_difference(first: Sequence[str], second: Sequence[str], only_first: str, only_second: str) -> str:
    """The labels of one set the other lacks, for a message: ``"only as rows: 'a'; only as columns: 'b'"``
    (``only_first`` names the labels of ``first`` not in ``second``; each part only when not empty)."""
    parts = ((only_first, [label for label in first if label not in set(second)]),
             (only_second, [label for label in second if label not in set(first)]))
    return "; ".join(f"{what} {', '.join(map(repr, labels))}" for what, labels in parts if labels)


def _check_labels(labels: Sequence[str], where: str) -> None:
    """No empty label, no missing-value marker (``NA``, ``nan``...: the label files' rule), no label twice."""
    seen: set[str] = set()
    for label in labels:
        if not label:
            raise InputError(f"{where}: an empty label; every row and column needs a label")
        if is_missing(label):
            raise InputError(f"{where}: missing label ({label!r}); a missing-value marker is not a class (the rule "
                             "label files follow)")
        if label in seen:
            raise InputError(f"{where}: label {label!r} appears twice")
        seen.add(label)


def confusion_counts(
    matrices: Mapping[str, Any],
    labels: Sequence[str] | None = None,
) -> tuple[Counts, dict[str, dict[str, Any]]]:
    """Check the matrices against each other and build :class:`~auditor.io.counts.Counts`
    without items (``gold`` and ``predictions`` None), plus the ``sources`` of the JSON.

    ``matrices`` maps a system name to a file path or a (k, k) array of counts (rows = gold,
    columns = predicted, in ``labels`` order; ``labels`` is then required). Files set their
    own labels; ``labels``, if given, must be the same set and fixes the order.
    """
    if not isinstance(matrices, Mapping) or not matrices:
        raise UsageError("confusion matrices: expected a mapping of system name to a matrix file or a k x k array "
                         "of counts, with at least one entry")
    read: dict[str, tuple[list[str], np.ndarray, str | None, str]] = {}
    for system, value in matrices.items():
        if isinstance(value, (str, os.PathLike)):
            file_labels, matrix, digest = read_matrix(value)
            read[system] = (file_labels, matrix, digest, os.fspath(value))
        else:
            if labels is None:
                raise UsageError(f"confusion matrix of {system!r}: an array needs labels=[...] (its row and "
                                 "column order)")
            read[system] = (list(labels), _array_matrix(value, len(labels), system), None, "")
    first_system = next(iter(read))
    order = list(labels) if labels is not None else read[first_system][0]
    if labels is not None:
        order = check_given_labels(labels)
        _check_labels(order, "labels")
    where_order = "--labels" if labels is not None else read[first_system][3] or repr(first_system)
    stacked = []
    for system, (file_labels, matrix, _, path) in read.items():
        where = path or f"confusion matrix of {system!r}"
        if set(file_labels) != set(order):
            detail = _label_difference(order, file_labels, "missing", "extra")
            raise InputError(f"{where}: its labels differ from those of {where_order} ({detail}); every matrix "
                             "must have the same label set")
        index = [file_labels.index(label) for label in order]
        stacked.append(matrix[np.ix_(index, index)])
    confusion = np.stack(stacked).astype(np.int64)
    margins = _check_margins(confusion, [(system, path) for system, (_, _, _, path) in read.items()], order)
    n = int(margins.sum())
    margin_hash = hashlib.sha256(("\x1f".join(order) + "|" + ",".join(str(int(x)) for x in margins)).encode())
    sources = {"gold": Source("", margin_hash.hexdigest(), n, kind="row sums of the confusion matrices")}
    for system, (_, matrix, digest, path) in read.items():
        if digest is None:
            digest = hashlib.sha256(np.ascontiguousarray(matrix, dtype=np.int64).tobytes()).hexdigest()
        sources[system] = Source(path, digest, n, kind="confusion matrix")
    counts = Counts(labels=tuple(order), systems=tuple(read), gold=None, predictions=None, confusion=confusion,
                    labels_given=labels is not None)
    return counts, sources


def _check_margins(confusion: np.ndarray, named: list[tuple[str, str]], order: list[str]) -> np.ndarray:
    """The gold margins (row sums) all matrices share, refusing a mismatch and a single gold class;
    ``named``: (system, path or "") per matrix."""
    margins = confusion.sum(axis=2)
    shown = [path or repr(system) for system, path in named]
    mismatched = np.flatnonzero((margins != margins[0]).any(axis=1))
    if mismatched.size:
        s = int(mismatched[0])
        c = int(np.flatnonzero(margins[s] != margins[0])[0])
        raise InputError(
            f"{shown[s]}: row sum of gold label {order[c]!r} is {int(margins[s, c])}, but "
            f"{shown[0]} has {int(margins[0, c])}; all matrices must share "
            "the gold margins (row sums): they count one test set")
    present = np.flatnonzero(margins[0] > 0)
    if present.size < 2:
        first = named[0][1] or f"confusion matrix of {named[0][0]!r}"
        raise single_class_error(first, int(margins[0].sum()), order[int(present[0])])
    return margins[0]


def _array_matrix(value: Any, k: int, system: str) -> np.ndarray:
    where = f"confusion matrix of {system!r}"
    try:
        matrix = np.asarray(value)
    except Exception as error:  # noqa: BLE001 - any unconvertible object is the caller's input error
        raise InputError(f"{where}: not an array of counts ({error})") from None
    if matrix.shape != (k, k):
        raise InputError(f"{where}: shape {matrix.shape}; expected ({k}, {k}) for {k} labels")
    if matrix.dtype.kind not in "iuf" or not np.isfinite(matrix.astype(float)).all() \
            or (matrix < 0).any() or (matrix != np.round(matrix)).any():
        raise InputError(f"{where}: expected non-negative whole-number counts")
    if matrix.size and matrix.max() > MAX_TOTAL:  # uint64 2^63 or a float 1e30 would wrap in int64
        raise InputError(f"{where}: a count of {matrix.max():.0f} is {_TOO_LARGE}")
    matrix = matrix.astype(np.int64)
    _check_total(matrix, where)
    return matrix
