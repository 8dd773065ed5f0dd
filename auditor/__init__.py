"""auditor: audit how classification systems are evaluated.

The pipeline, one module per stage: ``load`` -> ``validate`` -> ``counts`` -> ``metrics``
(``registry`` holds the metric record) -> analyses (``profile``, ``baselines``,
``bootstrap``, ``significance``, ``properties``, ``rankings``, ``recommend``) -> ``report``
(the report model) -> ``renderers``; ``pipeline`` runs them in order, ``claims`` checks
reported numbers, ``cli`` is the command line.
"""
from __future__ import annotations

__version__ = "0.1.0"

from .errors import AuditorError, InputError, OutputError, UsageError
from .registry import REGISTRY, ConfusionStats, Metric, Properties, register
from . import metrics  # noqa: F401  (registers the catalogue)
from .metrics import MetricValue, compute, describe, reweight_prevalence
from .counts import Counts, count
from .pipeline import Audit, AuditOptions, audit
from .renderers import render

__all__ = [
    "__version__", "AuditorError", "InputError", "OutputError", "UsageError",
    "REGISTRY", "ConfusionStats", "Metric", "Properties", "register",
    "MetricValue", "compute", "describe", "reweight_prevalence", "Counts", "count",
    "Audit", "AuditOptions", "audit", "render",
]
