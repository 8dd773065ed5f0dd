"""Stage "record": the :class:`Audit` record of one audit (every analysis's result by name) and its JSON.

The pipeline builds the (frozen) record once its analyses have run; the report and every
output format read it. ``Audit.to_json`` is the one place the audit JSON (schema
``auditor/3``, described by ``auditor/audit.schema.json``) is produced; every task kind's record writes the
same keys (docs/architecture.md, "The audit record").
"""
from __future__ import annotations

import hashlib
import math
import operator
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Generic, Mapping, Sequence, TypeVar

import numpy as np

from auditor.io.counts import Counts
from auditor.io.source import Source
from auditor.metrics.catalogue import MetricValue
from auditor.metrics.registry import Metric
from auditor.options import AuditOptions
from auditor.version import __version__

if TYPE_CHECKING:  # the analysis modules load scipy; the record needs only their names
    from auditor.analyses.agreement import GoldReliability
    from auditor.analyses.baselines import ChanceBaselines
    from auditor.analyses.families import BestSet, PairTest
    from auditor.analyses.profile import DataProfile
    from auditor.analyses.properties import PropertyTable
    from auditor.analyses.rankings import Deployment, RankDisagreement
    from auditor.analyses.recommend import Recommendation
    from auditor.analyses.reporting import Reporting
    from auditor.analyses.scores import ScoreAnalysis
    from auditor.analyses.significance import Statistics
    from auditor.analyses.slices import SliceAnalysis
    from auditor.analyses.units import UnitStatistics
    from auditor.analyses.verdict import Verdict

#: The audit JSON's schema, the same for every task kind (``auditor/audit.schema.json``).
SCHEMA = "auditor/3"
#: Columns ``auditor score``'s table of a task kind fits.
TERMINAL_WIDTH = 80
T = TypeVar("T")


class ResultField(Generic[T]):
    """``audit.NAME``: the result of the analysis NAME, ``audit.results.get(NAME)`` (None: it did
    not run), typed by the class's parameter."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, audit: Any, owner: type | None = None) -> T | None:
        return None if audit is None else audit.results.get(self.name)


@dataclass(frozen=True, eq=False)
class Score(MetricValue):
    """A metric value with its interval: what ``audit.systems[NAME].metrics[ID]`` holds.

    ``value`` (None: 0/0, ``undefined`` says why; ``convention`` names filled-in parts), ``lo`` and
    ``hi``: the bootstrap percentile interval at ``level`` (None without resamples). It reads as
    a number: ``float(score)`` (NaN when undefined), comparisons and arithmetic with numbers,
    ``f"{score:.3f}"`` and ``round``; ``repr`` shows the value, the interval and any reason.

    >>> s = Score(0.5, lo=0.42, hi=0.58, level=0.95)
    >>> s
    Score(0.5, 95% CI [0.42, 0.58])
    >>> s > 0.4, s * 100, f"{s:.2f}"
    (True, 50.0, '0.50')
    """

    lo: float | None = None
    hi: float | None = None
    level: float | None = None

    @classmethod
    def of(cls, value: MetricValue, interval: tuple[float, float] | None, level: float | None) -> Score:
        """``value`` with ``interval`` (lo, hi) at ``level`` (a Score is re-made, not nested)."""
        lo, hi = interval if interval is not None else (None, None)
        return cls(value.value, value.undefined, value.convention, _finite(lo), _finite(hi), level)

    @property
    def interval(self) -> tuple[float, float] | None:
        return None if self.lo is None or self.hi is None else (self.lo, self.hi)

    def to_json(self) -> dict[str, Any]:
        """``systems.NAME.metrics.ID`` of every task kind: ``value``, ``ci`` ([lo, hi] or null), ``undefined``,
        ``convention``."""
        return {"value": _finite(self.value), "ci": None if self.interval is None else list(self.interval),
                "undefined": self.undefined, "convention": self.convention}

    def __float__(self) -> float:
        return math.nan if self.value is None else float(self.value)

    def __format__(self, spec: str) -> str:
        return format(float(self), spec) if spec else repr(self)

    def __round__(self, digits: int | None = None) -> float:
        return round(float(self), digits)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MetricValue):
            return (self.value, self.undefined, self.convention) == (other.value, other.undefined, other.convention) \
                and (self.lo, self.hi) == (getattr(other, "lo", None), getattr(other, "hi", None))
        if isinstance(other, (int, float, np.number)):
            return float(self) == float(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.value, self.undefined, self.convention, self.lo, self.hi))

    def __repr__(self) -> str:
        if self.value is None:
            return f"Score(undefined: {self.undefined or '0/0'})"
        parts = [f"{self.value:.6g}"]
        if self.interval is not None:
            level = f"{100 * self.level:g}% CI " if self.level is not None else "CI "
            parts.append(f"{level}[{self.lo:.6g}, {self.hi:.6g}]")
        if self.convention:
            parts.append(f"convention: {self.convention}")
        return f"Score({', '.join(parts)})"


def _number_method(name: str, reflected: bool = False):
    """A float operator on ``float(score)`` (``other`` a number or another Score)."""
    function = getattr(operator, name)

    def method(self: Score, other: Any) -> Any:
        if not isinstance(other, (int, float, np.number, Score)):
            return NotImplemented
        a, b = float(self), float(other)
        return function(b, a) if reflected else function(a, b)
    return method


for _name in ("lt", "le", "gt", "ge"):
    setattr(Score, f"__{_name}__", _number_method(_name))
for _name in ("add", "sub", "mul", "truediv", "pow"):
    setattr(Score, f"__{_name}__", _number_method(_name))
    setattr(Score, f"__r{_name}__", _number_method(_name, reflected=True))
Score.__neg__ = lambda self: -float(self)  # type: ignore[method-assign]
Score.__abs__ = lambda self: abs(float(self))  # type: ignore[method-assign]


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


@dataclass(frozen=True)
class SystemResult:
    """One system's metric values, per-class table and confusion matrix."""

    name: str
    metrics: dict[str, MetricValue]
    per_class: dict[str, dict[str, Any]]
    confusion: np.ndarray

    def to_json(self) -> dict[str, Any]:
        """``systems.NAME``: metrics, per-class table, confusion matrix (rows gold, columns predicted)."""
        return {"metrics": {metric_id: value.to_json() for metric_id, value in self.metrics.items()},
                "per_class": self.per_class, "confusion": self.confusion.tolist()}


@dataclass(frozen=True, init=False)
class Audit:
    """Result of :func:`audit`: the counts, every metric of every system, and ``results``, each
    analysis's result by its stage name in the order the pipeline ran them (one that did not run
    is absent). ``audit.statistics`` and the like read ``results`` (None: did not run); a new
    analysis needs no field here. ``Audit(..., baselines=x)`` and ``dataclasses.replace(audit,
    baselines=x)`` set one result (None removes it)."""

    labels: tuple[str, ...]
    n_items: int
    counts: Counts
    metrics: tuple[Metric, ...]
    systems: dict[str, SystemResult]
    sources: Mapping[str, Source]
    options: AuditOptions
    profile: DataProfile
    #: Label-check warnings (:mod:`auditor.analyses.label_checks`), printed by the CLI and on page 1.
    warnings: tuple[str, ...] = ()
    results: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __init__(self, labels: tuple[str, ...], n_items: int, counts: Counts, metrics: tuple[Metric, ...],
                 systems: dict[str, SystemResult], sources: Mapping[str, Source], options: AuditOptions,
                 profile: DataProfile, warnings: tuple[str, ...] = (), results: Mapping[str, Any] | None = None,
                 **analyses: Any) -> None:
        merged = {**(results or {}), **analyses}
        systems = _with_intervals(systems, merged.get("statistics"), options)
        given = dict(labels=labels, n_items=n_items, counts=counts, metrics=metrics, systems=systems, sources=sources,
                     options=options, profile=profile, warnings=warnings,
                     results=MappingProxyType({name: value for name, value in merged.items() if value is not None}))
        for name, value in given.items():
            object.__setattr__(self, name, value)

    # The analyses' results, typed (None: did not run); a new analysis may add its own line here.
    baselines: ClassVar[ResultField[ChanceBaselines]] = ResultField()
    statistics: ClassVar[ResultField[Statistics]] = ResultField()
    properties: ClassVar[ResultField[PropertyTable]] = ResultField()
    rankings: ClassVar[ResultField[RankDisagreement]] = ResultField()
    deployment: ClassVar[ResultField[Deployment]] = ResultField()
    recommendation: ClassVar[ResultField[Recommendation]] = ResultField()
    verdict: ClassVar[ResultField[Verdict]] = ResultField()
    gold_reliability: ClassVar[ResultField[GoldReliability]] = ResultField()
    scores: ClassVar[ResultField[ScoreAnalysis]] = ResultField()
    slices: ClassVar[ResultField[SliceAnalysis]] = ResultField()

    def interval(self, system: str, metric_id: str) -> tuple[float, float] | None:
        """The bootstrap percentile interval of ``metric_id`` for ``system``; None without one
        (no resamples, or no defined resample)."""
        if self.statistics is None or metric_id not in self.statistics.bootstrap.intervals:
            return None
        return self.statistics.bootstrap.interval(metric_id, system)

    def to_frame(self) -> Any:
        """A tidy pandas DataFrame, one row per system and metric: ``system``, ``metric``, ``value``
        (on [0, 1], NaN where undefined), ``lo`` and ``hi`` (the bootstrap percentile interval, NaN
        without one) and ``undefined`` (why the value is 0/0, else None). Needs pandas."""
        import pandas as pd

        rows = []
        for system, result in self.systems.items():
            for metric_id, value in result.metrics.items():
                low, high = self.interval(system, metric_id) or (np.nan, np.nan)
                rows.append((system, metric_id, np.nan if value.value is None else value.value, low, high,
                             value.undefined))
        columns = ["system", "metric", "value", "lo", "hi", "undefined"]
        frame = pd.DataFrame(rows, columns=columns)
        frame["undefined"] = pd.Series([row[5] for row in rows], dtype=object)  # None, not NaN, where defined
        return frame

    def _leaderboard(self) -> tuple[list[str], list[str], list[list[str]]]:
        """(systems, metric labels, cells ×100) of the key metrics, in the primary metric's order."""
        from auditor.formatting import format_value

        order = list(self.verdict.order) if self.verdict is not None else list(self.systems)
        keys = self._leaderboard_keys()
        labels = [self._label(k) for k in keys]
        cells = [[format_value(self.systems[s].metrics[k].value, "score") for k in keys] for s in order]
        return order, labels, cells

    @property
    def ordered(self) -> bool:
        """Whether the labels are ordered levels: an error in steps of their order (ordinal MAE, …) was scored."""
        return any(not metric.higher_is_better for metric in self.metrics)

    def _leaderboard_keys(self) -> list[str]:
        """Classification's key metrics this audit scored."""
        from auditor.analyses.verdict import KEY_METRICS

        present = next(iter(self.systems.values())).metrics if self.systems else {}
        return [m for m in KEY_METRICS if m in present]

    def _label(self, metric_id: str) -> str:
        return next((m.label for m in self.metrics if m.id == metric_id), metric_id)

    def __repr__(self) -> str:
        """One line of what was audited and the leaderboard (×100) of at most 10 systems: < 2,000 characters."""
        systems, labels, cells = self._leaderboard()
        head = (f"<Audit: {len(self.systems)} systems, {self.n_items:,} items, {len(self.labels)} labels; "
                f"scores ×100{'' if self.verdict is None else ', ordered by ' + self._label(self.verdict.primary)}>")
        width = min(24, max([6] + [len(s) for s in systems]))
        lines = [head, " " * width + "".join(f"{label:>8}" for label in labels)]
        lines += [f"{s[:width]:<{width}}" + "".join(f"{c:>8}" for c in row) for s, row in zip(systems[:10], cells)]
        if len(systems) > 10:
            lines.append(f"... {len(systems) - 10} more systems (Audit.to_frame() has them all)")
        return "\n".join(lines)[:1990]

    def _repr_html_(self) -> str:
        """The notebook view: page 1's leaderboard as an HTML table (every name escaped) — each key metric ×100 with
        its bootstrap percentile interval, the metric's best set in bold (only where tests ran), and whether the
        primary metric is significantly above its shuffle baseline; the caption says how each was decided."""
        from html import escape

        from auditor.analyses.shuffle_test import untested_reason
        from auditor.formatting import format_value, typographic_minus
        from auditor.options import correction_name

        verdict, statistics, chance = self.verdict, self.statistics, self.baselines
        order = list(verdict.order) if verdict is not None else list(self.systems)
        present = self.systems[order[0]].metrics if order else {}
        keys = [m for m in (verdict.key_metrics if verdict is not None else ()) if m in present] or \
            self._leaderboard_keys()
        best = {m: set(v) for m, v in verdict.leaders.items()} if verdict is not None and verdict.tested else {}
        primary = verdict.primary if verdict is not None else None
        alpha = float(self.options.alpha)

        kinds = {m.id: m.kind for m in self.metrics}

        def cell(system: str, metric: str) -> str:
            kind = kinds.get(metric, "score")
            value = format_value(self.systems[system].metrics[metric].value, kind)
            text = f"<b>{value}</b>" if system in best.get(metric, ()) else value
            interval = self.interval(system, metric)
            if interval is not None:
                text += f" <small>[{format_value(interval[0], kind)}, {format_value(interval[1], kind)}]</small>"
            return f"<td style='text-align:right;white-space:nowrap'>{typographic_minus(text)}</td>"

        def above(system: str) -> str:
            comparison = chance.chance.get(system, {}).get(primary) if chance is not None and primary else None
            p = None if comparison is None else comparison.p_shuffle_adjusted
            if p is None and comparison is not None and comparison.undefined is None and \
                    comparison.shuffle_p is not None and comparison.shuffle_p.p is None:
                return f"<td>{untested_reason(chance.draws)}</td>"  # no draw, no exact test or settling bound
            return "<td>—</td>" if p is None else f"<td>{'yes' if p < alpha else 'no'}</td>"

        has_chance = chance is not None and primary is not None and any(
            primary in chance.chance.get(s, {}) for s in order)
        head = "".join(f"<th>{escape(self._label(k))}</th>" for k in keys)
        head += "<th>above chance</th>" if has_chance else ""
        body = "".join(f"<tr><th>{escape(s)}</th>" + "".join(cell(s, k) for k in keys)
                       + (above(s) if has_chance else "") + "</tr>" for s in order)
        every_score = all(kinds.get(k, "score") == "score" for k in keys)
        scaled = "scores ×100" if every_score else "scores ×100, errors as they are"
        caption = [f"{len(self.systems)} systems, {self.n_items:,} items, {len(self.labels)} labels; {scaled}"]
        if primary is not None:
            caption.append(f"ordered by {escape(self._label(primary))}")
        if statistics is not None and statistics.bootstrap.B > 0:
            caption.append(f"brackets: {100 * (1 - alpha):g}% bootstrap percentile interval "
                           f"(B = {statistics.bootstrap.B:,})")
        if best:
            caption.append(f"bold: the metric's best set, the top system and every system not significantly worse "
                           f"(exact McNemar for accuracy, approximate randomisation otherwise; "
                           f"{correction_name(statistics.correction)}-adjusted, p ≥ α = {alpha:g})")
        else:
            caption.append("nothing is bold: no significance test ran")
        if statistics is not None and statistics.not_run:
            caption.append("no random draws (--bootstrap 0): only accuracy's exact McNemar tests ran, so only "
                           "accuracy has a best set")
        if has_chance:
            caption.append(f"above chance: {escape(self._label(primary))} significantly better than a shuffle of "
                           f"the system's own predictions ({correction_name(chance.correction)}-adjusted over the "
                           f"systems, p < α)")
        return (f"<table><caption style='caption-side:top;text-align:left'>{'; '.join(caption)}.</caption>"
                f"<thead><tr><th>system</th>{head}</tr></thead><tbody>{body}</tbody></table>")

    @property
    def reporting(self) -> Reporting:
        """The reporting statement (:mod:`auditor.analyses.reporting`): a paragraph a paper can paste."""
        from auditor.analyses.reporting import of_audit

        return of_audit(self)

    @property
    def signature(self) -> Signature:
        """The reproducibility signature (:class:`Signature`); ``str()`` of it is the JSON's string."""
        return Signature.of(self)

    def to_json(self) -> dict[str, Any]:
        """The audit JSON (schema ``auditor/3``, ``auditor/audit.schema.json``); ``null`` for
        undefined values. The keys stay where docs/architecture.md ("The audit record") puts them.

        Each analysis's result writes its own keys (its ``to_json``), in the order they ran;
        what it returns under ``systems`` goes into each system's entry."""
        document: dict[str, Any] = {
            "schema": SCHEMA, "signature": str(self.signature), "task": "classification",
            "labels": list(self.labels), "n_items": self.n_items,
            "orientation": "rows = gold class, columns = predicted class",
            "sources": {name: source.to_json() for name, source in self.sources.items()},
            "options": self.options.to_json(), "profile": self.profile.to_json(),
            "warnings": list(self.warnings),
            "systems": {name: result.to_json() for name, result in self.systems.items()},
        }
        document.update(self.reporting.to_json())
        for result in self.results.values():
            merge_json(document, result.to_json())
        return document


def _with_intervals(systems: dict[str, SystemResult], statistics: Any,
                    options: AuditOptions) -> dict[str, SystemResult]:
    """Each system's metric values as :class:`Score` objects with their bootstrap intervals (if any)."""
    intervals = statistics.bootstrap.intervals if statistics is not None else {}
    level = 1 - options.alpha if statistics is not None else None

    def interval(system: str, metric_id: str) -> tuple[float, float] | None:
        return statistics.bootstrap.interval(metric_id, system) if metric_id in intervals else None

    return {name: replace(result, metrics={m: Score.of(v, interval(name, m), level) for m, v in result.metrics.items()})
            for name, result in systems.items()}


def merge_json(document: dict[str, Any], part: Mapping[str, Any]) -> None:
    """Write ``part``'s keys into ``document``; a mapping meets a mapping key by key (so an
    analysis adds ``ci`` inside each system's metric entries without rewriting them)."""
    for key, value in part.items():
        if isinstance(value, Mapping) and isinstance(document.get(key), dict):
            merge_json(document[key], value)
        else:
            document[key] = value


@dataclass(frozen=True)
class Signature:
    """The reproducibility signature: ordered ``(key, value)`` pairs, written ``key:value|...``
    (sacrebleu's ``Signature`` is the model: one record of what changes the numbers, one format).

    ``auditor:<version>|gold:<sha256[:12]>|systems:<n>:<sha256[:12] of their hashes>|labels:<k>|
    boot:B|seed:S|ci:percentile|alpha:A|correction:C|samplers:...`` (``ci:none|…|samplers:none`` when B = 0) then, when
    they apply, ``plugins:``, ``input:confusion`` (matrices only), ``slices:<sha256[:12]>`` and
    ``label_map:<sha256[:12]>``.
    """

    fields: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, audit: Audit) -> Signature:
        """The signature of ``audit``: its inputs' hashes, version and every option that changes a number."""
        from auditor.analyses.pairwise_resample import PAIRS
        from auditor.analyses.sampling import signature

        sources, options = audit.sources, audit.options

        def sha256(name: str) -> str:
            return (sources[name].sha256 if name in sources else None) or ""

        gold_hash = (sha256("gold") or _hash_codes(audit.counts.gold, audit.labels))[:12]
        systems_hash = hashlib.sha256("|".join(f"{name}:{sha256(name)}" for name in audit.counts.systems).encode()
                                      ).hexdigest()[:12]
        fields = [
            ("auditor", __version__), ("gold", gold_hash), ("systems", f"{len(audit.systems)}:{systems_hash}"),
            ("labels", str(len(audit.labels))), ("boot", str(options.bootstrap)), ("seed", str(options.seed)),
            ("ci", "percentile"), ("alpha", str(options.alpha)), ("correction", str(options.correction)),
            ("samplers", signature()),  # which draws made the intervals, the ranks and the chance ranges
        ]
        statistics = getattr(audit, "statistics", None)
        if statistics is not None and getattr(statistics.bootstrap, "pairwise", None) is not None:
            fields[-1] = ("samplers", signature(PAIRS))  # each pair's own resample
        if options.plugins:
            fields.append(("plugins", ",".join(options.plugins)))
        if not audit.counts.paired:  # confusion matrices only: each matrix bootstrapped on its own
            fields.append(("input", "confusion"))
        if audit.slices is not None:
            fields.append(("slices", (audit.slices.source.sha256 or "")[:12]))
        resampling = getattr(statistics, "resampling", None)
        if resampling is not None:  # clusters drawn instead of items: the file's hash, or the lm-eval doc field
            source = resampling.get("source") or {}
            fields.append(("unit", f"cluster:{(source.get('sha256') or source.get('field') or '')[:12]}"))
            samplers = dict(fields)["samplers"].split(",")
            fields = [("samplers", ",".join(["ci=clusters", "ranks=clusters", *samplers[2:]])) if key == "samplers"
                      else (key, value) for key, value in fields]
        if options.bootstrap == 0:  # --bootstrap 0 draws nothing: no interval method, no sampler
            fields = [(key, "none") if key in ("ci", "samplers") else (key, value) for key, value in fields]
        if options.label_map is not None:  # the groups counted: a hash of the map's lines
            lines = "\n".join(f"{label}\t{group}" for label, group in options.label_map)
            fields.append(("label_map", hashlib.sha256(lines.encode()).hexdigest()[:12]))
        return cls(tuple(fields))

    @classmethod
    def of_units(cls, task: str, inputs: Sequence[tuple[str, str]], systems: Mapping[str, str],
                 options: Mapping[str, Any], own: Sequence[tuple[str, str]], ci: str, unit: str, clusters: Any = None,
                 after: Sequence[tuple[str, str]] = ()) -> Signature:
        """The signature of a task counted per unit: ``auditor``, ``task``, the gold ``inputs`` (key, hash),
        ``systems:<n>:<sha256[:12] of their name:sha256 lines>`` (``systems``: name -> SHA-256), the task's
        ``own`` fields, ``boot``, ``seed``, ``ci`` (``none`` when B = 0), ``alpha``, ``correction``, ``unit`` (what
        a resample draws, or ``cluster:<sha256[:12] of the clusters file>``, or of an lm-eval run the ``doc`` field
        naming the clusters), then ``after``."""
        digest = hashlib.sha256("|".join(f"{name}:{sha}" for name, sha in systems.items()).encode()).hexdigest()
        source = {} if clusters is None else clusters.source or {}
        drawn = unit if clusters is None else f"cluster:{str(source.get('sha256') or source.get('field'))[:12]}"
        return cls((("auditor", __version__), ("task", task), *inputs, ("systems", f"{len(systems)}:{digest[:12]}"),
                    *own, ("boot", str(options["bootstrap"])), ("seed", str(options["seed"])),
                    ("ci", ci if options["bootstrap"] else "none"), ("alpha", str(options["alpha"])),
                    ("correction", str(options["correction"])), ("unit", drawn), *after))

    def __getitem__(self, key: str) -> str:
        return dict(self.fields)[key]

    def format(self) -> str:
        return "|".join(f"{key}:{value}" for key, value in self.fields)

    __str__ = format


def _hash_codes(codes: np.ndarray, labels: Sequence[str]) -> str:
    digest = hashlib.sha256("\x1f".join(labels).encode())
    digest.update(np.ascontiguousarray(codes, dtype=np.int64).tobytes())
    return digest.hexdigest()


# ------------------------------------------------------------------ the record of a task kind counted per unit


@dataclass(frozen=True, eq=False, kw_only=True)
class UnitAudit:
    """The one record of a task kind whose metrics are functions of per-unit statistics summed over units
    (tagging: sentences; translation: segments): what every such audit holds, its audit.json and ``auditor
    score``'s table (docs/architecture.md, "The audit record"). A task's record subclasses it, adds its own fields
    and writes its own keys (:meth:`own_json`, :meth:`system_json`).

    ``metrics``: system -> metric id -> :class:`Score` (value, interval, why undefined, convention);
    ``options``: audit.json's ``options`` (the shared ones and the task's own); ``tests``: the pair tests (None:
    none ran); ``best_set``: metric -> its best set (what bold means); ``rankings``: rank disagreement;
    ``verdict``: whether the winner depends on the metric; ``resampling``: with clusters, the record's
    ``statistics.resampling``; ``statistics``: the intervals, ranks, tests and best sets over units, audit.json's
    ``statistics`` (:class:`~auditor.analyses.units.UnitStatistics`; None: no resampling ran)."""

    #: audit.json's ``task``, and what a resample draws.
    task: ClassVar[str]
    unit: ClassVar[str]
    #: ``auditor score``'s columns when no ``-m`` is given.
    default_columns: ClassVar[tuple[str, ...]]

    signature: Signature
    n_items: int
    systems: tuple[str, ...]
    sources: Mapping[str, Any]
    options: Mapping[str, Any]
    metrics: Mapping[str, Mapping[str, Score]]
    tests: tuple[PairTest, ...] | None = None
    best_set: Mapping[str, BestSet] | None = None
    rankings: RankDisagreement | None = None
    verdict: Verdict | None = None
    recommendation: Recommendation | None = None
    resampling: Mapping[str, Any] | None = None
    statistics: UnitStatistics | None = None
    warnings: tuple[str, ...] = ()

    @property
    def metric_ids(self) -> tuple[str, ...]:
        """The ids of the metrics scored, in the record's order."""
        return tuple(next(iter(self.metrics.values()), {}))

    @property
    def observed(self) -> dict[str, np.ndarray]:
        """metric id -> (S,) values in system order, NaN where undefined."""
        return {m: np.array([float(self.metrics[s][m]) for s in self.systems]) for m in self.metric_ids}

    def to_json(self) -> dict[str, Any]:
        """audit.json: the shared keys (schema ``auditor/3``, ``auditor/audit.schema.json``) and the task's own."""
        document: dict[str, Any] = {
            "schema": SCHEMA, "task": self.task, "signature": str(self.signature), "n_items": self.n_items,
            "sources": {name: source.to_json() if isinstance(source, Source) else dict(source)
                        for name, source in self.sources.items()},
            "options": dict(self.options), "warnings": list(self.warnings), **self.own_json(),
            "systems": {name: {"metrics": {m: v.to_json() for m, v in self.metrics[name].items()},
                               **self.system_json(s)} for s, name in enumerate(self.systems)}}
        statistics = self._statistics_json()
        if statistics is not None:
            document["statistics"] = statistics
        if self.tests is not None:
            document["tests"] = [t.to_json() for t in self.tests]
        for part in (self.rankings, self.verdict):
            document.update(part.to_json() if part is not None else {})
        if self.recommendation is not None:
            document.update(self.recommendation.to_json())
        return document

    def own_json(self) -> dict[str, Any]:
        """The task's own top-level keys."""
        return {}

    def system_json(self, s: int) -> dict[str, Any]:
        """The task's own keys of ``systems.NAME`` for system ``s`` (beside ``metrics``)."""
        return {}

    def _statistics_json(self) -> dict[str, Any] | None:
        """audit.json's ``statistics`` (None: no resampling ran)."""
        return None if self.statistics is None else self.statistics.to_json(self.systems)

    def terminal_lines(self, columns: Sequence[str] = (), sort: str | None = None) -> list[str]:
        """``auditor score``'s table: what was audited, then systems × metrics (ids, as the command line resolves
        them), ×100 with one decimal and [interval]; ``sort``: systems by that metric, best first (undefined
        values last, ties in input order); then how resamples drew, the task's notes and the signature."""
        import textwrap

        from auditor.analyses.units import resampling_text
        from auditor.formatting import score_lines

        chosen = [self._known(m) for m in columns] or [m for m in self.default_columns if m in self.metric_ids]

        def score(system: str, metric: str) -> tuple[float | None, float | None, float | None]:
            entry = self.metrics[system][metric]
            return _finite(entry.value), entry.lo, entry.hi

        def wrap(text: str) -> list[str]:
            return textwrap.wrap(text, TERMINAL_WIDTH, break_on_hyphens=False, break_long_words=False,
                                 subsequent_indent="  ")

        lines = wrap(self.summary_line())
        if sort:
            lines.append(f"sorted by {self.label(self._known(sort))}")
        lines += score_lines(self.systems, chosen, [self.label(m) for m in chosen], score,
                             self._known(sort) if sort else None, TERMINAL_WIDTH)
        if self.resampling is not None:
            lines += wrap(resampling_text(self.resampling))
        return lines + [line for note in self.notes() for line in wrap(note)] + self._signature_lines()

    def _signature_lines(self) -> list[str]:
        """``signature: …`` in lines of at most 80 columns, each broken after a ``|`` (joined without spaces, the
        lines give the signature back; a field longer than a line stays whole)."""
        lines, line = [], "signature: "
        for part in str(self.signature).split("|"):
            if len(line) + len(part) + 1 > TERMINAL_WIDTH and line.strip():
                lines.append(line)
                line = ""
            line += part + "|"
        return lines + [line.removesuffix("|")]

    def summary_line(self) -> str:
        """The table's first line: what was audited."""
        return f"{self.n_items:,} {self.unit}s; scores ×100"

    def label(self, metric: str) -> str:
        """A metric's column head in ``auditor score``'s table."""
        return metric

    def notes(self) -> list[str]:
        """Lines under ``auditor score``'s table."""
        return []

    def _known(self, metric: str) -> str:
        from auditor.errors import UsageError

        if metric not in self.metric_ids:
            raise UsageError(f"unknown metric {metric!r} for --task {self.task}; choose from "
                             f"{', '.join(self.metric_ids)}")
        return metric


def unit_rankings(metrics: Mapping[str, Mapping[str, Score]], ranked: Sequence[str],
                  tests: Sequence[PairTest] | None, alpha: float) -> RankDisagreement:
    """Rank disagreement of a task counted per unit over the ``ranked`` metrics (``metrics``: system -> metric id ->
    :class:`Score`); a flip's side is "significant" by the approximate randomisation over units (the spine's
    :func:`~auditor.analyses.families.significance_lookup`), None where no test ran."""
    from auditor.analyses.families import RANDOMISATION, significance_lookup
    from auditor.analyses.rankings import rank_disagreement

    lookup = significance_lookup(tests, alpha, lambda metric: RANDOMISATION) if tests else None
    return rank_disagreement({s: {m: row[m].value for m in ranked} for s, row in metrics.items()}, ranked, lookup)


def unit_verdict(metrics: Mapping[str, Mapping[str, Score]], keys: Sequence[str], tests: Sequence[PairTest] | None,
                 best_set: Mapping[str, BestSet] | None, primary: str | None = None,
                 short: Mapping[str, str] | None = None, identical: Sequence[Sequence[str]] = ()) -> Verdict:
    """Whether the winner depends on the metric among ``keys``, read off their best sets (approximate randomisation
    against each metric's top system), as every task's verdict (:func:`auditor.analyses.verdict.decide`);
    ``identical``: groups of systems with the same prediction on every unit
    (:func:`auditor.analyses.profile.identical_rows`), named in the text."""
    from auditor.analyses.families import RANDOMISATION
    from auditor.analyses.verdict import Tested, decide

    tested = Tested(best_set, [t for t in tests or () if t.method == RANDOMISATION]) if best_set else None
    return decide({m: {s: row[m].value for s, row in metrics.items()} for m in keys}, tested, primary, identical,
                  short, tuple(keys))


def unit_options(options: AuditOptions, **own: Any) -> dict[str, Any]:
    """audit.json's ``options`` of a task counted per unit: the shared ones that change a number (bootstrap, seed,
    alpha, correction and, when given, clusters) and the task's ``own``."""
    return {"bootstrap": options.bootstrap, "seed": options.seed, "alpha": options.alpha,
            "correction": options.correction, **own,
            **({"clusters": str(options.clusters)} if options.clusters is not None else {})}


def unit_scores(systems: Sequence[str], observed: Mapping[str, np.ndarray],
                interval: Callable[[str, int], tuple[float, float] | None], level: float | None,
                ledger: Callable[[str, int, float | None], tuple[str | None, str | None]]
                ) -> dict[str, dict[str, Score]]:
    """system -> metric id -> :class:`Score` of a task counted per unit: each ``observed`` value (metric -> (S,),
    NaN where undefined), its ``interval(metric, s)`` at ``level`` (None: none) and what the task's ``ledger(metric,
    s, value)`` records of it: (why it is undefined, which convention fills a part in)."""
    out: dict[str, dict[str, Score]] = {}
    for s, system in enumerate(systems):
        out[system] = {}
        for metric, values in observed.items():
            value, bounds = _finite(values[s]), interval(metric, s)
            out[system][metric] = Score.of(MetricValue(value, *ledger(metric, s, value)), bounds,
                                           None if bounds is None else level)
    return out


def unit_statistics_stage(values: Mapping[str, np.ndarray], observed: Mapping[str, np.ndarray],
                          systems: Sequence[str], options: AuditOptions, analyses: Sequence[str] | None,
                          tested: Sequence[str], pair_tests_of: Callable[[int], Sequence[PairTest]], pairs: int,
                          unit: str, clusters: Any = None, **record: Any) -> UnitStatistics:
    """The statistics of a task counted per unit whose pairs are tested by approximate randomisation over units
    (tagging, translation): the intervals and ranks of the resampled ``values`` (metric -> (B, S); none with
    ``--bootstrap 0``) and the pair tests of the ``tested`` metrics, ``pair_tests_of(rounds)`` over the ``pairs``
    pairs with the rounds :func:`~auditor.analyses.significance.randomisation_rounds` asks of
    :data:`~auditor.analyses.randomisation.AR_ROUNDS`, as every task kind. No test runs with ``--bootstrap 0`` (no
    random draws; the note says so) nor when the ``analyses`` leave ``statistics`` out (``auditor score``'s table);
    one system has no pair, so none is tested and it is its own best set, as in classification. ``record``: the
    rest of :func:`~auditor.analyses.units.unit_statistics`' keywords."""
    from auditor.analyses.randomisation import AR_ROUNDS
    from auditor.analyses.significance import RANK_RULE, randomisation_rounds, rounds_rule
    from auditor.analyses.units import unit_statistics

    untested = None
    if not options.bootstrap:
        untested = "not run: --bootstrap 0"
    elif analyses is not None and "statistics" not in analyses:
        untested = "not requested (auditor score shows intervals only)"
    rounds = 0 if untested else randomisation_rounds(AR_ROUNDS, pairs, options.alpha)
    tests = None if untested else tuple(pair_tests_of(rounds))
    return unit_statistics(values, observed, systems, options.bootstrap, options.alpha, options.correction,
                           None if untested else tested, tests, clusters, seed=options.seed, unit=unit,
                           rank_rule=RANK_RULE, rounds=rounds, rounds_rule=rounds_rule(rounds, pairs, options.alpha),
                           note=untested, **record)
