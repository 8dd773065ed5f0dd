"""The ordinal report: classification's report of the levels' audit, with the ordinal sections added."""
from __future__ import annotations

import dataclasses
from typing import Any


def report_model(result: Any, figures: bool = True) -> Any:
    """The report model of ``result``, an :class:`~auditor.tasks.ordinal.result.OrdinalAudit` (not imported:
    the result imports this module, and no two modules import each other): :func:`auditor.report.build.build`
    of its levels' audit, retitled."""
    from auditor.report.build import build

    report = build(result.audit, figures, title="Ordinal metric audit")
    return dataclasses.replace(report, signature=str(result.signature))
