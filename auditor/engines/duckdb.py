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

from auditor.engines.patterns import integers
from auditor.engines.source import Dataset, header, missing_ids_error, one_line
from auditor.errors import InputError, UsageError


def identifier(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A quoted SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def relations(dataset: Dataset, columns: Sequence[str], filename: bool = False) -> list[str]:
    """The table functions that read ``dataset``, one per part (files whose columns share their types:
    DuckDB would cast every file to the first file's types, ``2.5`` to ``2``), ``columns`` as the reading
    rules want them."""
    return [read(part, dataset.format, columns, filename) for part in dataset.groups]


def read(paths: Sequence[str], fmt: str, columns: Sequence[str], filename: bool = False) -> str:
    """The table function that reads ``paths`` of format ``fmt`` (``columns`` as the reading rules want them)."""
    files = "[" + ", ".join(literal(f) for f in paths) + "]"
    extra = ", filename=true" if filename else ""
    if fmt == "parquet":
        return f"read_parquet({files}, binary_as_string=true{extra})"
    if fmt == "jsonl":
        declared = ", ".join(f"{literal(c)}: 'JSON'" for c in columns)
        return f"read_json({files}, format='newline_delimited', columns={{{declared}}}{extra})"
    names = header(paths[0], fmt)
    declared = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in names)
    delimiter = "\\t" if fmt == "tsv" else ","
    return (f"read_csv({files}, header=true, auto_detect=false, delim=E{literal(delimiter)}, quote='\"', "
            f"escape='\"', columns={{{declared}}}, strict_mode=true{extra})")


class OutOfMemory(UsageError):
    """DuckDB ran out of memory (under ``--memory-limit``) although it spills."""


class DuckDBEngine:
    """Embedded DuckDB: one in-process database per audit, closed afterwards. ``compact``: group by
    packed integer codes (:meth:`compact_patterns`), as :func:`auditor.engines.count_dataset` retries
    when the plain group-by runs out of memory."""

    name = "duckdb"
    compact = False

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
            raise InputError(f"{self.dataset.path}: DuckDB cannot read the dataset as {self.dataset.format} "
                             f"({one_line(error)})") from None

    def join(self) -> None:
        """One view per GOLD/SYSTEM file (``v0`` gold, ``v1``... systems: text ids ``id``, labels
        ``v``); refuses duplicate ids in a file, and ids missing from a system or extra in it."""
        files = self.dataset.joined
        for index, file in enumerate(files):
            key = {"parquet": "CAST({} AS VARCHAR)", "jsonl": "({} ->> '$')"}.get(file.format, "trim({}, E' \\t')")
            self.query(f"CREATE OR REPLACE TEMP VIEW v{index} AS "
                       f"SELECT {key.format(identifier(file.id_column))} AS id, "
                       f"{identifier(file.label_column)} AS v FROM "
                       f"{read([file.path], file.format, [file.id_column, file.label_column])}")
            missing = self.query(f"SELECT count(*) FILTER (WHERE id IS NULL OR id = '') FROM v{index}").column(0)[0]
            if missing.as_py():
                raise missing_ids_error(file.path, missing.as_py(), file.id_column)
            found = self.query(f"SELECT sum(c - 1), any_value(id) FILTER (WHERE c > 1) FROM "
                               f"(SELECT id, count(*) AS c FROM v{index} GROUP BY ALL)")
            if found.column(0)[0].as_py():
                extra = found.column(0)[0].as_py()
                raise InputError(f"{file.path}: duplicate id {found.column(1)[0].as_py()!r} ({extra:,} "
                                 f"{'rows repeat' if extra != 1 else 'row repeats'} an earlier id); every id must "
                                 f"appear once")
        for index, file in enumerate(files[1:], start=1):
            for left, right, what in ((index, 0, "not in the gold file"), (0, index, "missing")):
                found = self.query(f"SELECT count(*), min(id) FROM v{left} ANTI JOIN v{right} USING (id)")
                if found.column(0)[0].as_py():
                    n, first = found.column(0)[0].as_py(), found.column(1)[0].as_py()
                    raise InputError(f"{file.path}: {n:,} {'gold ' if right else ''}id{'s' if n != 1 else ''} {what}"
                                     f"{' from ' + files[0].path if right == 0 else ''} (first in order: {first!r}); "
                                     f"expected "
                                     f"{'the gold ids only' if right == 0 else 'a prediction for every gold id'}")

    def stream(self, sql: str) -> Any:
        """The result of ``sql`` as a stream of Arrow record batches (never materialised whole: under
        ``--memory-limit`` the group-by spills and its result is fetched a batch at a time)."""
        try:
            reader = self.connection.sql(sql).to_arrow_reader(1 << 17)
            while True:
                try:
                    yield reader.read_next_batch()
                except StopIteration:
                    return
        except self._error as error:
            message = one_line(error)
            if "Out of Memory" in message:
                raise OutOfMemory(f"{self.dataset.path}: DuckDB ran out of memory even when spilling ({message}); "
                                  f"raise --memory-limit or give a --temp-directory with free space") from None
            raise InputError(f"{self.dataset.path}: DuckDB cannot read the dataset as {self.dataset.format} "
                             f"({message})") from None

    def compact_patterns(self) -> Any:
        """The group-by on packed integer codes: a smaller hash table, for tight ``--memory-limit``.

        One pass finds each column's distinct values (each a DuckDB ENUM); the rows are then grouped by
        ``sum_c code_c * prod_{c' < c} (k_c' + 1)`` (one BIGINT per group of columns that fits 62 bits;
        code ``k_c`` is null), and each batch is decoded back to dictionary arrays of the values.
        """
        for part, source in enumerate(relations(self.dataset, self.dataset.columns)):
            yield from self._compact_part(source, part)

    def _compact_part(self, source: str, part: int) -> Any:
        """:meth:`compact_patterns` of one part of the dataset (its ENUM types named after the part)."""
        import pyarrow as pa

        columns = self.dataset.columns
        dictionaries, codes = [], []
        for i, column in enumerate(columns):
            found = self.query(f"SELECT DISTINCT {identifier(column)} AS v, CAST({identifier(column)} AS VARCHAR) AS s "
                               f"FROM {source}")
            texts = found.column("s").to_pylist()
            keep = [j for j, t in enumerate(texts) if t is not None and t not in texts[:j]]
            values = ", ".join(literal(texts[j]) for j in keep)
            self.query(f"CREATE TYPE e{part}_{i} AS ENUM ({values})")
            dictionaries.append(pa.concat_arrays([found.column("v").combine_chunks().take(keep),
                                                  pa.nulls(1, found.column("v").type)]))
            codes.append(f"CAST(coalesce(enum_code(CAST(CAST({identifier(column)} AS VARCHAR) AS e{part}_{i})), "
                         f"{len(keep)}) AS BIGINT)")
        keys, layout, width = [], [], 1
        for i, code in enumerate(codes):
            base = len(dictionaries[i])
            if not keys or width * base >= 1 << 62:
                keys.append([])
                width = 1
            keys[-1].append(f"{code} * {width}")
            layout.append((len(keys) - 1, width, base))
            width *= base
        selected = ", ".join(" + ".join(parts) + f" AS k{j}" for j, parts in enumerate(keys))
        for batch in self.stream(f"SELECT {selected}, count(*) AS n FROM {source} GROUP BY ALL"):
            packed = [integers(batch.column(j)) for j in range(len(keys))]
            arrays = [pa.DictionaryArray.from_arrays(pa.array((packed[key] // width) % base), dictionaries[i])
                      for i, (key, width, base) in enumerate(layout)]
            yield pa.RecordBatch.from_arrays([*arrays, batch.column(len(keys))], names=[*columns, "n"])

    def patterns(self) -> Any:
        """Distinct (gold, systems[, slice]) rows and their count ``n``, as a stream of Arrow batches."""
        columns = self.dataset.columns
        if self.compact and self.dataset.joined is None:
            return self.compact_patterns()
        if self.dataset.joined is not None:
            self.join()
            joins = " ".join(f"JOIN v{i} ON v0.id = v{i}.id" for i in range(1, len(columns)))
            selected = ", ".join(f"v{i}.v AS c{i}" for i in range(len(columns)))
            return self.stream(f"SELECT {selected}, count(*) AS n FROM v0 {joins} GROUP BY ALL")
        selected = ", ".join(f"{identifier(c)} AS c{i}" for i, c in enumerate(columns))
        return self._chained([f"SELECT {selected}, count(*) AS n FROM {source} GROUP BY ALL"
                              for source in relations(self.dataset, columns)])

    def _chained(self, queries: Sequence[str]) -> Any:
        """The streams of ``queries`` one after the other (one per part of the dataset)."""
        for sql in queries:
            yield from self.stream(sql)

    def pair_patterns(self) -> Any:
        """Every pair's (gold, a, b) rows in one scan (:mod:`auditor.engines.pairs`): columns ``c0..cS``,
        the grouping id ``g`` and ``n``, as a stream of Arrow batches."""
        from auditor.engines.pairs import grouping_sql

        columns = self.dataset.label_columns
        if self.dataset.joined is not None:
            self.join()
            joins = " ".join(f"JOIN v{i} ON v0.id = v{i}.id" for i in range(1, len(columns)))
            source = "SELECT " + ", ".join(f"v{i}.v AS c{i}" for i in range(len(columns))) + f" FROM v0 {joins}"
            sources = [source]
        else:
            picked = ", ".join(f"{identifier(c)} AS c{i}" for i, c in enumerate(columns))
            sources = [f"SELECT {picked} FROM {part}" for part in relations(self.dataset, columns)]
        sets, grouping = grouping_sql(len(self.dataset.systems))
        selected = ", ".join(f"c{i}" for i in range(len(columns)))
        return self._chained([f"SELECT {selected}, {grouping} AS g, count(*) AS n FROM ({source}) GROUP BY {sets}"
                              for source in sources])

    def file_values(self, column: str) -> list[tuple[str, list[Any]]]:
        """Each file and the distinct values of ``column`` in it."""
        files, values = [], []
        for source in relations(self.dataset, [column], filename=True):
            table = self.query(f"SELECT DISTINCT filename, {identifier(column)} AS v FROM {source}")
            files += table.column(0).to_pylist()
            values += table.column(1).to_pylist()
        return [(file, [v for f, v in zip(files, values) if f == file]) for file in dict.fromkeys(files)]

    def missing_ids(self) -> int:
        """Rows without an id: null, or (CSV, TSV) empty once trimmed of spaces and tabs."""
        column = identifier(self.dataset.id_column)
        empty = f" OR trim({column}, E' \\t') = ''" if self.dataset.format in ("csv", "tsv") else ""
        return sum(int(self.query(f"SELECT count(*) FILTER (WHERE {column} IS NULL{empty}) FROM {part}").column(0)[0]
                       .as_py()) for part in relations(self.dataset, [self.dataset.id_column]))

    def duplicate_ids(self) -> tuple[int, str | None]:
        """How many rows repeat an earlier id, and one repeated id."""
        key = f"CAST({identifier(self.dataset.id_column)} AS VARCHAR)"
        source = " UNION ALL ".join(f"SELECT {key} AS k FROM {part}"
                                    for part in relations(self.dataset, [self.dataset.id_column]))
        table = self.query(f"SELECT sum(c - 1) AS extra, any_value(k) FILTER (WHERE c > 1) AS example FROM "
                           f"(SELECT k, count(*) AS c FROM ({source}) GROUP BY ALL)")
        extra = table.column(0)[0].as_py() or 0
        return int(extra), table.column(1)[0].as_py()

    def close(self) -> None:
        self.connection.close()
