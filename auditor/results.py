"""The results of one audit: the :class:`Audit` record (one field per analysis) and its JSON.

The pipeline builds the (frozen) record once its analyses have run; the report and every
output format read it. ``Audit.to_json`` is the one place the audit JSON (schema
``auditor/2``, described by ``auditor/audit.schema.json``) is produced.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from auditor.io.counts import Counts
from auditor.metrics.catalogue import MetricValue
from auditor.metrics.registry import Metric
from auditor.options import AuditOptions
from auditor.version import __version__

if TYPE_CHECKING:  # the analysis modules load scipy; the record needs only their names
    from auditor.analyses.agreement import GoldReliability
    from auditor.analyses.baselines import ChanceBaselines, ChanceDistribution
    from auditor.analyses.profile import DataProfile
    from auditor.analyses.properties import PropertyResult, PropertyTable, Witness
    from auditor.analyses.rankings import Deployment, RankDisagreement
    from auditor.analyses.recommend import Recommendation, Source
    from auditor.analyses.scores import ScoreAnalysis
    from auditor.analyses.significance import PairTest, Statistics
    from auditor.analyses.slices import SliceAnalysis
    from auditor.analyses.verdict import Verdict

SCHEMA = "auditor/2"
#: The analysis fields of :class:`Audit`, in the order the pipeline runs them.
ANALYSES = ("baselines", "statistics", "properties", "rankings", "deployment", "recommendation", "verdict",
            "gold_reliability", "scores", "slices")


@dataclass(frozen=True)
class SystemResult:
    """One system's metric values, per-class table and confusion matrix."""

    name: str
    metrics: dict[str, MetricValue]
    per_class: dict[str, dict[str, Any]]
    confusion: np.ndarray


@dataclass(frozen=True)
class Audit:
    """Result of :func:`audit`, built once the analyses have run (``dataclasses.replace``
    adds a later stage's field). An analysis's field is ``None`` when it did not run."""

    labels: tuple[str, ...]
    n_items: int
    counts: Counts
    metrics: tuple[Metric, ...]
    systems: dict[str, SystemResult]
    sources: dict[str, dict[str, Any]]
    options: AuditOptions
    profile: DataProfile
    #: Label-check warnings (:mod:`auditor.analyses.label_checks`), printed by the CLI and on page 1.
    warnings: tuple[str, ...] = ()
    # One field per analysis, in the order the pipeline runs them; None = did not run.
    baselines: ChanceBaselines | None = None
    statistics: Statistics | None = None
    properties: PropertyTable | None = None
    rankings: RankDisagreement | None = None
    deployment: Deployment | None = None
    recommendation: Recommendation | None = None
    verdict: Verdict | None = None
    gold_reliability: GoldReliability | None = None
    scores: ScoreAnalysis | None = None
    slices: SliceAnalysis | None = None

    def interval(self, system: str, metric_id: str) -> tuple[float, float] | None:
        """The bootstrap percentile interval of ``metric_id`` for ``system``; None without one
        (no resamples, or no defined resample)."""
        if self.statistics is None or metric_id not in self.statistics.bootstrap.intervals:
            return None
        return self.statistics.bootstrap.interval(metric_id, system)

    @property
    def signature(self) -> str:
        """``auditor:<version>|gold:<sha256[:12]>|systems:<n>|labels:<k>|boot:B|seed:S|ci:percentile|...|samplers:...``."""
        from auditor.analyses.sampling import SIGNATURE as SAMPLERS

        gold_hash = (self.sources.get("gold", {}).get("sha256") or _hash_codes(self.counts.gold, self.labels))[:12]
        systems_hash = hashlib.sha256(
            "|".join(f"{name}:{self.sources.get(name, {}).get('sha256') or ''}" for name in self.counts.systems).encode()
        ).hexdigest()[:12]
        parts = [
            f"auditor:{__version__}", f"gold:{gold_hash}", f"systems:{len(self.systems)}:{systems_hash}",
            f"labels:{len(self.labels)}", f"boot:{self.options.bootstrap}", f"seed:{self.options.seed}",
            "ci:percentile", f"alpha:{self.options.alpha}", f"correction:{self.options.correction}",
            f"samplers:{SAMPLERS}",  # which draws made the intervals, ranks and chance ranges
        ]
        if self.options.plugins:
            parts.append("plugins:" + ",".join(self.options.plugins))
        if not self.counts.paired:  # confusion matrices only: each matrix bootstrapped on its own
            parts.append("input:confusion")
        if self.slices is not None:
            source = self.slices.source
            parts.append(f"slices:{(source.get('sha256') or '')[:12]}")
        return "|".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The audit JSON (schema ``auditor/2``, ``auditor/audit.schema.json``); ``null`` for
        undefined values. The keys DESIGN.md ("Interfaces") names stay where it puts them."""
        systems = {}
        for name, result in self.systems.items():
            systems[name] = {
                "metrics": {metric_id: _metric_json(value) for metric_id, value in result.metrics.items()},
                "per_class": result.per_class,
                "confusion": result.confusion.tolist(),
            }
        document: dict[str, Any] = {
            "schema": SCHEMA,
            "signature": self.signature,
            "task": "classification",
            "labels": list(self.labels),
            "n_items": self.n_items,
            "orientation": "rows = gold class, columns = predicted class",
            "sources": self.sources,
            "options": _options_json(self.options),
            "profile": _profile_json(self.profile),
            "warnings": list(self.warnings),
            "systems": systems,
        }
        for name in ANALYSES:
            result = getattr(self, name)
            if result is not None:
                JSON_SECTIONS[name](self, result, document)
        return document


def _options_json(options: AuditOptions) -> dict[str, Any]:
    """Every option that changes the numbers, as given (after checking); ``null`` when unset."""
    def shares(value: Any) -> Any:
        return dict(value) if isinstance(value, Mapping) else value

    return {
        "labels": None if options.labels is None else list(options.labels),
        "bootstrap": options.bootstrap, "seed": options.seed, "alpha": options.alpha,
        "correction": options.correction,
        "training_prevalence": shares(options.training_prevalence),
        "deployment_prevalence": shares(options.deployment_prevalence),
        "rare_classes_matter": options.rare_classes_matter, "plugins": list(options.plugins),
    }


def _profile_json(profile: DataProfile) -> dict[str, Any]:
    labels = profile.labels
    return {
        "k": profile.k, "k_gold": profile.k_gold, "n_items": profile.n_items,
        "support": dict(zip(labels, profile.support)),
        "prevalence": dict(zip(labels, profile.prevalence)),
        "absent_from_gold": list(profile.absent_from_gold),
        "min_support": profile.min_support, "imbalance_ratio": profile.imbalance_ratio,
        "prevalence_entropy": profile.prevalence_entropy, "normalised_entropy": profile.normalised_entropy,
        "majority_label": profile.majority_label, "majority_share": profile.majority_share,
        "identical_systems": [list(group) for group in profile.identical_systems],
        "systems": {
            name: {
                "bias": dict(zip(labels, bias.bias)),
                "predicted": dict(zip(labels, bias.predicted)),
                "never_predicted": list(bias.never_predicted),
                "predicted_only": list(bias.predicted_only),
                "total_variation": bias.total_variation,
                "kl_divergence": None if math.isinf(bias.kl_divergence) else bias.kl_divergence,
            }
            for name, bias in profile.systems.items()
        },
    }


# ------------------------------------------------------------------ one function per analysis
# Each writes its analysis's key(s) of the audit JSON (and the parts DESIGN.md places inside
# ``systems``, such as ``ci``); nothing else writes the document.


def _chance_distribution_json(value: ChanceDistribution) -> dict[str, Any]:
    return {
        "expected": value.expected, "exact": value.exact, "mc_mean": value.mc_mean, "mc_se": value.mc_se,
        "mc_low": value.mc_low, "mc_high": value.mc_high, "undefined": value.undefined,
        "undefined_share": value.undefined_share,
    }


def _baselines_json(audit: Audit, result: ChanceBaselines, document: dict[str, Any]) -> None:
    """``baselines`` (DESIGN.md) and ``chance``: how the draws were made and each system's
    margin over chance and shuffle p-value (``chance.systems.NAME.ID``)."""
    from auditor.analyses.baselines import DESCRIPTIONS, SAMPLING, SHUFFLE, correction_rule

    section: dict[str, Any] = {}
    for name, metrics in result.baselines.items():
        section[name] = {
            "description": DESCRIPTIONS[name],
            "predictor": dict(zip(result.labels, (float(x) for x in result.predictors[name]))),
            "metrics": {metric_id: _chance_distribution_json(value) for metric_id, value in metrics.items()},
        }
    section[SHUFFLE] = {
        system: {"description": DESCRIPTIONS[SHUFFLE],
                 "metrics": {metric_id: _chance_distribution_json(value) for metric_id, value in metrics.items()}}
        for system, metrics in result.shuffle.items()
    }
    document["baselines"] = section
    alpha = result.alpha
    document["chance"] = {
        "method": {
            "draws": result.draws, "seed": result.seed, "majority_label": result.majority_label, "alpha": alpha,
            "range": f"mc_low, mc_high: the {100 * alpha / 2:g}% and {100 * (1 - alpha / 2):g}% quantiles "
                     f"of the draws (a {100 * (1 - alpha):g}% Monte Carlo range at this test set's size)",
            "sampling": SAMPLING,
            "p_value": "one-sided, (1 + #{shuffle >= observed}) / (R' + 1) over the R' shuffles of the system",
            "shuffle_draws": result.shuffle_draws,
            "p_shuffle_correction": correction_rule(result.shuffle_draws, len(result.chance), alpha, result.correction),
        },
        "systems": {
            system: {
                metric_id: {"margin": c.margin, "strongest_baseline": c.strongest_baseline,
                            "p_shuffle": c.p_shuffle, "p_shuffle_adjusted": c.p_shuffle_adjusted,
                            "undefined": c.undefined}
                for metric_id, c in comparisons.items()
            }
            for system, comparisons in result.chance.items()
        },
    }


def _pair_test_json(test: PairTest) -> dict[str, Any]:
    return {
        "a": test.a, "b": test.b, "metric": test.metric, "method": test.method,
        "difference": _number(test.difference), "p": _number(test.p), "p_adjusted": _number(test.p_adjusted),
        **dict(test.details),
    }


def _statistics_json(audit: Audit, result: Statistics, document: dict[str, Any]) -> None:
    """``ci`` of every metric of every system, ``tests`` (DESIGN.md), and ``statistics``: the
    method, ``ranks`` (rank distributions), ``best_set`` and ``p_win`` (P(rank 1))."""
    from auditor.analyses.significance import (
        MCNEMAR, METHOD_DESCRIPTIONS, RANDOMISATION, RANK_RULE, best_set_rule, interval_rule, rounds_rule,
    )

    boot = result.bootstrap
    undefined: dict[str, dict[str, int]] = {}
    for s, name in enumerate(boot.systems):
        entries = document["systems"][name]["metrics"]
        for metric_id in boot.metric_ids:
            if metric_id in entries:
                low, high = boot.intervals[metric_id][s]
                entries[metric_id]["ci"] = None if math.isnan(low) else [float(low), float(high)]
            missing = int(boot.undefined[metric_id][s])
            if missing:
                undefined.setdefault(name, {})[metric_id] = missing
    document["tests"] = [_pair_test_json(test) for test in result.tests]
    alpha = result.alpha
    section: dict[str, Any] = {
        "B": boot.B, "seed": boot.seed, "alpha": alpha, "method": boot.method,
        "interval": interval_rule(alpha),
        "undefined_resamples": undefined,
        "rank_rule": RANK_RULE,
        "ranks": {  # empty when only the intervals were drawn (statistics.method says so)
            metric_id: {
                name: {"p_rank": [float(x) for x in probabilities[s]], "p_best": float(probabilities[s, 0])}
                for s, name in enumerate(boot.systems)
            }
            for metric_id, probabilities in boot.rank_probabilities.items()
        },
        "p_win": {metric_id: {name: float(probabilities[s, 0]) for s, name in enumerate(boot.systems)}
                  for metric_id, probabilities in boot.rank_probabilities.items()},
    }
    if result.pairwise_unavailable:  # no test ran: nothing describes tests; say why instead
        section["pairwise_tests_unavailable"] = result.pairwise_unavailable
    else:
        section.update({
            "correction": result.correction,
            "family": result.family,
            "test_metrics": list(result.test_metrics),
            "test_methods": {method: METHOD_DESCRIPTIONS[method] for method in (MCNEMAR, RANDOMISATION)
                      if any(test.method == method for test in result.tests)},
            "randomisation_rounds": result.rounds,
            "rounds_rule": rounds_rule(result.rounds, max(result.family_sizes().values(), default=0), alpha),
            "best_set_rule": best_set_rule(alpha, result.correction),
            "best_set": {metric_id: {"top": best.top, "systems": list(best.systems), "test": best.test,
                                     "alpha": best.alpha,
                                     "p_adjusted": {name: _number(p) for name, p in best.p_adjusted.items()}}
                         for metric_id, best in result.best_set.items()},
            "p_floor": {RANDOMISATION: 1 / (result.rounds + 1)} if result.rounds else {},
            "family_sizes": result.family_sizes(),
        })
    document["statistics"] = section


def _verdict_json(audit: Audit, result: Verdict, document: dict[str, Any]) -> None:
    document["verdict"] = {
        "primary": result.primary,
        "key_metrics": list(result.key_metrics),
        "leaders": {metric_id: list(systems) for metric_id, systems in result.leaders.items()},
        "significance": result.tested,
        "winner_depends_on_metric": result.winner_depends_on_metric,
        "disjoint_best_sets": [list(pair) for pair in result.disjoint],
        "order": list(result.order),
        "groups": [list(group) for group in result.groups],
        "ties": {metric_id: [list(group) for group in groups] for metric_id, groups in result.ties.items()},
        "text": result.text,
    }


def _properties_json(audit: Audit, result: PropertyTable, document: dict[str, Any]) -> None:
    """``properties``: per metric the probed properties (DESIGN.md "Metric properties"), the chance
    scores found, the declaration, Table 5's row, the disagreements and the witnesses."""
    from auditor.analyses.properties import PROPERTY_KEYS

    document["properties"] = {entry.metric_id: _property_json(entry, PROPERTY_KEYS) for entry in result}


def _property_json(entry: PropertyResult, keys: Sequence[str]) -> dict[str, Any]:
    marks = entry.calibration_marks
    return {
        **{key: entry.probed[key] for key in keys},
        "chance_value": entry.chance_value,
        "chance_bound": dict(entry.chance_bound),
        "chance_formula": entry.chance_formula,
        "chance_baselines": {k: {"min": b.min, "max": b.max, "uniform_predictor": b.uniform_predictor,
                                 "majority_class_predictor_on_skewed_gold": b.majority_class_predictor_on_skewed_gold}
                             for k, b in entry.chance_baselines.items()},
        "declared": {**{key: getattr(entry.declared, key) for key in keys}, "source": entry.declared.source},
        "literature": None if entry.literature is None else dict(entry.literature),
        "agrees_with_literature": entry.agrees_with_literature,
        "disagreements": [{"property": d.property, "probed": d.probed, "literature": d.literature,
                           "section": d.section, "explanation": d.explanation, "witness": d.witness}
                          for d in entry.disagreement_records()],
        "calibration_marks": None if marks is None else {
            "base": marks.base, "row": marks.row, "by_calibration": list(marks.by_calibration),
            "shown_by_probe": dict(marks.shown_by_probe), "source": marks.source},
        "witnesses": {key: _witness_json(witness) for key, witness in entry.witnesses.items()},
        "note": entry.note,
    }


def _witness_json(witness: Witness) -> dict[str, Any]:
    return {
        "description": witness.description,
        "before": _count_matrix_json(witness.before),
        "after": None if witness.after is None else _count_matrix_json(witness.after),
        "score_before": _finite_or_none(witness.score_before),
        "score_after": _finite_or_none(witness.score_after),
    }


def _count_matrix_json(matrix: np.ndarray) -> list[list[float]]:
    """Whole counts as integers, fractional ones (re-weighted, chance matrices) to 6 decimals."""
    matrix = np.asarray(matrix)
    if matrix.dtype.kind in "iu":
        return matrix.tolist()
    if np.isfinite(matrix).all() and (matrix == np.round(matrix)).all() and (
            matrix.size == 0 or np.abs(matrix).max() < 2.0**62):
        return matrix.astype(np.int64).tolist()  # all whole: one vectorised pass (k = 1,000 is 10^6 cells)
    return [[int(x) if float(x).is_integer() else round(float(x), 6) for x in row] for row in matrix]


def _finite_or_none(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def _rankings_json(audit: Audit, result: RankDisagreement, document: dict[str, Any]) -> None:
    """``rankings`` and ``rank_agreement`` (DESIGN.md), and ``rank_disagreement``: the winner under
    each metric, the flipping pairs, every system's rank, the systems ranked last as undefined."""
    document["rankings"] = result.rankings
    document["rank_agreement"] = {"kendall": result.agreement("kendall"), "spearman": result.agreement("spearman")}
    document["rank_disagreement"] = {
        "winners": result.winners,
        "flips": [{"a": flip.a, "b": flip.b, "a_better_under": list(flip.a_better_under),
                   "b_better_under": list(flip.b_better_under),
                   "significant": None if flip.significant is None else dict(flip.significant)}
                  for flip in result.flips],
        "rank_table": {name: {metric: result.rank(name, metric) for metric in result.metrics}
                       for name in result.systems},
        "rank_undefined": {metric: list(names) for metric, names in result.undefined.items() if names},
    }


def _deployment_json(audit: Audit, result: Deployment, document: dict[str, Any]) -> None:
    """``deployment``: metric values and rankings with the gold rows re-weighted to its prevalence."""
    document["deployment"] = {
        "name": result.name, "target": dict(result.target),
        "metrics": {system: dict(values) for system, values in result.values.items()},
        "rankings": result.disagreement.rankings, "winners": result.disagreement.winners,
        "notes": list(result.notes),
    }


def _recommendation_json(audit: Audit, result: Recommendation, document: dict[str, Any]) -> None:
    """``recommendation`` (DESIGN.md): the metric set with formulas, reasons and passages, the metrics
    to avoid, notes, the facts the rules read, the rules (all, and those that fired), where the
    papers differ."""
    from auditor.analyses.recommend import PAPERS_DIFFER, RULES

    facts = result.facts
    document["recommendation"] = {
        "metrics": [{"id": m.id, "name": m.name, "role": m.role, "formula": m.formula, "reasons": list(m.reasons),
                     "sources": _sources_json(m.sources)} for m in result.metrics],
        "avoid": [{"id": a.id, "name": a.name, "reasons": list(a.reasons), "sources": _sources_json(a.sources)}
                  for a in result.avoid],
        "notes": [{"rule": n.rule, "text": n.text, "sources": _sources_json(n.sources)} for n in result.notes],
        "profile_facts": {
            "k": facts.k, "n_items": facts.n_items, "min_support": facts.min_support, "min_label": facts.min_label,
            "imbalance_ratio": facts.imbalance_ratio, "prevalence_entropy": facts.prevalence_entropy,
            "normalised_entropy": facts.normalised_entropy, "majority_label": facts.majority_label,
            "majority_share": facts.majority_share,
            "bias_divergence": {s: dict(d) for s, d in facts.bias_divergence.items()},
            "never_predicted": {s: list(labels) for s, labels in facts.never_predicted.items()},
            "near_chance": dict(facts.near_chance), "deployment_prevalence": facts.deployment_prevalence,
            "rare_classes_matter": facts.rare_classes_matter,
        },
        "rules_fired": list(result.rules_fired),
        "rules": [{"id": rule.id, "text": rule.text, "references": list(rule.references),
                   "sources": _sources_json(rule.sources)} for rule in RULES],
        "papers_differ": [{"topic": d.topic, "text": d.text, "sources": _sources_json(d.sources)}
                          for d in PAPERS_DIFFER],
    }


def _sources_json(sources: Sequence[Source]) -> list[dict[str, str]]:
    return [{"file": source.file, "section": source.section, "quote": source.quote} for source in sources]


def _gold_reliability_json(audit: Audit, result: GoldReliability, document: dict[str, Any]) -> None:
    from auditor.analyses.agreement import CEILING_MEANING, DEFINITIONS, ceiling

    bound = ceiling(result, {name: system.metrics for name, system in audit.systems.items()})
    document["gold_reliability"] = {
        "annotators": list(result.annotators), "labels": list(result.labels), "n_items": result.n_items,
        "raw_agreement": result.raw_agreement,
        "raw_agreement_pairs": _matrix_json(result.raw_agreement_pairs),
        "unanimous": result.unanimous,
        "cohen_kappa": result.cohen_kappa,
        "cohen_kappa_pairs": _matrix_json(result.cohen_kappa_pairs),
        "fleiss_kappa": result.fleiss_kappa,
        "krippendorff_alpha": result.krippendorff_alpha,
        "undefined": dict(result.undefined),
        "definitions": DEFINITIONS,
        "ceiling": {"accuracy": bound.accuracy, "kappa": bound.kappa, "meaning": CEILING_MEANING,
                    "systems_above": {name: list(metrics) for name, metrics in bound.systems_above.items()}},
    }


def _matrix_json(matrix: np.ndarray) -> list[list[float | None]]:
    return [[None if np.isnan(x) else float(x) for x in row] for row in matrix]


def _scores_json(audit: Audit, result: ScoreAnalysis, document: dict[str, Any]) -> None:
    from auditor.analyses.scores import ECE_BINS, LOSSES, SCORE_METRICS, SUM_TOLERANCE

    for name, values in result.values.items():
        document["systems"][name]["scores"] = {
            metric_id: {"value": value.value, "ci": list(value.ci) if value.ci else None, "undefined": value.undefined}
            for metric_id, value in ((m, values[m]) for m in SCORE_METRICS)}
    document["score_summary"] = {
        "systems": list(result.values), "score_labels": {name: list(labels) for name, labels in result.labels.items()},
        "ece_bins": ECE_BINS, "sum_tolerance": SUM_TOLERANCE,
        "reliability": {name: {} if bins is None else {"count": list(bins.count), "confidence": list(bins.confidence),
                                                       "accuracy": list(bins.accuracy)}
                        for name, bins in result.reliability.items()},
        "lower_is_better": list(LOSSES),
        "intervals": result.intervals,
        "notes": list(result.notes),
    }


def _slices_json(audit: Audit, result: SliceAnalysis, document: dict[str, Any]) -> None:
    from auditor.analyses.slices import LEADERS_RULE, MIN_ITEMS

    document["slices"] = {
        group: {
            "n_items": result.n_items[group],
            "systems": {name: {"metrics": {m: {"value": v.value, "undefined": v.undefined} for m, v in metrics.items()}}
                        for name, metrics in result.values[group].items()},
            "leaders": {m: list(systems) for m, systems in result.leaders[group].items()},
        }
        for group in result.groups
    }
    document["slice_summary"] = {
        "source": dict(result.source), "key_metrics": list(result.key_metrics), "min_items": MIN_ITEMS,
        "small": list(result.small), "overall_leaders": {m: list(s) for m, s in result.overall_leaders.items()},
        "winner_changes": result.winner_changes(), "leaders_rule": LEADERS_RULE,
    }


JSON_SECTIONS = {
    "baselines": _baselines_json, "statistics": _statistics_json, "properties": _properties_json,
    "rankings": _rankings_json, "deployment": _deployment_json, "recommendation": _recommendation_json,
    "verdict": _verdict_json, "gold_reliability": _gold_reliability_json, "scores": _scores_json,
    "slices": _slices_json,
}


def _number(value: float | None) -> float | None:
    """A float for the JSON, ``None`` for NaN (undefined)."""
    return None if value is None or math.isnan(value) else float(value)


def _metric_json(value: MetricValue) -> dict[str, Any]:
    return {"value": value.value, "ci": None, "undefined": value.undefined, "convention": value.convention}


def _hash_codes(codes: np.ndarray, labels: Sequence[str]) -> str:
    digest = hashlib.sha256("\x1f".join(labels).encode())
    digest.update(np.ascontiguousarray(codes, dtype=np.int64).tobytes())
    return digest.hexdigest()
