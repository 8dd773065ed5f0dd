"""The translation audit's result: typed fields, its JSON (schema ``auditor/2``, ``task:
"translation"``) and ``auditor score``'s terminal table."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.rankings import RankDisagreement
from auditor.analyses.significance import PairTest
from auditor.formatting import format_value
from auditor.tasks.translation.agreement import HumanAgreement
from auditor.tasks.translation.bands import TypeProfile
from auditor.tasks.translation.names import METRIC_ALIASES, METRICS, NAMES


@dataclass(frozen=True)
class MetricValue:
    value: float | None
    ci: tuple[float, float] | None
    undefined: str | None
    convention: str | None


@dataclass(frozen=True)
class TranslationAudit:
    """Everything the translation audit found; ``report_model`` builds the report from it."""

    signature: str
    n_items: int
    systems: tuple[str, ...]
    sources: Mapping[str, Any]
    options: Mapping[str, Any]
    metrics: Mapping[str, Mapping[str, MetricValue]]
    types: TypeProfile
    system_types: Mapping[str, Mapping[str, Any]]
    tests: tuple[PairTest, ...] | None
    tests_note: str | None
    rank_probabilities: Mapping[str, np.ndarray] | None
    disagreement: RankDisagreement
    human: HumanAgreement | None
    recommendation: Mapping[str, Any]
    warnings: tuple[str, ...] = ()
    rounds: int = 0
    bca: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None
    family: str | None = None

    def report_model(self, figures: bool = True) -> Any:
        """The report model every renderer reads (:mod:`auditor.tasks.translation.report`)."""
        from auditor.tasks.translation.report import report_model

        return report_model(self, figures)

    def value(self, system: str, metric: str) -> float | None:
        return self.metrics[system][metric].value

    def to_json(self) -> dict[str, Any]:
        """audit.json: stable keys; fractions (×100 gives the usual BLEU/chrF figures)."""
        out: dict[str, Any] = {
            "schema": "auditor/2", "task": "translation", "signature": self.signature, "n_items": self.n_items,
            "sources": dict(self.sources), "options": dict(self.options), "warnings": list(self.warnings),
            "systems": {s: {"metrics": {m: _entry(v) for m, v in self.metrics[s].items()},
                            "types": self.system_types[s]} for s in self.systems},
            "types": _types_json(self.types),
            "rankings": self.disagreement.rankings,
            "rank_agreement": {"kendall": self.disagreement.agreement("kendall"),
                               "spearman": self.disagreement.agreement("spearman")},
            "rank_disagreement": _disagreement_json(self.disagreement),
            "recommendation": dict(self.recommendation),
        }
        if self.tests is not None:
            out["tests"] = [t.to_json() for t in self.tests]
        out["statistics"] = self._statistics_json()
        if self.human is not None:
            out["human"] = {"source": self.human.source, "level": self.human.level,
                            "lower_better": self.human.lower_better, "scores": dict(self.human.human),
                            "missing_segments": dict(self.human.missing),
                            "skipped_systems": list(self.human.skipped), "leader": self.human.leader,
                            "tau_differences": {m: {"value": _number(d.value), "ci": list(d.ci) if d.ci else None}
                                                for m, d in self.human.leader_differences.items()}}
            out["human_agreement"] = {metric: {kind: {"value": _number(c.value),
                                                      "ci": list(c.ci) if c.ci else None}
                                               for kind, c in row.items()}
                                      for metric, row in self.human.correlations.items()}
        return out

    def _statistics_json(self) -> dict[str, Any]:
        statistics: dict[str, Any] = {
            "bootstrap": "paired bootstrap over segments (sacrebleu's draws: default_rng(seed).choice(N, (B, N))); "
                         "metric intervals by statistics.interval_method, human-agreement intervals percentile",
            "test_methods": {"approximate_randomisation": "segments' outputs swapped with probability 1/2 "
                                                          "(sacrebleu's paired_ar); p = (1 + #{|Δ*| ≥ |Δ|}) / (R + 1)",
                             "paired_bootstrap": "sacrebleu's paired_bs: p = (1 + #{|Δ_b| − mean ≥ |Δ|}) / (B + 1)"},
        }
        if self.bca is not None:
            from auditor.tasks.translation.intervals import METHODS

            statistics["interval_method"] = {m: METHODS[m] for m in self.bca}
            statistics["bca"] = {m: {s: dict(v) for s, v in row.items()} for m, row in self.bca.items()}
        if self.tests_note:
            statistics["tests_note"] = self.tests_note
        if self.tests:
            statistics["randomisation_rounds"] = self.rounds
            statistics["family"] = self.family
            statistics["family_sizes"] = {m: sum(1 for t in self.tests if t.metric == m
                                                 and t.method == "approximate_randomisation") for m in METRICS}
        if self.rank_probabilities is not None:
            statistics["ranks"] = {m: {s: [float(x) for x in p[i]] for i, s in enumerate(self.systems)}
                                   for m, p in self.rank_probabilities.items()}
            statistics["p_win"] = {m: {s: float(p[i, 0]) for i, s in enumerate(self.systems)}
                                   for m, p in self.rank_probabilities.items()}
        return statistics

    def terminal_lines(self, columns: Sequence[str] = (), sort: str | None = None) -> list[str]:
        """The score table: one line per system, scores ×100 with their interval; ``sort``: systems by that
        metric, best first (undefined values last, ties in input order)."""
        chosen = [_resolve(c) for c in columns] or list(METRICS)
        width = max(8, *(len(s) for s in self.systems))
        header = f"{'system':<{width}}  " + "  ".join(f"{NAMES[m]:>21}" for m in chosen)
        lines = [header]
        systems = list(self.systems)
        if sort:
            values = {s: _number(self.metrics[s][_resolve(sort)].value) for s in systems}
            systems.sort(key=lambda s: (values[s] is None, -(values[s] or 0.0)))
        for s in systems:
            cells = []
            for m in chosen:
                entry = self.metrics[s][m]
                text = format_value(entry.value, "score")
                if entry.ci:
                    text += f" [{format_value(entry.ci[0], 'score')}, {format_value(entry.ci[1], 'score')}]"
                cells.append(f"{text:>21}")
            lines.append(f"{s:<{width}}  " + "  ".join(cells))
        lines.append(f"{self.n_items} segments; scores ×100"
                     + (f"; sorted by {NAMES[_resolve(sort)]}" if sort else "") + f"; {self.signature}")
        return lines


def _resolve(name: str) -> str:
    from auditor.errors import UsageError

    key = name.strip().lower().replace("-", "").replace("_", "")
    aliases = {**{m: m for m in METRICS}, **METRIC_ALIASES}
    if key not in aliases:
        raise UsageError(f"unknown metric {name!r} for --task translation; choose from {', '.join(METRICS)} "
                         f"(MicroF is the poster's frequency-weighted F, not micro-averaged F1)")
    return aliases[key]


def _number(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def _entry(v: MetricValue) -> dict[str, Any]:
    return {"value": _number(v.value), "ci": list(v.ci) if v.ci else None, "undefined": v.undefined,
            "convention": v.convention}


def _types_json(types: TypeProfile) -> dict[str, Any]:
    return {"reference_types": types.types, "reference_tokens": types.tokens,
            "bands": [{"band": b.name, "low": b.low, "high": b.high, "types": b.types, "tokens": b.tokens}
                      for b in types.bands],
            "most_frequent": [{"type": t, "count": c} for t, c in types.top]}


def _disagreement_json(d: RankDisagreement) -> dict[str, Any]:
    return {
        "winners": d.winners,
        "flips": [{"a": f.a, "b": f.b, "a_better_under": list(f.a_better_under),
                   "b_better_under": list(f.b_better_under),
                   "significant": dict(f.significant) if f.significant is not None else None} for f in d.flips],
        "rank_table": {s: {m: d.rank(s, m) for m in d.metrics} for s in d.systems},
        "rank_undefined": {m: list(v) for m, v in d.undefined.items()},
    }

