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
The rank distributions and P(win) come from the interval's resamples (rank 1 = highest mean).

:class:`auditor.report.outcomes.OutcomesAudit` is their record: the one record of a task counted per unit
(:class:`auditor.results.UnitAudit`, docs/architecture.md, "The audit record"; a later stage's, as the signature
is), with the outcomes' own keys under ``outcomes`` (:meth:`Outcomes.own_json`) and their ``statistics``
(:meth:`Outcomes.statistics_json`).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.bootstrap import rank_probabilities, ranks_json
from auditor.analyses.families import (
    MCNEMAR,
    RANDOMISATION,
    BestSet,
    PairTest,
    adjust_families,
    best_sets,
    mcnemar_exact,
    significance_lookup,
)
from auditor.analyses.profile import identical_rows
from auditor.analyses.rankings import RankDisagreement, rank_disagreement
from auditor.analyses.significance import METHOD_DESCRIPTIONS, RANK_RULE, best_set_rule, interval_rule
from auditor.analyses.units import (
    Clusters,
    UnitResampler,
    design_effect,
    randomisation_tests,
    resampling_json,
    resampling_text,
)
from auditor.formatting import format_small
from auditor.options import correction_name

#: Randomisation rounds of a pair test whose values are not all 0/1 (or whose items are clustered).
ROUNDS = 9999
#: What ``--bootstrap 0`` leaves out, and why (JSON ``statistics.not_run``).
NOT_RUN = {"intervals": "not run: --bootstrap 0 (no resamples, so no bootstrap intervals, rank distributions or "
                        "P(win))",
           "randomisation": "not run: --bootstrap 0 (no randomisation rounds); values that are not all 0/1 have no "
                            "exact test, so no pair is tested and no best set is formed"}
#: Why the class-based analyses are absent (JSON ``outcomes.not_applicable``).
NOT_APPLICABLE = "prevalence, bias, chance baselines and confusion matrices need a gold class per item"
#: The pair tests in words (JSON ``statistics.test_methods``).
TEST_METHODS = {
    MCNEMAR: METHOD_DESCRIPTIONS[MCNEMAR].replace("(accuracy)", "(0/1 values, unclustered items)"),
    RANDOMISATION: "approximate randomisation (values that are not all 0/1, or clustered items): each item's (each "
                   "cluster's) two values swapped with probability 1/2, p = (1 + #{|Δ*| ≥ |Δ|}) / (R + 1), two-sided",
}


@dataclass(frozen=True)
class Outcomes:
    """The audit of per-item outcomes: ``metric`` (its name), ``systems``, ``means``, intervals (None with B = 0),
    the pair tests, the best set (None: no test ran), the rank distributions (``ranks``, (S, S): P(rank = r); None
    with B = 0), the rankings and the options they used."""

    metric: str
    systems: tuple[str, ...]
    n_items: int
    means: np.ndarray
    intervals: np.ndarray | None
    pairs: tuple[PairTest, ...]
    best: BestSet | None
    binary: bool
    bootstrap: int
    seed: int
    alpha: float
    correction: str
    ranks: np.ndarray | None
    ranking: RankDisagreement
    #: Input name -> {path, sha256, n_items} (the samples files read).
    sources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: The inputs' own options (the lm-eval task, filter and cluster field; the clusters file), JSON ``options``.
    inputs: Mapping[str, Any] = field(default_factory=dict)
    #: Said on standard error (``auditor score`` prints a result's warnings) and in the report's summary: systems
    #: with the same value on every item.
    warnings: tuple[str, ...] = ()
    #: The clusters resampled instead of the items (None: items), and each system's design effect of its mean.
    clusters: Clusters | None = None
    design_effects: np.ndarray | None = None

    @property
    def best_set(self) -> tuple[str, ...]:
        """The best set's systems (empty when no test ran)."""
        return () if self.best is None else self.best.systems

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

    @property
    def rounds(self) -> int:
        """Randomisation rounds run (0: only exact McNemar tests, or none)."""
        return ROUNDS if any(pair.method == RANDOMISATION for pair in self.pairs) else 0

    def own_json(self) -> dict[str, Any]:
        """The record's ``outcomes``: the metric audited, whether every value is 0/1, and why the class-based analyses
        are absent."""
        return {"outcomes": {"metric": self.metric, "binary": self.binary, "not_applicable": NOT_APPLICABLE}}

    def statistics_json(self) -> dict[str, Any]:
        """``statistics`` in the shape every task kind writes (the schema's ``$defs/statistics``)."""
        unit = "items" if self.clusters is None else "clusters of items (whole clusters drawn)"
        method = (f"paired bootstrap over {unit}: every system resampled with the same draw" if self.bootstrap
                  else "none: --bootstrap 0, no random draws" + (" (exact McNemar tests only)" if self.pairs else ""))
        ranks = {"ranks": {}, "p_win": {}} if self.ranks is None else ranks_json({self.metric: self.ranks},
                                                                                 self.systems)
        rounds, m = self.rounds, len(self.pairs)
        section: dict[str, Any] = {
            "B": self.bootstrap, "seed": self.seed, "alpha": self.alpha, "method": method,
            "interval": interval_rule(self.alpha), "undefined_resamples": {}, "rank_rule": RANK_RULE, **ranks,
            "correction": self.correction, "family": f"every pair of systems under mean {self.metric}",
            "test_metrics": [self.metric] if self.pairs else [],
            "test_methods": {p.method: TEST_METHODS[p.method] for p in self.pairs[:1]},
            "randomisation_rounds": rounds,
            "rounds_rule": rounds_rule(rounds, m),
            "best_set_rule": best_set_rule(self.alpha, self.correction, self.clusters is not None).replace(
                "for accuracy", "for 0/1 values"),
            "best_set": {} if self.best is None else {self.metric: self.best.to_json()},
            "p_floor": {RANDOMISATION: 1 / (ROUNDS + 1)} if rounds else {},
            "family_sizes": {self.metric: m} if self.pairs else {}}
        if self.not_run:
            section["not_run"] = self.not_run
        section["resampling"] = resampling_json(self.clusters, "item", self.design_effects, self.systems,
                                                f"mean {self.metric}")
        return section

    def report_model(self, figures: bool = True) -> Any:
        """The report is built by :mod:`auditor.report.outcomes`, a later stage than this module: the pipeline hands
        outcomes on wrapped in their record, :class:`~auditor.report.outcomes.OutcomesAudit`. Bare outcomes refuse,
        so that no classification report is made of them."""
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
                f"{correction_name(self.correction)} over the {len(self.systems) - 1} "
                f"comparison{'s' if len(self.systems) > 2 else ''} with the top system, α = {self.alpha:g})", 80)
        return lines


def rounds_rule(rounds: int, family_size: int) -> str:
    """Why the randomisation ran ``rounds`` rounds (:data:`ROUNDS` or none), in words, for the JSON."""
    if not rounds:
        return "no approximate randomisation ran (0/1 values of unclustered items have an exact test)"
    return (f"R = {rounds} rounds, fixed: a randomisation p-value cannot fall below 1/(R + 1) = "
            f"{format_small(1 / (rounds + 1))}, and after adjusting over the m = {family_size} tests the smallest "
            f"attainable p is m/(R + 1) = {format_small(family_size / (rounds + 1))}")


def bootstrap_means(values: np.ndarray, B: int, seed: int, clusters: Clusters | None = None) -> np.ndarray:
    """(B, S) means of each row of ``values`` over B shared resamples of the N items (or of their clusters: a
    resample's mean is Σ w_i x_si / Σ w_i)."""
    return UnitResampler(values.shape[1], B, [seed, 35], clusters).values(
        lambda weights: (weights @ values.T) / weights.sum(axis=1, keepdims=True), lambda m: {"mean": m})["mean"]


def pair_tests(metric: str, systems: Sequence[str], values: np.ndarray, means: np.ndarray, binary: bool,
               bootstrap: int, seed: int, correction: str, clusters: Clusters | None) -> list[PairTest]:
    """Every pair's test (module docstring), p adjusted over the pairs; none with ``--bootstrap 0`` unless the
    values are 0/1 and the items unclustered."""
    S = len(systems)
    if binary and clusters is None:
        tests = []
        for a in range(S):
            for b in range(a + 1, S):
                n01 = int(((values[a] == 1) & (values[b] == 0)).sum())
                n10 = int(((values[a] == 0) & (values[b] == 1)).sum())
                tests.append(PairTest(systems[a], systems[b], metric, MCNEMAR, float(means[a] - means[b]),
                                      mcnemar_exact(n01, n10), details={"n01": n01, "n10": n10}))
        return adjust_families(tests, correction)
    if bootstrap > 0:  # per item: the value (sum) and a count of 1 (shared column), the mean their ratio
        matrix = np.column_stack([np.ones(values.shape[1]), values.T])
        return randomisation_tests(matrix, 1, 1, lambda a, b, sums: {metric: sums[:, 1:] / sums[:, :1]},
                                   {metric: means}, systems, [metric], ROUNDS, seed, correction, clusters)
    return []  # --bootstrap 0: no randomisation rounds (NOT_RUN)


def analyse(metric: str, systems: Sequence[str], values: np.ndarray, bootstrap: int, seed: int, alpha: float,
            correction: str, sources: Mapping[str, Mapping[str, Any]] | None = None,
            clusters: Clusters | None = None, inputs: Mapping[str, Any] | None = None) -> Outcomes:
    """The audit of ``values`` (S, N): means, intervals, rank distributions, pair tests, the best set and the
    rankings (see the module docstring); ``inputs``: the inputs' own options, as the record writes them."""
    values = np.asarray(values, dtype=float)
    systems = tuple(systems)
    means = values.mean(axis=1)
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    intervals = ranks = None
    if bootstrap > 0:
        resampled = bootstrap_means(values, bootstrap, seed, clusters)
        intervals = np.quantile(resampled, [alpha / 2, 1 - alpha / 2], axis=0).T
        ranks = rank_probabilities(resampled)
    tests = pair_tests(metric, systems, values, means, binary, bootstrap, seed, correction, clusters)
    method = MCNEMAR if binary and clusters is None else RANDOMISATION
    best = None if not tests and len(systems) > 1 else \
        best_sets(tests, {metric: means}, systems, [metric], correction, alpha, lambda _: method).get(metric)
    ranking = rank_disagreement({name: {metric: float(means[s])} for s, name in enumerate(systems)}, [metric],
                                significance_lookup(tests, alpha, lambda _: method))
    effects = None if clusters is None else design_effect(values, None, clusters)
    warnings = tuple(f"{' = '.join(group)}: the same {metric} on every item (the same log under two names?); they tie "
                     "under every test" for group in identical_rows(systems, values))
    return Outcomes(metric, systems, values.shape[1], means, intervals, tuple(tests), best, binary, bootstrap, seed,
                    alpha, correction, ranks, ranking, dict(sources or {}), dict(inputs or {}), warnings, clusters,
                    effects)
