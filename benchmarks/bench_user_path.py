"""Benchmark: the path users take, from label files (or arrays) to a full audit, in one run.

Writes TSV files (``id<TAB>label`` with a header, like the bundled examples) of N items for
gold and S systems over K string labels, then times, each in its own child process so that
its peak memory (the child's maximum resident set size) is its own:

* ``auditor score --bootstrap 0``, ``auditor score`` (default: B = 1000 intervals) and
  ``auditor report`` (every format) on those files -- whole-process wall time, start-up and
  imports included, as a user sees it; the same ``score`` and ``report`` on the bundled
  GermEval 2018 example (rendering does not grow with N, so it is budgeted on its own);
* beside them, the floor for reading the same files: a plain pyarrow pass (read +
  dictionary-encode + one bincount per system, all files) and a pandas pass (``read_csv`` +
  ``crosstab``);
* scikit-learn's 7 metric calls per system (accuracy, balanced accuracy, macro precision /
  recall / F1, Cohen's kappa, MCC) on integer arrays, against ``auditor.audit`` on the same
  integer arrays with ``bootstrap=0``; ``auditor.audit`` with ``bootstrap=1000`` on systems
  with independent errors (about 570k distinct patterns at 1M x 10 x 20) and on systems that
  share their errors (:func:`synthetic_data.correlated`: few patterns, as real systems have), each the median of
  ``--audit-repeat`` runs (3: issue 38 asks for medians of three);
* the rows issue 38 asks for beside their peers: GermEval's ``report`` against ``score`` + 1.3 x weasyprint
  rendering that report's own ``report.html`` alone (decision 2); ``report`` − ``score`` on the same 1M items
  written from :func:`synthetic_data.correlated` (systems sharing their errors, decision 3; the independent-errors
  files above are its stress row);
* issue 40's leaderboard (:func:`synthetic_data.leaderboard`: 100 systems x 10,000 items x 10 classes): ``score
  --json`` (target 5 s, 1 GB) and ``report`` (target 60 s, 1.5 GB), and weasyprint alone on its ``report.html``.

In-process steps report the time of the step itself, after importing their libraries (the
reading passes: the second of two passes in one process, so the baseline pays no one-time
initialisation -- the strict choice for the ratios; the array steps: after generating the
arrays); CLI steps report the whole command, start-up included. Every target row of the speed
issue is printed as a ratio against its peer measured in the same run (absolute times on a shared
machine are noisy), with the 1-minute load average beside each figure; ``--repeat 3`` reports
medians of 3. Each child's CPU seconds and peak memory come from :func:`timing.command`
(``resource.getrusage(RUSAGE_CHILDREN)`` and ``os.wait4``).

Run: ``python benchmarks/bench_user_path.py`` (1M items x 10 systems x 20 labels),
``--items 100000`` for a quick check, ``--large`` for 10M items x 4 files (gold + 3 systems,
``--bootstrap 0`` and the reading passes only), ``--only-shared-report [--vs TREE] [--repeat 3]`` for issue 38's
correlated ``report`` − ``score`` row alone (with ``--vs``, the same two commands from another checkout,
``PYTHONPATH=TREE``, run in turn with this tree's: A B A B, so a before/after pair shares the load). A script, not a
test.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np
import timing
from shared_data import folder
from synthetic_data import correlated, synthetic, write_files
from timing import Timing

HERE = Path(__file__).resolve().parent
#: weasyprint alone on a report's own HTML: the PDF engine the report must use (issue 38, decision 2).
WEASYPRINT = "import sys, weasyprint; weasyprint.HTML(sys.argv[1]).write_pdf(sys.argv[2])"

# ------------------------------------------------------------------ steps run in a child process


def step_pyarrow(paths: list[str]) -> None:
    """Read every file, dictionary-encode the labels, map to gold's codes, one bincount per system."""
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    options = pacsv.ParseOptions(delimiter="\t")
    gold = pacsv.read_csv(paths[0], parse_options=options).column("label").combine_chunks().dictionary_encode()
    k = len(gold.dictionary)
    gold_codes = gold.indices.to_numpy().astype(np.int64) * (k + 1)
    for path in paths[1:]:
        column = pacsv.read_csv(path, parse_options=options).column("label").combine_chunks().dictionary_encode()
        lookup = pc.index_in(column.dictionary, value_set=gold.dictionary).fill_null(k).to_numpy()
        np.bincount(gold_codes + lookup[column.indices.to_numpy()], minlength=k * (k + 1))


def step_pandas(paths: list[str]) -> None:
    import pandas as pd

    gold = pd.read_csv(paths[0], sep="\t")["label"]
    for path in paths[1:]:
        pd.crosstab(gold, pd.read_csv(path, sep="\t")["label"])


def _arrays(arguments: argparse.Namespace, shared_errors: bool = False) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    make = correlated if shared_errors else synthetic
    return make(arguments.items, arguments.systems, arguments.classes)


def step_sklearn(arguments: argparse.Namespace) -> Timing:
    gold, predictions = _arrays(arguments)
    return timing.call(_sklearn_calls, gold, predictions, None)


def step_sklearn_resampling(arguments: argparse.Namespace) -> Timing:
    """Seconds for B resamples, scaled from ``--sklearn-resamples`` timed resamples."""
    gold, predictions = _arrays(arguments)
    rng = np.random.default_rng(1)
    draws = [rng.integers(0, gold.size, size=gold.size) for _ in range(arguments.sklearn_resamples)]
    measured = timing.call(lambda: [_sklearn_calls(gold, predictions, index) for index in draws])
    scale = arguments.resamples / arguments.sklearn_resamples
    return replace(measured, wall=measured.wall * scale, cpu=measured.cpu * scale)


def _sklearn_calls(gold: np.ndarray, predictions: dict[str, np.ndarray], index: np.ndarray | None) -> None:
    from sklearn.metrics import (
        accuracy_score,
        balanced_accuracy_score,
        cohen_kappa_score,
        f1_score,
        matthews_corrcoef,
        precision_score,
        recall_score,
    )

    y_true = gold if index is None else gold[index]
    for y in predictions.values():
        y_pred = y if index is None else y[index]
        accuracy_score(y_true, y_pred)
        balanced_accuracy_score(y_true, y_pred)
        precision_score(y_true, y_pred, average="macro", zero_division=0)
        recall_score(y_true, y_pred, average="macro", zero_division=0)
        f1_score(y_true, y_pred, average="macro", zero_division=0)
        cohen_kappa_score(y_true, y_pred)
        matthews_corrcoef(y_true, y_pred)


def step_audit(arguments: argparse.Namespace, bootstrap: int, shared_errors: bool = False) -> Timing:
    import auditor

    gold, predictions = _arrays(arguments, shared_errors)
    return timing.call(auditor.audit, gold, predictions, bootstrap=bootstrap)


def run_step(arguments: argparse.Namespace) -> None:
    """Child-process entry: run one step, print its own wall and CPU seconds as JSON on the last line."""
    paths = [str(p) for p in sorted(Path(arguments.directory).glob("*.tsv"), key=lambda p: p.stem != "gold")]
    modules = {"pyarrow": ["pyarrow.csv", "pyarrow.compute"], "pandas": ["pandas"], "sklearn": ["sklearn.metrics"],
               "sklearn-resampling": ["sklearn.metrics"], "audit-0": ["auditor.pipeline"],
               "audit-B": ["auditor.pipeline"], "audit-B-shared": ["auditor.pipeline"]}
    for module in modules[arguments.step]:  # imports are not part of an in-process step's time
        __import__(module)
    steps = {  # the reading passes: the second of two (the timed pass pays no one-time initialisation)
        "pyarrow": lambda: timing.call(step_pyarrow, paths, warmup=1),
        "pandas": lambda: timing.call(step_pandas, paths, warmup=1),
        "sklearn": lambda: step_sklearn(arguments),
        "sklearn-resampling": lambda: step_sklearn_resampling(arguments),
        "audit-0": lambda: step_audit(arguments, 0),
        "audit-B": lambda: step_audit(arguments, arguments.resamples),
        "audit-B-shared": lambda: step_audit(arguments, arguments.resamples, shared_errors=True),
    }
    own = steps[arguments.step]()
    print(json.dumps({"seconds": own.wall, "cpu": own.cpu}))


# ------------------------------------------------------------------ the parent


def in_process(arguments: argparse.Namespace, step: str) -> Timing:
    """One in-process step in a child of its own: the step's own wall and CPU seconds (printed by the child on its
    last line), the child's peak memory."""
    child = timing.command([sys.executable, str(Path(__file__)), "--step", step, "--directory",
                            str(arguments.directory), "--items", str(arguments.items), "--systems",
                            str(arguments.systems), "--classes", str(arguments.classes), "--resamples",
                            str(arguments.resamples), "--sklearn-resamples", str(arguments.sklearn_resamples)])
    own = json.loads(child.output.strip().splitlines()[-1])
    return replace(child, wall=own["seconds"], cpu=own["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--sklearn-resamples", type=int, default=2)
    parser.add_argument("--large", action="store_true",
                        help="10M items x 4 files (gold + 3 systems): --bootstrap 0 and the reading passes only")
    parser.add_argument("--directory", help="where to write the files (default: a temporary directory)")
    parser.add_argument("--skip-report", action="store_true", help="do not time 'auditor report'")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per step; the median is reported (3 for the README)")
    parser.add_argument("--audit-repeat", type=int, default=3, help="runs of each audit(B) row (median)")
    parser.add_argument("--skip-issue-rows", action="store_true",
                        help="skip the correlated 1M report and the 100-system leaderboard")
    parser.add_argument("--board-systems", type=int, default=100, help="systems of the leaderboard rows")
    parser.add_argument("--only-shared-report", action="store_true",
                        help="time only issue 38's correlated report - score row (see --vs)")
    parser.add_argument("--vs", type=Path, help="with --only-shared-report: another checkout, run in turn with this")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.step:
        run_step(arguments)
        return
    if arguments.large:
        arguments.items, arguments.systems = 10_000_000, 3

    temporary = None
    if arguments.directory is None:
        temporary = tempfile.TemporaryDirectory(prefix="bench-user-path-")
        arguments.directory = temporary.name
    directory = Path(arguments.directory)
    directory.mkdir(parents=True, exist_ok=True)
    if arguments.only_shared_report:
        shared_report_row(arguments, directory)
        return
    start = time.perf_counter()
    paths = write_files(directory, arguments.items, arguments.systems, arguments.classes)
    size = sum(p.stat().st_size for p in paths) / 2**20
    print(f"{arguments.items:,} items x {arguments.systems} systems x {arguments.classes} string labels: "
          f"{len(paths)} TSV files, {size:.0f} MB, written in {time.perf_counter() - start:.1f} s "
          f"({os.cpu_count()} cores)")

    measured = _steps(arguments, [str(p) for p in paths], directory)
    _ratios(arguments, measured)
    if temporary is not None:
        temporary.cleanup()


def _steps(arguments: argparse.Namespace, files: list[str], directory: Path) -> dict[str, Timing]:
    """Run and print every step (median of ``--repeat`` runs each); returns the figures by key."""
    cli = timing.auditor()
    repeat = max(1, arguments.repeat)

    def record(name: str, run: Callable[[], Timing]) -> Timing:
        """Median of ``repeat`` runs (seconds and peak memory), printed with the machine's load."""
        result = timing.median([run() for _ in range(repeat)])
        print(f"  {name:<52} {result.wall:8.2f} s  cpu {result.cpu:7.2f} s  {result.peak_mb / 1024:5.2f} GB"
              f"   load {result.load:.1f}", flush=True)
        return result

    B = arguments.resamples
    measured = {"pyarrow": record("pyarrow: read + dictionary-encode + bincount",
                                  lambda: in_process(arguments, "pyarrow"))}
    record("pandas: read_csv + crosstab", lambda: in_process(arguments, "pandas"))
    measured["score0"] = record("auditor score --bootstrap 0",
                                lambda: timing.command([*cli, "score", *files, "--bootstrap", "0", "--quiet"]))
    if arguments.large:
        return measured
    measured["score"] = record(f"auditor score (B = {B})",
                               lambda: timing.command([*cli, "score", *files, "--bootstrap", str(B), "--quiet"]))
    if not arguments.skip_report:
        measured["report"] = record("auditor report (all formats)", lambda: timing.command(
            [*cli, "report", *files, "-o", str(directory / "report"), "--bootstrap", str(B), "--quiet"]))
        germeval = folder("germeval2018")
        if germeval is not None:
            small = [str(germeval / "gold.tsv"), *sorted(str(p) for p in (germeval / "systems").glob("*.tsv"))]
            measured["germeval_score"] = record("GermEval: auditor score",
                                                lambda: timing.command([*cli, "score", *small, "--quiet"]))
            measured["germeval_report"] = record("GermEval: auditor report (all formats)", lambda: timing.command(
                [*cli, "report", *small, "-o", str(directory / "germeval"), "--quiet"]))
            measured["germeval_weasyprint"] = record("GermEval: weasyprint alone on its report.html", lambda: (
                timing.command([sys.executable, "-c", WEASYPRINT, str(directory / "germeval" / "report.html"),
                                str(directory / "germeval-peer.pdf")])))
    measured["sklearn"] = record("scikit-learn: 7 metric calls per system", lambda: in_process(arguments, "sklearn"))
    measured["audit0"] = record("auditor.audit(int arrays, bootstrap=0)", lambda: in_process(arguments, "audit-0"))
    audits = max(1, arguments.audit_repeat)
    measured["auditB"] = record(f"auditor.audit(int arrays, B={B}), independent errors", lambda: timing.median(
        [in_process(arguments, "audit-B") for _ in range(audits)]))
    measured["auditB_shared"] = record(f"auditor.audit(int arrays, B={B}), shared errors", lambda: timing.median(
        [in_process(arguments, "audit-B-shared") for _ in range(audits)]))
    if not arguments.skip_issue_rows and not arguments.skip_report:
        measured.update(_issue_rows(arguments, directory, record))
    return measured


def _issue_rows(arguments: argparse.Namespace, directory: Path,
                record: Callable[[str, Callable[[], Timing]], Timing]) -> dict[str, Timing]:
    """Issue 38's correlated 1M report and issue 40's leaderboard, each beside its peer."""
    from synthetic_data import leaderboard

    cli, B, measured = timing.auditor(), arguments.resamples, {}
    for name in ("correlated", "leaderboard"):
        (directory / name).mkdir(exist_ok=True)
    shared = [str(p) for p in write_files(directory / "correlated", arguments.items, arguments.systems,
                                          arguments.classes, make=correlated)]
    measured["shared_score"] = record(f"shared errors: auditor score (B = {B})", lambda: timing.command(
        [*cli, "score", *shared, "--quiet"]))
    measured["shared_report"] = record("shared errors: auditor report (all formats)", lambda: timing.command(
        [*cli, "report", *shared, "-o", str(directory / "correlated-report"), "--quiet"]))
    board = [str(p) for p in write_files(directory / "leaderboard", 10_000, arguments.board_systems, 10,
                                         make=leaderboard)]
    measured["board_score"] = record(f"leaderboard {arguments.board_systems} x 10k x 10: auditor score --json",
                                     lambda: timing.command([*cli, "score", *board, "--json", "--quiet"]))
    measured["board_report"] = record("leaderboard: auditor report (all formats)", lambda: timing.command(
        [*cli, "report", *board, "-o", str(directory / "leaderboard-report"), "--quiet"]))
    measured["board_weasyprint"] = record("leaderboard: weasyprint alone on its report.html", lambda: timing.command(
        [sys.executable, "-c", WEASYPRINT, str(directory / "leaderboard-report" / "report.html"),
         str(directory / "leaderboard-peer.pdf")]))
    return measured


def shared_report_row(arguments: argparse.Namespace, directory: Path) -> None:
    """Issue 38's row alone: ``auditor score`` and ``auditor report`` on the correlated files, this tree's and (with
    ``--vs``) another checkout's in turn, ``--repeat`` rounds; medians of wall and CPU seconds, and report − score."""
    files = [str(p) for p in write_files(directory, arguments.items, arguments.systems, arguments.classes,
                                         make=correlated)]
    trees = {"this tree": HERE.parent, **({f"--vs {arguments.vs}": arguments.vs.resolve()} if arguments.vs else {})}
    commands = {"score": lambda out: ["score", *files, "--quiet"],
                "report": lambda out: ["report", *files, "-o", str(out), "--quiet"]}
    runs: dict[tuple[str, str], list[Timing]] = {(t, c): [] for t in trees for c in commands}
    print(f"{arguments.items:,} items x {arguments.systems} systems x {arguments.classes} labels, shared errors "
          f"({os.cpu_count()} cores); {arguments.repeat} rounds, each command of each tree in turn", flush=True)
    for _ in range(max(1, arguments.repeat)):
        for tree_name, tree in trees.items():
            for name, arguments_of in commands.items():
                timed = timing.command([sys.executable, "-c", "from auditor.cli import main; main()",
                                        *arguments_of(directory / "report-out")],
                                       env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree)
                runs[tree_name, name].append(timed)
                print(f"  {tree_name:<36} {name:<7} {timed.wall:7.2f} s  cpu {timed.cpu:7.2f} s  load "
                      f"{timed.load:.1f}", flush=True)
    print("medians:")
    for tree_name in trees:
        score, report = (timing.median(runs[tree_name, name]) for name in commands)
        print(f"  {tree_name:<36} report - score {report.wall - score.wall:6.2f} s (cpu "
              f"{report.cpu - score.cpu:6.2f} s)  target <= 15 s; score {score.wall:.2f} s, report {report.wall:.2f} s;"
              f" loads {', '.join(f'{r.load:.1f}' for r in runs[tree_name, 'report'])}")


def _ratios(arguments: argparse.Namespace, m: dict[str, Timing]) -> None:
    """Every target row of the speed issue's table, measured in this run: wall-clock figures (the
    targets), and beside them the same ratio of CPU seconds (user + system, every thread), which
    other jobs on a shared machine disturb far less than wall time."""
    print("\nratios and targets (all measured in this run; cpu: the same ratio of CPU seconds):")

    def row(name: str, value: float, cpu: float, target: str, ok: bool) -> None:
        mark = '' if ok else '(above)' if '<' in target else '(below)'
        print(f"  {name:<48} {value:8.2f}   cpu {cpu:8.2f}   target {target:<10} {mark}")

    def ratio(top: str, bottom: str, key: str) -> float:
        return getattr(m[top], key) / getattr(m[bottom], key)

    m = {**m, "base": m["pyarrow"]}
    row("score --bootstrap 0 / pyarrow pass", ratio("score0", "base", "wall"), ratio("score0", "base", "cpu"),
        "<= 2x", ratio("score0", "base", "wall") <= 2)
    if "score" in m:
        row("score (default) / pyarrow pass", ratio("score", "base", "wall"), ratio("score", "base", "cpu"),
            "<= 6x", ratio("score", "base", "wall") <= 6)
        speedup = ratio("sklearn", "audit0", "wall")
        row("scikit-learn 7 calls / audit(bootstrap=0)", speedup, ratio("sklearn", "audit0", "cpu"), ">= 10x",
            speedup >= 10)
        for key, name, target in (("auditB", "independent", 15), ("auditB_shared", "shared", 5)):
            seconds = m[key].wall
            row(f"audit(B) seconds, {name} errors", seconds, m[key].cpu, f"<= {target} s", seconds <= target)
    if "germeval_report" in m:  # issue 38, decision 2: against the PDF engine (no longer <= 10x score)
        allowed = m["germeval_score"].wall + 1.3 * m["germeval_weasyprint"].wall
        row("GermEval report / (score + 1.3 x weasyprint)", m["germeval_report"].wall / allowed,
            m["germeval_report"].cpu / (m["germeval_score"].cpu + 1.3 * m["germeval_weasyprint"].cpu), "<= 1x",
            m["germeval_report"].wall <= allowed)
        extra = m["report"].wall - m["score"].wall
        row("report - score, independent errors (stress), s", extra, m["report"].cpu - m["score"].cpu, "—", True)
    if "shared_report" in m:
        extra = m["shared_report"].wall - m["shared_score"].wall
        row("report - score, shared errors, seconds", extra, m["shared_report"].cpu - m["shared_score"].cpu,
            "<= 15 s", extra <= 15)
        for key, target in (("board_score", (5, 1.0)), ("board_report", (60, 1.5))):
            seconds, peak = m[key].wall, m[key].peak_mb / 1024
            row(f"leaderboard {key.split('_')[1]} seconds (peak {peak:.2f} GB)", seconds, m[key].cpu,
                f"<= {target[0]} s", seconds <= target[0] and peak <= target[1])
        row("leaderboard report / weasyprint alone", ratio("board_report", "board_weasyprint", "wall"),
            ratio("board_report", "board_weasyprint", "cpu"), "—", True)
    peak = max(result.peak_mb for key, result in m.items() if key != "base") / 1024
    print(f"  {'peak memory of any step (GB)':<48} {peak:8.2f}   {'':12} target <= 1.5 GB  "
          f"{'' if peak <= 1.5 else '(above)'}")


if __name__ == "__main__":
    main()
