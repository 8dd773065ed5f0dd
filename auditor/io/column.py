"""One input's items as label codes: :class:`LabelColumn`, and the encoding every reader shares.

Read stage. Labels are kept as text exactly as written (``"0"``, ``"1"``), so a gold file and a
system file always agree on what a label is; numbers from arrays, JSON and Parquet are written
the same way (``1``, ``1.0`` and ``np.int64(1)`` all become ``"1"``). Labels are encoded to
integer codes by hashing (``dictionary_encode``), never by sorting strings; integer, boolean,
categorical, pandas and Arrow inputs are encoded without passing through one string per item.
Missing labels (:data:`MISSING_LABELS`) are refused by :func:`auditor.io.validate.check_labels`,
never turned into a class.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Mapping, Sequence

import numpy as np

from auditor.errors import InputError

__all__ = ["LabelColumn", "MISSING_LABELS", "MAX_LABEL_CHARS", "TRIM", "scalar_text", "strings", "merge_codes",
           "encode_arrow", "encode_numpy", "as_id_array", "build_column", "encodable", "numpy_values", "string_array"]

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

TRIM = " \t"  # the only characters trimmed from a field


#: The file format a label column was read from (``array``: given in memory); it decides what a
#: message says a line should look like.
FileFormat = Literal["csv", "tsv", "whitespace", "jsonl", "json", "parquet", "array"]


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
    format: FileFormat = "array"
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
        return strings(self.id_array.to_pylist())

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

def scalar_text(value: Any) -> str:
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


def strings(items: list[str]) -> np.ndarray:
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
        return [scalar_text(v) for v in dictionary.to_pylist()]
    if hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind):
        return pc.cast(dictionary, pa.string()).to_pylist()
    raise InputError(f"{what} holds values of type {kind}; expected strings or numbers "
                     f"(one label per item)")


def encode_arrow(values: Any, what: str, trim: bool = False, null_text: str = "nan",
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
        texts = [t.strip(TRIM) for t in texts]
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


def numpy_values(values: Any) -> np.ndarray:
    """A null-free Arrow (chunked) array of integers, floats or booleans as numpy, from its data buffer (a view
    except for booleans, which are unpacked); ``to_numpy`` would import pandas (0.4 s) for the same result."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_boolean(values.type):
        bits = np.frombuffer(values.buffers()[1], dtype=np.uint8)
        return np.unpackbits(bits, bitorder="little")[values.offset:values.offset + len(values)].astype(bool)
    dtype = np.dtype(values.type.to_pandas_dtype())
    return np.frombuffer(values.buffers()[1], dtype=dtype, count=len(values), offset=values.offset * dtype.itemsize)


def string_array(texts: Sequence[str]) -> Any:
    """``texts`` as an Arrow string array built from its buffers (``pa.array`` imports pandas, 0.4 s, to look at
    its argument). Raises UnicodeEncodeError for a lone surrogate."""
    import pyarrow as pa

    joined = "".join(texts)
    data = joined.encode("utf-8")
    if len(data) == len(joined):  # ASCII: a text's bytes are its characters
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    else:
        lengths = np.fromiter((len(text.encode("utf-8")) for text in texts), dtype=np.int64, count=len(texts))
    large = len(data) >= 2**31
    offsets = np.zeros(len(texts) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(texts),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def encode_numpy(array: np.ndarray, what: str) -> tuple[np.ndarray, tuple[str, ...]]:
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
        return merge_codes(inverse.astype(np.int32).ravel(), [scalar_text(v) for v in uniques])
    if kind == "U":
        try:
            strings = pa.array(array, type=pa.string())
        except UnicodeError:  # a lone surrogate: refused with the same words as every other name
            from auditor.options import check_names

            check_names(np.unique(array).tolist(), ())
            raise
        return encode_arrow(strings, what)
    if kind == "S":
        return encode_numpy(np.char.decode(array, "utf-8", errors="replace"), what)
    items = array.tolist() if kind == "O" else list(array.astype(object))
    if not all(type(v) is str for v in items):
        texts = []
        for index, value in enumerate(items):
            try:
                texts.append(scalar_text(value))
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
        index = next(i for i, v in enumerate(items) if not encodable(v))
        raise InputError(f"{what} index {index}: label {items[index]!r} is not valid "
                         f"Unicode (a lone surrogate); expected UTF-8 text") from None
    return encode_arrow(arrow, what)


def encodable(text: str) -> bool:
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
            items.append("" if value is None else scalar_text(value))
        except Exception as error:
            raise InputError(f"{what} index {index}: cannot use the id as text "
                             f"({type(error).__name__}: {error})") from None
    try:
        return pa.array(items, type=pa.string())
    except UnicodeEncodeError:
        index = next(i for i, v in enumerate(items) if not encodable(v))
        raise InputError(f"{what} index {index}: id {items[index]!r} is not valid Unicode "
                         f"(a lone surrogate); expected UTF-8 text") from None



def build_column(source: str, labels: Any, ids: Any, numbers: np.ndarray, digest: str | None,
            fmt: FileFormat, skipped: Mapping[str, int], trim: bool = False) -> LabelColumn:
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
    codes, categories = encode_arrow(labels, source, trim,
                                      "null" if fmt in ("json", "jsonl", "parquet") else "nan",
                                      dense=fmt != "parquet")
    long = [code for code, text in enumerate(categories) if len(text) > MAX_LABEL_CHARS] \
        if max(map(len, categories), default=0) > MAX_LABEL_CHARS else []
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

