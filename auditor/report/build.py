"""The report model: typed, frozen dataclasses built from the typed audit (stage "build").

``build(audit)`` reads the :class:`~auditor.results.Audit` (``ctx.audit``) plus the metric
records (names, LaTeX formulas, references) and returns a :class:`Report`. Each section
builder reads its analysis's result; when the analysis did not run the section is absent —
never a placeholder. Numbers stay numbers here: every value is a :class:`Cell` whose
``kind`` tells the renderers' filters how to format it (scores ×100 with one decimal,
shares as percentages, p-values with three decimals). Undefined values (``null``) and
values filled by a convention carry the number of their entry in the undefined-value
ledger. Renderers (``auditor.formats.render``) read only this model.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from auditor.report.context import Context, Ledger, _profile_line
from auditor.report.model import Report, Section
from auditor.report.sections import builders
from auditor.report.sections.recommendation import recommendation_rules
from auditor.report.skeleton import assemble

if TYPE_CHECKING:
    from auditor.metrics.registry import Metric
    from auditor.results import Audit


#: The section builders in report order (each registered in its own module: auditor.report.sections).
BUILDERS: tuple[Callable[[Context], Section | None], ...] = builders()


def build(audit: Audit, figures: bool = True, records: Mapping[str, Metric] | None = None,
          rules: Sequence[str] | None = None, title: str = "Metric audit",
          sections: Sequence[tuple[int, Callable[[Context], Section | None]]] = (),
          extra: Mapping[str, Any] | None = None, signature: str | None = None) -> Report:
    """The report model of an :class:`~auditor.results.Audit`; ``records`` maps metric id ->
    :class:`~auditor.metrics.registry.Metric` (default: the audit's metrics and the per-class
    ones, which the recommendation can name), ``rules`` the rules appendix (default: the
    recommendation's rules). A task kind adds its own ``sections`` ((place, builder) pairs placed among the
    registered ones), what they read in ``extra`` (``Context.extra``) and its ``signature``."""
    from auditor.report import charts

    # every chart converted at once, in one child process, as the task and plan reports do
    return charts.batched(lambda: _build(audit, figures, records, rules, title, sections, extra or {}, signature))


def _build(audit: Audit, figures: bool, records: Mapping[str, Metric] | None, rules: Sequence[str] | None,
           title: str, sections: Sequence[tuple[int, Callable[[Context], Section | None]]] = (),
           extra: Mapping[str, Any] | None = None, signature: str | None = None) -> Report:
    from auditor.metrics.registry import REGISTRY
    from auditor.report import charts

    if records is None:  # per-class records too: the recommendation can name class_recall (Opitz §8)
        records = {metric.id: metric for metric in (*audit.metrics, *REGISTRY.per_class())}
    ctx = Context(audit, records, Ledger(), figures, charts, charts.formula_svg,
                  {"rules": recommendation_rules() if rules is None else rules, "signature": signature,
                   **(extra or {})})
    sections = [section for builder in (builders(sections) if sections else BUILDERS)
                if (section := builder(ctx)) is not None]
    gold = audit.sources["gold"].path if "gold" in audit.sources else None
    subtitle = f"{len(audit.systems)} systems scored against {gold}" if gold else _profile_line(audit)
    return assemble(ctx, sections, title, subtitle)
