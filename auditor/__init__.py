"""auditor: audit how classification systems are evaluated."""
from __future__ import annotations

__version__ = "0.1.0"

from .errors import AuditorError, InputError, OutputError, UsageError
from .registry import REGISTRY, ConfusionStats, Metric, Properties, register
from . import metrics  # noqa: F401  (registers the catalogue)
from .metrics import compute, describe
from .counts import Counts, count

from .audit import audit  # noqa: E402  (the function shadows the submodule name on purpose)
from .render import render  # noqa: E402


__all__ = [
    "__version__", "AuditorError", "InputError", "OutputError", "UsageError",
    "REGISTRY", "ConfusionStats", "Metric", "Properties", "register",
    "compute", "describe", "Counts", "count", "audit", "render",
]
