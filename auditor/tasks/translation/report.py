"""The translation audit's own report sections (the skeleton, :mod:`auditor.report.skeleton`, writes the summary's
verdict and leaderboard, the rankings, the significance tables, the ledger, reproducibility and references): data
(reference vocabulary: frequency bands and a Zipf plot), metrics (with intervals; per band), agreement with human
scores, recommendation and definitions.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from auditor.analyses.intervals import details_json
from auditor.analyses.recommend import rule_lines
from auditor.formatting import plural
from auditor.report import skeleton
from auditor.report.context import Context
from auditor.report.model import Cell, Column, Facts, Figure, Paragraph, Report, Row, Section, Table
from auditor.report.spine import Spine, names
from auditor.report.tables import _density
from auditor.tasks.translation import charts
from auditor.tasks.translation.names import METRICS, NAMES
from auditor.tasks.translation.recommend import FORMULAS, IMBALANCE_TEXT, RULES, WARNING, untested_lead

DEFINITIONS = {
    "macrof": "Mean over the types V seen in the output or the references of F_β;c, "
              "F_β;c = (1 + β²) P_c R_c / (β² P_c + R_c), P_c = Match(c)/Preds(c), R_c = Match(c)/Refs(c); "
              "Match(c) = Σ_segments min(count in output, count in reference). Every type one vote.",
    "microf": "The same F_β;c averaged with weight f(c) = Refs(c) + k: frequent types weigh more (not "
              "micro-averaged F1).",
    "bleu": "sacrebleu's corpus BLEU: geometric mean of clipped 1–4-gram precisions times the brevity penalty.",
    "chrf": "sacrebleu's chrF: character 1–6-gram F-score with β = 2 (recall weighted twice).",
}
SOURCES = {"macrof": "Gowda, You, Lignos & May (2021), NAACL; poster, “Methods”",
           "microf": "Gowda, You, Lignos & May (2021), NAACL; poster, “Methods”",
           "bleu": "Papineni et al. (2002); as sacrebleu computes it (Post 2018; BLEU class, defaults, version in "
                   "the signature)",
           "chrf": "Popović (2015); as sacrebleu computes it (Post 2018; CHRF class, defaults, version in the "
                   "signature)"}
#: Metrics whose per-system convention is said once, in one sentence, not as a ledger entry per cell.
SAID_ONCE = ("macrof", "microf")


def spine(audit: Any) -> Spine:
    """What the skeleton reads from a translation audit. The type-F convention (P_c = 1 for a type never produced)
    is said once, in the metrics section, not as a ledger entry per cell."""
    return Spine.of_units(audit, names(NAMES), SAID_ONCE)


def summary_section(ctx: Context) -> Section:
    audit = ctx.audit
    primary = audit.recommendation.primary
    data = (f"{len(audit.systems)} systems, {audit.n_items} segments, "
            f"{plural(audit.options['references'], 'reference')}, tokeniser {audit.options['tokenize']}")
    why = ("no interval: --bootstrap 0" if audit.human is not None and untested_lead(audit.human)
           else "the leader's paired τ interval contains 0")
    recommended = NAMES[primary] + (f"; the human scores pick no metric ({why}), so it follows the rule without "
                                    "them" if audit.human is not None and not audit.human.separated() else "")
    if any(r.startswith(WARNING) for r in audit.recommendation.metrics[0].reasons):
        recommended += ", with a warning from the human scores that the recommendation spells out"
    boot = audit.options["bootstrap"]
    caption = (f"Scores ×100 with {ctx.level} intervals over segments (BLEU, chrF: BCa bootstrap, {boot} resamples; "
               f"MacroF, MicroF: value ± z · jackknife SE)." if audit.statistics.interval_details
               else "Scores ×100 (no intervals: --bootstrap 0).")
    return skeleton.summary_section(ctx, data, METRICS, caption, after=[("Recommended primary metric", recommended)])


def data_section(ctx: Context) -> Section:
    audit, figures = ctx.audit, ctx.figures
    types = audit.types
    share = (lambda x, total: x / total if total else None)
    rows = tuple(Row(b.name, (Cell(b.types, "count"), Cell(share(b.types, types.types), "share"),
                              Cell(b.tokens, "count"), Cell(share(b.tokens, types.tokens), "share")))
                 for b in types.bands)
    blocks: list[Any] = [
        Paragraph(f"The references hold {types.tokens} tokens of {types.types} types (sacrebleu's "
                  f"{audit.options['tokenize']} tokenisation). A type's band is its count in the references. "
                  f"{IMBALANCE_TEXT}."),
        Table("table-vocabulary", "Reference types by frequency band: types and tokens in each band.", "Band",
              (Column("types"), Column("share of types (%)"), Column("tokens"), Column("share of tokens (%)")), rows,
              for_paper=True, for_summary=True),
        Facts((("most frequent types", ", ".join(f"“{t}” {c}" for t, c in types.top)),)),
    ]
    if figures and types.frequencies.size:
        blocks.append(Figure("fig-zipf", "Zipf plot of the references: count of each type against its frequency "
                                         "rank (log–log), coloured by band.", charts.zipf_chart(types)))
    return Section("data", "Data", tuple(blocks), for_summary=True)


def metrics_section(ctx: Context) -> Section:
    audit, figures, order = ctx.audit, ctx.figures, ctx.systems
    bands = audit.types.bands
    band_rows = [(s, [Cell(b.systems[s][0], "score") for b in bands]) for s in order]
    never_rows = tuple(Row(s, tuple(Cell(b.systems[s][1], "count") for b in bands)) for s in order)
    blocks: list[Any] = [  # every metric with its interval is the summary's leaderboard, not repeated here
        Table("table-bands", "MacroF ×100 over the reference types of each frequency band (types seen only in "
                             "outputs have no band).", "System",
              tuple(Column(b.name) for b in bands), tuple(Row(s, tuple(c)) for s, c in band_rows),
              _density(len(bands)), for_paper=True,
              for_summary=True),
        Table("table-never", "Reference types of each band the system never produces.", "System",
              tuple(Column(b.name) for b in bands), never_rows, _density(len(bands))),
    ]
    blocks.insert(0, Paragraph("Every metric with its interval is in the Summary's table. " + _interval_text(audit)
                               if audit.statistics.interval_details else
                               "Every metric is in the Summary's table (no intervals: --bootstrap 0)."))
    blocks.insert(1, Paragraph("Every MacroF and MicroF value follows the authors' code: a reference type a system "
                               "never produces has P_c = 1 and a produced type absent from the references R_c = 1, "
                               "both with F_β;c = 0 (each system's counts are in audit.json and in the table of "
                               "types never produced)."))
    if figures:
        blocks.append(Figure("fig-bands", "MacroF per frequency band and system: how far each system's F falls "
                                          "from frequent to rare types.", charts.band_chart(audit, order)))
    return Section("metrics", "Metrics", tuple(blocks), for_summary=True)


def _interval_text(audit: Any) -> str:
    """How the intervals were computed, and where a value still falls outside its own."""
    bca = details_json(audit.statistics.interval_details, audit.systems)
    shifts = {m: max(abs(v["resample_mean"] - audit.metrics[s][m].value) for s, v in row.items()
                     if v["resample_mean"] is not None and audit.metrics[s][m].value is not None)
              for m, row in bca.items() if any(v["resample_mean"] is not None for v in row.values())}
    text = ("BLEU and chrF: BCa intervals (bias-corrected and accelerated; Efron & Tibshirani 1993, sections 14.3 "
            "and 15.4). MacroF and MicroF are not sums over segments: a resample that repeats segments holds about "
            "63% of the distinct ones and loses the rare types seen only in the others, so resampled values stray "
            "from the test set's"
            + (f" (here their mean by up to {100 * shifts['macrof']:.2f} points ×100 for MacroF and "
               f"{100 * shifts['microf']:.2f} for MicroF)" if "macrof" in shifts and "microf" in shifts else "")
            + " and spread too little. Their intervals are value ± z × the jackknife standard error over "
              "segments (Tukey's jackknife, each segment left out once, whose variance Efron & Stein 1981 show "
              "tends to be biased upwards); in a simulation with a Zipfian vocabulary they covered the metric's mean "
              "over test sets of the same size in 95–97% of 300 test sets, where the bootstrap's percentile interval, "
              "shifted by its bias, covered it in 83–90%. BCa's z0 and acceleration, the resamples' mean and the "
              "jackknife standard error of every metric and system are in audit.json (statistics.bca).")
    fallback = [f"{NAMES[m]} {s}" for m, row in bca.items() for s, v in row.items() if v["percentile_fallback"]]
    if fallback:
        text += (" The value lies outside every resample (z0 infinite), so the percentile interval is given, for "
                 + ", ".join(fallback) + ".")
    outside = _outside(audit)
    if outside:
        text += " The value still lies outside its interval for " + "; ".join(outside) + "."
    return text


def _outside(audit: Any) -> list[str]:
    """"MacroF: 3 of 13 systems" for every metric whose value falls outside its interval somewhere."""
    found = []
    for m in METRICS:
        count = sum(1 for s in audit.systems if (e := audit.metrics[s][m]).interval is not None
                    and e.value is not None and not e.lo <= e.value <= e.hi)
        if count:
            found.append(f"{NAMES[m]}: {count} of {len(audit.systems)} systems")
    return found


def significance_section(ctx: Context) -> Section | None:
    audit = ctx.audit
    return skeleton.significance_section(ctx, notes=(
        "Riezler & Maxwell 2005 found bootstrap p-values less conservative than randomisation. sacrebleu's "
        "paired_ar and paired_bs count > where these count ≥: a resample that reproduces the difference exactly "
        f"counts against the null. Families: one per metric and method: {audit.statistics.family}.",
        f"Rounds and p floors: {audit.statistics.note}."), methods=("approximate_randomisation", "paired_bootstrap"))


def human_section(ctx: Context) -> Section | None:
    audit = ctx.audit
    human = audit.human
    if human is None:
        return None
    rows = []
    for m in METRICS:
        row = human.correlations[m]
        rows.append(Row(NAMES[m], tuple(_tau_cell(row[k]) for k in ("kendall_tau", "pearson"))))
    missing = sum(human.missing.values())
    text = (f"Human scores from {human.source} ({human.level} level"
            + ("; lower is better, so correlations are with their negation" if human.lower_better else
               "; higher is better, as given: --human-lower-better reads them the other way")
            + (f"; {missing} system-segment scores missing, left out of the means" if missing else "")
            + (f"; the lines of {plural(len(human.skipped), 'system')} in the file that are not audited are left out: "
               + ", ".join(human.skipped) if human.skipped else "")
            + "). Correlation across systems of each metric with the human system scores (Kendall's τ-b, Kendall "
              "1945; Pearson's r); " + (
                "no intervals (--bootstrap 0), so no metric's lead is tested." if untested_lead(human) else
                f"{ctx.level} intervals from the segment bootstrap (" + (
                    "metric and human means resampled together" if human.level == "segment" else
                    "metric values resampled; the human system scores, given per system, stay fixed")
                + "). The leader's τ minus each other metric's, with its paired interval, decides whether the human "
                  "scores pick a metric."))
    scores = tuple(Row(s, (Cell(v, "number"),)) for s, v in sorted(human.human.items(), key=lambda x: -x[1]))
    return Section("human", "Agreement with human scores", (
        Paragraph(text),
        Table("table-human", "Kendall τ-b and Pearson r with the human system scores" + (
            "." if untested_lead(human) else f"; brackets: {ctx.level} interval from the segment bootstrap "
                                             f"({audit.options['bootstrap']:,} resamples)."), "Metric",
              (Column("Kendall τ-b"), Column("Pearson r")), tuple(rows), for_paper=True, for_summary=True),
        *_leader_table(audit, ctx.level),
        *_segment_table(audit),
        Table("table-human-scores", "Human system scores" + (" (mean of rated segments)." if human.level == "segment"
                                                             else ", as given."), "System",
              (Column("human score"),), scores, "small")), for_summary=True)


def _tau_cell(correlation: Any) -> Cell:
    """A correlation (:class:`~.agreement.Correlation`) with its interval; — where undefined."""
    low, high = correlation.ci or (None, None)
    return Cell(None if np.isnan(correlation.value) else correlation.value, "tau", low=low, high=high)


def _leader_table(audit: Any, level: str) -> tuple[Table, ...]:
    """τ(leader) − τ(metric) with its paired interval (at ``level``), one row per other metric."""
    human = audit.human
    if not human.leader_differences:
        return ()
    rows = tuple(Row(NAMES[m], (_tau_cell(d),)) for m, d in human.leader_differences.items())
    return (Table("table-human-lead", f"Kendall τ-b of {NAMES[human.leader]} (the highest) minus each other metric's, "
                                      f"with the paired {level} interval over the segment bootstrap: the human scores "
                                      f"pick {NAMES[human.leader]} only when no interval holds 0.", "Metric",
                  (Column(f"τ({NAMES[human.leader]}) − τ"),), rows, "small"),)


def _segment_table(audit: Any) -> tuple[Any, ...]:
    """Segment-level τ-b of each metric with the human segment scores (segment-level human files only)."""
    segments = audit.human.segment_level
    if segments is None:
        return ()
    rows = tuple(Row(NAMES[m], (Cell(None if np.isnan(t.value) else t.value, "tau"), Cell(t.scores, "count")))
                 for m, t in segments.taus.items())
    text = (f"Segment level, as the WMT metrics task reports it (Freitag et al. 2021): each metric scores every "
            f"segment on its own — BLEU as sacrebleu scores one sentence (exponential smoothing, effective order), "
            f"chrF likewise, MacroF and MicroF by their formulas on the segment's types — and its Kendall τ-b with "
            f"the human segment scores is taken over all {segments.rated:,} rated (system, segment) pairs at once, "
            f"without grouping by system or segment, as the WMT toolkit mt-metrics-eval computes it. It asks "
            f"whether a metric orders single translations as the raters do; the system-level τ above asks whether "
            f"it orders systems. No interval is computed.")
    return (Paragraph(text),
            Table("table-human-segments", "Segment-level Kendall τ-b of each metric with the human segment scores "
                                          "(no grouping) and the number of scores it is computed over.", "Metric",
                  (Column("τ-b (segments)"), Column("scores")), rows, "small"))


def definitions_section(ctx: Context) -> Section:
    options = ctx.audit.options
    return skeleton.definitions_section(ctx, (
        "Conventions (Gowda et al.'s code): P_c = 1 when a type is never produced, R_c = 1 when it is not in the "
        f"references, F = 0 when P = R = 0; β = {options['f_beta']:g}, k = {options['microf_k']:g}. The poster prints "
        "(1+β)²; the paper and code use 1 + β²."),
        ((f"definition-{m}", NAMES[m], FORMULAS[m], (("definition", DEFINITIONS[m]), ("source", SOURCES[m])))
         for m in METRICS))


#: The translation report's own sections and their places in the skeleton.
SECTIONS = ((10, summary_section), (20, data_section), (50, metrics_section), (120, significance_section),
            (125, human_section), (140, definitions_section))


def report_model(audit: Any, figures: bool = True) -> Report:
    """The report model of a translation audit."""
    subtitle = f"{len(audit.systems)} translation systems scored against {audit.sources['gold']['path']}"
    return skeleton.task_report(audit, spine(audit), SECTIONS, "Translation metric audit", subtitle, figures,
                                {"rules": rule_lines(RULES)})
