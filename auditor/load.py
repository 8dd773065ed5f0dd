"""Load gold labels and system predictions from files or in-memory arrays.

Stage 1 of the pipeline (**load** -> validate -> count -> metrics -> analyse -> report
-> render). This module only turns bytes into text columns; checks that need both gold and
systems (ids, lengths, label sets) live in :mod:`auditor.validate`.

Formats (chosen by extension, then by sniffing the content):

- CSV (``.csv``), TSV (``.tsv``), whitespace-separated ``id label`` (``.txt``, ``.tab`` and
  anything else that is text: tab-separated when every line has a tab, else split on runs
  of spaces and tabs);
- JSON Lines (``.jsonl``, ``.ndjson``; ``.json`` holding lines of objects or one array);
- Parquet (``.parquet``, or any file starting with the ``PAR1`` magic).

Text files are UTF-8 (a byte-order mark is fine), with or without a header row; lines
starting with ``#`` are comments and blank lines are ignored. Two columns are ``id label``,
one column is labels only (items are then aligned by line). More columns need a header
naming the id and label columns.

Labels are kept as text exactly as written (``"0"``, ``"1"``), so a gold file and a system
file always agree on what a label is; numbers from arrays and JSON are written the same way
(``1``, ``1.0`` and ``np.int64(1)`` all become ``"1"``).
"""
from __future__ import annotations

import csv
import gc
import hashlib
import io
import json
import os
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InputError

__all__ = [
    "LabelColumn", "read_labels", "from_values", "parse_system_argument", "semeval_names",
    "MISSING_LABELS",
]

#: Label texts that mean "no label" (an empty field, pandas/numpy NaN, JSON ``null``,
#: Python ``None``). Lower-case ``none`` is *not* among them: it is a common class name.
MISSING_LABELS = frozenset({"", "nan", "NaN", "NAN", "null", "NULL", "None", "<NA>", "NaT"})

# Column names recognised in a header row, a JSON object or a Parquet schema.
ID_NAMES = ("id", "ids", "item", "item_id", "itemid", "idx", "index", "uid", "key",
            "example_id", "instance_id", "doc_id", "sentence_id", "tweet_id", "qid", "guid")
LABEL_NAMES = ("label", "labels", "gold", "gold_label", "prediction", "predictions",
               "predicted", "pred", "preds", "y", "y_true", "y_pred", "yhat", "y_hat",
               "class", "target", "truth", "output", "category", "tag", "answer")
_ID_PATTERN = re.compile(r"^(#?\s*)?([a-z0-9]+[_ -])?id$")
_LABEL_PATTERN = re.compile(
    r"^(correct|gold|true|pred|predicted|system)?[_ -]?(label|class|prediction|target)"
    r"([_ -]?[a-z0-9]+)?$"
)

_BINARY_EXTENSIONS = {
    ".xlsx": "an Excel workbook", ".xls": "an Excel workbook", ".ods": "a spreadsheet",
    ".zip": "a zip archive", ".gz": "a gzip-compressed file", ".bz2": "a bzip2-compressed file",
    ".xz": "an xz-compressed file", ".zst": "a zstd-compressed file", ".pkl": "a pickle",
    ".pickle": "a pickle", ".npy": "a NumPy array file", ".npz": "a NumPy archive",
    ".feather": "a Feather file", ".arrow": "an Arrow file", ".h5": "an HDF5 file",
    ".hdf5": "an HDF5 file", ".pdf": "a PDF", ".docx": "a Word document",
}
_MAGIC = {
    b"\x1f\x8b": "a gzip-compressed file", b"PK\x03\x04": "a zip archive (or Excel workbook)",
    b"BZh": "a bzip2-compressed file", b"\xfd7zXZ\x00": "an xz-compressed file",
    b"\x93NUMPY": "a NumPy array file", b"%PDF": "a PDF",
}
_EXPECTED = ("CSV, TSV, whitespace-separated `id label`, JSON Lines or Parquet")


@dataclass(frozen=True, eq=False)
class LabelColumn:
    """One file's (or array's) items: ids, labels, and where each came from.

    Attributes
    ----------
    source : what to call it in messages: the path as given, or ``"<name>"`` for arrays.
    ids : str array (N,) of item ids, or None when the source has no ids.
    labels : str array (N,) of labels, as written (numbers kept as their text).
    lines : int array (N,) of the 1-based line (row, for Parquet) of each item in the file,
        or None for arrays.
    sha256 : hex SHA-256 of the file's bytes, or None for arrays.
    format : ``"csv"``, ``"tsv"``, ``"whitespace"``, ``"jsonl"``, ``"json"``,
        ``"parquet"`` or ``"array"``; used to say what a line should look like.
    """

    source: str
    ids: np.ndarray | None
    labels: np.ndarray
    lines: np.ndarray | None
    sha256: str | None
    format: str = "array"

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    def where(self, index: int) -> str:
        """Human location of item ``index`` (0-based): ``"gold.tsv line 17"``."""
        if self.lines is not None:
            unit = "row" if self.format == "parquet" else "line"
            return f"{self.source} {unit} {int(self.lines[index])}"
        return f"{self.source} index {int(index)}"

    @property
    def layout(self) -> str:
        """What one item looks like in this source, for messages (``id<TAB>label``)."""
        with_ids = self.ids is not None
        return {
            "csv": "`id,label`" if with_ids else "`label`",
            "tsv": "`id<TAB>label`" if with_ids else "`label`",
            "whitespace": "`id label`" if with_ids else "`label`",
            "jsonl": '`{"id": ..., "label": ...}`' if with_ids else '`{"label": ...}`',
            "json": '`{"id": ..., "label": ...}`' if with_ids else '`{"label": ...}`',
            "parquet": "an id and a label column" if with_ids else "a label column",
        }.get(self.format, "one label per item")


# --------------------------------------------------------------------------- arrays

def _scalar_text(value: Any) -> str:
    """Text of one label or id: integral floats without ``.0``, missing values as ``nan``."""
    if isinstance(value, str):
        return value
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (float, np.floating)):
        if value != value:
            return "nan"
        if float(value).is_integer():
            return str(int(value))
        return repr(float(value))
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if type(value).__name__ in ("NAType", "NaTType"):
        return "nan"
    return str(value)


def _as_text(values: np.ndarray) -> np.ndarray:
    """A 1-D array of any dtype as a numpy str array, vectorised where the dtype allows."""
    kind = values.dtype.kind
    if kind == "U":
        return values
    if kind == "b":
        return np.where(values, "True", "False")
    if kind in "iu":
        return values.astype(str)
    if kind == "f":
        finite = np.isfinite(values)
        if np.all(values[finite] == np.round(values[finite])):
            text = np.where(finite, values, 0).astype(np.int64).astype(str)
            width = max(text.dtype.itemsize // 4, 4)
            text = text.astype(f"U{width}")
            text[~finite] = np.array([_scalar_text(v) for v in values[~finite]], dtype=str)
            return text
    if kind == "S":
        return np.char.decode(values, "utf-8", errors="replace")
    items = values.tolist()
    if not all(type(v) is str for v in items):
        items = [_scalar_text(v) for v in items]
    return _strings(items)


def _array_source(name: str) -> str:
    return name if name.startswith("<") and name.endswith(">") else f"<{name}>"


def from_values(values: Any, source: str) -> LabelColumn:
    """Wrap in-memory labels (list, numpy array, pandas Series, dict) as a :class:`LabelColumn`.

    A pandas Series with an index other than the default ``0..N-1`` range gives its index
    as the ids; a dict maps ids to labels. Lists and arrays have no ids (aligned by
    position). pandas is never imported here.

    Parameters
    ----------
    values : the labels.
    source : name used in messages; shown as ``"<source>"``.

    Raises
    ------
    InputError
        If ``values`` is not a one-dimensional sequence of labels.
    """
    if isinstance(values, LabelColumn):
        return values
    name = _array_source(source)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise InputError(
            f"{name}: expected a sequence of labels (list, array or pandas Series), "
            f"found {type(values).__name__}"
        )
    ids = None
    module = type(values).__module__ or ""
    if isinstance(values, dict):
        ids = _as_text(np.asarray(list(values.keys()), dtype=object))
        values = list(values.values())
    elif module.startswith("pandas") and type(values).__name__ == "DataFrame":
        raise InputError(
            f"{name}: expected one column of labels, found a DataFrame with columns "
            f"{list(map(str, values.columns))}; pass one column, e.g. df['label']"
        )
    elif module.startswith("pandas") and hasattr(values, "index"):
        index = values.index
        default = (type(index).__name__ == "RangeIndex" and index.start == 0
                   and index.step == 1)
        if not default:
            ids = _as_text(np.asarray(index.to_numpy(dtype=object)))
        plain = isinstance(values.dtype, np.dtype)
        values = values.to_numpy() if plain else values.to_numpy(dtype=object)
    array = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if array.dtype.kind not in "biufUSO":
        array = array.astype(object)
    if array.ndim != 1:
        raise InputError(
            f"{name}: expected a one-dimensional sequence of labels, found shape "
            f"{tuple(array.shape)}"
        )
    return LabelColumn(source=name, ids=ids, labels=_as_text(array), lines=None, sha256=None)


# --------------------------------------------------------------------------- files

def _normal(name: str) -> str:
    return name.strip().lstrip("#").strip().strip('"').strip().lower()


def _is_id_name(name: str) -> bool:
    name = _normal(name)
    return name in ID_NAMES or bool(_ID_PATTERN.match(name))


def _is_label_name(name: str) -> bool:
    name = _normal(name)
    return name in LABEL_NAMES or bool(_LABEL_PATTERN.match(name))


def _decode(raw: bytes, source: str) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{source}: UTF-16 text; expected UTF-8 (save the file as UTF-8)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        start = error.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
        line = raw.count(b"\n", 0, start) + 1
        raise InputError(
            f"{source} line {line} (byte {start}): not UTF-8 text (found byte "
            f"0x{raw[start]:02x}); expected UTF-8, save the file as UTF-8"
        ) from None


def _header_like(fields: list[str], sample: list[list[str]]) -> bool:
    """Does the first row name columns rather than hold an item?

    It does when a field is a known column name (``id``, ``label``, ``pred``...) that
    occurs nowhere else in its column (so a yes/no label ``y`` is not taken for a name), or
    when it is the only non-number above a column of numbers.
    """
    for column, value in enumerate(fields):
        rest = [row[column].strip() for row in sample if column < len(row)]
        if (_is_id_name(value) or _is_label_name(value)) and value.strip() not in rest:
            return True
        if rest and not _numeric(value) and all(_numeric(v) for v in rest):
            return True
    return False


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _choose_columns(
    names: list[str], source: str, kind: str, column: str | None
) -> tuple[int | None, int]:
    """(id column or None, label column) from header names."""
    shown = ", ".join(repr(n.strip()) for n in names)
    normal = [_normal(n) for n in names]
    if column is not None:
        if _normal(column) not in normal:
            raise InputError(
                f"{source}: no column named {column!r}; found columns {shown}"
            )
        label = normal.index(_normal(column))
        ids = [i for i, n in enumerate(names) if _is_id_name(n) and i != label]
        return (ids[0] if ids else None), label
    if len(names) == 1:
        return None, 0
    id_columns = [i for i, n in enumerate(names) if _is_id_name(n)]
    label_columns = [i for i, n in enumerate(names) if _is_label_name(n) and i not in id_columns]
    if len(names) == 2:
        if len(id_columns) == 1:
            return id_columns[0], 1 - id_columns[0]
        if len(label_columns) == 1:
            return 1 - label_columns[0], label_columns[0]
        return 0, 1
    if len(label_columns) > 1:
        exact = [i for i in label_columns if normal[i] in LABEL_NAMES]
        first = [i for i in exact if normal[i] == min((normal[j] for j in exact),
                                                      key=LABEL_NAMES.index)]
        if len(exact) == 1 or (exact and normal[first[0]] == "label"):
            label_columns = first
        else:
            raise InputError(
                f"{source}: {len(names)} {kind} and more than one could be the label "
                f"({', '.join(repr(names[i].strip()) for i in label_columns)}); found columns "
                f"{shown}; expected one id column and one label column (e.g. `id`, `label`)"
            )
    if not label_columns or not id_columns:
        missing = " and ".join(
            what for what, found in (("an id column", id_columns), ("a label column",
                                                                   label_columns))
            if not found)
        raise InputError(
            f"{source}: {len(names)} {kind} but no header naming {missing}; found columns "
            f"{shown}; expected a header with `id` and `label` (or prediction/pred/gold/y...)"
        )
    return id_columns[0], label_columns[0]


def _strings(items: list[str]) -> np.ndarray:
    """A list of str as a numpy str array (``np.fromiter`` with a fixed width is ~4x faster
    than ``np.array`` on a million items)."""
    width = max(map(len, items), default=1) or 1
    return np.fromiter(items, dtype=f"U{width}", count=len(items))


def _split_csv(text: str, source: str, delimiter: str) -> tuple[list[list[str]], np.ndarray]:
    """Rows and line numbers of quoted CSV/TSV, through the csv module."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows, numbers = [], []
    try:
        for row in reader:
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            rows.append([field.strip() for field in row])
            numbers.append(reader.line_num)
    except csv.Error as error:
        raise InputError(f"{source} line {reader.line_num}: {error}") from None
    return rows, np.asarray(numbers, dtype=np.int64)


def _parse_delimited(
    text: str, source: str, fmt: str, digest: str, column: str | None
) -> LabelColumn:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    all_lines = text.split("\n")
    stripped = list(map(str.strip, all_lines))
    keep = [i for i, s in enumerate(stripped) if s and s[0] != "#"]
    if not keep:
        what = "empty" if not any(stripped) else "only comments and blank lines"
        raise InputError(f"{source}: no items ({what}); expected lines of `id<TAB>label`")

    delimiter: str | None
    probe = [all_lines[i] for i in keep[:1001]]
    if fmt in ("csv", "tsv") and not any(("," if fmt == "csv" else "\t") in p for p in probe):
        fmt = "text"  # a .tsv without tabs (or .csv without commas): sniff like a .txt
    if fmt == "csv":
        delimiter = ","
    elif fmt == "tsv":
        delimiter = "\t"
    else:
        probe = [all_lines[i] for i in keep[1:1001]] or [all_lines[keep[0]]]
        delimiter = "\t" if all("\t" in line for line in probe) else None
        fmt = "tsv" if delimiter else "whitespace"
    line_numbers = np.asarray(keep, dtype=np.int64) + 1
    sep_shown = {"csv": ",", "tsv": "<TAB>"}.get(fmt, " ")

    quoted = delimiter is not None and '"' in text
    if quoted:
        rows, line_numbers = _split_csv(text, source, delimiter)  # type: ignore[arg-type]
        data = None
        sep = delimiter
    else:
        # Bulk path: one separator character, then whole-text splits instead of per-line.
        if delimiter is None:
            data = [stripped[i] for i in keep]
            joined = "\n".join(data)
            if "\t" in joined or "  " in joined:
                joined = re.sub(r"[ \t\f\v]+", "\t", joined)
                data = joined.split("\n")
            sep = "\t" if "\t" in joined else " "
        else:
            data = [all_lines[i] for i in keep] if len(keep) < len(all_lines) else all_lines
            sep = delimiter
        rows = [line.split(sep) for line in data[:200]]

    # Header: the first row naming columns, or a commented header just above the data.
    header: list[str] | None = None
    first = rows[0]
    skip = 0
    if _header_like(first, rows[1:200]):
        header, skip = [f.strip() for f in first], 1
    elif keep[0] > 0 and stripped[keep[0] - 1].startswith("#"):
        previous = stripped[keep[0] - 1].lstrip("#").strip()
        fields = previous.split(delimiter) if delimiter else previous.split()
        if len(fields) == len(first) and any(_is_id_name(f) or _is_label_name(f) for f in fields):
            header = [f.strip() for f in fields]
    line_numbers = line_numbers[skip:]
    n_items = len(line_numbers)
    if n_items == 0:
        raise InputError(f"{source}: no items, only a header ({sep_shown.join(header or [])})")

    if quoted:
        rows = rows[skip:]
        counts = np.fromiter(map(len, rows), dtype=np.int64, count=n_items)
    else:
        data = data[skip:]  # type: ignore[index]
        counts = np.fromiter(map(str.count, data, repeat(sep)), dtype=np.int64,
                             count=n_items) + 1
    width = len(header) if header is not None else int(counts[0])
    bad = np.flatnonzero(counts != width)
    if bad.size:
        i = int(bad[0])
        found = rows[i] if quoted else data[i].split(sep)  # type: ignore[index]
        expected = (f"{width} like the header ({sep_shown.join(header)})" if header
                    else f"{width} like line {line_numbers[0]}")
        raise InputError(
            f"{source} line {line_numbers[i]}: found {counts[i]} field"
            f"{'s' if counts[i] != 1 else ''} ({sep_shown.join(found)!r}); expected {expected}"
            + (f" ({bad.size} lines differ)" if bad.size > 1 else "")
        )
    if header is not None:
        id_column, label_column = _choose_columns(header, source, "columns", column)
    elif width <= 2:
        id_column, label_column = (None, 0) if width == 1 else (0, 1)
        if column is not None:
            raise InputError(f"{source}: no header, so there is no column named {column!r}")
    else:
        raise InputError(
            f"{source}: found {width} columns and no header; expected 2 columns "
            f"(`id{sep_shown}label`), 1 column (`label`), or a header naming the id and label "
            f"columns (e.g. `id`, `label`)"
        )
    if quoted:
        ids = None if id_column is None else _strings([r[id_column] for r in rows])
        labels = _strings([r[label_column] for r in rows])
    else:
        flat = _strings("\n".join(data).replace(sep, "\n").split("\n")).reshape(n_items, width)
        ids = None if id_column is None else flat[:, id_column]
        labels = flat[:, label_column]
        if delimiter is not None and " " in text:
            ids = None if ids is None else np.char.strip(ids)
            labels = np.char.strip(labels)
    return LabelColumn(source, ids, labels, line_numbers, digest, fmt)


def _json_without_gc(text: str) -> Any:
    """``json.loads`` with the cyclic garbage collector paused: a million small dicts
    otherwise trigger dozens of useless full collections."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        if enabled:
            gc.enable()


def _parse_json(text: str, source: str, fmt: str, digest: str,
                column: str | None) -> LabelColumn:
    body = text.strip()
    if not body:
        raise InputError(f"{source}: no items (empty); expected one JSON object per line")
    records: list[Any]
    if body.startswith("["):
        try:
            records = json.loads(body)
        except json.JSONDecodeError as error:
            raise InputError(f"{source} line {error.lineno}: invalid JSON ({error.msg})") from None
        numbers = np.arange(1, len(records) + 1, dtype=np.int64)
        fmt, unit = "json", "item"
    else:
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        keep = [i for i, line in enumerate(lines)
                if line.strip() and not line.lstrip().startswith("#")]
        try:
            records = _json_without_gc("[" + ",".join(lines[i] for i in keep) + "]")
        except json.JSONDecodeError:
            for i in keep:
                try:
                    json.loads(lines[i])
                except json.JSONDecodeError as error:
                    raise InputError(
                        f"{source} line {i + 1}: invalid JSON ({error.msg}); expected one "
                        f'JSON object per line, e.g. {{"id": "a1", "label": "pos"}}'
                    ) from None
            raise InputError(f"{source}: invalid JSON Lines") from None
        numbers = np.asarray(keep, dtype=np.int64) + 1
        fmt, unit = "jsonl", "line"
    if not records:
        raise InputError(f"{source}: no items; expected one JSON object per line")
    if not isinstance(records[0], dict):
        kinds = {type(r).__name__ for r in records}
        if any(isinstance(r, (dict, list)) for r in records):
            raise InputError(f"{source}: mixed JSON values ({', '.join(sorted(kinds))}); "
                             f"expected one JSON object per {unit}")
        return LabelColumn(source, None, _as_text(np.asarray(records, dtype=object)),
                           numbers, digest, fmt)
    keys = list(records[0].keys())
    id_column, label_column = _choose_columns(keys, source, "keys", column)
    if len(keys) == 2 and column is None and not any(map(_is_id_name, keys)) and not any(
            map(_is_label_name, keys)):
        raise InputError(
            f"{source} {unit} {numbers[0]}: keys {', '.join(map(repr, keys))}; expected an "
            f'id key and a label key, e.g. {{"id": "a1", "label": "pos"}}'
        )
    id_key = None if id_column is None else keys[id_column]
    label_key = keys[label_column]
    try:
        labels_out = [record[label_key] for record in records]
        ids_out = [] if id_key is None else [record[id_key] for record in records]
        bad = None
    except (KeyError, TypeError, IndexError):
        bad = next(i for i, record in enumerate(records) if not isinstance(record, dict)
                   or label_key not in record or (id_key is not None and id_key not in record))
    if bad is not None:
        record = records[bad]
        found = (", ".join(map(repr, record)) if isinstance(record, dict)
                 else f"a JSON {type(record).__name__}")
        need = f"{id_key!r} and {label_key!r}" if id_key else repr(label_key)
        raise InputError(f"{source} {unit} {numbers[bad]}: found {found or 'no keys'}; "
                         f"expected an object with {need} like {unit} {numbers[0]}")
    nested = [i for i, v in enumerate(labels_out) if isinstance(v, (dict, list))][:1]
    if nested:
        raise InputError(f"{source} {unit} {numbers[nested[0]]}: label is a JSON "
                         f"{type(labels_out[nested[0]]).__name__}; expected a string or number")
    labels = _as_text(np.asarray(labels_out + [None], dtype=object)[:-1])
    ids = None if id_key is None else _as_text(np.asarray(ids_out + [None], dtype=object)[:-1])
    return LabelColumn(source, ids, labels, numbers, digest, fmt)


def _parse_parquet(raw: bytes, source: str, digest: str, column: str | None) -> LabelColumn:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(raw))
    except Exception as error:  # pyarrow raises several types for corrupt files
        raise InputError(f"{source}: cannot read as Parquet ({error})") from None
    names = list(table.column_names)
    if not names or table.num_rows == 0:
        raise InputError(f"{source}: no items (Parquet file with {table.num_rows} rows)")
    id_column, label_column = _choose_columns(names, source, "columns", column)

    def text(i: int) -> np.ndarray:
        values = table.column(i).to_numpy(zero_copy_only=False)
        return _as_text(values if values.dtype.kind != "O" else values.astype(object))

    ids = None if id_column is None else text(id_column)
    lines = np.arange(1, table.num_rows + 1, dtype=np.int64)
    return LabelColumn(source, ids, text(label_column), lines, digest, "parquet")


def read_labels(path: str | os.PathLike, *, column: str | None = None) -> LabelColumn:
    """Read one gold or system file into a :class:`LabelColumn`.

    Parameters
    ----------
    path : a CSV, TSV, whitespace-separated, JSON Lines or Parquet file (see module doc).
    column : name of the label column, for files whose header names several candidates
        (e.g. both ``gold`` and ``pred``).

    Raises
    ------
    InputError
        If the file is missing, empty, unreadable, not UTF-8, in an unknown format, or its
        columns cannot be told apart. Messages name the file and the line.
    """
    source = os.fspath(path)
    file = Path(source)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{source}: is a directory; expected a file of labels") from None
    except PermissionError:
        raise InputError(f"{source}: cannot read the file (permission denied)") from None
    except OSError as error:
        raise InputError(f"{source}: cannot read the file ({error.strerror or error})") from None
    if not raw:
        raise InputError(f"{source}: the file is empty; expected lines of `id<TAB>label`")
    digest = hashlib.sha256(raw).hexdigest()
    suffix = file.suffix.lower()
    if suffix == ".parquet" or raw[:4] == b"PAR1":
        if raw[:4] != b"PAR1":
            raise InputError(f"{source}: not a Parquet file (no PAR1 magic bytes); "
                             f"expected {_EXPECTED}")
        return _parse_parquet(raw, source, digest, column)
    for magic, what in _MAGIC.items():
        if raw.startswith(magic):
            raise InputError(f"{source}: unknown format, looks like {what}; expected {_EXPECTED}")
    if suffix in _BINARY_EXTENSIONS:
        raise InputError(f"{source}: unknown format ({suffix}, {_BINARY_EXTENSIONS[suffix]}); "
                         f"expected {_EXPECTED}")
    if b"\x00" in raw[:8192] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{source}: unknown format (binary data); expected {_EXPECTED}")
    text = _decode(raw, source)
    if suffix in (".jsonl", ".ndjson", ".json"):
        return _parse_json(text, source, "jsonl", digest, column)
    if suffix not in (".csv", ".tsv"):
        head = text.lstrip()[:1]
        if head in ("{", "["):
            return _parse_json(text, source, "jsonl", digest, column)
    fmt = {".csv": "csv", ".tsv": "tsv"}.get(suffix, "text")
    return _parse_delimited(text, source, fmt, digest, column)


# --------------------------------------------------------------------------- arguments

def parse_system_argument(argument: str) -> tuple[str, str]:
    """Split a SYSTEM argument into ``(name, path)``.

    ``NAME=PATH`` names the system; a bare ``PATH`` is named by its file stem. A string that
    is an existing file is always a bare path, even if it contains ``=``.

    Raises
    ------
    InputError
        If the name or the path part of ``NAME=PATH`` is empty.
    """
    if os.path.isfile(argument) or "=" not in argument:
        return Path(argument).stem, argument
    name, path = argument.split("=", 1)
    if not name.strip() or not path:
        raise InputError(
            f"system argument {argument!r}: empty {'name' if not name.strip() else 'path'}; "
            f"expected PATH or NAME=PATH"
        )
    return name.strip(), path


def semeval_names(directory: str | os.PathLike) -> dict[str, str]:
    """Display names of SemEval/CodaLab submissions from ``metadata-public.xml``.

    Maps each ``submissionID`` to its ``shownName``, else ``systemName``, else
    ``username``; a withdrawn submission is named ``"NAME (withdrawn)"``. Returns ``{}``
    when the directory has no such file. Used to name systems whose file stem is a
    submission ID (SemEval-2018 Task 12's ``submissions/``).

    Raises
    ------
    InputError
        If the file is not well-formed XML or declares entities (which are not expanded).
    """
    place = Path(directory)
    file = place if place.is_file() else place / "metadata-public.xml"
    if not file.is_file():
        return {}
    raw = file.read_bytes()
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise InputError(f"{file}: declares a DOCTYPE or entities; refusing to expand them")
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError as error:
        raise InputError(f"{file}: not well-formed XML ({error})") from None
    names: dict[str, str] = {}
    for element in root.iter("participant"):
        submission = (element.get("submissionID") or "").strip()
        if not submission:
            continue
        name = next((v.strip() for v in (element.get("shownName"), element.get("systemName"),
                                          element.get("username")) if v and v.strip()),
                    submission)
        if (element.get("withdrawn") or "").lower() == "true":
            name = f"{name} (withdrawn)"
        names[submission] = name
    return names
