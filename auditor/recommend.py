"""The recommendation: which metrics to report on this data, and which to avoid, and why.

Analysis stage (DESIGN.md "Recommendation"). Every rule lives here, in :data:`RULES`, as one
:class:`Rule` record: an id, a statement, its references and a function of the measured
:class:`Facts` that returns the measured reasons when it fires (None when it does not). The
report prints :data:`RULES` in its appendix.

Rules are applied in order; the first rule that names a primary metric sets it. Complements
and metrics to avoid accumulate, each with the measured facts behind it.

References: Opitz (2024) TACL 12; Opitz & Burst (2019) arXiv:1911.03347; Powers (2011)
J. Mach. Learn. Technol. 2(1); Chicco & Jurman (2020) BMC Genomics 21(6); Vickers et al.
(2024) IJCNLP-AACL 2023; Sokolova & Lapalme (2009) Inf. Process. Manag. 45(4).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .registry import REGISTRY

#: Imbalance ratio (largest / smallest gold class) from which accuracy-like metrics mislead.
IMBALANCED = 3.0
#: Informedness below which a system is treated as near chance when no baselines ran.
NEAR_CHANCE_INFORMEDNESS = 0.05
#: Total variation between a system's bias and the prevalence counted as a strong skew.
SKEWED_BIAS = 0.1


@dataclass(frozen=True)
class Facts:
    """What the rules read: the measured data profile, per-system facts and the user's intent."""

    k: int
    n_items: int
    min_support: int
    min_label: str
    imbalance_ratio: float
    prevalence_entropy: float
    normalised_entropy: float
    majority_label: str
    majority_share: float
    bias_divergence: dict[str, dict[str, float | None]] = field(default_factory=dict)
    never_predicted: dict[str, list[str]] = field(default_factory=dict)
    near_chance: dict[str, str] = field(default_factory=dict)
    values: dict[str, dict[str, float | None]] = field(default_factory=dict)
    deployment_prevalence: str | None = None
    rare_classes_matter: bool = False

    @property
    def imbalanced(self) -> bool:
        return self.imbalance_ratio >= IMBALANCED

    @property
    def majority_weighted_f1(self) -> float:
        """Weighted F1 of the majority-class predictor: p_max · 2p_max/(1 + p_max)."""
        p = self.majority_share
        return p * 2 * p / (1 + p)

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k, "n_items": self.n_items, "min_support": self.min_support, "min_label": self.min_label,
            "imbalance_ratio": self.imbalance_ratio, "prevalence_entropy": self.prevalence_entropy,
            "normalised_entropy": self.normalised_entropy, "majority_label": self.majority_label,
            "majority_share": self.majority_share, "bias_divergence": self.bias_divergence,
            "never_predicted": self.never_predicted, "near_chance": self.near_chance,
            "deployment_prevalence": self.deployment_prevalence, "rare_classes_matter": self.rare_classes_matter,
        }


@dataclass(frozen=True)
class Firing:
    """What a rule concludes: a primary metric, complements and metrics to avoid, with reasons."""

    reasons: tuple[str, ...]
    primary: str | None = None
    complements: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    id: str
    text: str
    references: tuple[str, ...]
    check: Callable[[Facts], Firing | None]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "references": list(self.references)}


def _deployment_kind(facts: Facts) -> str:
    target = facts.deployment_prevalence
    if target in (None, "unknown"):
        return "unknown"
    if target in ("uniform", "test"):
        return target
    return "file"


def _spread(facts: Facts, metric: str) -> str:
    values = [v.get(metric) for v in facts.values.values() if v.get(metric) is not None]
    if not values:
        return ""
    return f"{metric} ranges from {min(values):.3f} to {max(values):.3f} over the systems"


# ---------------------------------------------------------------------------------- rules


def _known_deployment(facts: Facts) -> Firing | None:
    if _deployment_kind(facts) != "file":
        return None
    return Firing((f"the deployment prevalence is given ({facts.deployment_prevalence}); accuracy after "
                   "re-weighting the gold rows to it estimates the accuracy users will see "
                   "(see the deployment section)",), primary="accuracy")


def _test_deployment(facts: Facts) -> Firing | None:
    if _deployment_kind(facts) != "test" or facts.rare_classes_matter:
        return None
    return Firing((f"deployment prevalence = test prevalence (majority class {facts.majority_label} "
                   f"{facts.majority_share:.2f}), and rare classes are not declared to matter: accuracy "
                   "measures the expected share of correct decisions",), primary="accuracy")


def _rare_classes(facts: Facts) -> Firing | None:
    if not facts.rare_classes_matter:
        return None
    return Firing((f"rare classes matter (smallest: {facts.min_label}, {facts.min_support} items); "
                   "macro F1 (macro_f1, the mean of class F1) gives every class the same weight and "
                   "needs both its precision and recall",),
                  primary="macro_f1", complements=("macro_recall",), avoid=("weighted_f1", "accuracy"))


def _uniform_deployment(facts: Facts) -> Firing | None:
    if _deployment_kind(facts) != "uniform":
        return None
    return Firing(("deployment prevalence is uniform: macro recall equals accuracy on the prevalence-calibrated "
                   "matrix and is prevalence invariant (PIV)",), primary="macro_recall")


def _unknown_imbalanced(facts: Facts) -> Firing | None:
    if _deployment_kind(facts) != "unknown" or not facts.imbalanced:
        return None
    return Firing((f"classes are imbalanced (largest/smallest = {facts.imbalance_ratio:.1f}, normalised "
                   f"entropy {facts.normalised_entropy:.2f}) and the deployment prevalence is unknown: "
                   "macro F1 (macro_f1, the mean of class F1) weighs every class equally",),
                  primary="macro_f1", complements=("macro_recall",))


def _balanced_default(facts: Facts) -> Firing | None:
    if facts.imbalanced or _deployment_kind(facts) not in ("unknown",) or facts.rare_classes_matter:
        return None
    return Firing((f"classes are close to balanced (largest/smallest = {facts.imbalance_ratio:.1f}): "
                   "accuracy is interpretable and equals micro F1; macro F1 (mean of class F1) alongside shows "
                   "whether every class is served",), primary="accuracy",
                  complements=("macro_f1",))


def _majority_inflates_accuracy(facts: Facts) -> Firing | None:
    if not facts.imbalanced or _deployment_kind(facts) in ("test", "file"):
        return None
    return Firing((f"the majority-class baseline (always {facts.majority_label}) already reaches "
                   f"{facts.majority_share:.2f} accuracy and {facts.majority_weighted_f1:.2f} weighted F1 "
                   f"(imbalance ratio {facts.imbalance_ratio:.1f})",), avoid=("accuracy", "weighted_f1"))


def _chance_correction(facts: Facts) -> Firing | None:
    if not facts.near_chance and facts.majority_share < 0.5:
        return None
    reasons = []
    if facts.near_chance:
        reasons.append("near chance: " + "; ".join(f"{s} ({why})" for s, why in facts.near_chance.items()))
    if facts.majority_share >= 0.5:
        reasons.append(f"a constant prediction of {facts.majority_label} is right {facts.majority_share:.0%} "
                       "of the time")
    metric = "mcc" if facts.k == 2 else "informedness"
    reasons.append("informedness is 0 for every predictor that ignores its input" if metric == "informedness"
                   else "MCC is high only when all four cells of the binary matrix are good")
    return Firing(tuple(reasons), complements=(metric,))


def _binary_mcc(facts: Facts) -> Firing | None:
    if facts.k != 2:
        return None
    return Firing(("two classes: MCC uses all four cells of the confusion matrix and is symmetric in the "
                   "classes",), complements=("mcc",))


def _name_macro_f1(facts: Facts) -> Firing | None:
    """Always fires: the two macro F1s are homonyms and must not be confused."""
    reasons = ["macro F1′ = HM(macro P, macro R) ≥ macro F1 and rewards skewed error types "
               "(Opitz & Burst 2019); report macro_f1 (mean of class F1) and say so"]
    differences = [v["macro_f1_hm"] - v["macro_f1"] for v in facts.values.values()
                   if v.get("macro_f1") is not None and v.get("macro_f1_hm") is not None]
    if differences:
        reasons.append(f"here F1′ exceeds macro F1 by {min(differences):.3f} to {max(differences):.3f}")
    return Firing(tuple(reasons), avoid=("macro_f1_hm",))


def _skewed_bias(facts: Facts) -> Firing | None:
    skewed = {s: d["total_variation"] for s, d in facts.bias_divergence.items()
              if d.get("total_variation") is not None and d["total_variation"] >= SKEWED_BIAS}
    if not skewed:
        return None
    worst = max(skewed, key=skewed.get)
    return Firing((f"{len(skewed)} system(s) predict classes far from their gold prevalence (largest total "
                   f"variation: {worst}, {skewed[worst]:.2f}); macro precision rewards predicting a class "
                   "rarely and F1′ rewards skewed errors",), avoid=("macro_precision", "macro_f1_hm"))


def _collapsed_recall_means(facts: Facts) -> Firing | None:
    collapsed = {s: labels for s, labels in facts.never_predicted.items() if labels}
    if not collapsed:
        return None
    detail = "; ".join(f"{s} never predicts {', '.join(labels)}" for s, labels in collapsed.items())
    return Firing((f"{detail}: GmacR and HmacR are 0 for such a system whatever its other classes do",),
                  avoid=("gmean_recall", "hmean_recall"))


def _small_class(facts: Facts) -> Firing | None:
    if facts.min_support >= 30:
        return None
    return Firing((f"class {facts.min_label} has {facts.min_support} gold items: one item moves its recall by "
                   f"{1 / facts.min_support:.3f}, so macro averages are noisy; report them with bootstrap "
                   "intervals",), complements=("macro_recall",))


RULES: list[Rule] = [
    Rule("deployment-known", "If the deployment prevalence is known, make accuracy on the gold rows re-weighted "
         "to it the primary metric.", ("Opitz 2024 §5.2", "Vickers et al. 2024"), _known_deployment),
    Rule("deployment-test", "If the test prevalence is the deployment prevalence and rare classes do not "
         "matter more than their share, accuracy is the primary metric.", ("Sokolova & Lapalme 2009",),
         _test_deployment),
    Rule("rare-classes", "If rare classes matter, make macro F1 (mean of class F1) primary, with macro recall.",
         ("Opitz 2024 §4.4", "Sokolova & Lapalme 2009"), _rare_classes),
    Rule("deployment-uniform", "If every class will be equally frequent, make macro recall (= calibrated "
         "accuracy) primary.", ("Opitz 2024 §5.2",), _uniform_deployment),
    Rule("imbalanced-unknown", "If classes are imbalanced and the deployment prevalence is unknown, make macro "
         "F1 (mean of class F1) primary, with macro recall.", ("Opitz 2024 §4.4, §6", "Sokolova & Lapalme 2009"),
         _unknown_imbalanced),
    Rule("balanced-default", "If classes are close to balanced, accuracy is a fair primary metric.",
         ("Sokolova & Lapalme 2009",), _balanced_default),
    Rule("majority-inflates-accuracy", "If a constant majority prediction scores high, avoid accuracy and "
         "weighted F1 (unless the test prevalence is the deployment prevalence).",
         ("Opitz 2024 §4.1", "Sokolova & Lapalme 2009"), _majority_inflates_accuracy),
    Rule("chance-correction", "If some system is near chance or a constant predictor scores high, add a "
         "chance-corrected complement: informedness (multi-class), MCC (binary).",
         ("Powers 2011", "Vickers et al. 2024", "Chicco & Jurman 2020"), _chance_correction),
    Rule("binary-mcc", "With two classes, report MCC as a complement.", ("Chicco & Jurman 2020",), _binary_mcc),
    Rule("name-macro-f1", "Always name the macro F1 variant: macro_f1 (mean of class F1), not macro_f1_hm "
         "(F1 of macro P and macro R).", ("Opitz & Burst 2019", "Opitz 2024 §4.5"), _name_macro_f1),
    Rule("skewed-bias", "If systems' predicted class shares diverge from the gold prevalence, avoid macro "
         "precision and F1′ as headline metrics.", ("Opitz & Burst 2019", "Opitz 2024 §4.3"), _skewed_bias),
    Rule("collapsed-recall-means", "If a system never predicts a gold class, avoid the geometric and harmonic "
         "recall means, which collapse to 0.", ("Opitz 2024 §5.1",), _collapsed_recall_means),
    Rule("small-class", "If a class has fewer than 30 gold items, report macro averages with intervals.",
         ("Opitz 2024",), _small_class),
]


# ------------------------------------------------------------------------------ the result


@dataclass
class Recommendation:
    metrics: list[dict[str, Any]]
    avoid: list[dict[str, Any]]
    facts: Facts
    rules_fired: list[str]

    @property
    def primary(self) -> str:
        return self.metrics[0]["id"]

    def add_to_json(self, document: dict[str, Any]) -> None:
        document["recommendation"] = {
            "metrics": self.metrics, "avoid": self.avoid, "profile_facts": self.facts.to_json(),
            "rules_fired": self.rules_fired, "rules": [rule.to_json() for rule in RULES],
        }


def recommend(facts: Facts, rules: list[Rule] | None = None) -> Recommendation:
    """Apply the rules in order to ``facts``."""
    primary: str | None = None
    complements: list[str] = []
    avoid: dict[str, list[str]] = {}
    reasons: dict[str, list[str]] = {}
    fired = []
    for rule in RULES if rules is None else rules:
        firing = rule.check(facts)
        if firing is None:
            continue
        fired.append(rule.id)
        if firing.primary and primary is None:
            primary = firing.primary
            reasons.setdefault(firing.primary, []).extend(firing.reasons)
        for metric in firing.complements:
            if metric not in complements:
                complements.append(metric)
            reasons.setdefault(metric, []).extend(firing.reasons)
        for metric in firing.avoid:
            avoid.setdefault(metric, []).extend(firing.reasons)
    if primary is None:
        primary = "macro_f1"
        reasons.setdefault(primary, []).append("no rule chose a primary metric; macro F1 (mean of class F1)")
    avoid.pop(primary, None)
    chosen = [primary] + [m for m in complements if m != primary and m not in avoid]
    if "macro_f1" not in chosen:
        chosen.append("macro_f1")
        reasons.setdefault("macro_f1", []).append("the usual headline metric, named explicitly: mean of class F1")
    metrics = []
    for index, metric_id in enumerate(chosen):
        record = REGISTRY.get(metric_id)
        entry_reasons = list(dict.fromkeys(reasons.get(metric_id, [])))
        spread = _spread(facts, metric_id)
        if spread:
            entry_reasons.append(spread)
        metrics.append({"id": metric_id, "name": record.name, "role": "primary" if index == 0 else "complement",
                        "formula": record.formula, "reasons": entry_reasons})
    avoided = [{"id": m, "name": REGISTRY.get(m).name, "reasons": list(dict.fromkeys(r))} for m, r in avoid.items()
               if m not in chosen]
    return Recommendation(metrics, avoided, facts, fired)


def facts_from(profile: Any, values: Mapping[str, Mapping[str, float | None]] | None = None,
               baselines: Any = None, deployment_prevalence: Any = None,
               rare_classes_matter: bool = False) -> Facts:
    """Collect :class:`Facts` from a :class:`~auditor.profile.DataProfile`, metric values
    (system -> id -> value) and, when present, the chance-baselines analysis."""
    support = np.asarray(profile.support)
    present = support > 0
    min_index = int(np.flatnonzero(present)[np.argmin(support[present])])
    values = {s: dict(v) for s, v in (values or {}).items()}
    near = _near_chance(baselines, values)
    target = deployment_prevalence
    if isinstance(target, Mapping):
        target = ",".join(f"{label}={share:g}" for label, share in target.items())
    return Facts(
        k=profile.k_gold, n_items=profile.n_items, min_support=profile.min_support,
        min_label=profile.labels[min_index], imbalance_ratio=profile.imbalance_ratio,
        prevalence_entropy=profile.prevalence_entropy, normalised_entropy=profile.normalised_entropy,
        majority_label=profile.majority_label, majority_share=profile.majority_share,
        bias_divergence={s: {"total_variation": b.total_variation,
                             "kl_divergence": None if np.isinf(b.kl_divergence) else b.kl_divergence}
                         for s, b in profile.systems.items()},
        never_predicted={s: list(b.never_predicted) for s, b in profile.systems.items()},
        near_chance=near, values=values, deployment_prevalence=target, rare_classes_matter=rare_classes_matter,
    )


def _near_chance(baselines: Any, values: Mapping[str, Mapping[str, float | None]]) -> dict[str, str]:
    """System -> why it is near chance: from the baselines' permutation test when it ran
    (p ≥ 0.05 against its own shuffle on informedness/kappa), else informedness < 0.05."""
    result = {}
    chance = getattr(baselines, "chance", None)
    if isinstance(chance, Mapping):
        for system, comparisons in chance.items():
            for metric in ("informedness", "kappa", "accuracy"):
                comparison = comparisons.get(metric)
                if comparison is not None and comparison.p_shuffle is not None:
                    if comparison.p_shuffle >= 0.05:
                        result[system] = (f"{metric} not above its shuffled predictions, permutation "
                                          f"p = {comparison.p_shuffle:.3f}")
                    break
        return result
    for system, metric_values in values.items():
        value = metric_values.get("informedness")
        if value is not None and value < NEAR_CHANCE_INFORMEDNESS:
            result[system] = f"informedness {value:.3f}"
    return result


def analyse(audit: Any) -> Recommendation:
    """The recommendation of an :class:`auditor.pipeline.Audit` (after baselines and statistics)."""
    values = {name: {metric_id: value.value for metric_id, value in result.metrics.items()}
              for name, result in audit.systems.items()}
    facts = facts_from(audit.profile, values, audit.analyses.get("baselines"),
                       audit.options.deployment_prevalence, audit.options.rare_classes_matter)
    return recommend(facts)


def rules_text() -> list[str]:
    """Every rule as one line for the report's appendix: ``id: statement (references)``."""
    return [f"{rule.id}: {rule.text} ({'; '.join(rule.references)})" for rule in RULES]
