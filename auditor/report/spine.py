"""What the report skeleton reads from the audit of any task kind: the typed parts of the one record
(docs/architecture.md, "The audit record"), so that the shared sections (summary leaderboard, rankings,
significance, ledger, reproducibility, references) are written once for every task."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from auditor.analyses.rankings import RankDisagreement
    from auditor.analyses.significance import BestSet, PairTest
    from auditor.analyses.verdict import Verdict
    from auditor.io.source import Source
    from auditor.results import Audit, Score, UnitAudit


@dataclass(frozen=True)
class MetricName:
    """How the report names a task's own metric: ``name`` (full), ``label`` (column head), the ``kind`` of its
    cells (as :class:`~auditor.metrics.registry.Metric`, whose records a classification report reads instead)."""

    id: str
    name: str
    label: str
    kind: str = "score"
    family: str = "base"
    base: str | None = None


def names(full: Mapping[str, str], short: Mapping[str, str] | None = None) -> dict[str, MetricName]:
    """Metric id -> :class:`MetricName` from a task's full names and column heads (the full name where none)."""
    short = short or {}
    return {m: MetricName(m, name, short.get(m, name)) for m, name in full.items()}


@dataclass(frozen=True)
class Spine:
    """The parts of an audit every task kind has: its ``systems`` (input order), each system's metric values with
    their intervals (``scores``: system -> metric id -> :class:`~auditor.results.Score`), the metrics' names, the
    best sets (bold), the pair tests, the rankings, the verdict, the inputs and the signature; ``unit`` is what the
    resamples draw (item, sentence, segment)."""

    task: str
    systems: tuple[str, ...]
    scores: Mapping[str, Mapping[str, Score]]
    names: Mapping[str, Any]
    alpha: float
    correction: str
    sources: Mapping[str, Source]
    signature: str
    warnings: tuple[str, ...] = ()
    best_set: Mapping[str, BestSet] = field(default_factory=dict)
    tests: tuple[PairTest, ...] = ()
    rankings: RankDisagreement | None = None
    verdict: Verdict | None = None
    unit: str = "item"
    #: With clusters (``--clusters``): the record's ``statistics.resampling`` (:func:`auditor.analyses.units.
    #: resampling_json`), which page 1 states; None: the units are resampled.
    resampling: Mapping[str, Any] | None = None
    #: Why no pair test ran (None: the significance section is left out when there are none).
    untested: str | None = None

    @classmethod
    def of(cls, audit: Audit, records: Mapping[str, Any] | None = None, signature: str | None = None) -> Spine:
        """The spine of a classification :class:`~auditor.results.Audit` (``records``: metric id -> record)."""
        stats = audit.statistics
        return cls("classification", tuple(audit.systems), {s: r.metrics for s, r in audit.systems.items()},
                   records if records is not None else {m.id: m for m in audit.metrics}, float(audit.options.alpha),
                   str(audit.options.correction), audit.sources, signature or str(audit.signature), audit.warnings,
                   (stats.best_set or {}) if stats is not None else {}, tuple(stats.tests) if stats is not None else (),
                   audit.rankings, audit.verdict, resampling=getattr(stats, "resampling", None))

    @classmethod
    def of_units(cls, audit: UnitAudit, names: Mapping[str, Any], said_once: Sequence[str] = (),
                 untested: str | None = None) -> Spine:
        """The spine of a task counted per unit (a :class:`~auditor.results.UnitAudit`: tagging, translation): its
        record's parts and the metrics' ``names``. The conventions of the ``said_once`` metrics are said once in
        the task's own text instead of a ledger entry per cell (the JSON keeps them); ``untested``: why no pair
        test ran (by default, with no tests, the statistics' note, else ``--bootstrap 0`` when it asked for none)."""
        from auditor.io.source import Source

        sources = {name: x if isinstance(x, Source) else Source(str(x["path"]), x.get("sha256"), audit.n_items)
                   for name, x in audit.sources.items()}
        scores = {s: {m: replace(v, convention=None) if m in said_once else v for m, v in row.items()}
                  for s, row in audit.metrics.items()}
        return cls(audit.task, tuple(audit.systems), scores, names, float(audit.options["alpha"]),
                   str(audit.options["correction"]), sources, str(audit.signature), tuple(audit.warnings),
                   audit.best_set or {}, tuple(audit.tests or ()), audit.rankings, audit.verdict, audit.unit,
                   audit.resampling,
                   untested or (None if audit.tests is not None else getattr(audit.statistics, "note", None) or (
                       "not run: --bootstrap 0" if not audit.options.get("bootstrap") else None)))

    @property
    def tested(self) -> bool:
        """Whether any metric has a best set (else nothing is bold)."""
        return bool(self.best_set)
