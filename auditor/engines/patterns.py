"""From an engine's GROUP BY to :class:`~auditor.io.counts.Counts`: one set of reading rules.

Every engine returns the same thing: an Arrow table of the distinct rows of the dataset's columns
(gold, systems[, slice]) with their count ``n``, values as the engine read them (text for CSV,
JSON text for JSON Lines, typed values for Parquet). This module turns each column's *distinct*
values into label texts with the rules of :mod:`auditor.io.load` (numbers written as ``1``, never
``1.0``; CSV fields trimmed of spaces and tabs; text never cast, so ``01`` stays ``01``), refuses
missing labels (:data:`~auditor.io.load.MISSING_LABELS`, nulls) with their counts, and builds the
counts. It works on k values per column and U distinct rows, never on the N items.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from auditor.engines.source import Dataset
from auditor.errors import InputError
from auditor.files import file_sha256
from auditor.io.column import MAX_LABEL_CHARS, MISSING_LABELS, scalar_text
from auditor.io.counts import Counts
from auditor.io.slices import SliceGroups
from auditor.io.source import Source
from auditor.io.validate import is_missing

#: Formats whose values are text fields (trimmed of spaces and tabs; an empty field is missing).
TEXT_FORMATS = ("csv", "tsv")
_TRIM = " \t"


@dataclass(frozen=True)
class EngineCounts:
    """What an engine produced: the counts, where they came from, and the slices' confusion.

    Attributes
    ----------
    counts : gold and systems' pattern table and confusion matrices.
    sources : audit.json's ``sources`` (path, column, files, format, engine, hash of the counts).
    engine : the engine that counted.
    groups : the slice column's groups (:class:`~auditor.io.slices.SliceGroups` holding the
        (gold, systems, slice) rows), or None without a slice column.
    """

    counts: Counts
    sources: dict[str, Source]
    engine: str
    groups: SliceGroups | None = None


def value_text(value: Any, fmt: str, raw_json: bool = False) -> str:
    """The label text of one distinct value, as :mod:`auditor.io.load` writes it.

    ``raw_json``: ``value`` is the JSON text of the value (DuckDB's and Spark's JSON columns).
    Raises TypeError for nested (list, object) values.
    """
    if raw_json and value is not None:
        value = json.loads(value)
    if value is None:
        return "" if fmt in TEXT_FORMATS else "null"
    if fmt in TEXT_FORMATS:
        return str(value).strip(_TRIM)
    if isinstance(value, dict):
        raise TypeError("a JSON object" if fmt == "jsonl" else "a struct")
    return scalar_text(value)


def _where(dataset: Dataset, column: str, texts: list[str], bad: Sequence[int],
           find_file: Callable[[str, Callable[[Any], bool]], str | None] | None) -> str:
    """``FILE: column 'NAME'`` for bad values of ``column``: its file (a glob's first file holding one)."""
    file, name, _ = dataset.origin(column)
    if dataset.joined is None and len(dataset.files) > 1 and find_file is not None:
        file = find_file(column, lambda text: text in {texts[b] for b in bad}) or dataset.path
    return f"{file}: column {name!r}"


def integers(array: Any) -> np.ndarray:
    """A null-free Arrow integer array as numpy, viewing its buffer (``to_numpy`` imports pandas, 0.5 s)."""
    dtype = np.dtype(f"int{array.type.bit_width}")
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


class ColumnTexts:
    """One column's label texts, built batch by batch: each batch's values -> codes into :attr:`texts`
    (one code per text, so raw values written alike, ``1`` and ``1.0``, share it)."""

    def __init__(self, name: str, dataset: Dataset):
        self.name, self.texts, self.position = name, [], {}
        self.file, self.original, self.format = dataset.origin(name)

    def encode(self, column: Any) -> np.ndarray:
        """Codes (uint32) of one batch's values: the distinct values' texts only are computed."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(column, pa.DictionaryArray) and not column.indices.null_count:
            encoded = column  # already codes into distinct values (DuckDB's compact group-by)
        else:
            if pa.types.is_dictionary(column.type):
                column = pc.cast(column, column.type.value_type)
            encoded = pc.dictionary_encode(column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column,
                                           null_encoding="encode")
        lookup = np.empty(len(encoded.dictionary), dtype=np.uint32)
        for index, value in enumerate(encoded.dictionary.to_pylist()):
            try:
                text = value_text(value, self.format, self.format == "jsonl")
            except TypeError as error:
                raise InputError(f"{self.file}: column {self.original!r}: a value is {error} (found "
                                 f"{str(value)[:60]!r}); every row needs one label") from None
            lookup[index] = self.position.setdefault(text, len(self.position))
            if lookup[index] == len(self.texts):
                self.texts.append(text)
        codes = lookup[integers(encoded.indices)]
        return codes.astype(np.uint16) if len(self.texts) < 1 << 16 else codes  # half the bytes of U rows


def refuse_missing(name: str, role: str, indices: np.ndarray, texts: list[str], n: np.ndarray, dataset: Dataset,
                   find_file: Callable[..., str | None] | None) -> None:
    """One error for the missing values of a column, with how many rows have each."""
    rows = np.bincount(indices, weights=n, minlength=len(texts))
    bad = [code for code, text in enumerate(texts) if rows[code] and is_missing(text)]
    if bad:
        kinds = Counter()
        for code in bad:
            text = texts[code]
            kinds["empty" if text == "" else repr(text) if text in MISSING_LABELS else "blank"] += int(rows[code])
        total = sum(kinds.values())
        commonest = sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
        shown = ", ".join(f"{kind} ×{count:,}" for kind, count in commonest)
        where = _where(dataset, name, texts, bad, find_file)
        raise InputError(f"{where}: {total:,} row{'s' if total != 1 else ''} without {role} "
                         f"({shown}); every row needs {role} (empty, NA, null, NaN... are refused, never made a class)")
    long = [code for code, text in enumerate(texts) if rows[code] and len(text) > MAX_LABEL_CHARS]
    if long:
        where = _where(dataset, name, texts, long, find_file)
        raise InputError(f"{where}: a value of {len(texts[long[0]]):,} characters; labels are at "
                         f"most {MAX_LABEL_CHARS:,} characters (is a text column read as labels?)")


def label_order(dataset: Dataset, texts: list[list[str]], used: list[np.ndarray], labels: Sequence[str] | None
                ) -> list[str]:
    """Sorted union of the labels used (as :func:`auditor.io.validate.align`), or ``labels`` checked."""
    seen = [[t for t, u in zip(column, present) if u] for column, present in zip(texts, used)]
    gold = sorted(set(seen[0]))
    if len(gold) < 2:
        file, original, _ = dataset.origin(dataset.gold)
        raise InputError(f"{file}: every gold item (column {original!r}) has the label "
                         f"{gold[0] if gold else ''!r}; expected at least two gold classes (metrics such as recall, "
                         f"kappa and MCC are undefined with one)")
    if labels is None:
        return sorted(set().union(*seen))
    position = set(labels)
    for name, column in zip(dataset.label_columns, seen):
        outside = sorted(t for t in set(column) if t not in position)
        if outside:
            file, original, _ = dataset.origin(name)
            raise InputError(f"{file}: column {original!r}: label {outside[0]!r} is not in --labels "
                             f"({', '.join(labels)})" + (f"; also outside: {', '.join(map(repr, outside[1:6]))}"
                                                         if len(outside) > 1 else ""))
    return list(labels)


def _digest(*parts: Any) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(np.ascontiguousarray(part).tobytes() if isinstance(part, np.ndarray) else
                      json.dumps(part, ensure_ascii=False).encode())
    return hasher.hexdigest()


class PatternTableTooLarge(Exception):
    """The engine's pattern table has more rows than fit this machine's memory (:func:`encode_batches`'s
    ``max_rows``): :func:`auditor.engines.count_dataset` then asks the engine for the pairs' tables."""


def encode_batches(table: Any, dataset: Dataset, max_rows: int | None = None,
                   names: Sequence[str] | None = None, integer_columns: int = 1
                   ) -> tuple[list[np.ndarray], list[tuple[np.ndarray, list[str]]]]:
    """The trailing ``integer_columns`` integer columns (row counts ``n`` last; each (U,)) and, per
    text column of ``names`` (default ``dataset.columns``), the codes (U,) into its texts, from an
    Arrow table or a stream of record batches (one pass: codes kept, values dropped). Raises
    :class:`PatternTableTooLarge` once more than ``max_rows`` rows came."""
    batches = table.to_batches() if hasattr(table, "to_batches") else table
    columns = [ColumnTexts(name, dataset) for name in (dataset.columns if names is None else names)]
    parts: list[list[np.ndarray]] = [[] for _ in range(len(columns) + integer_columns)]
    rows = 0
    for batch in batches:  # an engine's stream of record batches: one pass, codes kept, values dropped
        rows += batch.num_rows
        if max_rows is not None and rows > max_rows:
            if hasattr(batches, "close"):  # an engine's stream: its query is released before the next one
                batches.close()
            raise PatternTableTooLarge(f"more than {max_rows:,} distinct rows")
        for i, column in enumerate(columns):
            parts[i].append(column.encode(batch.column(i)))
        for i in range(len(columns), len(parts)):
            parts[i].append(integers(batch.column(i)).astype(np.int64))
    if not parts[-1] or not sum(map(np.sum, parts[-1])):
        raise InputError(f"{dataset.path}: no rows; expected a row per item")
    encoded = []
    for i, column in enumerate(columns):  # one column's parts joined and dropped at a time
        encoded.append((np.concatenate(parts[i]), column.texts))
        parts[i] = []
    return [np.concatenate(part) for part in parts[len(columns):]], encoded


def recode(order: Sequence[str], indices: np.ndarray, texts: Sequence[str], dtype: Any = np.int64) -> np.ndarray:
    """Codes into ``order`` (the labels' order) of a column encoded as ``indices`` into ``texts`` (0 for
    a text no row uses)."""
    position = {label: code for code, label in enumerate(order)}
    return np.array([position.get(t, 0) for t in texts], dtype=dtype)[indices]


def sources(dataset: Dataset, hashes: dict[str, str], n_items: int, counted: dict[str, Any]) -> dict[str, Source]:
    """audit.json's ``sources``, gold then each system: one file per input (its own path, format and columns)
    when the dataset joins files, else the dataset and each input's column. ``sha256`` is the file's as stored
    (the same hash a label file read in memory gets; for several files, the hash of their ``path:sha256``
    lines), the engine's hash of the counted table sits beside it as ``counted.pattern_sha256``."""
    if dataset.joined is not None:
        return {key: Source(file.path, file_sha256(file.path), n_items, counted={
            **counted, "pattern_sha256": hashes[key], "files": 1, "format": file.format,
            "column": file.label_column, "id_column": file.id_column})
            for key, file in zip(hashes, dataset.joined)}
    columns = dict(zip(hashes, dataset.label_columns))
    stored = _files_sha256(dataset.files)
    return {key: Source(dataset.path, stored, n_items, counted={**counted, "pattern_sha256": digest,
                                                                "column": columns[key]})
            for key, digest in hashes.items()}


def _files_sha256(files: Sequence[str]) -> str | None:
    """The SHA-256 of one file as stored; of several, of their ``path:sha256`` lines (None where one is not local)."""
    hashes = [file_sha256(path) for path in files]
    if len(hashes) == 1 or None in hashes:
        return hashes[0] if len(hashes) == 1 else None
    return hashlib.sha256("\n".join(f"{path}:{digest}" for path, digest in zip(files, hashes)).encode()).hexdigest()


def build(table: Any, dataset: Dataset, engine: str, labels: Sequence[str] | None = None,
          find_file: Callable[..., str | None] | None = None, max_rows: int | None = None) -> EngineCounts:
    """Counts from an engine's distinct rows ``table`` (columns ``dataset.columns`` then ``n``): an
    Arrow table or a stream of record batches (DuckDB's result, never materialised whole).

    Raises
    ------
    InputError
        Missing or nested values (with their counts), over-long labels, one gold class, a label
        outside ``labels``.
    PatternTableTooLarge
        More than ``max_rows`` distinct rows.
    """
    (n,), encoded = encode_batches(table, dataset, max_rows)
    for (indices, texts), name in zip(encoded, dataset.columns):
        role = "a slice" if name == dataset.slice_column else "a label"
        refuse_missing(name, role, indices, texts, n, dataset, find_file)
    label_part = encoded[:len(dataset.label_columns)]
    used = [np.bincount(indices, minlength=len(texts)) > 0 for indices, texts in label_part]
    order = label_order(dataset, [texts for _, texts in label_part], used, labels)
    small = np.uint8 if len(order) < 255 else np.uint16 if len(order) < 65535 else np.int64
    codes = np.stack([recode(order, indices, texts, small) for indices, texts in label_part], axis=1)
    counts = Counts.from_patterns(order, dataset.systems, codes, n, labels is not None)
    pattern_codes, pattern_counts = counts.patterns()
    pattern_codes = pattern_codes.astype(np.uint16 if len(order) < 1 << 16 else np.int64)  # hashed: fewer bytes
    n_items = counts.n_items
    counted = {"files": len(dataset.files), "format": dataset.format, "engine": engine,
               "hash_of": "the pattern table (labels, code rows and their counts)"}
    hashes = {"gold": _digest(order, pattern_codes, pattern_counts)}
    for s, name in enumerate(dataset.systems):
        hashes[name] = _digest(order, np.ascontiguousarray(pattern_codes[:, [0, 1 + s]]), pattern_counts)
    inputs = sources(dataset, hashes, n_items, counted)
    if dataset.slice_column is None:
        return EngineCounts(counts, inputs, engine)
    indices, texts = encoded[-1]
    present = np.bincount(indices, minlength=len(texts)) > 0
    groups = sorted({t for t, used in zip(texts, present) if used})
    group_of = np.array([groups.index(t) if t in groups else -1 for t in texts], dtype=np.int64)[indices]
    order_rows = np.lexsort((*codes.T[::-1], group_of))  # canonical: the same hash whatever the row order
    rows, group_of, n = codes[order_rows].T.copy(), group_of[order_rows], n[order_rows]
    source = Source(dataset.path, _digest(groups, rows, group_of, n), n_items,
                    counted={**counted, "column": dataset.slice_column})
    return EngineCounts(counts, inputs, engine, SliceGroups(tuple(groups), group_of, source, (rows, n)))
