"""What each multi-label metric rewards, probed on small witness sets (the witness and both values are shown).

Four probes over labels ``a`` (frequent), ``b``, ``c`` and ``r`` (rare), six items, gold sets
``{a,b}, {a}, {a,c}, {b}, {a}, {r}`` (:data:`GOLD`); each probe scores the perfect prediction and one changed
prediction with the same functions the audit uses (:mod:`.measures`):

* **partial credit**: item 1 predicted ``{a}`` instead of ``{a,b}``: does the metric still give the item some
  credit (its value stays above the value of predicting ``∅`` there)?
* **empty sets**: every item predicted ``∅``: does it score at least halfway between predicting every label and
  the perfect prediction (a metric that does rewards saying nothing)?
* **extra labels**: ``c`` added to every set: is the inflated cardinality penalised (value below perfect)?
* **rare label**: missing the only ``r`` against missing one ``a``: does the metric weigh the rare label's miss
  more (macro averaging does; micro and example-based averaging weigh every gold label or item alike)?

Zhang & Zhou (2014) group the metrics as example-based (per item, then the mean) and label-based (per label, then
macro- or micro-averaged); the probes show where those families part ways.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.counting import count
from auditor.tasks.multilabel.measures import BY_ID, METRIC_IDS, evaluate

LABELS = ("a", "b", "c", "r")
GOLD = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]], dtype=bool)


def _score(*predictions: np.ndarray) -> dict[str, np.ndarray]:
    aligned = Aligned.of_bits([f"p{i}" for i in range(len(predictions))], LABELS, GOLD, predictions)
    return evaluate(count(aligned).sums)


@dataclass(frozen=True)
class Probe:
    """One probe of one metric: the answer and the two values (oriented as the metric is: raw values)."""

    answer: bool
    values: tuple[float, float]


def probes() -> dict[str, dict[str, Probe]]:
    """metric id -> probe name -> :class:`Probe`."""
    partial, dropped = GOLD.copy(), GOLD.copy()
    partial[0] = [1, 0, 0, 0]
    dropped[0] = False
    empty = np.zeros_like(GOLD)
    extra = GOLD.copy()
    extra[:, 2] = True
    rare_missed, frequent_missed = GOLD.copy(), GOLD.copy()
    rare_missed[5] = False
    frequent_missed[1] = False
    values = _score(GOLD, partial, dropped, empty, extra, rare_missed, frequent_missed, np.ones_like(GOLD))
    out: dict[str, dict[str, Probe]] = {}
    for metric in METRIC_IDS:
        v = [float(x) for x in values[metric]]
        sign = 1 if BY_ID[metric].higher_is_better else -1
        out[metric] = {
            "partial_credit": Probe(sign * v[1] > sign * v[2] + 1e-12, (v[1], v[2])),
            "empty_sets": Probe(sign * v[3] >= sign * (v[0] + v[7]) / 2 - 1e-12, (v[3], (v[0] + v[7]) / 2)),
            "extra_labels_penalised": Probe(sign * v[4] < sign * v[0] - 1e-12, (v[4], v[0])),
            "rare_label_weighted": Probe(sign * v[5] < sign * v[6] - 1e-12, (v[5], v[6])),
        }
    return out


#: Probe -> (column title, what a yes means, the witness in words).
MEANINGS = {
    "partial_credit": ("partial credit", "an item with some of its labels right earns credit",
                       "item 1 predicted {a} for gold {a,b}, against ∅ there"),
    "empty_sets": ("∅ rewarded", "predicting ∅ everywhere scores at least halfway between predicting every label "
                   "and the perfect prediction", "∅ for every item, against the midpoint of every label and perfect"),
    "extra_labels_penalised": ("extra label penalised", "a wrong label added to every set lowers the value",
                               "c added to every gold set, against the perfect prediction"),
    "rare_label_weighted": ("rare label weighted", "missing the rare label's one item costs more than missing a "
                            "frequent label's item", "the one r missed, against one a missed"),
}


def to_json(found: dict[str, dict[str, Probe]]) -> dict[str, Any]:
    return {"labels": list(LABELS), "gold": [[LABELS[i] for i in np.flatnonzero(row)] for row in GOLD],
            "probes": {name: {"title": title, "yes_means": meaning, "witness": witness}
                       for name, (title, meaning, witness) in MEANINGS.items()},
            "metrics": {metric: {name: {"answer": probe.answer, "values": list(probe.values)}
                                 for name, probe in by_probe.items()} for metric, by_probe in found.items()}}
