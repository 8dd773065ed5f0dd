"""CSV, TSV and whitespace-separated label files: the preamble line by line, the body through
``pyarrow.csv`` (plain files) or a line-by-line Python reader (quotes, odd lines, every error).

Read stage; the rules are in :mod:`auditor.io.load`'s docstring. A quoted field never spans
lines: a line break inside quotes (an unterminated quote, or a label written over two lines)
is refused naming the line where the quote opened, never read as one long label.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from auditor.errors import InputError
from auditor.io.column import TRIM, LabelColumn, build_column
from auditor.io.lines import arrow_body, is_comment, line_iter, nonempty_line_numbers, split_fields
from auditor.io.names import GOLD, HeaderRule, choose_columns, header_kind, is_id_name, is_label_name

__all__ = ["Body", "read_delimited", "parse_delimited", "sniff"]

_SHOWN = {"csv": ",", "tsv": "<TAB>"}


@dataclass(frozen=True)
class Body:
    """What a body reader found: the label and id columns (Arrow), each item's line, the blank
    lines skipped, and whether fields still need trimming."""

    labels: Any
    ids: Any
    numbers: np.ndarray
    blank: int = 0
    trim: bool = False


@dataclass
class _Preamble:
    """The lines before the first item: the header (if any), the separator, what was skipped."""

    fmt: str
    delimiter: str | None
    header: list[str] | None
    first: tuple[int, int, int]  # (line number, start, end) of the first item
    skipped: dict[str, int] = field(default_factory=dict)


def sniff(suffix: str, raw: bytes) -> bool:
    """Every text file that no other reader takes is delimited text."""
    return True


def read_delimited(data: bytes, source: str, digest: str, column: str | None = None,
                   rule: HeaderRule = GOLD, suffix: str = "") -> LabelColumn:
    """The :data:`~auditor.io.load.READERS` entry: the format from the extension (``.csv``,
    ``.tsv``; else sniffed from the lines)."""
    return parse_delimited(data, source, {".csv": "csv", ".tsv": "tsv"}.get(suffix, "text"), digest, column,
                           rule=rule)


def parse_delimited(data: bytes, source: str, fmt: str, digest: str, column: str | None, fast: bool = True,
                    rule: HeaderRule = GOLD) -> LabelColumn:
    """CSV, TSV or whitespace-separated UTF-8 bytes -> LabelColumn (rules in :mod:`auditor.io.load`).

    ``data`` is valid UTF-8 without a byte-order mark whose lines end at ``\\n`` only
    (:func:`auditor.io.load.read_labels` normalises ``\\r\\n`` and ``\\r``). The preamble is read
    line by line; the body by ``pyarrow.csv`` when it is plain CSV/TSV, else by
    :func:`_read_python`, which also gives the exact message when pyarrow refuses a body.
    ``fast=False`` forces the Python reader (tests compare the two).
    """
    pre = _preamble(data, source, fmt, rule)
    begin, first_line = pre.first[1], pre.first[0]
    sep_shown = _SHOWN.get(pre.fmt, " ")
    quoted = pre.delimiter is not None and data.find(b'"', begin) >= 0
    body = None
    if fast and pre.delimiter is not None and not quoted:
        body = _read_arrow(data, begin, first_line, pre.delimiter, pre.header, source, column, rule)
    if body is None:
        body = _read_python(data[begin:].decode("utf-8"), first_line, pre.delimiter, quoted, pre.header, source,
                            column, sep_shown, rule)
    pre.skipped["blank"] += body.blank
    return build_column(source, body.labels, body.ids, body.numbers, digest, pre.fmt,
                        {k: v for k, v in pre.skipped.items() if v}, body.trim)


def _skip_preamble(
    data: bytes, lines: Iterator[tuple[int, int]], number: int, skipped: dict[str, int], fmt: str | None,
    rule: HeaderRule,
) -> tuple[int, tuple[int, int, int] | None, tuple[str, int] | None]:
    """Read ``lines`` up to the first item, counting blank lines and comments in ``skipped``.

    Returns the number of the last line read, the first item as (line number, start, end)
    in bytes (None when there is none), and the last commented header (``#id<TAB>label``:
    a ``#`` line whose fields read as a header) with its line number. Commented headers are
    looked for only before the header is known (``fmt`` given, the file's format); with
    ``fmt`` None (after a header line) a ``#`` line that is not a comment is the first item.
    """
    commented: tuple[str, int] | None = None
    for start, end in lines:
        number += 1
        stripped = data[start:end].decode("utf-8").strip(TRIM)
        if not stripped:
            skipped["blank"] += 1
        elif is_comment(stripped):
            skipped["comment"] += 1
        elif fmt is not None and stripped[0] == "#" \
                and header_kind(split_fields(stripped[1:], _guess(stripped, fmt)), rule) == "header":
            if commented is not None:
                skipped["comment"] += 1
            commented = (stripped[1:], number)
        else:
            return number, (number, start, end), commented
    return number, None, commented


def _separator(data: bytes, begin: int, fmt: str) -> tuple[str, str | None, list[str]]:
    """(format, separator, first non-blank lines): from the extension, else (or when the
    extension's separator never occurs) tab when every item line after the first has one,
    else runs of whitespace."""
    line_end = data.find(b"\n", begin)
    first = data[begin:line_end if line_end >= 0 else len(data)].decode("utf-8")
    delimiter: str | None = {"csv": ",", "tsv": "\t"}.get(fmt)
    if delimiter is not None and delimiter in first:  # the extension's separator: no need to look further
        return fmt, delimiter, [first]
    probe = [data[s:e].decode("utf-8") for (s, e), _ in zip(line_iter(data, begin), range(1001))]
    probe = [p for p in probe if p.strip(TRIM)]
    if delimiter is not None and not any(delimiter in p for p in probe):
        fmt, delimiter = "text", None
    if fmt == "text":
        rest = probe[1:] or probe[:1]
        delimiter = "\t" if all("\t" in line for line in rest) else None
        fmt = "tsv" if delimiter else "whitespace"
    return fmt, delimiter, probe


def _unclear(source: str, line: int, fields: list[str], sep_shown: str, rule: HeaderRule) -> InputError:
    """The error for a first line that looks like a header but names an unknown column."""
    shown = sep_shown.join(fields)
    if rule.values is not None:
        return InputError(
            f"{source} line {line}: {shown!r} looks like a header but names no group column; expected a header "
            f"naming an id column (id, item_id, ..._id) and a group column ({', '.join(rule.values)}), or an item")
    unknown = [f for f in fields if not (is_id_name(f) or is_label_name(f, rule))]
    return InputError(
        f"{source} line {line}: {shown!r} looks like a header "
        f"but {', '.join(map(repr, unknown))} "
        f"{'is not a known column name' if len(unknown) == 1 else 'are not known column names'}"
        f"; expected a header naming an id column (id, item_id, "
        f"..._id) and a label column (label, gold, prediction, pred, y, class, target...), "
        f"or an item")


def _preamble(data: bytes, source: str, fmt: str, rule: HeaderRule) -> _Preamble:
    """Blank lines, comments and the header before the first item (refusing a file without items)."""
    skipped = {"blank": 0, "comment": 0, "header": 0}
    lines = line_iter(data, 0)
    number, first, commented = _skip_preamble(data, lines, 0, skipped, fmt, rule)
    if first is None:
        if commented is not None:
            raise InputError(f"{source}: no items, only a header ({commented[0].strip()})")
        what = "empty" if not skipped["comment"] else "only comments and blank lines"
        raise InputError(f"{source}: no items ({what}); expected lines of `id<TAB>label`")
    fmt, delimiter, probe = _separator(data, first[1], fmt)
    sep_shown = _SHOWN.get(fmt, " ")
    header: list[str] | None = None
    first_fields = split_fields(probe[0], delimiter)
    kind = header_kind(first_fields, rule)
    if kind == "unclear":
        raise _unclear(source, first[0], first_fields, sep_shown, rule)
    if kind == "header":
        header = first_fields
        skipped["header"] += 1
        if commented is not None:
            skipped["comment"] += 1
        number, first, _ = _skip_preamble(data, lines, number, skipped, None, rule)
        if first is None:
            raise InputError(f"{source}: no items, only a header ({sep_shown.join(header)})")
    elif commented is not None:
        fields = split_fields(commented[0], delimiter)
        if len(fields) == len(first_fields):
            header = fields
            skipped["header"] += 1
        else:
            skipped["comment"] += 1
    return _Preamble(fmt, delimiter, header, first, skipped)


def _guess(line: str, fmt: str) -> str | None:
    """Separator for a commented header line before the format is known."""
    if "\t" in line:
        return "\t"
    if fmt == "csv" and "," in line:
        return ","
    return None


def _columns(header: list[str] | None, width: int, source: str, column: str | None,
             sep_shown: str, rule: HeaderRule) -> tuple[int | None, int]:
    if header is not None:
        return choose_columns(header, source, "columns", column, rule)
    if column is not None:
        raise InputError(f"{source}: no header, so there is no column named {column!r}")
    if width == 1:
        return None, 0
    if width == 2:
        return 0, 1
    raise InputError(
        f"{source}: found {width} columns and no header; expected 2 columns "
        f"(`id{sep_shown}label`), 1 column (`label`), or a header naming the id and label "
        f"columns (e.g. `id`, `label`)"
    )


def _read_arrow(data: bytes, begin: int, first_line: int, delimiter: str, header: list[str] | None,
                source: str, column: str | None, rule: HeaderRule) -> Body | None:
    """Body (``data[begin:]``) of an unquoted CSV/TSV through pyarrow.csv, without copying.

    Returns None when pyarrow refuses it, or when a label is empty after trimming (a line
    of only spaces and tabs is blank, which pyarrow does not know): the Python reader then
    decides, and finds the exact line of any error. The label column is read straight
    into a dictionary (hash) encoding. Row r is line ``first_line + r`` unless an id (a file
    without ids: a label) is empty, as an empty line reads as a row of empty fields: only then
    is the body read again with empty lines skipped, and each row's line found by counting
    line breaks.
    """
    import pyarrow as pa

    line_end = data.find(b"\n", begin)
    width = len(header) if header is not None else \
        data[begin:line_end if line_end >= 0 else len(data)].count(delimiter.encode()) + 1
    id_column, label_column = _columns(header, width, source, column, {",": ",", "\t": "<TAB>"}[delimiter], rule)
    types = {label_column: pa.dictionary(pa.int32(), pa.string())}
    if id_column is not None:
        types[id_column] = pa.string()
    end = len(data)
    while end > begin and data[end - 1] == 10:  # the line breaks after the last item
        end -= 1
    try:
        table = arrow_body(data, begin, width, types, delimiter, quoted=False, end=end, skip_empty=False)
        if _has_empty(table.column(f"c{label_column if id_column is None else id_column}")):  # an empty line?
            table = arrow_body(data, begin, width, types, delimiter, quoted=False)
            end = -1
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    n_rows = table.num_rows
    if end >= 0:
        blank = max(len(data) - end - 1, 0)
        numbers = np.arange(first_line, first_line + n_rows, dtype=np.int64)
    else:  # empty lines, which pyarrow skipped: find their numbers
        numbers, blank = nonempty_line_numbers(data, begin, first_line)
    if numbers.size != n_rows:  # pragma: no cover - defensive: let the Python reader decide
        return None
    trim = data.find(b" ", begin) >= 0 or (delimiter == "," and data.find(b"\t", begin) >= 0)
    labels = table.column(f"c{label_column}")
    if trim and labels.num_chunks and any(
            not text.strip(TRIM) for text in labels.unify_dictionaries().chunks[-1].dictionary.to_pylist()):
        return None
    ids = None if id_column is None else table.column(f"c{id_column}")
    if ids is not None and trim:
        import pyarrow.compute as pc

        ids = pc.utf8_trim(ids, characters=TRIM)
    return Body(labels, ids, numbers, blank, trim)


def _has_empty(column: Any) -> bool:
    """Whether a column read by pyarrow (ids, or labels encoded with small dictionaries) holds the empty text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        return any(len(chunk.dictionary) and pc.min(pc.binary_length(chunk.dictionary)).as_py() == 0
                   for chunk in column.chunks)
    return len(column) > 0 and pc.min(pc.binary_length(column)).as_py() == 0


def _quoted_rows(body: str, first_line: int, delimiter: str, source: str
                 ) -> tuple[list[list[str]], list[int], int]:
    """Rows of a body with quoted fields (``csv``), their lines and the blank lines; a line
    break inside quotes is refused naming the line where the quote opened."""
    rows: list[list[str]] = []
    numbers: list[int] = []
    blank = 0
    if not body.endswith("\n"):
        body += "\n"  # an unterminated quote on the last line then holds a line break too
    reader = csv.reader(io.StringIO(body), delimiter=delimiter)
    start = 0  # lines read before the current row
    row: list[str] = []
    try:
        for row in reader:
            line = first_line + start
            if reader.line_num - start > 1:  # the row ran over a line break inside quotes
                raise _spans(source, line)
            start = reader.line_num
            if not row or not "".join(row).strip(TRIM):
                blank += 1
                continue
            rows.append([f.strip(TRIM) for f in row])
            numbers.append(line)
    except csv.Error as error:
        raise InputError(f"{source} line {first_line + start}: {error}; "
                         f"expected CSV fields (quote a field holding the separator)") from None
    if any("\n" in f for f in row):  # a quote never closed on the last line swallowed its line break
        raise _spans(source, first_line + start - 1)
    return rows, numbers, blank


def _spans(source: str, line: int) -> InputError:
    return InputError(
        f"{source} line {line}: a quote opened on this line is not closed on it (a quoted field holding a line "
        f"break, or a quote never closed); a field never spans lines: close the quote on its line, or remove the "
        f"stray quote")


def _plain_rows(body: str, first_line: int, delimiter: str | None) -> tuple[list[list[str]], list[int], int]:
    """Rows of a body without quotes, split line by line; their lines and the blank lines."""
    rows: list[list[str]] = []
    numbers: list[int] = []
    blank = 0
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for offset, line in enumerate(lines):
        if not line.strip(TRIM):
            blank += 1
            continue
        rows.append(split_fields(line, delimiter))
        numbers.append(first_line + offset)
    return rows, numbers, blank


def _read_python(body: str, first_line: int, delimiter: str | None, quoted: bool, header: list[str] | None,
                 source: str, column: str | None, sep_shown: str, rule: HeaderRule) -> Body:
    """Body of any CSV/TSV/whitespace text, line by line (quoted fields through ``csv``)."""
    import pyarrow as pa

    if quoted and delimiter is not None:
        rows, numbers, blank = _quoted_rows(body, first_line, delimiter, source)
    else:
        rows, numbers, blank = _plain_rows(body, first_line, delimiter)
    width = len(header) if header is not None else len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            n_bad = sum(len(r) != width for r in rows)
            expected = (f"{width} like the header ({sep_shown.join(header)})" if header
                        else f"{width} like line {numbers[0]}")
            raise InputError(
                f"{source} line {numbers[i]}: found {len(row)} field"
                f"{'s' if len(row) != 1 else ''} ({sep_shown.join(row)!r}); expected {expected}"
                + (f" ({n_bad} lines differ)" if n_bad > 1 else "")
            )
    id_column, label_column = _columns(header, width, source, column, sep_shown, rule)
    labels = pa.array([r[label_column] for r in rows], type=pa.string())
    ids = None if id_column is None else pa.array([r[id_column] for r in rows], type=pa.string())
    return Body(labels, ids, np.asarray(numbers, dtype=np.int64), blank, False)
