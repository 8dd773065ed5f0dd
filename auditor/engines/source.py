"""What a ``--dataset`` is: its files, their format and their columns, checked before any engine runs.

A dataset is one table (Parquet, CSV, TSV or JSON Lines) given as a file, a glob or a directory of
Parquet files, with one column of gold labels and one per system (``--gold-column``,
``--system-columns``; optionally ``--id-column`` and ``--slice-column``). Every file must hold the
same columns, each named once (names that differ only in case are one name to SQL engines, refused
in every engine); Parquet files may type a column differently (each part is read with its own types,
labels are text): the checks here read only headers and schemas (never the rows), so a missing column,
a glob matching nothing or files whose schemas differ are refused before the group-by starts, with
the same message whatever the engine.

CSV and TSV files need a header on their first line (the column names); every field is read as
text. JSON Lines hold one object per line; the first object's keys are the columns.
"""
from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from auditor.errors import InputError, UsageError

#: File extension -> format of a dataset file.
FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl",
           ".ndjson": "jsonl"}
_EXPECTED = "Parquet (.parquet), CSV (.csv), TSV (.tsv) or JSON Lines (.jsonl, .ndjson)"


@dataclass(frozen=True)
class Dataset:
    """One table with a gold column and a column per system.

    Attributes
    ----------
    path : the path, glob or directory as the user gave it (named in messages).
    files : the files it matches, sorted.
    format : ``"parquet"``, ``"csv"``, ``"tsv"`` or ``"jsonl"``.
    gold, systems : the gold column and the system columns (the systems' names).
    id_column, slice_column : optional columns (ids are checked to be unique; slices group items).
    joined : for separate GOLD and SYSTEM files joined by id (:func:`open_label_files`): each
        file, gold first, in the order of ``label_columns``; None for one table.
    parts : Parquet files whose read columns' types differ, grouped by those types (None when every
        file has the same): each engine reads a part with its own types and turns values into label
        text before parts meet, so ``2.5`` in a float file is never cast to an integer file's type.
    """

    path: str
    files: tuple[str, ...]
    format: str
    gold: str
    systems: tuple[str, ...]
    id_column: str | None = None
    slice_column: str | None = None
    joined: tuple[LabelFile, ...] | None = None
    parts: tuple[tuple[str, ...], ...] | None = None

    @property
    def groups(self) -> tuple[tuple[str, ...], ...]:
        """The files in groups read together (one group unless :attr:`parts`)."""
        return self.parts or (self.files,)

    def origin(self, column: str) -> tuple[str, str, str]:
        """(file to name in messages, the column's name in it, its format) of one of :attr:`columns`."""
        if self.joined is not None:
            file = self.joined[self.label_columns.index(column)]
            return file.path, file.label_column, file.format
        return (self.files[0] if len(self.files) == 1 else self.path), column, self.format

    @property
    def label_columns(self) -> tuple[str, ...]:
        """Gold then the systems: the columns read as labels."""
        return (self.gold, *self.systems)

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the audit reads, in pattern order: gold, systems, then the slice."""
        return self.label_columns + ((self.slice_column,) if self.slice_column else ())

    def size(self) -> int:
        """Bytes of all its files (0 for a URI, :func:`is_uri`)."""
        return sum(os.path.getsize(file) for file in self.files if not is_uri(file))


@dataclass(frozen=True)
class LabelFile:
    """One GOLD or SYSTEM file read by an engine: its format and its id and label columns."""

    path: str
    format: str
    id_column: str
    label_column: str


def open_label_files(gold: str, systems: Mapping[str, str]) -> Dataset:
    """GOLD and SYSTEM files to be joined by id in an engine, as one :class:`Dataset` (``joined``).

    Each file needs a header (or schema, or JSON keys) naming an id and a label column, chosen by
    the names :mod:`auditor.io.load` knows (``id``, ``item_id``...; ``label``, ``prediction``...).

    Raises
    ------
    InputError
        An unknown format, a file without a header naming an id and a label column.
    """
    from auditor.io.names import choose_columns

    files = []
    for path in [gold, *systems.values()]:
        kind = file_format(resolve_files(path) if os.path.exists(path) else (path,), path)
        if not os.path.isfile(path):
            raise InputError(f"{path}: no such file")
        names = header(path, kind)
        check_names(names, path)
        hint = ("; an engine joins files by id and reads a header naming the id and label columns (--engine memory "
                "also reads files without a header or ids)")
        try:
            id_index, label_index = choose_columns(names, path, "columns", None)
        except InputError as error:
            raise InputError(f"{error}{hint}") from None
        if id_index is None:
            raise InputError(f"{path}: no id column; found columns {', '.join(map(repr, names))}{hint}")
        files.append(LabelFile(path, kind, names[id_index], names[label_index]))
    return Dataset(gold, tuple(f.path for f in files), files[0].format, "<gold>", tuple(systems), None, None,
                   tuple(files))


#: Where a native message's explanation ends: DuckDB's fixes and query, Spark's plan and the JVM's stack.
_MESSAGE_END = ("Possible", "LINE ", "JVM stacktrace", "at ", "*", "Traceback", "+-", "'")


def one_line(error: Exception) -> str:
    """A native error's explanation on one line (DuckDB and Spark add fixes, the query, the plan, the JVM's
    stack: dropped), at most 300 characters."""
    kept: list[str] = []
    for line in str(error).splitlines():
        line = line.strip().lstrip(": ")
        if not line or line.startswith(_MESSAGE_END):
            if kept:
                break
            continue
        if not line.startswith("An error occurred while calling"):  # Py4J's wrapper line
            kept.append(line)
    text = "; ".join(kept) or type(error).__name__
    return text if len(text) <= 300 else text[:299] + "…"


def missing_ids_error(where: str, missing: int, column: str) -> InputError:
    """The one message for rows without an id (null, or empty text), whatever the engine."""
    return InputError(f"{where}: {missing:,} {'rows have' if missing != 1 else 'row has'} no id in column {column!r} "
                      f"(null or empty); every row needs one")


def is_uri(path: str) -> bool:
    """True for a URI with a scheme (``hdfs://``, ``s3a://``, ``file://``): data only Spark reads."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]+://", path) is not None


def resolve_files(path: str) -> tuple[str, ...]:
    """The files of ``path``: a file, a directory (its Parquet files) or a glob (``**`` allowed)."""
    if os.path.isdir(path):
        files = sorted(str(p) for p in Path(path).rglob("*") if p.is_file() and p.suffix.lower() in (".parquet", ".pq"))
        if not files:
            raise InputError(f"{path}: a directory without Parquet files; expected *.parquet files (or give a glob "
                             f"or a file: {_EXPECTED})")
        return tuple(files)
    if os.path.isfile(path):
        return (path,)
    if glob.has_magic(path):
        files = sorted(p for p in glob.glob(path, recursive=True) if os.path.isfile(p))
        if not files:
            raise InputError(f"{path}: the glob matches no file; expected at least one {_EXPECTED} file")
        return tuple(files)
    raise InputError(f"{path}: no such file, directory or glob match")


def file_format(files: Sequence[str], path: str) -> str:
    """The one format of ``files`` (by extension); mixed or unknown extensions are refused."""
    kinds = {}
    for file in files:
        kind = FORMATS.get(Path(file).suffix.lower())
        if kind is None:
            raise InputError(f"{file}: unknown dataset format ({Path(file).suffix or 'no extension'}); "
                             f"expected {_EXPECTED}")
        kinds.setdefault(kind, file)
    if len(kinds) > 1:
        shown = ", ".join(f"{kind} ({file})" for kind, file in kinds.items())
        raise InputError(f"{path}: files of different formats ({shown}); expected one format")
    return next(iter(kinds))


def header(file: str, kind: str) -> list[str]:
    """Column names of one file, from its schema or first line (the rows are not read)."""
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            return list(pq.read_schema(file).names)
        except Exception as error:  # pyarrow raises several types for corrupt files
            raise InputError(f"{file}: cannot read as Parquet ({error})") from None
    with open(file, "rb") as handle:
        first = handle.readline()
    try:
        text = first.decode("utf-8").removeprefix("\ufeff").rstrip("\r\n")
    except UnicodeDecodeError:
        raise InputError(f"{file} line 1: not UTF-8 text; expected UTF-8") from None
    if not text.strip():
        raise InputError(f"{file} line 1: empty; expected a header naming the columns" if kind != "jsonl"
                         else f"{file} line 1: empty; expected a JSON object per line")
    if kind == "jsonl":
        try:
            record = json.loads(text)
        except ValueError as error:
            raise InputError(f"{file} line 1: invalid JSON ({error}); expected a JSON object per line") from None
        if not isinstance(record, dict):
            raise InputError(f"{file} line 1: a JSON {type(record).__name__}; expected a JSON object per line")
        return list(record)
    import csv

    return [field for field in next(csv.reader([text], delimiter="\t" if kind == "tsv" else ","))]


def check_names(names: Sequence[str], file: str) -> None:
    """One column per name: a name twice, or two names that differ only in case (DuckDB and Spark match
    column names ignoring case), are refused the same way whatever the engine."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(name.casefold(), name)
        if other == name and names.count(name) > 1:
            raise InputError(f"{file}: column {name!r} appears {names.count(name)} times in the header; expected "
                             f"each column once (rename the others)")
        if other != name:
            raise InputError(f"{file}: columns {other!r} and {name!r} differ only in case; SQL engines (DuckDB, "
                             f"Spark) do not tell them apart, so every engine refuses them: rename one")


def column_types(file: str, columns: Sequence[str]) -> tuple[str, ...]:
    """The Parquet types of ``columns`` in ``file`` (its schema only)."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(file)
    return tuple(str(schema.field(column).type) for column in columns)


def _parts(files: Sequence[str], kind: str, columns: Sequence[str]) -> tuple[tuple[str, ...], ...] | None:
    """Parquet files grouped by the types of ``columns`` (:attr:`Dataset.parts`), or None when they agree."""
    if kind != "parquet" or len(files) < 2:
        return None
    types = [column_types(file, columns) for file in files]
    if len(set(types)) == 1:
        return None
    return tuple(tuple(f for f, t in zip(files, types) if t == key) for key in dict.fromkeys(types))


def open_dataset(path: str, gold: str, systems: Sequence[str], id_column: str | None = None,
                 slice_column: str | None = None) -> Dataset:
    """Resolve ``path`` and check that every file has the same columns, among them every one named.

    Raises
    ------
    InputError
        No file matches, an unknown or mixed format, a file whose columns differ from the first
        file's, or a named column that the files lack.
    UsageError
        No system column, or a column named twice.
    """
    systems = tuple(systems)
    if not systems:
        raise UsageError("--system-columns is empty; expected one column per system, e.g. --system-columns a,b,c")
    named = [gold, *systems] + [c for c in (id_column, slice_column) if c]
    repeated = sorted({c for c in named if named.count(c) > 1})
    if repeated:
        raise UsageError(f"column {', '.join(map(repr, repeated))} is named twice among --gold-column, "
                         f"--system-columns, --id-column and --slice-column; expected each once")
    if is_uri(path):  # data on a cluster (hdfs://, s3a://, file://...): read by Spark, which checks the columns
        kind = FORMATS.get(Path(path).suffix.lower(), "parquet")  # a directory or glob of Parquet files
        return Dataset(path, (path,), kind, gold, systems, id_column, slice_column)
    files = resolve_files(path)
    kind = file_format(files, path)
    first = header(files[0], kind)
    check_names(first, files[0])
    for file in files[1:]:
        other = header(file, kind)
        if other != first:
            lacking = [c for c in first if c not in other]
            extra = [c for c in other if c not in first]
            detail = (f"; {file} lacks {', '.join(map(repr, lacking))}" if lacking else "") + \
                     (f"; {file} adds {', '.join(map(repr, extra))}" if extra else "") or "; in another order"
            raise InputError(f"{path}: the files' columns differ: {files[0]} has {', '.join(map(repr, first))} but "
                             f"{file} has {', '.join(map(repr, other))}{detail}; "
                             f"expected the same columns in every file")
    missing = [c for c in named if c not in first]
    if missing:
        raise InputError(f"{files[0]}: no column {', '.join(map(repr, missing))}; found columns "
                         f"{', '.join(map(repr, first))}")
    return Dataset(path, files, kind, gold, systems, id_column, slice_column, None, _parts(files, kind, named))
