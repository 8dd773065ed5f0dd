r"""Span and token figures as functions of summed per-sentence counts (any leading batch axes).

Span figures (one value per system), with per type :math:`m_t` matched, :math:`p_t` predicted and
:math:`g_t` gold chunks (Tjong Kim Sang & Buchholz 2000, the conlleval script; seqeval's
``classification_report``):

* micro: :math:`P = \sum_t m_t / \sum_t p_t`, :math:`R = \sum_t m_t / \sum_t g_t`,
  :math:`F_1 = 2\sum_t m_t / (\sum_t p_t + \sum_t g_t)` — undefined (None) when 0/0;
* macro: the unweighted mean over the types of gold ∪ predicted chunks (on the whole test set) of :math:`P_t`,
  :math:`R_t`, :math:`F_{1,t}` (a type's 0/0 counted as 0, as seqeval's ``zero_division=0``);
* weighted: the same means weighted by gold support :math:`g_t / \sum g`.

Partial-match views of SemEval-2013 Task 9.1 (Segura-Bedmar et al. 2013) as nervaluate 1.2.1
counts them, from the matching of :mod:`~auditor.tasks.tagging.counting` (each gold chunk taken at
most once): ACT = predicted chunks, POS = gold chunks; *strict*: COR = correct (so strict P, R, F1
are the micro figures); *exact* (boundaries, type ignored): COR = correct + wrong type; *overlap*
(nervaluate's ent_type: overlap with the right type, its own matching): COR = POS − incorrect −
missed of that view; *partial* (overlap, type ignored, half credit): COR = correct + wrong type +
½ (wrong boundary + wrong both). :math:`P = COR/ACT`, :math:`R = COR/POS`,
:math:`F_1 = 2 COR / (ACT + POS)`.
"""
from __future__ import annotations

import numpy as np

from auditor.metrics.registry import ratio
from auditor.tasks.tagging.counting import ERRORS
from auditor.tasks.tagging.names import FORMULAS, NAMES, SHORT, SPAN_METRICS, VIEWS  # noqa: F401 (re-exported)


def _nan(value: np.ndarray, undefined: np.ndarray) -> np.ndarray:
    return np.where(undefined, np.nan, value)


def fractions(matched: np.ndarray, predicted: np.ndarray, gold: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """P = m / p, R = m / g, F1 = 2m / (p + g) with their 0/0 masks (value 0 there): of chunks per type, summed
    over types (micro), or of a SemEval view's COR, ACT and POS."""
    return {"precision": ratio(matched, predicted), "recall": ratio(matched, gold),
            "f1": ratio(2 * matched, predicted + gold)}


def per_type(gold: np.ndarray, predicted: np.ndarray, matched: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per-type P, R, F1 with their 0/0 masks (value 0 there)."""
    return fractions(matched, predicted, np.broadcast_to(gold[..., None, :], predicted.shape))


def view_counts(errors: np.ndarray, type_view: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(COR, ACT, POS) of every SemEval-2013 view, from the six error counts (…, S, 6) and the overlap
    view's incorrect and missed counts (…, S, 2)."""
    e = {name: errors[..., i] for i, name in enumerate(ERRORS)}
    act = e["correct"] + e["wrong_type"] + e["wrong_boundary"] + e["wrong_both"] + e["spurious"]
    pos = e["correct"] + e["wrong_type"] + e["wrong_boundary"] + e["wrong_both"] + e["missed"]
    correct = {"strict": e["correct"], "exact": e["correct"] + e["wrong_type"],
               "overlap": pos - type_view[..., 0] - type_view[..., 1],
               "partial": e["correct"] + e["wrong_type"] + 0.5 * (e["wrong_boundary"] + e["wrong_both"])}
    return {view: (cor, act, pos) for view, cor in correct.items()}


def active_types(parts: dict[str, np.ndarray]) -> np.ndarray:
    """(S, T): the types of gold chunks or of the system's chunks on the whole test set, which macro
    averages run over (seqeval's label set: types of the extracted entities, gold ∪ predicted);
    resamples keep this set."""
    return (parts["gold"][None, :] > 0) | (parts["predicted"] > 0)


def span_values(parts: dict[str, np.ndarray], active: np.ndarray) -> dict[str, np.ndarray]:
    """Every span metric id -> values (…, S) from :meth:`~auditor.tasks.tagging.counting.Layout.parts`;
    NaN where 0/0 (micro, views) or no type is active."""
    gold, predicted, matched, errors = parts["gold"], parts["predicted"], parts["matched"], parts["errors"]
    values: dict[str, np.ndarray] = {}
    m, p, g = matched.sum(-1), predicted.sum(-1), gold.sum(-1)[..., None]
    for name, fraction in fractions(m, p, np.broadcast_to(g, m.shape)).items():
        values[f"span_micro_{name}"] = _nan(*fraction)
    types = per_type(gold, predicted, matched)
    n_active = active.sum(-1)
    weight, no_gold = ratio(np.broadcast_to(gold[..., None, :], predicted.shape),
                            np.broadcast_to(g, m.shape)[..., None])
    for name, (value, _) in types.items():
        values[f"span_macro_{name}"] = _nan(np.where(active, value, 0.0).sum(-1) / np.maximum(n_active, 1),
                                            np.broadcast_to(n_active == 0, m.shape))
        values[f"span_weighted_{name}"] = _nan((weight * value).sum(-1), no_gold[..., 0])
    for view, (cor, act, pos) in view_counts(errors, parts["type_view"]).items():
        if view != "strict":
            values[f"span_{view}_f1"] = _nan(*ratio(2 * cor, act + pos))
    return {metric: values[metric] for metric in SPAN_METRICS}
