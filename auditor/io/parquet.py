"""Parquet label files (``.parquet``, or any file starting with the ``PAR1`` magic).

Read stage: ``pyarrow.parquet``; columns chosen by name (:mod:`auditor.io.names`), the row
number standing for the line in messages.
"""
from __future__ import annotations

import io

import numpy as np

from auditor.errors import InputError
from auditor.io.column import LabelColumn, as_id_array, build_column
from auditor.io.names import EXPECTED, GOLD, HeaderRule, choose_columns

__all__ = ["read_parquet", "sniff"]


def sniff(suffix: str, raw: bytes) -> bool:
    """A ``.parquet`` file, or bytes starting with the ``PAR1`` magic."""
    return suffix == ".parquet" or raw[:4] == b"PAR1"


def _readable(kind) -> bool:
    import pyarrow as pa

    return (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind)
            or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
            or pa.types.is_decimal(kind) or pa.types.is_null(kind)
            or (hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind)))


def read_parquet(raw: bytes, source: str, digest: str, column: str | None = None, rule: HeaderRule = GOLD,
                 suffix: str = "") -> LabelColumn:
    """Parquet bytes -> LabelColumn (one label column, an optional id column)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if raw[:4] != b"PAR1":
        raise InputError(f"{source}: not a Parquet file (no PAR1 magic bytes); expected {EXPECTED}")
    try:
        table = pq.read_table(io.BytesIO(raw))
    except Exception as error:  # pyarrow raises several types for corrupt files
        raise InputError(f"{source}: cannot read as Parquet ({error})") from None
    names = list(table.column_names)
    if not names or table.num_rows == 0:
        raise InputError(f"{source}: no items (Parquet file with {table.num_rows} rows)")
    id_column, label_column = choose_columns(names, source, "columns", column, rule)
    label = table.column(label_column)
    kind = label.type.value_type if pa.types.is_dictionary(label.type) else label.type
    if not _readable(kind):
        raise InputError(f"{source}: label column {names[label_column]!r} holds {kind} values; "
                         f"expected one string or number per row (found columns "
                         f"{', '.join(map(repr, names))})")
    ids = None
    if id_column is not None:
        ids = as_id_array(table.column(id_column), source)
    lines = np.arange(1, table.num_rows + 1, dtype=np.int64)
    return build_column(source, label, ids, lines, digest, "parquet", {})
