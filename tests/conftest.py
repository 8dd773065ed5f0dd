"""Shared fixtures."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: Real evaluation data (``../shared/data`` beside the checkout, as CI has it; never copied into the project).
#: ``AUDITOR_SHARED_DATA`` names another place.
SHARED_DATA = Path(os.environ.get("AUDITOR_SHARED_DATA")
                   or Path(__file__).resolve().parents[2] / "shared" / "data")


@pytest.fixture(autouse=True)
def _registry_restored():
    """A metric a test registers (a plugin) does not outlive the test: later reports would carry it
    (an extra row pushed the GermEval PDF past its page budget in the full run)."""
    from auditor.metrics.registry import REGISTRY

    saved = (dict(REGISTRY.metrics), dict(REGISTRY.aliases), dict(REGISTRY.alias_notes))
    yield
    for table, before in zip((REGISTRY.metrics, REGISTRY.aliases, REGISTRY.alias_notes), saved):
        table.clear()
        table.update(before)


@pytest.fixture
def examples_dir() -> Path:
    """The repository's ``examples/`` folder (real SemEval-2018 and GermEval-2018 data)."""
    return EXAMPLES


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared evaluation data folder (``../shared/data``); the test is skipped, with the reason, where it is
    absent (a user's checkout). Every test that reads real data takes it through this fixture."""
    if not (SHARED_DATA / "README.md").is_file():
        pytest.skip(f"real evaluation data not here: {SHARED_DATA} is absent (CI has ../shared/data beside the "
                    "checkout; set AUDITOR_SHARED_DATA to point elsewhere)")
    return SHARED_DATA


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


@pytest.fixture
def germeval_counts(examples_dir):
    """Counts of the GermEval-2018 example: gold.tsv and systems/*.tsv (`id<TAB>label`, header),
    read with plain Python so the loader is not under test here."""
    from auditor.io.counts import count

    def read(path):
        lines = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8") if line.strip()]
        return dict(lines[1:])

    gold = read(examples_dir / "germeval2018" / "gold.tsv")
    ids = list(gold)
    systems = {path.stem: np.array([table[i] for i in ids])
               for path in sorted((examples_dir / "germeval2018" / "systems").glob("*.tsv"))
               for table in [read(path)]}
    return count(np.array([gold[i] for i in ids]), systems)
