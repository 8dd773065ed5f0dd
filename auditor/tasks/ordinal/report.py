"""The ordinal report: classification's report of the levels' audit, with the ordinal sections added."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.tasks.ordinal.result import OrdinalAudit


def report_model(result: OrdinalAudit, figures: bool = True) -> Any:
    """The report model of ``result`` (:func:`auditor.report.build.build` of its levels' audit, retitled)."""
    from auditor.report.build import build

    report = build(result.audit, figures, title="Ordinal metric audit")
    return dataclasses.replace(report, signature=str(result.signature))
