"""The ordinal audit: read -> the order -> classification's counts and stages, with the ordinal figures.

Reading, aligning and counting are classification's (:func:`auditor.pipeline.gather_inputs`) with the
levels as the label set in their order; :func:`auditor.pipeline.run` scores the catalogue and the ordinal
figures (:data:`~auditor.tasks.ordinal.measures.ORDINAL_METRICS`) and runs every stage on both. The ordinal
analyses (:mod:`.analyses`) read the same counts.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Collection, Mapping

import numpy as np

from auditor.errors import UsageError
from auditor.io.load import label_column
from auditor.io.names import GOLD, PREDICTIONS
from auditor.io.parallel import in_order
from auditor.options import INTERVALS, AuditOptions
from auditor.progress import SILENT, Progress
from auditor.tasks.ordinal.advice import recommend
from auditor.tasks.ordinal.agreement import ordinal_agreement
from auditor.tasks.ordinal.chance import constant_baselines
from auditor.tasks.ordinal.choices import check
from auditor.tasks.ordinal.levels import Order, check_levels, numeric_order, parse_order
from auditor.tasks.ordinal.measures import ORDINAL_METRICS
from auditor.tasks.ordinal.probes import ordinal_properties
from auditor.tasks.ordinal.result import OrdinalAudit
from auditor.tasks.ordinal.shift import level_shift

#: The stages' choices for levels (:func:`auditor.pipeline.run`'s ``selections``): tested pairwise (best sets, bold),
#: ranked (rank disagreement) and the verdict's key figures, the primary first.
SELECTIONS = {
    "test_metrics": ("mae_macro", "mae", "quadratic_kappa", "cem_ord", "spearman", "accuracy", "macro_f1"),
    "rank_metrics": ("mae_macro", "mae", "mse_macro", "mse", "within_one", "linear_kappa", "quadratic_kappa",
                     "spearman", "kendall_tau_b", "cem_ord", "accuracy", "macro_recall", "macro_f1", "kappa"),
    "key_metrics": ("mae_macro", "mae", "quadratic_kappa", "cem_ord", "accuracy"),
}
#: Catalogue metrics the ordinal property table probes beside the ordinal figures.
PROBED_CATALOGUE = ("accuracy", "macro_recall", "macro_f1", "kappa")

if TYPE_CHECKING:
    from auditor.io.validate import LabelTable
    from auditor.results import Audit


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
    check(options, order, order_file)
    if gold is None or not systems:
        raise UsageError("missing " + ("GOLD and SYSTEMS" if gold is None else "SYSTEMS")
                         + ": give a gold file and at least one system file")
    given = parse_order(order, order_file)
    if levels is not None:
        if given is not None:
            raise UsageError("the order is given twice (levels and --order/--order-file); give it once")
        given = Order(tuple(str(level) for level in levels), "given", "levels")
    reads = [(gold, "<gold>", GOLD), *((value, f"<{name}>", PREDICTIONS) for name, value in systems.items()),
             *((value, f"<{name}>", GOLD) for name, value in (annotators or {}).items())]
    columns = list(in_order(partial(label_column, *read) for read in reads))  # two files at a time
    gold_column = columns[0]
    system_columns = dict(zip(systems, columns[1:1 + len(systems)]))
    annotator_columns = dict(zip(annotators or {}, columns[1 + len(systems):]))
    chosen = given if given is not None else numeric_order(columns)
    check_levels(columns, chosen)
    options = prepare_options(replace(options, labels=None), chosen.levels, {})
    inputs = gather_inputs(gold_column, system_columns, chosen.levels, annotator_columns or None,
                           clusters=options.clusters)
    result = run(inputs, options, progress, analyses, task_metrics=ORDINAL_METRICS, selections=SELECTIONS)
    table_only = analyses is not None and set(analyses) == {INTERVALS}  # auditor score's table reads none of them
    return OrdinalAudit(result, chosen, {} if table_only else ordinal_analyses(result, inputs.annotators))


def ordinal_analyses(result: Audit, annotators: LabelTable | None) -> dict[str, Any]:
    """The ordinal analyses of an audit of levels (each O(k³) on the counts): the level shift, the constant
    baselines and, with annotators, their ordinal agreement and its ceiling."""
    counts = result.counts
    done: dict[str, Any] = {
        "level_shift": level_shift(counts.confusion, counts.labels, counts.systems),
        "constant_baselines": constant_baselines(counts.confusion[0].sum(axis=1), counts.labels, result.metrics),
        "ordinal_properties": ordinal_properties(
            (*ORDINAL_METRICS, *(metric for metric in result.metrics if metric.id in PROBED_CATALOGUE)),
            result.options.seed),
    }
    if annotators is not None:
        codes = np.stack([np.asarray(c, dtype=np.int64) for c in annotators.system_codes.values()])
        done["ordinal_agreement"] = ordinal_agreement(
            codes, tuple(annotators.system_codes), len(counts.labels), ORDINAL_METRICS,
            {name: system.metrics for name, system in result.systems.items()})
    values = {name: {m: v.value for m, v in system.metrics.items()} for name, system in result.systems.items()}
    done["recommendation"] = recommend(values, done["constant_baselines"], done["ordinal_properties"],
                                       done.get("ordinal_agreement"), {m.id: m for m in result.metrics})
    return done
