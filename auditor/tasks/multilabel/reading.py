"""Reading label sets: four layouts, one :class:`SetFile` each (a code per item into its distinct sets).

* ``id<TAB>labels`` (CSV, TSV, any layout :func:`auditor.io.load.read_labels` reads), the labels of an item
  joined by the separator (``,`` by default); an empty field is the empty set. The set texts are read as
  labels (each distinct text once, hashed by arrow) and only the distinct texts are split here.
* JSON Lines ``{"id": …, "labels": […]}`` and Parquet with a list column: the lists flattened by arrow.
* A column per label (``id`` then the label names, SemEval-2018 E-c's layout, :mod:`.label_columns`).

Bad input gets one :class:`~auditor.errors.InputError` naming the file, the line and what was expected: an
empty label inside a set (``a,,b``), a label twice in one set.
"""
from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from auditor.errors import InputError
from auditor.files import read_input
from auditor.io.column import LabelColumn, as_id_array, numpy_values, string_array
from auditor.io.jsonl import json_lines
from auditor.io.lines import decode_utf8, nonempty_line_numbers
from auditor.io.names import GOLD, PREDICTIONS, choose_columns
from auditor.tasks.multilabel.label_columns import column_layout, read_label_columns, sets_from_table
from auditor.tasks.multilabel.sets import SetFile, encode_rows

#: The default separator of a set's labels in a delimited file.
SEPARATOR = ","
#: One line of a JSON Lines file of sets, for messages.
EXAMPLE = '{"id": ..., "labels": [...]}'
_SETS_FILE = "a file of label sets (`id<TAB>a,b` lines, JSON Lines of label lists, or Parquet)"


def read_sets(path: str | os.PathLike, separator: str = SEPARATOR, role: str = "gold") -> SetFile:
    """The label sets of one file (any of the four layouts)."""
    source = os.fspath(path)
    suffix = Path(source).suffix.lower()
    head = _head(source)
    if head[:4] == b"PAR1" or suffix == ".parquet":
        return _read_parquet(source, role)
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
        listed = _read_json_lists(source, head, role)
        if listed is not None:
            return listed
    elif column_layout(head, suffix):
        return read_label_columns(source)
    return _read_joined(source, separator, role)


def _head(source: str) -> bytes:
    try:
        with open(source, "rb") as stream:
            return stream.read(65536)
    except OSError:
        return b""  # read_labels says what is wrong with the file


def _read_joined(source: str, separator: str, role: str) -> SetFile:
    """``id<TAB>a,b`` lines: the distinct set texts split once each, by arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from auditor.io.load import read_labels

    column = read_labels(source, rule=GOLD if role == "gold" else PREDICTIONS)
    texts = string_array(column.categories)
    trimmed = pc.utf8_trim(texts, " \t")
    split = pc.split_pattern(trimmed, separator)
    offsets = numpy_values(split.offsets).astype(np.int64)
    owner = np.repeat(np.arange(len(texts)), np.diff(offsets))
    is_set = numpy_values(pc.binary_length(trimmed)) > 0  # "" is the empty set
    keep = is_set[owner]
    values = pc.utf8_trim(split.flatten(), " \t").filter(pa.Array.from_buffers(
        pa.bool_(), int(keep.size), [None, pa.py_buffer(np.packbits(keep, bitorder="little"))]))

    def where(code: int) -> str:
        item = int(np.flatnonzero(column.codes == code)[0])
        return f"{column.where(item)} (the set {column.categories[code]!r})"

    labels, set_bits = member_bits(owner[keep], values, len(texts), where,
                                   f"two {separator!r} in a row, or one at an end")
    return SetFile(column, labels, set_bits, column.codes, "joined")


def member_bits(owner: np.ndarray, values: Any, rows: int, where: Callable[[int], str], empty_hint: str
                ) -> tuple[tuple[str, ...], np.ndarray]:
    """(sorted labels, rows × labels bits) of label ``values[k]`` (arrow strings) in row ``owner[k]``; an empty
    label or a label twice in one row is one error at ``where(row)``."""
    import pyarrow.compute as pc

    empty = numpy_values(pc.binary_length(values)) == 0
    if values.null_count:
        empty |= numpy_values(values.is_null())
    if empty.any():
        raise InputError(f"{where(int(owner[np.flatnonzero(empty)[0]]))}: an empty label ({empty_hint}); expected "
                         f"label names")
    encoded = pc.dictionary_encode(values)
    found = encoded.dictionary.to_pylist()
    labels = tuple(sorted(found))
    rank = np.argsort(np.argsort(np.array(found, dtype=object), kind="stable")) if found else np.zeros(0, int)
    codes = rank[numpy_values(encoded.indices).astype(np.int64)]
    flat = owner * len(labels) + codes
    counts = np.bincount(flat, minlength=rows * len(labels)) if labels else np.zeros(0, dtype=np.int64)
    if (counts > 1).any():
        at = int(np.flatnonzero(counts > 1)[0])
        raise InputError(f"{where(at // len(labels))}: label {labels[at % len(labels)]!r} twice in one set; expected "
                         f"each label once")
    bits = np.zeros((rows, len(labels)), dtype=bool)
    bits.ravel()[flat] = True
    return labels, bits


def from_lists(lists: Any, ids: Any, source: str, lines: np.ndarray, digest: str | None, fmt: str) -> SetFile:
    """A SetFile from an arrow list array (one list of labels per item): flattened, encoded, checked."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    column = LabelColumn(source, np.zeros(len(lists), dtype=np.int8), (), None if ids is None else
                         as_id_array(ids, source), lines, digest, fmt)  # type: ignore[arg-type]
    if lists.null_count:
        item = int(np.flatnonzero(numpy_values(lists.is_null()))[0])
        raise InputError(f"{column.where(item)}: labels is null; expected a list of labels ([] for the empty set)")
    offsets = numpy_values(lists.offsets).astype(np.int64)
    values = lists.flatten()
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type) or
            pa.types.is_integer(values.type)):
        raise InputError(f"{source}: labels hold {values.type} values; expected lists of label names")
    values = pc.utf8_trim(pc.cast(values, pa.string()), " \t")
    owner = np.repeat(np.arange(len(lists)), np.diff(offsets))
    labels, bits = member_bits(owner, values, len(lists), column.where, "[] is the empty set")
    codes, sets = encode_rows(bits)
    return SetFile(column, labels, sets, codes, "lists")


def _read_json_lists(source: str, head: bytes, role: str) -> SetFile | None:
    """JSON Lines whose label value is a list, or None (a label string per line: the joined layout)."""
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        record = json.loads(first)
    except ValueError:
        return None
    if not isinstance(record, dict) or not any(isinstance(v, list) for v in record.values()):
        return None
    import hashlib

    import pyarrow.json as pj

    raw = read_input(source, _SETS_FILE)
    try:
        table = pj.read_json(io.BytesIO(raw))
    except Exception as error:  # pyarrow raises several types
        json_lines(decode_utf8(raw, source), source, EXAMPLE)  # names the first bad line
        raise InputError(f"{source}: cannot read as JSON Lines ({error}); expected one object per line, "
                         f"{EXAMPLE}") from None
    lines, _ = nonempty_line_numbers(raw, 0, 1)
    if lines.size != table.num_rows:  # blank lines, or two objects on one line (which arrow reads as two rows)
        _, kept, _ = json_lines(decode_utf8(raw, source), source, EXAMPLE)
        lines = np.asarray(kept, dtype=np.int64) + 1
        if lines.size != table.num_rows:  # pragma: no cover - json_lines refuses what arrow reads differently
            raise InputError(f"{source}: {table.num_rows} JSON objects on {lines.size} lines; expected one per line")
    return _from_table(table, source, hashlib.sha256(raw).hexdigest(), "jsonl", role, lines)


def _read_parquet(source: str, role: str) -> SetFile:
    import hashlib

    import pyarrow.parquet as pq

    raw = read_input(source, _SETS_FILE)
    try:
        table = pq.read_table(io.BytesIO(raw))
    except Exception as error:  # pyarrow raises several types for corrupt files
        raise InputError(f"{source}: cannot read as Parquet ({error})") from None
    digest = hashlib.sha256(raw).hexdigest()
    import pyarrow as pa

    if not any(pa.types.is_list(t) or pa.types.is_large_list(t) for t in table.schema.types):
        return sets_from_table(table, source, digest, "parquet")
    return _from_table(table, source, digest, "parquet", role)


def _from_table(table: Any, source: str, digest: str, fmt: str, role: str, lines: np.ndarray | None = None
                ) -> SetFile:
    """The sets of a table with a list column; ``lines``: the line of each row (default: row r is line r + 1)."""
    import pyarrow as pa

    names = list(table.column_names)
    if table.num_rows == 0:
        raise InputError(f"{source}: no items")
    id_column, label_column = choose_columns(names, source, "keys" if fmt == "jsonl" else "columns", None,
                                             GOLD if role == "gold" else PREDICTIONS)
    lists = table.column(label_column)
    if not (pa.types.is_list(lists.type) or pa.types.is_large_list(lists.type)):
        raise InputError(f"{source}: {names[label_column]!r} holds {lists.type} values; expected a list of labels "
                         f"per item")
    ids = None if id_column is None else table.column(id_column)
    if lines is None:
        lines = np.arange(1, table.num_rows + 1, dtype=np.int64)
    return from_lists(lists, ids, source, lines, digest, fmt)
