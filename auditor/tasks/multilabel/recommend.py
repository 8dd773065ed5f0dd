"""The recommended metric set for label sets: a primary metric and complements, each with its formula and the
measured facts that argue for it, and the metrics to avoid here with the reason. Every rule cites a passage read:

* Zhang & Zhou (2014), Section 2.2.1: example-based metrics evaluate each test example and return the mean over the
  test set; label-based metrics evaluate each class label and return the macro- or micro-averaged value over the
  labels. The recommendation names one metric of each family.
* Mohammad et al. (2018), the E-c subtask's official scorer (``evaluate_multilabel``): "Multi-label accuracy
  (Jaccard index)" first, then micro- and macro-averaged F1; computed with scikit-learn's old
  ``jaccard_similarity_score``, which counted an item whose gold and predicted sets are both empty as 1 (this
  audit's Jaccard counts it 0, scikit-learn's ``zero_division=0`` today): the count of such items is reported.

The thresholds on the data (imbalance, the chance baselines' share of the best value) are this module's own, said
in each reason with the measured numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from auditor.tasks.multilabel.measures import BY_ID, ITEM, SHORT

#: A label set is imbalanced when its most frequent label is at least this many times as frequent as its rarest
#: (among labels with gold support).
IMBALANCE = 10.0
#: A metric is uninformative here when the strongest chance baseline reaches this share of the best system's value.
CHANCE_SHARE = 0.6

ZHANG_ZHOU = {"file": "", "section": "2.2.1 (brief taxonomy of multi-label metrics)",
              "quote": "Example-based metrics work by evaluating the learning system's performance on each test "
                       "example separately, and then returning the mean value across the test set. … label-based "
                       "metrics work by evaluating the learning system's performance on each class label separately, "
                       "and then returning the macro/micro-averaged value across all class labels.",
              "reference": {"key": "zhang2014review", "citation": "Zhang & Zhou 2014"}}
E_C = {"file": "", "section": "E-c scorer (utils.py, evaluate_multilabel)",
       "quote": "Multi-label accuracy (Jaccard index) … Micro-averaged F1 score … Macro-averaged F1 score "
                "(jaccard_similarity_score, f1_score average='micro', average='macro')",
       "reference": {"key": "mohammad2018semeval", "citation": "Mohammad et al. 2018"}}


@dataclass
class Entry:
    id: str
    role: str
    reasons: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, avoid: bool = False) -> dict[str, Any]:
        document: dict[str, Any] = {"id": self.id}
        if not avoid:
            document.update(role=self.role, formula=BY_ID[self.id].formula)
        document.update(reasons=list(self.reasons), sources=list(self.sources))
        return document


@dataclass(frozen=True)
class Recommendation:
    metrics: tuple[Entry, ...]
    avoid: tuple[Entry, ...]

    @property
    def primary(self) -> str:
        return self.metrics[0].id

    def to_json(self) -> dict[str, Any]:
        return {"recommendation": {"metrics": [e.to_json() for e in self.metrics],
                                   "avoid": [e.to_json(avoid=True) for e in self.avoid]}}


def _imbalance(audit: Any) -> tuple[float, str, str]:
    gold = audit.counted.sums["gold"]
    supported = np.flatnonzero(gold > 0)
    top, rare = supported[np.argmax(gold[supported])], supported[np.argmin(gold[supported])]
    return float(gold[top] / gold[rare]), audit.labels[top], audit.labels[rare]


def _best(audit: Any, metric: str) -> tuple[str, float]:
    values = np.array([audit.value(metric, s) for s in range(len(audit.systems))])
    s = int(np.argmax(values if BY_ID[metric].higher_is_better else -values))
    return audit.systems[s], float(values[s])


def _chance_share(audit: Any, metric: str) -> tuple[float, str] | None:
    """The strongest chance baseline's value as a share of the best system's (losses: best over baseline)."""
    if not audit.chance:
        return None
    better = BY_ID[metric].higher_is_better
    chance = [(value, b.description) for b in audit.chance if not b.name.startswith("shuffle:")
              and (value := b.expected(metric)[0]) is not None]
    if not chance:
        return None
    value, description = max(chance) if better else min(chance)
    _, best = _best(audit, metric)
    share = value / best if better else (best / value if value else 1.0)
    return (float(share), description) if best else None


def recommend(audit: Any) -> Recommendation:
    """The metric set for this audit's data (module docstring for the rules and their passages)."""
    ratio, top, rare = _imbalance(audit)
    gold = audit.counted.sums["gold"]
    top3 = float(np.sort(gold)[::-1][:3].sum() / gold.sum()) if gold.sum() else 0.0
    imbalanced = ratio >= IMBALANCE
    primary = Entry("macro_f1" if imbalanced else "micro_f1", "primary", sources=[ZHANG_ZHOU, E_C])
    if imbalanced:
        primary.reasons.append(f"labels are imbalanced: {top} is {ratio:.0f} times as frequent in gold as {rare}, and "
                               f"the 3 most frequent labels hold {100 * top3:.0f}% of the gold labels, which dominate "
                               f"a micro average; macro F1 gives every label the same weight (label-based, macro)")
    else:
        primary.reasons.append(f"labels are balanced enough (most/least frequent {ratio:.1f} < {IMBALANCE:g}); micro "
                               f"F1 weighs every gold label alike (label-based, micro)")
    other = Entry("micro_f1" if imbalanced else "macro_f1", "complement", sources=[E_C],
                  reasons=["the other label-based average, reported beside it by SemEval-2018 E-c's scorer"])
    jaccard = Entry("jaccard_samples", "complement", sources=[ZHANG_ZHOU, E_C],
                    reasons=["example-based: credits each item by the overlap of its two sets; SemEval-2018 E-c's "
                             "official 'multi-label accuracy (Jaccard index)'"])
    both_empty = [int(round(audit.counted.sums["items"][s][ITEM["empty_both"]])) for s in range(len(audit.systems))]
    if any(both_empty):
        shown = ", ".join(f"{name} {n:,}" for name, n in zip(audit.systems, both_empty) if n)
        jaccard.reasons.append(f"items whose gold and predicted sets are both empty count 0 here and 1 in E-c's "
                               f"scorer (old jaccard_similarity_score): {shown}")
    avoid = [entry for entry in (_avoid_if_near_chance(audit, "subset_accuracy"),
                                 _avoid_if_near_chance(audit, "hamming_loss")) if entry is not None]
    return Recommendation((primary, other, jaccard), tuple(avoid))


def _avoid_if_near_chance(audit: Any, metric: str) -> Entry | None:
    found = _chance_share(audit, metric)
    if found is None or found[0] < CHANCE_SHARE:
        return None
    share, description = found
    name, best = _best(audit, metric)
    how = {"subset_accuracy": "it gives an item no credit unless its whole set is right",
           "hamming_loss": "with few labels per item, the absent labels dominate it, so predicting little scores well"}
    if BY_ID[metric].higher_is_better:
        measured = (f"a predictor that knows nothing ({description}) reaches {100 * share:.0f}% of the best system's "
                    f"value ({name}, {100 * best:.1f})")
    else:
        measured = (f"a predictor that knows nothing ({description}) has a loss only {1 / share:.2f} times the best "
                    f"system's ({name}, {100 * best:.1f})")
    return Entry(metric, "avoid", sources=[ZHANG_ZHOU], reasons=[f"{measured}; {how[metric]}"])


def formulas(entries: Sequence[Entry]) -> list[tuple[str, str]]:
    return [(SHORT[e.id], BY_ID[e.id].formula) for e in entries]
