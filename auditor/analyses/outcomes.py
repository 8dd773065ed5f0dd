"""Per-item outcomes (a generation task's per-item metric, e.g. lm-eval's ``exact_match``): each system's mean with
a bootstrap interval, paired tests between systems and the best set.

Statistics of systems s = 1..S over items i = 1..N with values x_si: the mean m_s = (1/N) Σ_i x_si; the percentile
interval of m_s over B resamples of the items with replacement (the spine's resampler over units,
:class:`auditor.analyses.units.UnitResampler`: one resample shared by every system, so that the systems stay paired;
with clusters, whole clusters are drawn and a resample's mean is Σ w_i x_si / Σ w_i); between two systems, the exact
McNemar test when both are 0/1 and the items are unclustered (n01, n10 = the items only one of them gets right), else
approximate randomisation over items or clusters (:func:`auditor.analyses.units.randomisation_tests`); p-values
adjusted over the pairs (Holm or Benjamini–Hochberg). The best set: the top system by mean and every system whose
adjusted p against it is ≥ α (:func:`auditor.analyses.significance.best_sets`). The class-based analyses
(prevalence, bias, chance baselines, confusion matrices) do not apply to outcomes.
With ``--bootstrap 0`` nothing is drawn: no intervals, and no randomisation, so values that are not all 0/1 (or
clustered items) get no test and no best set (:data:`NOT_RUN`); unclustered 0/1 values keep their exact McNemar tests.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.families import MCNEMAR, RANDOMISATION, PairTest, adjust_families, best_sets, mcnemar_exact
from auditor.analyses.units import (
    Clusters,
    UnitResampler,
    design_effect,
    randomisation_tests,
    resampling_json,
    resampling_text,
)
from auditor.options import correction_name

#: Randomisation rounds of a pair test whose values are not all 0/1 (or whose items are clustered).
ROUNDS = 9999
#: What ``--bootstrap 0`` leaves out, and why (JSON ``statistics.not_run``).
NOT_RUN = {"intervals": "not run: --bootstrap 0 (no resamples)",
           "randomisation": "not run: --bootstrap 0 (no randomisation rounds); values that are not all 0/1 have no "
                            "exact test, so no pair is tested and no best set is formed"}


@dataclass(frozen=True)
class Outcomes:
    """The audit of per-item outcomes: ``metric`` (its name), ``systems``, ``means``, intervals (None with B = 0),
    the pair tests, the best set and the options they used."""

    metric: str
    systems: tuple[str, ...]
    n_items: int
    means: np.ndarray
    intervals: np.ndarray | None
    pairs: tuple[PairTest, ...]
    best_set: tuple[str, ...]
    binary: bool
    bootstrap: int
    seed: int
    alpha: float
    correction: str
    #: Input name -> {path, sha256, n_items} (the samples files read).
    sources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Said on standard error (``auditor score`` prints a result's warnings); outcomes have none of their own.
    warnings: tuple[str, ...] = ()
    #: The clusters resampled instead of the items (None: items), and each system's design effect of its mean.
    clusters: Clusters | None = None
    design_effects: np.ndarray | None = None

    @property
    def not_run(self) -> dict[str, str]:
        """What did not run, and why (``--bootstrap 0``: no intervals; no randomisation unless the values are 0/1 and
        the items unclustered)."""
        if self.bootstrap > 0:
            return {}
        untested = {} if self.binary and self.clusters is None else {"randomisation": NOT_RUN["randomisation"]}
        return {"intervals": NOT_RUN["intervals"], **untested}

    @property
    def resampling(self) -> dict[str, Any] | None:
        """The record's ``statistics.resampling`` with clusters (:func:`auditor.analyses.units.resampling_json`),
        else None."""
        if self.clusters is None:
            return None
        return resampling_json(self.clusters, "item", self.design_effects, self.systems, f"mean {self.metric}")

    def to_json(self) -> dict[str, Any]:
        return {
            "task": "outcomes", "sources": {name: dict(source) for name, source in self.sources.items()},
            "metric": self.metric, "n_items": self.n_items, "binary": self.binary,
            "systems": {name: {"metrics": {self.metric: {
                "value": float(self.means[s]),
                "ci": None if self.intervals is None else [float(x) for x in self.intervals[s]],
                "undefined": None}}} for s, name in enumerate(self.systems)},
            "statistics": {"B": self.bootstrap, "seed": self.seed, "alpha": self.alpha, "interval": "percentile",
                           "correction": self.correction,
                           "best_set": ({self.metric: list(self.best_set)}
                                        if self.pairs or len(self.systems) < 2 else {}),
                           "tests": [pair.to_json() for pair in self.pairs],
                           **({"not_run": self.not_run} if self.not_run else {}),
                           "resampling": resampling_json(self.clusters, "item", self.design_effects, self.systems,
                                                         f"mean {self.metric}")},
            "not_applicable": "prevalence, bias, chance baselines and confusion matrices need a gold class per item",
        }

    def report_model(self, figures: bool = True) -> Any:
        """The report is built by :mod:`auditor.report.outcomes`, a later stage than this module: the pipeline hands
        outcomes on wrapped in its ``Reported``. Bare outcomes refuse, so that no classification report is made
        of them."""
        from auditor.errors import UsageError

        raise UsageError("per-item outcomes get their report through auditor.pipeline.audit_lm_eval")

    def terminal_lines(self, columns: Sequence[str] = (), sort: str | None = None) -> list[str]:
        """``auditor score``'s table (one metric: ``columns`` and ``sort`` have nothing to choose)."""
        width = max(len(name) for name in self.systems) + 2
        lines = [f"{len(self.systems)} systems, {self.n_items:,} items; mean {self.metric} ×100"
                 + ("" if self.intervals is None else f" [{int(100 * (1 - self.alpha))}% interval]"), ""]
        for s in np.argsort(-self.means, kind="stable"):
            interval = "" if self.intervals is None else \
                f" [{100 * self.intervals[s, 0]:.1f}, {100 * self.intervals[s, 1]:.1f}]"
            best = "  best set" if self.systems[s] in self.best_set and len(self.systems) > 1 else ""
            lines.append(f"{self.systems[s]:<{width}}{100 * self.means[s]:5.1f}{interval}{best}")
        for reason in self.not_run.values():
            lines.append(reason)
        if self.resampling is not None:
            lines += [""] + textwrap.wrap(resampling_text(self.resampling), 80)
        if len(self.systems) > 1 and self.pairs:
            method = "exact McNemar" if self.pairs and self.pairs[0].method == MCNEMAR else \
                f"approximate randomisation ({ROUNDS:,} rounds)"
            lines += [""] + textwrap.wrap(
                f"best set: the top system and those not significantly below it ({method}, "
                f"{correction_name(self.correction)} over {len(self.pairs)} pairs, α = {self.alpha:g})", 80)
        return lines


def bootstrap_intervals(values: np.ndarray, B: int, seed: int, alpha: float,
                        clusters: Clusters | None = None) -> np.ndarray:
    """(S, 2) percentile intervals of each row's mean over B shared resamples of the N items (or of their clusters)."""
    S, N = values.shape
    means = UnitResampler(N, B, [seed, 35], clusters).values(
        lambda weights: (weights @ values.T) / weights.sum(axis=1, keepdims=True), lambda m: {"mean": m})
    return np.quantile(means["mean"], [alpha / 2, 1 - alpha / 2], axis=0).T


def analyse(metric: str, systems: Sequence[str], values: np.ndarray, bootstrap: int, seed: int, alpha: float,
            correction: str, sources: Mapping[str, Mapping[str, Any]] | None = None,
            clusters: Clusters | None = None) -> Outcomes:
    """The audit of ``values`` (S, N): means, intervals, pair tests and the best set (see the module docstring)."""
    values = np.asarray(values, dtype=float)
    means = values.mean(axis=1)
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    intervals = bootstrap_intervals(values, bootstrap, seed, alpha, clusters) if bootstrap > 0 else None
    S = len(systems)
    if binary and clusters is None:
        tests = []
        for a in range(S):
            for b in range(a + 1, S):
                n01 = int(((values[a] == 1) & (values[b] == 0)).sum())
                n10 = int(((values[a] == 0) & (values[b] == 1)).sum())
                tests.append(PairTest(systems[a], systems[b], metric, MCNEMAR, float(means[a] - means[b]),
                                      mcnemar_exact(n01, n10), details={"n01": n01, "n10": n10}))
        tests = adjust_families(tests, correction)
    elif bootstrap > 0:  # per item: the value (sum) and a count of 1 (shared column), the mean their ratio
        matrix = np.column_stack([np.ones(values.shape[1]), values.T])
        tests = randomisation_tests(matrix, 1, 1, lambda a, b, sums: {metric: sums[:, 1:] / sums[:, :1]},
                                    {metric: means}, systems, [metric], ROUNDS, seed, correction, clusters)
    else:  # --bootstrap 0: no randomisation rounds (NOT_RUN)
        tests = []
    method = MCNEMAR if binary and clusters is None else RANDOMISATION
    best = best_sets(tests, {metric: means}, systems, [metric], correction, alpha, lambda _: method)
    chosen = () if not tests and S > 1 else best[metric].systems if metric in best else tuple(systems)
    effects = None if clusters is None else design_effect(values, None, clusters)
    return Outcomes(metric, tuple(systems), values.shape[1], means, intervals, tuple(tests), chosen, binary,
                    bootstrap, seed, alpha, correction, dict(sources or {}), (), clusters, effects)
