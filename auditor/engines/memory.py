"""The in-memory engine: pyarrow reads every file, then one hash group-by (``Table.group_by``).

For data that fits in memory. Reads Parquet with ``pyarrow.parquet``, CSV and TSV with
``pyarrow.csv`` (every column as text, empty fields kept as empty text), JSON Lines with Python's
``json`` (each value kept as its JSON text, as DuckDB's and Spark's JSON columns are). The distinct
rows go to :func:`auditor.engines.patterns.build` like every engine's.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from auditor.engines.source import Dataset, header
from auditor.errors import InputError
from auditor.io.jsonl import json_lines
from auditor.io.lines import decode_utf8


def _read_csv(file: str, delimiter: str, columns: Sequence[str]) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        names = header(file, "tsv" if delimiter == "\t" else "csv")
        return pacsv.read_csv(
            file,
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char='"', double_quote=True,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in names},
                                                 include_columns=list(columns), strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
        message = str(error).splitlines()[0]
        raise InputError(f"{file}: cannot read as {'TSV' if delimiter == chr(9) else 'CSV'} ({message}); expected a "
                         f"header line, then the same number of fields on every line") from None


def _read_jsonl(file: str, columns: Sequence[str]) -> Any:
    """Each value as its JSON text (None where the key is absent), one string column per name."""
    import pyarrow as pa

    text = decode_utf8(Path(file).read_bytes(), file)
    records, keep, _ = json_lines(text, file, "{" + ", ".join(f'"{c}": ...' for c in columns[:2]) + "}")
    not_object = next((i for i, record in enumerate(records) if not isinstance(record, dict)), None)
    if not_object is not None:
        raise InputError(f"{file} line {keep[not_object] + 1}: a JSON {type(records[not_object]).__name__}; "
                         f"expected one JSON object per line")
    dumps = json.dumps
    return pa.table({c: pa.array([None if (v := r.get(c)) is None else dumps(v, ensure_ascii=False) for r in records],
                                 type=pa.string()) for c in columns})


def read_file(file: str, fmt: str, columns: Sequence[str]) -> Any:
    """The ``columns`` of one file as an Arrow table (text for CSV/TSV, JSON text for JSON Lines)."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(file, columns=list(columns))
        except Exception as error:  # pyarrow raises several types for corrupt files
            raise InputError(f"{file}: cannot read as Parquet ({error})") from None
    if fmt == "jsonl":
        return _read_jsonl(file, columns)
    return _read_csv(file, "\t" if fmt == "tsv" else ",", columns)


def _group(table: Any, columns: Sequence[str]) -> Any:
    """Distinct rows of ``table`` and their count ``n`` (columns renamed around pyarrow's group-by)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = [f"c{i}" for i in range(len(columns))]
    table = table.select(list(columns)).rename_columns(keys)
    for i, key in enumerate(keys):
        if pa.types.is_dictionary(table.column(i).type):
            table = table.set_column(i, key, pc.cast(table.column(i), table.column(i).type.value_type))
    grouped = table.group_by(keys, use_threads=False).aggregate([([], "count_all")])
    return pa.table([grouped.column(k) for k in keys] + [grouped.column("count_all")], names=[*columns, "n"])


class MemoryEngine:
    """pyarrow + numpy in this process: the whole table is read into memory."""

    name = "memory"

    def __init__(self, dataset: Dataset):
        self.dataset = dataset
        needed = list(dict.fromkeys([*dataset.columns, *([dataset.id_column] if dataset.id_column else [])]))
        self.tables = [read_file(file, dataset.format, needed) for file in dataset.files]

    def patterns(self) -> Any:
        """Distinct (gold, systems[, slice]) rows and their counts: one group-by per part of the dataset
        (files whose columns share their types, :attr:`~auditor.engines.source.Dataset.parts`), as a stream of
        record batches; each batch's values become label text in :func:`auditor.engines.patterns.build`."""
        import pyarrow as pa

        by_file = dict(zip(self.dataset.files, self.tables))
        for part in self.dataset.groups:
            grouped = _group(pa.concat_tables([by_file[f] for f in part], promote_options="permissive"),
                             self.dataset.columns)
            yield from grouped.to_batches()

    def file_values(self, column: str) -> list[tuple[str, list[Any]]]:
        """Each file and the distinct values of ``column`` in it (for naming the file of a bad value)."""
        import pyarrow.compute as pc

        return [(file, pc.unique(table.column(column)).to_pylist())
                for file, table in zip(self.dataset.files, self.tables)]

    def missing_ids(self) -> int:
        """Rows without an id: null, or (CSV, TSV) empty once trimmed of spaces and tabs."""
        import pyarrow.compute as pc

        total = 0
        for table in self.tables:
            ids = table.column(self.dataset.id_column)
            total += ids.null_count
            if self.dataset.format in ("csv", "tsv"):
                total += int(pc.sum(pc.equal(pc.utf8_trim(ids, " \t"), "")).as_py() or 0)
        return total

    def duplicate_ids(self) -> tuple[int, str | None]:
        """How many rows repeat an earlier id, and one repeated id."""
        import pyarrow as pa
        import pyarrow.compute as pc

        ids = pa.chunked_array([pc.cast(t.column(self.dataset.id_column), pa.string()) for t in self.tables],
                               pa.string())
        counted = pc.value_counts(ids)
        repeats = np.asarray(counted.field("counts").to_numpy()) - 1
        if not repeats.any():
            return 0, None
        return int(repeats.sum()), counted.field("values")[int(np.flatnonzero(repeats)[0])].as_py()

    def close(self) -> None:
        self.tables = []
