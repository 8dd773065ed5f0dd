"""Read gold labels and system predictions from files or in-memory arrays: one dispatch.

Read stage (read -> align -> count -> score -> analyse -> record -> build -> render). This
module turns bytes (or arrays) into one :class:`LabelColumn` per input: integer label codes
into that input's distinct label texts, ids, and the line of each item. Each file format is
one reader module, entered through one line of :data:`READERS` (``auditor.io.delimited``,
``auditor.io.jsonl``, ``auditor.io.parquet``); column names are ruled by
:mod:`auditor.io.names`, encoding by :mod:`auditor.io.column`, arrays by
:mod:`auditor.io.arrays`. Checks that need both gold and systems (ids, lengths, label sets)
live in :mod:`auditor.io.validate`.

Formats (chosen by extension, then by sniffing the content):

- CSV (``.csv``), TSV (``.tsv``), whitespace-separated ``id label`` (``.txt``, ``.tab`` and
  anything else that is text: tab-separated when every item line has a tab, else split on
  runs of spaces and tabs);
- JSON Lines (``.jsonl``, ``.ndjson``; ``.json`` holding lines of objects or one array);
  no comments (JSON has none), blank lines skipped and counted;
- Parquet (``.parquet``, or any file starting with the ``PAR1`` magic).

Rules for text files (so that no item is ever dropped or invented silently):

- UTF-8 (a byte-order mark is fine). Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` and nowhere
  else (``\\x1c``, ``\\x85``, ``\\u2028``... are characters of a field, not line breaks).
- Fields are trimmed of spaces and tabs only. CSV and TSV fields may be quoted (``"a,b"``).
- Blank lines (empty, or spaces and tabs only) are skipped wherever they are in a file
  with ids; in a file of labels only (matched by line) they are skipped before the first
  and after the last item, and refused between items (a missing label would shift every
  later item).
- Comment lines exist only *before the first item*: a line that is ``#`` alone or ``#``
  followed by a space or tab (``# made by hand``). After the first item no line is a
  comment, and ``#happy`` is an item (or a label) anywhere.
- Header: the first line that is not blank or a comment is a header when its fields are
  known column names (:data:`ID_NAMES`, :data:`LABEL_NAMES`, ``*_id``, ``gold_label``,
  ``pred_label``...; case-insensitive): with one or two columns *every* field must be a
  known name (a one-column header must be one of :data:`ONE_COLUMN_HEADERS`); with three or
  more, one known name makes it a header. A commented header (``#id<TAB>label``) just above
  the first item counts too. A first line that starts with an id name but names an unknown
  column (``id<TAB>sentiment``) is refused rather than guessed. A line is never taken for a
  header because it "looks different" from the others.
- Two columns are ``id label``, one column is labels only (items aligned by line); more
  columns need a header naming the id and label columns. An unnamed first column is an
  index (pandas' ``Series.to_csv`` writes ``,label``). A system's file read as predictions
  (:data:`~auditor.io.names.PREDICTIONS`) with a gold copy beside its prediction
  (``id,label,prediction``) is read from the prediction column; several label columns of
  which none, or more than one, is named as a prediction are refused, naming them.
- A quoted field never spans lines: a line break inside quotes is refused, naming the line
  where the quote opened.
- Every skipped line is counted by reason (``LabelColumn.skipped``: blank, comment,
  header) and reported in the audit's ``sources``.

Labels are kept as text exactly as written (``"0"``, ``"1"``), so a gold file and a system
file always agree on what a label is; numbers from arrays, JSON and Parquet are written the
same way (``1``, ``1.0`` and ``np.int64(1)`` all become ``"1"``). Missing labels
(:data:`MISSING_LABELS`: empty, ``NA``, ``N/A``, ``-``, ``nan``, ``null``, ``None``... as in
pandas' ``read_csv``) are refused by :func:`auditor.io.validate.check_labels`, never turned
into a class. Labels and ids longer than :data:`MAX_LABEL_CHARS` characters are refused.

Reading: CSV and TSV bodies go through ``pyarrow.csv`` with the label column read straight
into a dictionary (hash) encoding; JSON Lines of flat objects through ``pyarrow.json``;
Parquet through ``pyarrow.parquet`` (anything unusual, and every error, through a
line-by-line Python reader that names the line).
"""
from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from auditor.errors import InputError
from auditor.files import MAGIC, read_input, text_bytes
from auditor.io import delimited, jsonl, parquet
from auditor.io.arrays import from_values
from auditor.io.column import (  # noqa: F401 - the names other modules and users import from here
    MAX_LABEL_CHARS,
    MISSING_LABELS,
    LabelColumn,
    as_id_array,
    build_column,
    merge_codes,
)
from auditor.io.lines import decode_utf8, is_comment, nonempty_line_numbers, split_fields  # noqa: F401
from auditor.io.names import (  # noqa: F401
    EXPECTED,
    GOLD,
    GROUP_NAMES,
    GROUPS,
    ID_NAMES,
    LABEL_NAMES,
    ONE_COLUMN_HEADERS,
    PREDICTIONS,
    HeaderRule,
    is_id_name,
    is_label_name,
)

__all__ = [
    "LabelColumn", "read_labels", "from_values", "MISSING_LABELS", "MAX_LABEL_CHARS", "ID_NAMES", "LABEL_NAMES",
    "ONE_COLUMN_HEADERS", "GROUP_NAMES", "read_groups", "label_column", "READERS", "Reader",
    # the column rules and builders the other readers (io.scores, io.slices) share
    "is_comment", "split_fields", "is_id_name", "is_label_name", "decode_utf8", "build_column",
    "as_id_array", "merge_codes", "nonempty_line_numbers",
]


@dataclass(frozen=True)
class Reader:
    """One file format: ``sniff(suffix, raw)`` says whether a file is in it; ``read(raw, source,
    digest, column, rule, suffix)`` reads it. ``binary``: tried on the raw bytes, before the
    checks every text format shares (UTF-8, no NUL, not a known binary format)."""

    name: str
    sniff: Callable[[str, bytes], bool]
    read: Callable[..., LabelColumn]
    binary: bool = False


#: The file formats, in the order they are tried: a new format is one reader module and one line here.
READERS = (
    Reader("parquet", parquet.sniff, parquet.read_parquet, binary=True),
    Reader("jsonl", jsonl.sniff, jsonl.read_json),
    Reader("delimited", delimited.sniff, delimited.read_delimited),
)

_BINARY_EXTENSIONS = {
    ".xlsx": "an Excel workbook", ".xls": "an Excel workbook", ".ods": "a spreadsheet",
    ".zip": "a zip archive", ".gz": "a gzip-compressed file", ".bz2": "a bzip2-compressed file",
    ".xz": "an xz-compressed file", ".zst": "a zstd-compressed file", ".pkl": "a pickle",
    ".pickle": "a pickle", ".npy": "a NumPy array file", ".npz": "a NumPy archive",
    ".feather": "a Feather file", ".arrow": "an Arrow file", ".h5": "an HDF5 file",
    ".hdf5": "an HDF5 file", ".pdf": "a PDF", ".docx": "a Word document",
}
_LABEL_FILE = "a file of labels (lines of `id<TAB>label`)"


def _as_text(raw: bytes, source: str, suffix: str) -> bytes:
    """Bytes of a text format: refused when binary or not UTF-8 (:func:`auditor.files.text_bytes`, as every
    reader), or when the extension names a binary format; byte-order mark dropped, line ends normalised to ``\\n``."""
    if suffix in _BINARY_EXTENSIONS and not any(raw.startswith(magic) for magic in MAGIC):
        raise InputError(f"{source}: unknown format ({suffix}, {_BINARY_EXTENSIONS[suffix]}); "
                         f"expected {EXPECTED}")
    return text_bytes(raw, source, EXPECTED)


def read_labels(path: str | os.PathLike, *, column: str | None = None, rule: HeaderRule = GOLD) -> LabelColumn:
    """Read one gold or system file into a :class:`LabelColumn` (the first of :data:`READERS` that takes it).

    Parameters
    ----------
    path : a CSV, TSV, whitespace-separated, JSON Lines or Parquet file (see module doc).
    column : name of the label column, for files whose header names several candidates
        (e.g. both ``gold`` and ``pred``).
    rule : which column holds the values (:data:`~auditor.io.names.GOLD`,
        :data:`~auditor.io.names.PREDICTIONS` for a system's file, :data:`~auditor.io.names.GROUPS`).

    Raises
    ------
    InputError
        If the file is missing, not a regular file (a directory, FIFO, device), empty,
        unreadable, not UTF-8, in an unknown format, or its columns cannot be told apart.
        Messages name the file and the line.
    """
    source = os.fspath(path)
    raw = read_input(source, _LABEL_FILE)
    suffix = Path(source).suffix.lower()
    # the digest is computed on another thread while the file is parsed (hashlib releases the GIL)
    with ThreadPoolExecutor(1) as pool:
        digest = pool.submit(_sha256, raw)
        for reader in READERS:
            if reader.binary and reader.sniff(suffix, raw):
                return replace(reader.read(raw, source, None, column, rule, suffix), sha256=digest.result())
        text = _as_text(raw, source, suffix)
        reader = next(r for r in READERS if not r.binary and r.sniff(suffix, text))
        return replace(reader.read(text, source, None, column, rule, suffix), sha256=digest.result())


def _sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def read_groups(path: str | os.PathLike, rule: HeaderRule = GROUPS) -> LabelColumn:
    """Read a slices file (``--slices``): one group per item, by id or by line.

    The same formats and rules as :func:`read_labels` under the header ``rule``: by default the
    value column is the one named in :data:`GROUP_NAMES` (``group`` or ``slice``) rather than a
    label column; a file without a header is ``id group`` (two columns) or ``group`` (one per line).
    """
    return read_labels(path, rule=rule)


def label_column(value: Any, source: str, rule: HeaderRule = GOLD) -> LabelColumn:
    """``value`` as a :class:`LabelColumn`: read from a path (under ``rule``), wrapped from values, or as given."""
    if isinstance(value, LabelColumn):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_labels(value, rule=rule)
    return from_values(value, source)
