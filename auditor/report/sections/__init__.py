"""One section builder per analysis: each reads what its analysis produced and returns a
:class:`~auditor.report.model.Section`, or ``None`` when that analysis did not run.

A builder registers itself with :func:`section`, giving its place in the report and the task kinds it serves
(the class-based ones by default; ``EVERY_TASK`` for a section every task's report has, as the rank section);
:func:`builders` imports every module of this package and returns a task's builders in that order. So a new
analysis's section is one module here, and it reaches every task kind it says it serves.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable, Sequence

#: The task kinds whose audit is a classification :class:`~auditor.results.Audit` (the default of :func:`section`).
CLASS_BASED = ("classification",)
#: ``tasks`` of a section every task kind's report has.
EVERY_TASK = ("*",)
#: "module.function" -> (place in the report, builder, the task kinds it serves).
_REGISTERED: dict[str, tuple[int, Callable[..., Any], tuple[str, ...]]] = {}


def section(order: int, tasks: Sequence[str] = CLASS_BASED) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated builder at place ``order`` (smaller first; the appendices from 140) for ``tasks``."""
    def register(builder: Callable[..., Any]) -> Callable[..., Any]:
        _REGISTERED[f"{builder.__module__}.{builder.__qualname__}"] = (order, builder, tuple(tasks))
        return builder
    return register


def registered(task: str = "classification") -> list[tuple[int, Callable[..., Any]]]:
    """(place, builder) of every section of this package that serves ``task``."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return [(order, builder) for order, builder, tasks in _REGISTERED.values()
            if task in tasks or tasks == EVERY_TASK]


def builders(extra: Sequence[tuple[int, Callable[..., Any]]] = (),
             task: str = "classification") -> tuple[Callable[..., Any], ...]:
    """Every registered builder of this package serving ``task``, with the task's own ``extra`` (place, builder)
    pairs, in report order (two at one place are refused)."""
    places = sorted([*registered(task), *extra], key=lambda entry: entry[0])
    orders = [order for order, _ in places]
    if len(set(orders)) != len(orders):
        raise RuntimeError(f"two report sections share a place: {sorted(orders)}")
    return tuple(builder for _, builder in places)
