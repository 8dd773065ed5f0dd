"""Classification (``--task classification``, the default): one label per item, a confusion matrix per system.

Its reading, counting (:mod:`auditor.io`, :mod:`auditor.engines`), metrics (:mod:`auditor.metrics`) and analyses
(:data:`auditor.pipeline.STAGES`) are the spine itself; this package is its entry in :data:`auditor.tasks.TASKS`,
the same face every task kind shows (docs/architecture.md, "Adding a task kind"). Its options are the audit
options every command has, so it adds none of its own; files given as ``--confusion``, ``--annotators``,
``--slices`` or through ``--dataset`` and ``--engine`` are classification's too, read by the command line.
"""
from __future__ import annotations

from typing import Any

from auditor.metrics.catalogue import BASE_METRIC_IDS
from auditor.options import AuditOptions, check_options

#: Options ``score`` and ``report`` gain for this task: none beyond the shared audit options.
OPTIONS: list[Any] = []
#: The ids ``-m`` and ``--sort`` may name (any registered metric, plugins included, is resolved by the registry).
METRIC_IDS = BASE_METRIC_IDS


def check(options: AuditOptions, **own: Any) -> None:
    """Every option checked before any file is read (:func:`auditor.options.check_options`)."""
    check_options(options)


def audit(gold: Any, systems: Any, **options: Any) -> Any:
    """The classification audit (:func:`auditor.pipeline.audit`; imported when first used)."""
    from auditor.pipeline import audit as run

    return run(gold, systems, **options)


__all__ = ["OPTIONS", "METRIC_IDS", "check", "audit"]
