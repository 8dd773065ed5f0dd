"""auditor: audit how classification systems are evaluated.

The pipeline, one package per stage, arrows only downstream, each stage named by its verb:
read, align, count (``io``) -> score (``metrics``: the metric record, registry and catalogue)
-> analyse (``analyses``, one module each) -> record (``results``: the audit and its JSON) ->
build (``report``: the report model) -> render (``formats``, one renderer per output format);
``pipeline`` runs them in order, ``claims`` checks reported numbers, ``cli`` and ``terminal``
are the command line. The version lives in ``version``.

``import auditor`` loads only the metric catalogue (numpy); the pipeline, counting and the
rendering stack (jinja2, altair, weasyprint, ...) are imported on first use of the names
below that live there.
"""
from __future__ import annotations

import importlib
from typing import Any

from auditor.errors import AuditorError, InputError, OutputError, UsageError
from auditor.metrics.catalogue import MetricValue, compute, describe, reweight_prevalence
from auditor.metrics.registry import REGISTRY, ConfusionStats, Metric, Properties, register
from auditor.version import __version__

#: Public names imported from their module on first access (PEP 562).
_LAZY = {
    "Counts": "io.counts", "count": "io.counts",
    "Audit": "pipeline", "AuditOptions": "pipeline", "audit": "pipeline",
    "audit_confusion": "pipeline",
    "render": "formats.render",
    "Score": "results",
}

__all__ = [
    "__version__", "AuditorError", "InputError", "OutputError", "UsageError",
    "REGISTRY", "ConfusionStats", "Metric", "Properties", "register",
    "MetricValue", "compute", "describe", "reweight_prevalence", "Counts", "count",
    "Audit", "AuditOptions", "audit", "audit_confusion", "render", "Score",
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
