"""The translation audit's result: the one record of docs/architecture.md, "The audit record" (``task:
"translation"``, :class:`~auditor.results.UnitAudit`) with its own fields and keys."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from auditor.analyses.bootstrap import ranks_json
from auditor.analyses.significance import RANK_RULE
from auditor.formatting import nan_to_none
from auditor.results import UnitAudit
from auditor.tasks.translation.agreement import HumanAgreement
from auditor.tasks.translation.bands import TypeProfile
from auditor.tasks.translation.names import METRICS, NAMES


@dataclass(frozen=True, eq=False, kw_only=True)
class TranslationAudit(UnitAudit):
    """Everything the translation audit found; ``report_model`` builds the report from it."""

    task = "translation"
    unit = "segment"
    default_columns = METRICS

    types: TypeProfile
    system_types: Mapping[str, Mapping[str, Any]]
    tests_note: str | None
    rank_probabilities: Mapping[str, np.ndarray] | None
    human: HumanAgreement | None
    rounds: int = 0
    bca: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None
    family: str | None = None

    def report_model(self, figures: bool = True) -> Any:
        """The report model every renderer reads (:mod:`auditor.tasks.translation.report`)."""
        from auditor.tasks.translation.report import report_model

        return report_model(self, figures)

    def value(self, system: str, metric: str) -> float | None:
        return self.metrics[system][metric].value

    def own_json(self) -> dict[str, Any]:
        """The frequency bands of the reference types, and the agreement with human scores (when given)."""
        out: dict[str, Any] = {"types": _types_json(self.types)}
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

    def system_json(self, s: int) -> dict[str, Any]:
        return {"types": self.system_types[self.systems[s]]}

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

    def label(self, metric: str) -> str:
        return NAMES[metric]

    def notes(self) -> list[str]:
        return [f"signature: {self.signature}"]


def _types_json(types: TypeProfile) -> dict[str, Any]:
    return {"reference_types": types.types, "reference_tokens": types.tokens,
            "bands": [{"band": b.name, "low": b.low, "high": b.high, "types": b.types, "tokens": b.tokens}
                      for b in types.bands],
            "most_frequent": [{"type": t, "count": c} for t, c in types.top]}
