"""Engines: the one pass over the items (a GROUP BY) done where the data lies.

Every analysis reads counts: the per-system confusion matrices and the pattern table (counts of
the (gold, pred_1, ..., pred_S[, slice]) rows). An engine computes exactly that for a
:class:`~auditor.engines.source.Dataset` and returns the distinct rows with their counts; the
reading rules (labels as text, missing values refused with counts) are applied to those distinct
values by :mod:`auditor.engines.patterns`, the same for every engine, so the counts, and every
figure after them, are identical whatever the engine.

- ``memory``: pyarrow reads the files and groups in this process (:mod:`auditor.engines.memory`);
- ``duckdb``: embedded DuckDB, out of core with ``--memory-limit`` and ``--temp-directory``
  (:mod:`auditor.engines.duckdb`);
- ``spark``: PySpark (``--spark-master``, default ``local[*]``), which collects only the counts
  (:mod:`auditor.engines.spark`; the extra ``auditor[spark]``, Java 17);
- ``auto``: ``duckdb`` when the files are large for this machine's memory (:func:`choose`), else
  ``memory``.
"""
from __future__ import annotations

import os
from typing import Any, Sequence

from auditor.engines.patterns import EngineCounts, PatternTableTooLarge, build, value_text
from auditor.engines.source import Dataset, is_uri, missing_ids_error, open_dataset, open_label_files
from auditor.errors import InputError, UsageError
from auditor.options import ENGINES

__all__ = ["ENGINES", "Dataset", "EngineCounts", "open_dataset", "open_label_files", "count_dataset", "choose"]


#: ``auto`` picks DuckDB when the files' bytes exceed this share of the available memory (an
#: in-memory read of CSV or JSON takes several times the file's size; Parquet expands more).
AUTO_SHARE = 0.1


def available_memory() -> int:
    """Bytes of memory available to this process (``MemAvailable``, else total physical memory)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8 << 30


def choose(dataset: Dataset, memory: int | None = None) -> str:
    """``auto``'s choice: ``spark`` for a URI (``hdfs://``...), ``duckdb`` when the files hold more
    than :data:`AUTO_SHARE` of the available memory, else ``memory``."""
    if is_uri(dataset.path):
        return "spark"
    memory = available_memory() if memory is None else memory
    return "duckdb" if dataset.size() > AUTO_SHARE * memory else "memory"


def make_engine(name: str, dataset: Dataset, memory_limit: str | None, temp_directory: str | None,
                spark_master: str | None) -> Any:
    """An engine object of ``name`` for ``dataset``."""
    if name == "memory":
        from auditor.engines.memory import MemoryEngine

        return MemoryEngine(dataset)
    if name == "duckdb":
        from auditor.engines.duckdb import DuckDBEngine

        return DuckDBEngine(dataset, memory_limit, temp_directory)
    if name == "spark":
        from auditor.engines.spark import SparkEngine

        return SparkEngine(dataset, spark_master or "local[*]", memory_limit, temp_directory)
    raise UsageError(f"unknown engine {name!r}; expected one of {', '.join(ENGINES)}")


def _finder(engine: Any, dataset: Dataset) -> Any:
    """``find_file(column, is_bad)``: the first file holding a value of ``column`` whose text is bad."""
    def find_file(column: str, is_bad: Any) -> str | None:
        for file, values in sorted(engine.file_values(column)):
            if any(is_bad(value_text(v, dataset.format, dataset.format == "jsonl")) for v in values):
                return file
        return None
    return find_file


def count_dataset(dataset: Dataset, engine: str = "auto", labels: Sequence[str] | None = None,
                  memory_limit: str | None = None, temp_directory: str | None = None,
                  spark_master: str | None = None) -> EngineCounts:
    """Count ``dataset`` with ``engine``: the counts, their sources and the slices' patterns.

    Raises
    ------
    InputError
        A file that cannot be read, missing labels (with counts), duplicate ids, one gold class, a
        label outside ``labels``.
    UsageError
        An unknown engine, settings the engine refuses, Java or PySpark missing for ``spark``.
    """
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    name = choose(dataset) if engine == "auto" else engine
    if is_uri(dataset.path) and name != "spark":
        raise UsageError(f"{dataset.path}: a URI is read by --engine spark only; the {name} engine reads local files")
    if dataset.joined is not None and name == "memory":
        raise UsageError("--engine memory reads one table (--dataset); GOLD and SYSTEM files are joined by id in "
                         "--engine duckdb or spark, or read by the default in-memory path")
    runner = make_engine(name, dataset, memory_limit, temp_directory, spark_master)
    try:
        if dataset.id_column:
            missing = runner.missing_ids()
            if missing:
                raise missing_ids_error(dataset.path, missing, dataset.id_column)
            repeated, example = runner.duplicate_ids()
            if repeated:
                raise InputError(f"{dataset.path}: duplicate id {example!r} in column {dataset.id_column!r} "
                                 f"({repeated:,} {'rows repeat' if repeated != 1 else 'row repeats'} an earlier "
                                 f"id); every id must appear once")
        limit = pattern_limit(dataset, name)
        if name == "spark":  # Spark counts the distinct rows before collecting them
            runner.max_rows, limit = limit, None
        try:
            try:
                return build(runner.patterns(), dataset, name, labels, _finder(runner, dataset), limit)
            except UsageError as error:  # DuckDB out of memory: group by packed integer codes instead
                if type(error).__name__ != "OutOfMemory" or getattr(runner, "compact", True) or dataset.joined:
                    raise
                runner.compact = True
                return build(runner.patterns(), dataset, name, labels, _finder(runner, dataset), limit)
        except PatternTableTooLarge:  # every pair's table instead (auditor.engines.pairs)
            from auditor.engines.pairs import build_pairs

            return build_pairs(runner.pair_patterns(), dataset, name, labels, _finder(runner, dataset))
    finally:
        runner.close()


def pattern_limit(dataset: Dataset, engine: str, memory: int | None = None) -> int | None:
    """Most pattern rows read before the pairs' tables replace the pattern table (DuckDB or Spark, two or
    more systems, no slice column: slices need the full table), else None
    (:func:`auditor.engines.pairs.max_pattern_rows`)."""
    if engine not in ("duckdb", "spark") or len(dataset.systems) < 2 or dataset.slice_column:
        return None
    from auditor.engines.pairs import max_pattern_rows

    return max_pattern_rows(len(dataset.label_columns), available_memory() if memory is None else memory)
