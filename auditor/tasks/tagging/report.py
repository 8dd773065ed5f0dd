"""The tagging audit's report model (:mod:`auditor.report.model`): summary, data, span figures,
partial-match views and errors, span rules, token metrics, rank disagreement, significance,
definitions, reproducibility. Numbers stay numbers (cells with kinds); renderers format them."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from auditor.report.context import Ledger
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
from auditor.report.tables import BOLD_LEGEND, _density, _fit_systems, with_best_sets
from auditor.results import SCHEMA
from auditor.tasks.tagging.counting import ERRORS
from auditor.tasks.tagging.measures import FORMULAS, NAMES, SHORT
from auditor.tasks.tagging.names import ILL_FORMED_SHOWN, PER_TYPE_ZERO, UNDEFINED

HEADLINE = ("span_micro_f1", "span_macro_f1", "span_weighted_f1", "span_partial_f1", "accuracy", "type_macro_f1")
TOKEN_SHOWN = ("accuracy", "macro_f1", "weighted_f1", "macro_recall", "kappa", "mcc", "informedness", "nit")
REFERENCES = (
    "Tjong Kim Sang, E. F. & Buchholz, S. (2000). Introduction to the CoNLL-2000 Shared Task: Chunking "
    "(the conlleval script's chunk rules).",
    "Tjong Kim Sang, E. F. & De Meulder, F. (2003). Introduction to the CoNLL-2003 Shared Task: "
    "Language-Independent Named Entity Recognition.",
    "Segura-Bedmar, I., Martínez, P. & Herrero-Zazo, M. (2013). SemEval-2013 Task 9: Extraction of Drug-Drug "
    "Interactions from Biomedical Texts (exact, partial and type-overlap matching).",
    "Mayhew, S. et al. (2024). Universal NER: A Gold-Standard Multilingual Named Entity Recognition Benchmark.",
    "Koehn, P. (2004). Statistical Significance Tests for Machine Translation Evaluation (paired bootstrap).",
    "Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses (approximate randomisation).",
    "Holm, S. (1979). A Simple Sequentially Rejective Multiple Test Procedure.",
)


def _name(metric: str) -> str:
    if metric in NAMES:
        return NAMES[metric]
    from auditor.metrics.registry import REGISTRY

    base = REGISTRY.metrics[metric.removeprefix("type_")]
    return f"{base.name} (tokens, {'types' if metric.startswith('type_') else 'tags'})"


def _short(metric: str) -> str:
    if metric in SHORT:
        return SHORT[metric]
    from auditor.metrics.registry import REGISTRY

    base = REGISTRY.metrics[metric.removeprefix("type_")].label
    return ("type " if metric.startswith("type_") else "") + base


def _score_cell(audit: Any, ledger: Ledger, metric: str, s: int) -> Cell:
    entry = audit._metric_entry(metric, s)
    mark = None
    system = audit.systems[s]
    if entry["undefined"]:
        mark = ledger.mark(system, "undefined", _short(metric), entry["undefined"])
    elif entry["convention"]:
        mark = ledger.mark(system, "convention", _short(metric), entry["convention"])
    ci = entry["ci"] or (None, None)
    return Cell(entry["value"], "score", mark, False, ci[0], ci[1])


def _score_table(audit: Any, ledger: Ledger, table_id: str, caption: str, metrics: Sequence[str],
                 for_paper: bool = False, for_summary: bool = False) -> Table:
    metrics = [m for m in metrics if m in audit.observed]
    rows = [(name, [_score_cell(audit, ledger, m, s) for m in metrics]) for s, name in enumerate(audit.systems)]
    columns = tuple(Column(_short(m), _name(m)) for m in metrics)
    best = (audit.statistics.best_set or {}) if audit.statistics is not None else {}
    return Table(table_id, f"{caption} {BOLD_LEGEND}", "System", columns,
                 with_best_sets(rows, [best[m].systems if m in best else None for m in metrics]),
                 _density(len(columns) + 1), for_paper=for_paper, for_summary=for_summary)


def summary_section(audit: Any, ledger: Ledger) -> Section:
    blocks: list[Any] = [Paragraph(f"{audit.aligned.n_tokens:,} tokens in {audit.aligned.n_sentences:,} sentences; "
                                   f"{len(audit.codes.types)} entity types.")]
    if audit.scheme is None:
        blocks.append(Paragraph("No tag has a prefix (B-, I-, ...): the tags are plain labels (e.g. parts of speech), "
                                "so there are no spans; token metrics only."))
    else:
        how = "detected from the gold tags: " + audit.scheme_reason if audit.scheme_detected else "given with --scheme"
        rule = ("conlleval's rules (a chunk opens wherever the Perl script opens one, e.g. I-X after O)"
                if audit.rule == "conlleval" else
                "seqeval's strict mode (only chunks well-formed in the scheme count)")
        blocks.append(Paragraph(f"Scheme {audit.scheme} ({how}). Chunks are read by {rule}. Bootstrap intervals "
                                f"and paired tests resample sentences, never tokens."))
    if audit.statistics is not None and audit.statistics.resampling is not None:  # --clusters: what a resample draws
        from auditor.analyses.units import resampling_text

        blocks.append(Paragraph(resampling_text(audit.statistics.resampling)))
    if audit.verdict is not None and len(audit.systems) > 1:
        blocks.append(Paragraph(f"Winner depends on the metric? {audit.verdict.text}"))
    blocks.append(_score_table(audit, ledger, "summary-leaderboard",
                               "Headline figures (×100) with 95% bootstrap intervals over sentences.", HEADLINE,
                               for_paper=True, for_summary=True))
    return Section("summary", "Summary", tuple(blocks), for_summary=True)


def data_section(audit: Any, charts: Any, figures: bool) -> Section | None:
    if audit.spans is None:
        return None
    data = audit.to_json()["tagging"]["data"]
    systems = audit.systems
    types = list(data["types"])
    rows = []
    for kind in types:
        row = data["types"][kind]
        cells = [Cell(row["chunks"], "count"), Cell(row["share"], "share"), Cell(row["mean_length"], "number"),
                 Cell(row["max_length"], "count")]
        cells += [Cell(data["systems"][s][kind]["share"], "share") for s in systems]
        rows.append(Row(kind, tuple(cells)))
    columns = (Column("Gold chunks"), Column("Share"), Column("Mean length"), Column("Longest"),
               *(Column(s, rotate=len(systems) > 3) for s in systems))
    blocks: list[Any] = [Paragraph(
        "Type prevalence is the share of gold chunks of each type; a system's share is the share of its predicted "
        "chunks of that type (its bias). Chunk lengths in tokens.")]
    if figures and types:
        prevalence = [data["types"][k]["share"] or 0.0 for k in types]
        bias = {s: [data["systems"][s][k]["share"] or 0.0 for k in types] for s in systems}
        blocks.append(Figure("fig-type-bias", "Type prevalence among gold chunks (top) and each system's share of "
                             "predicted chunks minus it, in percentage points.",
                             charts.bias_chart(types, systems, prevalence, bias)))
    blocks.append(_fit_systems(Table("table-type-prevalence", "Gold chunks per type, their share and length, and "
                                     "each system's share of predicted chunks (%).", "Type", columns, tuple(rows),
                                     _density(len(columns) + 1)), systems))
    bins = data["length_bins"]
    length_rows = tuple(Row(kind, tuple(Cell(n, "count") for n in data["types"][kind]["length_histogram"]))
                        for kind in types) + (Row("all", tuple(Cell(n, "count") for n in data["length_histogram"])),)
    blocks.append(Table("table-span-length", "Gold chunks by length (tokens).", "Type",
                        tuple(Column(b) for b in bins), length_rows))
    return Section("data", "Data: types and chunks", tuple(blocks), for_summary=True)


def spans_section(audit: Any, ledger: Ledger, charts: Any, figures: bool) -> Section | None:
    if audit.spans is None:
        return None
    metrics = ("span_micro_precision", "span_micro_recall", "span_micro_f1", "span_macro_precision",
               "span_macro_recall", "span_macro_f1", "span_weighted_f1")
    blocks: list[Any] = [Paragraph(
        "A chunk counts when its boundaries and type equal a gold chunk's (conlleval's and seqeval's count). Macro "
        "averages run over the types of gold and predicted chunks (seqeval's label set); a type's 0/0 counts as 0 "
        "there. Weighted averages weight each type by its gold chunks.")]
    if figures:
        values = {s: {m: (audit._metric_entry(m, i)["value"], *(audit.interval(m, i) or (None, None)))
                      for m in ("span_micro_f1", "span_macro_f1", "span_partial_f1")}
                  for i, s in enumerate(audit.systems)}
        blocks.append(Figure("fig-span-f1", "Span F1 (×100) with 95% intervals over sentences.",
                             charts.metric_chart(audit.systems, ["span_micro_f1", "span_macro_f1", "span_partial_f1"],
                                                 ["micro F1", "macro F1", "partial F1"], values)))
    blocks.append(_score_table(audit, ledger, "table-metrics", "Span precision, recall and F1 (×100).", metrics,
                               for_paper=True))
    types = audit.codes.types
    rows = []
    for s, name in enumerate(audit.systems):
        per_type = audit.span_tables(s)["per_type"]
        rows.append((name, [Cell(per_type[t]["f1"], "score") for t in types]))
    support = audit.span_tables(0)["per_type"] if audit.systems else {}
    columns = tuple(Column(f"{t} ({support[t]['support']})" if t in support else t) for t in types)
    blocks.append(_fit_systems(Table("table-type-f1", "Span F1 per type (×100; gold chunks in brackets; — = 0/0).",
                                     "System", columns, with_best_sets(rows, [None] * len(columns)),
                                     _density(len(columns) + 1)), audit.systems))
    return Section("spans", "Span figures", tuple(blocks))


def errors_section(audit: Any) -> Section | None:
    if audit.spans is None:
        return None
    rows = []
    for s, name in enumerate(audit.systems):
        errors = audit.span_tables(s)["errors"]
        rows.append(Row(name, tuple(Cell(errors[e], "count") for e in ERRORS)))
    labels = ("Correct", "Wrong type", "Wrong boundary", "Wrong both", "Missed", "Spurious")
    view_rows = []
    for s, name in enumerate(audit.systems):
        views = audit.span_tables(s)["views"]
        view_rows.append((name, [Cell(views[v][part], "score") for v in ("strict", "exact", "overlap", "partial")
                                 for part in ("precision", "recall", "f1")]))
    view_columns = tuple(Column(f"{v} {p}", rotate=True) for v in ("strict", "exact", "overlap", "partial")
                         for p in ("P", "R", "F1"))
    blocks = (
        Paragraph("The predicted chunks are read left to right and each takes at most one gold chunk it overlaps "
                  "that no earlier one took (the first such), so every gold chunk counts once. A predicted chunk is "
                  "correct (boundaries and type), of the wrong type (same boundaries), of the wrong boundary "
                  "(overlap, same type), wrong in both, or spurious (took none); a gold chunk none took is missed "
                  "(SemEval-2013 Task 9.1, as nervaluate 1.2.1 counts it)."),
        Table("table-errors", "Error breakdown: predicted chunks by class, and the gold chunks missed.", "System",
              tuple(Column(label) for label in labels), tuple(rows)),
        Paragraph("Partial-match views (Segura-Bedmar et al. 2013; nervaluate's names in brackets): strict (strict) = "
                  "boundaries and type, the exact match of conlleval and seqeval on the chunks read by the span rule "
                  "(not seqeval's strict mode, which is a span rule); exact (exact) = boundaries, type ignored; "
                  "overlap (ent_type) = some overlap with the right type; partial (partial) = overlap, type ignored, "
                  "half credit for a partial match. COR = correct (strict); correct + wrong type (exact); correct + "
                  "wrong type + ½ (wrong boundary + wrong both) (partial: PAR = wrong boundary + wrong both). The "
                  "overlap view matches on its own: a predicted chunk takes, among the untaken gold chunks it "
                  "overlaps, the one of its type with the closest boundaries, else the first of another type "
                  "(incorrect); COR = the chunks that took one of their type. ACT = predicted chunks, POS = gold "
                  "chunks; P = COR / ACT, R = COR / POS, so strict P, R, F1 are the micro figures above. The views "
                  "are micro sums over all types: nervaluate also counts them per type but defines no macro average "
                  "over types, so none is shown."),
        Table("table-views", "SemEval-2013 views: precision, recall, F1 (×100).", "System", view_columns,
              with_best_sets(view_rows, [None] * len(view_columns)), "small"),
    )
    return Section("errors", "Errors and partial matches", blocks)


def rules_section(audit: Any) -> Section | None:
    if audit.spans is None:
        return None
    other = "strict" if audit.rule == "conlleval" else "conlleval"
    verb = "repaired (counted as conlleval opens them)" if audit.rule == "conlleval" else "dropped"
    rows = [Row("gold", (Cell(audit.spans.gold_ill_formed, "count"), Cell(None), Cell(None)))]
    for s, name in enumerate(audit.systems):
        table = audit.span_tables(s)
        rows.append(Row(name, (Cell(table["ill_formed"], "count"), Cell(table["micro"]["f1"], "score"),
                               Cell(table.get("other_rule_micro_f1"), "score"))))
    named = []
    for name, examples, total in [("gold", audit.ill_formed_examples(audit.spans.gold_ill, audit.aligned.gold),
                                   audit.spans.gold_ill_formed)] + [
            (name, audit.span_tables(s)["ill_formed_examples"], audit.spans.per_system[s].ill_formed)
            for s, name in enumerate(audit.systems)]:
        if examples:
            shown = "; ".join(f"sentence {e['sentence']} (gold line {e['gold_line']}), tokens {e['tokens'][0]}–{e['tokens'][1]}: "
                              f"{e['tags']}" for e in examples)
            more = f" (and {total - len(examples)} more)" if total > len(examples) else ""
            named.append(f"{name}: {shown}{more}")
    return Section("span-rules", "Span rules: conlleval against strict", (
        Paragraph(f"Chunks that conlleval's rules open but that are not well-formed in {audit.scheme} (e.g. I-X after "
                  f"O in IOB2) are {verb} under the rule used here ({audit.rule}). The last column is the micro F1 a "
                  f"reader gets with the other rule ({other}); '—' where the tags are outside the scheme, so that "
                  f"strict mode is undefined. A paper should say which rule its F1 used."),
        Table("table-rules", "Ill-formed chunks per file and span micro F1 under both rules (×100).", "File",
              (Column("Ill-formed chunks"), Column(f"micro F1 ({audit.rule})"), Column(f"micro F1 ({other})")),
              tuple(rows)),
        Bullets(tuple(named) or ("No file has a chunk the two rules see differently.",),
                f"Ill-formed chunks, {verb} (the first {ILL_FORMED_SHOWN} of each file; audit.json lists the same)"),
    ))


def tokens_section(audit: Any, ledger: Ledger) -> Section:
    return Section("tokens", "Token metrics", (
        Paragraph("The classification catalogue over tokens: once over full tags (B-PER ≠ I-PER, as conlleval's "
                  "accuracy) and once over entity types with the prefixes removed (O its own class). Intervals "
                  "resample sentences."),
        _score_table(audit, ledger, "table-token-metrics", "Token metrics over full tags (×100).", TOKEN_SHOWN),
        _score_table(audit, ledger, "table-type-metrics", "Token metrics over types (×100).",
                     tuple("type_" + m for m in TOKEN_SHOWN)),
    ))


def rank_section(audit: Any, charts: Any, figures: bool) -> Section | None:
    result = audit.ranking
    if result is None or len(audit.systems) < 2:
        return None
    rows = tuple(Row(name, tuple(Cell(result.rank(name, m), "rank") for m in result.metrics))
                 for name in result.systems)
    blocks: list[Any] = [
        Paragraph("Rank of every system (1 = best; ties share their ranks) under the span figures, the partial-match "
                  "F1s and the token metrics. Kendall's τ-b between every pair of metric rankings; the pairs of "
                  "systems whose order depends on the metric."),
        _fit_systems(Table("table-ranks", "Ranks under each metric.", "System",
                           tuple(Column(_short(m), _name(m), rotate=True) for m in result.metrics), rows,
                           _density(len(result.metrics) + 1), for_paper=True), audit.systems)]
    if figures:
        blocks.append(Figure("fig-tau", "Kendall τ-b between the rankings of every pair of metrics.",
                             charts.tau_heatmap(result.agreement("kendall"), _short)))
    flips = []
    for flip in result.flips[:30]:
        note = ""
        if flip.significant is not None:
            tested = [m for m, v in flip.significant.items() if v]
            note = f" (significant under {', '.join(map(_short, tested))})" if tested else " (no difference significant)"
        flips.append(f"{flip.a} ahead under {', '.join(map(_short, flip.a_better_under))}; {flip.b} ahead under "
                     f"{', '.join(map(_short, flip.b_better_under))}{note}")
    if len(result.flips) > 30:
        flips.append(f"… and {len(result.flips) - 30} more pairs (audit.json lists them all)")
    blocks.append(Bullets(tuple(flips) or ("No pair of systems changes order between these metrics.",),
                          "Pairs whose order depends on the metric"))
    return Section("rankings", "Rank disagreement", tuple(blocks))


def significance_section(audit: Any) -> Section | None:
    stats = audit.statistics
    if stats is None or not stats.tests:
        return None
    rows = tuple(Row(f"{t.a} − {t.b}", (Cell(_short(t.metric)), Cell(t.difference, "score"), Cell(t.p, "p"),
                                         Cell(t.p_adjusted, "p")))
                 for t in stats.tests)
    best = tuple(f"{_short(m)}: {', '.join(b.systems)}" for m, b in (stats.best_set or {}).items())
    rounds = next((t.details["rounds"] for t in stats.tests), 0)
    return Section("significance", "Significance", (
        Paragraph(f"Approximate randomisation over sentences ({rounds} rounds; each sentence's statistics of the two "
                  f"systems swapped with probability ½; Noreen 1989): p = (1 + #{{|Δ*| ≥ |Δ|}}) / (R + 1), two-sided; "
                  f"adjusted over the pairs of each metric "
                  f"({'Holm' if stats.correction == 'holm' else 'Benjamini–Hochberg'}); the unadjusted and adjusted p "
                  f"are both shown. The best sets, and so the bold, come from these tests."),
        Bullets(best, f"Systems not significantly worse than the top one (adjusted p ≥ {stats.alpha:g})"),
        Table("table-tests", "Pairwise tests: difference (points ×100), p and adjusted p.", "Pair",
              (Column("Metric"), Column("Δ"), Column("p unadj."), Column("p adj.")), rows, "small"),
    ))


def definitions_section(audit: Any, formula_svg: Callable[[str], str], figures: bool) -> Section:
    blocks: list[Any] = [Paragraph(
        "Notation: per type t, m_t chunks matched exactly (boundaries and type), p_t predicted, g_t gold; T types of "
        "gold and predicted chunks. COR, PAR, ACT, POS as in the errors section.")]
    for metric, latex in FORMULAS.items():
        blocks.append(Definition(metric, NAMES[metric], Formula(NAMES[metric], latex,
                                                                formula_svg(latex) if figures else ""),
                                 Facts((("id", metric), ("undefined when", f"{UNDEFINED[metric]} (shown as —)"),
                                        *((("a type's 0/0", PER_TYPE_ZERO),) if "_macro_" in metric
                                          or "_weighted_" in metric else ())))))
    blocks.append(Bullets(REFERENCES, "References"))
    return Section("definitions", "Appendix A: definitions", tuple(blocks))


def reproducibility_section(audit: Any) -> Section:
    rows = tuple(Row(name, (Cell(source.path), Cell(source.sha256))) for name, source in audit.sources.items())
    return Section("reproducibility", "Appendix B: reproducibility", (
        Paragraph("Every number here is reproducible from the inputs and the options in the signature (auditor "
                  "version, gold hash, scheme, span rule, bootstrap resamples, resampling unit, seed)."),
        Facts((("signature", str(audit.signature)), ("schema", SCHEMA), ("task", "tagging"))),
        Table("table-sources", "Inputs and the SHA-256 of each file as stored.", "Input",
              (Column("Path"), Column("SHA-256")), rows, "tiny"),
    ))


def build_report(audit: Any, figures: bool = True) -> Report:
    """The report model of a :class:`~auditor.tasks.tagging.result.TaggingAudit`."""
    from auditor.report import charts

    ledger = Ledger()
    sections = [summary_section(audit, ledger), data_section(audit, charts, figures),
                spans_section(audit, ledger, charts, figures), errors_section(audit), rules_section(audit),
                tokens_section(audit, ledger), rank_section(audit, charts, figures), significance_section(audit),
                definitions_section(audit, charts.formula_svg, figures)]
    sections = [s for s in sections if s is not None]
    entries = ledger.freeze()
    if entries:
        rows = tuple(Row(str(e.number), (Cell(e.system), Cell(e.state), Cell(e.where), Cell(e.text)),
                         f"ledger-{e.number}") for e in entries)
        sections.append(Section("ledger", "Undefined-value ledger", (
            Paragraph("Undefined values (0/0) are shown as “—”; values computed with a convention for a 0/0 part "
                      "carry a superscript number pointing here."),
            Table("table-ledger", "Undefined-value ledger.", "#", (Column("System"), Column("State"),
                                                                    Column("Where"), Column("What")), rows, "small"))))
    sections.append(reproducibility_section(audit))
    gold = audit.sources["gold"].path
    subtitle = f"{len(audit.systems)} taggers scored against {gold} ({audit.aligned.n_tokens:,} tokens, " \
               f"{audit.aligned.n_sentences:,} sentences)"
    return Report("Tagging audit", subtitle, str(audit.signature), SCALE_NOTE, tuple(sections), entries)
