"""Load gold labels and system predictions from files or in-memory arrays.

Stage 1 of the pipeline (**load** -> validate -> count -> metrics -> analyse -> report
-> render). This module turns bytes (or arrays) into one :class:`LabelColumn` per input:
integer label codes into that input's distinct label texts, ids, and the line of each
item. Checks that need both gold and systems (ids, lengths, label sets) live in
:mod:`auditor.io.validate`.

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
  columns need a header naming the id and label columns.
- Every skipped line is counted by reason (``LabelColumn.skipped``: blank, comment,
  header) and reported in the audit's ``sources``.

Labels are kept as text exactly as written (``"0"``, ``"1"``), so a gold file and a system
file always agree on what a label is; numbers from arrays, JSON and Parquet are written the
same way (``1``, ``1.0`` and ``np.int64(1)`` all become ``"1"``). Missing labels
(:data:`MISSING_LABELS`: empty, ``NA``, ``N/A``, ``-``, ``nan``, ``null``, ``None``... as in
pandas' ``read_csv``) are refused by :func:`auditor.io.validate.check_labels`, never turned
into a class. Labels and ids longer than :data:`MAX_LABEL_CHARS` characters are refused.

Reading: CSV and TSV bodies go through ``pyarrow.csv`` with the label column read
straight into a dictionary (hash) encoding; JSON Lines of flat objects through
``pyarrow.json``; Parquet through ``pyarrow.parquet`` (anything unusual, and every error,
through a line-by-line Python reader that names the line); labels are
encoded to integer codes by hashing (``dictionary_encode``), never by sorting strings.
Integer, boolean, categorical, pandas and Arrow inputs are encoded without passing through
one string per item.
"""
from __future__ import annotations

import csv
import gc
import hashlib
import io
import json
import os
import re
import stat
import xml.etree.ElementTree as ElementTree
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from auditor.errors import InputError

__all__ = [
    "LabelColumn", "read_labels", "from_values", "parse_system_argument", "semeval_names",
    "MISSING_LABELS", "MAX_LABEL_CHARS", "ID_NAMES", "LABEL_NAMES", "ONE_COLUMN_HEADERS",
    "GROUP_NAMES", "read_groups",
    # the column rules and builders the other readers (io.scores, io.slices) share
    "is_comment", "split_fields", "is_id_name", "is_label_name", "decode_utf8", "build_column",
    "as_id_array", "merge_codes",
]

#: Label texts that mean "no label": pandas' ``read_csv`` default NA strings, plus ``NaT``,
#: ``NAN`` and ``-``. Every one is refused as a missing label (never made a class), the same
#: way in files, JSON (``null``) and arrays (``None``, NaN). Lower-case ``none`` is *not*
#: among them: it is a common class name.
MISSING_LABELS = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null", "NAN", "NaT", "-",
})

#: Longest label or id accepted, in characters (a longer one is almost surely a misread
#: column of text, and would make every table and report unreadable).
MAX_LABEL_CHARS = 10_000

# Column names recognised in a header row, a JSON object or a Parquet schema.
ID_NAMES = ("id", "ids", "item", "item_id", "itemid", "idx", "index", "uid", "key",
            "example_id", "instance_id", "doc_id", "sentence_id", "tweet_id", "qid", "guid")
LABEL_NAMES = ("label", "labels", "gold", "gold_label", "prediction", "predictions",
               "predicted", "pred", "preds", "y", "y_true", "y_pred", "yhat", "y_hat",
               "class", "target", "truth", "output", "category", "tag", "answer")
#: The only names that make the first line of a one-column file a header.
ONE_COLUMN_HEADERS = ("label", "labels", "gold", "gold_label", "prediction", "predictions",
                      "predicted", "pred", "preds", "y_true", "y_pred")
#: Column names of the group in a slices file (``--slices``): these, and only these, take the
#: label column's place (a ``label`` column beside them is ignored).
GROUP_NAMES = ("group", "slice", "groups", "slices")
#: The names that make a column the one read as labels: None = :data:`LABEL_NAMES` and the
#: label patterns; a tuple while :func:`read_groups` reads a slices file.
_VALUE_NAMES: ContextVar[tuple[str, ...] | None] = ContextVar("_VALUE_NAMES", default=None)
_ID_PATTERN = re.compile(r"^([a-z0-9]+[_ -])?id$")
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
_TRIM = " \t"  # the only characters trimmed from a field


@dataclass(frozen=True, eq=False)
class LabelColumn:
    """One file's (or array's) items: label codes, ids, and where each item came from.

    Attributes
    ----------
    source : what to call it in messages: the path as given, or ``"<name>"`` for arrays.
    codes : int array (N,): item n has the label ``categories[codes[n]]``.
    categories : the distinct label texts, each used by at least one item (any order).
    id_array : pyarrow string ChunkedArray (N,) of item ids, or None when the source has no
        ids.
    lines : int array (N,) of the 1-based line (row, for Parquet) of each item in the file,
        or None for arrays.
    sha256 : hex SHA-256 of the file's bytes, or None for arrays.
    format : ``"csv"``, ``"tsv"``, ``"whitespace"``, ``"jsonl"``, ``"json"``,
        ``"parquet"`` or ``"array"``; used to say what a line should look like.
    skipped : reason (``"blank"``, ``"comment"``, ``"header"``) -> number of lines of the
        file that hold no item; every line of a text file is an item or counted here.
    """

    source: str
    codes: np.ndarray
    categories: tuple[str, ...]
    id_array: Any
    lines: np.ndarray | None
    sha256: str | None
    format: str = "array"
    skipped: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.id_array is not None and not hasattr(self.id_array, "chunks"):
            import pyarrow as pa

            object.__setattr__(self, "id_array", pa.chunked_array([self.id_array]))

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @cached_property
    def labels(self) -> np.ndarray:
        """str array (N,) of the labels (built on first use; the pipeline uses the codes)."""
        names = np.asarray(self.categories, dtype=str) if self.categories else np.array([""])
        return names[self.codes]

    @cached_property
    def ids(self) -> np.ndarray | None:
        """str array (N,) of the ids, or None."""
        if self.id_array is None:
            return None
        return _strings(self.id_array.to_pylist())

    def where(self, index: int) -> str:
        """Human location of item ``index`` (0-based): ``"gold.tsv line 17"``."""
        if self.lines is not None:
            unit = "row" if self.format == "parquet" else "line"
            return f"{self.source} {unit} {int(self.lines[index])}"
        return f"{self.source} index {int(index)}"

    @property
    def layout(self) -> str:
        """What one item looks like in this source, for messages (``id<TAB>label``)."""
        with_ids = self.id_array is not None
        return {
            "csv": "`id,label`" if with_ids else "`label`",
            "tsv": "`id<TAB>label`" if with_ids else "`label`",
            "whitespace": "`id label`" if with_ids else "`label`",
            "jsonl": '`{"id": ..., "label": ...}`' if with_ids else '`{"label": ...}`',
            "json": '`{"id": ..., "label": ...}`' if with_ids else '`{"label": ...}`',
            "parquet": "an id and a label column" if with_ids else "a label column",
        }.get(self.format, "one label per item")


# --------------------------------------------------------------------------- encoding

def _scalar_text(value: Any) -> str:
    """Text of one label or id: integral floats without ``.0``, missing values as ``nan``.

    Raises TypeError for a list, dict, set or tuple (a label must be one value).
    """
    if isinstance(value, str):
        return value
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if value != value:
            return "nan"
        if float(value).is_integer() and abs(float(value)) < 2 ** 63:
            return str(int(value))
        return repr(float(value))
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if type(value).__name__ in ("NAType", "NaTType"):
        return "nan"
    if isinstance(value, (list, tuple, dict, set, frozenset, np.ndarray)):
        raise TypeError(f"a {type(value).__name__}; expected a string or number")
    return str(value)


def _strings(items: list[str]) -> np.ndarray:
    """A list of str as a numpy str array (``np.fromiter`` with a fixed width is ~4x faster
    than ``np.array`` on a million items)."""
    width = max(map(len, items), default=1) or 1
    return np.fromiter(items, dtype=f"U{width}", count=len(items))


def merge_codes(codes: np.ndarray, texts: list[str], all_used: bool = False
           ) -> tuple[np.ndarray, tuple[str, ...]]:
    """Codes into ``texts`` -> codes into the distinct texts that items use.

    Two raw values with one text (``1`` and ``1.0``; ``"a "`` and ``"a"`` after trimming)
    become one label; categories no item uses are dropped (``all_used``: the caller knows
    there are none, as after ``dictionary_encode``).
    """
    if all_used and len(set(texts)) == len(texts):
        return codes, tuple(texts)
    used = np.bincount(codes, minlength=len(texts)) > 0 if codes.size else np.zeros(
        len(texts), dtype=bool)
    position: dict[str, int] = {}
    lookup = np.full(len(texts), -1, dtype=np.int64)
    for code, text in enumerate(texts):
        if used[code]:
            lookup[code] = position.setdefault(text, len(position))
    if len(position) == len(texts):
        return codes, tuple(texts)
    return lookup[codes].astype(np.int32), tuple(position)


def _arrow_texts(dictionary: Any, what: str) -> list[str]:
    """The text of each distinct value of an Arrow array (k values, not N items)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = dictionary.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return dictionary.to_pylist()
    if pa.types.is_integer(kind):
        return pc.cast(dictionary, pa.string()).to_pylist()
    if (pa.types.is_floating(kind) or pa.types.is_boolean(kind) or pa.types.is_decimal(kind)
            or pa.types.is_null(kind)):
        return [_scalar_text(v) for v in dictionary.to_pylist()]
    if hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind):
        return pc.cast(dictionary, pa.string()).to_pylist()
    raise InputError(f"{what} holds values of type {kind}; expected strings or numbers "
                     f"(one label per item)")


def _encode_arrow(values: Any, what: str, trim: bool = False, null_text: str = "nan",
                  dense: bool = False) -> tuple[np.ndarray, tuple[str, ...]]:
    """Codes and categories of an Arrow (chunked) array by hashing (``dictionary_encode``).

    Nulls become the label ``null_text`` (refused later as missing). ``dense``: a
    dictionary array whose every entry is used (as the CSV reader builds them).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    all_used = not pa.types.is_dictionary(values.type)
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 0:
            return np.zeros(0, dtype=np.int32), ()
        if not pa.types.is_dictionary(values.type):
            values = pc.dictionary_encode(values)  # one dictionary for all chunks
        else:
            values = values.unify_dictionaries()
        dictionary = values.chunks[-1].dictionary
        indices = pa.chunked_array([c.indices for c in values.chunks]).combine_chunks()
    else:
        if not pa.types.is_dictionary(values.type):
            values = pc.dictionary_encode(values)
        dictionary, indices = values.dictionary, values.indices
    texts = _arrow_texts(dictionary, what)
    if trim:
        texts = [t.strip(_TRIM) for t in texts]
    if indices.null_count:
        texts.append(null_text)
        indices = pc.fill_null(indices, len(texts) - 1)
    codes = _integer_view(indices).astype(np.int32, copy=False)
    return merge_codes(codes, texts, all_used or dense)


def _integer_view(indices: Any) -> np.ndarray:
    """The values of a null-free Arrow integer array as a numpy view of its data buffer
    (``to_numpy`` would import pandas, 0.4 s, for the same result)."""
    dtype = np.dtype(f"int{indices.type.bit_width}")
    return np.frombuffer(indices.buffers()[1], dtype=dtype, count=len(indices),
                         offset=indices.offset * dtype.itemsize)


def _encode_numpy(array: np.ndarray, what: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """Codes and categories of a 1-D numpy array, without one string per item where the
    dtype allows (integers, booleans, floats: texts of the distinct values only)."""
    import pyarrow as pa

    kind = array.dtype.kind
    if array.size == 0:
        return np.zeros(0, dtype=np.int32), ()
    if kind in "iu":
        lo, hi = int(array.min()), int(array.max())
        if hi - lo < 1 << 20:
            shifted = (array - lo) if lo else array
            present = np.flatnonzero(np.bincount(shifted.astype(np.int64, copy=False),
                                                 minlength=hi - lo + 1))
            lookup = np.zeros(hi - lo + 1, dtype=np.int32)
            lookup[present] = np.arange(present.size, dtype=np.int32)
            return lookup[shifted], tuple(str(int(v) + lo) for v in present)
        uniques, inverse = np.unique(array, return_inverse=True)
        return inverse.astype(np.int32), tuple(str(int(v)) for v in uniques)
    if kind == "b":
        return merge_codes(array.astype(np.int32), ["False", "True"])
    if kind == "f":
        uniques, inverse = np.unique(array, return_inverse=True)
        return merge_codes(inverse.astype(np.int32).ravel(), [_scalar_text(v) for v in uniques])
    if kind == "U":
        try:
            strings = pa.array(array, type=pa.string())
        except UnicodeError:  # a lone surrogate: refused with the same words as every other name
            from auditor.options import check_names

            check_names(np.unique(array).tolist(), ())
            raise
        return _encode_arrow(strings, what)
    if kind == "S":
        return _encode_numpy(np.char.decode(array, "utf-8", errors="replace"), what)
    items = array.tolist() if kind == "O" else list(array.astype(object))
    if not all(type(v) is str for v in items):
        texts = []
        for index, value in enumerate(items):
            try:
                texts.append(_scalar_text(value))
            except TypeError as error:
                raise InputError(f"{what} index {index}: the label is {error}") from None
            except Exception as error:  # a user object whose __str__ raises
                raise InputError(
                    f"{what} index {index}: cannot turn the label into text "
                    f"({type(error).__name__}: {error}); expected a string or number"
                ) from None
        items = texts
    try:
        arrow = pa.array(items, type=pa.string())
    except UnicodeEncodeError:
        index = next(i for i, v in enumerate(items) if not _encodable(v))
        raise InputError(f"{what} index {index}: label {items[index]!r} is not valid "
                         f"Unicode (a lone surrogate); expected UTF-8 text") from None
    return _encode_arrow(arrow, what)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def as_id_array(values: Any, what: str) -> Any:
    """Ids of any 1-D array as a pyarrow string array (nulls become empty ids)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        if pa.types.is_dictionary(array.type):
            array = array.dictionary_decode()
        if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
            if pa.types.is_integer(array.type):
                array = pc.cast(array, pa.string())
            else:
                return as_id_array(np.asarray(array.to_pylist(), dtype=object), what)
        return pc.fill_null(array.cast(pa.string()), "")
    array = np.asarray(values)
    if array.dtype.kind in "iu":
        return pc.cast(pa.array(array), pa.string())
    if array.dtype.kind == "U":
        return pa.array(array, type=pa.string())
    items = []
    for index, value in enumerate(array.tolist()):
        try:
            items.append("" if value is None else _scalar_text(value))
        except Exception as error:
            raise InputError(f"{what} index {index}: cannot use the id as text "
                             f"({type(error).__name__}: {error})") from None
    try:
        return pa.array(items, type=pa.string())
    except UnicodeEncodeError:
        index = next(i for i, v in enumerate(items) if not _encodable(v))
        raise InputError(f"{what} index {index}: id {items[index]!r} is not valid Unicode "
                         f"(a lone surrogate); expected UTF-8 text") from None


def _array_source(name: str) -> str:
    return name if name.startswith("<") and name.endswith(">") else f"<{name}>"


def from_values(values: Any, source: str) -> LabelColumn:
    """Wrap in-memory labels (list, numpy array, pandas Series, Arrow array, dict) as a
    :class:`LabelColumn`.

    A pandas Series with an index other than the default ``0..N-1`` range gives its index
    as the ids; a dict maps ids to labels. Lists and arrays have no ids (aligned by
    position). Integer, boolean, float, categorical and Arrow inputs are encoded from their
    distinct values (no string per item). pandas is never imported here.

    Parameters
    ----------
    values : the labels.
    source : name used in messages; shown as ``"<source>"``.

    Raises
    ------
    InputError
        If ``values`` is not a one-dimensional sequence of single labels, or a label
        cannot be turned into text.
    """
    import pyarrow as pa

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
    if isinstance(values, (pa.Table, pa.RecordBatch)) or (
            module.startswith("pandas") and type(values).__name__ == "DataFrame"):
        columns = values.column_names if isinstance(values, (pa.Table, pa.RecordBatch)) \
            else values.columns
        raise InputError(
            f"{name}: expected one column of labels, found a table with columns "
            f"{list(map(str, columns))}; pass one column, e.g. df['label']"
        )
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        codes, categories = _encode_arrow(values, name)
        return LabelColumn(name, codes, categories, None, None, None)
    if isinstance(values, Mapping):
        ids = as_id_array(np.asarray(list(values.keys()) + [None], dtype=object)[:-1], name)
        values = list(values.values())
    elif module.startswith("pandas") and hasattr(values, "index") and hasattr(values, "dtype"):
        index = values.index
        default = (type(index).__name__ == "RangeIndex" and index.start == 0
                   and index.step == 1)
        if not default:
            ids = as_id_array(index.to_numpy(), name)
        dtype = values.dtype
        if type(dtype).__name__ == "CategoricalDtype":
            raw = values.cat.codes.to_numpy().astype(np.int32)
            texts = [_scalar_text(c) for c in values.cat.categories.tolist()]
            if (raw < 0).any():
                texts.append("nan")
                raw = np.where(raw < 0, len(texts) - 1, raw).astype(np.int32)
            codes, categories = merge_codes(raw, texts)
            return LabelColumn(name, codes, categories, ids, None, None)
        if not isinstance(dtype, np.dtype):  # nullable Int64, string, boolean, Arrow-backed
            codes, categories = _encode_arrow(pa.array(values, from_pandas=True), name)
            return LabelColumn(name, codes, categories, ids, None, None)
        values = values.to_numpy()
    if isinstance(values, np.ndarray):
        array = values
    else:
        try:
            array = np.asarray(values)
        except (ValueError, TypeError):  # ragged nested lists
            array = None
        if array is None:
            items = list(values)
            array = np.empty(len(items), dtype=object)
            for index, item in enumerate(items):
                array[index] = item
    if array.ndim != 1:
        raise InputError(
            f"{name}: expected a one-dimensional sequence of labels, found shape "
            f"{tuple(array.shape)}"
        )
    if array.dtype.kind not in "biufUSO":
        array = array.astype(object)
    codes, categories = _encode_numpy(array, name)
    return LabelColumn(name, codes, categories, ids, None, None)


# --------------------------------------------------------------------------- names

def _normal(name: str) -> str:
    return name.strip().lstrip("#").strip().strip('"').strip().lower()


def is_id_name(name: str) -> bool:
    """True for an id column's name (:data:`ID_NAMES`, ``*_id``)."""
    name = _normal(name)
    return name in ID_NAMES or bool(_ID_PATTERN.match(name))


def is_label_name(name: str) -> bool:
    """True for a label column's name (:data:`LABEL_NAMES`; a group column's while reading slices)."""
    name = _normal(name)
    chosen = _VALUE_NAMES.get()
    if chosen is not None:
        return name in chosen
    return name in LABEL_NAMES or bool(_LABEL_PATTERN.match(name))


def _header_kind(fields: list[str]) -> str:
    """``"header"``, ``"data"`` or ``"unclear"`` for the first line's fields (module doc).

    Known names only, never "looks different from the other rows": one field must be one
    of :data:`ONE_COLUMN_HEADERS`; two fields must both be known names; three or more need
    an id name and a label name (or all known). A line that starts with an id name or
    holds a one-column header name but fails those tests is ``"unclear"`` (refused).
    """
    normal = [_normal(f) for f in fields]
    one_column = _VALUE_NAMES.get() or ONE_COLUMN_HEADERS
    if len(fields) == 1:
        return "header" if normal[0] in one_column else "data"
    ids = [is_id_name(f) for f in fields]
    labels = [is_label_name(f) and not i for f, i in zip(fields, ids)]
    if all(i or lab for i, lab in zip(ids, labels)):
        return "header"
    if len(fields) >= 3 and any(ids) and any(labels):
        return "header"
    if normal[0] in ID_NAMES or any(n in one_column for n in normal):
        return "unclear"
    return "data"


def _choose_columns(
    names: list[str], source: str, kind: str, column: str | None
) -> tuple[int | None, int]:
    """(id column or None, label column), chosen by name only."""
    shown = ", ".join(repr(n.strip()) for n in names)
    normal = [_normal(n) for n in names]
    id_columns = [i for i, n in enumerate(names) if is_id_name(n)]
    if column is not None:
        if _normal(column) not in normal:
            raise InputError(
                f"{source}: no column named {column!r}; found {kind} {shown}"
            )
        label = normal.index(_normal(column))
        ids = [i for i in id_columns if i != label]
        return (ids[0] if ids else None), label
    label_columns = [i for i, n in enumerate(names) if is_label_name(n) and i not in id_columns]
    if len(label_columns) > 1:
        exact = [i for i in label_columns if normal[i] in LABEL_NAMES]
        first = [i for i in exact if normal[i] == min((normal[j] for j in exact),
                                                      key=LABEL_NAMES.index)]
        if len(exact) == 1 or (exact and normal[first[0]] == "label"):
            label_columns = first
        else:
            raise InputError(
                f"{source}: {len(names)} {kind} and more than one could be the label "
                f"({', '.join(repr(names[i].strip()) for i in label_columns)}); found {kind} "
                f"{shown}; expected one id column and one label column (e.g. `id`, `label`)"
            )
    if not label_columns:
        if _VALUE_NAMES.get() is not None:
            raise InputError(
                f"{source}: no group {kind[:-1]}; found {kind} {shown}; expected one named "
                f"{' or '.join(_VALUE_NAMES.get())} (and optionally an id column: id, item_id, ..._id)"
            )
        raise InputError(
            f"{source}: no label {kind[:-1]}; found {kind} {shown}; expected one named label, "
            f"gold, prediction, pred, y, class, target... (and optionally an id column: id, "
            f"item_id, ..._id)"
        )
    if len(id_columns) > 1:
        exact = [i for i in id_columns if normal[i] == "id"]
        if len(exact) != 1:
            raise InputError(
                f"{source}: more than one could be the id "
                f"({', '.join(repr(names[i].strip()) for i in id_columns)}); found {kind} "
                f"{shown}; expected one id column (e.g. `id`)"
            )
        id_columns = exact
    return (id_columns[0] if id_columns else None), label_columns[0]


# --------------------------------------------------------------------------- text files

def decode_utf8(raw: bytes, source: str) -> str:
    """``raw`` as text (a UTF-8 byte-order mark dropped), or an error naming the line of the first bad byte."""
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


def is_comment(stripped: str) -> bool:
    """``#`` alone or followed by a space or tab (only before the first item)."""
    return stripped[:1] == "#" and (len(stripped) == 1 or stripped[1] in _TRIM)


def split_fields(line: str, delimiter: str | None) -> list[str]:
    """One unquoted line's fields, trimmed of spaces and tabs."""
    if delimiter is None:
        return re.split(r"[ \t]+", line.strip(_TRIM))
    return [f.strip(_TRIM) for f in line.split(delimiter)]


def _line_iter(data: bytes, pos: int):
    """(start, end) of each line from ``pos`` (lines end at ``\\n`` only: the bytes are
    normalised first)."""
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        if end < 0:
            end = n
        yield pos, end
        pos = end + 1


def _skip_preamble(
    data: bytes, lines: Iterator[tuple[int, int]], number: int, skipped: dict[str, int], fmt: str | None
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
        stripped = data[start:end].decode("utf-8").strip(_TRIM)
        if not stripped:
            skipped["blank"] += 1
        elif is_comment(stripped):
            skipped["comment"] += 1
        elif fmt is not None and stripped[0] == "#" \
                and _header_kind(split_fields(stripped[1:], _guess(stripped, fmt))) == "header":
            if commented is not None:
                skipped["comment"] += 1
            commented = (stripped[1:], number)
        else:
            return number, (number, start, end), commented
    return number, None, commented


def _parse_delimited(
    data: bytes, source: str, fmt: str, digest: str, column: str | None, fast: bool = True
) -> LabelColumn:
    """CSV, TSV or whitespace-separated UTF-8 bytes -> LabelColumn (rules in the module doc).

    ``data`` is valid UTF-8 without a byte-order mark whose lines end at ``\\n`` only
    (:func:`read_labels` normalises ``\\r\\n`` and ``\\r``). The preamble (blank lines,
    comments, the header) is read here line by line; the body (from the first item on) by
    ``pyarrow.csv`` when it is plain CSV/TSV, else by :func:`_read_python`, which also
    gives the exact message when pyarrow refuses a body. ``fast=False`` forces the Python
    reader (tests compare the two).
    """
    skipped = {"blank": 0, "comment": 0, "header": 0}
    lines = _line_iter(data, 0)
    number, first, commented = _skip_preamble(data, lines, 0, skipped, fmt)
    if first is None:
        if commented is not None:
            raise InputError(f"{source}: no items, only a header ({commented[0].strip()})")
        what = "empty" if not skipped["comment"] else "only comments and blank lines"
        raise InputError(f"{source}: no items ({what}); expected lines of `id<TAB>label`")

    # Separator: from the extension, else (or when the extension's separator never
    # occurs) tab when every item line after the first has one, else runs of whitespace.
    probe = [data[s:e].decode("utf-8")
             for (s, e), _ in zip(_line_iter(data, first[1]), range(1001))]
    probe = [p for p in probe if p.strip(_TRIM)]
    delimiter: str | None = {"csv": ",", "tsv": "\t"}.get(fmt)
    if delimiter is not None and not any(delimiter in p for p in probe):
        fmt, delimiter = "text", None
    if fmt == "text":
        rest = probe[1:] or probe[:1]
        delimiter = "\t" if all("\t" in line for line in rest) else None
        fmt = "tsv" if delimiter else "whitespace"
    sep_shown = {"csv": ",", "tsv": "<TAB>"}.get(fmt, " ")

    header: list[str] | None = None
    first_fields = split_fields(probe[0], delimiter)
    kind = _header_kind(first_fields)
    if kind == "unclear":
        unknown = [f for f in first_fields if not (is_id_name(f) or is_label_name(f))]
        if _VALUE_NAMES.get() is not None:
            raise InputError(
                f"{source} line {first[0]}: {sep_shown.join(first_fields)!r} looks like a header "
                f"but names no group column; expected a header naming an id column (id, item_id, "
                f"..._id) and a group column ({', '.join(_VALUE_NAMES.get())}), or an item")
        raise InputError(
            f"{source} line {first[0]}: {sep_shown.join(first_fields)!r} looks like a header "
            f"but {', '.join(map(repr, unknown))} "
            f"{'is not a known column name' if len(unknown) == 1 else 'are not known column names'}"
            f"; expected a header naming an id column (id, item_id, "
            f"..._id) and a label column (label, gold, prediction, pred, y, class, target...), "
            f"or an item"
        )
    if kind == "header":
        header = first_fields
        skipped["header"] += 1
        if commented is not None:
            skipped["comment"] += 1
        number, first, _ = _skip_preamble(data, lines, number, skipped, None)
        if first is None:
            raise InputError(f"{source}: no items, only a header ({sep_shown.join(header)})")
    elif commented is not None:
        fields = split_fields(commented[0], delimiter)
        if len(fields) == len(first_fields):
            header = fields
            skipped["header"] += 1
        else:
            skipped["comment"] += 1

    begin = first[1]
    quoted = delimiter is not None and data.find(b'"', begin) >= 0
    result = None
    if fast and delimiter is not None and not quoted:
        result = _read_arrow(data, begin, first[0], delimiter, header, source, column)
    if result is None:
        result = _read_python(data[begin:].decode("utf-8"), first[0], delimiter, quoted,
                              header, source, column, sep_shown)
    labels, ids, numbers, blank, trim = result
    skipped["blank"] += blank
    return build_column(source, labels, ids, numbers, digest, fmt,
                   {k: v for k, v in skipped.items() if v}, trim)


def _guess(line: str, fmt: str) -> str | None:
    """Separator for a commented header line before the format is known."""
    if "\t" in line:
        return "\t"
    if fmt == "csv" and "," in line:
        return ","
    return None


def _columns(header: list[str] | None, width: int, source: str, column: str | None,
             sep_shown: str) -> tuple[int | None, int]:
    if header is not None:
        return _choose_columns(header, source, "columns", column)
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


def _read_arrow(data: bytes, begin: int, first_line: int, delimiter: str,
                header: list[str] | None, source: str, column: str | None):
    """Body (``data[begin:]``) of an unquoted CSV/TSV through pyarrow.csv, without copying.

    Returns None when pyarrow refuses it, or when a label is empty after trimming (a line
    of only spaces and tabs is blank, which pyarrow does not know): the Python reader then
    decides, and finds the exact line of any error. The label column is read straight
    into a dictionary (hash) encoding.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    end = data.find(b"\n", begin)
    width = len(header) if header is not None else \
        data[begin:end if end >= 0 else len(data)].count(delimiter.encode()) + 1
    id_column, label_column = _columns(header, width, source, column,
                                       {",": ",", "\t": "<TAB>"}[delimiter])
    names = [f"c{i}" for i in range(width)]
    types = {names[label_column]: pa.dictionary(pa.int32(), pa.string())}
    if id_column is not None:
        types[names[id_column]] = pa.string()
    try:
        table = pacsv.read_csv(
            pa.py_buffer(memoryview(data)[begin:]),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=list(types),
                strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    n_rows = table.num_rows
    n_lines = data.count(b"\n", begin) + (0 if data.endswith(b"\n") else 1)
    if n_lines != n_rows:  # empty lines, which pyarrow skipped: find their numbers
        numbers, blank = nonempty_line_numbers(data, begin, first_line)
    else:
        blank = 0
        numbers = np.arange(first_line, first_line + n_rows, dtype=np.int64)
    if numbers.size != n_rows:  # pragma: no cover - defensive: let the Python reader decide
        return None
    trim = data.find(b" ", begin) >= 0 or (delimiter == "," and data.find(b"\t", begin) >= 0)
    labels = table.column(names[label_column])
    if trim and labels.num_chunks and any(
            not text.strip(_TRIM) for text in labels.unify_dictionaries().chunks[-1]
            .dictionary.to_pylist()):
        return None
    ids = None if id_column is None else table.column(names[id_column])
    if ids is not None and trim:
        import pyarrow.compute as pc

        ids = pc.utf8_trim(ids, characters=_TRIM)
    return labels, ids, numbers, blank, trim


def _read_python(body: str, first_line: int, delimiter: str | None, quoted: bool,
                 header: list[str] | None, source: str, column: str | None, sep_shown: str):
    """Body of any CSV/TSV/whitespace text, line by line (quoted fields through ``csv``)."""
    import pyarrow as pa

    rows: list[list[str]] = []
    numbers: list[int] = []
    blank = 0
    if quoted:
        reader = csv.reader(io.StringIO(body), delimiter=delimiter)  # type: ignore[arg-type]
        try:
            for row in reader:
                if not row or not "".join(row).strip(_TRIM):
                    blank += 1
                    continue
                rows.append([f.strip(_TRIM) for f in row])
                numbers.append(first_line + reader.line_num - 1)
        except csv.Error as error:
            raise InputError(f"{source} line {first_line + reader.line_num - 1}: {error}; "
                             f"expected CSV fields (quote a field holding the separator)"
                             ) from None
    else:
        lines = body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for offset, line in enumerate(lines):
            if not line.strip(_TRIM):
                blank += 1
                continue
            rows.append(split_fields(line, delimiter))
            numbers.append(first_line + offset)
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
    id_column, label_column = _columns(header, width, source, column, sep_shown)
    labels = pa.array([r[label_column] for r in rows], type=pa.string())
    ids = None if id_column is None else pa.array([r[id_column] for r in rows],
                                                    type=pa.string())
    return labels, ids, np.asarray(numbers, dtype=np.int64), blank, False


def build_column(source: str, labels: Any, ids: Any, numbers: np.ndarray, digest: str | None,
            fmt: str, skipped: Mapping[str, int], trim: bool = False) -> LabelColumn:
    """Encode the labels and check lengths: one place for every file format."""
    import pyarrow.compute as pc

    if ids is None and numbers.size > 1:
        gaps = np.flatnonzero(np.diff(numbers) > 1)
        if gaps.size:
            raise InputError(
                f"{source} line {int(numbers[gaps[0]]) + 1}: blank line between items; in a "
                f"file of labels only, items are matched by line, so every line from the "
                f"first item to the last must hold a label (or give ids: `id<TAB>label`)"
            )
    codes, categories = _encode_arrow(labels, source, trim,
                                      "null" if fmt in ("json", "jsonl", "parquet") else "nan",
                                      dense=fmt != "parquet")
    long = [code for code, text in enumerate(categories) if len(text) > MAX_LABEL_CHARS]
    column = LabelColumn(source, codes, categories, None, numbers, digest, fmt, skipped)
    if long:
        i = int(np.flatnonzero(np.isin(codes, long))[0])
        raise InputError(
            f"{column.where(i)}: label of {len(categories[codes[i]]):,} characters; labels "
            f"are at most {MAX_LABEL_CHARS:,} characters (is a text column read as labels?)"
        )
    if ids is not None:
        lengths = pc.binary_length(ids)  # bytes >= characters: a cheap first test
        if len(ids) and pc.max(lengths).as_py() > MAX_LABEL_CHARS:
            lengths = pc.utf8_length(ids)
        if len(ids) and pc.max(lengths).as_py() > MAX_LABEL_CHARS:
            i = int(np.flatnonzero(lengths.to_numpy() > MAX_LABEL_CHARS)[0])  # type: ignore
            raise InputError(
                f"{column.where(i)}: id of {lengths[i].as_py():,} characters; ids are at "
                f"most {MAX_LABEL_CHARS:,} characters"
            )
        column = LabelColumn(source, codes, categories, ids, numbers, digest, fmt, skipped)
    return column


# --------------------------------------------------------------------------- JSON, Parquet

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
    lines. All lines are parsed in one ``json.loads`` call; when that fails, the first bad line
    is named in an :class:`InputError` (``example`` shows what a line should hold)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    keep = [i for i, line in enumerate(lines) if line.strip(" \t")]
    try:
        records = _json_loads("[" + ",".join(lines[i] for i in keep) + "]")
    except (RecursionError, ValueError):
        for i in keep:
            try:
                json.loads(lines[i])
            except (RecursionError, ValueError) as error:
                raise InputError(f"{source} line {i + 1}: {_json_problem(error)}; expected one JSON object "
                                 f"per line, e.g. {example}") from None
        raise InputError(f"{source}: invalid JSON Lines") from None
    return records, keep, len(lines) - len(keep)


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
        index = next(i for i, v in enumerate(values) if isinstance(v, str) and not _encodable(v))
        raise InputError(f"{where(index)}: {what} {values[index]!r} is not valid Unicode (a "
                         f"lone surrogate escape); expected UTF-8 text") from None
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        pass  # mixed types (1 and "a", true and 1) or huge integers: text item by item
    texts = [_scalar_text(v) for v in values]
    try:
        return pa.array(texts, type=pa.string())
    except UnicodeEncodeError:  # pragma: no cover - caught above for str values
        index = next(i for i, v in enumerate(texts) if not _encodable(v))
        raise InputError(f"{where(index)}: {what} is not valid Unicode") from None


def _read_json_arrow(data: bytes, source: str, digest: str, column: str | None
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
    id_column, label_column = _choose_columns(list(first), f"{source} line {first_line}",
                                              "keys", column)

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
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if n_lines == n_rows:
        numbers = np.arange(1, n_rows + 1, dtype=np.int64)
    else:
        buffer = np.frombuffer(data, dtype=np.uint8)
        breaks = np.flatnonzero(buffer == 10)
        starts = np.concatenate([[0], breaks + 1])
        ends = np.concatenate([breaks, [buffer.size]])
        if starts[-1] == buffer.size:
            starts, ends = starts[:-1], ends[:-1]
        numbers = np.flatnonzero(ends > starts).astype(np.int64) + 1
        if numbers.size != n_rows:  # lines of spaces: the Python reader decides
            return None
    skipped = {"blank": n_lines - n_rows} if n_lines > n_rows else {}
    return build_column(source, labels, None if ids is None else as_id_array(ids, source), numbers,
                   digest, "jsonl", skipped)


def _parse_json(text: str, source: str, digest: str, column: str | None) -> LabelColumn:
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
    id_column, label_column = _choose_columns(keys, where(0), "keys", column)
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
    import pyarrow as pa

    label = table.column(label_column)

    kind = label.type.value_type if pa.types.is_dictionary(label.type) else label.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind)
            or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
            or pa.types.is_decimal(kind) or pa.types.is_null(kind)
            or (hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind))):
        raise InputError(f"{source}: label column {names[label_column]!r} holds {kind} values; "
                         f"expected one string or number per row (found columns "
                         f"{', '.join(map(repr, names))})")
    ids = None
    if id_column is not None:
        ids = as_id_array(table.column(id_column), source)
    lines = np.arange(1, table.num_rows + 1, dtype=np.int64)
    return build_column(source, label, ids, lines, digest, "parquet", {})


# --------------------------------------------------------------------------- read_labels

_FILE_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


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
        If the file is missing, not a regular file (a directory, FIFO, device), empty,
        unreadable, not UTF-8, in an unknown format, or its columns cannot be told apart.
        Messages name the file and the line.
    """
    source = os.fspath(path)
    try:
        info = os.stat(source)
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except PermissionError:
        raise InputError(f"{source}: cannot read the file (permission denied)") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or error
        raise InputError(f"{source}: cannot read the file ({reason})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{source}: is a directory; expected a file of labels")
    if not stat.S_ISREG(info.st_mode):
        what = next((name for test, name in _FILE_KINDS if test(info.st_mode)), "not a file")
        raise InputError(f"{source}: is {what}, not a regular file; expected a file of labels")
    file = Path(source)
    try:
        raw = file.read_bytes()
    except IsADirectoryError:  # pragma: no cover - caught by the stat above
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
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or not raw.isascii():
        decode_utf8(raw, source)  # a clear message for UTF-16 or bytes that are not UTF-8
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    head = raw.lstrip(b" \t\r\n")[:1]
    if suffix in (".jsonl", ".ndjson", ".json") or (
            suffix not in (".csv", ".tsv") and head in (b"{", b"[")):
        if b"\r" in raw:
            raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if head == b"{":
            column_read = _read_json_arrow(raw, source, digest, column)
            if column_read is not None:
                return column_read
        return _parse_json(raw.decode("utf-8"), source, digest, column)
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    fmt = {".csv": "csv", ".tsv": "tsv"}.get(suffix, "text")
    return _parse_delimited(raw, source, fmt, digest, column)


def read_groups(path: str | os.PathLike) -> LabelColumn:
    """Read a slices file (``--slices``): one group per item, by id or by line.

    The same formats and rules as :func:`read_labels`, except that the value column is the
    one named in :data:`GROUP_NAMES` (``group`` or ``slice``) rather than a label column; a
    file without a header is ``id group`` (two columns) or ``group`` (one per line).
    """
    token = _VALUE_NAMES.set(GROUP_NAMES)
    try:
        return read_labels(path)
    finally:
        _VALUE_NAMES.reset(token)


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


def label_column(value: Any, source: str) -> LabelColumn:
    """``value`` as a :class:`LabelColumn`: read from a path, wrapped from values, or as given."""
    if isinstance(value, LabelColumn):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_labels(value)
    return from_values(value, source)
