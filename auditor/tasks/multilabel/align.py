"""Gold and systems' label sets on one item order and one label order (:class:`Aligned`).

Items are matched by id (or by line when no file has ids: :func:`auditor.io.validate.item_positions`, which
refuses an item missing from a system, an extra one and a repeated id). Labels: ``--labels`` in its order
(a label of a file outside it is refused), else the sorted union of every file's labels. With a label map
(``label -> group``) each set becomes the set of its labels' groups, and the audit runs at the group level.
Only the tables of distinct sets are re-labelled; items stay codes into them.
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
    """Item n (gold order) has gold set ``gold_sets[gold_codes[n]]`` and, for system s, the set
    ``sets[s][codes[s, n]]``; each table of sets is (distinct sets × labels) bool over ``labels``."""

    names: tuple[str, ...]
    labels: tuple[str, ...]
    gold_codes: np.ndarray
    gold_sets: np.ndarray
    codes: tuple[np.ndarray, ...]
    sets: tuple[np.ndarray, ...]
    #: Per system, the position in its file of each gold item (None: the same order).
    positions: Mapping[str, np.ndarray | None] | None = None

    @property
    def n_items(self) -> int:
        return int(self.gold_codes.shape[0])

    @property
    def gold(self) -> np.ndarray:
        """items × labels (bool), built when asked for."""
        return self.gold_sets[self.gold_codes]

    def system(self, s: int) -> np.ndarray:
        """System s's items × labels (bool), built when asked for."""
        return self.sets[s][self.codes[s]]

    @classmethod
    def of_bits(cls, names: Sequence[str], labels: Sequence[str], gold: np.ndarray, systems: Sequence[np.ndarray]
                ) -> Aligned:
        """From items × labels matrices (tests, arrays)."""
        from auditor.tasks.multilabel.sets import encode_rows

        gold_codes, gold_sets = encode_rows(np.asarray(gold, dtype=bool))
        encoded = [encode_rows(np.asarray(bits, dtype=bool)) for bits in systems]
        return cls(tuple(names), tuple(labels), gold_codes, gold_sets, tuple(codes for codes, _ in encoded),
                   tuple(sets for _, sets in encoded))


def label_order(files: Sequence[SetFile], given: Sequence[str] | None) -> tuple[str, ...]:
    """``given`` (every label used must be in it), else the sorted union of the files' labels."""
    if given is None:
        return tuple(sorted(set().union(*(file.labels for file in files))))
    allowed = set(given)
    for file in files:
        outside = [label for label in file.labels if label not in allowed]
        if outside:
            raise InputError(f"{file.column.where(file.first_item_with(outside[0]))}: label {outside[0]!r} is not in "
                             f"--labels ({', '.join(given)}); expected only the labels given")
    return tuple(given)


def _columns(sets: np.ndarray, file_labels: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """A table of sets over ``file_labels`` re-laid over ``labels`` (labels the file never uses are all False)."""
    index = {label: i for i, label in enumerate(labels)}
    out = np.zeros((sets.shape[0], len(labels)), dtype=bool)
    used = [(index[label], i) for i, label in enumerate(file_labels) if label in index]
    if used:
        target, source = map(list, zip(*used))
        out[:, target] = sets[:, source]
    return out


def grouped(sets: np.ndarray, labels: Sequence[str], label_map: Mapping[str, str], where: str
            ) -> tuple[np.ndarray, tuple[str, ...]]:
    """Sets of labels -> sets of their groups (a group is in a set when one of its labels is)."""
    missing = [label for label in labels if label not in label_map]
    if missing:
        raise InputError(f"{where}: no group for label {missing[0]!r}"
                         + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
                         + "; expected a line `label<TAB>group` for every label of the files")
    groups = tuple(dict.fromkeys(label_map[label] for label in labels))
    member = np.zeros((len(labels), len(groups)), dtype=np.int64)
    member[np.arange(len(labels)), [groups.index(label_map[label]) for label in labels]] = 1
    return sets.astype(np.int64) @ member > 0, groups


def align(gold: SetFile, systems: Mapping[str, SetFile], labels: Sequence[str] | None = None,
          label_map: Mapping[str, str] | None = None, map_source: str = "--label-map") -> Aligned:
    """Every system's sets in gold's item order, on one label order (see the module docstring)."""
    positions = item_positions(gold.column, [(name, file.column) for name, file in systems.items()])
    order = label_order([gold, *systems.values()], labels)
    gold_sets = _columns(gold.sets, gold.labels, order)
    codes, tables = [], []
    for name, file in systems.items():
        at = positions[name]
        codes.append(file.codes if at is None else file.codes[at])
        tables.append(_columns(file.sets, file.labels, order))
    if label_map is not None:
        gold_sets, groups = grouped(gold_sets, order, label_map, map_source)
        tables = [grouped(table, order, label_map, map_source)[0] for table in tables]
        order = groups
    return Aligned(tuple(systems), tuple(order), gold.codes, gold_sets, tuple(codes), tuple(tables), positions)
