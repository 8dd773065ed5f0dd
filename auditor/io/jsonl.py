"""JSON Lines label files (``.jsonl``, ``.ndjson``; ``.json`` holding lines of objects or one array).

Read stage. Flat objects of string, integer or boolean labels go through ``pyarrow.json``;
anything else (floats, missing keys, mixed types, bad JSON...) through Python's ``json``, which
names the line. No comments (JSON has none); blank lines are skipped and counted.
"""
from __future__ import annotations

import gc
import json
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from auditor.errors import InputError
from auditor.io.column import LabelColumn, as_id_array, build_column, encodable, scalar_text
from auditor.io.lines import count_lines, nonempty_line_numbers
from auditor.io.names import GOLD, HeaderRule, choose_columns

__all__ = ["read_json", "json_lines", "sniff"]


def sniff(suffix: str, raw: bytes) -> bool:
    """A ``.jsonl``, ``.ndjson`` or ``.json`` file, or text (not ``.csv``/``.tsv``) opening with ``{`` or ``[``."""
    head = raw.lstrip(b" \t\r\n")[:1]
    return suffix in (".jsonl", ".ndjson", ".json") or (suffix not in (".csv", ".tsv") and head in (b"{", b"["))


def read_json(raw: bytes, source: str, digest: str, column: str | None = None, rule: HeaderRule = GOLD,
              suffix: str = "") -> LabelColumn:
    """JSON Lines (or a JSON array) UTF-8 bytes -> LabelColumn: ``pyarrow.json`` first, Python's ``json`` else."""
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if raw.lstrip(b" \t\r\n")[:1] == b"{":
        column_read = _read_json_arrow(raw, source, digest, column, rule)
        if column_read is not None:
            return column_read
    return _parse_json(raw.decode("utf-8"), source, digest, column, rule)


def _json_loads(text: str) -> Any:
    """``json.loads`` with the cyclic garbage collector paused (a million small dicts
    otherwise trigger dozens of useless full collections)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        if enabled:
            gc.enable()


def json_lines(text: str, source: str, example: str) -> tuple[list[Any], list[int], int]:
    """The records of a JSON Lines ``text``, the 0-based line of each, and the number of blank
    lines. All lines are parsed in one ``json.loads`` call; when that fails, or finds more values
    than lines (``{...}, {...}`` on one line joins into two records), the first bad line is named
    in an :class:`InputError` (``example`` shows what a line should hold)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    keep = [i for i, line in enumerate(lines) if line.strip(" \t")]
    try:
        records = _json_loads("[" + ",".join(lines[i] for i in keep) + "]")
    except (RecursionError, ValueError):
        _refuse_line(lines, keep, source, example)
    if len(records) != len(keep):
        _refuse_line(lines, keep, source, example)
    return records, keep, len(lines) - len(keep)


def _refuse_line(lines: list[str], keep: list[int], source: str, example: str) -> NoReturn:
    """One error naming the first of ``lines`` (at ``keep``) that is not one JSON value."""
    for i in keep:
        try:
            json.loads(lines[i])
        except (RecursionError, ValueError) as error:
            raise InputError(f"{source} line {i + 1}: {_line_problem(lines[i], error)}; expected one JSON object "
                             f"per line, e.g. {example}") from None
    raise InputError(f"{source}: invalid JSON Lines")  # pragma: no cover - a line above failed


def _line_problem(line: str, error: BaseException) -> str:
    """What is wrong with one line: a second value after the first (``{...}, {...}``), other text after it, or
    :func:`_json_problem`."""
    if not (isinstance(error, json.JSONDecodeError) and error.msg == "Extra data"):
        return _json_problem(error)
    rest = line[error.pos:].lstrip(" \t,")
    try:
        json.JSONDecoder().raw_decode(rest)
    except (RecursionError, ValueError):
        return f"text after the JSON value ({line[error.pos:error.pos + 20]!r})"
    return "more than one JSON value on one line"


def _json_problem(error: BaseException) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"invalid JSON ({error.msg})"
    if isinstance(error, RecursionError):
        return "JSON nested too deeply"
    if "digits" in str(error):
        return "an integer of more than 4,300 digits (Python's limit); write it as a string"
    return f"invalid JSON ({error})"  # e.g. an integer over Python's 4,300-digit limit


def _json_values(values: list[Any], where: Any, what: str) -> Any:
    """A list of JSON labels or ids as an Arrow array; nested values refused."""
    import pyarrow as pa

    nested = next((i for i, v in enumerate(values) if isinstance(v, (dict, list))), None)
    if nested is not None:
        raise InputError(f"{where(nested)}: {what} is a JSON "
                         f"{'object' if isinstance(values[nested], dict) else 'array'}; "
                         f"expected a string or number")
    try:
        array = pa.array(values)
        if pa.types.is_string(array.type) or pa.types.is_integer(array.type) or \
                pa.types.is_floating(array.type) or pa.types.is_boolean(array.type) or \
                pa.types.is_null(array.type):
            return array
    except UnicodeEncodeError:
        index = next(i for i, v in enumerate(values) if isinstance(v, str) and not encodable(v))
        raise InputError(f"{where(index)}: {what} {values[index]!r} is not valid Unicode (a "
                         f"lone surrogate escape); expected UTF-8 text") from None
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        pass  # mixed types (1 and "a", true and 1) or huge integers: text item by item
    texts = [scalar_text(v) for v in values]
    try:
        return pa.array(texts, type=pa.string())
    except UnicodeEncodeError:  # pragma: no cover - caught above for str values
        index = next(i for i, v in enumerate(texts) if not encodable(v))
        raise InputError(f"{where(index)}: {what} is not valid Unicode") from None


def _read_json_arrow(data: bytes, source: str, digest: str, column: str | None, rule: HeaderRule = GOLD
                     ) -> LabelColumn | None:
    """JSON Lines of flat objects through ``pyarrow.json`` (labels and ids of string,
    integer or boolean type, no nulls, every line an object with the first line's keys).

    Returns None for anything else (floats, missing keys, blank lines of spaces, mixed
    types, bad JSON...): :func:`_parse_json` then reads the file line by line with
    Python's ``json`` and gives the exact message.
    """
    import pyarrow as pa
    import pyarrow.json as pajson

    start = len(data) - len(data.lstrip(b"\n"))
    end = data.find(b"\n", start)
    try:
        first = json.loads(data[start:end if end >= 0 else len(data)])
        table = pajson.read_json(pa.py_buffer(data))
    except (ValueError, RecursionError, pa.ArrowException):
        return None
    if not isinstance(first, dict) or list(first) != table.column_names or not first:
        return None
    first_line = data.count(b"\n", 0, start) + 1
    id_column, label_column = choose_columns(list(first), f"{source} line {first_line}",
                                             "keys", column, rule)

    def plain(array: Any) -> bool:
        kind = array.type
        return array.null_count == 0 and (pa.types.is_string(kind) or pa.types.is_integer(kind)
                                          or pa.types.is_boolean(kind))

    labels = table.column(label_column)
    ids = None if id_column is None else table.column(id_column)
    if not plain(labels) or (ids is not None and (not plain(ids)
                                                  or pa.types.is_boolean(ids.type))):
        return None
    n_rows = table.num_rows
    n_lines = count_lines(data)
    if n_lines == n_rows:
        numbers = np.arange(1, n_rows + 1, dtype=np.int64)
    else:
        numbers, _ = nonempty_line_numbers(data, 0, 1)
        if numbers.size != n_rows:  # lines of spaces: the Python reader decides
            return None
    skipped = {"blank": n_lines - n_rows} if n_lines > n_rows else {}
    return build_column(source, labels, None if ids is None else as_id_array(ids, source), numbers,
                   digest, "jsonl", skipped)


@dataclass(frozen=True)
class Records:
    """The JSON values of a file (one array, or one per line), the line (or array index + 1) of
    each, the format (``json``/``jsonl``), the unit of a location (``item``/``line``) and the
    blank lines skipped."""

    values: list[Any]
    numbers: np.ndarray
    fmt: str
    unit: str
    skipped: dict[str, int]


def _records(text: str, source: str) -> Records:
    """The :class:`Records` of a JSON or JSON Lines text."""
    body = text.strip(" \t\r\n")
    skipped: dict[str, int] = {}
    if not body:
        raise InputError(f"{source}: no items (empty); expected one JSON object per line")
    records: list[Any]
    if body.startswith("["):
        try:
            records = _json_loads(body)
        except json.JSONDecodeError as error:
            raise InputError(f"{source} line {error.lineno}: invalid JSON ({error.msg})") from None
        except (RecursionError, ValueError) as error:
            raise InputError(f"{source}: {_json_problem(error)}") from None
        if not isinstance(records, list):  # pragma: no cover - "[" starts an array
            records = [records]
        numbers = np.arange(1, len(records) + 1, dtype=np.int64)
        fmt, unit = "json", "item"
    else:
        records, keep, blank = json_lines(text, source, '{"id": "a1", "label": "pos"}')
        if blank:
            skipped["blank"] = blank
        numbers = np.asarray(keep, dtype=np.int64) + 1
        fmt, unit = "jsonl", "line"
    if not records:
        raise InputError(f"{source}: no items; expected one JSON object per line")
    return Records(records, numbers, fmt, unit, skipped)


def _parse_json(text: str, source: str, digest: str, column: str | None, rule: HeaderRule = GOLD) -> LabelColumn:
    """Any JSON Lines or JSON array text -> LabelColumn, record by record (exact messages)."""
    read = _records(text, source)
    records, numbers, fmt, unit, skipped = read.values, read.numbers, read.fmt, read.unit, read.skipped

    def where(i: int) -> str:
        return f"{source} {unit} {numbers[i]}"

    if not isinstance(records[0], dict):
        kinds = {type(r).__name__ for r in records}
        if any(isinstance(r, dict) for r in records):
            raise InputError(f"{source}: mixed JSON values ({', '.join(sorted(kinds))}); "
                             f"expected one JSON object per {unit}")
        return build_column(source, _json_values(records, where, "label"), None, numbers, digest,
                       fmt, skipped)
    keys = list(records[0].keys())
    if not keys:
        raise InputError(f"{where(0)}: an empty object; expected an object with an id and a "
                         f'label, e.g. {{"id": "a1", "label": "pos"}}')
    id_column, label_column = choose_columns(keys, where(0), "keys", column, rule)
    id_key = None if id_column is None else keys[id_column]
    label_key = keys[label_column]
    try:
        labels_out = [record[label_key] for record in records]
        ids_out = None if id_key is None else [record[id_key] for record in records]
        bad = None
    except (KeyError, TypeError, IndexError):
        bad = next(i for i, record in enumerate(records) if not isinstance(record, dict)
                   or label_key not in record or (id_key is not None and id_key not in record))
    if bad is not None:
        record = records[bad]
        found = (", ".join(map(repr, record)) if isinstance(record, dict)
                 else f"a JSON {type(record).__name__}")
        need = f"{id_key!r} and {label_key!r}" if id_key else repr(label_key)
        raise InputError(f"{where(bad)}: found {found or 'no keys'}; "
                         f"expected an object with {need} like {unit} {numbers[0]}")
    labels = _json_values(labels_out, where, "label")
    ids = None
    if ids_out is not None:
        nulls = next((i for i, v in enumerate(ids_out) if v is None), None)
        if nulls is not None:
            raise InputError(f"{where(nulls)}: id is null; every item needs an id like "
                             f"{unit} {numbers[0]}")
        ids = as_id_array(_json_values(ids_out, where, "id"), source)
    return build_column(source, labels, ids, numbers, digest, fmt, skipped)

