r"""How well each metric agrees with human judgements, across systems.

Kendall's τ-b (Kendall 1945; ``scipy.stats.kendalltau``) and Pearson's r between a metric's
system values and the systems' human scores (the mean of each system's rated segments for
segment-level files, missing segments left out and counted). Intervals are percentile intervals
over the same segment bootstrap as the metrics: each resample recomputes every metric and — for
segment-level scores — the human means on the resampled segments (system-level scores stay fixed).
The leader is the metric of highest τ (then r); its lead over each other metric is judged by the paired
percentile interval of :math:`\tau_{\mathrm{leader}} - \tau_m` over the same resamples (two intervals
that overlap are no test of their difference). τ-b and r are the spine's, batched over resamples
(:func:`auditor.analyses.rankings.kendall_tau_b`, :func:`~auditor.analyses.rankings.pearson`), the τ-b that also
gives the rank agreement between metrics.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from auditor.analyses.bootstrap import percentile_intervals
from auditor.analyses.rankings import kendall_tau_b, pearson
from auditor.formatting import nan_to_none


@dataclass(frozen=True)
class Correlation:
    value: float
    ci: tuple[float, float] | None

    def to_json(self) -> dict[str, Any]:
        return {"value": nan_to_none(self.value), "ci": list(self.ci) if self.ci else None}


@dataclass(frozen=True)
class HumanAgreement:
    """metric -> {"kendall_tau": Correlation, "pearson": Correlation}; the human system scores."""

    level: str
    human: Mapping[str, float]
    missing: Mapping[str, int]
    source: str
    lower_better: bool
    correlations: Mapping[str, Mapping[str, Correlation]]
    skipped: tuple[str, ...] = ()
    leader: str | None = None
    leader_differences: Mapping[str, Correlation] = dataclasses.field(default_factory=dict)
    #: Segment-level τ-b of each metric (:class:`~.segments.SegmentAgreement`; None for system-level scores).
    segment_level: Any = None

    def separated(self) -> bool:
        """Whether the leader's τ is above every other metric's by a paired interval that excludes 0."""
        return bool(self.leader_differences) and all(
            d.ci is not None and d.ci[0] > 0 for d in self.leader_differences.values())


def _interval(values: np.ndarray, alpha: float) -> tuple[float, float] | None:
    if values is None:
        return None
    interval, _ = percentile_intervals(values[:, None], alpha)
    return None if np.isnan(interval[0, 0]) else (float(interval[0, 0]), float(interval[0, 1]))


def agreement(observed: Mapping[str, np.ndarray], human, resampled, alpha: float,
              lower_better: bool, systems) -> HumanAgreement:
    """Correlations of every metric with ``human`` (:class:`~.reading.HumanScores`), with intervals
    from ``resampled`` (:class:`~.resampling.Bootstrap`, or None)."""
    correlations, tau_draws = {}, {}
    for metric, values in observed.items():
        row = {}
        for name, function in (("kendall_tau", kendall_tau_b), ("pearson", pearson)):
            value = float(function(values, human.system))
            draws = None
            if resampled is not None:
                people = resampled.human if resampled.human is not None else human.system[None, :]
                draws = function(resampled.values[metric], people)
                if name == "kendall_tau":
                    tau_draws[metric] = draws
            row[name] = Correlation(value, _interval(draws, alpha) if draws is not None else None)
        correlations[metric] = row

    def key(metric: str) -> tuple[float, ...]:
        return tuple(-np.inf if np.isnan(correlations[metric][k].value) else correlations[metric][k].value
                     for k in ("kendall_tau", "pearson"))

    leader = max(correlations, key=key) if correlations else None
    differences = {}
    for metric in correlations:
        if metric != leader:
            value = correlations[leader]["kendall_tau"].value - correlations[metric]["kendall_tau"].value
            draws = tau_draws[leader] - tau_draws[metric] if tau_draws else None
            differences[metric] = Correlation(float(value), _interval(draws, alpha) if draws is not None else None)
    sign = -1.0 if lower_better else 1.0
    return HumanAgreement(human.level, {s: float(sign * v) for s, v in zip(systems, human.system)},
                          dict(human.missing), human.source, lower_better, correlations, tuple(human.skipped),
                          leader, differences)
