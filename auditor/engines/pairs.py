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
    EngineCounts,
    _digest,
    encode_batches,
    label_order,
    recode,
    refuse_missing,
    sources,
)
from auditor.engines.source import Dataset
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
    S = len(dataset.systems)
    (group, n), encoded = encode_batches(batches, dataset, names=dataset.label_columns, integer_columns=2)
    used = []
    for column, ((indices, texts), name) in enumerate(zip(encoded, dataset.label_columns)):
        home = group == grouping_id(S, *_home(S, column))  # each item once
        refuse_missing(name, "a label", indices[home], texts, n[home], dataset, find_file)
        used.append(np.bincount(indices[home], minlength=len(texts)) > 0)
    order = label_order(dataset, [texts for _, texts in encoded], used, labels)
    codes = [recode(order, indices, texts) for indices, texts in encoded]
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
    return sources(dataset, hashes, n_items, counted)
