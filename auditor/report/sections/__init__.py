"""One section builder per analysis: each reads what its analysis produced and returns a
:class:`~auditor.report.model.Section`, or ``None`` when that analysis did not run.

A builder registers itself with :func:`section`, giving its place in the report; :func:`builders`
imports every module of this package and returns the builders in that order. So a new analysis's
section is one module here, and nothing else in the report changes.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable, Sequence

#: "module.function" -> (place in the report, builder).
_REGISTERED: dict[str, tuple[int, Callable[..., Any]]] = {}


def section(order: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated builder at place ``order`` (smaller first; the appendices from 140)."""
    def register(builder: Callable[..., Any]) -> Callable[..., Any]:
        _REGISTERED[f"{builder.__module__}.{builder.__qualname__}"] = (order, builder)
        return builder
    return register


def builders(extra: Sequence[tuple[int, Callable[..., Any]]] = ()) -> tuple[Callable[..., Any], ...]:
    """Every registered builder of this package, with a task's own ``extra`` (place, builder) pairs, in report
    order (two at one place are refused)."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    places = sorted([*_REGISTERED.values(), *extra], key=lambda entry: entry[0])
    orders = [order for order, _ in places]
    if len(set(orders)) != len(orders):
        raise RuntimeError(f"two report sections share a place: {sorted(orders)}")
    return tuple(builder for _, builder in places)
