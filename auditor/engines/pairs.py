"""When the pattern table is too large for memory: every pair's (gold, pred_a, pred_b) table instead.

The pattern table has up to one row per item (10⁸ rows and more when systems err independently).
What the analyses need is smaller: per-system confusion matrices and, for the paired tests, ranks
and P(win), each pair's table of at most k³ rows (:mod:`auditor.analyses.pairwise_resample`).
An engine computes all of them in one scan, ``GROUP BY GROUPING SETS ((gold, a, b), ...)``, and
this module turns its rows into :meth:`~auditor.io.counts.Counts.from_pairs` with the reading
rules of :mod:`auditor.engines.patterns` (labels as text, missing values refused with counts).

:func:`max_pattern_rows` decides when: past it the pattern table would need more than
:data:`MEMORY_SHARE` of the available memory (about ``64 + 6 (1 + S)`` bytes a row while it is
read, merged and hashed).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Callable, Sequence

import numpy as np

from auditor.engines.patterns import (
    ColumnTexts,
    EngineCounts,
    _digest,
    integers,
    label_order,
    refuse_missing,
)
from auditor.engines.source import Dataset
from auditor.errors import InputError
from auditor.io.counts import Counts
from auditor.io.source import Source

#: Share of the available memory the pattern table may take before the pairs' tables replace it.
MEMORY_SHARE = 0.25
#: What a source's hash covers in this route (audit.json ``sources.*.hash_of``).
HASH_OF = "each pair's (gold, pred_a, pred_b) table (labels, code rows and counts): the pattern table was too large"


def max_pattern_rows(columns: int, memory: int) -> int:
    """Most rows of a pattern table of ``columns`` label columns held within ``MEMORY_SHARE`` of ``memory``."""
    return int(MEMORY_SHARE * memory // (64 + 6 * columns))


def pair_list(S: int) -> list[tuple[int, int]]:
    """The pairs of systems (0-based, a < b), in the order of the grouping sets."""
    return list(combinations(range(S), 2))


def grouping_sql(S: int) -> tuple[str, str]:
    """``GROUPING SETS ((c0, ca, cb), ...)`` over columns ``c0`` (gold) and ``c1..cS`` and its GROUPING_ID."""
    sets = ", ".join(f"(c0, c{1 + a}, c{1 + b})" for a, b in pair_list(S))
    return f"GROUPING SETS ({sets})", "GROUPING_ID(" + ", ".join(f"c{i}" for i in range(S + 1)) + ")"


def grouping_id(S: int, a: int, b: int) -> int:
    """GROUPING_ID of pair (a, b)'s set: a bit per column not grouped, column c0 the most significant."""
    grouped = {0, 1 + a, 1 + b}
    return sum(1 << (S - column) for column in range(S + 1) if column not in grouped)


def _home(S: int, column: int) -> tuple[int, int]:
    """The pair whose rows count ``column``'s values once (gold and systems 0, 1: pair (0, 1))."""
    return (0, 1) if column <= 2 else (0, column - 1)


def build_pairs(batches: Any, dataset: Dataset, engine: str, labels: Sequence[str] | None = None,
                find_file: Callable[..., str | None] | None = None) -> EngineCounts:
    """Counts from an engine's grouping-set rows (columns ``c0..cS``, the grouping id ``g``, ``n``): an
    Arrow table or a stream of record batches.

    Raises
    ------
    InputError
        Missing or nested values (with their counts), over-long labels, one gold class, a label
        outside ``labels``, no rows.
    """
    columns = [ColumnTexts(name, dataset) for name in dataset.label_columns]
    S = len(dataset.systems)
    parts: list[list[np.ndarray]] = [[] for _ in range(len(columns) + 2)]
    for batch in (batches.to_batches() if hasattr(batches, "to_batches") else batches):  # a table or a stream
        for i, column in enumerate(columns):
            parts[i].append(column.encode(batch.column(i)))
        parts[-2].append(integers(batch.column(len(columns))).astype(np.int64))
        parts[-1].append(integers(batch.column(len(columns) + 1)).astype(np.int64))
    group, n = (np.concatenate(p) if p else np.zeros(0, np.int64) for p in parts[-2:])
    if not n.sum():
        raise InputError(f"{dataset.path}: no rows; expected a row per item")
    encoded = [(np.concatenate(part), column.texts) for part, column in zip(parts, columns)]
    used = []
    for column, ((indices, texts), name) in enumerate(zip(encoded, dataset.label_columns)):
        home = group == grouping_id(S, *_home(S, column))  # each item once
        refuse_missing(name, "a label", indices[home], texts, n[home], dataset, find_file)
        used.append(np.bincount(indices[home], minlength=len(texts)) > 0)
    order = label_order(dataset, [texts for _, texts in encoded], used, labels)
    position = {label: code for code, label in enumerate(order)}
    codes = [np.array([position.get(t, 0) for t in texts], dtype=np.int64)[indices] for indices, texts in encoded]
    tables = {}
    for a, b in pair_list(S):
        rows = group == grouping_id(S, a, b)
        tables[(a, b)] = (np.stack([codes[0][rows], codes[1 + a][rows], codes[1 + b][rows]], axis=1), n[rows])
    counts = Counts.from_pairs(order, dataset.systems, tables, labels is not None)
    return EngineCounts(counts, _sources(dataset, engine, order, counts), engine)


def _sources(dataset: Dataset, engine: str, order: list[str], counts: Counts) -> dict[str, Source]:
    """audit.json's ``sources``: each input's hash covers the pair tables it is part of."""
    S, n_items = len(dataset.systems), counts.n_items
    tables = {pair: counts.pair_patterns(*pair) for pair in pair_list(S)}

    def digest(pairs: list[tuple[int, int]]) -> str:
        return _digest(order, *[part.astype(np.int64) for pair in pairs for part in tables[pair]])
    hashes = {"gold": digest(pair_list(S))}
    for s, name in enumerate(dataset.systems):
        hashes[name] = digest([pair for pair in pair_list(S) if s in pair])
    counted = {"files": len(dataset.files), "format": dataset.format, "engine": engine, "hash_of": HASH_OF}
    columns = dict(zip(hashes, dataset.label_columns))
    if dataset.joined is not None:
        return {key: Source(file.path, hashes[key], n_items, counted={
            **counted, "files": 1, "format": file.format, "column": file.label_column, "id_column": file.id_column})
            for key, file in zip(hashes, dataset.joined)}
    return {key: Source(dataset.path, digest_, n_items, counted={**counted, "column": columns[key]})
            for key, digest_ in hashes.items()}
