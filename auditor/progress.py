"""Progress bars for long stages: rich in a terminal, silent with ``--quiet`` or without a TTY."""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator


class Progress:
    """Hands out one bar per long stage. ``Progress(enabled=False)`` does nothing. Stages that run at the same
    time (on threads of their own) share one live display, a line each."""

    def __init__(self, enabled: bool | None = None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._lock = threading.Lock()
        self._display: Any = None
        self._open = 0

    @contextmanager
    def task(self, description: str, total: int) -> Iterator[Callable[..., None]]:
        """``with progress.task("bootstrap", total=B) as advance: advance(chunk)``;
        ``advance(0, description="rendering report.pdf")`` names the step that runs now. A stage of one step
        (``total=1``) shows a spinner and the time, not a count of "0/1"."""
        if not self.enabled:
            yield lambda steps=1, description=None: None
            return
        bar = self._start()
        task_id = bar.add_task(description, total=total)

        def advance(steps: int = 1, description: str | None = None) -> None:
            if description is None:
                bar.advance(task_id, steps)
            else:
                bar.update(task_id, advance=steps, description=description)

        try:
            yield advance
        finally:
            bar.remove_task(task_id)
            self._stop()

    def _start(self) -> Any:
        """The live display, started by the first stage that opens a bar."""
        with self._lock:
            if self._display is None:
                self._display = _display()
                self._display.start()
            self._open += 1
            return self._display

    def _stop(self) -> None:
        """Close the live display when the last open bar closes."""
        with self._lock:
            self._open -= 1
            if not self._open:
                self._display.stop()
                self._display = None


def _display() -> Any:
    """A rich display whose lines show a bar and a count for a stage of many steps, a spinner for one of one."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.progress import Progress as RichProgress
    from rich.text import Text

    class Only(ProgressColumn):
        """``column`` on the lines of stages of many steps (``many``), or of one step only."""

        def __init__(self, column: ProgressColumn, many: bool):
            super().__init__()
            self.column, self.many = column, many

        def render(self, task: Any) -> Any:
            return self.column.render(task) if ((task.total or 0) > 1) == self.many else Text("")

    return RichProgress(Only(SpinnerColumn(), False), TextColumn("{task.description}"), Only(BarColumn(), True),
                        Only(MofNCompleteColumn(), True), TimeElapsedColumn(), transient=True,
                        console=_stderr_console())


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


SILENT = Progress(enabled=False)
