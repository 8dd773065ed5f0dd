"""The one report skeleton every task kind fills (ydata-profiling's model: one skeleton, each type adds its parts).

In report order: summary (the verdict and a leaderboard), data, metrics, rankings, significance, the task's own
sections, recommendation, and the appendices (definitions, one ledger of undefined values, reproducibility) and
references. The skeleton writes what every task has from its :class:`~auditor.report.spine.Spine`: score tables
whose bold is each metric's best set (an untested column has none), the best-set and pair-test tables, the rank
section (registered for every task in :mod:`auditor.report.sections.rankings`), the ledger, the reproducibility
appendix and the references; a task's report module keeps only its own sections, each a (place, builder) pair.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Mapping, Sequence

from auditor.analyses.families import MCNEMAR, RANDOMISATION
from auditor.formatting import format_value, nan_to_none, plural
from auditor.options import correction_name
from auditor.report.context import APPENDICES, SECTION_TITLES, Context, Ledger
from auditor.report.model import (
    SCALE_NOTE,
    Bullets,
    Cell,
    Column,
    Definition,
    Facts,
    Figure,
    Formula,
    Paragraph,
    Report,
    Row,
    Section,
    Table,
)
from auditor.report.references import cited, entry_text
from auditor.report.spine import Spine
from auditor.report.tables import _density, _fit_systems
from auditor.results import SCHEMA

#: A report section builder and its place (smaller first; the appendices from 140).
Placed = tuple[int, Callable[[Context], Section | None]]
#: The test names the report shows (the JSON keeps the ids).
TEST_NAMES = {MCNEMAR: "exact McNemar test", RANDOMISATION: "approximate randomisation",
              "randomisation": "approximate randomisation", "paired_bootstrap": "paired bootstrap"}
#: The paired bootstrap test, reported only for parity with a peer that gives it (sacrebleu's ``paired_bs``).
PAIRED_BOOTSTRAP = "paired_bootstrap"


def bold_legend(ctx: Context) -> str:
    """What bold means in a score table: the metric's best set; without any test, that nothing is bold."""
    if not ctx.spine.tested:
        return "No value is bold: bold marks a best set, and no significance tests ran."
    tests = ", ".join(dict.fromkeys(TEST_NAMES.get(entry.test, entry.test) for entry in ctx.spine.best_set.values()))
    return (f"Bold: the metric's best set (the top system and every system whose test against it, {tests}, "
            f"{correction_name(ctx.spine.correction)}-adjusted over the comparisons with the top system, has "
            f"p ≥ α ({ctx.alpha:g})); a column without a test has no bold.")


def score_table(ctx: Context, table_id: str, caption: str, metrics: Sequence[str], *, for_paper: bool = False,
                for_summary: bool = False, inline_ci: bool = False, order: Sequence[str] | None = None) -> Table:
    """Systems (rows, ``order`` or the report's order) × ``metrics`` (columns, those present): each value with its
    interval and ledger mark, bold exactly where the system is in the metric's best set."""
    present = set(ctx.metric_ids())
    metrics = [m for m in metrics if m in present]
    systems = list(order) if order is not None else ctx.systems
    rows = tuple(Row(s, tuple(dataclasses.replace(ctx.score_cell(s, m), strong=s in (ctx.best(m) or ()))
                              for m in metrics)) for s in systems)
    columns = tuple(Column(ctx.short(m), ctx.name(m)) for m in metrics)
    return _fit_systems(Table(table_id, f"{caption} {bold_legend(ctx)}", "System", columns, rows,
                              _density(len(columns) + 1), inline_ci=inline_ci, for_paper=for_paper,
                              for_summary=for_summary), systems)


def abbreviations(ctx: Context, metrics: Sequence[str]) -> str:
    """One sentence spelling out every column head of ``metrics`` that is not the metric's full name:
    "Columns: μF1 = Span micro F1; …" ("" where there is none)."""
    shown = [m for m in metrics if m in ctx.metric_ids() and ctx.short(m) != ctx.name(m)]
    return "Columns: " + "; ".join(f"{ctx.short(m)} = {ctx.name(m)}" for m in shown) + "." if shown else ""


def summary_section(ctx: Context, data: str, metrics: Sequence[str], caption: str,
                    facts: Iterable[tuple[str, str]] = (), after: Iterable[tuple[str, str]] = (),
                    blocks: Sequence[Any] = (), spell_out: bool = False) -> Section:
    """Page 1 of a task's report: what was audited (``data``, the task's ``facts``), whether the winner depends on
    the metric (read off the best sets), the task's ``after`` facts, the warnings, ``blocks`` and a leaderboard of
    ``metrics`` (``spell_out``: its caption spells out the column heads, :func:`abbreviations`)."""
    if spell_out:
        caption = f"{caption} {abbreviations(ctx, metrics)}"
    pairs = [("Data", data), *facts]
    if ctx.spine.resampling is not None:  # --clusters: what a resample draws, and the design effect
        from auditor.analyses.units import resampling_text

        pairs.append(("Resampling", resampling_text(ctx.spine.resampling)))
    verdict = ctx.spine.verdict
    if verdict is not None and len(ctx.systems) > 1:
        pairs.append(("Winner depends on the metric?", verdict.text))
    pairs += [*after, *(("Warning", warning) for warning in ctx.spine.warnings)]
    return Section("summary", SECTION_TITLES["summary"], (
        Facts(tuple(pairs)), *blocks,
        score_table(ctx, "summary-leaderboard", caption, metrics, for_paper=True, for_summary=True, inline_ci=True),
    ), for_summary=True)


def metric_figure(ctx: Context, figure_id: str, caption: str, metrics: Sequence[str],
                  systems: Sequence[str] | None = None, chance: Mapping[str, float | None] | None = None) -> Figure:
    """Each system's value of each of ``metrics`` (×100) with its interval, a panel per metric headed by its column
    head (:func:`auditor.report.charts.metric_spec`; ``chance``: a dashed line at the strongest chance baseline)."""
    systems = list(systems if systems is not None else ctx.systems)
    values = {s: {m: (ctx.spine.scores[s][m].value, *(ctx.interval(s, m) or (None, None))) for m in metrics}
              for s in systems}
    return Figure(figure_id, caption, ctx.charts.metric_chart(systems, list(metrics), [ctx.short(m) for m in metrics],
                                                              values, chance))


def shares_blocks(ctx: Context, systems: Sequence[str], categories: Sequence[str], head: str,
                  leading: Sequence[tuple[Column, Sequence[Cell]]], prevalence: Sequence[float | None],
                  shares: Mapping[str, Sequence[float | None]], table: tuple[str, str],
                  figure: tuple[str, str]) -> list[Any]:
    """Each category's share of the gold against each system's share of its predictions (classification's classes,
    tagging's chunk types, multi-label's labels): a chart (``figure``: id, caption) of the prevalence (bars) and
    each system's share minus it, and a table (``table``: id, caption) of the categories' ``leading`` columns (a
    column and one cell per category) followed by each system's share."""
    blocks: list[Any] = []
    if ctx.figures and categories:
        blocks.append(Figure(*figure, ctx.charts.bias_chart(
            list(categories), list(systems), [p or 0.0 for p in prevalence],
            {s: [x or 0.0 for x in shares[s]] for s in systems})))
    columns = (*(column for column, _ in leading), *(Column(s, rotate=len(systems) > 3) for s in systems))
    rows = tuple(Row(kind, (*(cells[i] for _, cells in leading), *(Cell(shares[s][i], "share") for s in systems)))
                 for i, kind in enumerate(categories))
    blocks.append(_fit_systems(Table(*table, head, columns, rows, _density(len(columns) + 1)), systems))
    return blocks


def category_table(table_id: str, caption: str, head: str, categories: Sequence[str], support: Sequence[Any],
                   systems: Sequence[str], cell: Callable[[str, int], Cell], for_paper: bool = False) -> Table:
    """Categories (rows: classification's classes, tagging's chunk types, multi-label's labels) × a support column
    and one column per system, each cell ``cell(system, category index)``; a row per system instead where the
    systems do not fit."""
    columns = (Column("Support"), *(Column(s, rotate=len(systems) > 3) for s in systems))
    rows = tuple(Row(kind, (Cell(support[i], "count"), *(cell(s, i) for s in systems)))
                 for i, kind in enumerate(categories))
    return _fit_systems(Table(table_id, caption, head, columns, rows, _density(len(columns) + 1),
                              for_paper=for_paper), systems)


def best_set_blocks(ctx: Context) -> tuple[Any, ...]:
    """The adjusted p-value of each system against each tested metric's top system, and the best sets in words."""
    best_set = ctx.spine.best_set
    if not best_set:
        return ()
    metric_ids = list(best_set)
    rows = tuple(Row(s, tuple(Cell(nan_to_none(best_set[m].p_adjusted.get(s)), "p")
                              if s != best_set[m].top else Cell("top") for m in metric_ids))
                 for s in ctx.systems)
    correction = correction_name(ctx.spine.correction)
    by_test: dict[str, list[str]] = {}
    for m in metric_ids:
        by_test.setdefault(TEST_NAMES.get(best_set[m].test, best_set[m].test), []).append(ctx.short(m))
    tests = "; ".join(f"{', '.join(metrics)}: {test}" for test, metrics in by_test.items())
    return (
        Table("table-best", "Adjusted p-value of each system against the top system of each metric (family: the "
              f"{plural(len(ctx.systems) - 1, 'comparison')} with that metric's top system, {correction}; {tests}; "
              f"the best set is the top system and every system with p ≥ α = {ctx.alpha:g}).", "System",
              tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), rows, _density(len(metric_ids)),
              for_paper=True),
        Bullets(tuple(f"{ctx.name(m)}: {', '.join(v.systems)} ({TEST_NAMES.get(v.test, v.test)})"
                      for m, v in best_set.items()), "Best set per metric"),
        *((Paragraph(disagreements),) if (disagreements := family_disagreements(ctx)) else ()),
    )


def family_disagreements(ctx: Context) -> str:
    """The comparisons with a metric's top system that the best set and the pair tests answer differently, in one
    paragraph ("" where there is none). The best set adjusts a metric's S − 1 comparisons with its top system over
    themselves; the pair tests adjust over every pair tested, a larger family, so one pair can be significant in one
    and not in the other (Holm 1979: the adjusted p grows with the family)."""
    spine, found = ctx.spine, []
    for metric_id, entry in spine.best_set.items():
        for test in spine.tests:
            if test.metric != metric_id or test.method != entry.test or entry.top not in (test.a, test.b):
                continue
            other = test.b if test.a == entry.top else test.a
            against_top, among_pairs = nan_to_none(entry.p_adjusted.get(other)), nan_to_none(test.p_adjusted)
            if against_top is None or among_pairs is None or (against_top < entry.alpha) == (among_pairs < entry.alpha):
                continue
            where = "outside the best set" if against_top < entry.alpha else "in the best set"
            there = "significant" if among_pairs < entry.alpha else "not significant"
            found.append(f"{ctx.short(metric_id)}: {other} against {entry.top}, adjusted p "
                         f"{format_value(against_top, 'p')} against the top ({where}) but "
                         f"{format_value(among_pairs, 'p')} among the pairs ({there} there)")
    if not found:
        return ""
    return ("The best set (bold) and the pair tests adjust the same comparison over different families (the "
            "comparisons with the metric's top system; every pair tested), so they can answer one pair differently "
            f"at α = {ctx.alpha:g}. They do here: " + "; ".join(found) + ". Bold and page 1 follow the best set.")


#: Up to this many tests of one method the pair table has a row per pair and metric, with the difference and both
#: p-values; above it, a row per pair and a column per metric, with the adjusted p-value.
LONG_TABLE = 30


def pair_tables(ctx: Context, methods: Sequence[str] | None = None) -> tuple[Table, ...]:
    """One table per test method (the first ``table-tests``): every pair test's adjusted p-value."""
    tests = ctx.spine.tests
    methods = methods or list(dict.fromkeys(t.method for t in tests))
    correction = correction_name(ctx.spine.correction)
    tables = []
    for index, method in enumerate(methods):
        chosen = [t for t in tests if t.method == method]
        if not chosen:
            continue
        name = TEST_NAMES.get(method, method.replace("_", " "))
        table_id = "table-tests" if index == 0 else f"table-tests-{method}"
        if len(chosen) <= LONG_TABLE:
            rows = tuple(Row(f"{t.a} − {t.b}", (Cell(ctx.short(t.metric)), Cell(nan_to_none(t.difference), "score"),
                                               Cell(nan_to_none(t.p), "p"), Cell(nan_to_none(t.p_adjusted), "p")))
                         for t in chosen)
            tables.append(Table(table_id, f"{name[0].upper()}{name[1:]}: difference (points ×100), p and p adjusted "
                                f"({correction}).", "Pair", (Column("Metric"), Column("Δ"), Column("p unadj."),
                                                             Column("p adj.")), rows, "small"))
            continue
        cells: dict[tuple[str, str], dict[str, float]] = {}
        for t in chosen:
            cells.setdefault((t.a, t.b), {})[t.metric] = t.p_adjusted
        metrics = list(dict.fromkeys(t.metric for t in chosen))
        rows = tuple(Row(f"{a} vs {b}", tuple(Cell(nan_to_none(p.get(m)), "p") for m in metrics))
                     for (a, b), p in cells.items())
        tables.append(Table(table_id, f"{name[0].upper()}{name[1:]}: adjusted p ({correction}) per pair and metric.",
                            "Pair", tuple(Column(ctx.short(m), ctx.name(m)) for m in metrics), rows,
                            _density(len(metrics) + 1)))
    return tuple(tables)


def _units(spine: Spine) -> tuple[str, str]:
    """What a resample or a swap moves, singular and plural: the task's unit, or with ``--clusters`` its clusters."""
    if spine.resampling is not None:
        return "cluster", f"clusters of {spine.unit}s"
    return spine.unit, f"{spine.unit}s"


def tests_text(ctx: Context) -> str:
    """The pair tests that ran, in words, read off the spine's tests: which test covers which metrics, over which
    unit, and which of them decide the best sets (docs/architecture.md, "One rule for significance")."""
    spine = ctx.spine
    unit, units = _units(spine)
    by_method: dict[str, list[str]] = {}
    for test in spine.tests:
        if test.metric not in by_method.setdefault(test.method, []):
            by_method[test.method].append(test.metric)
    parts, deciding = [], []
    if MCNEMAR in by_method:
        parts.append(f"the exact McNemar test for {', '.join(ctx.short(m) for m in by_method[MCNEMAR])} (each "
                     f"{unit} right or wrong; McNemar 1947)")
        deciding.append("the exact McNemar test")
    if RANDOMISATION in by_method:
        rounds = next((int(t.details["rounds"]) for t in spine.tests if "rounds" in t.details), 0)
        rest = set(ctx.metric_ids()) - set(by_method.get(MCNEMAR, ()))  # every metric the report shows, or not
        which = ("every other metric" if MCNEMAR in by_method else "every metric") if set(
            by_method[RANDOMISATION]) >= rest else ", ".join(ctx.short(m) for m in by_method[RANDOMISATION])
        parts.append(f"two-sided approximate randomisation over {units} for {which} ({rounds:,} rounds; each {unit}'s "
                     "statistics of the two systems swapped with probability ½; Noreen 1989), "
                     "p = (1 + #{|Δ*| ≥ |Δ|}) / (R + 1)")
        deciding.append("approximate randomisation")
    if PAIRED_BOOTSTRAP in by_method:
        parts.append("and, for parity with sacrebleu's paired_bs only, the paired bootstrap test (Koehn 2004), "
                     "p = (1 + #{|Δ_b| − mean(|Δ_b|) ≥ |Δ|}) / (B + 1), whose p-values never decide bold")
    return (f"Pair tests, one per pair of systems and tested metric: {'; '.join(parts)}. The best sets, and so the "
            f"bold, come from {' and '.join(deciding) or 'these tests'}.")


def significance_section(ctx: Context, method: str | None = None, notes: Sequence[str] = (),
                         methods: Sequence[str] | None = None) -> Section | None:
    """The tests in words (``method``, by default :func:`tests_text`; the task's ``notes``), the best sets and every
    pair's adjusted p-value; without tests, why none ran (the spine's ``untested``; one system has no pair)."""
    if len(ctx.spine.systems) < 2 or not ctx.spine.tests and not ctx.spine.best_set:
        untested = "not run: one system (no pair to test)" if len(ctx.spine.systems) < 2 else ctx.spine.untested
        return None if untested is None else Section("significance", SECTION_TITLES["significance"], (
            Paragraph(f"Paired tests {untested}."),))
    cite = "Holm 1979" if ctx.spine.correction == "holm" else "Benjamini & Hochberg 1995"
    adjusted = (f" p-values are adjusted over each metric's family ({correction_name(ctx.spine.correction)}; "
                f"{cite}); bold means a best set and nothing else.")
    return Section("significance", SECTION_TITLES["significance"], (
        Paragraph((method or tests_text(ctx)) + adjusted), *(Paragraph(note) for note in notes),
        *best_set_blocks(ctx), *pair_tables(ctx, methods)))


def recommendation_section(ctx: Context, metrics: Iterable[tuple[str, str, str, Iterable[tuple[str, str]]]],
                           avoid: Iterable[tuple[str, str]] = (), blocks: Sequence[Any] = (),
                           title: str = SECTION_TITLES["recommendation"], avoid_title: str = "Avoid here",
                           for_summary: bool = True, lead: Sequence[Any] = ()) -> Section:
    """The task's ``lead`` blocks, the recommended metrics, each (id, role, LaTeX formula, facts: why, the passages
    it follows) with its formula typeset, the metrics to ``avoid`` (id, why) and the task's further ``blocks``."""
    shown: list[Any] = [*lead, *(
        Definition(f"recommended-{m}", f"{ctx.name(m)} ({role})",
                   Formula(ctx.name(m), latex, ctx.formula_svg(latex) if ctx.figures and latex else ""),
                   Facts(tuple(facts))) for m, role, latex, facts in metrics)]
    avoided = tuple(f"{ctx.name(m)}: {why}" for m, why in avoid)
    if avoided:
        shown.append(Bullets(avoided, avoid_title))
    return Section("recommendation", title, (*shown, *blocks), for_summary=for_summary)


def catalogue_facts(record: Any, metric_id: str | None = None) -> list[tuple[str, str]]:
    """The facts of a catalogue metric's definition (``record``: its :class:`~auditor.metrics.registry.Metric`):
    id, range, value under chance, when undefined, its 0/0 parts, references and note; the same whether the matrix
    counts items (classification) or a task's own units (tagging's tokens)."""
    facts = [("id", metric_id or record.id), ("range", record.range_label)]
    if record.chance:
        facts.append(("under chance", record.chance))
    if record.undefined_when:
        facts.append(("undefined when", record.undefined_when))
    if record.convention and record.uses:
        facts.append(("0/0 parts", record.convention))
    if record.references:
        facts.append(("references", "; ".join(record.references)))
    if record.description:
        facts.append(("note", record.description))
    return facts


def definitions_section(ctx: Context, note: str,
                        definitions: Iterable[tuple[str, str, str, Sequence[tuple[str, str]]]]) -> Section:
    """Appendix: ``note`` (the notation) and, per metric, (id, name, LaTeX formula, facts)."""
    return Section("definitions", SECTION_TITLES["definitions"], (Paragraph(note), *(
        Definition(metric_id, name, Formula(name, latex, ctx.formula_svg(latex) if ctx.figures else ""),
                   Facts(tuple(facts))) for metric_id, name, latex, facts in definitions)))


def ledger_section(entries: Sequence[Any]) -> Section | None:
    """The one undefined-value ledger: every entry the sections marked, in one numbering."""
    if not entries:
        return None
    rows = tuple(Row(str(e.number), (Cell(e.system), Cell(e.state), Cell(e.where), Cell(e.text)), f"ledger-{e.number}")
                 for e in entries)
    return Section("ledger", SECTION_TITLES["ledger"], (
        Paragraph("Undefined values (0/0) are shown as “—”; values computed with a convention for a 0/0 part carry "
                  "a superscript number. Each number points to an entry here."),
        Table("table-ledger", "Undefined-value ledger.", "#",
              (Column("System"), Column("State"), Column("Where"), Column("What and which convention")),
              rows, "small", for_paper=True),
    ))


def reproducibility_section(ctx: Context) -> Section:
    """The signature, the task's own facts (``ctx.extra["reproducibility"]``) and every input's SHA-256 (of the
    file as stored)."""
    blocks: list[Any] = [
        Paragraph("Every number in this report is reproducible from the inputs whose SHA-256 hashes are listed below "
                  "and the options in the signature (auditor version, bootstrap resamples, seed, interval method, "
                  "correction)."),
        Facts((("signature", ctx.spine.signature), ("schema", SCHEMA), ("task", ctx.spine.task),
               *ctx.extra.get("reproducibility", ()))),
    ]
    sources = ctx.spine.sources
    if sources:
        rows = tuple(Row(name, (Cell(source.name), Cell(source.sha256 or ""), Cell(source.n_items, "count")))
                     for name, source in sources.items())
        blocks.append(Table("table-sources", "Inputs and their SHA-256 hashes.", "Input",
                            (Column("Path"), Column("SHA-256"), Column(_unit_column(ctx.spine.unit))), rows, "tiny"))
    return Section("reproducibility", SECTION_TITLES["reproducibility"], tuple(blocks))


def _unit_column(unit: str) -> str:
    return {"item": "Items", "sentence": "Tokens", "segment": "Segments"}.get(unit, "Items")


def section_texts(sections: Sequence[Section]) -> list[str]:
    """Every sentence a reader sees in ``sections``: captions, paragraphs, facts, bullets, cells."""
    texts = []
    for section in sections:
        for block in section.blocks:
            texts += [str(getattr(block, name, "")) for name in ("caption", "text", "title", "name")]
            texts += [f"{a} {b}" for a, b in getattr(block, "pairs", ())]
            texts += [f"{a} {b}" for a, b in getattr(getattr(block, "facts", None), "pairs", ())]
            texts += list(getattr(block, "items", ()))
            texts += [str(c.value) for row in getattr(block, "rows", ()) for c in row.cells if c.kind == "text"]
    return texts


def references_section(sections: Sequence[Section]) -> Section | None:
    """Full entries (``auditor/references.bib``) of every work the sections cite by author and year."""
    works = cited(section_texts(sections))
    if not works:
        return None
    return Section("references", SECTION_TITLES["references"], (
        Paragraph("Works cited in this report, cited by author, year and section."),
        Bullets(tuple(entry_text(work) for work in works)),
    ), for_summary=True)


def assemble(ctx: Context, sections: Sequence[Section], title: str, subtitle: str, **report: Any) -> Report:
    """The report: ``sections`` then the ledger, reproducibility and references; appendices lettered A, B, …"""
    entries = ctx.ledger.freeze()
    closing = [ledger_section(entries), reproducibility_section(ctx)]
    sections = [*sections, *(s for s in closing if s is not None)]
    cited_works = references_section(sections)
    if cited_works is not None:
        sections.append(cited_works)
    letters = iter("ABCDEFGHIJ")
    sections = [dataclasses.replace(x, title=f"Appendix {next(letters)}: {x.title}") if x.id in APPENDICES else x
                for x in sections]
    return Report(title, subtitle, ctx.spine.signature, SCALE_NOTE, tuple(sections), entries, **report)


def task_report(audit: Any, spine: Spine, own: Sequence[Placed], title: str, subtitle: str, figures: bool = True,
                extra: Mapping[str, Any] | None = None) -> Report:
    """The report of a task kind's ``audit``: the skeleton's sections that serve ``spine.task`` (registered with
    :func:`~auditor.report.sections.section`) and the task's ``own`` (place, builder) pairs, in place order."""
    from auditor.report import charts
    from auditor.report.sections import builders

    def build() -> Report:
        ctx = Context(audit, spine.names, Ledger(), figures, charts, charts.formula_svg, dict(extra or {}), spine)
        sections = [s for builder in builders(own, task=spine.task) if (s := builder(ctx)) is not None]
        return assemble(ctx, sections, title, subtitle)

    return charts.batched(build)  # every chart converted at once, in one child process
