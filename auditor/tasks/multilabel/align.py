"""Gold and systems' label sets on one item order and one label order (:class:`Aligned`).

Items are matched by id (or by line when no file has ids: :func:`auditor.io.validate.item_positions`, which
refuses an item missing from a system, an extra one and a repeated id). Labels: ``--labels`` in its order
(a label of a file outside it is refused), else the sorted union of every file's labels. With a label map
(``label -> group``) each set becomes the set of its labels' groups, and the audit runs at the group level.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from auditor.errors import InputError
from auditor.io.validate import item_positions
from auditor.tasks.multilabel.sets import SetFile


@dataclass(frozen=True, eq=False)
class Aligned:
    """``gold[n, l]`` and ``systems[s, n, l]`` (bool) for gold item n and label ``labels[l]``."""

    names: tuple[str, ...]
    labels: tuple[str, ...]
    gold: np.ndarray
    systems: np.ndarray

    @property
    def n_items(self) -> int:
        return int(self.gold.shape[0])


def _first_item_with(file: SetFile, label: str) -> str:
    item = int(np.flatnonzero(file.bits[:, file.labels.index(label)])[0])
    return file.column.where(item)


def label_order(files: Sequence[SetFile], given: Sequence[str] | None) -> tuple[str, ...]:
    """``given`` (every label used must be in it), else the sorted union of the files' labels."""
    if given is None:
        return tuple(sorted(set().union(*(file.labels for file in files))))
    allowed = set(given)
    for file in files:
        outside = [label for label in file.labels if label not in allowed and file.bits[:, file.labels.index(label)].any()]
        if outside:
            raise InputError(f"{_first_item_with(file, outside[0])}: label {outside[0]!r} is not in --labels "
                             f"({', '.join(given)}); expected only the labels given")
    return tuple(given)


def _columns(file: SetFile, labels: Sequence[str]) -> np.ndarray:
    """``file.bits`` on ``labels`` (labels the file never uses are all False)."""
    index = {label: i for i, label in enumerate(labels)}
    out = np.zeros((len(file), len(labels)), dtype=bool)
    used = [(index[label], i) for i, label in enumerate(file.labels) if label in index]
    if used:
        target, source = map(list, zip(*used))
        out[:, target] = file.bits[:, source]
    return out


def grouped(bits: np.ndarray, labels: Sequence[str], label_map: Mapping[str, str], where: str
            ) -> tuple[np.ndarray, tuple[str, ...]]:
    """Sets of labels -> sets of their groups (a group is in an item's set when one of its labels is)."""
    missing = [label for label in labels if label not in label_map]
    if missing:
        raise InputError(f"{where}: no group for label {missing[0]!r}"
                         + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
                         + "; expected a line `label<TAB>group` for every label of the files")
    groups = tuple(dict.fromkeys(label_map[label] for label in labels))
    member = np.zeros((len(labels), len(groups)), dtype=np.uint8)
    member[np.arange(len(labels)), [groups.index(label_map[label]) for label in labels]] = 1
    return (bits.reshape(-1, len(labels)).view(np.uint8) @ member > 0).reshape(*bits.shape[:-1], len(groups)), \
        groups


def align(gold: SetFile, systems: Mapping[str, SetFile], labels: Sequence[str] | None = None,
          label_map: Mapping[str, str] | None = None, map_source: str = "--label-map") -> Aligned:
    """Every system's sets in gold's item order, on one label order (see the module docstring)."""
    positions = item_positions(gold.column, [(name, file.column) for name, file in systems.items()])
    order = label_order([gold, *systems.values()], labels)
    gold_bits = _columns(gold, order)
    stack = np.empty((len(systems), len(gold), len(order)), dtype=bool)
    for s, (name, file) in enumerate(systems.items()):
        bits = _columns(file, order)
        at = positions[name]
        stack[s] = bits if at is None else bits[at]
    if label_map is not None:
        gold_bits, groups = grouped(gold_bits, order, label_map, map_source)
        stack, _ = grouped(stack, order, label_map, map_source)
        order = groups
    return Aligned(tuple(systems), tuple(order), gold_bits, stack)
