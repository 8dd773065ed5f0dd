"""auditor: audit how classification systems are evaluated.

The pipeline, one module per stage: ``load`` -> ``validate`` -> ``counts`` -> ``metrics``
(``registry`` holds the metric record) -> analyses (``profile``, ``baselines``,
``bootstrap``, ``significance``, ``properties``, ``rankings``, ``recommend``) -> ``report``
(the report model) -> ``renderers``; ``pipeline`` runs them in order, ``claims`` checks
reported numbers, ``cli`` is the command line.

``import auditor`` loads only the metric catalogue (numpy); the pipeline, counting and the
rendering stack (jinja2, altair, weasyprint, ...) are imported on first use of the names
below that live there.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from .errors import AuditorError, InputError, OutputError, UsageError
from .registry import REGISTRY, ConfusionStats, Metric, Properties, register
from . import metrics  # noqa: F401  (registers the catalogue)
from .metrics import MetricValue, compute, describe, reweight_prevalence

#: Public names imported from their module on first access (PEP 562).
_LAZY = {
    "Counts": "counts", "count": "counts",
    "Audit": "pipeline", "AuditOptions": "pipeline", "audit": "pipeline",
    "audit_confusion": "confusion_input",
    "render": "renderers",
}

__all__ = [
    "__version__", "AuditorError", "InputError", "OutputError", "UsageError",
    "REGISTRY", "ConfusionStats", "Metric", "Properties", "register",
    "MetricValue", "compute", "describe", "reweight_prevalence", "Counts", "count",
    "Audit", "AuditOptions", "audit", "audit_confusion", "render",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
