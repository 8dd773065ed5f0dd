"""Every definition a reported number is compared with: each registered scalar metric,
weighted precision and recall, the zero_division conventions of the macro averages, and the
macro and micro averages without one class.

A definition maps :class:`~auditor.metrics.registry.ConfusionStats` (one table, no batch
axes) to a :class:`DefinitionValue`: a number, or undefined with the reason (a 0/0 is never
0). Every division goes through :func:`auditor.metrics.registry.ratio`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from auditor.claims.evidence import stats_from_margins
from auditor.metrics.registry import REGISTRY, ConfusionStats, Metric, ratio

#: "Without class X" definitions are tried up to this many classes (k definitions each).
MAX_CLASSES_WITHOUT = 50


@dataclass(frozen=True)
class DefinitionValue:
    """A definition's value on one table, or ``value`` None and ``undefined`` saying why."""

    value: float | None
    undefined: str | None = None


def _defined(value: float) -> DefinitionValue:
    return DefinitionValue(float(value))


def _from_ratio(numerator: float, denominator: float, reason: str) -> DefinitionValue:
    """``numerator / denominator`` through :func:`ratio`; undefined with ``reason`` on x/0."""
    value, undefined = ratio(numerator, denominator)
    return DefinitionValue(None, reason) if bool(undefined) else _defined(value)


@dataclass(frozen=True)
class Definition:
    """One way of computing a reported number: ``id`` (a metric id, or ``metric[variant]``),
    what it is in words, the function, and the registered metric it is a variant of."""

    id: str
    description: str
    function: Callable[[ConfusionStats], DefinitionValue]
    metric: str | None = None


def _registered(metric: Metric) -> Callable[[ConfusionStats], DefinitionValue]:
    """A registered metric; NaN (its undefined case) becomes undefined with its ``undefined_when``."""

    def function(s: ConfusionStats) -> DefinitionValue:
        value = float(metric.function(s))
        if np.isnan(value):
            return DefinitionValue(None, metric.undefined_when or "0/0")
        return _defined(value)

    return function


def _weighted(quantity: str) -> Callable[[ConfusionStats], DefinitionValue]:
    """Σ_i p_i x_i with gold prevalence p_i (scikit-learn's average='weighted')."""

    def function(s: ConfusionStats) -> DefinitionValue:
        return _defined((s.prevalence * getattr(s, quantity)).sum())

    return function


def _macro_with(quantity: str, fill: float | None) -> Callable[[ConfusionStats], DefinitionValue]:
    """Macro average (1/|K|) Σ_{i∈K} x_i of a per-class ratio with 0/0 counted as ``fill``
    (None: those classes left out of K)."""

    def function(s: ConfusionStats) -> DefinitionValue:
        values = getattr(s, quantity)
        undefined = getattr(s, f"{quantity}_undefined") & s.active
        keep = s.active & ~undefined if fill is None else s.active
        values = np.where(undefined, 0.0 if fill is None else fill, values)
        return _from_ratio(np.where(keep, values, 0).sum(), keep.sum(),
                           f"no class has a defined {quantity} (every one is 0/0)")

    return function


def _hm(precision: Callable[[ConfusionStats], DefinitionValue],
        recall: Callable[[ConfusionStats], DefinitionValue]) -> Callable[[ConfusionStats], DefinitionValue]:
    """Harmonic mean 2PR / (P + R) of two macro averages."""

    def function(s: ConfusionStats) -> DefinitionValue:
        p, r = precision(s), recall(s)
        if p.value is None or r.value is None:
            return DefinitionValue(None, p.undefined or r.undefined)
        return _from_ratio(2 * p.value * r.value, p.value + r.value,
                           "macro precision and macro recall are both 0, so the harmonic mean is 0/0")

    return function


def _without(label_index: int, label: str, metric_id: str) -> Callable[[ConfusionStats], DefinitionValue]:
    """A registered macro average over the active classes other than ``label``."""
    metric = REGISTRY.get(metric_id)

    def function(s: ConfusionStats) -> DefinitionValue:
        copy = stats_from_margins(s.diag, s.row, s.col, s.C)
        active = (copy.row + copy.col) > 0
        active[label_index] = False
        if not active.any():
            return DefinitionValue(None, f"no class but {label} has gold items or predictions (0/0)")
        copy.__dict__["active"] = active
        return _registered(metric)(copy)

    return function


def _micro_without(label_index: int, label: str) -> Callable[[ConfusionStats], DefinitionValue]:
    """Micro F1 = 2 Σ TP / (Σ gold + Σ predicted) over every class except ``label``."""

    def function(s: ConfusionStats) -> DefinitionValue:
        keep = np.ones(s.k, bool)
        keep[label_index] = False
        tp, gold, predicted = s.diag[keep].sum(), s.row[keep].sum(), s.col[keep].sum()
        return _from_ratio(2 * tp, gold + predicted, f"no class but {label} has gold items or predictions (0/0)")

    return function


def definitions(labels: Sequence[str]) -> tuple[Definition, ...]:
    """Every definition a reported number is compared with ("without class X" only up to
    :data:`MAX_CLASSES_WITHOUT` classes: k of them, each O(k), would make a large table slow)."""
    result = [Definition(m.id, m.name, _registered(m), m.id) for m in REGISTRY.scalar()]
    result.append(Definition("weighted_precision", "Weighted precision Σ p_i P_i (scikit-learn average='weighted')",
                             _weighted("precision")))
    result.append(Definition("weighted_recall", "Weighted recall Σ p_i R_i (= accuracy)", _weighted("recall")))
    for fill, tag in ((1.0, "zero_division=1"), (None, "undefined classes left out")):
        p, r = _macro_with("precision", fill), _macro_with("recall", fill)
        result += [
            Definition(f"macro_precision[{tag}]", f"Macro precision, 0/0 per class {tag}", p, "macro_precision"),
            Definition(f"macro_recall[{tag}]", f"Macro recall, 0/0 per class {tag}", r, "macro_recall"),
            Definition(f"macro_f1[{tag}]", f"Macro F1 (mean of class F1), 0/0 per class {tag}",
                       _macro_with("f1", fill), "macro_f1"),
            Definition(f"macro_f1_hm[{tag}]", f"Macro F1′ (HM of macro P and macro R), 0/0 per class {tag}",
                       _hm(p, r), "macro_f1_hm"),
        ]
    for index, label in enumerate(labels if len(labels) <= MAX_CLASSES_WITHOUT else ()):
        for metric_id in ("macro_precision", "macro_recall", "macro_f1", "macro_f1_hm"):
            result.append(Definition(f"{metric_id}[without {label}]",
                                     f"{REGISTRY.get(metric_id).name} over every class except {label}",
                                     _without(index, label, metric_id), metric_id))
        result.append(Definition(f"micro_f1[without {label}]", f"Micro F1 over every class except {label}",
                                 _micro_without(index, label)))
    return tuple(result)
