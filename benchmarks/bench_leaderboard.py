"""Benchmark: a shared task's leaderboard, 100 submissions audited (issue 40).

Data (:func:`synthetic_data.leaderboard`, written as TSV files under a temporary directory): 10,000 items,
100 systems, 10 classes, system s right with probability 0.40 + 0.40 s / 100, half its errors shared.
Each command runs in its own child process (:func:`timing.command`: wall time, CPU seconds from
``resource.getrusage(RUSAGE_CHILDREN)``, the child's peak resident memory), start-up and imports included:

* ``auditor score FILES --json`` (target: <= 5 s, <= 1 GB peak: the issue's seconds are wall seconds at a load
  of at most 1, so the wall time is judged, and the CPU seconds beside it, as on a shared machine the wall time
  also measures the load);
* ``auditor report FILES -o DIR`` (every format; target: <= 60 s, <= 1.5 GB peak);
* its peer: weasyprint alone on the report's own ``report.html`` (``weasyprint.HTML(...).write_pdf``);
* with ``--vs TREE``: the same two auditor commands from another checkout (``PYTHONPATH=TREE``), run
  in turn with this tree's (A B A B ...), so a before/after pair shares the machine's load.

The 1-minute load average is printed beside each figure. Run: ``python benchmarks/bench_leaderboard.py
[--vs /path/to/other/checkout] [--repeat 3] [--skip-report]``. A script, not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import timing
from synthetic_data import leaderboard, write_files
from timing import Timing

HERE = Path(__file__).resolve().parent
CLI = "from auditor.cli import main; main()"
WEASYPRINT = "import sys, weasyprint; weasyprint.HTML(sys.argv[1]).write_pdf(sys.argv[2])"
TARGETS = {"score": (5.0, 1.0), "report": (60.0, 1.5)}


def measure(command: list[str], tree: Path | None = None) -> Timing:
    """Wall and CPU seconds and peak RSS of ``command`` (``PYTHONPATH=tree`` when given, run in ``tree``:
    ``python -c`` puts the working directory before PYTHONPATH)."""
    return timing.command(command, env=dict(os.environ, **({"PYTHONPATH": str(tree)} if tree else {})), cwd=tree)


def show(name: str, results: list[Timing], target: tuple[float, float] | None) -> None:
    """One line: medians of wall and CPU seconds, the largest peak, the loads seen, and whether the wall seconds,
    the CPU seconds (user + system, every thread) and the peak each meet the target (the issue's figures are wall
    seconds at a load of at most 1; on a machine shared by other jobs the wall time also measures the load)."""
    both = timing.median(results)
    peak = both.peak_mb / 1024
    mark = ""
    if target:
        def met(ok: bool) -> str:
            return "met" if ok else "not met"

        mark = (f"  target <= {target[0]:g} s, <= {target[1]:g} GB: wall {met(both.wall <= target[0])}, "
                f"CPU {met(both.cpu <= target[0])}, peak {met(peak <= target[1])}")
    print(f"  {name:<44} {both.wall:7.2f} s  cpu {both.cpu:7.2f} s  {peak:5.2f} GB  load "
          f"{', '.join(f'{r.load:.1f}' for r in results)}{mark}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--vs", type=Path, help="another checkout of auditor, run in turn with this one")
    parser.add_argument("--repeat", type=int, default=1, help="runs per command; medians are printed")
    parser.add_argument("--skip-report", action="store_true", help="time 'auditor score --json' only")
    arguments = parser.parse_args()
    here = HERE.parent
    with tempfile.TemporaryDirectory(prefix="bench-leaderboard-") as folder:
        directory = Path(folder)
        files = [str(p) for p in write_files(directory, arguments.items, arguments.systems, arguments.classes,
                                             make=leaderboard)]
        print(f"{arguments.items:,} items x {arguments.systems} systems x {arguments.classes} classes "
              f"({os.cpu_count()} cores); medians of {arguments.repeat}")
        trees = {"": here, **({" [--vs]": arguments.vs.resolve()} if arguments.vs else {})}
        commands = {"score": lambda out: [sys.executable, "-c", CLI, "score", *files, "--json", "--quiet"]}
        if not arguments.skip_report:
            commands["report"] = lambda out: [sys.executable, "-c", CLI, "report", *files, "-o", str(out), "--quiet"]
        for name, command in commands.items():
            results: dict[str, list[Timing]] = {label: [] for label in trees}
            for run in range(max(1, arguments.repeat)):
                for label, tree in trees.items():  # A B A B ...: each pair shares the load
                    results[label].append(measure(command(directory / f"out{label.strip()}"), tree))
            for label in trees:
                show(f"auditor {name}{' --json' if name == 'score' else ' (all formats)'}{label}", results[label],
                     TARGETS[name] if not label else None)
        if not arguments.skip_report:
            html = directory / "out" / "report.html"
            peer = [measure([sys.executable, "-c", WEASYPRINT, str(html), str(directory / "peer.pdf")])
                    for _ in range(max(1, arguments.repeat))]
            show(f"peer: weasyprint on report.html ({html.stat().st_size / 2**20:.1f} MB)", peer, None)


if __name__ == "__main__":
    main()
