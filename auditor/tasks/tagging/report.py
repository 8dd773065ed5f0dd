"""The tagging audit's own report sections (the skeleton, :mod:`auditor.report.skeleton`, writes the summary's
verdict and leaderboard, the rankings, the significance tables, the ledger, reproducibility and references): data
(types and chunks), span figures, errors and partial-match views, span rules, token metrics, definitions."""
from __future__ import annotations

from typing import Any

from auditor.analyses.recommend import rule_lines
from auditor.metrics.registry import REGISTRY
from auditor.report import skeleton
from auditor.report.context import Context
from auditor.report.model import Bullets, Cell, Column, Paragraph, Report, Row, Section, Table
from auditor.report.spine import MetricName, Spine
from auditor.tasks.tagging.counting import ERRORS
from auditor.tasks.tagging.names import FORMULAS, ILL_FORMED_SHOWN, NAMES, PER_TYPE_ZERO, SHORT, UNDEFINED
from auditor.tasks.tagging.profile import data_profile
from auditor.tasks.tagging.recommend import RULES

HEADLINE = ("span_micro_f1", "span_macro_f1", "span_weighted_f1", "span_partial_f1", "accuracy", "type_macro_f1")
TOKEN_SHOWN = ("accuracy", "macro_f1", "weighted_f1", "macro_recall", "kappa", "mcc", "informedness", "nit")
#: Where each span figure is defined (cited by author and year: References has the entries).
SOURCES = {"span_exact_f1": "Segura-Bedmar et al. 2013 (exact view)", "span_overlap_f1":
           "Segura-Bedmar et al. 2013 (type-overlap view)", "span_partial_f1": "Segura-Bedmar et al. 2013 (partial "
           "view)"}
#: The data section's columns of each chunk type before the systems' shares: (head, tagging.data key, cell kind).
COLUMNS = (("Gold chunks", "chunks", "count"), ("Share", "share", "share"), ("Mean length", "mean_length", "number"),
           ("Longest", "max_length", "count"))
CHUNKS = ("Tjong Kim Sang & Buchholz 2000 (the conlleval script's chunks); Tjong Kim Sang & De Meulder 2003 "
          "(exact-match span F1)")
#: What C counts when a classification metric is read over tokens (the definitions' notation, said once).
OVER_TOKENS = ("Token metrics: the classification catalogue's formulas with C_ij the number of tokens of gold tag i "
               "tagged j, over full tags (B-PER ≠ I-PER, as conlleval's accuracy); their “type” forms count over "
               "entity types with the prefixes removed (O its own class). An item of the catalogue's notes is a "
               "token here. N tokens, k tags, p_i gold tag i's share of the tokens, b_j tag j's share of the "
               "predictions, R_i = C_ii / Σ_j C_ij.")


def _name(metric: str) -> str:
    if metric in NAMES:
        return NAMES[metric]
    base = REGISTRY.metrics[metric.removeprefix("type_")]
    return f"{base.name}, tokens over {'entity types' if metric.startswith('type_') else 'full tags'}"


def _short(metric: str) -> str:
    if metric in SHORT:
        return SHORT[metric]
    base = REGISTRY.metrics[metric.removeprefix("type_")].label
    return ("type " if metric.startswith("type_") else "") + base


def summary_section(ctx: Context) -> Section:
    audit = ctx.audit
    data = (f"{audit.aligned.n_tokens:,} tokens in {audit.aligned.n_sentences:,} sentences; "
            f"{len(audit.codes.types)} entity types")
    if audit.scheme is None:
        scheme = ("no tag has a prefix (B-, I-, ...): the tags are plain labels (e.g. parts of speech), so there are "
                  "no spans; token metrics only")
    else:
        how = "detected from the gold tags: " + audit.scheme_reason if audit.scheme_detected else "given with --scheme"
        rule = ("conlleval's rules (a chunk opens wherever the Perl script opens one, e.g. I-X after O)"
                if audit.rule == "conlleval" else
                "seqeval's strict mode (only chunks well-formed in the scheme count)")
        scheme = (f"{audit.scheme} ({how}). Chunks are read by {rule}. Bootstrap intervals and paired tests "
                  "resample sentences, never tokens")
    caption = (f"Headline figures (×100) with {ctx.level} bootstrap intervals over sentences." if audit.statistics.B
               else "Headline figures (×100); no intervals (--bootstrap 0).")
    return skeleton.summary_section(ctx, data, HEADLINE, caption, facts=[("Scheme", scheme)], spell_out=True)


def data_section(ctx: Context) -> Section | None:
    audit = ctx.audit
    if audit.spans is None:
        return None
    data = data_profile(audit)
    types, per_type = list(data["types"]), data["types"]
    blocks: list[Any] = [Paragraph(
        "Type prevalence is the share of gold chunks of each type; a system's share is the share of its predicted "
        "chunks of that type (its bias). Chunk lengths in tokens."), *skeleton.shares_blocks(
        ctx, audit.systems, types, "Type", [(Column(title), [Cell(per_type[k][key], kind) for k in types])
                                            for title, key, kind in COLUMNS],
        [per_type[k]["share"] for k in types], {s: [data["systems"][s][k]["share"] for k in types]
                                                 for s in audit.systems},
        ("table-type-prevalence", "Gold chunks per type, their share and length, and each system's share of "
                                  "predicted chunks (%)."),
        ("fig-type-bias", "Type prevalence among gold chunks (top) and each system's share of predicted chunks minus "
                          "it, in percentage points."))]
    bins = data["length_bins"]
    length_rows = tuple(Row(kind, tuple(Cell(n, "count") for n in data["types"][kind]["length_histogram"]))
                        for kind in types) + (Row("all", tuple(Cell(n, "count") for n in data["length_histogram"])),)
    blocks.append(Table("table-span-length", "Gold chunks by length (tokens).", "Type",
                        tuple(Column(b) for b in bins), length_rows))
    return Section("data", "Data: types and chunks", tuple(blocks), for_summary=True)


def spans_section(ctx: Context) -> Section | None:
    audit = ctx.audit
    if audit.spans is None:
        return None
    metrics = ("span_micro_precision", "span_micro_recall", "span_micro_f1", "span_macro_precision",
               "span_macro_recall", "span_macro_f1", "span_weighted_f1")
    blocks: list[Any] = [Paragraph(
        "A chunk counts when its boundaries and type equal a gold chunk's (conlleval's and seqeval's count). Macro "
        "averages run over the types of gold and predicted chunks (seqeval's label set); a type's 0/0 counts as 0 "
        "there. Weighted averages weight each type by its gold chunks.")]
    if ctx.figures:
        blocks.append(skeleton.metric_figure(ctx, "fig-span-f1", f"Span F1 (×100) with {ctx.level} intervals over "
                                             "sentences.", ("span_micro_f1", "span_macro_f1", "span_partial_f1"),
                                             audit.systems))
    blocks.append(skeleton.score_table(ctx, "table-metrics", "Span precision, recall and F1 (×100).", metrics,
                                       for_paper=True))
    types = audit.codes.types
    per_type = {name: audit.span_tables(s)["per_type"] for s, name in enumerate(audit.systems)}
    support = [per_type[audit.systems[0]][t]["support"] if audit.systems else None for t in types]
    blocks.append(skeleton.category_table(
        "table-type-f1", "Span F1 per type and system (×100; — = 0/0); Support: the type's gold chunks.", "Type",
        types, support, audit.systems, lambda s, t: Cell(per_type[s][types[t]]["f1"], "score")))
    return Section("spans", "Span figures", tuple(blocks))


def errors_section(ctx: Context) -> Section | None:
    audit = ctx.audit
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
              tuple(Row(name, tuple(cells)) for name, cells in view_rows), "small"),
    )
    return Section("errors", "Errors and partial matches", blocks)


def rules_section(ctx: Context) -> Section | None:
    audit = ctx.audit
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
            shown = "; ".join(f"sentence {e['sentence']} (gold line {e['gold_line']}), "
                              f"tokens {e['tokens'][0]}–{e['tokens'][1]}: {e['tags']}" for e in examples)
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


def tokens_section(ctx: Context) -> Section:
    return Section("tokens", "Token metrics", (
        Paragraph("The classification catalogue over tokens: once over full tags (B-PER ≠ I-PER, as conlleval's "
                  "accuracy) and once over entity types with the prefixes removed (O its own class). Intervals "
                  "resample sentences."),
        skeleton.score_table(ctx, "table-token-metrics", "Token metrics over full tags (×100).", TOKEN_SHOWN),
        skeleton.score_table(ctx, "table-type-metrics", "Token metrics over types (×100).",
                             tuple("type_" + m for m in TOKEN_SHOWN)),
    ))


def definitions_section(ctx: Context) -> Section:
    def facts(metric: str) -> list[tuple[str, str]]:
        pairs = [("id", metric), ("undefined when", f"{UNDEFINED[metric]} (shown as —)")]
        if "_macro_" in metric or "_weighted_" in metric:
            pairs.append(("a type's 0/0", PER_TYPE_ZERO))
        return pairs + [("source", SOURCES.get(metric, CHUNKS))]

    return skeleton.definitions_section(ctx, (
        "Notation: per type t, m_t chunks matched exactly (boundaries and type), p_t predicted, g_t gold; T types of "
        f"gold and predicted chunks. COR, PAR, ACT, POS as in the errors section. {OVER_TOKENS}"),
        (*((m, NAMES[m], latex, facts(m)) for m, latex in FORMULAS.items()),
         *((m, f"{REGISTRY.metrics[m].name}, over tokens", REGISTRY.metrics[m].formula,
            skeleton.catalogue_facts(REGISTRY.metrics[m], f"{m}; over types: type_{m}")) for m in TOKEN_SHOWN)))



#: The tagging report's own sections and their places in the skeleton.
SECTIONS = ((10, summary_section), (20, data_section), (50, spans_section), (60, errors_section),
            (70, rules_section), (80, tokens_section), (120, skeleton.significance_section),
            (140, definitions_section))


def build_report(audit: Any, figures: bool = True) -> Report:
    """The report model of a :class:`~auditor.tasks.tagging.result.TaggingAudit`."""
    subtitle = (f"{len(audit.systems)} taggers scored against {audit.sources['gold'].path} "
                f"({audit.aligned.n_tokens:,} tokens, {audit.aligned.n_sentences:,} sentences)")
    names = {m: MetricName(m, _name(m), _short(m)) for m in audit.observed}
    rules = rule_lines(RULES) if audit.recommendation is not None else []
    return skeleton.task_report(audit, Spine.of_units(audit, names), SECTIONS, "Tagging audit", subtitle, figures,
                                {"rules": rules})
