"""The ordinal audit's record: classification's :class:`~auditor.results.Audit` of the levels, the order, and
the ordinal analyses; its JSON (``task: ordinal``), terminal table and report model."""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from auditor.results import Audit, Signature
from auditor.tasks.ordinal.levels import Order
from auditor.tasks.ordinal.measures import ORDINAL_IDS

#: The terminal table's columns when no -m is given (fits 80 columns with a 16-character system name).
TERMINAL_COLUMNS = ("mae_macro", "mae", "quadratic_kappa", "spearman", "cem_ord", "within_one", "accuracy", "macro_f1")


@dataclass(frozen=True)
class OrdinalAudit:
    """``audit``: classification's record with the levels as labels (in order) and the ordinal figures among its
    metrics; ``order``: where the order came from; ``results``: the ordinal analyses by name (each with
    ``to_json``)."""

    audit: Audit
    order: Order
    results: Mapping[str, Any] = field(default_factory=dict)

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.audit.warnings

    @property
    def signature(self) -> Signature:
        """Classification's signature with ``task:ordinal`` and ``order:`` (the first 12 hex digits of the SHA-256
        of the levels joined by a unit separator)."""
        digest = hashlib.sha256("\x1f".join(self.order.levels).encode()).hexdigest()[:12]
        return Signature((*self.audit.signature.fields, ("task", "ordinal"), ("order", digest)))

    def to_json(self) -> dict[str, Any]:
        """Classification's audit JSON with ``task: ordinal``, the ``order`` and the ordinal analyses' keys."""
        document = self.audit.to_json()
        document["task"] = "ordinal"
        document["signature"] = str(self.signature)
        document["order"] = self.order.to_json()
        document["ordinal_metrics"] = list(ORDINAL_IDS)
        document["lower_is_better"] = [m.id for m in self.audit.metrics if not m.higher_is_better]
        for name, result in self.results.items():
            part = result.to_json()  # the recommendation writes its own key, as in every task kind
            document.update(part if name == "recommendation" else {name: part})
        return document

    def _repr_html_(self) -> str:
        """The notebook view: the levels' leaderboard (:meth:`auditor.results.Audit._repr_html_`), errors as they
        are, lowest first."""
        return self.audit._repr_html_()

    def terminal_lines(self, columns: Sequence[str], sort: str | None = None) -> list[str]:
        """``auditor score``'s table (:func:`auditor.terminal.print_score_table` on the levels' audit): the
        ordinal figures and the catalogue's, errors in steps of the order, the rest ×100."""
        from rich.console import Console

        from auditor.terminal import print_score_table, terminal_width

        buffer = io.StringIO()
        console = Console(file=buffer, width=terminal_width(), soft_wrap=True, color_system=None)
        print_score_table(self.audit, list(columns) or list(TERMINAL_COLUMNS), console, sort_by=sort,
                          signature=str(self.signature), order=self.order.statement)
        return buffer.getvalue().rstrip("\n").split("\n")

    def report_model(self, figures: bool = True) -> Any:
        """The report: classification's sections of the levels' audit with the ordinal ones added."""
        from auditor.tasks.ordinal.report import report_model

        return report_model(self, figures)
