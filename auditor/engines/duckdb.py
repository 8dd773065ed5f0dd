"""The DuckDB engine: the group-by runs in embedded DuckDB, out of core (spilling to disk).

DuckDB reads the files where they lie (a glob of Parquet files is read in parallel, column by
column) and only the distinct (gold, systems[, slice]) rows and their counts come back, as Arrow.
Reading rules are the in-memory engine's: CSV and TSV through ``read_csv`` with the sniffer off
and every column declared VARCHAR (the sniffer would read ``01`` as the number 1), JSON Lines
through ``read_json`` with every column declared JSON (each value's JSON text, turned into a label
in Python as :mod:`auditor.io.load` does), Parquet with its own types. ``--memory-limit`` and
``--temp-directory`` are DuckDB's ``memory_limit`` and ``temp_directory``: past the limit, the
group-by's hash tables spill there.
"""
from __future__ import annotations

from typing import Any, Sequence

from auditor.engines.source import Dataset, header
from auditor.errors import InputError, UsageError


def identifier(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A quoted SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def relation(dataset: Dataset, columns: Sequence[str], filename: bool = False) -> str:
    """The table function that reads ``dataset`` (its ``columns`` as the reading rules want them)."""
    files = "[" + ", ".join(literal(f) for f in dataset.files) + "]"
    extra = ", filename=true" if filename else ""
    if dataset.format == "parquet":
        return f"read_parquet({files}, binary_as_string=true{extra})"
    if dataset.format == "jsonl":
        declared = ", ".join(f"{literal(c)}: 'JSON'" for c in columns)
        return f"read_json({files}, format='newline_delimited', columns={{{declared}}}{extra})"
    names = header(dataset.files[0], dataset.format)
    declared = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in names)
    delimiter = "\\t" if dataset.format == "tsv" else ","
    return (f"read_csv({files}, header=true, auto_detect=false, delim=E{literal(delimiter)}, quote='\"', "
            f"escape='\"', columns={{{declared}}}, strict_mode=true{extra})")


class DuckDBEngine:
    """Embedded DuckDB: one in-process database per audit, closed afterwards."""

    name = "duckdb"
    raw_json = True

    def __init__(self, dataset: Dataset, memory_limit: str | None = None, temp_directory: str | None = None,
                 threads: int | None = None):
        try:
            import duckdb
        except ImportError:  # pragma: no cover - a runtime dependency
            raise UsageError("--engine duckdb needs the duckdb package (pip install duckdb)") from None
        self.dataset = dataset
        self._error = duckdb.Error
        config: dict[str, Any] = {"preserve_insertion_order": False}
        if memory_limit:
            config["memory_limit"] = memory_limit
        if temp_directory:
            config["temp_directory"] = temp_directory
        if threads:
            config["threads"] = threads
        try:
            self.connection = duckdb.connect(":memory:", config=config)
            self.connection.execute("SET enable_progress_bar = false")
        except duckdb.Error as error:
            raise UsageError(f"DuckDB refused the settings (--memory-limit {memory_limit!r}, --temp-directory "
                             f"{temp_directory!r}): {str(error).splitlines()[0]}") from None

    def query(self, sql: str) -> Any:
        """Run ``sql``; DuckDB's errors (a malformed file, a bad value) become one InputError."""
        try:
            return self.connection.sql(sql).to_arrow_table()
        except self._error as error:
            message = " ".join(str(error).split())[:600]
            raise InputError(f"{self.dataset.path}: DuckDB cannot read the dataset as {self.dataset.format} "
                             f"({message})") from None

    def patterns(self) -> Any:
        """Distinct (gold, systems[, slice]) rows and their count ``n``, as Arrow."""
        columns = self.dataset.columns
        selected = ", ".join(f"{identifier(c)} AS c{i}" for i, c in enumerate(columns))
        table = self.query(f"SELECT {selected}, count(*) AS n FROM {relation(self.dataset, columns)} GROUP BY ALL")
        return table.rename_columns([*columns, "n"])

    def file_values(self, column: str) -> list[tuple[str, list[Any]]]:
        """Each file and the distinct values of ``column`` in it."""
        table = self.query(f"SELECT DISTINCT filename, {identifier(column)} AS v FROM "
                           f"{relation(self.dataset, [column], filename=True)}")
        files, values = table.column(0).to_pylist(), table.column(1).to_pylist()
        return [(file, [v for f, v in zip(files, values) if f == file]) for file in dict.fromkeys(files)]

    def duplicate_ids(self) -> tuple[int, str | None]:
        """How many rows repeat an earlier id, and one repeated id."""
        key = f"CAST({identifier(self.dataset.id_column)} AS VARCHAR)"
        source = relation(self.dataset, [self.dataset.id_column])
        table = self.query(f"SELECT sum(c - 1) AS extra, any_value(k) FILTER (WHERE c > 1) AS example FROM "
                           f"(SELECT {key} AS k, count(*) AS c FROM {source} GROUP BY ALL)")
        extra = table.column(0)[0].as_py() or 0
        return int(extra), table.column(1)[0].as_py()

    def close(self) -> None:
        self.connection.close()
