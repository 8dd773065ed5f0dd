"""Reading clusters of units (``--clusters FILE``, ``--lm-eval-cluster FIELD``): the cluster of every unit.

A clusters file has one line per unit, ``id<TAB>cluster``, optionally under the header ``id<TAB>cluster``. The ids
are the items' ids (classification, multi-label, ordinal, lm-eval's ``doc_id``; the 1-based item number when the
gold has no ids), or 1-based sentence numbers (tagging) and segment numbers (translation). Every unit needs exactly
one non-empty cluster; a missing, unknown or repeated id and an empty cluster name are refused, naming the file and
the line. The resampler then draws clusters instead of units (:class:`auditor.analyses.units.UnitResampler`).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import InputError
from auditor.files import read_input, text_bytes


@dataclass(frozen=True)
class Clusters:
    """The cluster of every unit: ``codes[i]`` indexes ``names`` (each name used by at least one unit).

    ``unit`` names the units (item, sentence, segment); ``source`` is the clusters' source record for the JSON
    (path, sha256, or the lm-eval ``doc`` field they come from)."""

    names: tuple[str, ...]
    codes: np.ndarray
    unit: str = "item"
    source: Mapping[str, Any] | None = None

    @property
    def n_clusters(self) -> int:
        return len(self.names)

    def sizes(self) -> np.ndarray:
        """Units per cluster (C,)."""
        return np.bincount(self.codes, minlength=self.n_clusters)

    def indicator(self) -> Any:
        """The (C × n) sparse 0/1 matrix ``G`` with ``G[c, i] = [unit i in cluster c]``: ``G M`` sums each cluster's
        rows of a unit matrix ``M``."""
        import scipy.sparse

        n = self.codes.size
        return scipy.sparse.csr_matrix((np.ones(n), (self.codes, np.arange(n))), shape=(self.n_clusters, n))


#: The header a clusters file may start with (its second column's name is a known header name).
HEADER = ("id", "cluster")


def from_names(names: Sequence[str], unit: str, source: dict[str, Any]) -> Clusters:
    """:class:`Clusters` of units whose cluster names are ``names`` (one per unit, in unit order), sorted by name."""
    found, codes = np.unique(np.asarray([str(name) for name in names], dtype=object), return_inverse=True)
    return Clusters(tuple(str(x) for x in found), codes.astype(np.int64).ravel(), unit, source)


def read_clusters(path: str | Path, ids: Sequence[str], unit: str, id_name: str = "id") -> Clusters:
    """The clusters of the units whose ids are ``ids`` (in unit order; texts), read from ``path``.

    ``id_name`` says what an id is in messages (``item id``, ``sentence number``, ``segment number``).

    Raises
    ------
    InputError
        A line without a TAB, an empty cluster name, an id that is not a unit's, an id given twice, a unit without a
        cluster; each names the file and the line (or, for a unit without a cluster, the first such id).
    """
    path = Path(path)
    expected = f"a clusters file (`{id_name}<TAB>cluster` lines)"
    raw = read_input(path, expected)
    text = text_bytes(raw, str(path), expected).decode()
    position = {str(key): i for i, key in enumerate(ids)}
    names: list[str | None] = [None] * len(position)
    seen: dict[int, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        if len(fields) != 2:
            raise InputError(f"{path} line {number}: expected `{id_name}<TAB>cluster` (two fields separated by one "
                             f"TAB), found {len(fields)} field{'s' if len(fields) != 1 else ''}")
        key, cluster = fields[0].strip(), fields[1].strip()
        if number == 1 and (key.lower(), cluster.lower()) == HEADER:
            continue
        if not cluster:
            raise InputError(f"{path} line {number}: empty cluster name for {id_name} {key!r}; every unit needs a "
                             "cluster")
        at = position.get(key)
        if at is None:
            raise InputError(f"{path} line {number}: {id_name} {key!r} is not one of the audit's {len(position):,} "
                             f"{unit}s (expected {_expected(ids)})")
        if at in seen:
            raise InputError(f"{path} line {number}: {id_name} {key!r} is given twice (first on line {seen[at]}); "
                             "every unit has exactly one cluster")
        seen[at] = number
        names[at] = cluster
    missing = [i for i, name in enumerate(names) if name is None]
    if missing:
        raise InputError(f"{path}: no cluster for {id_name} {str(ids[missing[0]])!r} ({len(missing):,} of "
                         f"{len(names):,} {unit}s have none); every unit needs exactly one line "
                         f"`{id_name}<TAB>cluster`")
    return from_names(names, unit, {"path": str(path), "sha256": hashlib.sha256(raw).hexdigest()})


def numbered(n: int) -> list[str]:
    """The ids of ``n`` numbered units: ``"1"`` … ``"n"`` (sentences, segments, items of a gold without ids)."""
    return [str(i) for i in range(1, n + 1)]


def numbered_clusters(path: str | Path | None, n: int, unit: str) -> Clusters | None:
    """The clusters of ``n`` units known by their numbers (``"1"`` … ``"n"``: a tagging file's sentences, a
    translation's segments, the items of a gold without ids) from ``--clusters`` ``path``; None without one."""
    return None if path is None else read_clusters(path, numbered(n), unit, f"{unit} number")


def _expected(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(str(x)) for x in list(ids[:3]))
    return f"one of {shown}{', …' if len(ids) > 3 else ''}"
