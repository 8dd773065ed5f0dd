"""Every figure an lm-evaluation-harness results file logs, checked against its own sample logs
(``auditor check-claim --lm-eval-results RESULTS --lm-eval RUN...``), and the paired test the harness does not run.

A figure ``"metric,filter"`` of a task is the mean of that metric's per-item values (the harness's ``mean``
aggregation); ``"metric_stderr,filter"`` is their sample standard deviation over √n (its ``mean_stderr``, ddof = 1).
For a multiple-choice task, ``acc`` and ``acc_norm`` are recomputed from the log-likelihoods
(:mod:`auditor.io.lmeval`), not only averaged from the logged per-item values. A figure that is not such a mean
(another aggregation, a metric with no per-item value) is listed as not checkable, never as reproduced. Between the
claimant and each other run of the same task and filter, a 0/1 per-item metric gets the exact McNemar test over the
paired items (the harness compares models with an unpaired z-test, lm-eval issue #3831).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from auditor.analyses.significance import mcnemar_exact
from auditor.errors import InputError, UsageError
from auditor.io.lmeval import MULTIPLE_CHOICE, LmEvalRun, check_paired, read_results, read_run, run_argument

#: Relative tolerance of "reproduced": the results file stores the mean as a float; only summation order differs.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class FigureCheck:
    """One logged figure: ``task``, ``key`` (``metric,filter``), the ``logged`` value, the value recomputed from the
    samples (None when it cannot be) and why not."""

    task: str
    key: str
    logged: float
    recomputed: float | None
    note: str = ""

    @property
    def reproduced(self) -> bool | None:
        if self.recomputed is None:
            return None
        return math.isclose(self.logged, self.recomputed, rel_tol=TOLERANCE, abs_tol=1e-12)


@dataclass(frozen=True)
class PairedCheck:
    """The exact McNemar test of one 0/1 per-item metric between the claimant and another run."""

    task: str
    metric: str
    filter: str
    a: str
    b: str
    mean_a: float
    mean_b: float
    n01: int
    n10: int
    p: float


@dataclass(frozen=True)
class LmEvalCheck:
    results: str
    claimant: str
    figures: tuple[FigureCheck, ...]
    paired: tuple[PairedCheck, ...]

    @property
    def holds(self) -> bool:
        return all(check.reproduced is not False for check in self.figures)

    def to_json(self) -> dict[str, Any]:
        return {"results": self.results, "claimant": self.claimant, "holds": self.holds,
                "figures": [{"task": c.task, "figure": c.key, "logged": c.logged, "recomputed": c.recomputed,
                             "reproduced": c.reproduced, **({"note": c.note} if c.note else {})} for c in self.figures],
                "paired_tests": [{"task": p.task, "metric": p.metric, "filter": p.filter, "a": p.a, "b": p.b,
                                  "mean_a": p.mean_a, "mean_b": p.mean_b, "n01": p.n01, "n10": p.n10,
                                  "method": "mcnemar_exact", "p": p.p} for p in self.paired]}


def per_item(run: LmEvalRun, metric: str) -> np.ndarray | None:
    """The per-item values behind ``metric``: recomputed for a multiple-choice acc/acc_norm, else as logged."""
    if run.kind == MULTIPLE_CHOICE and metric == "acc":
        return (run.prediction == run.gold).astype(float)
    if run.kind == MULTIPLE_CHOICE and metric == "acc_norm":
        return (run.prediction_norm == run.gold).astype(float)
    return run.logged.get(metric)


def check_figure(run: LmEvalRun, key: str, logged: float) -> FigureCheck:
    metric = key.split(",", 1)[0]
    stderr = metric.endswith("_stderr")
    values = per_item(run, metric.removesuffix("_stderr"))
    if values is None:
        return FigureCheck(run.task, key, logged, None, "no per-item values of this metric in the samples")
    n = values.shape[0]
    if stderr:
        recomputed = float(np.std(values, ddof=1) / math.sqrt(n)) if n > 1 else None
        return FigureCheck(run.task, key, logged, recomputed, "" if n > 1 else "one item: no standard error")
    return FigureCheck(run.task, key, logged, float(values.mean()))


def check_lm_eval(results: str, runs: Sequence[str]) -> LmEvalCheck:
    """Check every figure of ``results`` against the samples of the run holding it (the run folder given among
    ``runs`` that contains the file, else the first), and test the claimant against every other run."""
    path = Path(results)
    if not path.is_file():
        raise InputError(f"{results}: no such results file")
    if not runs:
        raise UsageError("--lm-eval-results needs --lm-eval RUN (the run whose samples hold the figures)")
    document = read_results(path)
    logged = document.get("results")
    if not isinstance(logged, dict) or not logged:
        raise InputError(f"{results}: no 'results' object of per-task figures")
    named = [run_argument(argument) for argument in runs]
    claimant = next((i for i, (_, run) in enumerate(named)
                     if Path(run).is_dir() and Path(run).resolve() == path.parent.resolve()), 0)
    order = [claimant] + [i for i in range(len(named)) if i != claimant]
    figures, paired, name = [], [], named[claimant][0]
    for task, values in logged.items():
        keys = {key: float(value) for key, value in values.items()
                if "," in key and isinstance(value, (int, float)) and not isinstance(value, bool)}
        for filter_name in dict.fromkeys(key.split(",", 1)[1] for key in keys):
            read = [read_run(named[i][1], named[i][0], task, filter_name) for i in order]
            name = name or read[0].name
            for key, value in keys.items():
                if key.split(",", 1)[1] == filter_name:
                    figures.append(check_figure(read[0], key, value))
            if len(read) > 1:
                check_paired(read)
                paired.extend(_paired(read, task, filter_name, keys))
    return LmEvalCheck(str(path), name, tuple(figures), tuple(paired))


def _paired(read: Sequence[LmEvalRun], task: str, filter_name: str, keys: dict[str, float]) -> list[PairedCheck]:
    """Exact McNemar between the claimant and each other run, for every 0/1 per-item metric of the figures."""
    tests = []
    claimant = read[0]
    for metric in dict.fromkeys(key.split(",", 1)[0] for key in keys if not key.split(",", 1)[0].endswith("_stderr")):
        a = per_item(claimant, metric)
        if a is None or not np.isin(a, (0.0, 1.0)).all():
            continue
        for other in read[1:]:
            b = per_item(other, metric)
            if b is None or not np.isin(b, (0.0, 1.0)).all():
                continue
            b = b[np.searchsorted(other.doc_ids, claimant.doc_ids)]
            n01, n10 = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
            tests.append(PairedCheck(task, metric, filter_name, claimant.name, other.name, float(a.mean()),
                                     float(b.mean()), n01, n10, mcnemar_exact(n01, n10)))
    return tests


def format_lm_eval_check(check: LmEvalCheck) -> str:
    """Plain text: NO / yes / cannot check per figure, then the paired tests."""
    out = [f"Figures of {check.results} (model {check.claimant}), recomputed from its samples:"]
    width = max(len(f"{c.task} {c.key}") for c in check.figures) + 2
    for c in check.figures:
        mark = {True: "yes", False: "NO", None: "cannot check"}[c.reproduced]
        value = f"{c.recomputed:.6g}" if c.recomputed is not None else c.note
        out.append(f"  {c.task + ' ' + c.key:<{width}}{mark:<14}logged {c.logged:.6g}, samples give {value}")
    bad = [c for c in check.figures if c.reproduced is False]
    out.append("")
    out.append(f"NO: {len(bad)} of {len(check.figures)} figures differ from the samples." if bad else
               "Every checkable figure is reproduced by the samples.")
    if check.paired:
        out.append("")
        out.append("Paired tests the harness does not run (exact McNemar over the same items):")
        for p in check.paired:
            out.append(f"  {p.task} {p.metric},{p.filter}: {p.a} {p.mean_a:.4f} vs {p.b} {p.mean_b:.4f}; "
                       f"discordant {p.n01} / {p.n10}; p = {p.p:.4g}")
    return "\n".join(out)
