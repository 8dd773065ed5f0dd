"""Mode 2 of the planner: power at N items from a pilot's pattern table.

The pilot (gold and S systems on N₀ items) gives the shares w_u of its item patterns
``u = (gold, pred_1, …, pred_S)`` (:meth:`auditor.io.counts.Counts.patterns`). A test set of N
items from the same population is simulated as pattern counts ``n ~ Multinomial(N, w)``
(R simulations, seeded): the pilot's differences are taken as the truth. On each simulated test
set the audit's own paired tests run — exact McNemar for accuracy, approximate randomisation for
the other key metrics (:mod:`auditor.analyses.significance`), with the audit's rounds rule
(:func:`~auditor.analyses.significance.randomisation_rounds`) — and p-values are adjusted over the
pairs of each metric with the audit's correction (Holm by default). Then, per pair and metric:

* power = share of simulations where the adjusted p < α **and** the simulated difference has the
  pilot's sign (undefined when the pilot's difference is 0: there is no effect to find, or undefined:
  the metric is, for a system, on the pilot, e.g. MCC of a system that always predicts one class);
* per metric, rank stability at N: the probability that the pilot's top system is on top (ties
  share the top equally), and the expected Kendall τ-b between the ranking at N and the pilot's
  (:func:`auditor.analyses.rankings.kendall_tau_b`; an undefined value ranks last, as the audit ranks).

The metric that separates the systems with the fewest items: with more sizes asked for, the one
whose mean power over the pairs reaches the target at the smallest of them; otherwise (and on
ties) the one whose pairs reach the target most often at N, then the highest mean power at N.
Monte Carlo error: a power p from R simulations has standard error √(p(1 − p)/R), reported.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from auditor.analyses.randomisation import approximate_randomisation
from auditor.analyses.rankings import kendall_tau_b
from auditor.analyses.significance import (
    RANDOMISATION,
    TEST_METRICS,
    adjust,
    discordant_counts,
    mcnemar_exact,
    primary_method,
    randomisation_rounds,
)
from auditor.errors import UsageError
from auditor.io.counts import Counts
from auditor.io.source import Source
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY, Metric

#: Simulated test sets by default.
SIMULATIONS = 200
#: Most simulated items (N · R) held at once.
MAX_SIMULATED_ITEMS = 200_000_000


def resample(counts: Counts, items: int, simulations: int, seed: int) -> np.ndarray:
    """Pattern counts of ``simulations`` test sets of ``items`` items: (R, U) ~ Multinomial(N, w)."""
    _, n = counts.patterns()
    rng = np.random.default_rng(np.random.SeedSequence([seed, items, 0]))
    return rng.multinomial(items, n / n.sum(), size=simulations)


def simulated_counts(counts: Counts, pattern_counts: np.ndarray) -> Counts:
    """The Counts of one simulated test set (items ordered by pattern; order does not matter)."""
    codes, _ = counts.patterns()
    gold = np.repeat(codes[:, 0], pattern_counts)
    predictions = np.repeat(codes[:, 1:].T, pattern_counts, axis=1)
    k, S = counts.k, len(counts.systems)
    confusion = np.zeros((S, k, k), dtype=np.int64)
    flat = (np.arange(S)[:, None] * k + codes[None, :, 0]) * k + codes[:, 1:].T
    np.add.at(confusion.reshape(-1), flat.ravel(), np.broadcast_to(pattern_counts, flat.shape).ravel())
    return Counts(counts.labels, counts.systems, gold, predictions, confusion, counts.labels_given)


def tested_pvalues(counts: Counts, metrics: Sequence[Metric], pairs: Sequence[tuple[int, int]], *, seed: int,
                   rounds: int, correction: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The audit's tests on one test set: metric id -> adjusted p (over ``pairs``) and differences
    m(a) − m(b), one entry per pair."""
    randomised = [m for m in metrics if primary_method(m.id) == RANDOMISATION]
    values = compute(counts.confusion.astype(np.float64), metrics, counts.labels_given)
    p = {m.id: np.empty(len(pairs)) for m in metrics}
    difference = {m.id: np.array([values[m.id][a] - values[m.id][b] for a, b in pairs]) for m in metrics}
    discordant = discordant_counts(counts) if any(m.id == "accuracy" for m in metrics) else None
    for index, (a, b) in enumerate(pairs):
        tested = approximate_randomisation(counts, a, b, randomised, seed=seed, rounds=rounds,
                                           all_labels_active=counts.labels_given) if randomised else {}
        for metric in metrics:
            if metric.id in tested:
                p[metric.id][index] = tested[metric.id][1]
            else:
                p[metric.id][index] = mcnemar_exact(discordant[a, b], discordant[b, a])
    return {m.id: adjust(p[m.id], correction) for m in metrics}, difference


def rank_stability(pilot: np.ndarray, simulated: np.ndarray) -> tuple[float | None, float | None]:
    """P(the pilot's top system is on top at N) and E[τ-b(ranking at N, pilot's)] from values
    (S,) and (R, S); undefined values rank last; None when the pilot's values are all tied."""
    pilot = np.where(np.isnan(pilot), -np.inf, pilot)
    simulated = np.where(np.isnan(simulated), -np.inf, simulated)
    if np.all(pilot == pilot[0]):
        return None, None
    top = int(np.argmax(pilot))
    best = simulated.max(axis=1, keepdims=True)
    on_top = simulated == best
    p_top = float(np.mean(on_top[:, top] / on_top.sum(axis=1)))
    finite = np.concatenate([pilot[:, None], simulated.T], axis=1)
    finite = np.where(np.isinf(finite), -1e300, finite)
    tau = kendall_tau_b(finite[:, 0], finite[:, 1:].T)  # the pilot's ranking against each simulated one
    return p_top, (None if np.isnan(tau).all() else float(np.nanmean(tau)))


@dataclass(frozen=True)
class PilotResult:
    """Power per pair and metric at N, rank stability per metric, and the inputs."""

    systems: tuple[str, ...]
    labels: tuple[str, ...]
    pilot_items: int
    items: int
    simulations: int
    rounds: int
    alpha: float
    target_power: float
    correction: str
    seed: int
    metrics: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    pilot_difference: Mapping[str, np.ndarray]
    power: Mapping[str, np.ndarray]
    p_top_stays: Mapping[str, float | None]
    expected_kendall_tau: Mapping[str, float | None]
    sources: Mapping[str, Source]

    #: metric id -> {N: mean power over the pairs} at every size asked for (N included).
    mean_power_by_size: Mapping[str, Mapping[int, float | None]] = field(default_factory=dict)

    def reaches_target(self) -> bool:
        """Whether some metric's mean power over the pairs reaches the target at some simulated size."""
        return any(value is not None and value >= self.target_power
                   for sizes in self.mean_power_by_size.values() for value in sizes.values())

    def mean_power(self, metric: str) -> tuple[float | None, float | None]:
        """Mean power over the pairs at N and a bound on its Monte Carlo standard error (the mean of the pairs'
        sqrt(p(1 − p)/R); the SE of a mean is at most the mean of the SEs, whatever the pairs' correlation)."""
        values = self.power[metric][~np.isnan(self.power[metric])]
        if values.size == 0:
            return None, None
        return float(values.mean()), float(np.mean(np.sqrt(values * (1 - values) / self.simulations)))

    def suggested_sizes(self) -> list[int]:
        """Sizes to simulate next (``--sizes``) when no metric reaches the target: 2, 4 and 8 times the largest
        size simulated."""
        largest = max([self.items, *(n for sizes in self.mean_power_by_size.values() for n in sizes)])
        return [2 * largest, 4 * largest, 8 * largest]

    def separation_sentence(self) -> str:
        """Which metric separates the systems with the fewest items, or that none reaches the target power, with
        the mean powers and their Monte Carlo error."""
        best = self.best_metric()
        if best is None:
            return "no metric has a defined power"
        if self.reaches_target():
            return f"separates the systems with the fewest items: {best}"
        shown = "; ".join(f"{m} {100 * v:.0f}% ± {100 * se:.0f}%" for m in self.metrics
                          for v, se in [self.mean_power(m)] if v is not None)
        sizes = ",".join(str(n) for n in self.suggested_sizes())
        return (f"no metric reaches the target power {self.target_power:g} at the sizes simulated (mean power over "
                f"the pairs at N = {self.items:,}, ± a bound on its Monte Carlo standard error: {shown}); simulate "
                f"larger test sets, e.g. --sizes {sizes}")

    def best_metric(self) -> str | None:
        """The metric that separates the systems with the fewest items: the smallest size whose mean
        power over the pairs reaches the target (sizes of ``mean_power_by_size``), ties and metrics
        that never reach it ranked by the pairs at or above the target at N, then the mean power at N."""
        def smallest(metric: str) -> float:
            reached = [n for n, value in self.mean_power_by_size.get(metric, {}).items()
                       if value is not None and value >= self.target_power]
            return min(reached) if reached else float("inf")

        scored = [(-smallest(m), np.nansum(self.power[m] >= self.target_power), np.nanmean(self.power[m]), m)
                  for m in self.metrics if not np.isnan(self.power[m]).all()]
        return max(scored)[3] if scored else None


def _simulate_at(counts: Counts, metrics: Sequence[Metric], pairs: Sequence[tuple[int, int]],
                 pilot_difference: Mapping[str, np.ndarray], items: int, *, simulations: int, rounds: int,
                 alpha: float, correction: str, seed: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Power per metric and pair at ``items``, and every simulation's metric values (R, S)."""
    drawn = resample(counts, items, simulations, seed)
    hits = {m.id: np.zeros(len(pairs)) for m in metrics}
    values = {m.id: np.empty((simulations, len(counts.systems))) for m in metrics}
    for r in range(simulations):  # one simulated test set at a time: its items are built once
        simulated = simulated_counts(counts, drawn[r])
        stream = int(np.random.SeedSequence([seed, items, r + 1]).generate_state(1)[0])
        adjusted, difference = tested_pvalues(simulated, metrics, pairs, seed=stream, rounds=rounds,
                                              correction=correction)
        scores = compute(simulated.confusion.astype(np.float64), metrics, counts.labels_given)
        for m in metrics:
            hits[m.id] += (adjusted[m.id] < alpha) & (np.sign(difference[m.id]) == np.sign(pilot_difference[m.id]))
            values[m.id][r] = scores[m.id]
    # no effect to find (a difference of 0) or none defined (the metric undefined for a system on the pilot)
    power = {m.id: np.where((pilot_difference[m.id] == 0) | np.isnan(pilot_difference[m.id]), np.nan,
                            hits[m.id] / simulations) for m in metrics}
    return power, values


def plan_pilot_counts(counts: Counts, *, items: int, alpha: float = 0.05, target_power: float = 0.8,
                      simulations: int = SIMULATIONS, rounds: int = 1000, correction: str = "holm",
                      seed: int = 12345, metric_ids: Iterable[str] = TEST_METRICS,
                      sources: Mapping[str, Source] | None = None, sizes: Iterable[int] = ()) -> PilotResult:
    """Mode 2 on a pilot's counts (module docstring); ``sizes``: more test-set sizes at which the
    mean power per metric is simulated too (to find the metric needing the fewest items)."""
    sizes = sorted({int(n) for n in sizes} | {items}) if sizes else [items]
    for size in sizes:
        _check(counts, size, alpha, target_power, simulations, rounds, correction)
    metrics = [REGISTRY.metrics[REGISTRY.resolve(m)] for m in metric_ids]
    pairs = list(combinations(range(len(counts.systems)), 2))
    pilot_values = compute(counts.confusion.astype(np.float64), metrics, counts.labels_given)
    pilot_difference = {m.id: np.array([pilot_values[m.id][a] - pilot_values[m.id][b] for a, b in pairs])
                        for m in metrics}
    # as the audit does: enough rounds that a corrected randomisation p can fall below alpha at all
    rounds = randomisation_rounds(rounds, len(pairs), alpha)
    by_size: dict[str, dict[int, float | None]] = {m.id: {} for m in metrics}
    for size in sizes:
        size_power, size_values = _simulate_at(counts, metrics, pairs, pilot_difference, size, simulations=simulations,
                                               rounds=rounds, alpha=alpha, correction=correction, seed=seed)
        for m in metrics:
            by_size[m.id][size] = None if np.isnan(size_power[m.id]).all() else float(np.nanmean(size_power[m.id]))
        if size == items:
            power, values = size_power, size_values
    stability = {m.id: rank_stability(pilot_values[m.id], values[m.id]) for m in metrics}
    return PilotResult(counts.systems, counts.labels, counts.n_items, items, simulations, rounds, alpha, target_power,
                       correction, seed, tuple(m.id for m in metrics),
                       tuple((counts.systems[a], counts.systems[b]) for a, b in pairs), pilot_difference, power,
                       {m: s[0] for m, s in stability.items()}, {m: s[1] for m, s in stability.items()},
                       dict(sources or {}), by_size)


def _check(counts: Counts, items: Any, alpha: Any, target_power: Any, simulations: Any, rounds: Any,
           correction: str) -> None:
    for name, value, low in (("--items", items, 1), ("--simulations", simulations, 1), ("--rounds", rounds, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise UsageError(f"{name}: expected a whole number >= {low}, found {value!r}")
    for name, value in (("--alpha", alpha), ("--target-power", target_power)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise UsageError(f"{name}: expected a number strictly between 0 and 1, found {value!r}")
    if correction not in ("holm", "bh"):
        raise UsageError(f"--correction: expected holm or bh, found {correction!r}")
    if len(counts.systems) < 2:
        raise UsageError(f"planning from a pilot compares systems: give at least two SYSTEM files, found "
                         f"{len(counts.systems)}")
    if items * simulations > MAX_SIMULATED_ITEMS:
        raise UsageError(f"--items {items} x --simulations {simulations} = {items * simulations:,} simulated items, "
                         f"more than {MAX_SIMULATED_ITEMS:,}; use fewer simulations")


def plan_pilot(gold: str, systems: Sequence[str], *, items: int, alpha: float = 0.05, target_power: float = 0.8,
               simulations: int = SIMULATIONS, rounds: int = 1000, correction: str = "holm",
               labels: str | Sequence[str] | None = None, seed: int = 12345, sizes: Iterable[int] = ()) -> Any:
    """Mode 2 from files: read and align the pilot as the audit does, then :func:`plan_pilot_counts`."""
    from auditor.io.load import label_column
    from auditor.io.validate import align
    from auditor.options import name_paths
    from auditor.plan.documents import PilotPlan

    if isinstance(labels, str):
        labels = tuple(label.strip() for label in labels.split(","))
    named = name_paths(systems)
    table = align(label_column(gold, "<gold>"), [(n, label_column(p, f"<{n}>")) for n, p in named.items()], labels)
    result = plan_pilot_counts(table.counts(), items=items, alpha=alpha, target_power=target_power,
                               simulations=simulations, rounds=rounds, correction=correction, seed=seed,
                               sources=table.sources, sizes=sizes)
    return PilotPlan(result)
