"""Prevalence shift: the metrics and rankings at the prevalence where the systems will be used.

Stage "analyse" (``--deployment-prevalence uniform|test|unknown|FILE``). :func:`deployment`
re-weights the gold rows to the target prevalence (:func:`auditor.metrics.catalogue.reweight_prevalence`,
N kept) and ranks the systems again (:func:`auditor.analyses.rankings.rank_disagreement`).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.rankings import DEFAULT_METRICS, RankDisagreement, rank_disagreement
from auditor.errors import UsageError
from auditor.formatting import nan_to_none
from auditor.io.counts import Counts
from auditor.metrics.catalogue import compute, prevalence_vector, reweight_prevalence
from auditor.metrics.registry import REGISTRY


@dataclass(frozen=True)
class Deployment:
    """Metric values and rankings after re-weighting gold rows to a target prevalence."""

    target: Mapping[str, float]
    name: str
    values: Mapping[str, Mapping[str, float | None]]
    disagreement: RankDisagreement
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """``deployment``: metric values and rankings with the gold rows re-weighted to its prevalence."""
        return {"deployment": {
            "name": self.name, "target": dict(self.target),
            "metrics": {system: dict(values) for system, values in self.values.items()},
            "rankings": self.disagreement.rankings, "winners": self.disagreement.winners,
            "notes": list(self.notes),
        }}


def target_prevalence(labels: Sequence[str], support: Sequence[int],
                      target: str | Mapping[str, float]) -> tuple[str, np.ndarray, list[str]]:
    """The target prevalence vector for ``uniform``, ``test`` or a label -> share mapping."""
    support = np.asarray(support, dtype=float)
    present = support > 0
    notes = []
    if isinstance(target, str):
        if target == "uniform":
            vector = present / present.sum()
            notes.append("uniform over the gold classes: prevalence calibration (Opitz 2024 §5.2)")
            return "uniform", vector, notes
        if target == "test":
            return "test", support / support.sum(), ["the test set's own prevalence: values equal the plain metrics"]
        raise UsageError(f"--deployment-prevalence: expected uniform, test, unknown, a file or 'a=0.2,b=0.8', "
                         f"found {target!r}")
    unknown = [label for label in target if label not in labels]
    if unknown:
        raise UsageError(f"--deployment-prevalence: label(s) {', '.join(map(repr, unknown))} not in the label set "
                         f"({', '.join(labels)})")
    vector = prevalence_vector(labels, target)
    missing = [label for label, share, ok in zip(labels, vector, present) if ok and share == 0]
    if missing:
        notes.append(f"no deployment share given for {', '.join(missing)}: their gold rows get weight 0")
    dropped = [label for label, share, ok in zip(labels, vector, present) if share > 0 and not ok]
    if dropped:
        notes.append(f"{', '.join(dropped)} has a deployment share but no gold items; the other shares are "
                     f"renormalised")
    vector = np.where(present, vector, 0.0)
    if vector.sum() <= 0:
        raise UsageError("--deployment-prevalence: no share falls on a class with gold items")
    return "file", vector / vector.sum(), notes


def deployment(confusion: np.ndarray, labels: Sequence[str], systems: Sequence[str],
               target: str | Mapping[str, float], metrics: Sequence[str] = DEFAULT_METRICS,
               all_labels_active: bool = False) -> Deployment:
    """Metrics and rankings of every system with gold rows re-weighted to ``target``.

    ``confusion`` is ``C[s, i, j]``; N is kept, so counts become fractional.
    """
    confusion = np.asarray(confusion, dtype=float)
    support = confusion[0].sum(axis=1)
    name, vector, notes = target_prevalence(labels, support, target)
    shifted = reweight_prevalence(confusion, vector)
    chosen = [REGISTRY.get(m) for m in metrics]
    computed = compute(shifted, chosen, all_labels_active)
    values = {
        system: {metric_id: nan_to_none(array[index]) for metric_id, array in computed.items()}
        for index, system in enumerate(systems)
    }
    return Deployment(
        target=MappingProxyType({label: float(share) for label, share in zip(labels, vector)}), name=name,
        values=MappingProxyType(values), disagreement=rank_disagreement(values, [m.id for m in chosen]),
        notes=tuple(notes),
    )


def analyse(counts: Counts, deployment_prevalence: str | Mapping[str, float] | None) -> Deployment | None:
    """The rankings at the deployment prevalence (``--deployment-prevalence``), or None when it is
    unset or ``unknown``."""
    if deployment_prevalence is None or deployment_prevalence == "unknown":
        return None
    return deployment(counts.confusion, counts.labels, counts.systems, deployment_prevalence,
                      all_labels_active=counts.labels_given)
