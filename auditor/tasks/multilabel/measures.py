"""The multi-label metrics: functions of summed per-item statistics, vectorised over resamples × systems.

Notation (one system, N items, L labels): per label ``l`` the counts ``TP_l``, ``FP_l``, ``FN_l`` over items
(``G_l = TP_l + FN_l`` gold, ``P_l = TP_l + FP_l`` predicted); per item ``i`` its gold set ``Y_i`` and predicted
set ``Ŷ_i``. Every definition is scikit-learn's (``MultiLabelBinarizer`` over the labels, ``zero_division=0``):

* subset accuracy ``(1/N) Σ_i [Y_i = Ŷ_i]``; Hamming loss ``Σ_l (FP_l + FN_l) / (N L)``;
* micro P/R/F1 ``ΣTP / ΣP_l``, ``ΣTP / ΣG_l``, ``2ΣTP / (2ΣTP + ΣFP + ΣFN)``; micro Jaccard ``ΣTP / Σ(TP+FP+FN)``;
* macro P/R/F1/Jaccard: the unweighted mean over labels of ``TP/P_l``, ``TP/G_l``, ``2TP/(2TP+FP+FN)``,
  ``TP/(TP+FP+FN)``; weighted F1: the mean of label F1 weighted by ``G_l``;
* samples P/R/F1/Jaccard: the mean over items of ``|Y∩Ŷ|/|Ŷ|``, ``|Y∩Ŷ|/|Y|``, ``2|Y∩Ŷ|/(|Y|+|Ŷ|)``,
  ``|Y∩Ŷ|/|Y∪Ŷ|``.

F1 is ``2TP/(2TP+FP+FN)``, undefined only when ``TP+FP+FN = 0``. A 0/0 part (a label never predicted, an
item's empty set) counts 0, as ``zero_division=0`` does, and is listed (:func:`part_conventions`); a figure
that is 0/0 as a whole is shown as 0 by the same convention with its reason (``undefined``). Zhang & Zhou
(2014), Section 3 (example-based and label-based metrics), docs/architecture.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from auditor.metrics.registry import ratio

#: Per-item fields of one system, summed over items (:mod:`.counting`): exact match, the four per-item
#: ratios (0/0 counted 0), and the items whose predicted set, gold set, or both are empty.
ITEM_FIELDS = ("exact", "precision", "recall", "f1", "jaccard", "empty_predicted", "empty_gold", "empty_both")
ITEM = {name: i for i, name in enumerate(ITEM_FIELDS)}
#: The convention every 0/0 follows.
CONVENTION = "counted as 0, as scikit-learn's zero_division=0 does"

Sums = Mapping[str, np.ndarray]
Value = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class SetMetric:
    """One multi-label metric: ``function(sums) -> (value, undefined)`` over the batch × systems axes."""

    id: str
    name: str
    formula: str
    function: Callable[[Sums], Value]
    undefined_when: str
    higher_is_better: bool = True
    averaging: str = "example"


def _counts(s: Sums) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(TP, FP, FN), each (..., S, L)."""
    tp, fp = s["tp"], s["fp"]
    return tp, fp, s["gold"][..., None, :] - tp


def _n(s: Sums) -> np.ndarray:
    return s["n"][..., None]


def _fill(value: np.ndarray, undefined: np.ndarray) -> Value:
    return np.where(undefined, 0.0, value), undefined


def subset_accuracy(s: Sums) -> Value:
    return ratio(s["items"][..., ITEM["exact"]], np.broadcast_to(_n(s), s["items"].shape[:-1]))


def hamming_loss(s: Sums) -> Value:
    tp, fp, fn = _counts(s)
    labels = tp.shape[-1]
    return ratio((fp + fn).sum(-1), np.broadcast_to(_n(s) * labels, tp.shape[:-1]))


def _micro(numerator: Callable, denominator: Callable) -> Callable[[Sums], Value]:
    def micro(s: Sums) -> Value:
        tp, fp, fn = _counts(s)
        return ratio(numerator(tp, fp, fn).sum(-1), denominator(tp, fp, fn).sum(-1))
    return micro


def per_label(s: Sums) -> dict[str, Value]:
    """Per label (..., S, L): precision, recall, F1 and Jaccard, each (value with 0/0 as 0, undefined)."""
    tp, fp, fn = _counts(s)
    return {"precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn), "f1": ratio(2 * tp, 2 * tp + fp + fn),
            "jaccard": ratio(tp, tp + fp + fn)}


def _macro(part: str) -> Callable[[Sums], Value]:
    def macro(s: Sums) -> Value:
        value, _ = per_label(s)[part]
        return value.mean(-1), np.zeros(value.shape[:-1], dtype=bool)
    return macro


def weighted_f1(s: Sums) -> Value:
    value, _ = per_label(s)["f1"]
    weights = s["gold"][..., None, :]
    total = np.broadcast_to(weights.sum(-1), value.shape[:-1])
    return ratio((value * weights).sum(-1), total)


def _samples(field: str) -> Callable[[Sums], Value]:
    def samples(s: Sums) -> Value:
        items = s["items"]
        return ratio(items[..., ITEM[field]], np.broadcast_to(_n(s), items.shape[:-1]))
    return samples


_NO_ITEMS = "0/0: no items"
_NOTHING_PREDICTED = "0/0: no label predicted for any item"
_NO_GOLD = "0/0: no gold label on any item"
_NOTHING_AT_ALL = "0/0: no label in gold or predicted on any item"

#: The catalogue, in the order tables show it.
METRICS: tuple[SetMetric, ...] = (
    SetMetric("subset_accuracy", "Subset accuracy (exact match)",
              r"\frac{1}{N}\sum_i [Y_i = \hat Y_i]", subset_accuracy, _NO_ITEMS),
    SetMetric("hamming_loss", "Hamming loss", r"\frac{1}{NL}\sum_l (FP_l + FN_l)", hamming_loss, _NO_ITEMS,
              higher_is_better=False, averaging="label"),
    SetMetric("jaccard_samples", "Jaccard (samples)", r"\frac{1}{N}\sum_i \frac{|Y_i \cap \hat Y_i|}"
              r"{|Y_i \cup \hat Y_i|}", _samples("jaccard"), _NO_ITEMS),
    SetMetric("jaccard_micro", "Jaccard (micro)", r"\frac{\sum_l TP_l}{\sum_l (TP_l + FP_l + FN_l)}",
              _micro(lambda tp, fp, fn: tp, lambda tp, fp, fn: tp + fp + fn), _NOTHING_AT_ALL, averaging="micro"),
    SetMetric("jaccard_macro", "Jaccard (macro)", r"\frac{1}{L}\sum_l \frac{TP_l}{TP_l + FP_l + FN_l}",
              _macro("jaccard"), "", averaging="macro"),
    SetMetric("micro_precision", "Micro precision", r"\frac{\sum_l TP_l}{\sum_l (TP_l + FP_l)}",
              _micro(lambda tp, fp, fn: tp, lambda tp, fp, fn: tp + fp), _NOTHING_PREDICTED, averaging="micro"),
    SetMetric("micro_recall", "Micro recall", r"\frac{\sum_l TP_l}{\sum_l (TP_l + FN_l)}",
              _micro(lambda tp, fp, fn: tp, lambda tp, fp, fn: tp + fn), _NO_GOLD, averaging="micro"),
    SetMetric("micro_f1", "Micro F1", r"\frac{2\sum_l TP_l}{\sum_l (2TP_l + FP_l + FN_l)}",
              _micro(lambda tp, fp, fn: 2 * tp, lambda tp, fp, fn: 2 * tp + fp + fn), _NOTHING_AT_ALL,
              averaging="micro"),
    SetMetric("macro_precision", "Macro precision", r"\frac{1}{L}\sum_l \frac{TP_l}{TP_l + FP_l}",
              _macro("precision"), "", averaging="macro"),
    SetMetric("macro_recall", "Macro recall", r"\frac{1}{L}\sum_l \frac{TP_l}{TP_l + FN_l}", _macro("recall"), "",
              averaging="macro"),
    SetMetric("macro_f1", "Macro F1", r"\frac{1}{L}\sum_l \frac{2TP_l}{2TP_l + FP_l + FN_l}", _macro("f1"), "",
              averaging="macro"),
    SetMetric("weighted_f1", "Weighted F1", r"\frac{\sum_l G_l F_{1,l}}{\sum_l G_l}", weighted_f1, _NO_GOLD,
              averaging="weighted"),
    SetMetric("samples_precision", "Samples precision", r"\frac{1}{N}\sum_i \frac{|Y_i \cap \hat Y_i|}{|\hat Y_i|}",
              _samples("precision"), _NO_ITEMS),
    SetMetric("samples_recall", "Samples recall", r"\frac{1}{N}\sum_i \frac{|Y_i \cap \hat Y_i|}{|Y_i|}",
              _samples("recall"), _NO_ITEMS),
    SetMetric("samples_f1", "Samples F1", r"\frac{1}{N}\sum_i \frac{2|Y_i \cap \hat Y_i|}{|Y_i| + |\hat Y_i|}",
              _samples("f1"), _NO_ITEMS),
)
BY_ID = {metric.id: metric for metric in METRICS}
METRIC_IDS = tuple(BY_ID)


def evaluate(sums: Sums, metrics: tuple[SetMetric, ...] = METRICS) -> dict[str, np.ndarray]:
    """id -> values (..., S) with every 0/0 shown as 0 (the convention); for resamples."""
    return {metric.id: metric.function(sums)[0] for metric in metrics}


def evaluate_with_undefined(sums: Sums) -> dict[str, Value]:
    """id -> (values, undefined) (..., S)."""
    return {metric.id: metric.function(sums) for metric in METRICS}


def part_conventions(sums: Sums, labels: tuple[str, ...], s: int) -> dict[str, str]:
    """id -> the 0/0 parts a metric of system ``s`` counted as 0 (labels or items), in words; metrics with none
    are absent. ``sums`` holds one system axis (no batch)."""
    parts = per_label(sums)
    items = sums["items"][s]

    def labels_where(mask: np.ndarray, what: str) -> str:
        names = [labels[i] for i in np.flatnonzero(mask)]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        return f"{what} of {len(names)} label{'s' if len(names) != 1 else ''} ({shown})"

    notes: dict[str, str] = {}
    for metric_id, part, what in (("macro_precision", "precision", "precision undefined (never predicted)"),
                                  ("macro_recall", "recall", "recall undefined (not in gold)"),
                                  ("macro_f1", "f1", "F1 undefined (neither in gold nor predicted)"),
                                  ("weighted_f1", "f1", "F1 undefined (neither in gold nor predicted)"),
                                  ("jaccard_macro", "jaccard", "Jaccard undefined (neither in gold nor predicted)")):
        mask = parts[part][1][s]
        if mask.any():
            notes[metric_id] = f"{labels_where(mask, what)} {CONVENTION}"
    for metric_id, field, what in (("samples_precision", "empty_predicted", "with an empty predicted set"),
                                   ("samples_recall", "empty_gold", "with an empty gold set"),
                                   ("samples_f1", "empty_both", "with both sets empty"),
                                   ("jaccard_samples", "empty_both", "with both sets empty")):
        count = int(round(items[ITEM[field]]))
        if count:
            notes[metric_id] = f"the ratio of {count:,} item{'s' if count != 1 else ''} {what} is 0/0, {CONVENTION}"
    return notes

#: ``auditor score``'s columns when no ``-m`` is given, and their short headings (80 columns).
DEFAULT_COLUMNS = ("subset_accuracy", "hamming_loss", "micro_f1", "macro_f1", "samples_f1")
#: The verdict's key metrics (the summary's headline table): one per way of averaging, plus E-c's Jaccard.
KEY_METRICS = ("micro_f1", "macro_f1", "weighted_f1", "samples_f1", "jaccard_samples", "subset_accuracy",
               "hamming_loss")
SHORT = {"subset_accuracy": "subset acc", "hamming_loss": "Hamming↓", "jaccard_samples": "Jacc samp",
         "jaccard_micro": "Jacc micro", "jaccard_macro": "Jacc macro", "micro_precision": "micro P",
         "micro_recall": "micro R", "micro_f1": "micro F1", "macro_precision": "macro P", "macro_recall": "macro R",
         "macro_f1": "macro F1", "weighted_f1": "weight F1", "samples_precision": "samples P",
         "samples_recall": "samples R", "samples_f1": "samples F1"}
