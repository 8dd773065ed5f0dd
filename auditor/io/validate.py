"""Validate and align gold labels and system predictions into one label table.

Align stage (read -> **align** -> count -> score -> analyse -> record -> build -> render).
Every bad input the design lists is caught here or in :mod:`auditor.io.load`, each with its
own :class:`~auditor.errors.InputError` naming the file, the line or id, what was expected and
what was found.

Items are aligned by id (a system may list them in any order); by position only when
neither gold nor any system has ids. The work is vectorised on label codes and Arrow id
arrays: a system in gold order costs one array comparison, another order one hash join
(``pyarrow.compute.index_in``); labels are never compared as strings per item.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from auditor.errors import InputError, UsageError
from auditor.io.column import MISSING_LABELS, LabelColumn
from auditor.io.source import Source

__all__ = ["LabelTable", "align", "item_positions", "check_labels", "check_given_labels", "single_class_error"]

_SHOW = 5  # how many offending ids a message names


@dataclass(frozen=True, eq=False)
class LabelTable:
    """Gold labels and every system's predictions, aligned item by item, as codes.

    Attributes
    ----------
    id_array : pyarrow string array (N,) of item ids in gold order, or None when aligned by
        line.
    labels : the label set in code order: ``--labels`` as given, else the sorted union of
        gold and predicted labels.
    gold_codes : int array (N,) of gold codes into ``labels``.
    system_codes : system name -> int array (N,) of predicted codes, aligned to the gold.
    sources : ``"gold"`` and each system name -> its :class:`~auditor.io.source.Source` (path,
        sha256, n_items, and for files the lines without an item by reason).
    labels_given : True when ``labels`` came from ``--labels``.
    """

    id_array: Any
    labels: tuple[str, ...]
    gold_codes: np.ndarray
    system_codes: dict[str, np.ndarray]
    sources: dict[str, Source]
    labels_given: bool = False

    @property
    def n_items(self) -> int:
        return int(self.gold_codes.shape[0])

    @cached_property
    def _names(self) -> np.ndarray:
        return np.asarray(self.labels, dtype=str)

    @cached_property
    def ids(self) -> np.ndarray | None:
        """str array (N,) of ids in gold order, or None."""
        if self.id_array is None:
            return None
        from auditor.io.column import strings as _strings

        return _strings(self.id_array.to_pylist())

    @cached_property
    def gold(self) -> np.ndarray:
        """str array (N,) of gold labels."""
        return self._names[self.gold_codes]

    @cached_property
    def systems(self) -> dict[str, np.ndarray]:
        """System name -> str array (N,) of predictions."""
        return {name: self._names[codes] for name, codes in self.system_codes.items()}

    def counts(self):
        """The :class:`~auditor.io.counts.Counts` of this table (one ``bincount`` per system)."""
        from auditor.io.counts import Counts, confusion_tensor

        names = tuple(self.system_codes)
        k = len(self.labels)
        rows = [self.system_codes[n] for n in names]
        base = rows[0].base if rows else None
        if base is not None and base.shape == (len(rows), self.n_items) and all(
                r.base is base for r in rows):
            predictions = base  # the matrix align() wrote
        else:
            predictions = (np.stack(rows) if rows
                           else np.zeros((0, self.n_items), dtype=np.int64))
        return Counts(labels=self.labels, systems=names, gold=self.gold_codes,
                      predictions=predictions,
                      confusion=(confusion_tensor(self.gold_codes, predictions, k) if names
                                 else np.zeros((0, k, k), dtype=np.int64)),
                      labels_given=self.labels_given)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _listing(values: Iterable[str], total: int) -> str:
    shown = ", ".join(repr(str(v)) for v in values)
    return shown + (f" and {total - _SHOW} more" if total > _SHOW else "")


def is_missing(text: str) -> bool:
    """A missing-value marker, or nothing but whitespace and control characters."""
    return text in MISSING_LABELS or all(c.isspace() or not c.isprintable() for c in text)


def check_labels(column: LabelColumn, role: str = "") -> None:
    """Refuse empty or missing labels (``""``, ``NA``, ``N/A``, ``-``, ``nan``, ``null``,
    ``None``..., see :data:`auditor.io.load.MISSING_LABELS`), labels of only whitespace or
    control characters, and empty ids.

    Raises
    ------
    InputError
        Naming the first offending line (or id) and how many there are.
    """
    if len(column) == 0:
        raise InputError(f"{column.source}: no items; expected {column.layout} per item")
    bad_codes = [code for code, text in enumerate(column.categories) if is_missing(text)]
    if bad_codes:
        missing = np.isin(column.codes, bad_codes)
        bad = np.flatnonzero(missing)
        i = int(bad[0])
        found = column.categories[column.codes[i]]
        what = ("empty label" if not found else f"missing label ({found!r})"
                if found in MISSING_LABELS
                else f"label of only whitespace or control characters ({found!r})")
        at = column.where(i)
        if column.id_array is not None and column.lines is not None:
            at += f" (id {column.id_array[i].as_py()!r})"
        more = f" ({_plural(bad.size, 'item')} without a label)" if bad.size > 1 else ""
        raise InputError(f"{at}: {what}; every item needs {column.layout}{more}")
    if column.id_array is not None:
        import pyarrow.compute as pc

        lengths = pc.binary_length(column.id_array)
        if pc.min(lengths).as_py() == 0:
            i = int(np.flatnonzero(lengths.to_numpy() == 0)[0])
            raise InputError(f"{column.where(i)}: empty id; every item needs {column.layout}")


def single_class_error(source: str, n_items: int, only: str) -> InputError:
    """The one words for gold items of a single class, from label files and confusion matrices alike."""
    return InputError(
        f"{source}: every one of the {n_items:,} gold items has the label {only!r}; expected at least two gold "
        f"classes (metrics such as recall, kappa and MCC are undefined with one)")


def check_given_labels(labels: Sequence[Any]) -> list[str]:
    """``--labels`` (or ``labels=``) as texts, refused when empty, repeated or holding a missing
    value (``None``, ``""``, ``NA``...: the rules of :func:`check_labels`, which a phantom class
    would otherwise slip past, lowering every macro average)."""
    texts = [str(label) for label in labels]
    if not texts:
        raise UsageError("--labels is empty; expected a comma-separated list of labels")
    missing = [i for i, (label, text) in enumerate(zip(labels, texts)) if label is None or is_missing(text)]
    if missing:
        i = missing[0]
        found = "an empty label" if texts[i] == "" else f"a missing value ({texts[i]!r})"
        raise UsageError(f"--labels entry {i + 1} is {found}; every label must be a name (missing-value markers "
                         f"such as '', NA, None, nan are not labels)")
    repeated = sorted({label for label in texts if texts.count(label) > 1})
    if repeated:
        raise UsageError(f"--labels repeats {', '.join(map(repr, repeated))}; expected each label once")
    return texts


def _duplicate_error(column: LabelColumn) -> InputError:
    ids = column.id_array.to_pylist()
    seen: dict[str, int] = {}
    first = second = -1
    for i, item in enumerate(ids):
        if item in seen:
            first, second = seen[item], i
            break
        seen[item] = i
    n_dup = len(ids) - len(set(ids))
    item = ids[first]
    if column.lines is not None:
        unit = "row" if column.format == "parquet" else "line"
        where = f"{unit}s {column.lines[first]} and {column.lines[second]}"
    else:
        where = f"indexes {first} and {second}"
    more = f" ({_plural(n_dup, 'repeated id')} in all)" if n_dup > 1 else ""
    return InputError(
        f"{column.source}: duplicate id {item!r} on {where}; every id must appear once{more}"
    )


def _unique_ids(column: LabelColumn) -> bool:
    """Whether every id of ``column`` differs: ids that are one prefix and then strictly increasing integers
    (``1, 2, 3``; ``item0, item1``; ``2018-En-01559``...: equal texts read as equal numbers, so none repeats)
    without a hash of every text; else by hashing."""
    import pyarrow.compute as pc

    ids = column.id_array
    if len(ids) > 1 and not ids.null_count:
        values = _id_numbers(ids)
        if values is not None and bool((values[1:] > values[:-1]).all()):
            return True
    return len(pc.unique(ids)) == len(column)


def _id_numbers(ids: Any) -> np.ndarray | None:
    """The integer after the first id's prefix (its text up to its last non-digit) in every id, or None when an
    id lacks that prefix or the rest is not an integer."""
    import pyarrow as pa
    import pyarrow.compute as pc

    first = ids[0].as_py()
    prefix = first.rstrip("0123456789")
    if len(prefix) == len(first):
        return None
    if prefix:
        if not pc.all(pc.starts_with(ids, prefix)).as_py():
            return None
        ids = pc.utf8_slice_codeunits(ids, len(prefix))
    try:
        numbers = pc.cast(ids, pa.int64()).combine_chunks()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    # a view of the buffer (to_numpy on chunks would import pandas)
    return np.frombuffer(numbers.buffers()[1], dtype=np.int64, count=len(numbers), offset=numbers.offset * 8)


def _system_index(gold: LabelColumn, system: LabelColumn) -> np.ndarray | None:
    """Position in ``system`` of each gold item (None: the same order), checking ids both
    ways with one hash join."""
    import pyarrow.compute as pc

    g_ids, s_ids = gold.id_array, system.id_array
    if len(s_ids) == len(g_ids) and s_ids.equals(g_ids):
        return None
    n = len(g_ids)
    at = pc.index_in(s_ids, value_set=g_ids.combine_chunks()).fill_null(-1).to_numpy(
        zero_copy_only=False).astype(np.int64)
    extra = np.flatnonzero(at < 0)
    if extra.size:
        shown = _listing(s_ids.take(extra[:_SHOW]).to_pylist(), extra.size)
        first = system.where(int(extra[0]))
        raise InputError(
            f"{system.source}: {_plural(extra.size, 'id')} not in the gold file "
            f"{gold.source}: {shown} (first at {first}); expected the gold file's ids only"
        )
    hits = np.bincount(at, minlength=n)
    if (hits > 1).any():
        raise _duplicate_error(system)
    absent = np.flatnonzero(hits == 0)
    if absent.size:
        shown = _listing(g_ids.take(absent[:_SHOW]).to_pylist(), absent.size)
        raise InputError(
            f"{system.source}: {_plural(absent.size, 'gold id')} missing: {shown} "
            f"(first at {gold.where(int(absent[0]))}); expected a prediction for every id in "
            f"{gold.source} ({n} items, found {len(s_ids)})"
        )
    positions = np.empty(n, dtype=np.int64)
    positions[at] = np.arange(len(s_ids))
    return positions


def _named(systems: Any) -> list[tuple[str, LabelColumn]]:
    if isinstance(systems, Mapping):
        pairs = list(systems.items())
    elif isinstance(systems, (list, tuple)) and all(
            isinstance(p, tuple) and len(p) == 2 for p in systems):
        pairs = list(systems)
    else:
        raise InputError(f"systems: expected a mapping of system name to predictions, e.g. "
                         f"{{'A': [...]}}; found {type(systems).__name__}")
    seen: dict[str, LabelColumn] = {}
    for name, column in pairs:
        if not isinstance(name, str):
            raise InputError(f"system name {name!r}: expected a string, found "
                             f"{type(name).__name__}")
        if not name.strip():
            raise InputError(f"{column.source}: empty system name; expected NAME=PATH")
        if name == "gold":
            raise InputError(
                f"{column.source}: the system name 'gold' is reserved for the gold labels; "
                f"name it with NAME=PATH"
            )
        if name in seen:
            raise InputError(
                f"duplicate system name {name!r} ({seen[name].source} and {column.source}); "
                f"every system needs its own name: use NAME=PATH"
            )
        seen[name] = column
    return pairs


def align(
    gold: LabelColumn,
    systems: Mapping[str, LabelColumn] | Iterable[tuple[str, LabelColumn]],
    labels: Sequence[str] | None = None,
) -> LabelTable:
    """Check gold and systems and align every system's predictions to the gold items.

    Parameters
    ----------
    gold : the gold labels.
    systems : name -> predictions, or a sequence of ``(name, predictions)`` pairs (which
        lets duplicate names be reported rather than silently merged).
    labels : the allowed label set and order (``--labels``); default: the sorted union of
        gold and predicted labels.

    Returns
    -------
    LabelTable
        ``id_array`` in gold order (None when aligned by line), gold and aligned codes.

    Raises
    ------
    InputError
        Empty or missing labels, empty or duplicate ids, ids missing from or extra in a
        system, a length mismatch without ids, ids in some inputs but not others, a single
        gold class, a label outside ``labels``, duplicate or reserved system names.
    UsageError
        If ``labels`` itself is empty or repeats a label.
    """
    pairs = _named(systems)
    if labels is not None:
        labels = check_given_labels(labels)
    check_labels(gold)
    for _, column in pairs:
        check_labels(column)
    by_id = gold.id_array is not None
    positions = item_positions(gold, pairs)
    gold_present = np.bincount(gold.codes, minlength=len(gold.categories)) > 0
    if gold_present.sum() < 2:
        raise single_class_error(gold.source, len(gold), gold.categories[int(np.flatnonzero(gold_present)[0])])
    order = _label_order([gold] + [c for _, c in pairs], labels)
    gold_codes, aligned = _codes(gold, pairs, positions, order)
    sources = {"gold": _source(gold)}
    sources.update((name, _source(column)) for name, column in pairs)
    return LabelTable(id_array=gold.id_array if by_id else None, labels=tuple(order),
                      gold_codes=gold_codes, system_codes=aligned, sources=sources,
                      labels_given=labels is not None)


def _codes(gold: LabelColumn, pairs: list[tuple[str, LabelColumn]], positions: dict[str, np.ndarray | None],
           order: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Gold codes and each system's codes in gold item order, into ``order``, in the narrowest integer
    type that holds them (:func:`~auditor.io.counts.code_dtype`: int8 up to 127 labels)."""
    from auditor.io.counts import code_dtype

    position = {label: code for code, label in enumerate(order)}
    dtype = code_dtype(len(order))

    def lookup(column: LabelColumn) -> np.ndarray:
        return np.fromiter((position[t] for t in column.categories), dtype=dtype, count=len(column.categories))

    # One (S, N) matrix written row by row: the counts use it as it is, without a copy.
    matrix = np.empty((len(pairs), len(gold)), dtype=dtype)
    aligned: dict[str, np.ndarray] = {}
    for row, (name, column) in enumerate(pairs):
        where = positions[name]
        # mode="clip": dictionary codes are in range; "raise" (the default) buffers ``out``, ~5x slower
        np.take(lookup(column), column.codes if where is None else column.codes[where], out=matrix[row], mode="clip")
        aligned[name] = matrix[row]
    return lookup(gold)[gold.codes], aligned


def item_positions(gold: LabelColumn, pairs: list[tuple[str, LabelColumn]]) -> dict[str, np.ndarray | None]:
    """Per system, the position of each gold item in it (None: the same order), by id or by line;
    ids in some inputs but not others, duplicate ids and length mismatches refused."""
    by_id = gold.id_array is not None
    for _, column in pairs:
        if (column.id_array is not None) != by_id:
            with_ids, without = (gold, column) if by_id else (column, gold)
            raise InputError(
                f"{without.source} has no ids (one column of labels) but {with_ids.source} "
                f"has ids; give ids in every file (`id<TAB>label`) or in none (then items "
                f"are matched by line)"
            )
    positions: dict[str, np.ndarray | None] = {}
    if by_id:
        if not _unique_ids(gold):
            raise _duplicate_error(gold)
        for name, column in pairs:
            positions[name] = _system_index(gold, column)
        return positions
    n = len(gold)
    for name, column in pairs:
        if len(column) != n:
            raise InputError(
                f"{column.source}: {_plural(len(column), 'item')} but {gold.source} has "
                f"{n}; without ids items are matched by line, so every file needs one "
                f"label per gold item"
            )
        positions[name] = None
    return positions


def _label_order(columns: list[LabelColumn], labels: list[str] | None) -> list[str]:
    """``--labels`` as given (every label used must be in it), else the sorted union of the labels used."""
    if labels is None:
        return sorted(set().union(*(c.categories for c in columns)))
    position = set(labels)
    for column in columns:
        outside = [code for code, text in enumerate(column.categories) if text not in position]
        if outside:
            hit = np.isin(column.codes, outside)
            i = int(np.flatnonzero(hit)[0])
            first = column.categories[column.codes[i]]
            others = sorted(column.categories[c] for c in outside if column.categories[c] != first)
            raise InputError(
                f"{column.where(i)}: label {first!r} is not in --labels "
                f"({', '.join(labels)})"
                + (f"; also outside: {_listing(others[:_SHOW], len(others))}" if others else "")
            )
    return list(labels)


def _source(column: LabelColumn) -> Source:
    return Source(column.source, column.sha256, len(column),
                  skipped_lines=None if column.lines is None else dict(column.skipped))
