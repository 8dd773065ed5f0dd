"""The planner's results as documents: JSON (schema ``auditor-plan/1``, described by
``auditor/plan.schema.json``), terminal lines, and (in :mod:`auditor.plan.pages`) report models.

Each result has ``to_json()``, ``terminal_lines()`` and ``report_model(figures)``, as a task's
audit does (:mod:`auditor.tasks`), so the renderers of :mod:`auditor.formats` write it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from auditor.analyses.power import (
    CONSERVATIVE_NOTE,
    Detectable,
    Hypothesis,
    ItemsNeeded,
    PowerFigures,
    detectable_difference,
    hypothesis,
    items_needed,
    power,
)
from auditor.formatting import format_value
from auditor.plan.methods import CARD, GELMAN, METHODS, TEST, VICKERS
from auditor.plan.predictive import PredictiveResult
from auditor.version import __version__

SCHEMA = "auditor-plan/1"


def signature(mode: str, **fields: Any) -> str:
    """``auditor:VERSION|plan:MODE|key:value|...``: what reproduces the numbers."""
    parts = [f"{key}:{value:g}" if isinstance(value, float) else f"{key}:{value}" for key, value in fields.items()]
    return "|".join([f"auditor:{__version__}", f"plan:{mode}", *parts])


@dataclass(frozen=True)
class AccuracyPlan:
    """Mode 1: power of the accuracy test from hypotheses."""

    hypothesis: Hypothesis
    figures: PowerFigures
    detectable: Detectable
    needed: ItemsNeeded

    @property
    def signature(self) -> str:
        h = self.hypothesis
        return signature("accuracy", items=h.items, accuracy=h.accuracy, difference=h.difference,
                         agreement=h.agreement, alpha=h.alpha, target=h.target_power)

    def to_json(self) -> dict[str, Any]:
        h, f = self.hypothesis, self.figures
        undefined = dict(f.undefined)
        if self.detectable.undefined:
            undefined["detectable_difference"] = self.detectable.undefined
        if self.needed.undefined:
            undefined["items_needed"] = self.needed.undefined
        return {
            "schema": SCHEMA, "signature": self.signature, "mode": "accuracy",
            "inputs": {"items": h.items, "accuracy_a": h.accuracy, "accuracy_b": h.accuracy + h.difference,
                       "difference": h.difference, "agreement": h.agreement, "agreement_given": h.agreement_given,
                       "agreement_note": None if h.agreement_given else CONSERVATIVE_NOTE,
                       "alpha": h.alpha, "target_power": h.target_power, "test": TEST},
            "power": f.power, "p_reject": f.p_reject, "type_s": f.type_s, "type_m": f.type_m,
            "detectable_difference": self.detectable.difference,
            "detectable_difference_method": {"method": self.detectable.method,
                                             "tolerance": self.detectable.tolerance},
            "items_needed": self.needed.items,
            "items_needed_checked": {"from": self.needed.checked_from, "to": self.needed.checked_to,
                                     "bound_up_to": self.needed.proved_to},
            "undefined": undefined, "methods": METHODS, "references": [CARD, GELMAN],
        }

    def terminal_lines(self, columns: Any = ()) -> list[str]:
        h, f = self.hypothesis, self.figures
        lines = [f"Planning an accuracy comparison ({TEST.split(' (')[0]}, alpha = {h.alpha:g})",
                 f"  N = {h.items:,} items, A = {h.accuracy:g}, B = A + D = {h.accuracy + h.difference:g}, "
                 f"agreement G = {h.agreement:.4g}" + ("" if h.agreement_given else " (the smallest possible)")]
        if not h.agreement_given:
            lines.append(f"  note: {CONSERVATIVE_NOTE}")
        detectable = self.detectable.difference
        rows = [("power", format_value(f.power, "number")), ("P(reject)", format_value(f.p_reject, "number")),
                ("Type S", format_value(f.type_s, "number")), ("Type M", format_value(f.type_m, "number")),
                (f"detectable D (power {h.target_power:g})", "—" if detectable is None else f"{detectable:.4f}")]
        lines += [f"  {name:<28} {text}" for name, text in rows]
        lines.append(f"  {'':<28} (D " + ("at the given agreement, held fixed as D varies)" if h.agreement_given
                                          else "at the smallest agreement each D allows, |2A + D − 1|)"))
        lines.append(f"  {f'items needed (power {h.target_power:g})':<28} "
                     f"{self.needed.items if self.needed.items is not None else '—'}")
        lines += [f"  {key}: undefined: {reason}" for key, reason in self.to_json()["undefined"].items()]
        return lines

    def report_model(self, figures: bool) -> Any:
        from auditor.plan.pages import accuracy_page

        return accuracy_page(self, figures)


def plan_accuracy(items: Any, accuracy: Any, difference: Any, agreement: Any = None, *, alpha: Any = 0.05,
                  target_power: Any = 0.8) -> AccuracyPlan:
    """Mode 1: check the hypotheses, then power, Type S/M, detectable difference, items needed."""
    h = hypothesis(items, accuracy, difference, agreement, alpha=alpha, target_power=target_power)
    return AccuracyPlan(h, power(h), detectable_difference(h), items_needed(h))


@dataclass(frozen=True)
class PredictivePlan:
    """Mode 3: the predictive-power model's curves."""

    result: PredictiveResult
    source: str

    @property
    def signature(self) -> str:
        r = self.result
        fields: dict[str, Any] = {"prevalence": ",".join(f"{label}={share:.6g}" for label, share in
                                                         zip(r.labels, r.prevalence)), "guess": r.guess}
        if r.simulation is not None:
            fields.update(items=r.simulation["items"], draws=r.simulation["draws"], seed=r.simulation["seed"])
        return signature("predictive_power", **fields)

    def to_json(self) -> dict[str, Any]:
        body = self.result.to_json()
        inputs = {"labels": body.pop("labels"), "prevalence": body.pop("prevalence"),
                  "prevalence_source": self.source, "guess": body.pop("guess"),
                  "guess_description": body.pop("guess_description"),
                  "guess_distribution": body.pop("guess_distribution")}
        return {"schema": SCHEMA, "signature": self.signature, "mode": "predictive_power", "inputs": inputs,
                **body, "references": [VICKERS]}

    def terminal_lines(self, columns: Any = ()) -> list[str]:
        r = self.result
        shown = [0, 25, 50, 75, 100] if len(r.x) == 101 else list(range(len(r.x)))
        ids = [m for m in (columns or r.metrics) if m in r.values]
        lines = [f"Predictive-power model (Vickers et al. 2023 §3): right with probability x, otherwise "
                 f"{GUESS_WORDS[r.guess]}", "  prevalence " + ", ".join(f"{label}={share:.3g}" for label, share in
                                                                        zip(r.labels, r.prevalence)),
                 "  shown: " + r.to_json()["shown"] + " (×100)",
                 f"  {'metric':<28}" + "".join(f"{'x=' + format(r.x[i], 'g'):>9}" for i in shown) + "   linear"]
        for metric_id in ids:
            values = r.values[metric_id]
            lines.append(f"  {metric_id:<28}" + "".join(f"{format_value(values[i], 'score'):>9}" for i in shown)
                         + f"   {'yes' if r.linear[metric_id] else 'no'}")
        if r.simulation is not None:
            simulation = r.simulation
            lines += [f"Simulated at N = {simulation['items']:,} ({simulation['draws']} draws per x, seed "
                      f"{simulation['seed']}): mean over the draws where the metric is defined (×100; quantiles in "
                      "--json)",
                      ]
            picked = sorted({round(i) for i in [k * (len(simulation["x"]) - 1) / 4 for k in range(5)]})
            lines.append(f"  {'metric':<28}" + "".join(f"{'x=' + format(simulation['x'][i], 'g'):>9}" for i in picked))
            for metric_id in ids:
                if metric_id in simulation["metrics"]:
                    means = simulation["metrics"][metric_id]["mean"]
                    lines.append(f"  {metric_id:<28}" + "".join(f"{format_value(means[i], 'score'):>9}"
                                                                for i in picked))
        return lines

    def report_model(self, figures: bool) -> Any:
        from auditor.plan.pages import predictive_page

        return predictive_page(self, figures)


GUESS_WORDS = {"prevalence": "a label drawn from the prevalence", "uniform": "a uniformly drawn label",
               "majority": "the majority class"}


@dataclass(frozen=True)
class PilotPlan:
    """Mode 2: power per pair and metric at N, from the pilot's pattern table."""

    result: Any  # auditor.plan.pilot.PilotResult

    @property
    def signature(self) -> str:
        r = self.result
        gold = (r.sources["gold"].sha256 if "gold" in r.sources else None) or "array"
        return signature("pilot", gold=str(gold)[:12], systems=len(r.systems), pilot_items=r.pilot_items,
                         items=r.items, simulations=r.simulations, rounds=r.rounds, alpha=r.alpha,
                         correction=r.correction, seed=r.seed)

    def _power(self, metric: str, index: int) -> tuple[float | None, float | None]:
        value = float(self.result.power[metric][index])
        if value != value:
            return None, None
        return value, (value * (1 - value) / self.result.simulations) ** 0.5

    def to_json(self) -> dict[str, Any]:
        from auditor.analyses.significance import primary_method

        r = self.result
        pairs = []
        undefined = {}
        for index, (a, b) in enumerate(r.pairs):
            metrics = {}
            for metric in r.metrics:
                value, se = self._power(metric, index)
                difference = float(r.pilot_difference[metric][index])
                if value is None:
                    undefined[f"{a} vs {b}: {metric}"] = (
                        "the pilot's difference is 0: no effect to detect" if difference == 0 else
                        f"the pilot's difference is undefined: {metric} is undefined on the pilot for {a} or {b}")
                metrics[metric] = {"power": value, "power_se": se,
                                   "difference": None if difference != difference else difference,
                                   "method": primary_method(metric)}
            pairs.append({"a": a, "b": b, "metrics": metrics})
        best = r.best_metric()
        reached = r.reaches_target()
        return {
            "schema": SCHEMA, "signature": self.signature, "mode": "pilot",
            "inputs": {"systems": list(r.systems), "labels": list(r.labels), "pilot_items": r.pilot_items,
                       "items": r.items, "simulations": r.simulations, "rounds": r.rounds, "alpha": r.alpha,
                       "target_power": r.target_power, "correction": r.correction, "seed": r.seed,
                       "metrics": list(r.metrics),
                       "sources": {name: source.to_json() for name, source in r.sources.items()}},
            "pairs": pairs,
            "rank_stability": {"p_top_stays": dict(r.p_top_stays),
                               "expected_kendall_tau": dict(r.expected_kendall_tau)},
            "separates_best": {"metric": best if reached else None, "reaches_target": reached,
                               "highest_mean_power": best,
                               "suggested_sizes": [] if reached else r.suggested_sizes(),
                               "mean_power": {m: dict(zip(("value", "se_bound"), r.mean_power(m))) for m in r.metrics},
                               "rule": "the smallest size at which the metric's mean power over the "
                                       "pairs reaches the target; then, at N, the most pairs at or "
                                       "above the target, then the highest mean power; none when no metric "
                                       "reaches the target at any size simulated",
                               "mean_power_by_size": {m: {str(n): v for n, v in sizes.items()}
                                                      for m, sizes in r.mean_power_by_size.items()}},
            "method": "pattern counts ~ Multinomial(N, pilot pattern shares), R simulations; on each, the audit's "
                      "paired tests (exact McNemar for accuracy, approximate randomisation otherwise), adjusted over "
                      "the pairs of each metric; power = share with adjusted p < alpha and the pilot's sign",
            "undefined": undefined, "references": [CARD],
        }

    def terminal_lines(self, columns: Any = ()) -> list[str]:
        r = self.result
        lines = [f"Planning from a pilot of {r.pilot_items:,} items: power at N = {r.items:,} "
                 f"({r.simulations} simulated test sets, {r.correction}, alpha = {r.alpha:g})",
                 f"  {'pair':<40}" + "".join(f"{m[:12]:>13}" for m in r.metrics)]
        for index, (a, b) in enumerate(r.pairs):
            cells = [self._power(m, index)[0] for m in r.metrics]
            lines.append(f"  {(a + ' vs ' + b)[:40]:<40}" + "".join(f"{format_value(c, 'number'):>13}" for c in cells))
        lines.append(f"  {'P(top stays on top)':<40}" + "".join(f"{format_value(r.p_top_stays[m], 'number'):>13}"
                                                                for m in r.metrics))
        lines.append(f"  {'E[Kendall tau-b]':<40}" + "".join(f"{format_value(r.expected_kendall_tau[m], 'number'):>13}"
                                                             for m in r.metrics))
        for metric, sizes in r.mean_power_by_size.items():
            if len(sizes) > 1:
                lines.append(f"  mean power of {metric} by N: " + ", ".join(
                    f"{n:,}: {format_value(v, 'number')}" for n, v in sorted(sizes.items())))
        lines.append("  " + r.separation_sentence())
        return lines

    def report_model(self, figures: bool) -> Any:
        from auditor.plan.pages import pilot_page

        return pilot_page(self, figures)
