"""A column per label (``id`` then the label names, SemEval-2018 E-c's layout): label sets or per-label scores.

When every value is 0 or 1 the file holds label sets; otherwise each value is a score in [0, 1] and a label is
predicted when its score is at least the threshold (:func:`threshold_sets`; ``--threshold``, default 0.5, or
``--thresholds FILE`` per label). The numbers are read by :func:`auditor.io.scores.read_scored` (arrow, each bad
cell named by its line); a value that is not a number in [0, 1] is one error naming the line and the label.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import InputError, UsageError
from auditor.io.column import LabelColumn, as_id_array
from auditor.io.lines import is_comment, split_fields
from auditor.io.names import is_id_name, is_label_name
from auditor.tasks.multilabel.sets import SetFile, encode_rows

#: The default threshold of a score file (said so in the report).
DEFAULT_THRESHOLD = 0.5


def _header_fields(head: bytes, suffix: str) -> list[str] | None:
    text = head.decode("utf-8-sig", errors="ignore").replace("\r\n", "\n")
    for line in text.split("\n"):
        stripped = line.strip(" \t")
        if stripped and not is_comment(stripped):
            delimiter = {".csv": ",", ".tsv": "\t"}.get(suffix) or ("\t" if "\t" in line else "," if "," in line
                                                                    else None)
            return None if delimiter is None else [f.strip(' \t"') for f in split_fields(line, delimiter)]
    return None


def column_layout(head: bytes, suffix: str) -> bool:
    """Whether a text file's header is ``id`` then at least two label names (no label or prediction column)."""
    fields = _header_fields(head, suffix)
    if not fields or len(fields) < 3 or not is_id_name(fields[0]):
        return False
    return not any(is_id_name(f) or is_label_name(f) for f in fields[1:])


def read_label_columns(source: str) -> SetFile:
    """A delimited file with a column per label."""
    from auditor.io.scores import read_scored

    with open(source, "rb") as stream:
        fields = _header_fields(stream.read(65536), os.path.splitext(source)[1].lower()) or []
    read = read_scored(source, fields[1:])
    if read is None:  # pragma: no cover - column_layout said it is one
        raise InputError(f"{source}: expected a header `id` then one column per label")
    column, scored = read
    return _sets(column, scored.labels, scored.scores, scored.lines)


def sets_from_table(table: Any, source: str, digest: str, fmt: str) -> SetFile:
    """A Parquet table with an id column and one numeric column per label."""
    import pyarrow as pa

    names = list(table.column_names)
    ids = [i for i, name in enumerate(names) if is_id_name(name)]
    numeric = [i for i, kind in enumerate(table.schema.types)
               if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)]
    labels = [i for i in range(len(names)) if i not in ids[:1]]
    if len(ids) > 1 or len(labels) < 2 or set(labels) - set(numeric):
        raise InputError(f"{source}: expected an id column and a list column of labels, or an id column then one "
                         f"numeric column per label (found columns {', '.join(map(repr, names))})")
    matrix = np.column_stack([np.asarray(table.column(i).to_numpy(zero_copy_only=False), dtype=np.float64)
                              for i in labels]) if table.num_rows else np.zeros((0, len(labels)))
    lines = np.arange(1, table.num_rows + 1, dtype=np.int64)
    column = LabelColumn(source, np.zeros(table.num_rows, dtype=np.int8), (),
                         as_id_array(table.column(ids[0]), source) if ids else None, lines, digest, fmt)
    return _sets(column, tuple(names[i] for i in labels), matrix, lines)


def _sets(column: LabelColumn, labels: Sequence[str], matrix: np.ndarray, lines: np.ndarray) -> SetFile:
    """0/1 values -> sets; values in [0, 1] -> scores (thresholded later); anything else refused."""
    unit = "row" if column.format == "parquet" else "line"
    bad = ~np.isfinite(matrix) | (matrix < 0) | (matrix > 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(f"{column.source} {unit} {int(lines[row])}: {labels[col]!r} is {float(matrix[row, col])!r}; "
                         f"expected 0 or 1 (a label set) or a score in [0, 1]")
    order = np.argsort(labels, kind="stable")
    labels, matrix = tuple(labels[i] for i in order), matrix[:, order]
    if bool(((matrix == 0) | (matrix == 1)).all()):
        return SetFile(column, labels, *encode_rows(matrix == 1)[::-1], "columns")
    return SetFile(column, labels, *encode_rows(matrix >= DEFAULT_THRESHOLD)[::-1], "scores", scores=matrix)


def read_thresholds(path: str) -> dict[str, float]:
    """``label<TAB>threshold`` lines (a header line allowed) -> label -> threshold in [0, 1]."""
    from auditor.io.lines import decode_utf8

    try:
        with open(path, "rb") as stream:
            text = decode_utf8(stream.read(), path)
    except OSError as error:
        raise InputError(f"{path}: cannot read the thresholds ({error.strerror or error})") from None
    found: dict[str, float] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or is_comment(stripped):
            continue
        fields = [f.strip() for f in (line.split("\t") if "\t" in line else line.split(","))]
        try:
            value = float(fields[1]) if len(fields) == 2 else None
        except ValueError:
            if not found:
                continue  # a header line
            value = None
        if value is None or not 0 <= value <= 1:
            raise InputError(f"{path} line {number}: {line!r}; expected `label<TAB>threshold` with a threshold "
                             f"in [0, 1]")
        if fields[0] in found:
            raise InputError(f"{path} line {number}: label {fields[0]!r} twice; expected each label once")
        found[fields[0]] = value
    if not found:
        raise InputError(f"{path}: no thresholds; expected lines `label<TAB>threshold`")
    return found


def threshold_vector(labels: Sequence[str], threshold: float | None, per_label: Mapping[str, float] | None,
                     where: str) -> np.ndarray:
    """The threshold of each label: ``per_label`` (every label needed) or ``threshold`` (default 0.5)."""
    if per_label is not None:
        missing = [label for label in labels if label not in per_label]
        if missing:
            raise InputError(f"{where}: no threshold for {', '.join(map(repr, missing[:5]))}; expected one line per "
                             f"label of the score files")
        return np.array([per_label[label] for label in labels])
    value = DEFAULT_THRESHOLD if threshold is None else threshold
    if not 0 <= value <= 1:
        raise UsageError(f"--threshold {value}: expected a number in [0, 1]")
    return np.full(len(labels), value)


def threshold_sets(file: SetFile, thresholds: np.ndarray) -> SetFile:
    """A score file's sets at ``thresholds`` (one per label of the file): label predicted when score ≥ threshold."""
    from dataclasses import replace

    codes, sets = encode_rows(file.scores >= thresholds)
    return replace(file, sets=sets, codes=codes)
