"""The recommendation: which metrics to report on this data, and which to avoid, and why.

Stage "analyse" (docs/architecture.md, "Recommendation"). Every rule lives here, in :data:`RULES`, as one
:class:`Rule` record: an id, a statement, the passage it follows (quoted, with the source file
and section under ``sources/``) and a function of the measured :class:`Facts` that returns the
measured reasons when it fires (None when it does not). The report prints :data:`RULES` in its
appendix, and :data:`PAPERS_DIFFER` where the two papers disagree.

Rules are applied in order; the first rule that names a primary metric sets it. Complements,
metrics to avoid and notes accumulate, each with the measured facts behind it and the passage
it follows. No rule contradicts its source: accuracy is never "avoided" (Opitz §8 recommends it
as a complement to macro recall; Vickers §7.2 recommends informedness alongside accuracy and
F1), GmacR/HmacR are recommended when every class matters (Opitz §5.1), MCC is not preferred
for two classes (Vickers §2: it depends on the test set's class frequencies).

Sources: Opitz (2024) TACL 12 (opitz-2024-closer-look-classification-metrics.md); Vickers,
Barrault, Monti & Aletras (2023) IJCNLP-AACL 2023 (vickers-monti-classification-metrics-nlp.md).

The rule table's parts are every task kind's: :class:`Source` (a passage), :class:`Rule`, :class:`Firing`,
:func:`apply_rules` (rules in order, the first primary wins) and the :class:`Recommendation` record with its JSON.
A task kind whose metrics are not classification's (ordinal levels, label sets) states its own rules with the
passages they follow as a table of :class:`Rule` in its package and applies them with :func:`apply_rules`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from auditor.formatting import format_p, nan_to_none
from auditor.metrics.registry import REGISTRY
from auditor.options import correction_name

if TYPE_CHECKING:
    from auditor.analyses.baselines import ChanceBaselines
    from auditor.analyses.profile import DataProfile

OPITZ = "opitz-2024-closer-look-classification-metrics.md"
VICKERS = "vickers-monti-classification-metrics-nlp.md"
#: Each source file -> (bib key in ``auditor/references.bib``, author-year citation).
REFERENCES = {OPITZ: ("opitz2024closer", "Opitz 2024"), VICKERS: ("vickers2023talk", "Vickers et al. 2023")}
#: Imbalance ratio (largest / smallest gold class) reported as "imbalanced" in the reasons.
IMBALANCED = 3.0
#: Informedness below which a system is treated as near chance when no baselines ran (this tool's
#: threshold, not a source's: fewer than 5% of decisions above chance, Vickers §2's reading of
#: informedness). With baselines, the near-chance test is the permutation test at the audit's alpha.
NEAR_CHANCE_INFORMEDNESS = 0.05
#: Total variation between a system's bias and the prevalence counted as a strong skew.
SKEWED_BIAS = 0.1
#: This tool's threshold for a small class (gold items of one class). Not a source's: Vickers et al.,
#: Limitations, speak of "low numbers (< 50) of examples" in a whole test set, not in one class.
SMALL_CLASS = 50
#: Opitz §8 says "if the amount of classes n is low" without a number; this tool's reading: k ≤ 5.
FEW_CLASSES = 5


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
    bias_divergence: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    never_predicted: Mapping[str, Sequence[str]] = field(default_factory=dict)
    near_chance: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    deployment_prevalence: str | None = None
    rare_classes_matter: bool = False

    def to_json(self) -> dict[str, Any]:
        """``recommendation.profile_facts``: the facts the rules read (the metric values aside)."""
        return {
            "k": self.k, "n_items": self.n_items, "min_support": self.min_support, "min_label": self.min_label,
            "imbalance_ratio": self.imbalance_ratio, "prevalence_entropy": self.prevalence_entropy,
            "normalised_entropy": self.normalised_entropy, "majority_label": self.majority_label,
            "majority_share": self.majority_share,
            "bias_divergence": {s: dict(d) for s, d in self.bias_divergence.items()},
            "never_predicted": {s: list(labels) for s, labels in self.never_predicted.items()},
            "near_chance": dict(self.near_chance), "deployment_prevalence": self.deployment_prevalence,
            "rare_classes_matter": self.rare_classes_matter,
        }

    @property
    def imbalanced(self) -> bool:
        return self.imbalance_ratio >= IMBALANCED

    @property
    def majority_weighted_f1(self) -> float:
        """Weighted F1 of the majority-class predictor: p_max · 2p_max/(1 + p_max)."""
        p = self.majority_share
        return p * 2 * p / (1 + p)


@dataclass(frozen=True)
class Firing:
    """What a rule concludes: a primary metric, complements, metrics to avoid and notes, with reasons (a rule whose
    metrics have reasons of their own returns one firing per metric)."""

    reasons: tuple[str, ...]
    primary: str | None = None
    complements: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Source:
    """A passage a rule follows: where it was read (``file``: a file under ``sources/``, or the address of the page
    read), the section and the words; ``key`` and ``cite`` (bib key of ``auditor/references.bib`` and author-year
    citation) default to :data:`REFERENCES` of the file."""

    file: str
    section: str
    quote: str
    key: str = ""
    cite: str = ""

    @property
    def reference(self) -> tuple[str, str]:
        """(bib key, author-year citation)."""
        return (self.key, self.cite) if self.key else REFERENCES[self.file]

    def to_json(self) -> dict[str, Any]:
        """``file`` (kept: scripts read it) and ``reference``: the bib key of ``auditor/references.bib``
        and the author-year citation the report prints."""
        key, cite = self.reference
        return {"file": self.file, "section": self.section, "quote": self.quote,
                "reference": {"key": key, "citation": cite}}

    @property
    def citation(self) -> str:
        """"Opitz 2024 §4.2": author, year and section, never a file name."""
        return f"{self.reference[1]} {self.section}"

    @property
    def quoted(self) -> str:
        """``Opitz 2024 §8: “quote”``: the citation and the words, as the reports print a passage."""
        return f"{self.citation}: \u201c{self.quote}\u201d"


@dataclass(frozen=True)
class Rule:
    """One rule: its id, its statement, the passages it follows, and its check of the facts."""

    id: str
    text: str
    sources: tuple[Source, ...]
    check: Callable[[Any], Firing | Sequence[Firing] | None]

    @property
    def references(self) -> tuple[str, ...]:
        return tuple(source.citation for source in self.sources)


def _deployment_kind(facts: Facts) -> str:
    target = facts.deployment_prevalence
    if target in (None, "unknown"):
        return "unknown"
    if target in ("uniform", "test"):
        return target
    return "file"


def _display(metric_id: str) -> str:
    """A metric's display name without its parenthesis ("Informedness", "Macro recall"): never an id."""
    record = REGISTRY.metrics.get(metric_id)
    return record.name.split(" (")[0] if record is not None else metric_id


def _spread(facts: Facts, metric: str) -> str:
    values = [v.get(metric) for v in facts.values.values() if v.get(metric) is not None]
    if not values:
        return ""
    return f"{_display(metric)} ranges from {100 * min(values):.1f} to {100 * max(values):.1f} (×100) over the systems"


def _winners(facts: Facts, metric: str) -> list[str]:
    scored = {s: v.get(metric) for s, v in facts.values.items() if v.get(metric) is not None}
    if not scored:
        return []
    best = max(scored.values())
    return sorted(s for s, value in scored.items() if value >= best - 1e-12)


# ---------------------------------------------------------------------------------- passages

BUILD_A_CASE = Source(OPITZ, "§8", "As a starting point we can think about how the class distribution in our data "
                      "set would align with the distribution that we could expect in an application. With greater "
                      "uncertainty, more macro metric features may be useful.")
ACCURACY_TIED = Source(OPITZ, "§4.1", "Accuracy is an important statistic, estimating the probability of observing "
                       "a correct prediction in a data set. But this means that it is strictly tied to the class "
                       "prevalences in a specific data set.")
MACR_FIVE = Source(OPITZ, "§4.2", "Since macro Recall has all five properties, including prevalence invariance (PIV), "
                   "it may be a good pick for evaluation, particularly through a 'macro' lens.")
STRICT_MACR = Source(OPITZ, "§6.2", "This is also reflected by macR being strictly chance corrected with 1/n, while "
                     "its siblings have 1/n as the upper bound only achieved by the uniform random baseline")
TREATS_EQUALLY = Source(OPITZ, "§6.1", "macro Recall has all five properties, including class prevalence invariance "
                        "(PIV), i.e., 'it treats all classes equally' (in a strict sense).")
COMPLEMENTARY = Source(OPITZ, "§8", "Consider presenting more than a single number. In particular, complementary "
                       "metrics such as Accuracy and macro Recall can be indicative about i) a classifier's empirical "
                       "data set correctness (as in a micro metric) and ii) its robustness to class distribution "
                       "shifts (as in a macro metric).")
INFORMEDNESS_ALONGSIDE = Source(VICKERS, "§7.2", "we encourage the community and practitioners to consider reporting "
                                "Informedness alongside metrics such as Accuracy and F1 in future experiments and "
                                "analyses.")
ACCURACY_PARADOX = Source(VICKERS, "§1", "simply guessing the most common class can reward a score equal to that "
                          "class's prevalence in the test set.")
INFORMEDNESS_CHANCE = Source(VICKERS, "§2", "the expected value of a model which predicts correctly x% of the time, "
                             "and guesses from the prevalence 100-x% of the time is x.")
ALL_CLASSES = Source(OPITZ, "§5.1", "GmacR can be useful when it's important to perform well in all classes. Thinking "
                     "further along this line, we can employ HmacR (p = −1).")
WEIGHTED_F1 = Source(OPITZ, "§6.1", "As discussed in §4.6, we could not determine clear reasons for favoring weighted "
                     "F1 over Accuracy.")
NAME_IT = Source(OPITZ, "§8", "State the evaluation metric clearly, best use a formula. This also helps protect "
                 "against ambiguity, e.g., as induced through homonyms such as macF1 and macF1′.")
MACF1_POPULAR = Source(OPITZ, "§4.4", "Thus it seems useful to find classifiers that do well in a given data set, "
                       "but probably also in others, a 'balance' that could explain its popularity.")
MACF1_PRIME = Source(OPITZ, "§4.5", "macF1′ does not seem as easy to interpret, since the numerator involves the "
                     "cross-product of all class-wise recall and precision values.")
MACP_BIAS = Source(OPITZ, "§4.3", "if we have f, f′ with different biases, score differences are difficult to "
                   "interpret, particularly with an underlying 'macro' expectation that a metric be robust to class "
                   "prevalence.")
SMALL_N = Source(VICKERS, "Limitations", "Informedness is sensitive to the number of evaluation samples, which may "
                 "result in less stable estimation of model's performance in situations with low numbers (< 50) of "
                 "examples. We consider that all metrics are subject to this")
CLASS_WISE = Source(OPITZ, "§8", "If the amount of classes n is low, consider presenting class-wise recall scores for "
                    "their generalizability. If n is larger and a metric is decomposable over classes (PIII), "
                    "reporting the variance of a 'macro' metric over classes can also be of value.")
WINNERS = Source(OPITZ, "§8", "Consider admitting multiple 'winners' or 'best systems': If we are not able to build a "
                 "strong case for a single metric, then it may be sensible to present a set of well-motivated metrics "
                 "and select a set of best systems.")
MCC_PREVALENCE = Source(VICKERS, "§2", "MCC is dependent on the relative frequencies of classes in the test set, which "
                        "makes comparison between models evaluated on different datasets impossible")


# ---------------------------------------------------------------------------------- rules


def _known_deployment(facts: Facts) -> Firing | None:
    if _deployment_kind(facts) != "file":
        return None
    return Firing((f"the deployment prevalence is given ({facts.deployment_prevalence}); accuracy after "
                   "re-weighting the gold rows to it estimates the share of correct decisions users will see "
                   "(see the deployment section)",), primary="accuracy")


def _test_deployment(facts: Facts) -> Firing | None:
    if _deployment_kind(facts) != "test" or facts.rare_classes_matter:
        return None
    return Firing((f"deployment prevalence = test prevalence (majority class {facts.majority_label} "
                   f"{100 * facts.majority_share:.1f}%) and rare classes are not declared to matter more than their "
                   "share: accuracy estimates the share of correct decisions at deployment",), primary="accuracy")


def _uniform_or_unknown(facts: Facts) -> Firing | None:
    kind = _deployment_kind(facts)
    if kind not in ("uniform", "unknown") and not facts.rare_classes_matter:
        return None
    why = {"uniform": "every class will be equally frequent at deployment: macro recall is accuracy after "
                      "prevalence calibration (Opitz §4.2, §5.2)",
           "unknown": "the deployment prevalence is unknown" + (
               f" and the test set is imbalanced (largest/smallest = {facts.imbalance_ratio:.1f})"
               if facts.imbalanced else ""),
           }.get(kind, "rare classes matter more than their share")
    return Firing((f"{why}: macro recall has all five properties of Table 5, prevalence invariance included, as "
                   "its siblings GmacR and HmacR do; of the three it alone is strictly chance corrected (on a large "
                   "data set every classifier that ignores its input scores 1/k, Opitz §3.5)",), primary="macro_recall")


def _complementary(facts: Facts) -> Firing:
    return Firing(("report accuracy (empirical correctness on this test set) next to macro recall (robustness to "
                   "class-distribution shift)",), complements=("accuracy", "macro_recall"))


def _majority_accuracy(facts: Facts) -> Firing | None:
    if not facts.imbalanced or _deployment_kind(facts) in ("test", "file"):
        return None
    return Firing((f"read accuracy against the majority-class baseline: always predicting {facts.majority_label} "
                   f"already scores {100 * facts.majority_share:.1f} accuracy "
                   f"(imbalance ratio {facts.imbalance_ratio:.1f})",),
                  complements=("accuracy",))


def _informedness(facts: Facts) -> Firing:
    reasons = ["informedness is 0 in expectation for a classifier that ignores its input (one draw of such a "
               "classifier scores near 0, not exactly 0) and x in expectation for one that is right x% of the time "
               "and otherwise guesses from the prevalence"]
    if facts.near_chance:
        reasons.append("near chance here: " + _near_chance_text(facts.near_chance))
    return Firing(tuple(reasons), complements=("informedness",))


def _near_chance_text(near: Mapping[str, str]) -> str:
    """The near-chance systems, one phrase per reason and the systems after it, highest p (or lowest value) first:
    "Informedness not significantly above its shuffled predictions, Holm-adjusted: A p = 0.52, B p = 0.31"."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for system, why in near.items():
        phrase, sep, figure = why.rpartition(" p = ") if " p = " in why else why.rpartition(" ")
        groups.setdefault(phrase, []).append((system, f"p = {figure}" if sep.strip() == "p =" else figure))

    def order(item: tuple[str, str]) -> float:
        try:
            number = float(item[1].split()[-1])
        except ValueError:
            return 0.0
        return -number if item[1].startswith("p") else number

    return "; ".join(f"{phrase}: " + ", ".join(f"{system} {figure}" for system, figure in sorted(members, key=order))
                     for phrase, members in groups.items())


def _every_class(facts: Facts) -> Firing | None:
    if not facts.rare_classes_matter:
        return None
    reasons = [f"performance in every class matters (smallest: {facts.min_label}, {facts.min_support} items); "
               "the geometric and harmonic means of class recall fall towards the worst class"]
    collapsed = {s: labels for s, labels in facts.never_predicted.items() if labels}
    if collapsed:
        reasons.append("; ".join(f"{s} never predicts {', '.join(labels)}" for s, labels in collapsed.items())
                       + ": such a system scores 0 in GmacR and HmacR, as it fails a class entirely")
    return Firing(tuple(reasons), complements=("gmean_recall", "hmean_recall"))


def _name_macro_f1(facts: Facts) -> Firing:
    """Always fires: the two macro F1s are homonyms and must not be confused."""
    reasons = ["macro F1 here is the mean of class F1, written out with its formula; macro F1′ (F1 of macro P "
               "and macro R) is a different metric"]
    differences = [v["macro_f1_hm"] - v["macro_f1"] for v in facts.values.values()
                   if v.get("macro_f1") is not None and v.get("macro_f1_hm") is not None]
    if differences:
        reasons.append(f"here F1′ exceeds macro F1 by {100 * min(differences):.1f} to {100 * max(differences):.1f} "
                       "points (×100)")
    return Firing(tuple(reasons), complements=("macro_f1",),
                  notes=("name the macro F1 with its formula: macro F1 (mean of class F1) is reported here; macro F1′ "
                         "(F1 of macro P and macro R) is a homonym, a different metric (Opitz §8)",))


def _weighted_f1(facts: Facts) -> Firing:
    return Firing((f"weighted F1 is not monotone (Opitz §4.6, App. F.1) and, like accuracy, follows the test "
                   f"prevalence (majority-class classifier here: weighted F1 {100 * facts.majority_weighted_f1:.1f})",),
                  avoid=("weighted_f1",))


def _skewed_bias(facts: Facts) -> Firing | None:
    skewed = {s: d["total_variation"] for s, d in facts.bias_divergence.items()
              if d.get("total_variation") is not None and d["total_variation"] >= SKEWED_BIAS}
    if not skewed:
        return None
    worst = max(skewed, key=skewed.get)
    return Firing((f"{len(skewed)} {'system predicts' if len(skewed) == 1 else 'systems predict'} classes far from "
                   f"their gold prevalence (largest total variation: {worst}, {100 * skewed[worst]:.1f}%)",),
                  notes=("macro precision: where systems' biases differ, its differences are difficult to interpret "
                         "(Opitz §4.3, which also reads it as a measure of 'prediction trustworthiness'); read it "
                         "beside macro recall",))


def _small_class(facts: Facts) -> Firing | None:
    if facts.min_support >= SMALL_CLASS:
        return None
    return Firing((f"class {facts.min_label} has {facts.min_support} gold items (fewer than {SMALL_CLASS}, this "
                   f"tool's threshold): one item moves its recall by {100 / facts.min_support:.1f} points; read every "
                   "metric with its bootstrap interval",),
                  notes=(f"small class {facts.min_label} ({facts.min_support} items, fewer than this tool's threshold "
                         f"of {SMALL_CLASS}): its per-class estimates are unstable; report bootstrap intervals",))


def _class_wise(facts: Facts) -> Firing:
    if facts.k <= FEW_CLASSES:
        return Firing((f"{facts.k} classes: the class-wise recalls show where each system is right",),
                      complements=("class_recall",))
    return Firing((f"{facts.k} classes: report the spread of the class recalls around macro recall (PIII)",),
                  notes=("report the variance of class recall over the classes next to macro recall (Opitz §8)",))


def _multiple_winners(facts: Facts) -> Firing | None:
    core = ("accuracy", "macro_recall", "informedness")
    winners = {metric: _winners(facts, metric) for metric in core}
    distinct = {tuple(w) for w in winners.values() if w}
    if len(distinct) <= 1:
        return None
    detail = "; ".join(f"{_display(metric)}: {', '.join(w)}" for metric, w in winners.items() if w)
    return Firing((f"the recommended metrics disagree on the best system ({detail})",),
                  notes=(f"admit multiple best systems: "
                         f"{', '.join(dict.fromkeys(s for w in winners.values() for s in w))} "
                         f"(the top one under {detail}; Opitz §8); the significance section gives each metric's set of "
                         "systems not significantly worse than its top one",))


RULES: tuple[Rule, ...] = (
    Rule("deployment-known", "If the deployment prevalence is known, accuracy on the gold rows re-weighted to it is "
         "the primary metric (this tool's own rule; the nearest source, Opitz §3.4, simulates other class "
         "prevalences by re-weighting the rows).", (BUILD_A_CASE, ACCURACY_TIED), _known_deployment),
    Rule("deployment-test", "If the test prevalence is the deployment prevalence and rare classes do not matter more "
         "than their share, accuracy is the primary metric.", (BUILD_A_CASE, ACCURACY_TIED), _test_deployment),
    Rule("macro-recall-primary", "If the deployment prevalence is uniform or unknown, or every class should count "
         "the same, macro recall (all five properties, 'treats all classes equally', and, unlike GmacR and HmacR, "
         "strictly chance corrected) is the primary metric.",
         (BUILD_A_CASE, MACR_FIVE, TREATS_EQUALLY, STRICT_MACR), _uniform_or_unknown),
    Rule("accuracy-and-macro-recall", "Always report accuracy and macro recall together.", (COMPLEMENTARY,),
         _complementary),
    Rule("majority-baseline", "On imbalanced data with a deployment prevalence other than the test one, read accuracy "
         "against the majority-class baseline (reported, not avoided).", (ACCURACY_PARADOX, COMPLEMENTARY),
         _majority_accuracy),
    Rule("informedness-alongside", "Always report informedness alongside accuracy and F1.",
         (INFORMEDNESS_ALONGSIDE, INFORMEDNESS_CHANCE), _informedness),
    Rule("every-class-matters", "If performance in every class matters, report GmacR and HmacR.", (ALL_CLASSES,),
         _every_class),
    Rule("name-macro-f1", "Always name the macro F1 with its formula: macro F1 (mean of class F1) or macro F1′ (F1 "
         "of macro P and macro R), two homonyms.", (NAME_IT, MACF1_POPULAR, MACF1_PRIME), _name_macro_f1),
    Rule("weighted-f1", "Do not use weighted F1 where accuracy can be used.", (WEIGHTED_F1,), _weighted_f1),
    Rule("skewed-bias", "If systems' predicted class shares diverge from the gold prevalence, note that their macro "
         "precision differences are difficult to interpret.", (MACP_BIAS,), _skewed_bias),
    Rule("small-class", f"If a class has fewer than {SMALL_CLASS} gold items (this tool's threshold; Vickers et al.'s "
         "50 is about a whole test set), read every metric with its interval.", (SMALL_N,), _small_class),
    Rule("class-wise-recall", f"With few classes (k ≤ {FEW_CLASSES}, this tool's reading of 'low'), report the "
         "class-wise recalls; with more, the variance of class recall.", (CLASS_WISE,), _class_wise),
    Rule("multiple-winners", "If accuracy, macro recall and informedness disagree on the best system, admit multiple "
         "best systems.", (WINNERS,), _multiple_winners),
)

@dataclass(frozen=True)
class Difference:
    """A topic on which Opitz (2024) and Vickers et al. (2023) differ, how this tool decides, and both passages."""

    topic: str
    text: str
    sources: tuple[Source, ...]


#: Where Opitz (2024) and Vickers et al. (2023) differ; the report says so next to the recommendation.
PAPERS_DIFFER: tuple[Difference, ...] = (
    Difference("the headline metric",
               "Opitz §8 refrains from naming one best metric and recommends presenting complementary metrics such as "
             "accuracy and macro recall; Vickers et al. §7.2 and §8 find informedness 'the most intuitive metric' and "
             "'the fairest'. This tool follows Opitz for the primary metric and adds informedness as Vickers et al. "
             "recommend (alongside accuracy and F1).",
               (Source(OPITZ, "§8", "we would like to refrain from making bold statements as to which metric is "
                       "'better'"),
                Source(VICKERS, "§8", "Whilst we find that Informedness is the most intuitive metric, we also found "
                       "that it is also the fairest in driving inter and intra-model comparisons."))),
    Difference("MCC",
               "Opitz §4.7 and Table 5 give MCC (like kappa) complete chance correction, Ω = 0, and §6.1 finds kappa "
             "'slightly more interpretable'; Vickers et al. §2 argue that MCC depends on the test set's class "
             "frequencies and §5.1 that it 'overpunishes classifiers which have variable per-class performance'. "
             "This tool does not recommend MCC, whatever the number of classes.",
               (Source(OPITZ, "§4.7", "MCC and Kappa have PII and PV (complete chance correction: Ω = 0)."),
                MCC_PREVALENCE)),
    Difference("macro F1",
               "Opitz §4.4 sees in macro F1 a 'balance' of micro and macro features that could explain its popularity; "
             "Vickers et al. §2 find that F1-Macro 'has no intuitive interpretation'. It is reported, named with its "
             "formula, not as the primary metric.",
               (MACF1_POPULAR,
                Source(VICKERS, "§2", "F1-Macro encodes the heuristic that the average of F1-Measure for all classes "
                       "is a good representation of model performance. However, this has no intuitive "
                       "interpretation."))),
)


# ------------------------------------------------------------------------------ the result


@dataclass(frozen=True)
class Recommended:
    """A recommended metric: its role (primary or complement), formula, measured reasons, passages."""

    id: str
    name: str
    role: str
    formula: str
    reasons: tuple[str, ...]
    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Avoided:
    """A metric not to use as a headline here, with the measured reasons and the passages."""

    id: str
    name: str
    reasons: tuple[str, ...]
    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Note:
    """A note of a rule (e.g. a small class), with the rule's passages."""

    rule: str
    text: str
    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Recommendation:
    """The recommended metric set (primary first), the metrics to avoid, notes, the facts read, the rules that
    fired in order, the rule table applied (``rules``) and where the papers it follows differ."""

    metrics: tuple[Recommended, ...]
    avoid: tuple[Avoided, ...]
    facts: Any
    rules_fired: tuple[str, ...]
    notes: tuple[Note, ...] = ()
    rules: tuple[Rule, ...] = ()
    papers_differ: tuple[Difference, ...] = ()

    @property
    def primary(self) -> str:
        return self.metrics[0].id

    def to_json(self) -> dict[str, Any]:
        """``recommendation`` (docs/architecture.md, "Recommendation"): the metric set with formulas, reasons
        and passages, the metrics to avoid, notes, the facts classification's rules read, the rules
        (all, and those that fired), where the papers differ (where they do)."""
        def cited(sources: Sequence[Source]) -> list[dict[str, str]]:
            return [source.to_json() for source in sources]

        facts = {"profile_facts": self.facts.to_json()} if isinstance(self.facts, Facts) else {}
        differ = {"papers_differ": [{"topic": d.topic, "text": d.text, "sources": cited(d.sources)}
                                    for d in self.papers_differ]} if self.papers_differ else {}
        return {"recommendation": {
            "metrics": [{"id": m.id, "name": m.name, "role": m.role, "formula": m.formula, "reasons": list(m.reasons),
                         "sources": cited(m.sources)} for m in self.metrics],
            "avoid": [{"id": a.id, "name": a.name, "reasons": list(a.reasons), "sources": cited(a.sources)}
                      for a in self.avoid],
            "notes": [{"rule": n.rule, "text": n.text, "sources": cited(n.sources)} for n in self.notes],
            **facts,
            "rules_fired": list(self.rules_fired),
            "rules": [{"id": rule.id, "text": rule.text, "references": list(rule.references),
                       "sources": cited(rule.sources)} for rule in self.rules],
            **differ,
        }}


def apply_rules(facts: Any, rules: Sequence[Rule], describe: Callable[[str], tuple[str, str]],
                spread: Callable[[str], str] | None = None,
                papers_differ: Sequence[Difference] = ()) -> Recommendation:
    """Apply ``rules`` in order to ``facts``: the first primary wins; complements, metrics to avoid and notes
    accumulate with their measured reasons and the passages of the rule they come from. ``describe``: metric id ->
    (name, formula); ``spread``: a last measured reason of each recommended metric (empty: none)."""
    primary: str | None = None
    complements: list[str] = []
    avoid: dict[str, list[str]] = {}
    reasons: dict[str, list[str]] = {}
    sources: dict[str, list[Source]] = {}
    notes: list[Note] = []
    fired = []
    for rule in rules:
        found = rule.check(facts)
        if not found:
            continue
        fired.append(rule.id)
        for firing in (found,) if isinstance(found, Firing) else found:
            if firing.primary and primary is None:
                primary = firing.primary
                reasons.setdefault(primary, []).extend(firing.reasons)
                sources.setdefault(primary, []).extend(rule.sources)
            for metric in firing.complements:
                if metric not in complements:
                    complements.append(metric)
                reasons.setdefault(metric, []).extend(firing.reasons)
                sources.setdefault(metric, []).extend(rule.sources)
            for metric in firing.avoid:
                avoid.setdefault(metric, []).extend(firing.reasons)
                sources.setdefault(metric, []).extend(rule.sources)
            notes += [Note(rule.id, text, rule.sources) for text in firing.notes]
    chosen = ([primary] if primary else []) + [m for m in complements if m != primary and m not in avoid]
    metrics = []
    for index, metric_id in enumerate(chosen):
        entry_reasons = list(dict.fromkeys(reasons.get(metric_id, [])))
        last = spread(metric_id) if spread is not None else ""
        if last:
            entry_reasons.append(last)
        name, formula = describe(metric_id)
        metrics.append(Recommended(metric_id, name, "primary" if index == 0 else "complement", formula,
                                   tuple(entry_reasons), _unique(sources.get(metric_id, []))))
    avoided = tuple(Avoided(m, describe(m)[0], tuple(dict.fromkeys(r)), _unique(sources.get(m, [])))
                    for m, r in avoid.items() if m not in chosen)
    return Recommendation(tuple(metrics), avoided, facts, tuple(fired), tuple(notes), tuple(rules),
                          tuple(papers_differ))


def recommend(facts: Facts, rules: Sequence[Rule] = RULES) -> Recommendation:
    """Classification's recommendation: :data:`RULES` applied to ``facts`` (:func:`apply_rules`), each recommended
    metric's spread over the systems as its last reason."""
    def describe(metric_id: str) -> tuple[str, str]:
        record = REGISTRY.get(metric_id)
        return record.name, record.formula

    return apply_rules(facts, rules, describe, lambda metric_id: _spread(facts, metric_id), PAPERS_DIFFER)


def _unique(sources: Sequence[Source]) -> tuple[Source, ...]:
    return tuple(dict.fromkeys(sources))


def rule_lines(rules: Sequence[Rule]) -> list[str]:
    """The rules appendix: ``id: statement (references)``, one line per rule (the references where it has any)."""
    return [f"{rule.id}: {rule.text}" + (f" ({'; '.join(rule.references)})" if rule.references else "")
            for rule in rules]


def facts_from(profile: DataProfile, values: Mapping[str, Mapping[str, float | None]],
               baselines: ChanceBaselines | None, *, alpha: float,
               deployment_prevalence: str | Mapping[str, float] | None, rare_classes_matter: bool) -> Facts:
    """Collect :class:`Facts` from the data profile, the metric values (system -> id -> value), the
    chance-baselines result (None: not run), the test level ``alpha`` of the near-chance test and
    the user's intent."""
    support = np.asarray(profile.support)
    present = support > 0
    min_index = int(np.flatnonzero(present)[np.argmin(support[present])])
    values = MappingProxyType({s: MappingProxyType(dict(v)) for s, v in values.items()})
    target = deployment_prevalence
    if isinstance(target, Mapping):
        target = ",".join(f"{label}={share:g}" for label, share in target.items())
    return Facts(
        k=profile.k_gold, n_items=profile.n_items, min_support=profile.min_support,
        min_label=profile.labels[min_index], imbalance_ratio=profile.imbalance_ratio,
        prevalence_entropy=profile.prevalence_entropy, normalised_entropy=profile.normalised_entropy,
        majority_label=profile.majority_label, majority_share=profile.majority_share,
        bias_divergence=MappingProxyType({
            s: MappingProxyType({"total_variation": b.total_variation,
                                 "kl_divergence": nan_to_none(b.kl_divergence)})
            for s, b in profile.systems.items()}),
        never_predicted=MappingProxyType({s: tuple(b.never_predicted) for s, b in profile.systems.items()}),
        near_chance=MappingProxyType(_near_chance(baselines, values, alpha)), values=values,
        deployment_prevalence=target, rare_classes_matter=rare_classes_matter,
    )


def _near_chance(baselines: ChanceBaselines | None, values: Mapping[str, Mapping[str, float | None]],
                 alpha: float) -> dict[str, str]:
    """System -> why it is near chance: adjusted shuffle p ≥ alpha (as page 1) on the first of informedness,
    kappa, accuracy with a p-value; without baselines, informedness < :data:`NEAR_CHANCE_INFORMEDNESS`."""
    result = {}
    if baselines is not None:
        correction = correction_name(baselines.correction)
        for system, comparisons in baselines.chance.items():
            for metric in ("informedness", "kappa", "accuracy"):
                comparison = comparisons.get(metric)
                p = None if comparison is None else comparison.p_shuffle_adjusted
                if p is not None:
                    if p >= alpha:
                        result[system] = (f"{_display(metric)} not significantly above its shuffled predictions, "
                                          f"{correction}-adjusted p = {format_p(p)}")
                    break
        return result
    for system, metric_values in values.items():
        value = metric_values.get("informedness")
        if value is not None and value < NEAR_CHANCE_INFORMEDNESS:
            result[system] = f"informedness {100 * value:.1f}"
    return result


def analyse(profile: DataProfile, values: Mapping[str, Mapping[str, float | None]],
            baselines: ChanceBaselines | None, alpha: float,
            deployment_prevalence: str | Mapping[str, float] | None, rare_classes_matter: bool) -> Recommendation:
    """The recommendation: the rules applied to the facts of this audit (:func:`facts_from`)."""
    return recommend(facts_from(profile, values, baselines, alpha=alpha, deployment_prevalence=deployment_prevalence,
                                rare_classes_matter=rare_classes_matter))

