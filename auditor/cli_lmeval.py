"""The command line's ``--lm-eval`` options: lm-evaluation-harness sample logs as an audit's inputs
(:mod:`auditor.io.lmeval`, :func:`auditor.pipeline.audit_lm_eval`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import click

from auditor.errors import UsageError
from auditor.io.lmeval import VIEWS
from auditor.options import AuditOptions
from auditor.progress import Progress

if TYPE_CHECKING:
    from auditor.results import Audit

#: The command line's options of :func:`lm_eval_options`.
LM_EVAL_OPTIONS = ("lm_eval", "lm_eval_task", "lm_eval_filter", "lm_eval_view", "lm_eval_cluster")


def lm_eval_options() -> list[Callable[..., Any]]:
    """``--lm-eval`` and its choices of task, filter and prediction."""
    return [
        click.option("--lm-eval", "lm_eval", multiple=True, metavar="[NAME=]RUN",
                     help="An lm-evaluation-harness run (a folder written with --log_samples, or its samples file) "
                          "instead of GOLD and SYSTEMS (repeatable; one system each)."),
        click.option("--lm-eval-task", help="With --lm-eval: the task, when a run holds several."),
        click.option("--lm-eval-filter", help="With --lm-eval: the filter, when a task logs several."),
        click.option("--lm-eval-view", type=click.Choice(VIEWS), default=None,
                     help="With --lm-eval, multiple choice: the prediction audited: the choice of highest "
                          "log-likelihood (acc), per character (acc_norm), or both as two systems [default: acc]."),
        click.option("--lm-eval-cluster", metavar="FIELD",
                     help="With --lm-eval: a field of each row's doc (e.g. subject) naming the item's cluster: "
                          "intervals, ranks and pair tests resample and swap whole clusters (as --clusters)."),
    ]


def run_lm_eval(gold: str | None, systems: tuple[str, ...], task: str, engine: dict[str, Any],
                confusion: tuple[str, ...], annotators: tuple[str, ...], progress: Progress,
                analyses: tuple[str, ...] | None, arguments: dict[str, Any], given: dict[str, Any],
                parse_options: Callable[..., AuditOptions]) -> Audit:
    """The audit of ``--lm-eval`` runs; every option that cannot go with it is refused first. ``parse_options`` turns
    the remaining ``arguments`` into the audit's options."""
    from auditor.pipeline import audit_lm_eval
    from auditor.tasks import CLASSIFICATION

    if not given["lm_eval"]:
        raise UsageError("--lm-eval-task, --lm-eval-filter, --lm-eval-view and --lm-eval-cluster need --lm-eval")
    if task != CLASSIFICATION or any(engine.values()) or confusion or annotators or arguments.pop("slices", None):
        raise UsageError("--lm-eval cannot be used with --task, --dataset, --engine, --confusion, --annotators or "
                         "--slices")
    if gold is not None or systems:
        raise UsageError("--lm-eval replaces GOLD and SYSTEMS: the gold is each row's target; give either runs or "
                         "label files, not both")
    return audit_lm_eval(given["lm_eval"], given["lm_eval_task"], given["lm_eval_filter"],
                         given["lm_eval_view"] or "acc", options=parse_options(**arguments), progress=progress,
                         analyses=analyses, cluster_field=given["lm_eval_cluster"])
