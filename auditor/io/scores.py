"""Reading score files: a system file with one score column per label (``systems.NAME.scores``).

Read stage for systems that output scores. A system file may carry one column per label
instead of (or beside) a label column:

* CSV/TSV with a header naming an id column (optional), an optional label column and one
  column per label (``id<TAB>OTHER<TAB>ABUSE...``): every gold label needs a column, and a
  column name that is neither an id, a label column nor a label makes it an ordinary file;
* JSON Lines with a ``scores`` object per line (``{"id": "7", "scores": {"a": 0.9, "b": 0.1}}``)
  and optionally a ``label``.

The predicted label (the one every count-based metric uses) is the ``label`` column when
given, else the argmax of the scores (:func:`top_label`): a tie goes to the tied label whose
name sorts first, whatever the file's column order or ``--labels``. Scores must be finite
numbers; what they mean (probabilities or not) is the analysis's concern
(:mod:`auditor.analyses.scores`).
"""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import InputError
from auditor.files import read_input, text_bytes
from auditor.io.column import LabelColumn, as_id_array, build_column, merge_codes
from auditor.io.jsonl import json_lines
from auditor.io.lines import arrow_body, decode_utf8, is_comment, nonempty_line_numbers, split_fields
from auditor.io.names import is_id_name, is_label_name

__all__ = ["ScoreColumn", "AlignedScores", "read_scored", "check_columns", "align_scores", "top_label"]

_SCORE_FILE = "a score file (a header naming one column per label, or JSON Lines with a scores object)"


@dataclass(frozen=True)
class ScoreColumn:
    """One system's scores as read: ``scores[n, c]`` for label ``labels[c]``, item ids, lines."""

    source: str
    labels: tuple[str, ...]
    scores: np.ndarray
    id_array: Any
    lines: np.ndarray
    has_label: bool

    def where(self, index: int) -> str:
        return f"{self.source} line {int(self.lines[index])}"


@dataclass(frozen=True)
class AlignedScores:
    """One system's scores in gold item order (:func:`align_scores`): ``scores[n, c]`` of gold item
    n for ``labels[c]``, and the file line each gold item came from (for messages)."""

    source: str
    labels: tuple[str, ...]
    scores: np.ndarray
    lines: np.ndarray

    def where(self, index: int) -> str:
        return f"{self.source} line {int(self.lines[index])}"


# ------------------------------------------------------------------------------- reading


def _header(text: str) -> tuple[int, str, int] | None:
    """(line number, header line, offset of the next line) of the first line that is not blank or a comment."""

    offset, number = 0, 0
    while offset < len(text):
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end
        number += 1
        stripped = text[offset:end].strip(" \t")
        if stripped and not is_comment(stripped):
            return number, text[offset:end], end + 1
        offset = end + 1
    return None


def read_scored(path: str | os.PathLike, label_names: Sequence[str]) -> tuple[LabelColumn, ScoreColumn] | None:
    """The predictions and scores of a scores file, or None when ``path`` is not one.

    ``label_names``: the labels a score column may name (gold labels, or ``--labels``).
    """
    source = os.fspath(path)
    if not os.path.isfile(source):
        return None
    suffix = os.path.splitext(source)[1].lower()
    if suffix in (".parquet",):
        return None
    with open(source, "rb") as stream:
        head = stream.read(65536)
    if b"\x00" in head:
        return None
    names = set(label_names)
    stripped = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    if suffix in (".jsonl", ".ndjson", ".json") or stripped[:1] == b"{":
        first = stripped.split(b"\n", 1)[0]
        try:
            record = json.loads(first)
        except (ValueError, RecursionError):  # not a scores file; the label loader says what is wrong
            return None
        if not isinstance(record, dict) or not isinstance(record.get("scores"), dict):
            return None
        return _read_json(source, names)
    try:
        text_head = head.decode("utf-8-sig", errors="ignore").replace("\r\n", "\n").replace("\r", "\n")
    except Exception:  # pragma: no cover - errors="ignore" never raises
        return None
    found = _header(text_head)
    if found is None:
        return None

    delimiter = ({".csv": ",", ".tsv": "\t"}.get(suffix)
                 or ("\t" if "\t" in found[1] else "," if "," in found[1] else None))
    if delimiter is None:
        return None
    fields = _header_fields(found[1], delimiter)
    score_columns = [i for i, f in enumerate(fields) if f in names]
    others = [i for i in range(len(fields)) if i not in score_columns]
    if len(score_columns) < 2 or any(not (is_id_name(fields[i]) or is_label_name(fields[i])) for i in others):
        return None
    if all(is_id_name(f) or is_label_name(f) for f in fields) and \
            not _first_row_has_numbers(text_head[found[2]:], delimiter, score_columns):
        return None  # a label file's header (`id<TAB>label`) whose words happen to be gold labels
    ids = [i for i in others if is_id_name(fields[i])]
    labels = [i for i in others if i not in ids]
    if len(ids) > 1 or len(labels) > 1:
        raise InputError(f"{source} line {found[0]}: a scores header needs at most one id and one label column besides "
                         f"the label columns; found {', '.join(repr(fields[i]) for i in others)}")
    return _read_delimited(source, delimiter, fields, found[0], score_columns,
                           ids[0] if ids else None, labels[0] if labels else None, names)


def _header_fields(line: str, delimiter: str) -> list[str]:
    """A header line's names, unquoted (R's ``write.csv`` writes ``"id","pos","neg"``) and trimmed."""
    if '"' not in line:
        return split_fields(line, delimiter)
    return [f.strip(" \t") for f in next(csv.reader([line], delimiter=delimiter), [])]


def _first_row_has_numbers(text: str, delimiter: str, score_columns: list[int]) -> bool:
    """True when the first item line of ``text`` (after the header) holds a number in every
    score column, or when the sniffed head holds no item line."""

    for line in text.split("\n"):
        stripped = line.strip(" \t")
        if not stripped or is_comment(stripped):
            continue
        cells = split_fields(line, delimiter)
        try:
            for i in score_columns:
                float(cells[i])
        except (IndexError, ValueError):
            return False
        return True
    return True


def _line_numbers(data: bytes, begin: int, first_line: int, n_rows: int, source: str) -> np.ndarray:
    """Line of every non-empty line from ``begin`` (as the loader counts them)."""
    numbers, _ = nonempty_line_numbers(data, begin, first_line)
    if numbers.size != n_rows:
        raise InputError(f"{source}: {n_rows} rows read but {numbers.size} non-empty lines; expected one item per line")
    return numbers


def _read_delimited(source: str, delimiter: str, fields: list[str], header_line: int, score_columns: list[int],
                    id_column: int | None, label_column: int | None,
                    names: set[str]) -> tuple[LabelColumn, ScoreColumn]:
    import pyarrow as pa

    raw, digest = _read_bytes(source)
    raw = text_bytes(raw, source, _SCORE_FILE)
    # offset of the line after the header
    begin = 0
    for _ in range(header_line):
        end = raw.find(b"\n", begin)
        begin = len(raw) if end < 0 else end + 1
    names_arrow = [f"c{i}" for i in range(len(fields))]
    types = {i: pa.float64() for i in score_columns}
    for column in (id_column, label_column):
        if column is not None:
            types[column] = pa.string()
    try:
        table = arrow_body(raw, begin, len(fields), types, delimiter, quoted=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise _first_bad_line(raw, begin, header_line, delimiter, fields, score_columns, source, error) from None
    if table.num_rows == 0:
        raise InputError(f"{source}: no items, only a header")
    numbers = _line_numbers(raw, begin, header_line + 1, table.num_rows, source)
    matrix = np.column_stack([table.column(names_arrow[i]).to_numpy() for i in score_columns]).astype(np.float64)
    labels = tuple(fields[i] for i in score_columns)
    ids = None if id_column is None else as_id_array(table.column(names_arrow[id_column]), source)
    _check_values(matrix, numbers, source, labels)
    if label_column is not None:
        predicted = build_column(source, table.column(names_arrow[label_column]), ids, numbers, digest,
                            "tsv" if delimiter == "\t" else "csv", {})
    else:
        predicted = None
    return _predictions(source, matrix, labels, ids, numbers, predicted, names, digest)


def _first_bad_line(raw: bytes, begin: int, header_line: int, delimiter: str, fields: list[str],
                    score_columns: list[int], source: str, error: Exception) -> InputError:
    """The exact line of a body pyarrow refused (error path only)."""
    import csv
    import io

    reader = csv.reader(io.StringIO(raw[begin:].decode("utf-8")), delimiter=delimiter)
    for offset, row in enumerate(reader):
        line = header_line + 1 + offset
        if not row or not "".join(row).strip():
            continue
        if len(row) != len(fields):
            return InputError(f"{source} line {line}: found {len(row)} fields; expected {len(fields)} like the header")
        for i in score_columns:
            try:
                float(row[i])
            except ValueError:
                return InputError(f"{source} line {line}: score of {fields[i]!r} is {row[i].strip()!r}; "
                                  f"expected a number")
    return InputError(f"{source}: cannot read the scores ({error})")


def _check_values(matrix: np.ndarray, numbers: np.ndarray, source: str, labels: Sequence[str]) -> None:
    bad = ~np.isfinite(matrix)
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise InputError(f"{source} line {int(numbers[row])}: score of {labels[column]!r} is "
                         f"{float(matrix[row, column])!r}; expected a finite number")


def _read_json(source: str, names: set[str]) -> tuple[LabelColumn, ScoreColumn]:
    raw, digest = _read_bytes(source)
    records, keep, _ = json_lines(decode_utf8(raw, source), source, '{"id": "a1", "scores": {"pos": 0.8, "neg": 0.2}}')
    numbers = np.asarray(keep, dtype=np.int64) + 1

    keys = [key for key in records[0] if key != "scores"] if isinstance(records[0], dict) else []
    ids_found = [key for key in keys if is_id_name(key)]
    labels_found = [key for key in keys if is_label_name(key) and key not in ids_found]
    id_key = ids_found[0] if ids_found else None
    label_key = labels_found[0] if labels_found else None
    labels = tuple(records[0]["scores"])
    missing_labels = [label for label in labels if label not in names]
    if missing_labels:
        raise InputError(f"{source} line {numbers[0]}: scores name {', '.join(map(repr, missing_labels))}, not a gold "
                         f"label; expected one score per label ({', '.join(sorted(names))})")
    for n, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("scores"), dict) or \
                list(record["scores"]) != list(labels) and set(record["scores"]) != set(labels) or \
                (id_key is not None and id_key not in record) or (label_key is not None and label_key not in record):
            raise InputError(f"{source} line {numbers[n]}: expected an object with "
                             f"{', '.join(repr(k) for k in (id_key, label_key) if k)}"
                             f"{' and ' if id_key or label_key else ''}"
                             f"'scores' holding {', '.join(map(repr, labels))} like line {numbers[0]}")
    try:
        matrix = np.array([[record["scores"][label] for label in labels] for record in records], dtype=np.float64)
    except (TypeError, ValueError):
        n = next(n for n, r in enumerate(records) if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                             for v in r["scores"].values()))
        raise InputError(f"{source} line {numbers[n]}: a score is not a number ({records[n]['scores']}); expected "
                         f"numbers") from None
    _check_values(matrix, numbers, source, labels)
    ids = None if id_key is None else as_id_array(np.asarray([r[id_key] for r in records] + [None], dtype=object)[:-1],
                                                 source)
    predicted = None
    if label_key is not None:
        given = np.asarray([r[label_key] for r in records] + [None], dtype=object)[:-1]
        predicted = build_column(source, as_id_array(given, source), ids, numbers, digest, "jsonl", {})
    return _predictions(source, matrix, labels, ids, numbers, predicted, names, digest)


def _predictions(source: str, matrix: np.ndarray, labels: tuple[str, ...], ids: Any, numbers: np.ndarray,
                 predicted: LabelColumn | None, names: set[str], digest: str) -> tuple[LabelColumn, ScoreColumn]:
    """The predicted labels: the label column, else the argmax (:func:`top_label`)."""
    scored = ScoreColumn(source, labels, matrix, ids, numbers, predicted is not None)
    if predicted is not None:
        return predicted, scored
    in_order = sorted(labels)
    rank = np.array([in_order.index(label) for label in labels], dtype=np.int32)
    codes, used = merge_codes(rank[top_label(matrix, labels)], in_order)
    return LabelColumn(source, codes, used, ids, numbers, digest, "tsv", {}), scored


def _read_bytes(source: str) -> tuple[bytes, str]:
    """The file's bytes, read once (:func:`auditor.files.read_input`), and their SHA-256 (the signature's file
    hash)."""
    import hashlib

    raw = read_input(source, _SCORE_FILE)
    return raw, hashlib.sha256(raw).hexdigest()


def top_label(scores: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """Column of the highest score per row; ties go to the label whose name sorts first."""
    order = np.array(sorted(range(len(labels)), key=lambda c: labels[c]), dtype=np.int64)
    return order[np.argmax(scores[:, order], axis=1)]

def check_columns(scored: Mapping[str, ScoreColumn], gold_labels: Sequence[str]) -> None:
    """Every gold label needs a score column (checked before counting)."""
    for column in scored.values():
        missing = sorted(label for label in gold_labels if label not in column.labels)
        if missing:
            raise InputError(f"{column.source}: no score column for gold label(s) {', '.join(map(repr, missing))}; "
                             f"expected one column per gold label")


def align_scores(scored: ScoreColumn, id_array: Any, n_items: int, labels: Sequence[str]) -> AlignedScores:
    """``scored`` in gold item order, its columns those of ``labels`` (the audit's labels, in its
    order) that it has. ``id_array``: the gold ids (Arrow) or None (matched by line). The
    predictions of the same file were aligned already, so the ids match."""
    if id_array is None or scored.id_array is None:
        order = np.arange(n_items)
    else:
        import pyarrow.compute as pc

        ids = scored.id_array.combine_chunks() if hasattr(scored.id_array, "combine_chunks") else scored.id_array
        order = pc.index_in(id_array, value_set=ids).to_numpy(zero_copy_only=False).astype(np.int64)
    chosen = tuple(label for label in labels if label in scored.labels)
    position = {label: c for c, label in enumerate(scored.labels)}
    return AlignedScores(scored.source, chosen, scored.scores[order][:, [position[label] for label in chosen]],
                         scored.lines[order])
