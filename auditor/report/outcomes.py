"""The record and the report of per-item outcomes (a generation task's per-item metric,
:mod:`auditor.analyses.outcomes`): :class:`OutcomesAudit`, the one record every task counted per unit writes, and its
report through the skeleton: the mean of every system with its interval, the paired tests, the ranks, the best set
(bold), and a sentence that the class-based analyses do not apply."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from auditor.options import AuditOptions
from auditor.report import skeleton
from auditor.report.context import Context
from auditor.report.model import Cell, Column, Paragraph, Report, Row, Section, Table
from auditor.report.spine import MetricName, Spine
from auditor.results import Signature, UnitAudit, unit_options, unit_scores

#: Why prevalence, bias, chance baselines and confusion matrices are absent.
NOT_APPLICABLE = ("The class-based analyses (class prevalence, prediction bias, chance baselines, confusion matrices, "
                  "per-class scores and the metric properties) do not apply: a generation task logs one score per "
                  "item, not a gold class and a predicted one.")

#: Why no pair was tested with ``--bootstrap 0`` and values that are not all 0/1 (or clustered items).
UNTESTED = ("did not run: with --bootstrap 0 there are no randomisation rounds, and values that are not all 0/1 (or "
            "clustered items) have no exact test, so no best set is formed and nothing is bold")


def spine(audit: OutcomesAudit) -> Spine:
    """What the skeleton reads from the record (:meth:`Spine.of_units`), systems best first (one metric, no verdict
    to order them) and no rank disagreement between metrics: the ranks are this report's own section,
    :func:`rank_section`, not the skeleton's."""
    outcomes = audit.outcomes
    order = tuple(outcomes.systems[s] for s in np.argsort(-np.asarray(outcomes.means, dtype=float), kind="stable"))
    untested = UNTESTED if "randomisation" in outcomes.not_run and len(outcomes.systems) > 1 else None
    return replace(Spine.of_units(audit, {outcomes.metric: MetricName(outcomes.metric, f"mean {outcomes.metric}",
                                                                      outcomes.metric)}, untested=untested),
                   systems=order, rankings=None)


def signature(outcomes: Any) -> Signature:
    """The signature every task counted per unit writes (:meth:`Signature.of_units`: version, the samples files'
    hashes, bootstrap, seed, interval, alpha, correction, the unit or clusters drawn) with the metric."""
    options = {"bootstrap": outcomes.bootstrap, "seed": outcomes.seed, "alpha": outcomes.alpha,
               "correction": outcomes.correction}
    return Signature.of_units("outcomes", (), {name: str(x.get("sha256")) for name, x in outcomes.sources.items()},
                              options, (("metric", outcomes.metric),), "percentile", "item", outcomes.clusters)


def summary_section(ctx: Context) -> Section:
    outcomes = ctx.audit
    kind = "right/wrong (0/1)" if outcomes.binary else "a score per item"
    filters = sorted({str(x["filter"]) for x in outcomes.sources.values() if x.get("filter")})
    data = (f"{outcomes.n_items:,} items scored by {len(outcomes.systems)} systems under {outcomes.metric} ({kind}"
            + (f", filter {', '.join(filters)}" if filters else "") + "); every figure is the mean of the per-item "
            "values")
    interval = ("" if outcomes.intervals is None else
                f" with {ctx.level} bootstrap percentile intervals over items ({outcomes.bootstrap:,} resamples)")
    return skeleton.summary_section(ctx, data, (outcomes.metric,), f"Mean {outcomes.metric} (×100){interval}.",
                                    after=[("Class-based analyses", NOT_APPLICABLE)])


def rank_section(ctx: Context) -> Section | None:
    """Each system's rank by its mean (1 = best, ties share the mean rank) and whether it is in the best set."""
    from scipy.stats import rankdata

    outcomes = ctx.audit
    if len(outcomes.systems) < 2:
        return None
    ranks = dict(zip(outcomes.systems, rankdata(-np.asarray(outcomes.means, dtype=float))))
    best = ctx.best(outcomes.metric)
    rows = tuple(Row(s, (Cell(float(ranks[s]), "rank"), Cell("untested" if best is None else
                                                              "yes" if s in best else "no")))
                 for s in ctx.systems)
    return Section("rankings", "Ranks", (
        Paragraph("One metric ranks the systems, so there is no rank disagreement between metrics to show: the ranks "
                  "below order the means, and the best set says which differences the paired tests can tell apart."),
        Table("table-ranks", f"Rank by mean {outcomes.metric} (1 = best; ties share the mean rank) and best-set "
              "membership.", "System", (Column("Rank"), Column("Best set")), rows, for_paper=True)))


def definitions_section(ctx: Context) -> Section:
    metric = ctx.audit.metric
    return skeleton.definitions_section(ctx, (
        f"x_si is system s's {metric} on item i as the log records it; N items. The interval is the percentile "
        "interval of the mean over resamples of the items, every system on the same resample (Efron & Tibshirani "
        "1993)."), ((metric, f"mean {metric}", r"m_s = \frac{1}{N}\sum_{i=1}^{N} x_{si}",
                     (("id", metric), ("range", "[0, 1] for a 0/1 outcome"), ("undefined when", "never (N ≥ 1)"))),))


#: The outcomes report's own sections and their places in the skeleton.
SECTIONS = ((10, summary_section), (101, rank_section), (120, skeleton.significance_section),
            (140, definitions_section))


def report_model(audit: OutcomesAudit, figures: bool = True) -> Report:
    """The report model of per-item outcomes (its sections read the analysis, ``ctx.audit``)."""
    outcomes = audit.outcomes
    subtitle = f"{len(outcomes.systems)} systems' per-item {outcomes.metric} over {outcomes.n_items:,} items"
    return skeleton.task_report(outcomes, spine(audit), SECTIONS, "Generation outcomes audit", subtitle, figures)


@dataclass(frozen=True, eq=False, kw_only=True)
class OutcomesAudit(UnitAudit):
    """The record of per-item outcomes (:class:`~auditor.analyses.outcomes.Outcomes`, ``outcomes``): the one record
    of a task counted per unit (:class:`~auditor.results.UnitAudit`, its JSON every task kind's), with its report
    (``report_model``) and ``auditor score``'s table."""

    task = "outcomes"
    unit = "item"
    default_columns = ()

    outcomes: Any

    @classmethod
    def of(cls, outcomes: Any) -> OutcomesAudit:
        """The record of ``outcomes``: its mean per system with the interval, tests, best set, rankings and options."""
        metric, level = outcomes.metric, None if outcomes.intervals is None else 1 - outcomes.alpha
        scores = unit_scores(outcomes.systems, {metric: outcomes.means}, lambda m, s: None if outcomes.intervals is
                             None else tuple(map(float, outcomes.intervals[s])), level, lambda m, s, v: (None, None))
        options = unit_options(AuditOptions(bootstrap=outcomes.bootstrap, seed=outcomes.seed, alpha=outcomes.alpha,
                                            correction=outcomes.correction), **outcomes.inputs)
        best = {} if outcomes.best is None or len(outcomes.systems) < 2 else {metric: outcomes.best}
        return cls(signature=signature(outcomes), n_items=outcomes.n_items, systems=tuple(outcomes.systems),
                   sources={name: dict(x) for name, x in outcomes.sources.items()}, options=options, metrics=scores,
                   tests=tuple(outcomes.pairs), best_set=best, rankings=outcomes.ranking,
                   resampling=outcomes.resampling, warnings=tuple(outcomes.warnings), outcomes=outcomes)

    def own_json(self) -> dict[str, Any]:
        return self.outcomes.own_json()

    def _statistics_json(self) -> dict[str, Any]:
        return self.outcomes.statistics_json()

    def terminal_lines(self, columns: Sequence[str] = (), sort: str | None = None) -> list[str]:
        return self.outcomes.terminal_lines(columns, sort)

    def report_model(self, figures: bool = True) -> Report:
        return report_model(self, figures)
