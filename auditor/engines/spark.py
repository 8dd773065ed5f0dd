"""The Spark engine: the same group-by in PySpark; only the distinct rows and their counts come back.

``--spark-master`` (default ``local[*]``) is the cluster; the files must be readable from it.
GOLD and SYSTEM files are joined by id as in DuckDB (the same errors for duplicate, missing and
extra ids). Reading rules are the other engines': CSV and TSV with a header and every column as text
(``inferSchema`` off, so ``01`` stays ``01``), JSON Lines read as lines of text, each value taken as
its JSON text (``parse_json`` then ``to_json``), Parquet with its own types. Needs the extra
``auditor[spark]`` (PySpark) and Java 17.
"""
from __future__ import annotations

import os
import shutil
from typing import Any, Sequence

from auditor.engines.source import Dataset, missing_ids_error, one_line
from auditor.errors import InputError, UsageError


def check_java() -> str:
    """The ``java`` PySpark will start (``JAVA_HOME/bin/java``, else on PATH), or a UsageError."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        where = f"JAVA_HOME={home!r} has no bin/java" if home else "no `java` on PATH and JAVA_HOME is not set"
        raise UsageError(f"--engine spark needs Java 17 ({where}); install a JDK 17 (e.g. Debian's openjdk-17-jre) "
                         f"or use --engine duckdb")
    return java


def _column(name: str) -> Any:
    import pyspark.sql.functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _json_path(name: str) -> str:
    return "$['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']"


class SparkEngine:
    """PySpark: a session on ``master`` (reused within the process), stopped with the process."""

    name = "spark"

    def __init__(self, dataset: Dataset, master: str = "local[*]", memory_limit: str | None = None,
                 temp_directory: str | None = None):
        check_java()
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise UsageError("--engine spark needs PySpark: pip install 'auditor[spark]' (and Java 17)") from None
        builder = SparkSession.builder.master(master).appName("auditor").config("spark.ui.enabled", "false") \
            .config("spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC") \
            .config("spark.sql.shuffle.partitions", "8")
        if memory_limit:
            builder = builder.config("spark.driver.memory", memory_limit.replace("B", "").lower())
        if temp_directory:
            builder = builder.config("spark.local.dir", temp_directory)
        try:
            self.session = builder.getOrCreate()
            self.session.sparkContext.setLogLevel("ERROR")
        except Exception as error:  # py4j and PySpark raise their own types
            raise UsageError(f"--engine spark could not start Spark on {master!r}: "
                             f"{' '.join(str(error).split())[:400]}") from None
        self.dataset = dataset

    def frames(self, columns: Sequence[str], filename: bool = False) -> list[Any]:
        """The dataset's ``columns`` (JSON Lines: each value's JSON text) as a DataFrame per part (files whose
        columns share their types: Spark's reader would take one file's types for all)."""
        try:
            return [self.read(list(part), self.dataset.format, columns, filename) for part in self.dataset.groups]
        except Exception as error:  # a column Spark cannot resolve: its analysis error, before any job runs
            raise InputError(f"{self.dataset.path}: Spark cannot read the dataset as {self.dataset.format} "
                             f"({one_line(error)})") from None

    def read(self, files: list[str], fmt: str, columns: Sequence[str], filename: bool = False,
             id_column: str | None = None) -> Any:
        """``columns`` of ``files`` in format ``fmt`` as a DataFrame; ``id_column`` adds ``_id``, the
        id as text as DuckDB's join reads it (CSV trimmed of spaces and tabs; JSON strings unquoted)."""
        import pyspark.sql.functions as F

        reader = self.session.read
        extra = [F.input_file_name().alias("_file")] if filename else []
        if fmt == "jsonl":
            lines = reader.text(files).where(F.length(F.trim(F.col("value"))) > 0)
            parsed = lines.select(F.parse_json(F.col("value")).alias("_v"), F.input_file_name().alias("_file"))
            picked = [F.to_json(F.try_variant_get(F.col("_v"), _json_path(c), "variant")).alias(c) for c in columns]
            if id_column is not None:
                picked.append(F.try_variant_get(F.col("_v"), _json_path(id_column), "string").alias("_id"))
            return parsed.select(*picked, *([F.col("_file")] if filename else []))
        if fmt == "parquet":
            frame = reader.parquet(*files)
            key = _column(id_column).cast("string") if id_column is not None else None
        else:
            frame = reader.csv(files, header=True, sep="\t" if fmt == "tsv" else ",", quote='"', escape='"',
                               inferSchema=False, mode="FAILFAST", ignoreLeadingWhiteSpace=False,
                               ignoreTrailingWhiteSpace=False, enforceSchema=False)
            key = (F.regexp_replace(_column(id_column), "^[ \t]+|[ \t]+$", "") if id_column is not None else None)
        return frame.select(*[_column(c) for c in columns], *([key.alias("_id")] if key is not None else []), *extra)

    def join(self) -> Any:
        """GOLD and SYSTEM files joined by id (columns ``c0`` gold, ``c1``... systems): refuses
        duplicate ids in a file, and ids missing from a system or extra in it, as DuckDB's join does."""
        import pyspark.sql.functions as F

        files = self.dataset.joined
        frames = []
        for index, file in enumerate(files):
            frame = self.read([file.path], file.format, [file.label_column], id_column=file.id_column)
            frame = frame.select(F.col("_id").alias("id"), _column(file.label_column).alias(f"c{index}"))
            missing = self.collect(frame.select(F.count(F.when(F.col("id").isNull() | (F.col("id") == ""), 1))
                                                .alias("n"))).column(0)[0].as_py()
            if missing:
                raise missing_ids_error(file.path, missing, file.id_column)
            repeated = frame.groupBy("id").count().where(F.col("count") > 1)
            found = self.collect(repeated.agg(F.sum(F.col("count") - 1).alias("extra"), F.min("id").alias("example")))
            extra = found.column("extra")[0].as_py()
            if extra:
                raise InputError(f"{file.path}: duplicate id {found.column('example')[0].as_py()!r} ({extra:,} "
                                 f"{'rows repeat' if extra != 1 else 'row repeats'} an earlier id); every id must "
                                 f"appear once")
            frames.append(frame)
        for index, file in enumerate(files[1:], start=1):
            for left, right, what in ((index, 0, "not in the gold file"), (0, index, "missing")):
                lacking = frames[left].select("id").join(frames[right].select("id"), "id", "left_anti")
                found = self.collect(lacking.agg(F.count("id").alias("n"), F.min("id").alias("first")))
                n, first = found.column("n")[0].as_py(), found.column("first")[0].as_py()
                if n:
                    raise InputError(f"{file.path}: {n:,} {'gold ' if right else ''}id{'s' if n != 1 else ''} {what}"
                                     f"{' from ' + files[0].path if right == 0 else ''} (first in order: {first!r}); "
                                     f"expected "
                                     f"{'the gold ids only' if right == 0 else 'a prediction for every gold id'}")
        joined = frames[0]
        for frame in frames[1:]:
            joined = joined.join(frame, "id", "inner")
        return joined.select(*[f"c{i}" for i in range(len(files))])

    def collect(self, frame: Any) -> Any:
        """``frame`` as an Arrow table; Spark's failures become one InputError."""
        try:
            return frame.toArrow()
        except Exception as error:  # Spark raises Py4J and its own analysis errors
            raise InputError(f"{self.dataset.path}: Spark cannot read the dataset as {self.dataset.format} "
                             f"({one_line(error)})") from None

    #: Most distinct rows collected (:func:`auditor.engines.count_dataset` sets it from the memory):
    #: past it :meth:`patterns` raises and :meth:`pair_patterns` is asked instead.
    max_rows: int | None = None

    def renamed(self) -> list[Any]:
        """The dataset's (or the joined files') columns as ``c0`` (gold), ``c1``..., a DataFrame per part."""
        if self.dataset.joined is not None:
            return [self.join()]
        names = [f"c{i}" for i in range(len(self.dataset.columns))]
        return [frame.toDF(*names) for frame in self.frames(self.dataset.columns)]

    def patterns(self) -> Any:
        """Distinct (gold, systems[, slice]) rows and their count ``n``, as Arrow record batches (each part's
        own types); raises :class:`~auditor.engines.patterns.PatternTableTooLarge` (before collecting) past
        :attr:`max_rows`."""
        from auditor.engines.patterns import PatternTableTooLarge

        columns = self.dataset.columns
        grouped = [frame.groupBy(*frame.columns).count() for frame in self.renamed()]
        if self.max_rows is not None:
            grouped = [frame.cache() for frame in grouped]  # counted, then collected from the cache
            if sum(self.collect(frame.groupBy().count()).column(0)[0].as_py() for frame in grouped) > self.max_rows:
                for frame in grouped:
                    frame.unpersist()
                raise PatternTableTooLarge(f"more than {self.max_rows:,} distinct rows")
        return [batch for frame in grouped
                for batch in self.collect(frame).rename_columns([*columns, "n"]).to_batches()]

    def pair_patterns(self) -> Any:
        """Every pair's (gold, a, b) rows in one job per part (:mod:`auditor.engines.pairs`): columns ``c0..cS``,
        the grouping id ``g`` and ``n``, as Arrow record batches."""
        from auditor.engines.pairs import grouping_sql

        sets, grouping = grouping_sql(len(self.dataset.systems))
        selected = ", ".join(f"c{i}" for i in range(len(self.dataset.label_columns)))
        batches = []
        for frame in self.renamed():
            frame.select(*[f"c{i}" for i in range(len(self.dataset.label_columns))]) \
                .createOrReplaceTempView("auditor_pairs")
            batches += self.collect(self.session.sql(f"SELECT {selected}, {grouping} AS g, count(*) AS n FROM "
                                                     f"auditor_pairs GROUP BY {sets}")).to_batches()
        return batches

    def file_values(self, column: str) -> list[tuple[str, list[Any]]]:
        """Each file and the distinct values of ``column`` in it."""
        files, values = [], []
        for frame in self.frames([column], filename=True):
            table = self.collect(frame.toDF("v", "_file").distinct())
            files += table.column("_file").to_pylist()
            values += table.column("v").to_pylist()
        by_file: dict[str, list[Any]] = {}
        for file, value in zip(files, values):
            by_file.setdefault(file.removeprefix("file://"), []).append(value)
        return list(by_file.items())

    def missing_ids(self) -> int:
        """Rows without an id: null (JSON Lines: a null or absent key), or (CSV, TSV) empty once trimmed."""
        import pyspark.sql.functions as F

        text = self.dataset.format in ("csv", "tsv")
        total = 0
        for frame in self.frames([self.dataset.id_column]):
            k = F.col(frame.columns[0])
            absent = k.isNull() | (k == "null") if self.dataset.format == "jsonl" else k.isNull()
            if text:
                absent = absent | (F.regexp_replace(k, "^[ \t]+|[ \t]+$", "") == "")
            total += self.collect(frame.select(F.count(F.when(absent, 1)).alias("n"))).column(0)[0].as_py()
        return total

    def duplicate_ids(self) -> tuple[int, str | None]:
        """How many rows repeat an earlier id, and one repeated id."""
        import pyspark.sql.functions as F

        parts = [frame.toDF("k").select(F.col("k").cast("string").alias("k"))
                 for frame in self.frames([self.dataset.id_column])]
        frame = parts[0]
        for part in parts[1:]:
            frame = frame.unionAll(part)
        repeated = frame.groupBy("k").count().where(F.col("count") > 1)
        table = self.collect(repeated.agg(F.sum(F.col("count") - 1).alias("extra"), F.first("k").alias("example")))
        extra = table.column("extra")[0].as_py() or 0
        return int(extra), table.column("example")[0].as_py()

    def close(self) -> None:
        """The session stays up for the next audit in this process (starting one takes seconds)."""
