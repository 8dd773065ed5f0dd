"""Where an input came from: the record every reader leaves for the JSON's ``sources``, the
signature's hashes and the report's reproducibility table.

Stage "read". A file's ``path`` is as given; an in-memory input's is ``<name>``; a confusion-only
audit's gold has no path and says what it is in ``kind``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Source:
    """One input: its path, SHA-256 of its bytes (None for an in-memory input), its items, what
    it is when not a label file (``kind``), and the lines read without an item (reason -> lines;
    None when it was not read from text). ``counted``: for a column counted by an engine
    (:mod:`auditor.engines`), its column, engine, format, files and ``pattern_sha256``, the hash of the table it
    counted (``hash_of`` says which), written into the JSON beside the rest; ``sha256`` is always the file's."""

    path: str
    sha256: str | None
    n_items: int
    kind: str | None = None
    skipped_lines: Mapping[str, int] | None = None
    counted: Mapping[str, Any] | None = None

    @property
    def name(self) -> str:
        """What the report calls it: the path, else the kind (a column counted by an engine says so)."""
        name = self.path or self.kind or ""
        if self.counted is not None:
            name += f" [column {self.counted.get('column')!r}, counted by {self.counted.get('engine')}]"
        return name

    def to_json(self) -> dict[str, Any]:
        """``sources.NAME``: path, kind (when one), sha256, n_items, skipped_lines (when read from text)."""
        document: dict[str, Any] = {"path": self.path}
        if self.kind is not None:
            document["kind"] = self.kind
        document.update(sha256=self.sha256, n_items=self.n_items)
        if self.skipped_lines is not None:
            document["skipped_lines"] = dict(self.skipped_lines)
        if self.counted is not None:
            document.update(self.counted)
        return document
