"""The multi-label audit's own report sections (the skeleton, :mod:`auditor.report.skeleton`, writes the summary's
verdict and leaderboard, the rankings, the significance tables, the ledger, reproducibility and references): data
(cardinality, empty sets, label prevalence against each system's predicted rate), chance baselines, every metric
with its interval, per-label F1, thresholds, properties, recommendation, definitions."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from auditor.analyses.recommend import rule_lines
from auditor.io.source import Source
from auditor.report import skeleton
from auditor.report.context import Context
from auditor.report.model import Bullets, Cell, Column, Facts, Paragraph, Report, Row, Section, Table
from auditor.report.sections.recommendation import record_section
from auditor.report.spine import MetricName, Spine
from auditor.report.tables import _density
from auditor.results import Score
from auditor.tasks.multilabel.measures import BY_ID, CONVENTION, KEY_METRICS, METRICS, SHORT
from auditor.tasks.multilabel.recommend import RULES


def spine(audit: Any) -> Spine:
    """What the skeleton reads from a :class:`~auditor.tasks.multilabel.result.MultilabelAudit`."""
    stats = audit.statistics
    level = None if stats is None else 1 - stats.alpha
    scores = {}
    for s, name in enumerate(audit.systems):
        entries = audit._metric_entries(s)
        scores[name] = {m: Score(e["value"], e["undefined"], e["convention"], *(e["ci"] or (None, None)), level)
                        for m, e in entries.items()}
    sources = {name: Source(x["path"], x["sha256"], audit.aligned.n_items) for name, x in audit.sources.items()}
    return Spine("multilabel", tuple(audit.systems), scores, {m.id: MetricName(m.id, m.name, SHORT[m.id])
                                                               for m in METRICS},
                 float(audit.options.alpha), str(audit.options.correction), sources, str(audit.signature),
                 tuple(audit.warnings), (stats.best_set or {}) if stats is not None else {},
                 tuple(stats.tests or ()) if stats is not None else (), audit.ranking, audit.verdict,
                 resampling=stats.resampling if stats is not None else None)


def summary_section(ctx: Context) -> Section:
    audit = ctx.audit
    profile = audit.profile()
    n, L = audit.aligned.n_items, len(audit.labels)
    level = " (after the label map: groups)" if audit.label_map is not None else ""
    data = (f"{n:,} items, {L} labels{level}; gold has {profile['cardinality']['gold']:.2f} labels per item and "
            f"{profile['empty']['gold']:,} empty sets. Every figure is scikit-learn's (label sets binarised over the "
            f"labels; a 0/0 counts 0, as zero_division=0 does, and is listed in the ledger)")
    drawn = audit.options.bootstrap > 0
    caption = (f"Key figures (×100) with {ctx.level} bootstrap intervals over items" if drawn else
               "Key figures (×100); no intervals (--bootstrap 0)")
    return skeleton.summary_section(ctx, data, KEY_METRICS, caption + " (tests: exact McNemar for subset accuracy"
                                    + (", approximate randomisation otherwise)." if drawn else "; no others)."))


def data_section(ctx: Context) -> Section:
    audit = ctx.audit
    profile = audit.profile()
    systems = audit.systems
    rows = [Row("gold", (Cell(profile["cardinality"]["gold"], "number"), Cell(profile["empty"]["gold"], "count"),
                         Cell(profile["distinct_sets"]["gold"], "count")))]
    rows += [Row(name, (Cell(profile["cardinality"][name], "number"), Cell(profile["empty"][name], "count"),
                        Cell(profile["distinct_sets"][name], "count"))) for name in systems]
    labels = list(profile["prevalence"])
    gold = [profile["prevalence"][label]["gold"] for label in labels]
    blocks: list[Any] = [
        Paragraph("Label cardinality (mean set size), empty sets and distinct sets: a system that predicts larger "
                  "sets than gold trades precision for recall; an empty set scores 0 on every samples-averaged "
                  "figure of its item but costs Hamming loss only the item's gold labels."),
        Table("table-cardinality", "Set sizes.", "Labels of", (Column("labels / item"), Column("empty sets"),
                                                                Column("distinct sets")), tuple(rows), "normal"),
        *skeleton.shares_blocks(
            ctx, systems, labels, "Label", ((Column("gold"), [Cell(share, "share") for share in gold]),), gold,
            {name: [profile["prevalence"][label][name] for label in labels] for name in systems},
            ("table-prevalence", "Each label's share of items in gold and in each system's predictions."),
            ("fig-prevalence", "Label prevalence in gold (bars) against each system's predicted rate."))]
    return Section("data", "Data: label sets, prevalence and predicted rates", tuple(blocks))


def chance_section(ctx: Context) -> Section | None:
    """Each chance predictor's expected figure (exact, or ≈ the Monte Carlo mean) with its 1 − alpha Monte Carlo
    range."""
    audit = ctx.audit
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
                  f"each value, the {100 * (1 - audit.options.alpha):g}% range of the draws at this test-set size."
                  + ("" if any(b.draws for b in audit.chance) else
                     " No draws were made (--bootstrap 0): only the exact expectations are shown, “—” where a figure "
                     "has none.")),
        Table("table-chance", "Chance baselines (×100).", "Baseline",
              tuple(Column(SHORT[m], BY_ID[m].name) for m in KEY_METRICS), tuple(rows), _density(len(KEY_METRICS) + 1)),
        Bullets(bullets,
                f"Margin (points ×100) over the strongest baseline under {SHORT[primary]}, the primary metric: the "
                f"empty and most frequent sets, the prevalence sampler and the system's own sets shuffled"),
    ))


def recommendation_section(ctx: Context) -> Section | None:
    """The recommended metrics with their formulas, reasons and the passages each rule follows; those to avoid (the
    record's section, :func:`auditor.report.sections.recommendation.record_section`)."""
    found = ctx.audit.recommendation
    if found is None:
        return None
    return record_section(ctx, found, title="Recommended metrics", for_summary=False)


def properties_section(ctx: Context) -> Section:
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


def thresholds_section(ctx: Context) -> Section | None:
    """Per score file: each metric's preferred threshold (one for all labels), its value there and at the one used."""
    audit = ctx.audit
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


def metrics_section(ctx: Context) -> Section:
    groups = (("Example-based (per item, then averaged)", ("subset_accuracy", "jaccard_samples", "samples_precision",
                                                          "samples_recall", "samples_f1")),
              ("Label-based, micro (counts pooled over labels)", ("micro_precision", "micro_recall", "micro_f1",
                                                                  "jaccard_micro", "hamming_loss")),
              ("Label-based, macro and weighted (per label, then averaged)", ("macro_precision", "macro_recall",
                                                                              "macro_f1", "jaccard_macro",
                                                                              "weighted_f1")))
    interval = (f"with its {ctx.level} bootstrap interval over items" if ctx.audit.options.bootstrap > 0
                else "(no intervals: --bootstrap 0)")
    blocks: list[Any] = [Paragraph(f"Every metric, ×100 {interval}; Hamming loss is lower-is-better. Zhang & Zhou "
                                   "(2014) group them as example-based and label-based.")]
    for index, (title, metrics) in enumerate(groups):
        blocks.append(skeleton.score_table(ctx, f"table-metrics-{index + 1}", title + ".", metrics, for_paper=True))
    return Section("metrics", "Metrics", tuple(blocks))


def per_label_section(ctx: Context) -> Section:
    audit, ledger = ctx.audit, ctx.ledger
    systems, labels = audit.systems, audit.labels
    tables = {name: audit.per_class(s) for s, name in enumerate(systems)}

    def f1(name: str, index: int) -> Cell:
        entry = tables[name][labels[index]]
        mark = ledger.mark(name, "convention", f"F1 of {labels[index]}", entry["undefined"][0]) \
            if any(reason.startswith("f1 ") for reason in entry["undefined"]) else None
        return Cell(entry["f1"], "score", mark)

    return Section("per-label", "Per-label F1", (
        Paragraph(f"F1 = 2TP / (2TP + FP + FN) of each label, undefined only when TP + FP + FN = 0 ({CONVENTION}). "
                  "Precision, recall, Jaccard, MCC, informedness and markedness of each label's 2 × 2 table are in "
                  "audit.json (systems.NAME.per_class)."),
        skeleton.category_table("table-per-label", "Per-label F1 (×100) and gold support.", "Label", labels,
                                [tables[systems[0]][label]["support"] for label in labels], systems, f1)))


def significance_section(ctx: Context) -> Section | None:
    stats = ctx.audit.statistics
    if stats is None or not stats.tests:
        return None
    return skeleton.significance_section(ctx, notes=(f"Intervals: {stats.B:,} bootstrap resamples of items, the same "
                                                     "items for every system.",))


def definitions_section(ctx: Context) -> Section:
    def facts(metric: Any) -> list[tuple[str, str]]:
        pairs = [("id", metric.id), ("better", "higher" if metric.higher_is_better else "lower"),
                 ("averaging", metric.averaging)]
        if metric.undefined_when:
            pairs.append(("0/0 as a whole", f"{metric.undefined_when.removeprefix('0/0: ')}; shown as 0"))
        return pairs

    section = skeleton.definitions_section(ctx, (
        "Y_i is item i's gold set, Ŷ_i its predicted set; TP_l, FP_l, FN_l count label l's hits, false alarms and "
        "misses over items, G_l = TP_l + FN_l its gold support; N items, L labels. Definitions as scikit-learn "
        "computes them (MultiLabelBinarizer over the labels, zero_division=0)."),
        ((m.id, m.name, m.formula, facts(m)) for m in METRICS))
    return replace(section, two_columns=True)


#: The multi-label report's own sections and their places in the skeleton.
SECTIONS = ((10, summary_section), (20, data_section), (30, chance_section), (50, metrics_section),
            (60, per_label_section), (70, thresholds_section), (80, properties_section), (120, significance_section),
            (130, recommendation_section), (140, definitions_section))


def build_report(audit: Any, figures: bool = True) -> Report:
    """The report model of a :class:`~auditor.tasks.multilabel.result.MultilabelAudit`."""
    facts = [("label separator", repr(audit.separator)),
             ("layouts", ", ".join(f"{name}: {x['layout']}" for name, x in audit.sources.items()))]
    if audit.thresholding is not None:
        facts.append(("thresholds", f"{audit.thresholding.signature_part()} ({audit.thresholding.how})"))
    gold = audit.sources["gold"]["path"]
    subtitle = f"{len(audit.systems)} systems' label sets scored against {gold} ({audit.aligned.n_items:,} items, " \
               f"{len(audit.labels)} labels)"
    rules = rule_lines(RULES) if audit.recommendation is not None else []
    return skeleton.task_report(audit, spine(audit), SECTIONS, "Multi-label audit", subtitle, figures,
                                {"reproducibility": facts, "rules": rules})
