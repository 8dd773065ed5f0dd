"""Chance baselines: what uniform, prevalence, majority and shuffled predictors score."""
from __future__ import annotations

from typing import Any

from auditor.analyses.shuffle_test import NOT_TESTED, untested_reason
from auditor.formatting import format_value
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Cell, Column, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.tables import _density

#: The margin table's caption: what a negative margin means, and that it is not what "above chance" tests.
MARGIN_CAPTION = ("Each system's margin over the strongest chance baseline (×100; negative: below that baseline's "
                  "expectation), the strongest of four: uniform, prevalence, majority and the system's own predictions "
                  "shuffled (its bias, no information), so a margin can differ from the value minus the strongest "
                  "of the first three, which every system shares. The margin is the system's value minus the "
                  "baseline's exact expectation where one exists, else (marked “≈”) minus its Monte Carlo mean, if 3 "
                  "standard errors above every exact one. “Above chance” is a different question, tested against a "
                  "shuffle of the system's own predictions (next table): a system with a skewed bias can be below "
                  "the best baseline and still above its own shuffle.")


@section(40)
def baselines_section(ctx: Context) -> Section | None:
    """From the typed :class:`~auditor.analyses.baselines.ChanceBaselines` (None: section absent)."""
    result = ctx.audit.baselines
    if result is None:
        return None
    keys = ctx.key_metrics()
    coverage = ctx.level
    spread = (f"the {coverage} range is the Monte Carlo spread at this test-set size" if result.draws else
              "no Monte Carlo range or shuffle p-value was drawn (--bootstrap 0: no random draws); the expectations, "
              "the exact p-values (two classes) and the bounds that settle a system's answer need none")
    blocks: list[Any] = [Paragraph(
        "Expected score of predictors that ignore the input: uniform random, random with the gold prevalence, "
        f"and always the majority class; {spread}.{_undrawn(result)}")]
    rows = []
    for name in ("uniform", "prevalence", "majority"):
        metrics = result.baselines.get(name)
        if not metrics:
            continue
        cells = []
        for m in keys:
            entry = metrics.get(m)
            cells.append(Cell(None, "score") if entry is None else
                         Cell(entry.expected, "score", low=entry.mc_low if result.draws else None,
                              high=entry.mc_high if result.draws else None, approximate=not entry.exact))
        rows.append(Row(name, tuple(cells)))
    if rows:
        blocks.append(Table("table-baselines", "Expected score (×100) of each chance baseline"
                            + (f", with the Monte Carlo {coverage} range of {result.draws:,} draws at this test-set "
                               "size. " if result.draws else ". ")
                            + "Exact expectations are shown as they are; “≈” marks the plug-in value f(E[C]) "
                            "of a metric whose expectation E[f(C)] differs from it at this test-set size (a ratio "
                            "with a random denominator, such as macro F1, F1′, kappa or MCC of a random predictor).",
                            "Baseline", tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), tuple(rows),
                            _density(len(keys)), for_paper=True, for_summary=True))
    chance = {s: result.chance[s] for s in ctx.systems if result.chance.get(s)}
    if chance:
        for field_name, kind, caption in (
            ("margin", "score", MARGIN_CAPTION),
            ("p_shuffle", "p", "Unadjusted permutation p-value of each system against a shuffle of its own "
                               f"predictions (same bias, no information; {result.p_method(keys[0]) if keys else ''}); "
                               "the adjusted ones decide “above chance”."),
        ):
            columns, headers = keys, tuple(Column(ctx.short(m), ctx.name(m)) for m in keys)
            if field_name == "p_shuffle" and len(keys) > 1 and all(
                    len({getattr(c[m], field_name) for m in keys if m in c}) == 1 for c in chance.values()):
                columns, headers = keys[:1], (Column("every metric"),)  # the same p under each (e.g. two classes)
                caption += f" Every metric gives the same p here; shown once ({', '.join(ctx.short(m) for m in keys)})."
            untested = Cell(untested_reason(result.draws), "text")
            rows = tuple(Row(s, tuple(_bounded(c[m]) if field_name == "p_shuffle" and m in c and _is_bound(c[m]) else
                                      untested if field_name == "p_shuffle" and m in c and _not_tested(c[m]) else
                                      Cell(getattr(c[m], field_name) if m in c else None, kind,
                                           approximate=field_name == "margin" and not _exact(result, s, c.get(m), m))
                                      for m in columns))
                         for s, c in chance.items())
            blocks.append(Table(f"table-chance-{field_name}", caption, "System", headers, rows,
                                _density(len(columns)), for_paper=True))
    return Section("baselines", SECTION_TITLES["baselines"], tuple(blocks), for_summary=True)


def _undrawn(result: Any) -> str:
    """The systems whose shuffles were not drawn, and why (:data:`~auditor.analyses.baselines.UNDRAWN`), or ""."""
    if not result.undrawn:
        return ""
    return (f" The shuffles of {len(result.undrawn)} of {len(result.chance)} systems were not drawn, as no answer "
            f"depended on them: {result.undrawn_because()}, and each of their p-values that decides “above chance” "
            "is exact or settled by a bound; their margins count the shuffle only where its expectation is exact.")


def _is_bound(comparison: Any) -> bool:
    """Whether a shuffle p is an upper bound found without draws (:mod:`auditor.analyses.shuffle_bound`)."""
    return comparison.shuffle_p is not None and comparison.shuffle_p.method == "bound"


def _not_tested(comparison: Any) -> bool:
    """Whether a defined value's shuffle test did not run (``--bootstrap 0`` and no exact test or settling bound)."""
    return comparison.undefined is None and comparison.shuffle_p is not None and \
        comparison.shuffle_p.method == NOT_TESTED


def _bounded(comparison: Any) -> Cell:
    """A bound on p as the table shows it: "<0.001" below 0.001, else "≤" and the bound."""
    p = comparison.p_shuffle
    return Cell(p, "p") if p < 0.001 else Cell(f"≤{format_value(p, 'p')}", "text")


def _exact(result: Any, system: str, comparison: Any, metric_id: str) -> bool:
    """Whether a margin subtracts an exact expectation (not a Monte Carlo mean)."""
    if comparison is None or comparison.strongest_baseline is None:
        return True
    name = comparison.strongest_baseline
    entry = (result.shuffle.get(system, {}) if name == "shuffle" else result.baselines.get(name, {})).get(metric_id)
    return entry is None or (entry.exact and entry.expected is not None)
