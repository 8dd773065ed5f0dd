"""Rules every delimited text reader shares (labels, score files, slices): UTF-8, comments,
fields, lines.

Read stage. Lines end at ``\\n`` once the bytes are normalised (``\\r\\n`` and ``\\r`` become
``\\n`` before parsing); fields are trimmed of spaces and tabs only; a comment is ``#`` alone
or ``#`` followed by a space or tab, and only before the first item.
"""
from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

import numpy as np

from auditor.files import decode_utf8  # noqa: F401 - one UTF-8 check, kept importable from here
from auditor.io.column import TRIM

__all__ = ["decode_utf8", "is_comment", "split_fields", "line_iter", "nonempty_line_numbers", "count_lines",
           "arrow_body"]


def is_comment(stripped: str) -> bool:
    """``#`` alone or followed by a space or tab (only before the first item)."""
    return stripped[:1] == "#" and (len(stripped) == 1 or stripped[1] in TRIM)


def split_fields(line: str, delimiter: str | None) -> list[str]:
    """One unquoted line's fields, trimmed of spaces and tabs."""
    if delimiter is None:
        return re.split(r"[ \t]+", line.strip(TRIM))
    return [f.strip(TRIM) for f in line.split(delimiter)]


def line_iter(data: bytes, pos: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each line from ``pos`` (lines end at ``\\n`` only: the bytes are
    normalised first)."""
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        if end < 0:
            end = n
        yield pos, end
        pos = end + 1



def count_lines(data: bytes, begin: int = 0) -> int:
    """Lines of ``data[begin:]`` as ``data.count(b"\\n", begin)`` plus one unless ``data`` ends with a
    newline; the newlines counted by numpy, about 3x faster than ``bytes.count`` on a large file."""
    tail = np.frombuffer(data, dtype=np.uint8, offset=min(begin, len(data)))
    return int(np.count_nonzero(tail == 10)) + (0 if data.endswith(b"\n") else 1)


def nonempty_line_numbers(data: bytes, begin: int, first_line: int) -> tuple[np.ndarray, int]:
    """Line number of every non-empty line of ``data[begin:]`` (the first line is ``first_line``;
    lines end at ``\\n``), and how many lines are empty: the lines pyarrow reads as rows."""
    buffer = np.frombuffer(data, dtype=np.uint8, offset=begin)
    breaks = np.flatnonzero(buffer == 10)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [buffer.size]])
    if starts[-1] == buffer.size:
        starts, ends = starts[:-1], ends[:-1]
    items = np.flatnonzero(ends > starts)
    return items.astype(np.int64) + first_line, int(starts.size - items.size)



def arrow_body(data: bytes, begin: int, width: int, types: Mapping[int, Any], delimiter: str, quoted: bool,
               end: int | None = None, skip_empty: bool = True) -> Any:
    """``data[begin:end]`` (lines of ``width`` fields) through ``pyarrow.csv`` without copying: only the
    columns of ``types`` (column index -> Arrow type), named ``c0``, ``c1``...; empty lines skipped
    (``skip_empty``; else each is a row of empty fields, so row r is line r), no string read as null;
    quotes read as CSV quoting only when ``quoted`` (label files hand quoted bodies to their line-by-line
    reader). Raises pyarrow's errors for the caller to explain."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(width)]
    return pacsv.read_csv(
        pa.py_buffer(memoryview(data)[begin:end]),
        read_options=pacsv.ReadOptions(column_names=names),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char='"' if quoted else False,
                                         ignore_empty_lines=skip_empty),
        convert_options=pacsv.ConvertOptions(
            column_types={names[i]: kind for i, kind in types.items()}, include_columns=[names[i] for i in types],
            strings_can_be_null=False, quoted_strings_can_be_null=False),
    )
