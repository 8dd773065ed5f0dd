"""Reading slices: one group per gold item (``--slices FILE``), aligned to the gold's items.

Read and align stages for the slices analysis (:mod:`auditor.analyses.slices`). A slices
file is read like a label file (:func:`auditor.io.load.read_groups`: the same formats and
rules, the value column named ``group`` or ``slice``); in-memory groups are a list or array
(by position) or a dict or pandas Series (by id). Every gold item needs exactly one group:
by id when the gold has ids, by line otherwise.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.io.source import Source
from auditor.errors import InputError
from auditor.io.load import LabelColumn, from_values, read_groups
from auditor.io.validate import is_missing

__all__ = ["SliceGroups", "read_slices", "align_groups", "slice_groups"]

_SHOW = 5


@dataclass(frozen=True)
class SliceGroups:
    """The group of every gold item: ``codes[n]`` indexes ``names`` (sorted; each used by an item)."""

    names: tuple[str, ...]
    codes: np.ndarray
    #: The slices' source for the JSON and the signature: path, sha256, n_items.
    source: Source
    #: Rows counted by an engine (:mod:`auditor.engines`): ``(codes (1 + S, V), counts (V,))`` of the
    #: (gold, systems) rows of the pattern table refined by slice; ``codes`` above is then each
    #: row's group (V,), not each item's. None when the items are known one by one.
    patterns: tuple[np.ndarray, np.ndarray] | None = None


def slice_groups(value: Any, gold_name: str, id_array: Any, n_items: int) -> SliceGroups:
    """Read (:func:`read_slices`) and align (:func:`align_groups`) the groups of the gold items,
    the group names sorted."""
    column = read_slices(value)
    codes = align_groups(column, gold_name, id_array, n_items)
    names = tuple(sorted(column.categories))
    order = np.array([names.index(c) for c in column.categories], dtype=np.int64)
    return SliceGroups(names, order[codes], Source(column.source, column.sha256, len(column)))


def align_groups(column: LabelColumn, gold_name: str, id_array: Any, n_items: int) -> np.ndarray:
    """Group code of every gold item (gold order), codes into ``column.categories``.

    By id when the gold has ids (every gold id exactly once; an id the gold lacks is refused
    too), by line otherwise (one group per gold line). ``gold_name`` names the gold file in
    messages; ``id_array`` is the gold ids (Arrow) or None.

    Raises
    ------
    InputError
        An empty or missing group, a duplicate id, a gold id without a group (the first one
        named), an id not in the gold, ids on one side only, or a length mismatch.
    """
    if len(column) == 0:
        raise InputError(f"{column.source}: no items; expected one group per gold item")
    bad = [code for code, text in enumerate(column.categories) if is_missing(text)]
    if bad:
        i = int(np.flatnonzero(np.isin(column.codes, bad))[0])
        raise InputError(f"{column.where(i)}: empty or missing group "
                         f"({column.categories[column.codes[i]]!r}); every gold item needs exactly one group")
    if (column.id_array is not None) != (id_array is not None):
        has, lacks = (column.source, gold_name) if column.id_array is not None else (gold_name, column.source)
        raise InputError(f"{lacks} has no ids but {has} has ids; give ids in both (`id<TAB>group`) or in "
                         f"neither (then groups are matched to gold items by line)")
    if id_array is None:
        if len(column) != n_items:
            raise InputError(f"{column.source}: {len(column)} groups but {gold_name} has {n_items} items; "
                             f"without ids groups are matched by line, so every gold item needs one line")
        return np.asarray(column.codes, dtype=np.int64)
    import pyarrow.compute as pc

    at = pc.index_in(column.id_array, value_set=id_array.combine_chunks() if hasattr(id_array, "combine_chunks")
                     else id_array).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    extra = np.flatnonzero(at < 0)
    if extra.size:
        shown = ", ".join(repr(v) for v in column.id_array.take(extra[:_SHOW]).to_pylist())
        raise InputError(f"{column.where(int(extra[0]))}: id {column.id_array[int(extra[0])].as_py()!r} is not in "
                         f"{gold_name} ({extra.size} such ids: {shown}{' ...' if extra.size > _SHOW else ''}); "
                         f"expected a group for the gold ids only")
    hits = np.bincount(at, minlength=n_items)
    if (hits > 1).any():
        item = int(np.flatnonzero(hits > 1)[0])
        rows = np.flatnonzero(at == item)[:2]
        raise InputError(f"{column.source}: id {id_array[item].as_py()!r} has more than one group "
                         f"({column.where(int(rows[0]))} and {column.where(int(rows[1]))}); every gold item needs "
                         f"exactly one group")
    absent = np.flatnonzero(hits == 0)
    if absent.size:
        first = id_array[int(absent[0])].as_py()
        raise InputError(f"{column.source}: no group for gold id {first!r} ({gold_name} item {int(absent[0]) + 1}; "
                         f"{absent.size} gold id{'s' if absent.size > 1 else ''} without a group); every gold item "
                         f"needs exactly one group")
    codes = np.empty(n_items, dtype=np.int64)
    codes[at] = np.asarray(column.codes, dtype=np.int64)
    return codes


def read_slices(value: Any) -> LabelColumn:
    """A slices file (path, :func:`auditor.io.load.read_groups`) or in-memory groups (a list or
    array by position, a dict or pandas Series by id)."""
    if isinstance(value, LabelColumn):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_groups(value)
    return from_values(value, "<slices>")
