"""Progress bars for long stages: rich in a terminal, silent with ``--quiet`` or without a TTY."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator


class Progress:
    """Hands out one bar per long stage. ``Progress(enabled=False)`` does nothing."""

    def __init__(self, enabled: bool | None = None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    @contextmanager
    def task(self, description: str, total: int) -> Iterator[Callable[..., None]]:
        """``with progress.task("bootstrap", total=B) as advance: advance(chunk)``;
        ``advance(0, description="rendering report.pdf")`` names the step that runs now. A stage of one step
        (``total=1``) shows a spinner and the time, not a count of "0/1"."""
        if not self.enabled:
            yield lambda steps=1, description=None: None
            return
        from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        columns = ((TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
                   if total > 1 else (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn()))
        with RichProgress(*columns, transient=True, console=_stderr_console()) as bar:
            task_id = bar.add_task(description, total=total)

            def advance(steps: int = 1, description: str | None = None) -> None:
                if description is None:
                    bar.advance(task_id, steps)
                else:
                    bar.update(task_id, advance=steps, description=description)

            yield advance


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


SILENT = Progress(enabled=False)
