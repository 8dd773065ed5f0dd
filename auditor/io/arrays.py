"""Labels passed from Python: lists, numpy arrays, pandas Series, Arrow arrays, dicts.

Read stage. Integer, boolean, float, categorical and Arrow inputs are encoded from their
distinct values (no string per item); pandas is never imported here.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from auditor.errors import InputError
from auditor.io.column import LabelColumn, as_id_array, encode_arrow, encode_numpy, merge_codes, scalar_text

__all__ = ["from_values"]


def _array_source(name: str) -> str:
    return name if name.startswith("<") and name.endswith(">") else f"<{name}>"


def _refuse_tables(values: Any, name: str) -> None:
    """A string, a scalar or a table (DataFrame, Arrow Table) is not one column of labels."""
    import pyarrow as pa

    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise InputError(f"{name}: expected a sequence of labels (list, array or pandas Series), "
                         f"found {type(values).__name__}")
    module = type(values).__module__ or ""
    if isinstance(values, (pa.Table, pa.RecordBatch)) or (
            module.startswith("pandas") and type(values).__name__ == "DataFrame"):
        columns = values.column_names if isinstance(values, (pa.Table, pa.RecordBatch)) else values.columns
        raise InputError(f"{name}: expected one column of labels, found a table with columns "
                         f"{list(map(str, columns))}; pass one column, e.g. df['label']")


def _from_series(values: Any, name: str) -> LabelColumn | tuple[np.ndarray, Any]:
    """A pandas Series: a LabelColumn (categorical, nullable and Arrow-backed dtypes), else its
    numpy values and its ids (the index, unless it is the default ``0..N-1`` range)."""
    import pyarrow as pa

    index = values.index
    default = type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1
    ids = None if default else as_id_array(index.to_numpy(), name)
    dtype = values.dtype
    if type(dtype).__name__ == "CategoricalDtype":
        raw = values.cat.codes.to_numpy().astype(np.int32)
        texts = [scalar_text(c) for c in values.cat.categories.tolist()]
        if (raw < 0).any():
            texts.append("nan")
            raw = np.where(raw < 0, len(texts) - 1, raw).astype(np.int32)
        codes, categories = merge_codes(raw, texts)
        return LabelColumn(name, codes, categories, ids, None, None)
    if not isinstance(dtype, np.dtype):  # nullable Int64, string, boolean, Arrow-backed
        codes, categories = encode_arrow(pa.array(values, from_pandas=True), name)
        return LabelColumn(name, codes, categories, ids, None, None)
    return values.to_numpy(), ids


def _one_dimensional(values: Any, name: str) -> np.ndarray:
    """``values`` as a 1-D numpy array (ragged nested lists as an object array, then refused)."""
    if isinstance(values, np.ndarray):
        array = values
    else:
        try:
            array = np.asarray(values)
        except (ValueError, TypeError):  # ragged nested lists
            items = list(values)
            array = np.empty(len(items), dtype=object)
            for index, item in enumerate(items):
                array[index] = item
    if array.ndim != 1:
        raise InputError(f"{name}: expected a one-dimensional sequence of labels, found shape {tuple(array.shape)}")
    return array if array.dtype.kind in "biufUSO" else array.astype(object)


def from_values(values: Any, source: str) -> LabelColumn:
    """Wrap in-memory labels (list, numpy array, pandas Series, Arrow array, dict) as a
    :class:`LabelColumn`.

    A pandas Series with an index other than the default ``0..N-1`` range gives its index
    as the ids; a dict maps ids to labels. Lists and arrays have no ids (aligned by
    position).

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
    _refuse_tables(values, name)
    ids = None
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        codes, categories = encode_arrow(values, name)
        return LabelColumn(name, codes, categories, None, None, None)
    if isinstance(values, Mapping):
        ids = as_id_array(np.asarray(list(values.keys()) + [None], dtype=object)[:-1], name)
        values = list(values.values())
    elif (type(values).__module__ or "").startswith("pandas") and hasattr(values, "index") \
            and hasattr(values, "dtype"):
        found = _from_series(values, name)
        if isinstance(found, LabelColumn):
            return found
        values, ids = found
    codes, categories = encode_numpy(_one_dimensional(values, name), name)
    return LabelColumn(name, codes, categories, ids, None, None)
