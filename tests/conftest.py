"""Shared fixtures."""
from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def examples_dir() -> Path:
    """The repository's ``examples/`` folder (real SemEval-2018 and GermEval-2018 data)."""
    return EXAMPLES


@pytest.fixture
def write(tmp_path):
    """Write a file under ``tmp_path``: ``write("gold.tsv", "id\\tlabel\\n...")`` -> its path
    as a str. ``bytes`` are written as they are; ``str`` as UTF-8 without newline translation."""

    def _write(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
        return str(path)

    return _write
