"""Benchmark: the path users take, from label files (or arrays) to a full audit, in one run.

Writes TSV files (``id<TAB>label`` with a header, like the bundled examples) of N items for
gold and S systems over K string labels, then times, each in its own child process so that
its peak memory (the child's maximum resident set size) is its own:

* ``auditor score --bootstrap 0``, ``auditor score`` (default: B = 1000 and all pairwise
  tests) and ``auditor report`` (every format) on those files -- whole-process wall time,
  start-up and imports included, as a user sees it;
* beside them, the floor for reading the same files: a plain pyarrow pass (read +
  dictionary-encode + one bincount per system, all files) and a pandas pass (``read_csv`` +
  ``crosstab``);
* scikit-learn's 7 metric calls per system (accuracy, balanced accuracy, macro precision /
  recall / F1, Cohen's kappa, MCC) on integer arrays, against ``auditor.audit`` on the same
  integer arrays with ``bootstrap=0`` and ``bootstrap=1000``; scikit-learn resampling (the 7
  calls on B item resamples) is timed on a few resamples and scaled to B.

In-process steps report the time of the step itself, after importing their libraries (the
reading passes: the second of two passes in one process, so the baseline pays no one-time
initialisation -- the strict choice for the ratios; the array steps: after generating the
arrays); CLI steps report the whole command, start-up included. Ratios are printed against the targets of issue 10 (all measured in the same
run, because absolute times on a shared machine are noisy). Peak memory comes from
``resource.getrusage(RUSAGE_CHILDREN)`` of a one-child wrapper process.

Run: ``python benchmarks/bench_user_path.py`` (1M items x 10 systems x 20 labels),
``--items 100000`` for a quick check, ``--large`` for 10M items x 4 files (gold + 3 systems,
``--bootstrap 0`` and the reading passes only). A script, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from synthetic_data import synthetic, write_files

HERE = Path(__file__).resolve().parent
#: One child process: run argv[1:], print its wall time, exit code and peak RSS (its only child).
WRAPPER = (
    "import json, resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "wall = time.perf_counter() - start\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
    "print(json.dumps({'wall': wall, 'rc': done.returncode, 'peak': peak,"
    " 'stderr': done.stderr.decode(errors='replace')[-2000:]}))\n"
)


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


def _arrays(arguments: argparse.Namespace) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    return synthetic(arguments.items, arguments.systems, arguments.classes)


def step_sklearn(arguments: argparse.Namespace) -> float:
    gold, predictions = _arrays(arguments)
    start = time.perf_counter()
    _sklearn_calls(gold, predictions, None)
    return time.perf_counter() - start


def step_sklearn_resampling(arguments: argparse.Namespace) -> float:
    """Seconds for B resamples, from ``--sklearn-resamples`` timed resamples."""
    gold, predictions = _arrays(arguments)
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for _ in range(arguments.sklearn_resamples):
        _sklearn_calls(gold, predictions, rng.integers(0, gold.size, size=gold.size))
    return (time.perf_counter() - start) / arguments.sklearn_resamples * arguments.resamples


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


def step_audit(arguments: argparse.Namespace, bootstrap: int) -> float:
    import auditor

    gold, predictions = _arrays(arguments)
    start = time.perf_counter()
    auditor.audit(gold, predictions, bootstrap=bootstrap)
    return time.perf_counter() - start


def run_step(arguments: argparse.Namespace) -> None:
    """Child-process entry: run one step, print its own time as JSON on the last line."""
    paths = [str(p) for p in sorted(Path(arguments.directory).glob("*.tsv"), key=lambda p: p.stem != "gold")]
    modules = {"pyarrow": ["pyarrow.csv", "pyarrow.compute"], "pandas": ["pandas"], "sklearn": ["sklearn.metrics"],
               "sklearn-resampling": ["sklearn.metrics"], "audit-0": ["auditor.pipeline"], "audit-B": ["auditor.pipeline"]}
    for module in modules[arguments.step]:  # imports are not part of an in-process step's time
        __import__(module)
    if arguments.step == "pyarrow":  # warm-up: the timed pass below pays no one-time initialisation
        step_pyarrow(paths)
    elif arguments.step == "pandas":
        step_pandas(paths)
    start = time.perf_counter()
    seconds = None
    if arguments.step == "pyarrow":
        step_pyarrow(paths)
    elif arguments.step == "pandas":
        step_pandas(paths)
    elif arguments.step == "sklearn":
        seconds = step_sklearn(arguments)
    elif arguments.step == "sklearn-resampling":
        seconds = step_sklearn_resampling(arguments)
    elif arguments.step == "audit-0":
        seconds = step_audit(arguments, 0)
    elif arguments.step == "audit-B":
        seconds = step_audit(arguments, arguments.resamples)
    print(json.dumps({"seconds": time.perf_counter() - start if seconds is None else seconds}))


# ------------------------------------------------------------------ the parent


def measure(command: list[str]) -> dict[str, float]:
    """Run ``command`` under the one-child wrapper: wall time, exit code, peak RSS, and the
    step's own ``seconds`` when it prints them (the wrapper discards the child's stdout, so
    in-process steps write them to a file)."""
    done = subprocess.run([sys.executable, "-c", WRAPPER, *command], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["rc"] != 0:
        raise SystemExit(f"failed ({result['rc']}): {' '.join(command)}\n{result['stderr']}")
    return result


def in_process(arguments: argparse.Namespace, step: str) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        command = [sys.executable, str(Path(__file__)), "--step", step, "--directory", str(arguments.directory),
                   "--items", str(arguments.items), "--systems", str(arguments.systems),
                   "--classes", str(arguments.classes), "--resamples", str(arguments.resamples),
                   "--sklearn-resamples", str(arguments.sklearn_resamples), "--step-output", out.name]
        result = measure(command)
        result["seconds"] = json.loads(Path(out.name).read_text())["seconds"]
    return result


def auditor_command() -> list[str]:
    found = shutil.which("auditor", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-c", "from auditor.cli import main; main()"]


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
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--step-output", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.step:
        import contextlib
        import io

        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            run_step(arguments)
        Path(arguments.step_output).write_text(captured.getvalue().strip().splitlines()[-1])
        return
    if arguments.large:
        arguments.items, arguments.systems = 10_000_000, 3

    temporary = None
    if arguments.directory is None:
        temporary = tempfile.TemporaryDirectory(prefix="bench-user-path-")
        arguments.directory = temporary.name
    directory = Path(arguments.directory)
    directory.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    paths = write_files(directory, arguments.items, arguments.systems, arguments.classes)
    size = sum(p.stat().st_size for p in paths) / 2**20
    print(f"{arguments.items:,} items x {arguments.systems} systems x {arguments.classes} string labels: "
          f"{len(paths)} TSV files, {size:.0f} MB, written in {time.perf_counter() - start:.1f} s "
          f"({os.cpu_count()} cores)")

    files = [str(p) for p in paths]
    cli = auditor_command()
    rows: list[tuple[str, dict[str, float], float]] = []

    def record(name: str, result: dict[str, float], seconds: float | None = None) -> dict[str, float]:
        seconds = result.get("seconds", result["wall"]) if seconds is None else seconds
        rows.append((name, result, seconds))
        print(f"  {name:<44} {seconds:8.2f} s  {result['peak'] / 2**30:6.2f} GB", flush=True)
        return result

    pyarrow_pass = record("pyarrow: read + dictionary-encode + bincount", in_process(arguments, "pyarrow"))
    record("pandas: read_csv + crosstab", in_process(arguments, "pandas"))
    score0 = record("auditor score --bootstrap 0", measure([*cli, "score", *files, "--bootstrap", "0", "--quiet"]))
    score = report = None
    if not arguments.large:
        score = record(f"auditor score (B = {arguments.resamples})",
                       measure([*cli, "score", *files, "--bootstrap", str(arguments.resamples), "--quiet"]))
        if not arguments.skip_report:
            out = directory / "report"
            report = record("auditor report (all formats)",
                            measure([*cli, "report", *files, "-o", str(out), "--bootstrap", str(arguments.resamples),
                                     "--quiet"]))
        sklearn = record("scikit-learn: 7 metric calls per system", in_process(arguments, "sklearn"))
        audit0 = record("auditor.audit(int arrays, bootstrap=0)", in_process(arguments, "audit-0"))
        auditB = record(f"auditor.audit(int arrays, bootstrap={arguments.resamples})", in_process(arguments, "audit-B"))
        resampling = record(f"scikit-learn resampling, scaled to B = {arguments.resamples}",
                            in_process(arguments, "sklearn-resampling"))

    base = pyarrow_pass["seconds"]
    print("\nratios (targets of issue 10):")

    def ratio(name: str, value: float, target: str, ok: bool) -> None:
        print(f"  {name:<52} {value:8.2f}   target {target:<10} {'met' if ok else 'NOT met'}")

    ratio("score --bootstrap 0 / pyarrow pass", score0["wall"] / base, "<= 2.5x", score0["wall"] / base <= 2.5)
    limit = 3.0 if arguments.large else 1.5
    ratio("score --bootstrap 0 peak memory (GB)", score0["peak"] / 2**30, f"<= {limit:g} GB", score0["peak"] / 2**30 <= limit)
    if score is not None:
        ratio("score (default) / pyarrow pass", score["wall"] / base, "<= 8x", score["wall"] / base <= 8)
        ratio("score (default) peak memory (GB)", score["peak"] / 2**30, "<= 1.5 GB", score["peak"] / 2**30 <= 1.5)
        if report is not None:
            ratio("report (all formats) / score (default)", report["wall"] / score["wall"], "<= 2x",
                  report["wall"] / score["wall"] <= 2)
        speedup = sklearn["seconds"] / audit0["seconds"]
        ratio("scikit-learn 7 calls / audit(bootstrap=0)", speedup, ">= 20x", speedup >= 20)
        ratio(f"audit(bootstrap={arguments.resamples}) seconds", auditB["seconds"], "<= 15 s", auditB["seconds"] <= 15)
        speedup = resampling["seconds"] / auditB["seconds"]
        ratio(f"scikit-learn resampling / audit(bootstrap={arguments.resamples})", speedup, ">= 50x", speedup >= 50)
    if temporary is not None:
        temporary.cleanup()


if __name__ == "__main__":
    main()
