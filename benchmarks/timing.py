"""The one way every benchmark times things: wall and CPU seconds, medians of runs, the load beside them.

* :func:`command` runs a command in a child process: wall seconds from ``time.perf_counter``; CPU seconds (user +
  system) of the child and of every process it waited for, from ``resource.getrusage(RUSAGE_CHILDREN)`` read
  before and after; the child's peak resident memory from ``os.wait4`` (its own ``ru_maxrss``, so one run's peak is
  not mixed with an earlier child's), taken in a small launcher process (:data:`LAUNCHER`): Linux carries the
  peak of the memory a process had before ``exec`` into its ``ru_maxrss``, and a child forked from this
  process would report this process's peak (a benchmark holding 1 GB of data made every command "use" 1 GB);
  optionally the peak size of a folder while it runs (polled every 50 ms).
* :func:`call` times a function in this process: CPU seconds from ``time.process_time`` (every thread of the
  process) plus those of any child process it waited for.

Both run ``warmup`` untimed runs first (a floor measured as "the second of two passes" pays no one-time
initialisation), then ``repeat`` timed runs, and return a :class:`Timing` with the medians. On a machine shared with
other jobs wall time follows the load and CPU time much less: print both, and the load (:func:`load`).
:func:`median` combines timings taken in turn (A B A B ..., so that a before/after pair shares the load).

Imported by the scripts in this directory (``python benchmarks/bench_x.py`` puts it on ``sys.path``)::

    from timing import call, command
    floor = call(read_files, paths, warmup=1)
    ours = command(["auditor", "score", *paths], repeat=3)
    print(f"score {ours}  {ours.ratio(floor)} the read")
"""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import median as _median
from typing import Any, Callable


@dataclass(frozen=True)
class Timing:
    """Medians over ``runs`` runs: ``wall`` and ``cpu`` (user + system) seconds; the largest peak resident memory
    of a child (MB; None in process), the largest folder size seen (MB; None unless watched), the 1-minute load
    average after the last run, and what the last run gave (a command's standard output, a call's return value)."""

    wall: float
    cpu: float
    runs: int = 1
    peak_mb: float | None = None
    folder_mb: float | None = None
    load: float = field(default_factory=lambda: os.getloadavg()[0])
    output: str = ""
    value: Any = None

    def __str__(self) -> str:
        return f"{self.wall:8.3f} s wall {self.cpu:8.3f} s CPU"

    def ratio(self, other: Timing) -> str:
        """``"2.10x wall, 1.95x CPU"``: this timing over ``other`` (its peer in the same run)."""
        return f"{self.wall / other.wall:.2f}x wall, {self.cpu / other.cpu:.2f}x CPU"

    def describe(self) -> str:
        """Wall, CPU, peak memory where known, the number of runs and the load: one line's figures."""
        peak = f" peak {self.peak_mb:6.0f} MB" if self.peak_mb is not None else ""
        runs = f" median of {self.runs}" if self.runs > 1 else ""
        return f"{self}{peak}{runs} (load {self.load:.1f})"


def auditor() -> list[str]:
    """The ``auditor`` command: the console script beside this interpreter where the package is installed, else
    ``python -c "from auditor.cli import main; main()"`` (a checkout on ``PYTHONPATH``)."""
    found = shutil.which("auditor", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-c", "from auditor.cli import main; main()"]


def load() -> str:
    """The 1-, 5- and 15-minute load averages and the core count, for a benchmark's header line."""
    return "load %.2f %.2f %.2f" % os.getloadavg() + f" on {os.cpu_count()} cores"


def median(timings: list[Timing]) -> Timing:
    """One timing from several (taken in turn with others): medians of wall and CPU, the largest peaks, the last
    load and output."""
    peaks = [t.peak_mb for t in timings if t.peak_mb is not None]
    folders = [t.folder_mb for t in timings if t.folder_mb is not None]
    return replace(timings[-1], wall=_median(t.wall for t in timings), cpu=_median(t.cpu for t in timings),
                   runs=sum(t.runs for t in timings), peak_mb=max(peaks) if peaks else None,
                   folder_mb=max(folders) if folders else None)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def call(function: Callable[..., Any], *args: Any, repeat: int = 1, warmup: int = 0, **kwargs: Any) -> Timing:
    """Time ``function(*args, **kwargs)`` in this process (see the module docstring); ``value`` is what its last
    run returned."""
    for _ in range(warmup):
        function(*args, **kwargs)
    runs = []
    for _ in range(max(1, repeat)):
        start, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
        value = function(*args, **kwargs)
        wall = time.perf_counter() - start
        runs.append(Timing(wall, time.process_time() - cpu + _children_cpu() - children, value=value))
    return median(runs)


def _folder_size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except FileNotFoundError:  # removed while we looked
            pass
    return total


#: Forks and execs the command (``argv[2:]``) from a fresh interpreter of a few MB (``-I -S``: no site, no user
#: paths), waits for it and writes its ``ru_maxrss`` (kB) to the file descriptor ``argv[1]``; exits with the
#: command's status. Its own start-up
#: adds about 10 ms of CPU to every command timed, ours and the peers' alike.
LAUNCHER = ("import os, sys\npid = os.fork()\nif pid == 0:\n    os.execvp(sys.argv[2], sys.argv[2:])\n"
            "_, status, usage = os.wait4(pid, 0)\nos.write(int(sys.argv[1]), str(usage.ru_maxrss).encode())\n"
            "sys.exit(os.waitstatus_to_exitcode(status))")


def _run_once(argv: list[str], env: dict[str, str] | None, cwd: str | Path | None, check: bool,
              watch: Path | None) -> Timing:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        before = _children_cpu()
        start = time.perf_counter()
        peak_read, peak_write = os.pipe()
        child = subprocess.Popen([sys.executable, "-I", "-S", "-c", LAUNCHER, str(peak_write), *map(str, argv)],
                                 stdout=out, stderr=err, env=env, cwd=cwd, pass_fds=(peak_write,))
        os.close(peak_write)
        largest, stop = [0], threading.Event()

        def poll() -> None:
            while not stop.is_set():
                largest[0] = max(largest[0], _folder_size(watch) if watch.exists() else 0)
                time.sleep(0.05)

        watcher = threading.Thread(target=poll) if watch is not None else None
        if watcher is not None:
            watcher.start()
        _, status, _ = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        with os.fdopen(peak_read, "rb") as peak:
            peak_kb = peak.read()
        child.returncode = os.waitstatus_to_exitcode(status)
        if watcher is not None:
            stop.set()
            watcher.join()
        cpu = _children_cpu() - before
        out.seek(0)
        err.seek(0)
        output, errors = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if check and child.returncode != 0:
        raise SystemExit(f"failed ({child.returncode}): {' '.join(map(str, argv))}\n{errors[-2000:]}")
    return Timing(wall, cpu, peak_mb=int(peak_kb) / 1024 if peak_kb else None,
                  folder_mb=largest[0] / 1e6 if watch else None, output=output)


def command(argv: list[str], repeat: int = 1, warmup: int = 0, env: dict[str, str] | None = None,
            cwd: str | Path | None = None, check: bool = True, watch: Path | None = None) -> Timing:
    """Run ``argv`` in a child process, ``warmup`` untimed then ``repeat`` timed times (see the module docstring).
    ``env`` replaces the environment; ``check``: a failing run ends the benchmark with the command's standard
    error; ``watch``: a folder whose peak size is recorded (``folder_mb``)."""
    for _ in range(warmup):
        _run_once(argv, env, cwd, check, None)
    return median([_run_once(argv, env, cwd, check, watch) for _ in range(max(1, repeat))])


def compiled_environment(folder: Path, **extra: str) -> dict[str, str]:
    """This environment with compiled bytecode kept, as an installed package has it (pip compiles it at install):
    without ``PYTHONDONTWRITEBYTECODE``, with the cache under ``folder`` (``PYTHONPYCACHEPREFIX``), plus ``extra``.
    A command timed with ``warmup=1`` then pays no compilation, which would otherwise add 0.3-0.6 s of CPU to every
    run of a checkout."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**environment, "PYTHONPYCACHEPREFIX": str(Path(folder) / "pycache"), **extra}
