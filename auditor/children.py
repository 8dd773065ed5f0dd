"""A child process started ahead of its work, so that its imports overlap the audit (the PDF renderer of
:mod:`auditor.formats.pdf`, the chart converter of :mod:`auditor.report.charts`; docs/architecture.md)."""
from __future__ import annotations

import subprocess
from contextlib import contextmanager
from typing import Iterator, Sequence


@contextmanager
def child_started(command: Sequence[str], started: list[subprocess.Popen]) -> Iterator[None]:
    """Start ``command`` with piped standard streams and put it on ``started``, where the work that needs it takes
    it; on leaving, a child nobody took is stopped."""
    child = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    started.append(child)
    try:
        yield
    finally:
        if child in started:
            started.remove(child)
            child.kill()
            child.communicate()
