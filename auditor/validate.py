"""Validate and align gold labels and system predictions into one label table.

Stage 2 of the pipeline (load -> **validate** -> count -> metrics -> analyse -> report
-> render). Every bad input the design lists is caught here or in :mod:`auditor.load`,
each with its own :class:`~auditor.errors.InputError` naming the file, the line or id,
what was expected and what was found.

Items are aligned by id (a system may list them in any order); by position only when
neither gold nor any system has ids. The work is vectorised: one dict from gold id to
position is built once, and a system in gold order costs one array comparison.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from typing import Iterable, Mapping, Sequence

import numpy as np

from .errors import InputError, UsageError
from .load import MISSING_LABELS, LabelColumn

__all__ = ["LabelTable", "align", "check_labels"]

_SHOW = 5  # how many offending ids a message names


@dataclass(frozen=True, eq=False)
class LabelTable:
    """Gold labels and every system's predictions, aligned item by item.

    Attributes
    ----------
    ids : str array (N,) of item ids in gold order, or None when aligned by line.
    gold : str array (N,) of gold labels.
    systems : system name -> str array (N,) of predictions, aligned to ``gold``.
    sources : ``"gold"`` and each system name -> ``{"path", "sha256", "n_items"}``.
    """

    ids: np.ndarray | None
    gold: np.ndarray
    systems: dict[str, np.ndarray]
    sources: dict[str, dict]

    @property
    def n_items(self) -> int:
        return int(self.gold.shape[0])


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _listing(values: Iterable[str], total: int) -> str:
    shown = ", ".join(repr(str(v)) for v in values)
    return shown + (f" and {total - _SHOW} more" if total > _SHOW else "")


def check_labels(column: LabelColumn, role: str = "") -> None:
    """Refuse empty or missing labels (``""``, ``nan``, ``null``, ``None``...).

    Raises
    ------
    InputError
        Naming the first offending line (or id) and how many there are.
    """
    if len(column) == 0:
        raise InputError(f"{column.source}: no items; expected {column.layout} per item")
    labels = column.labels
    missing = np.isin(labels, list(MISSING_LABELS)) | np.char.isspace(labels)
    if not missing.any():
        return
    bad = np.flatnonzero(missing)
    i = int(bad[0])
    found = str(labels[i])
    what = "empty label" if not found.strip() else f"missing label ({found!r})"
    at = column.where(i)
    if column.ids is not None and column.lines is not None:
        at += f" (id {str(column.ids[i])!r})"
    more = f" ({_plural(bad.size, 'item')} without a label)" if bad.size > 1 else ""
    raise InputError(f"{at}: {what}; every item needs {column.layout}{more}")


def _position(column: LabelColumn) -> tuple[dict[str, int], None] | tuple[None, tuple[int, int]]:
    """Dict id -> position, or the first duplicated id's two positions."""
    ids = column.ids.tolist()  # type: ignore[union-attr]
    index = dict(zip(ids, range(len(ids))))
    if len(index) == len(ids):
        return index, None
    seen: dict[str, int] = {}
    for i, item in enumerate(ids):
        if item in seen:
            return None, (seen[item], i)
        seen[item] = i
    raise AssertionError("unreachable")  # pragma: no cover


def _duplicate_error(column: LabelColumn, first: int, second: int) -> InputError:
    ids = column.ids
    assert ids is not None
    n_dup = len(ids) - len(set(ids.tolist()))
    item = str(ids[first])
    if column.lines is not None:
        unit = "row" if column.format == "parquet" else "line"
        where = f"{unit}s {column.lines[first]} and {column.lines[second]}"
    else:
        where = f"indexes {first} and {second}"
    more = f" ({_plural(n_dup, 'repeated id')} in all)" if n_dup > 1 else ""
    return InputError(
        f"{column.source}: duplicate id {item!r} on {where}; every id must appear once{more}"
    )


def _system_index(gold: LabelColumn, index: dict[str, int], system: LabelColumn) -> np.ndarray:
    """Position in ``system`` of each gold item, checking ids both ways."""
    g_ids, s_ids = gold.ids, system.ids
    assert g_ids is not None and s_ids is not None
    if s_ids.shape == g_ids.shape and np.array_equal(s_ids, g_ids):
        return np.arange(len(s_ids))
    n = len(g_ids)
    at = np.fromiter(map(index.get, s_ids.tolist(), repeat(-1)), dtype=np.int64,
                     count=len(s_ids))
    extra = np.flatnonzero(at < 0)
    if extra.size:
        shown = _listing(s_ids[extra[:_SHOW]], extra.size)
        first = system.where(int(extra[0]))
        raise InputError(
            f"{system.source}: {_plural(extra.size, 'id')} not in the gold file "
            f"{gold.source}: {shown} (first at {first}); expected the gold file's ids only"
        )
    hits = np.bincount(at, minlength=n)
    if (hits > 1).any():
        _, duplicate = _position(system)
        raise _duplicate_error(system, *duplicate)  # type: ignore[misc]
    absent = np.flatnonzero(hits == 0)
    if absent.size:
        shown = _listing(g_ids[absent[:_SHOW]], absent.size)
        raise InputError(
            f"{system.source}: {_plural(absent.size, 'gold id')} missing: {shown} "
            f"(first at {gold.where(int(absent[0]))}); expected a prediction for every id in "
            f"{gold.source} ({n} items, found {len(s_ids)})"
        )
    positions = np.empty(n, dtype=np.int64)
    positions[at] = np.arange(len(s_ids))
    return positions


def _named(systems: Mapping[str, LabelColumn] | Iterable[tuple[str, LabelColumn]]
           ) -> list[tuple[str, LabelColumn]]:
    pairs = list(systems.items()) if isinstance(systems, Mapping) else list(systems)
    seen: dict[str, LabelColumn] = {}
    for name, column in pairs:
        if not str(name).strip():
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
    labels : the allowed label set (``--labels``); default: any label.

    Returns
    -------
    LabelTable
        ``ids`` in gold order (None when aligned by line), gold and aligned predictions.

    Raises
    ------
    InputError
        Empty or missing labels, duplicate ids, ids missing from or extra in a system, a
        length mismatch without ids, ids in some inputs but not others, a single gold
        class, a label outside ``labels``, duplicate or reserved system names.
    UsageError
        If ``labels`` itself is empty or repeats a label.
    """
    pairs = _named(systems)
    if labels is not None:
        labels = [str(label) for label in labels]
        if not labels:
            raise UsageError("--labels is empty; expected a comma-separated list of labels")
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            raise UsageError(f"--labels repeats {', '.join(map(repr, repeated))}; "
                             f"expected each label once")
    check_labels(gold)
    for _, column in pairs:
        check_labels(column)

    by_id = gold.ids is not None
    for _, column in pairs:
        if (column.ids is not None) != by_id:
            with_ids, without = (gold, column) if by_id else (column, gold)
            raise InputError(
                f"{without.source} has no ids (one column of labels) but {with_ids.source} "
                f"has ids; give ids in every file (`id<TAB>label`) or in none (then items "
                f"are matched by line)"
            )

    aligned: dict[str, np.ndarray] = {}
    if by_id:
        index, duplicate = _position(gold)
        if duplicate is not None:
            raise _duplicate_error(gold, *duplicate)
        for name, column in pairs:
            aligned[name] = column.labels[_system_index(gold, index, column)]  # type: ignore[arg-type]
    else:
        n = len(gold)
        for name, column in pairs:
            if len(column) != n:
                raise InputError(
                    f"{column.source}: {_plural(len(column), 'item')} but {gold.source} has "
                    f"{n}; without ids items are matched by line, so every file needs one "
                    f"label per gold item"
                )
            aligned[name] = column.labels

    classes = np.unique(gold.labels)
    if classes.size < 2:
        raise InputError(
            f"{gold.source}: every one of the {len(gold)} gold items has the label "
            f"{str(classes[0])!r}; expected at least two gold classes (metrics such as "
            f"recall, kappa and MCC are undefined with one)"
        )
    if labels is not None:
        allowed = np.asarray(labels, dtype=str)
        for column in [gold] + [c for _, c in pairs]:
            outside = ~np.isin(column.labels, allowed)
            if outside.any():
                i = int(np.flatnonzero(outside)[0])
                others = sorted(set(column.labels[outside].tolist()))
                raise InputError(
                    f"{column.where(i)}: label {str(column.labels[i])!r} is not in --labels "
                    f"({', '.join(labels)})"
                    + (f"; also outside: {_listing(others[1:_SHOW + 1], len(others) - 1)}"
                       if len(others) > 1 else "")
                )

    sources = {"gold": _source(gold)}
    sources.update((name, _source(column)) for name, column in pairs)
    return LabelTable(ids=gold.ids if by_id else None, gold=gold.labels, systems=aligned,
                      sources=sources)


def _source(column: LabelColumn) -> dict:
    return {"path": column.source, "sha256": column.sha256, "n_items": len(column)}
