"""The translation audit's result: typed fields, its JSON (the one record of docs/architecture.md, "The audit
record"; ``task: "translation"``) and ``auditor score``'s terminal table."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.bootstrap import ranks_json
from auditor.analyses.families import BestSet, PairTest
from auditor.analyses.rankings import RankDisagreement
from auditor.analyses.significance import RANK_RULE
from auditor.analyses.verdict import Verdict
from auditor.formatting import nan_to_none, score_lines
from auditor.results import SCHEMA, Score, Signature
from auditor.tasks.translation.agreement import HumanAgreement
from auditor.tasks.translation.bands import TypeProfile
from auditor.tasks.translation.names import METRIC_ALIASES, METRICS, NAMES


@dataclass(frozen=True)
class TranslationAudit:
    """Everything the translation audit found; ``report_model`` builds the report from it."""

    signature: Signature
    n_items: int
    systems: tuple[str, ...]
    sources: Mapping[str, Any]
    options: Mapping[str, Any]
    metrics: Mapping[str, Mapping[str, Score]]
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
    #: metric -> its best set (approximate randomisation against the top system): what bold means.
    best_set: Mapping[str, BestSet] | None = None
    #: Whether the winner depends on the metric, decided by the best sets (:func:`auditor.analyses.verdict.decide`).
    verdict: Verdict | None = None
    #: With ``--clusters``: the record's ``statistics.resampling`` (:func:`auditor.analyses.units.resampling_json`).
    resampling: Mapping[str, Any] | None = None

    def report_model(self, figures: bool = True) -> Any:
        """The report model every renderer reads (:mod:`auditor.tasks.translation.report`)."""
        from auditor.tasks.translation.report import report_model

        return report_model(self, figures)

    def value(self, system: str, metric: str) -> float | None:
        return self.metrics[system][metric].value

    def to_json(self) -> dict[str, Any]:
        """audit.json: stable keys; fractions (×100 gives the usual BLEU/chrF figures)."""
        out: dict[str, Any] = {
            "schema": SCHEMA, "task": "translation", "signature": str(self.signature), "n_items": self.n_items,
            "sources": dict(self.sources), "options": dict(self.options), "warnings": list(self.warnings),
            "systems": {s: {"metrics": {m: v.to_json() for m, v in self.metrics[s].items()},
                            "types": self.system_types[s]} for s in self.systems},
            "types": _types_json(self.types),
            **self.disagreement.to_json(),
            "recommendation": dict(self.recommendation),
            **(self.verdict.to_json() if self.verdict is not None else {}),
        }
        if self.tests is not None:
            out["tests"] = [t.to_json() for t in self.tests]
        out["statistics"] = self._statistics_json()
        if self.human is not None:
            out["human"] = {"source": self.human.source, "level": self.human.level,
                            "lower_better": self.human.lower_better, "scores": dict(self.human.human),
                            "missing_segments": dict(self.human.missing),
                            "skipped_systems": list(self.human.skipped), "leader": self.human.leader,
                            "tau_differences": {m: {"value": nan_to_none(d.value), "ci": list(d.ci) if d.ci else None}
                                                for m, d in self.human.leader_differences.items()}}
            if self.human.segment_level is not None:
                out["human"]["segment_level"] = self.human.segment_level.to_json()
            out["human_agreement"] = {metric: {kind: {"value": nan_to_none(c.value),
                                                      "ci": list(c.ci) if c.ci else None}
                                               for kind, c in row.items()}
                                      for metric, row in self.human.correlations.items()}
        return out

    def _statistics_json(self) -> dict[str, Any]:
        options = self.options
        statistics: dict[str, Any] = {
            "B": options["bootstrap"], "seed": options["seed"], "alpha": options["alpha"],
            "correction": options["correction"],
            "method": "paired bootstrap over segments (sacrebleu's draws: default_rng(seed).choice(N, (B, N))); "
                      "metric intervals by statistics.interval_method, human-agreement intervals percentile",
            "interval": "by metric: statistics.interval_method", "rank_rule": RANK_RULE,
            "test_metrics": list(METRICS) if self.tests else [],
            "test_methods": {"approximate_randomisation": "segments' outputs swapped with probability 1/2 "
                                                          "(as sacrebleu's paired_ar, which counts > where this "
                                                          "counts ≥); p = (1 + #{|Δ*| ≥ |Δ|}) / (R + 1)",
                             "paired_bootstrap": "for parity with sacrebleu's paired_bs (which counts > where this "
                                                 "counts ≥): p = (1 + #{|Δ_b| − mean(|Δ_b|) ≥ |Δ|}) / (B + 1)"},
        }
        if self.resampling is not None:
            statistics["resampling"] = dict(self.resampling)
            statistics["method"] = ("paired bootstrap over clusters of segments (whole clusters drawn); metric "
                                    "intervals by statistics.interval_method, the jackknife leaving one cluster out")
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
        if self.best_set is not None:
            statistics["best_set_rule"] = (
                f"the top system and every system whose approximate randomisation test against it has adjusted "
                f"p ≥ {self.options['alpha']:g}; family: the comparisons with the top system of that metric, "
                f"{self.options['correction']}")
            statistics["best_set"] = {m: best.to_json() for m, best in self.best_set.items()}
        if self.rank_probabilities is not None:
            statistics.update(ranks_json(self.rank_probabilities, self.systems))
        return statistics

    def terminal_lines(self, columns: Sequence[str] = (), sort: str | None = None) -> list[str]:
        """The score table: one line per system, scores ×100 with their interval; ``sort``: systems by that
        metric, best first (undefined values last, ties in input order)."""
        chosen = [_resolve(c) for c in columns] or list(METRICS)

        def score(system: str, metric: str) -> tuple[float | None, float | None, float | None]:
            entry = self.metrics[system][metric]
            return nan_to_none(entry.value), entry.lo, entry.hi

        lines = score_lines(self.systems, chosen, [NAMES[m] for m in chosen], score, _resolve(sort) if sort else None)
        lines.append(f"{self.n_items} segments; scores ×100" + (f"; sorted by {NAMES[_resolve(sort)]}" if sort else ""))
        if self.resampling is not None:
            import textwrap

            from auditor.analyses.units import resampling_text

            lines += textwrap.wrap(resampling_text(self.resampling), 80)
        lines.append(f"signature: {self.signature}")
        return lines


def _resolve(name: str) -> str:
    from auditor.errors import UsageError

    key = name.strip().lower().replace("-", "").replace("_", "")
    aliases = {**{m: m for m in METRICS}, **METRIC_ALIASES}
    if key not in aliases:
        raise UsageError(f"unknown metric {name!r} for --task translation; choose from {', '.join(METRICS)} "
                         f"(MicroF is the poster's frequency-weighted F, not micro-averaged F1)")
    return aliases[key]


def _types_json(types: TypeProfile) -> dict[str, Any]:
    return {"reference_types": types.types, "reference_tokens": types.tokens,
            "bands": [{"band": b.name, "low": b.low, "high": b.high, "types": b.types, "tokens": b.tokens}
                      for b in types.bands],
            "most_frequent": [{"type": t, "count": c} for t, c in types.top]}
