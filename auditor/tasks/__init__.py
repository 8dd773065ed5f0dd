"""Task kinds: classification, token tagging, translation, multi-label, ordinal ... one subpackage each.

Every task kind reads its own files into units and counts them, then answers the same questions (metrics,
intervals, rankings, best sets, verdict, recommendation) through the spine (docs/architecture.md, "Adding a task
kind"); classification's reading and counting are the spine's own (:mod:`auditor.pipeline`). Each lives in one
subpackage registered by one line in :data:`TASKS`; the command line (``--task NAME``) finds it there. A task
module exposes

- ``OPTIONS``: click option decorators it adds to ``score`` and ``report`` (its own names, so
  that they never collide with another task's);
- ``audit(gold, systems, *, options, progress, analyses, **task_options)``: the audit of
  ``systems`` (``{name: path}``) against ``gold`` (a path), an object with ``to_json()``
  (a top-level ``task`` key), ``report_model(figures)`` (an :class:`auditor.report.model.Report`
  that every renderer reads) and ``terminal_lines(columns, sort=None)`` (``auditor score``'s table:
  ``columns`` and ``sort`` are ids of ``METRIC_IDS``, already checked; ``sort`` orders the systems, best first);
- ``METRIC_IDS``: the ids ``-m`` and ``--sort`` may name for this task (the command line checks them before
  the audit runs: case, spaces, '-' and '_' ignored, catalogue aliases of ids the task has accepted);
- optionally ``METRIC_ALIASES``: further spellings (normalised as
  :func:`auditor.metrics.registry.normalise_name`) -> id, and ``METRIC_NOTE``: said with an unknown name;
- optionally ``INPUTS``: the inputs beside GOLD and SYSTEMS it reads (``"annotators"``: ``--annotators``
  reaches ``audit`` as ``annotators``, ``{name: path}``); the command line refuses the others.
"""
from __future__ import annotations

import importlib
from types import ModuleType

#: Task name -> module implementing it (one line per task), the default first.
TASKS: dict[str, str] = {
    "classification": "auditor.tasks.classification",
    "tagging": "auditor.tasks.tagging",
    "translation": "auditor.tasks.translation",
    "multilabel": "auditor.tasks.multilabel",
    "ordinal": "auditor.tasks.ordinal",
}

#: The default task.
CLASSIFICATION = "classification"


def task_names() -> tuple[str, ...]:
    """Every task ``--task`` accepts, the default first."""
    return tuple(TASKS)


def task_module(name: str) -> ModuleType:
    """The module of task ``name``."""
    return importlib.import_module(TASKS[name])
