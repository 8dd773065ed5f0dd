"""The recommended metric set for label sets: a primary metric and complements, each with its formula and the
measured facts that argue for it, and the metrics to avoid here with the reason. This module is the label sets'
rule table (:data:`RULES`), applied by the one recommendation module (:func:`auditor.analyses.recommend.apply_rules`,
whose :class:`~auditor.analyses.recommend.Recommendation` record and JSON every task kind writes). Every rule cites
a passage read:

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

from typing import Any

import numpy as np

from auditor.analyses.recommend import Firing, Recommendation, Rule, Source, apply_rules
from auditor.tasks.multilabel.measures import BY_ID, ITEM

#: A label set is imbalanced when its most frequent label is at least this many times as frequent as its rarest
#: (among labels with gold support).
IMBALANCE = 10.0
#: A metric is uninformative here when the strongest chance baseline reaches this share of the best system's value.
CHANCE_SHARE = 0.6

ZHANG_ZHOU = Source("", "2.2.1 (brief taxonomy of multi-label metrics)",
                    "Example-based metrics work by evaluating the learning system's performance on each test "
                    "example separately, and then returning the mean value across the test set. … label-based "
                    "metrics work by evaluating the learning system's performance on each class label separately, "
                    "and then returning the macro/micro-averaged value across all class labels.",
                    "zhang2014review", "Zhang & Zhou 2014")
E_C = Source("", "E-c scorer (utils.py, evaluate_multilabel)",
             "Multi-label accuracy (Jaccard index) … Micro-averaged F1 score … Macro-averaged F1 score "
             "(jaccard_similarity_score, f1_score average='micro', average='macro')",
             "mohammad2018semeval", "Mohammad et al. 2018")


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


def _label_average(audit: Any) -> Firing:
    """The primary label-based average: macro F1 where the labels are imbalanced, else micro F1."""
    ratio, top, rare = _imbalance(audit)
    gold = audit.counted.sums["gold"]
    top3 = float(np.sort(gold)[::-1][:3].sum() / gold.sum()) if gold.sum() else 0.0
    if ratio >= IMBALANCE:
        return Firing((f"labels are imbalanced: {top} is {ratio:.0f} times as frequent in gold as {rare}, and the 3 "
                       f"most frequent labels hold {100 * top3:.0f}% of the gold labels, which dominate a micro "
                       f"average; macro F1 gives every label the same weight (label-based, macro)",), "macro_f1")
    return Firing((f"labels are balanced enough (most/least frequent {ratio:.1f} < {IMBALANCE:g}); micro F1 weighs "
                   f"every gold label alike (label-based, micro)",), "micro_f1")


def _other_average(audit: Any) -> Firing:
    other = "micro_f1" if _imbalance(audit)[0] >= IMBALANCE else "macro_f1"
    return Firing(("the other label-based average, reported beside it by SemEval-2018 E-c's scorer",),
                  complements=(other,))


def _example_based(audit: Any) -> Firing:
    reasons = ["example-based: credits each item by the overlap of its two sets; SemEval-2018 E-c's official "
               "'multi-label accuracy (Jaccard index)'"]
    both_empty = [int(round(audit.counted.sums["items"][s][ITEM["empty_both"]])) for s in range(len(audit.systems))]
    if any(both_empty):
        shown = ", ".join(f"{name} {n:,}" for name, n in zip(audit.systems, both_empty) if n)
        reasons.append(f"items whose gold and predicted sets are both empty count 0 here and 1 in E-c's scorer (old "
                       f"jaccard_similarity_score): {shown}")
    return Firing(tuple(reasons), complements=("jaccard_samples",))


def _near_chance(audit: Any) -> tuple[Firing, ...]:
    """Subset accuracy and Hamming loss, each where a predictor that knows nothing comes near the best system."""
    how = {"subset_accuracy": "it gives an item no credit unless its whole set is right",
           "hamming_loss": "with few labels per item, the absent labels dominate it, so predicting little scores well"}
    found = []
    for metric in how:
        share_of = _chance_share(audit, metric)
        if share_of is None or share_of[0] < CHANCE_SHARE:
            continue
        share, description = share_of
        name, best = _best(audit, metric)
        if BY_ID[metric].higher_is_better:
            measured = (f"a predictor that knows nothing ({description}) reaches {100 * share:.0f}% of the best "
                        f"system's value ({name}, {100 * best:.1f})")
        else:
            measured = (f"a predictor that knows nothing ({description}) has a loss only {1 / share:.2f} times the "
                        f"best system's ({name}, {100 * best:.1f})")
        found.append(Firing((f"{measured}; {how[metric]}",), avoid=(metric,)))
    return tuple(found)


#: Every rule, in the order applied, with the passages it follows.
RULES = (
    Rule("label-average", f"the primary metric is a label-based average: macro F1 when the most frequent label is at "
         f"least {IMBALANCE:g} times as frequent in gold as the rarest (this tool's threshold), else micro F1",
         (ZHANG_ZHOU, E_C), _label_average),
    Rule("other-average", "the other label-based average complements it", (E_C,), _other_average),
    Rule("example-based", "the example-based Jaccard index complements them (SemEval-2018 E-c's official measure)",
         (ZHANG_ZHOU, E_C), _example_based),
    Rule("near-chance", f"subset accuracy and Hamming loss are avoided where the strongest chance baseline reaches "
         f"{CHANCE_SHARE:g} of the best system's value (this tool's threshold)", (ZHANG_ZHOU,), _near_chance),
)


def recommend(audit: Any) -> Recommendation:
    """The metric set for this audit's data: :data:`RULES` applied in order (module docstring for the passages)."""
    return apply_rules(audit, RULES, lambda metric_id: (BY_ID[metric_id].name, BY_ID[metric_id].formula))
