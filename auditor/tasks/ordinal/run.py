"""The ordinal audit: read -> the order -> classification's counts and stages, with the ordinal figures.

Reading, aligning and counting are classification's (:func:`auditor.pipeline.gather_inputs`) with the
levels as the label set in their order; :func:`auditor.pipeline.run` scores the catalogue and the ordinal
figures (:data:`~auditor.tasks.ordinal.measures.ORDINAL_METRICS`) and runs every stage on both. The ordinal
analyses (:mod:`.analyses`) read the same counts.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Collection, Mapping

from auditor.errors import UsageError
from auditor.io.load import label_column
from auditor.io.names import PREDICTIONS
from auditor.options import AuditOptions
from auditor.progress import SILENT, Progress
from auditor.tasks.ordinal.levels import Order, check_levels, numeric_order, parse_order
from auditor.tasks.ordinal.measures import ORDINAL_METRICS
from auditor.tasks.ordinal.result import OrdinalAudit


def audit(gold: Any, systems: Mapping[str, Any], *, options: AuditOptions | None = None,
          progress: Progress = SILENT, analyses: Collection[str] | None = None, order: str | None = None,
          order_file: str | None = None, annotators: Mapping[str, Any] | None = None,
          levels: Any = None) -> OrdinalAudit:
    """Audit ordinal ``systems`` ({name: path, list, array or Series}) against ``gold``.

    Parameters
    ----------
    order, order_file : the levels lowest first (``--order`` text, ``--order-file`` path); ``levels`` the same
        as a sequence (Python callers). None of them: integer labels ordered by value, anything else refused.
    annotators : {name: labels of the gold items}: ordinal agreement of the gold's annotators.
    options, progress, analyses : as for :func:`auditor.pipeline.audit`.

    Examples
    --------
    >>> result = audit(["low", "mid", "high", "mid"], {"s": ["mid", "mid", "high", "low"]},
    ...                levels=["low", "mid", "high"], options=AuditOptions(bootstrap=0))
    >>> result.audit.systems["s"].metrics["mae"].value
    0.75
    """
    from auditor.pipeline import gather_inputs, prepare_options, run

    options = options or AuditOptions()
    if options.labels is not None:
        raise UsageError("--labels is for classification; give the levels lowest first with --order A,B,C "
                         "(or --order-file FILE)")
    if gold is None or not systems:
        raise UsageError("missing " + ("GOLD and SYSTEMS" if gold is None else "SYSTEMS")
                         + ": give a gold file and at least one system file")
    given = parse_order(order, order_file)
    if levels is not None:
        if given is not None:
            raise UsageError("the order is given twice (levels and --order/--order-file); give it once")
        given = Order(tuple(str(level) for level in levels), "given", "levels")
    gold_column = label_column(gold, "<gold>")
    system_columns = {name: label_column(value, f"<{name}>", PREDICTIONS) for name, value in systems.items()}
    annotator_columns = {name: label_column(value, f"<{name}>") for name, value in (annotators or {}).items()}
    columns = [gold_column, *system_columns.values(), *annotator_columns.values()]
    chosen = given if given is not None else numeric_order(columns)
    check_levels(columns, chosen)
    options = prepare_options(replace(options, labels=None), chosen.levels, {})
    inputs = gather_inputs(gold_column, system_columns, chosen.levels, annotator_columns or None)
    result = run(inputs, options, progress, analyses, task_metrics=ORDINAL_METRICS)
    return OrdinalAudit(result, chosen)
