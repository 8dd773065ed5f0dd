"""Where the benchmarks find real evaluation data: ``../shared/data`` beside the checkout (as CI has it), or the
folder ``AUDITOR_SHARED_DATA`` names; never a copy inside the project. A user's checkout has none: a benchmark
that needs it says so and skips that figure."""
from __future__ import annotations

import os
from pathlib import Path

#: The shared data folder (it may be absent).
SHARED_DATA = Path(os.environ.get("AUDITOR_SHARED_DATA")
                   or Path(__file__).resolve().parents[2] / "shared" / "data")


def folder(name: str) -> Path | None:
    """``SHARED_DATA / name``, or None (with the reason printed) where the shared data is absent."""
    path = SHARED_DATA / name
    if not path.is_dir():
        print(f"skipped: real data {path} is absent (set AUDITOR_SHARED_DATA to the shared data folder)", flush=True)
        return None
    return path
