"""The reporting statement: a paragraph a paper can paste, answering the checklist items an audit knows.

It answers, in the tool's plain words, the ACL Responsible NLP checklist's B6 ("the number of examples …; small
differences in accuracy on large test sets may be significant, while on small test sets they may not be"), C3
("descriptive statistics about your results (e.g., error bars …)"), C4 ("the implementation, model, and parameter
settings used") and the NeurIPS paper checklist's item 7 ("the factors of variability that the error bars are
capturing should be clearly stated"): the test set's size and class counts; each figure's interval with its
method, B, seed and what varies (the test items; the systems' outputs are held fixed); the test and correction
behind every "significantly"; the implementation (version, signature, the zero-division convention); and the
**detectable difference at this N**.

Detectable difference: the smallest accuracy difference D above the runner-up's accuracy A that the audit's exact
McNemar test at α would detect with probability 0.8, given the agreement G observed between the top two systems
(the share of items both get right or both get wrong), computed exactly as the planner's mode 1 does
(:func:`auditor.analyses.power.detectable_difference`; ``auditor plan --items N --accuracy A --agreement G
--difference D'`` reports the same value for any D' the agreement allows).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from auditor.analyses.power import Hypothesis, detectable_difference, difference_range
from auditor.options import correction_name
from auditor.version import __version__

#: The power the detectable difference is computed for (the planner's default target).
TARGET_POWER = 0.8
#: The checklist items the statement answers (ACL Rolling Review 2024; NeurIPS Program Chairs 2024).
CHECKLIST = ("ACL B6", "ACL C3", "ACL C4", "NeurIPS 7")


@dataclass(frozen=True)
class DetectableDifference:
    """``value``: smallest accuracy difference above ``accuracy`` (the runner-up's) detected with ``power`` at
    ``alpha`` given ``agreement``; None with ``undefined`` when none is (e.g. too few items)."""

    metric: str
    value: float | None
    power: float
    alpha: float
    agreement: float
    accuracy: float
    items: int
    leader: str
    runner_up: str
    method: str
    undefined: str | None = None

    def to_json(self) -> dict[str, Any]:
        document = {"value": self.value, "power": self.power, "alpha": self.alpha, "agreement": self.agreement,
                    "accuracy": self.accuracy, "items": self.items, "systems": [self.leader, self.runner_up],
                    "method": self.method}
        if self.undefined:
            document["undefined"] = self.undefined
        return document


def detectable_accuracy_difference(n_items: int, systems: Sequence[str], accuracy: np.ndarray,
                                   discordant: Callable[[int, int], tuple[int, int]],
                                   alpha: float) -> DetectableDifference | None:
    """The detectable difference above the runner-up under accuracy (None with fewer than two systems).

    ``accuracy``: (S,) accuracies; ``discordant(a, b)``: the items a gets right and b wrong, and those b gets
    right and a wrong."""
    if len(systems) < 2:
        return None
    order = np.argsort(-np.asarray(accuracy), kind="stable")
    top, second = int(order[0]), int(order[1])
    agreement = 1.0 - sum(discordant(top, second)) / n_items
    runner_up = float(accuracy[second])
    method = ("exact McNemar power at the observed agreement, bisection on D (the detectable difference of auditor "
              "plan --items N --accuracy A --agreement G --difference D, for any D the agreement allows)")
    low, high = difference_range(Hypothesis(n_items, runner_up, 0.0, agreement, True, alpha, TARGET_POWER))
    found = detectable_difference(Hypothesis(n_items, runner_up, (low + high) / 2, agreement, True, alpha,
                                             TARGET_POWER)) if high > low else None
    value = found.difference if found is not None else None
    undefined = None if value is not None else (found.undefined if found is not None else
                                                f"no difference D > 0 fits A = {runner_up:g} with G = {agreement:g}")
    return DetectableDifference("accuracy", value, TARGET_POWER, alpha, agreement, runner_up, n_items,
                                systems[top], systems[second], method, undefined)


@dataclass(frozen=True)
class Reporting:
    """The statement and its parts (``audit.json`` ``reporting``)."""

    statement: str
    detectable: Mapping[str, DetectableDifference]
    answers: tuple[str, ...] = CHECKLIST

    def to_json(self) -> dict[str, Any]:
        return {"reporting": {"statement": self.statement, "answers": list(self.answers),
                              "detectable_difference": {metric: found.to_json()
                                                        for metric, found in self.detectable.items()}}}


def _clustered(resampling: Mapping[str, Any] | None) -> str | None:
    """What a clustered resample draws, with the design effect, in words (None without clusters)."""
    if resampling is None:
        return None
    effects = [x for x in (resampling.get("design_effect") or {}).get("systems", {}).values() if x is not None]
    effect = (f"; the design effect of {resampling['design_effect']['of']} (clustered over naive variance) is "
              f"{min(effects):.2f} to {max(effects):.2f}" if effects else "")
    return (f"the {resampling['clusters']:,} clusters of test {resampling['clustered_unit']}s with replacement, whole "
            f"clusters drawn, as the items within a cluster are not independent{effect}")


def _points(value: float) -> str:
    return f"{100 * value:.1f}"


def statement(*, n_items: int, class_counts: Mapping[str, int], systems: int, level: float | None, bootstrap: int,
              seed: int, interval: str, tests: str | None, correction: str | None, alpha: float, version: str,
              signature: str, convention: str, detectable: DetectableDifference | None, levels: bool = False,
              errors: Sequence[str] = (), clustered: str | None = None) -> str:
    """The paragraph, in the order of the checklist items it answers (B6, C3 and NeurIPS 7, then C4).
    ``levels``: the classes are ordered levels; ``errors``: labels of the tested error metrics (lower is better);
    ``clustered``: what a resample draws when the items come in clusters (:func:`_clustered`)."""
    counts = ", ".join(f"{label} {count:,}" for label, count in class_counts.items())
    unit = "ordered levels" if levels else "classes"
    parts = [f"The test set has {n_items:,} items in {len(class_counts)} {unit} ({counts}); {systems} "
             f"system{'s are' if systems != 1 else ' is'} scored on every item."]
    if bootstrap > 0 and level is not None and clustered:
        parts.append(f"Each figure is given with its {100 * level:g}% {interval} bootstrap interval (B = {bootstrap:,} "
                     f"resamples, seed {seed}, of {clustered}); the systems' outputs are held fixed, so the intervals "
                     "do not cover training variation such as random seeds.")
    elif bootstrap > 0 and level is not None:
        parts.append(f"Each figure is given with its {100 * level:g}% {interval} bootstrap interval (B = {bootstrap:,} "
                     f"resamples of the test items with replacement, seed {seed}); what varies is the sample of test "
                     "items: the systems' outputs are held fixed, so the intervals do not cover training variation "
                     "such as random seeds.")
    else:
        parts.append("No intervals were computed (no bootstrap resamples were drawn); the figures are point "
                     "estimates on this test set.")
    if tests:
        parts.append(f"“Significantly” means that the {tests} rejects equality at α = {alpha:g} after "
                     f"{correction} correction over the family of system pairs. Bold marks a metric's best set: "
                     "its top system and every system whose test against it is not rejected after "
                     f"{correction} correction over the comparisons with that top system alone.")
    if detectable is not None and detectable.value is not None:
        parts.append(f"At this size, the exact McNemar test at α = {alpha:g} detects with {detectable.power:.0%} power "
                     f"an accuracy difference of {_points(detectable.value)} points above the runner-up "
                     f"({detectable.runner_up}, accuracy {_points(detectable.accuracy)}), given the agreement "
                     f"observed between the top two systems ({_points(detectable.agreement)}% of the items both "
                     "right or both wrong); a smaller true difference can go undetected.")
        if errors:
            parts.append(f"Accuracy is the one figure with an exact test; no detectable difference is computed for "
                         f"the errors ({', '.join(errors)}), which approximate randomisation tests.")
    elif detectable is not None:
        parts.append(f"At this size no accuracy difference above the runner-up is detected with "
                     f"{detectable.power:.0%} power at α = {alpha:g} ({detectable.undefined}).")
    parts.append(f"Computed with auditor {version} (signature {signature}); {convention}")
    return " ".join(parts)


#: The convention sentence (every report's undefined-value rule, docs/architecture.md "Metrics").
CONVENTION = ("a value that is 0/0 is recorded as undefined with its reason; where an undefined part enters an "
              "average it is counted as 0, as scikit-learn's zero_division=0 does, and the report lists each such "
              "case; every metric's formula is in the report's definitions.")


def of_audit(audit: Any) -> Reporting:
    """The reporting statement of a classification audit (an :class:`auditor.results.Audit`)."""
    from auditor.analyses.significance import MCNEMAR, RANDOMISATION, discordant_pair

    counts, options = audit.counts, audit.options
    support = counts.confusion[0].sum(axis=1) if counts.confusion.shape[0] else np.zeros(len(audit.labels))
    class_counts = {label: int(n) for label, n in zip(audit.labels, support) if n > 0}
    statistics = audit.results.get("statistics")
    boot = statistics.bootstrap if statistics is not None else None
    methods = {test.method for test in statistics.tests} if statistics is not None else set()
    described = []
    if MCNEMAR in methods:
        described.append("exact McNemar test (accuracy)")
    resampling = getattr(statistics, "resampling", None)
    if RANDOMISATION in methods:
        described.append(f"approximate randomisation over items ({statistics.rounds:,} rounds; the other metrics)"
                         if resampling is None else
                         f"approximate randomisation over clusters ({statistics.rounds:,} rounds; every metric)")
    detectable = None  # McNemar's power assumes independent items: not stated for clustered ones
    if counts.paired and "accuracy" in next(iter(audit.systems.values())).metrics and resampling is None:
        accuracy = np.array([system.metrics["accuracy"].value for system in audit.systems.values()], dtype=float)
        detectable = detectable_accuracy_difference(audit.n_items, tuple(audit.systems), accuracy,
                                                    lambda a, b: discordant_pair(counts, a, b), options.alpha)
    text = statement(n_items=audit.n_items, class_counts=class_counts, systems=len(audit.systems),
                     level=1 - options.alpha if boot is not None and boot.B > 0 else None,
                     bootstrap=boot.B if boot is not None else 0, seed=options.seed, interval="percentile",
                     tests=" or ".join(described) or None,
                     correction=correction_name(str(options.correction)),
                     alpha=options.alpha, version=__version__, signature=str(audit.signature), convention=CONVENTION,
                     detectable=detectable, levels=audit.ordered,
                     errors=tuple(m.label for m in audit.metrics if not m.higher_is_better
                                  and statistics is not None and m.id in statistics.test_metrics),
                     clustered=_clustered(resampling))
    return Reporting(text, {"accuracy": detectable} if detectable is not None else {})

