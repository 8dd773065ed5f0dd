"""SemEval-2018 Task 12, the Argument Reasoning Comprehension Task: the organisers' gold labels and the 23
test-phase submissions (with the organisers' random baseline), as published.

Habernal, Wachsmuth, Gurevych & Stein (2018), "SemEval-2018 Task 12: The Argument Reasoning Comprehension Task",
SemEval 2018; Apache-2.0. ``gold/truth.txt`` (``#`` comment lines, then ``id label``) and ``submissions/*.txt``
(``id label``; names in ``submissions/metadata-public.xml``, which ``auditor`` reads beside the files) are read by
``auditor report`` as they are: :func:`lay_out` copies them.
"""
from __future__ import annotations

import shutil
from pathlib import Path


def lay_out(source: Path, out: Path) -> list[str]:
    """Copy ``gold/`` and ``submissions/`` into ``out``; return the report command's arguments."""
    for folder in ("gold", "submissions"):
        shutil.copytree(source / folder, out / folder)
    return ["gold/truth.txt", "submissions/*.txt"]
