"""The multi-label audit's report model (:mod:`auditor.report.model`): summary with the verdict, data (cardinality,
empty sets, label prevalence against each system's predicted rate), every metric with its interval, per-label F1,
rank disagreement, significance, definitions, the undefined-value ledger, reproducibility. Bold = the metric's
best set (the top system and those its paired test does not separate from it); without tests, no bold."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from auditor.options import correction_name
from auditor.report.model import (
    SCALE_NOTE,
    Bullets,
    Cell,
    Column,
    Definition,
    Facts,
    Figure,
    Formula,
    LedgerEntry,
    Paragraph,
    Report,
    Row,
    Section,
    Table,
)
from auditor.report.tables import _density, _fit_systems
from auditor.tasks.multilabel.measures import BY_ID, CONVENTION, KEY_METRICS, METRICS, SHORT


class Ledger:
    """Numbered undefined-value and convention entries, one per (system, where, text)."""

    def __init__(self) -> None:
        self.entries: list[LedgerEntry] = []

    def mark(self, system: str, state: str, where: str, text: str) -> int:
        for entry in self.entries:
            if (entry.system, entry.state, entry.where, entry.text) == (system, state, where, text):
                return entry.number
        self.entries.append(LedgerEntry(len(self.entries) + 1, system, state, where, text))
        return len(self.entries)


def _best(audit: Any, metric: str) -> set[str]:
    """The metric's best set (empty without tests: an untested column has no bold)."""
    stats = audit.statistics
    if stats is None or not stats.best_set or metric not in stats.best_set:
        return set()
    return set(stats.best_set[metric].systems)


def score_cell(audit: Any, ledger: Ledger, entries: dict[str, Any], metric: str, s: int) -> Cell:
    entry = entries[metric]
    system = audit.systems[s]
    mark = None
    if entry["undefined"]:
        mark = ledger.mark(system, "undefined", SHORT[metric], f"{entry['undefined']}; {entry['convention']}")
    elif entry["convention"]:
        mark = ledger.mark(system, "convention", SHORT[metric], entry["convention"])
    low, high = entry["ci"] or (None, None)
    return Cell(entry["value"], "score", mark, system in _best(audit, metric), low, high)


def metric_table(audit: Any, ledger: Ledger, table_id: str, caption: str, metrics: Sequence[str],
                 for_summary: bool = False) -> Table:
    """Systems (rows) × metrics (columns), ×100 with intervals; bold = best set."""
    entries = [audit._metric_entries(s) for s in range(len(audit.systems))]
    rows = tuple(Row(name, tuple(score_cell(audit, ledger, entries[s], m, s) for m in metrics))
                 for s, name in enumerate(audit.systems))
    columns = tuple(Column(SHORT[m], BY_ID[m].name) for m in metrics)
    return _fit_systems(Table(table_id, caption, "System", columns, rows, _density(len(columns) + 1),
                              for_paper=True, for_summary=for_summary), audit.systems)


def summary_section(audit: Any, ledger: Ledger) -> Section:
    profile = audit.profile()
    n, L = audit.aligned.n_items, len(audit.labels)
    level = " (after the label map: groups)" if audit.label_map is not None else ""
    blocks: list[Any] = [Paragraph(
        f"{n:,} items, {L} labels{level}; gold has {profile['cardinality']['gold']:.2f} labels per item and "
        f"{profile['empty']['gold']:,} empty sets. Every figure is scikit-learn's (label sets binarised over the "
        f"labels; a 0/0 counts 0, as zero_division=0 does, and is listed in the ledger).")]
    if audit.verdict is not None:
        blocks.append(Paragraph("Does the winner depend on the metric? " + audit.verdict.text))
    caption = "Key figures (×100) with 95% bootstrap intervals over items."
    caption += (" Bold: the metric's best set (exact McNemar for subset accuracy, approximate randomisation "
                "otherwise; Holm over the comparisons with the top system)." if audit.statistics is not None and
                audit.statistics.best_set else " No tests ran, so nothing is bold.")
    blocks.append(metric_table(audit, ledger, "summary-leaderboard", caption, KEY_METRICS, for_summary=True))
    return Section("summary", "Summary", tuple(blocks), for_summary=True)


def data_section(audit: Any, charts: Any, figures: bool) -> Section:
    profile = audit.profile()
    systems = audit.systems
    rows = [Row("gold", (Cell(profile["cardinality"]["gold"], "number"), Cell(profile["empty"]["gold"], "count"),
                         Cell(profile["distinct_sets"]["gold"], "count")))]
    rows += [Row(name, (Cell(profile["cardinality"][name], "number"), Cell(profile["empty"][name], "count"),
                        Cell(profile["distinct_sets"][name], "count"))) for name in systems]
    prevalence = tuple(Row(label, (Cell(shares["gold"], "share"), *(Cell(shares[name], "share") for name in systems)))
                       for label, shares in profile["prevalence"].items())
    blocks: list[Any] = [
        Paragraph("Label cardinality (mean set size), empty sets and distinct sets: a system that predicts larger "
                  "sets than gold trades precision for recall; an empty set scores 0 on every samples-averaged "
                  "figure of its item but costs Hamming loss only the item's gold labels."),
        Table("table-cardinality", "Set sizes.", "Labels of", (Column("labels / item"), Column("empty sets"),
                                                                Column("distinct sets")), tuple(rows), "normal"),
        _fit_systems(Table("table-prevalence", "Each label's share of items in gold and in each system's predictions.",
                           "Label", (Column("gold"), *(Column(name, rotate=True) for name in systems)), prevalence,
                           _density(len(systems) + 2)), systems)]
    if figures:
        labels = list(profile["prevalence"])
        gold = [profile["prevalence"][label]["gold"] for label in labels]
        predicted = {name: [profile["prevalence"][label][name] for label in labels] for name in systems}
        blocks.append(Figure("fig-prevalence", "Label prevalence in gold (bars) against each system's predicted "
                                               "rate.", charts.bias_chart(labels, list(systems), gold, predicted)))
    return Section("data", "Data: label sets, prevalence and predicted rates", tuple(blocks))


def chance_section(audit: Any) -> Section | None:
    """Each chance predictor's expected figure (exact, or ≈ the Monte Carlo mean) with its 95% Monte Carlo range."""
    if not audit.chance:
        return None
    rows = []
    for baseline in audit.chance:
        cells = []
        for metric in KEY_METRICS:
            value, exact = baseline.expected(metric)
            ranged = baseline.draws > 0
            cells.append(Cell(value, "score", low=baseline.low[metric] if ranged else None,
                              high=baseline.high[metric] if ranged else None, approximate=not exact))
        rows.append(Row(baseline.description, tuple(cells)))
    primary = audit.verdict.primary if audit.verdict is not None else "micro_f1"
    margins = audit.above_chance(primary)
    bullets = tuple(f"{name}: {100 * margin:+.1f} points" for name, margin in margins.items())
    return Section("chance", "Chance baselines", (
        Paragraph("What each figure gives predictors that know nothing about the items: the empty set and gold's "
                  "most frequent set (exact), each label drawn at its gold prevalence, and each system's own sets "
                  "shuffled over the items (its label counts kept). Exact expectations where the figure's "
                  "denominator is fixed by the predictor (≈: the mean of the Monte Carlo draws instead); below "
                  "each value, the 95% range of the draws at this test-set size."
                  + ("" if any(b.draws for b in audit.chance) else
                     " No draws were made (--bootstrap 0): only the exact expectations are shown, “—” where a figure "
                     "has none.")),
        Table("table-chance", "Chance baselines (×100).", "Baseline",
              tuple(Column(SHORT[m], BY_ID[m].name) for m in KEY_METRICS), tuple(rows), _density(len(KEY_METRICS) + 1)),
        Bullets(bullets, f"Margin (points ×100) over the strongest baseline under {SHORT[primary]}, the primary metric: the empty "
                f"and most frequent sets, the prevalence sampler and the system's own sets shuffled"),
    ))


def recommendation_section(audit: Any, formula_svg: Callable[[str], str], figures: bool) -> Section | None:
    """The recommended metrics with their formulas, reasons and the passages each rule follows; those to avoid."""
    found = audit.recommendation
    if found is None:
        return None
    blocks: list[Any] = []
    for entry in found.metrics:
        metric = BY_ID[entry.id]
        cited = "; ".join(f"{source['reference']['citation']}, {source['section']}" for source in entry.sources)
        blocks.append(Definition(f"recommended-{entry.id}", f"{metric.name} ({entry.role})",
                                 Formula(metric.name, metric.formula, formula_svg(metric.formula) if figures else ""),
                                 Facts(tuple(("why", reason) for reason in entry.reasons) + (("follows", cited),))))
    if found.avoid:
        blocks.append(Bullets(tuple(f"{BY_ID[e.id].name}: {'; '.join(e.reasons)}" for e in found.avoid),
                              "Avoid here"))
    quotes = {source["reference"]["citation"]: source for entry in (*found.metrics, *found.avoid)
              for source in entry.sources}
    blocks.append(Bullets(tuple(f"{citation} ({source['section']}): “{source['quote']}”"
                                for citation, source in quotes.items()), "Passages the rules follow"))
    return Section("recommendation", "Recommended metrics", tuple(blocks))


def properties_section(audit: Any) -> Section:
    """What each metric rewards, probed on witness sets (:mod:`auditor.tasks.multilabel.properties`)."""
    from auditor.tasks.multilabel.properties import GOLD, LABELS, MEANINGS, probes

    found = probes()
    rows = tuple(Row(SHORT[metric], tuple(
        Cell(f"{'yes' if probe.answer else 'no'} ({100 * probe.values[0]:.1f} vs {100 * probe.values[1]:.1f})")
        for probe in by_probe.values())) for metric, by_probe in found.items())
    gold = "; ".join("{" + ",".join(LABELS[i] for i in row.nonzero()[0]) + "}" for row in GOLD)
    return Section("properties", "What each metric rewards", (
        Paragraph(f"Each metric scored on six witness items, gold sets {gold} (r is the rare label), with the same "
                  "functions as the audit; each cell gives the answer and the two values (×100) it compares."),
        Facts(tuple((title, f"{meaning} (witness: {witness})") for title, meaning, witness in MEANINGS.values())),
        Table("table-properties", "Properties probed with witnesses.", "Metric",
              tuple(Column(title) for title, _, _ in MEANINGS.values()), rows, "small"),
    ))


def thresholds_section(audit: Any) -> Section | None:
    """Per score file: each metric's preferred threshold (one for all labels), its value there and at the one used."""
    if not audit.threshold_curves:
        return None
    blocks: list[Any] = [Paragraph(
        "With per-label scores, a label is predicted when its score reaches the threshold. Each metric was computed at "
        "every threshold from 0.05 to 0.95 (step 0.05, the same for all labels); the threshold a metric prefers is "
        "where its value is best. Metrics that prefer different thresholds reward different set sizes.")]
    for name, curve in audit.threshold_curves.items():
        used = curve["used"]
        at = curve["grid"].index(used) if used in curve["grid"] else None
        rows = tuple(Row(SHORT[m], (Cell(f"{best['threshold']:.2f}"), Cell(best["value"], "score"),
                                    Cell(None if at is None else curve["values"][m][at], "score")))
                     for m, best in curve["best"].items())
        blocks.append(Table(f"table-thresholds-{name}", f"{name}: preferred threshold per metric (×100 values).",
                            "Metric", (Column("preferred t"), Column("value there"), Column(f"at t = {used}")), rows,
                            "small"))
    return Section("thresholds", "Thresholds", tuple(blocks))


def metrics_section(audit: Any, ledger: Ledger) -> Section:
    groups = (("Example-based (per item, then averaged)", ("subset_accuracy", "jaccard_samples", "samples_precision",
                                                          "samples_recall", "samples_f1")),
              ("Label-based, micro (counts pooled over labels)", ("micro_precision", "micro_recall", "micro_f1",
                                                                  "jaccard_micro", "hamming_loss")),
              ("Label-based, macro and weighted (per label, then averaged)", ("macro_precision", "macro_recall",
                                                                              "macro_f1", "jaccard_macro",
                                                                              "weighted_f1")))
    blocks: list[Any] = [Paragraph("Every metric, ×100 with its 95% bootstrap interval over items; Hamming loss is "
                                   "lower-is-better. Zhang & Zhou (2014) group them as example-based and "
                                   "label-based.")]
    for index, (title, metrics) in enumerate(groups):
        blocks.append(metric_table(audit, ledger, f"table-metrics-{index + 1}", title + ".", metrics))
    return Section("metrics", "Metrics", tuple(blocks))


def per_label_section(audit: Any, ledger: Ledger) -> Section:
    systems = audit.systems
    tables = [audit.per_class(s) for s in range(len(systems))]
    rows = []
    for label in audit.labels:
        cells = [Cell(tables[0][label]["support"], "count")]
        for s, name in enumerate(systems):
            entry = tables[s][label]
            mark = ledger.mark(name, "convention", f"F1 of {label}", entry["undefined"][0]) \
                if any(reason.startswith("f1 ") for reason in entry["undefined"]) else None
            cells.append(Cell(entry["f1"], "score", mark))
        rows.append(Row(label, tuple(cells)))
    return Section("per-label", "Per-label F1", (
        Paragraph(f"F1 = 2TP / (2TP + FP + FN) of each label, undefined only when TP + FP + FN = 0 ({CONVENTION}). "
                  "Precision, recall, Jaccard, MCC, informedness and markedness of each label's 2 × 2 table are in "
                  "audit.json (systems.NAME.per_class)."),
        _fit_systems(Table("table-per-label", "Per-label F1 (×100) and gold support.", "Label",
                           (Column("support"), *(Column(name, rotate=True) for name in systems)), tuple(rows),
                           _density(len(systems) + 2)), systems)))


def rank_section(audit: Any, charts: Any, figures: bool) -> Section | None:
    result = audit.ranking
    if result is None or len(audit.systems) < 2:
        return None
    rows = tuple(Row(name, tuple(Cell(result.rank(name, m), "rank") for m in result.metrics))
                 for name in result.systems)
    blocks: list[Any] = [
        Paragraph("Rank of every system under every metric (1 = best; Hamming loss: lowest first; ties share their "
                  "ranks), Kendall's τ-b between the rankings, and the pairs of systems whose order depends on the "
                  "metric (with the metrics under which their difference is significant)."),
        _fit_systems(Table("table-ranks", "Ranks under each metric.", "System",
                           tuple(Column(SHORT[m], BY_ID[m].name, rotate=True) for m in result.metrics), rows,
                           _density(len(result.metrics) + 1), for_paper=True), audit.systems)]
    if figures:
        blocks.append(Figure("fig-tau", "Kendall τ-b between the rankings of every pair of metrics.",
                             charts.tau_heatmap(result.agreement("kendall"), lambda m: SHORT[m])))
    flips = []
    for flip in result.flips[:20]:
        note = ""
        if flip.significant is not None:
            tested = [SHORT[m] for m, v in flip.significant.items() if v]
            note = f" (significant under {', '.join(tested)})" if tested else " (no difference significant)"
        flips.append(f"{flip.a} ahead under {', '.join(SHORT[m] for m in flip.a_better_under)}; {flip.b} ahead "
                     f"under {', '.join(SHORT[m] for m in flip.b_better_under)}{note}")
    if len(result.flips) > 20:
        flips.append(f"… and {len(result.flips) - 20} more pairs (audit.json lists them all)")
    blocks.append(Bullets(tuple(flips) or ("No pair of systems changes order between these metrics.",),
                          "Pairs whose order depends on the metric"))
    return Section("rankings", "Rank disagreement", tuple(blocks))


def significance_section(audit: Any) -> Section | None:
    stats = audit.statistics
    if stats is None or not stats.tests:
        return None
    best = tuple(f"{SHORT[m]}: {', '.join(b.systems)}" for m, b in (stats.best_set or {}).items())
    correction = correction_name(stats.correction)
    return Section("significance", "Significance", (
        Paragraph(f"Paired tests over items, one per pair of systems and metric: exact McNemar for subset accuracy "
                  f"(an item is matched exactly or not); approximate randomisation for every other metric "
                  f"({stats.rounds:,} rounds, each item's two predicted sets swapped with probability ½, "
                  f"p = (1 + #{{|Δ*| ≥ |Δ|}}) / (R + 1)). p-values adjusted over the pairs of a metric ({correction}); "
                  f"a best set is adjusted over the comparisons with its top system. Intervals: {stats.B:,} "
                  f"bootstrap resamples of items, the same items for every system."),
        Bullets(best, f"Best sets: systems not significantly worse than the top one (adjusted p ≥ {stats.alpha:g})"),
    ))


def definitions_section(formula_svg: Callable[[str], str], figures: bool) -> Section:
    blocks = []
    for metric in METRICS:
        svg = formula_svg(metric.formula) if figures else ""
        facts = [("id", metric.id), ("better", "higher" if metric.higher_is_better else "lower"),
                 ("averaging", metric.averaging)]
        if metric.undefined_when:
            facts.append(("0/0 as a whole", f"{metric.undefined_when.removeprefix('0/0: ')}; shown as 0"))
        blocks.append(Definition(metric.id, metric.name, Formula(metric.name, metric.formula, svg), Facts(tuple(facts))))
    return Section("definitions", "Appendix A: definitions", (
        Paragraph("Y_i is item i's gold set, Ŷ_i its predicted set; TP_l, FP_l, FN_l count label l's hits, false "
                  "alarms and misses over items, G_l = TP_l + FN_l its gold support; N items, L labels. Definitions as "
                  "scikit-learn computes them (MultiLabelBinarizer over the labels, zero_division=0)."),
        *blocks), two_columns=True)


def reproducibility_section(audit: Any) -> Section:
    rows = tuple(Row(name, (Cell(source["path"]), Cell(source["layout"]), Cell((source["sha256"] or "")[:16])))
                 for name, source in audit.sources.items())
    facts = [("signature", str(audit.signature)), ("task", "multilabel"), ("label separator", repr(audit.separator))]
    if audit.thresholding is not None:
        facts.append(("thresholds", f"{audit.thresholding.signature_part()} ({audit.thresholding.how})"))
    return Section("reproducibility", "Appendix B: reproducibility", (
        Paragraph("Every number here is reproducible from the inputs and the options in the signature (auditor "
                  "version, gold hash, label map, thresholds, bootstrap resamples, resampling unit, seed)."),
        Facts(tuple(facts)),
        Table("table-sources", "Inputs.", "Input", (Column("Path"), Column("Layout"), Column("SHA-256")), rows,
              "tiny")))


def ledger_section(ledger: Ledger) -> Section | None:
    if not ledger.entries:
        return None
    rows = tuple(Row(str(e.number), (Cell(e.system), Cell(e.state), Cell(e.where), Cell(e.text)), f"ledger-{e.number}")
                 for e in ledger.entries)
    return Section("ledger", "Undefined-value ledger", (
        Paragraph("A figure that is 0/0 as a whole, or computed with a 0/0 part (a label never predicted, an item's "
                  "empty set) counted as 0 by scikit-learn's zero_division=0 convention, carries a superscript "
                  "number pointing here."),
        Table("table-ledger", "Undefined-value ledger.", "#", (Column("System"), Column("State"), Column("Where"),
                                                                Column("What")), rows, "small")))


def build_report(audit: Any, figures: bool = True) -> Report:
    """The report model of a :class:`~auditor.tasks.multilabel.result.MultilabelAudit`."""
    from auditor.report import charts

    ledger = Ledger()
    sections = [summary_section(audit, ledger), data_section(audit, charts, figures), chance_section(audit),
                metrics_section(audit, ledger),
                per_label_section(audit, ledger), thresholds_section(audit), properties_section(audit), rank_section(audit, charts, figures),
                significance_section(audit), recommendation_section(audit, charts.formula_svg, figures),
                definitions_section(charts.formula_svg, figures)]
    from auditor.report.build import references_section

    sections.append(ledger_section(ledger))
    sections.append(reproducibility_section(audit))
    sections.append(references_section([s for s in sections if s is not None]))
    gold = audit.sources["gold"]["path"]
    subtitle = f"{len(audit.systems)} systems' label sets scored against {gold} ({audit.aligned.n_items:,} items, " \
               f"{len(audit.labels)} labels)"
    return Report("Multi-label audit", subtitle, str(audit.signature), SCALE_NOTE,
                  tuple(s for s in sections if s is not None), tuple(ledger.entries))
