"""The translation audit's result: the one record of docs/architecture.md, "The audit record" (``task:
"translation"``, :class:`~auditor.results.UnitAudit`) with its own fields and keys."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

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
    human: HumanAgreement | None

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
                            "tau_differences": {m: d.to_json() for m, d in self.human.leader_differences.items()}}
            if self.human.segment_level is not None:
                out["human"]["segment_level"] = self.human.segment_level.to_json()
            out["human_agreement"] = {metric: {kind: c.to_json() for kind, c in row.items()}
                                      for metric, row in self.human.correlations.items()}
        return out

    def system_json(self, s: int) -> dict[str, Any]:
        return {"types": self.system_types[self.systems[s]]}

    def label(self, metric: str) -> str:
        return NAMES[metric]


def _types_json(types: TypeProfile) -> dict[str, Any]:
    return {"reference_types": types.types, "reference_tokens": types.tokens,
            "bands": [{"band": b.name, "low": b.low, "high": b.high, "types": b.types, "tokens": b.tokens}
                      for b in types.bands],
            "most_frequent": [{"type": t, "count": c} for t, c in types.top]}
