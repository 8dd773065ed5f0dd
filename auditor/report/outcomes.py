"""The report of per-item outcomes (a generation task's per-item metric, :mod:`auditor.analyses.outcomes`), written
through the report skeleton: the mean of every system with its interval, the paired tests, the ranks, the best set
(bold), and a sentence that the class-based analyses do not apply."""
from __future__ import annotations

from typing import Any

import numpy as np

from auditor.io.source import Source
from auditor.report import skeleton
from auditor.report.context import Context
from auditor.report.model import Cell, Column, Paragraph, Report, Row, Section, Table
from auditor.report.spine import MetricName, Spine
from auditor.results import SCHEMA, Score, Signature
from auditor.version import __version__

#: Why prevalence, bias, chance baselines and confusion matrices are absent.
NOT_APPLICABLE = ("The class-based analyses (class prevalence, prediction bias, chance baselines, confusion matrices, "
                  "per-class scores and the metric properties) do not apply: a generation task logs one score per "
                  "item, not a gold class and a predicted one.")

#: Why no pair was tested with ``--bootstrap 0`` and values that are not all 0/1 (or clustered items).
UNTESTED = ("did not run: with --bootstrap 0 there are no randomisation rounds, and values that are not all 0/1 (or "
            "clustered items) have no exact test, so no best set is formed and nothing is bold")


def spine(outcomes: Any) -> Spine:
    """What the skeleton reads from an :class:`~auditor.analyses.outcomes.Outcomes` (systems best first: one
    metric, no verdict to order them; no rank disagreement between metrics, so the ranks are this report's own
    section, :func:`rank_section`, not the skeleton's)."""
    metric, systems = outcomes.metric, tuple(outcomes.systems)
    level = None if outcomes.intervals is None else 1 - outcomes.alpha
    intervals = [(None, None) if outcomes.intervals is None else tuple(map(float, row)) for row in
                 (outcomes.intervals if outcomes.intervals is not None else systems)]
    scores = {name: {metric: Score(float(outcomes.means[s]), None, None, *intervals[s], level)}
              for s, name in enumerate(systems)}
    best = {} if outcomes.best is None or len(systems) < 2 else {metric: outcomes.best}
    sources = {name: Source(str(x["path"]), x.get("sha256"), int(x.get("n_items") or outcomes.n_items))
               for name, x in outcomes.sources.items()}
    order = tuple(systems[s] for s in np.argsort(-np.asarray(outcomes.means, dtype=float), kind="stable"))
    return Spine("outcomes", order, scores, {metric: MetricName(metric, f"mean {metric}", metric)},
                 float(outcomes.alpha), str(outcomes.correction), sources, str(signature(outcomes)),
                 tuple(outcomes.warnings), best, tuple(outcomes.pairs), resampling=outcomes.resampling,
                 untested=UNTESTED if "randomisation" in outcomes.not_run and len(systems) > 1 else None)


def signature(outcomes: Any) -> Signature:
    """The shared fields (version, inputs' hashes, bootstrap, seed, interval, correction) and the metric."""
    import hashlib

    hashes = "|".join(f"{name}:{x.get('sha256')}" for name, x in outcomes.sources.items())
    return Signature((("auditor", __version__), ("task", "outcomes"), ("metric", outcomes.metric),
                      ("systems", f"{len(outcomes.systems)}:{hashlib.sha256(hashes.encode()).hexdigest()[:12]}"),
                      ("boot", str(outcomes.bootstrap)), ("seed", str(outcomes.seed)),
                      ("ci", "percentile" if outcomes.bootstrap else "none"),
                      ("alpha", str(outcomes.alpha)), ("correction", str(outcomes.correction)),
                      *((("unit", f"cluster:{_cluster_key(outcomes.clusters)}"),) if outcomes.clusters else ())))


def _cluster_key(clusters: Any) -> str:
    """The clusters' file hash or lm-eval ``doc`` field, for the signature."""
    source = clusters.source or {}
    return str(source.get("sha256") or source.get("field") or "")[:12]


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


def report_model(outcomes: Any, figures: bool = True) -> Report:
    """The report model of per-item outcomes."""
    subtitle = f"{len(outcomes.systems)} systems' per-item {outcomes.metric} over {outcomes.n_items:,} items"
    return skeleton.task_report(outcomes, spine(outcomes), SECTIONS, "Generation outcomes audit", subtitle, figures)


class Reported:
    """An :class:`~auditor.analyses.outcomes.Outcomes` with its record (``to_json``: the outcomes' record with the
    ``schema`` and the ``signature``) and its report (``report_model``): every other attribute is the outcomes'
    own."""

    def __init__(self, outcomes: Any) -> None:
        self.outcomes = outcomes

    def __getattr__(self, name: str) -> Any:
        return getattr(self.outcomes, name)

    @property
    def signature(self) -> Signature:
        return signature(self.outcomes)

    def to_json(self) -> dict[str, Any]:
        """audit.json: the one record (docs/architecture.md, "The audit record") with ``task: "outcomes"``."""
        return {"schema": SCHEMA, "signature": str(self.signature), **self.outcomes.to_json()}

    def report_model(self, figures: bool = True) -> Report:
        return report_model(self.outcomes, figures)
