"""The report model: typed, frozen dataclasses built from the audit JSON (stage "build report").

``build(audit)`` reads ``audit.to_json()`` (the stable document of DESIGN.md "Interfaces")
plus the metric records (names, LaTeX formulas, references) and returns a :class:`Report`.
Each section builder reads its own JSON keys; when a key is absent the section is absent —
never a placeholder. Numbers stay numbers here: every value is a :class:`Cell` whose
``kind`` tells the renderers' filters how to format it (scores ×100 with one decimal,
shares as percentages, p-values with three decimals). Undefined values (``null``) and
values filled by a convention carry the number of their entry in the undefined-value
ledger. Renderers (``auditor.renderers``) read only this model.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

#: Short column headers for the metric tables (the appendix gives every definition).
#: Metrics the summary, charts and baseline tables concentrate on, when present.
FLIPS_SHOWN = 40
#: Up to this many systems the significance section shows a full pairwise p-value matrix per
#: tested metric; beyond it, each system against the top one (every test is in audit.json).
MATRIX_MAX_SYSTEMS = 12
KEY_METRICS = ("accuracy", "macro_f1", "macro_f1_hm", "macro_recall", "mcc", "informedness")
SCALE_NOTE = "Scores are shown ×100 with one decimal; shares as percentages."
SECTION_TITLES = {
    "summary": "Summary", "data": "Data", "baselines": "Chance baselines", "metrics": "Metrics",
    "per-class": "Per-class results", "properties": "Metric properties",
    "rank-disagreement": "Rank disagreement", "deployment": "At the deployment prevalence", "significance": "Significance",
    "recommendation": "Recommendation", "definitions": "Metric definitions",
    "confusion": "Confusion matrices", "rules": "Recommendation rules",
    "ledger": "Undefined values", "reproducibility": "Reproducibility",
    "gold-reliability": "Reliability of the gold", "slices": "Slices", "scores": "Per-class scores",
}
APPENDICES = ("definitions", "confusion", "rules", "ledger", "reproducibility")


# ------------------------------------------------------------------------------ model


@dataclass(frozen=True)
class Cell:
    """One table value. ``kind``: score, share, pp, count, p, tau, number, text.

    ``value`` None is shown as "—"; ``mark`` is the undefined-value ledger entry number;
    ``low``/``high`` a confidence interval (same kind); ``strong`` marks the column's best.
    """

    value: float | int | str | None
    kind: str = "text"
    mark: int | None = None
    strong: bool = False
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Column:
    label: str
    title: str = ""
    rotate: bool = False


@dataclass(frozen=True)
class Row:
    header: str
    cells: tuple[Cell, ...]
    anchor: str = ""


@dataclass(frozen=True)
class Table:
    id: str
    caption: str
    corner: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    density: str = "normal"  # normal | small | tiny (chosen from the column count)
    kind: str = "table"
    #: Intervals on the value's line instead of below it (one line per row).
    inline_ci: bool = False

    @property
    def lines(self) -> int:
        """Text lines the body takes (estimate): two where an interval sits below a value, more
        where a text cell wraps (about 45 characters a line)."""
        below = not self.inline_ci and any(c.low is not None for r in self.rows for c in r.cells)
        total = 0
        for row in self.rows:
            wrapped = max([len(row.header) // 28 + 1] + [len(str(c.value)) // 45 + 1 for c in row.cells
                                                          if c.kind == "text"])
            total += max(wrapped, 2 if below else 1)
        return total

    @property
    def compact(self) -> bool:
        """Kept on one page (with its caption) when it is short: moving it to the next page then
        leaves less than half a page empty. Longer tables break between rows, repeating their
        header; the caption stays with the first rows."""
        return self.lines <= 18

    @property
    def header_height(self) -> float:
        """Height (em) that rotated column headers need: the longest label's length."""
        longest = max((len(c.label) for c in self.columns if c.rotate), default=0)
        return round(0.62 * longest + 0.6, 1)


@dataclass(frozen=True)
class Figure:
    id: str
    caption: str
    svg: str
    kind: str = "figure"


@dataclass(frozen=True)
class Formula:
    label: str
    latex: str
    svg: str
    kind: str = "formula"


@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = "paragraph"


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    title: str = ""
    kind: str = "bullets"


@dataclass(frozen=True)
class Facts:
    """A definition list: (term, description) pairs."""

    pairs: tuple[tuple[str, str], ...]
    kind: str = "facts"


@dataclass(frozen=True)
class Definition:
    id: str
    name: str
    formula: Formula
    facts: Facts
    kind: str = "definition"


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    blocks: tuple[Any, ...]


@dataclass(frozen=True)
class LedgerEntry:
    number: int
    system: str
    state: str  # "undefined" | "convention"
    where: str
    text: str


@dataclass(frozen=True)
class Report:
    title: str
    subtitle: str
    signature: str
    scale_note: str
    sections: tuple[Section, ...]
    ledger: tuple[LedgerEntry, ...]

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)


# --------------------------------------------------------------------------- building


class Ledger:
    """Collects undefined values and conventions; one entry per (system, state, text)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str, str], list[Any]] = {}

    def mark(self, system: str, state: str, where: str, text: str) -> int:
        key = (system, state, text)
        if key not in self.entries:
            self.entries[key] = [len(self.entries) + 1, []]
        places = self.entries[key][1]
        if where not in places:
            places.append(where)
        return self.entries[key][0]

    def freeze(self) -> tuple[LedgerEntry, ...]:
        return tuple(
            LedgerEntry(number, system, state, ", ".join(places), text)
            for (system, state, text), (number, places) in self.entries.items()
        )


@dataclass
class Context:
    document: Mapping[str, Any]
    records: Mapping[str, Any]
    ledger: Ledger
    figures: bool
    charts: Any = None
    formula_svg: Callable[[str], str] = lambda latex: ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def systems(self) -> list[str]:
        """Systems ordered by the primary metric (the verdict's order), else in input order."""
        given = list(self.document["systems"])
        order = (self.document.get("verdict") or {}).get("order") or []
        return list(order) if sorted(order) == sorted(given) else given

    @property
    def level(self) -> str:
        """Confidence level of the intervals, from ``alpha``: "95%" for α = 0.05."""
        return f"{100 * (1 - self.alpha):g}%"

    @property
    def alpha(self) -> float:
        """α of the intervals and tests (the statistics section, else the signature's ``alpha:``)."""
        stats = self.document.get("statistics") or {}
        if "alpha" in stats:
            return float(stats["alpha"])
        found = re.search(r"\balpha:([0-9.eE-]+)", self.document.get("signature", ""))
        return float(found.group(1)) if found else 0.05

    @property
    def labels(self) -> list[str]:
        return list(self.document["labels"])

    def name(self, metric_id: str) -> str:
        record = self.records.get(metric_id)
        return record.name if record is not None else metric_id

    def short(self, metric_id: str) -> str:
        """Column header from the metric record; a calibrated variant shows its base metric's
        (its table says it is calibrated)."""
        base = metric_id.removesuffix("_calibrated")
        record = self.records.get(base) or self.records.get(metric_id)
        return record.label if record is not None else metric_id

    def family(self, metric_id: str) -> str:
        record = self.records.get(metric_id)
        if record is not None:
            return record.family
        return "calibrated" if metric_id.endswith("_calibrated") else "base"

    def metric_ids(self) -> list[str]:
        first = self.document["systems"][self.systems[0]]["metrics"]
        return list(first)

    def score_cell(self, system: str, metric_id: str) -> Cell:
        entry = self.document["systems"][system]["metrics"].get(metric_id)
        if entry is None:
            return Cell(None, "score")
        mark = None
        if entry.get("value") is None:
            mark = self.ledger.mark(system, "undefined", self.short(metric_id), entry.get("undefined") or "0/0")
        elif entry.get("convention"):
            mark = self.ledger.mark(system, "convention", self.short(metric_id), entry["convention"])
        ci = entry.get("ci") or (None, None)
        return Cell(entry.get("value"), "score", mark, low=ci[0], high=ci[1])

    def key_metrics(self) -> list[str]:
        present = self.metric_ids()
        return [m for m in KEY_METRICS if m in present]


def _density(columns: int) -> str:
    return "normal" if columns <= 9 else "small" if columns <= 16 else "tiny"


#: Above this many systems, a table with one column per system is drawn with one row per
#: system instead (labels as columns), so that 23+ systems fit the page width.
WIDE_SYSTEMS = 16


def _transposed(table: Table, corner: str) -> Table:
    """``table`` with rows and columns swapped: each column becomes a row, each row a column."""
    labels = [row.header for row in table.rows]
    columns = tuple(Column(label, rotate=len(labels) > 6 and max(map(len, labels)) > 6) for label in labels)
    rows = tuple(Row(column.label, tuple(row.cells[index] for row in table.rows))
                 for index, column in enumerate(table.columns))
    return Table(table.id, table.caption, corner, columns, rows, _density(len(columns) + 1), table.kind,
                 table.inline_ci)


def _fit_systems(table: Table, systems: Sequence[str]) -> Table:
    """One row per system when there are more than :data:`WIDE_SYSTEMS` system columns."""
    return _transposed(table, "System") if len(systems) > WIDE_SYSTEMS else table


def _with_best(rows: list[tuple[str, list[Cell]]], higher_better: Sequence[bool] | None = None) -> tuple[Row, ...]:
    """Mark the best defined value of every column strong (ties all strong)."""
    if not rows:
        return ()
    width = len(rows[0][1])
    best = []
    for column in range(width):
        values = [cells[column].value for _, cells in rows if isinstance(cells[column].value, (int, float))]
        best.append(max(values) if values and len(rows) > 1 else None)
    return tuple(
        Row(header, tuple(Cell(c.value, c.kind, c.mark, best[i] is not None and c.value == best[i], c.low, c.high)
                          for i, c in enumerate(cells)))
        for header, cells in rows
    )


# ---------------------------------------------------------------------------- sections


def summary_section(ctx: Context) -> Section:
    doc, prof = ctx.document, ctx.document.get("profile", {})
    blocks: list[Any] = []
    pairs = [("Data", _profile_line(doc))]
    verdict = doc.get("verdict")
    if len(ctx.systems) > 1 and verdict:
        pairs.append(("Winner depends on the metric?", verdict["text"]))
    recommendation = doc.get("recommendation")
    if recommendation and recommendation.get("metrics"):
        primary = [m for m in recommendation["metrics"] if m.get("role") == "primary"] or recommendation["metrics"][:1]
        complements = [m["id"] for m in recommendation["metrics"] if m not in primary]
        text = f"report {ctx.name(primary[0]['id'])}"
        if complements:
            text += " with " + ", ".join(ctx.name(c) for c in complements)
        if recommendation.get("avoid"):
            text += "; avoid " + ", ".join(ctx.name(a["id"]) for a in recommendation["avoid"])
        pairs.append(("Recommendation", text))
    strongest = _strongest_baselines(ctx, ctx.key_metrics())
    if strongest:
        pairs.append(("Strongest chance baseline", "; ".join(strongest)))
    if prof:
        never = sorted({label for s in prof.get("systems", {}).values() for label in s.get("never_predicted", [])})
        if never:
            pairs.append(("Labels some system never predicts", ", ".join(never)))
        for group in prof.get("identical_systems") or []:
            pairs.append(("Identical systems", f"{' = '.join(group)}: the same prediction on every item (the same "
                                               "file under two names?); they tie under every metric"))
    for warning in doc.get("warnings") or []:
        pairs.append(("Label warning", warning))
    blocks.append(Facts(tuple(pairs)))
    if len(ctx.systems) > 1 and verdict:
        blocks.append(leaderboard(ctx, verdict))
    return Section("summary", SECTION_TITLES["summary"], tuple(blocks))


def leaderboard(ctx: Context, verdict: Mapping[str, Any]) -> Table:
    """Systems in the primary metric's order: significance group, key metrics with intervals,
    the best set of each metric in bold."""
    primary, keys = verdict["primary"], list(verdict["key_metrics"])
    leaders = {m: set(v) for m, v in (verdict.get("leaders") or {}).items()}
    group_of = {s: index + 1 for index, group in enumerate(verdict.get("groups") or []) for s in group}
    columns = ([Column("Group", f"significance group under {ctx.name(primary)}")] if group_of else [])
    columns += [Column(ctx.short(m), ctx.name(m)) for m in keys]
    rows = []
    for s in ctx.systems:
        cells = [Cell(group_of.get(s), "count")] if group_of else []
        for m in keys:
            cell = ctx.score_cell(s, m)
            cells.append(Cell(cell.value, cell.kind, cell.mark, s in leaders.get(m, ()), cell.low, cell.high))
        rows.append(Row(s, tuple(cells)))
    has_ci = any(c.low is not None for r in rows for c in r.cells)
    if verdict.get("significance"):
        correction = (ctx.document.get("statistics") or {}).get("correction", "")
        caption = (f"Leaderboard, ordered by {ctx.name(primary)}. Bold: the metric's best set — the top system and "
                   "every system not significantly worse than it (exact McNemar for accuracy, approximate "
                   f"randomisation otherwise; {correction}-adjusted over the comparisons with the top system; "
                   f"p ≥ α = {ctx.alpha:g}). Group: 1 = the best set under {ctx.short(primary)}; 2 = the best set "
                   "of the systems outside group 1, and so on.")
    else:
        caption = (f"Leaderboard, ordered by {ctx.name(primary)}. Bold: the top value of each metric (no "
                   "significance tests ran).")
    if has_ci:
        caption += f" Brackets: {ctx.level} bootstrap percentile interval."
    return Table("summary-leaderboard", caption, "System", tuple(columns), tuple(rows),
                 "small" if has_ci else _density(len(columns)), inline_ci=True)


def _profile_line(doc: Mapping[str, Any]) -> str:
    prof = doc.get("profile")
    n, k = doc["n_items"], len(doc["labels"])
    if not prof:
        return f"{n} items, {k} labels, {len(doc['systems'])} systems"
    return (f"{n} items, {k} labels ({prof['k_gold']} in gold), {len(doc['systems'])} systems; "
            f"smallest class {prof['min_support']} items, imbalance ratio {prof['imbalance_ratio']:.1f}, "
            f"majority class “{prof['majority_label']}” = {100 * prof['majority_share']:.1f}% of items, "
            f"normalised prevalence entropy {prof['normalised_entropy']:.2f}")


def _strongest_baseline(ctx: Context, metric_id: str) -> tuple[str, float] | None:
    """(name, expected score) of the chance baseline scoring highest under ``metric_id``."""
    baselines = ctx.document.get("baselines") or {}
    best = None
    for name in ("uniform", "prevalence", "majority"):
        entry = (baselines.get(name) or {}).get("metrics", {}).get(metric_id)
        if entry and entry.get("expected") is not None and (best is None or entry["expected"] > best[1]):
            best = (name, entry["expected"])
    return best


def _strongest_baselines(ctx: Context, keys: Sequence[str]) -> list[str]:
    out = []
    for metric_id in keys[:3]:
        best = _strongest_baseline(ctx, metric_id)
        if best:
            out.append(f"{ctx.short(metric_id)}: {best[0]} {100 * best[1]:.1f}")
    return out


def data_section(ctx: Context) -> Section | None:
    prof = ctx.document.get("profile")
    if not prof:
        return None
    labels, systems = ctx.labels, ctx.systems
    columns = [Column("Support"), Column("Prevalence")] + [Column(s, rotate=len(systems) > 3) for s in systems]
    rows = []
    for label in labels:
        cells = [Cell(prof["support"][label], "count"), Cell(prof["prevalence"][label], "share")]
        cells += [Cell(prof["systems"][s]["bias"][label], "share") for s in systems]
        rows.append(Row(label, tuple(cells)))
    blocks: list[Any] = [Paragraph(
        "Prevalence p_i is the share of gold items in class i; a system's bias b_j is the share of its "
        "predictions that are class j. A system whose bias departs from the prevalence gains or loses on "
        "metrics that reward the majority class.")]
    if ctx.figures:
        blocks.append(Figure("fig-bias", "Prevalence (top) and each system's prediction bias minus prevalence: colour "
                             "and number both in percentage points (blue = predicted more often than it occurs); the "
                             "shares themselves are in the table below.",
                             ctx.charts.bias_chart(labels, systems, prof)))
    blocks.append(_fit_systems(Table("table-bias", "Class support, prevalence and each system's prediction bias (%).",
                                     "Label", tuple(columns), tuple(rows), _density(len(columns))), systems))
    notes = []
    for s in systems:
        entry = prof["systems"][s]
        if entry.get("never_predicted"):
            notes.append(f"{s} never predicts: {', '.join(entry['never_predicted'])}")
        if entry.get("predicted_only"):
            notes.append(f"{s} predicts labels absent from gold: {', '.join(entry['predicted_only'])}")
    if prof.get("absent_from_gold"):
        notes.append("Labels with no gold item (kept as error classes): " + ", ".join(prof["absent_from_gold"]))
    blocks.append(Bullets(tuple(notes) or ("Every system predicts every gold label, and no system predicts a label "
                                           "absent from gold.",), "Never-predicted and predicted-only labels"))
    return Section("data", SECTION_TITLES["data"], tuple(blocks))


def baselines_section(ctx: Context) -> Section | None:
    baselines = ctx.document.get("baselines")
    if not baselines:
        return None
    keys = ctx.key_metrics()
    coverage = f"{100 * (1 - float((ctx.document.get('baselines_method') or {}).get('alpha', 0.05))):g}%"
    blocks: list[Any] = [Paragraph(
        "Expected score of predictors that ignore the input: uniform random, random with the gold prevalence, "
        f"and always the majority class; the {coverage} range is the Monte Carlo spread at this test-set size.")]
    rows = []
    for name in ("uniform", "prevalence", "majority"):
        metrics = (baselines.get(name) or {}).get("metrics")
        if not metrics:
            continue
        cells = []
        for m in keys:
            entry = metrics.get(m) or {}
            cells.append(Cell(entry.get("expected"), "score", low=entry.get("mc_low"), high=entry.get("mc_high")))
        rows.append(Row(name, tuple(cells)))
    if rows:
        blocks.append(Table("table-baselines", f"Expected score of each chance baseline, with the Monte Carlo {coverage} range.",
                            "Baseline", tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), tuple(rows),
                            _density(len(keys))))
    chance = {s: ctx.document["systems"][s].get("chance") for s in ctx.systems}
    chance = {s: c for s, c in chance.items() if c}
    if chance:
        for field_name, kind, caption in (
            ("margin", "score", "Each system's margin over the strongest chance baseline (×100; negative = below chance)."),
            ("p_shuffle", "p", "Permutation p-value of each system against a shuffle of its own predictions "
                               "(same bias, no information)."),
        ):
            rows = tuple(Row(s, tuple(Cell((c.get(m) or {}).get(field_name), kind) for m in keys))
                         for s, c in chance.items())
            blocks.append(Table(f"table-chance-{field_name}", caption, "System",
                                tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys))))
    return Section("baselines", SECTION_TITLES["baselines"], tuple(blocks))


def metrics_section(ctx: Context) -> Section:
    ids = ctx.metric_ids()
    main = [m for m in ids if ctx.family(m) != "calibrated"]
    calibrated = [m for m in ids if ctx.family(m) == "calibrated"]
    has_ci = any(entry.get("ci") for s in ctx.systems for entry in ctx.document["systems"][s]["metrics"].values())
    blocks: list[Any] = []
    if ctx.figures:
        keys = ctx.key_metrics()
        chance = {m: (best or (None, None))[1] for m in keys for best in [_strongest_baseline(ctx, m)]}
        blocks.append(Figure("fig-metrics", "Key metric values per system (×100)" +
                             (f" with {ctx.level} bootstrap intervals" if has_ci else "") +
                             (", systems ordered by the primary metric; dashed red line: the expected score of the "
                              "strongest chance baseline (uniform, prevalence or majority; see Chance baselines)."
                              if any(v is not None for v in chance.values()) else "."),
                             ctx.charts.metric_chart(ctx.systems, keys, [ctx.short(m) for m in keys],
                                                     ctx.document["systems"], chance)))
    for table_id, chosen, caption in (
        ("table-metrics", main, "Every metric for every system (×100); best value per column in bold."),
        ("table-calibrated", calibrated, "Prevalence-calibrated variants (Opitz 2024 §5.2): each gold class rescaled "
                                         "to prevalence 1/k before the metric is computed (×100)."),
    ):
        if not chosen:
            continue
        if has_ci:
            caption += f" Brackets: {ctx.level} bootstrap percentile interval."
        rows = [(s, [ctx.score_cell(s, m) for m in chosen]) for s in ctx.systems]
        blocks.append(Table(table_id, caption, "System", tuple(Column(ctx.short(m), ctx.name(m)) for m in chosen),
                            _with_best(rows), _density(len(chosen) + (4 if has_ci else 0))))
    return Section("metrics", SECTION_TITLES["metrics"], tuple(blocks))


def per_class_section(ctx: Context) -> Section:
    systems, labels = ctx.systems, ctx.labels
    support = {label: ctx.document["systems"][systems[0]]["per_class"][label]["support"] for label in labels}
    blocks: list[Any] = []
    for quantity, title in (("f1", "F1"), ("recall", "Recall"), ("precision", "Precision")):
        rows = []
        for label in labels:
            cells = [Cell(support[label], "count")]
            for s in systems:
                entry = ctx.document["systems"][s]["per_class"][label]
                mark = None
                if entry.get(quantity) is None:
                    reasons = [r for r in entry.get("undefined", []) if r.lower().startswith(f"{quantity} of")]
                    mark = ctx.ledger.mark(s, "undefined", f"{title} {label}", reasons[0] if reasons else "0/0")
                cells.append(Cell(entry.get(quantity), "score", mark))
            rows.append(Row(label, tuple(cells)))
        columns = (Column("Support"),) + tuple(Column(s, rotate=len(systems) > 3) for s in systems)
        blocks.append(_fit_systems(Table(f"table-class-{quantity}", f"{title} per class and system (×100).", "Label",
                                         columns, tuple(rows), _density(len(columns))), systems))
    return Section("per-class", SECTION_TITLES["per-class"], tuple(blocks))


def slices_section(ctx: Context) -> Section | None:
    """Per-slice scores of the key metrics, where the winner changes, and slices too small to rank
    (``slices`` and ``slice_summary`` of the JSON; :mod:`auditor.slices`)."""
    slices, summary = ctx.document.get("slices"), ctx.document.get("slice_summary")
    if not slices or not summary:
        return None
    groups = list(slices)
    systems = ctx.systems
    minimum = summary["min_items"]
    source = (summary.get("source") or {}).get("path") or "the slices"
    blocks: list[Any] = [Paragraph(
        f"Every metric of every system within each group of items given by {source} ({len(groups)} slices). "
        "Vickers et al. (vickers-monti-classification-metrics-nlp.md §5.2) score a model per KVQA question type "
        "(their Table 3) and show that the metric decides which sub-task looks strong; here the same breakdown "
        "compares the systems. Leaders of a slice are the systems with its top value (ties all lead); no test is "
        "run within a slice, so a different leader is not by itself a significant difference.")]
    small = summary.get("small") or []
    if small:
        blocks.append(Bullets(tuple(
            f"Slice {g} has {slices[g]['n_items']} items, fewer than {minimum}: too small to rank systems on; its "
            f"leaders are left out of 'winner changes'. (The threshold is ours; Vickers et al. §5.1 find low "
            f"variance only for question types 'with many samples'.)" for g in small), "Warning"))
    changes = summary.get("winner_changes") or {}
    overall = summary.get("overall_leaders") or {}
    lines = []
    for metric_id in summary["key_metrics"]:
        per_slice = "; ".join(f"{g}: {', '.join(slices[g]['leaders'].get(metric_id) or ['—'])}" for g in groups)
        verdict = "the winner changes across slices" if changes.get(metric_id) else "the same leader in every slice"
        lines.append(f"{ctx.short(metric_id)}: {verdict} — {per_slice} (all items: "
                     f"{', '.join(overall.get(metric_id) or ['—'])}).")
    blocks.append(Bullets(tuple(lines), f"Leaders per slice (slices of at least {minimum} items count for 'changes')"))
    all_rows = "all items"
    for metric_id in summary["key_metrics"]:
        rows = []
        for g in groups:
            cells = []
            for name in systems:
                entry = slices[g]["systems"][name]["metrics"].get(metric_id) or {}
                mark = None
                if entry.get("value") is None:
                    mark = ctx.ledger.mark(name, "undefined", f"{ctx.short(metric_id)} in slice {g}",
                                           entry.get("undefined") or "0/0")
                cells.append(Cell(entry.get("value"), "score", mark))
            rows.append((f"{g} (n={slices[g]['n_items']}{', small' if g in small else ''})", cells))
        rows.append((all_rows, [Cell((ctx.document["systems"][name]["metrics"].get(metric_id) or {}).get("value"),
                                     "score") for name in systems]))
        columns = tuple(Column(name, rotate=len(systems) > 3) for name in systems)
        blocks.append(_fit_systems(Table(
            f"table-slices-{metric_id}", f"{ctx.name(metric_id)} per slice (×100); best per row in bold.", "Slice",
            columns, _best_per_row(rows), _density(len(columns) + 1)), systems))
    return Section("slices", SECTION_TITLES["slices"], tuple(blocks))


SCORE_COLUMNS = (("roc_auc_macro", "AUC macro", "One-vs-rest ROC AUC, unweighted mean over classes"),
                 ("roc_auc_weighted", "AUC weighted", "One-vs-rest ROC AUC weighted by gold prevalence"),
                 ("average_precision_macro", "AP macro", "Average precision per class, unweighted mean"),
                 ("log_loss", "Log loss", "−(1/N) Σ ln p(gold); lower is better"),
                 ("brier", "Brier", "(1/N) Σ_i Σ_c (p_ic − y_ic)², in [0, 2]; lower is better"),
                 ("ece", "ECE", "Top-label expected calibration error, 15 equal-width bins; lower is better"))


def scores_section(ctx: Context) -> Section | None:
    """Ranking and calibration metrics of the systems that gave per-class scores, and a reliability
    diagram (``systems.NAME.scores`` and ``score_summary``; :mod:`auditor.scores`)."""
    summary = ctx.document.get("score_summary")
    if not summary:
        return None
    systems = [s for s in ctx.systems if s in summary["systems"]]
    lower = set(summary.get("lower_is_better") or ())
    blocks: list[Any] = [Paragraph(
        f"{len(systems)} of {len(ctx.systems)} systems gave one score per label; their predicted label is the file's "
        "label column, else the highest score (a tie goes to the label whose name sorts first). AUC and AP rank items "
        "by each class's score (one-vs-rest, tied scores count ½); log loss, Brier (multi-class: sum over classes of "
        "the squared difference from the one-hot gold, averaged over items) and ECE (top label, "
        f"{summary['ece_bins']} equal-width confidence bins, (m−1)/M < confidence ≤ m/M) need probabilities: rows "
        f"summing to 1 within {summary['sum_tolerance']:g}, used as given. Intervals: {summary['intervals']}.")]
    rows = []
    for name in systems:
        cells = []
        for metric_id, short, _ in SCORE_COLUMNS:
            entry = ctx.document["systems"][name]["scores"][metric_id]
            mark = None
            if entry.get("value") is None:
                mark = ctx.ledger.mark(name, "undefined", short, entry.get("undefined") or "undefined")
            ci = entry.get("ci") or (None, None)
            cells.append(Cell(entry.get("value"), "number", mark, low=ci[0], high=ci[1]))
        rows.append((name, cells))
    best = []
    for index, (metric_id, _, _) in enumerate(SCORE_COLUMNS):
        values = [cells[index].value for _, cells in rows if cells[index].value is not None]
        best.append(None if len(values) < 2 else (min(values) if metric_id in lower else max(values)))
    table_rows = tuple(Row(name, tuple(Cell(c.value, c.kind, c.mark, best[i] is not None and c.value == best[i],
                                            c.low, c.high) for i, c in enumerate(cells))) for name, cells in rows)
    blocks.append(Table("table-scores", "Ranking and calibration metrics of the per-class scores (three decimals, "
                                        "not ×100); best per column in bold (highest AUC and AP, lowest log loss, "
                                        "Brier and ECE).", "System",
                        tuple(Column(short, title) for _, short, title in SCORE_COLUMNS), table_rows,
                        _density(len(SCORE_COLUMNS) + 3)))
    if summary.get("notes"):
        blocks.append(Bullets(tuple(summary["notes"]), "Intervals not computed (time budget)"))
    reliability = {name: summary["reliability"][name] for name in systems if summary["reliability"].get(name)}
    if ctx.figures and reliability:
        blocks.append(Figure("fig-reliability", f"Reliability diagram: mean confidence against accuracy in each of "
                                                f"the {summary['ece_bins']} confidence bins (empty bins left out; "
                                                "point area ~ items in the bin). On the dashed diagonal a system is "
                                                "calibrated; below it, over-confident.",
                             ctx.charts.reliability_chart(reliability)))
    return Section("scores", SECTION_TITLES["scores"], tuple(blocks))


def _best_per_row(rows: list[tuple[str, list[Cell]]]) -> tuple[Row, ...]:
    """Mark the best defined value of every row strong (ties all strong)."""
    marked = []
    for header, cells in rows:
        values = [c.value for c in cells if isinstance(c.value, (int, float))]
        best = max(values) if len(values) > 1 else None
        marked.append(Row(header, tuple(Cell(c.value, c.kind, c.mark, best is not None and c.value is not None
                                             and c.value >= best - 1e-12, c.low, c.high) for c in cells)))
    return tuple(marked)


def properties_section(ctx: Context) -> Section | None:
    """Declared, Opitz Table 5 and probed values side by side; every disagreement with its witness."""
    props = ctx.document.get("properties")
    if not props:
        return None
    names = (("monotonicity", "PI"), ("class_sensitivity", "PII"), ("decomposability", "PIII"),
             ("prevalence_invariance", "PIV"), ("chance_correction", "PV"))
    rows, witnesses, disagreements, declared_notes = [], [], [], []
    matrices = {s: ctx.document["systems"][s]["confusion"] for s in ctx.systems}
    for metric_id, entry in props.items():
        literature = entry.get("literature") or None
        declared = entry.get("declared") or {}
        cells = []
        for key, _ in names:
            paper = "—" if literature is None else _mark(literature.get(key), key in literature.get("by_calibration", []))
            cells.append(Cell(f"{_mark(entry.get(key))} / {paper} / {_mark(declared.get(key))}"))
        cells.append(Cell(_chance_text(entry)))
        cells.append(Cell("—" if literature is None else (literature.get("chance_value") or "—")))
        agrees = entry.get("agrees_with_literature")
        cells.append(Cell("not in table" if agrees is None else "agrees" if agrees else "DIFFERS"))
        rows.append(Row(ctx.short(metric_id) + (" (cal.)" if ctx.family(metric_id) == "calibrated" else ""),
                        tuple(cells)))
        found = entry.get("witnesses") or {}
        for record in entry.get("disagreements") or []:
            key = record["property"]
            disagreements.append(
                f"{ctx.name(metric_id)}, {dict(names)[key]}: probed {_mark(record['probed'])}, Table 5 "
                f"{_mark(record['literature'])} ({record['section']}). {record['explanation']}"
                + (f" Witness: {_witness_text(found[key], ctx.labels, matrices)}" if key in found else ""))
        if entry.get("note") and "Probe differs from the declared" in entry["note"] and not entry.get("disagreements"):
            declared_notes.append(f"{ctx.name(metric_id)}: {entry['note']}")
        if ctx.family(metric_id) == "calibrated":
            continue
        for key, label in names:
            if key in found:
                witnesses.append(Row(ctx.short(metric_id),
                                     (Cell(label), Cell(_witness_text(found[key], ctx.labels, matrices)))))
    columns = tuple(Column(label, key.replace("_", " ")) for key, label in names) + (
        Column("ω(k) probed"), Column("Table 5 ω(n)/Ω"), Column("vs Table 5"))
    blocks: list[Any] = [
        Paragraph("Properties after Opitz (2024, §3): PI monotonicity (one more correct item never lowers the score, "
                  "one more error never raises it), PII class sensitivity, PIII class decomposability (structural, "
                  "declared), PIV prevalence invariance, PV chance correction — bounded (every classifier that ignores "
                  "its input scores at most ω(k), a bound that depends on k only), strict (all exactly ω(k)), complete "
                  "(one constant Ω for every k), or none. Each cell reads probed / Opitz 2024 §6.1 Table 5 as printed / "
                  "declared by the metric record; (✓) marks a property the table says is obtained through prevalence "
                  "calibration (§5.2). PI, PII, PIV and PV are probed on random and adversarial confusion matrices and "
                  "on this data; the calibrated variants are probed like any metric."),
        Table("table-properties", "Metric properties: probed / Table 5 / declared (cal. = prevalence-calibrated "
              "variant).", "Metric", columns, tuple(rows), "small"),
    ]
    if disagreements:
        blocks.append(Bullets(tuple(disagreements), "Where the probes and Table 5 differ, and why"))
    if declared_notes:
        blocks.append(Bullets(tuple(declared_notes), "Where the probes and a metric's declaration differ"))
    if witnesses:
        blocks.append(Table("table-witnesses", "Witnesses: the smallest counter-example each probe found "
                            "(matrices rows gold, columns predicted).", "Metric",
                            (Column("Property"), Column("Witness")), tuple(witnesses), "small"))
    return Section("properties", SECTION_TITLES["properties"], tuple(blocks))


def _mark(value: Any, by_calibration: bool = False) -> str:
    """✓ / ✗ for a property, the PV level as a word; "(✓)" when obtained through calibration."""
    text = "✓" if value is True else "✗" if value is False else "—" if value is None else str(value)
    if value in (False, "none") and by_calibration:
        text = ("✗" if value is False else "none") + "(✓)"
    return text


def _chance_text(entry: Mapping[str, Any]) -> str:
    if entry.get("chance_value") is not None:
        return f"Ω = {entry['chance_value']:g}"
    if entry.get("chance_formula"):
        return entry["chance_formula"] if entry.get("chance_correction") != "none" else f"({entry['chance_formula']})"
    return "—"


_OMEGA = re.compile(r"ω\(k\) = 1/(\d+)")
_CLASS = re.compile(r"\b(gold class|class|predicted) (\d+)\b")
_CELL = re.compile(r"\bcell \((\d+), (\d+)\)")


def _witness_text(witness: Any, labels: Sequence[str] = (), matrices: Mapping[str, Any] | None = None) -> str:
    """A probe's witness in words. ω(k) is spelled out; classes are named by the data's labels when
    the witness is a system's own confusion matrix, else the synthetic matrix (and the one it was
    changed into) is shown so that "class 2" has a meaning (rows gold, columns predicted, classes
    numbered from 0)."""
    if not isinstance(witness, Mapping):
        return str(witness)
    if "description" not in witness:
        return "; ".join(f"{k} = {v}" for k, v in witness.items())
    text = _OMEGA.sub(lambda m: f"1/{m.group(1)} (the chance bound ω(k) = 1/k of Opitz 2024 §3.5, k = {m.group(1)} "
                                "classes)", str(witness["description"]))
    before, after = witness.get("before"), witness.get("after")
    own = next((s for s, matrix in (matrices or {}).items() if before is not None and matrix == before), None)
    if own is not None and len(labels) == len(before):
        name = lambda i: f"“{labels[int(i)]}”"  # noqa: E731
        text = _CELL.sub(lambda m: f"cell ({name(m.group(1))}, {name(m.group(2))})", text)
        text = _CLASS.sub(lambda m: f"{m.group(1)} {name(m.group(2))}", text)
        return f"on {own}'s confusion matrix: {text}"
    if before is not None:
        text += f"; witness C = {_matrix_text(before)}"
        if after is not None:
            text += f" → {_matrix_text(after)}"
        text += " (rows gold, columns predicted, classes numbered from 0)"
    return text


def _matrix_text(matrix: Sequence[Sequence[float]]) -> str:
    if len(matrix) > 6:
        return f"({len(matrix)}×{len(matrix)} matrix in audit.json)"
    return "[" + " / ".join(" ".join(f"{x:g}" for x in row) for row in matrix) + "]"


def rank_section(ctx: Context) -> Section | None:
    doc = ctx.document
    rankings = doc.get("rankings")
    if not rankings:
        return None
    metric_ids = [m for m in rankings if m in ctx.metric_ids() or True]
    blocks: list[Any] = [Paragraph("Rank of every system under every metric (1 = best). Systems are listed in the "
                                   "order of the primary metric.")]
    first = [s for s in ctx.systems if s in rankings[metric_ids[0]]]
    table = doc.get("rank_table") or {}
    ranks = {s: {m: (table.get(s) or {}).get(m, rankings[m].index(s) + 1 if s in rankings[m] else None)
                 for m in metric_ids} for s in first}
    rows = [Row(s, tuple(Cell(ranks[s][m], "rank") for m in metric_ids)) for s in first]
    blocks.append(Table("table-ranks", "Rank per metric (1 = best; tied systems share the mean rank).", "System",
                        tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), tuple(rows),
                        _density(len(metric_ids))))
    if ctx.figures and len(first) > 1:
        blocks.append(Figure("fig-bump", "Rank of each system under each metric (bump chart); tied systems share "
                                         "the mean rank and are drawn at the same height. Each system has its own "
                                         "colour and point shape.",
                             ctx.charts.bump_chart(ranks, metric_ids, first, ctx.short)))
    agreement = doc.get("rank_agreement") or {}
    kendall = agreement.get("kendall")
    if kendall and ctx.figures:
        blocks.append(Figure("fig-kendall", "Kendall τ-b between the system rankings of every pair of metrics.",
                             ctx.charts.tau_heatmap(kendall, ctx.short)))
    flips = doc.get("flips") or []
    if flips:
        shown = flips[:FLIPS_SHOWN]
        rows = []
        for f in shown:
            significant = f.get("significant")
            where = [m for m, v in significant.items() if v] if isinstance(significant, Mapping) else []
            rows.append(Row(f"{f['a']} vs {f['b']}", (
                Cell(", ".join(ctx.short(m) for m in f.get("a_better_under", []))),
                Cell(", ".join(ctx.short(m) for m in f.get("b_better_under", []))),
                Cell(", ".join(ctx.short(m) for m in where) or "none"))))
        caption = (f"Pairs of systems whose order flips between metrics ({len(flips)} pairs"
                   + (f"; the first {FLIPS_SHOWN} shown, all in audit.json" if len(flips) > FLIPS_SHOWN else "")
                   + "). Columns: metrics under which the first, or the second, system ranks higher; metrics under "
                     "which the difference is significant.")
        blocks.append(Table("table-flips", caption, "Pair", (Column("first higher under"),
                            Column("second higher under"), Column("significant under")), tuple(rows), "small"))
    return Section("rank-disagreement", SECTION_TITLES["rank-disagreement"], tuple(blocks))


def deployment_section(ctx: Context) -> Section | None:
    deployment = ctx.document.get("deployment")
    if not deployment or not deployment.get("metrics"):
        return None
    values = deployment["metrics"]
    systems = [s for s in ctx.systems if s in values]
    metric_ids = list(values[systems[0]]) if systems else []
    target = ", ".join(f"{label} {100 * share:.1f}%" for label, share in (deployment.get("target") or {}).items())
    blocks: list[Any] = [Paragraph(f"Gold rows re-weighted to the deployment prevalence ({deployment.get('name', '')}: "
                                   f"{target}); N is kept, so counts become fractional.")]
    rows = [(s, [Cell(values[s].get(m), "score") for m in metric_ids]) for s in systems]
    blocks.append(Table("table-deployment", "Metric values at the deployment prevalence (×100).", "System",
                        tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), _with_best(rows),
                        _density(len(metric_ids))))
    if deployment.get("notes"):
        blocks.append(Bullets(tuple(str(n) for n in deployment["notes"]), "Notes"))
    return Section("deployment", SECTION_TITLES["deployment"], tuple(blocks))


def significance_section(ctx: Context) -> Section | None:
    doc = ctx.document
    if not any(doc.get(key) for key in ("tests", "ranks", "best_set")):
        return None
    blocks: list[Any] = []
    stats = doc.get("statistics") or {}
    pairs = [(str(k).replace("_", " "), str(v)) for k, v in stats.items()
             if isinstance(v, (str, int, float)) and k not in ("tests", "family", "rounds_rule")]
    pairs += [(k.replace("_", " "), str(v)) for k, v in (stats.get("tests") or {}).items()]
    if pairs:
        blocks.append(Facts(tuple(pairs)))
    best_set = doc.get("best_set") or {}
    if best_set:
        metric_ids = list(best_set)
        rows = tuple(Row(s, tuple(Cell((best_set[m].get("p_adjusted") or {}).get(s), "p")
                                  if s != best_set[m].get("top") else Cell("top") for m in metric_ids))
                     for s in ctx.systems)
        blocks.append(Table("table-best", "Adjusted p-value of each system against the top system of each metric "
                            "(the best set is the top system and every system with p ≥ α).", "System",
                            tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), rows,
                            _density(len(metric_ids))))
        blocks.append(Bullets(tuple(f"{ctx.name(m)}: {', '.join(v.get('systems', []))} ({v.get('test', '')})"
                                    for m, v in best_set.items()), "Best set per metric"))
    ranks = doc.get("ranks")
    if ranks:
        keys = [m for m in ctx.key_metrics() if m in ranks] or list(ranks)[:6]
        rows = tuple(Row(s, tuple(Cell((ranks[m].get(s) or {}).get("p_best"), "share") for m in keys))
                     for s in ctx.systems)
        blocks.append(Table("table-pbest", "Bootstrap probability that each system ranks first (%).", "System",
                            tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys))))
    tests = doc.get("tests") or []
    if tests and len(ctx.systems) <= MATRIX_MAX_SYSTEMS:
        blocks += [_pairwise_matrix(ctx, metric_id, entry.get("test", ""), tests) for metric_id, entry in best_set.items()]
    if tests:
        blocks.append(Paragraph(_tests_text(tests, stats)))
    return Section("significance", SECTION_TITLES["significance"], tuple(blocks))


def _tests_text(tests: Sequence[Mapping[str, Any]], stats: Mapping[str, Any]) -> str:
    """What was tested, once: one p-value per pair and metric, which test, the family, the rounds."""
    methods = {t.get("method") for t in tests}
    metrics = sorted({str(t.get("metric")) for t in tests})
    parts = [f"{len(tests)} pairwise tests, one per pair of systems and metric ({', '.join(metrics)})"]
    if "mcnemar_exact" in methods:
        parts.append("accuracy uses the exact McNemar test, whose p-value has no Monte Carlo floor")
    if "approximate_randomisation" in methods:
        parts.append("the other metrics, which have no exact test, use approximate randomisation with "
                     f"{stats.get('randomisation_rounds')} rounds ({stats.get('rounds_rule', '')})")
    text = "; ".join(parts) + "."
    if stats.get("family"):
        text += f" Family: {stats['family']}."
    return text + " Every pair with its p-value and adjusted p-value is listed in audit.json under “tests”."


def _pairwise_matrix(ctx: Context, metric_id: str, method: str, tests: Sequence[Mapping[str, Any]]) -> Table:
    """Adjusted p-value of every pair of systems under one metric and its primary test.

    A Monte Carlo p-value at its floor 1/(R + 1) (no round as extreme as the observed
    difference) is an upper bound, shown as "≤ bound".
    """
    floor = ((ctx.document.get("statistics") or {}).get("p_floor") or {}).get(method)
    cells: dict[tuple[str, str], Cell] = {}
    bounded = False
    for test in tests:
        if test.get("metric") == metric_id and test.get("method") == method:
            value, raw = test.get("p_adjusted"), test.get("p")
            at_floor = floor is not None and value is not None and raw is not None and raw <= floor * (1 + 1e-9)
            cell = Cell(_p_bound(value), "text") if at_floor and value >= 0.001 else Cell(value, "p")
            bounded |= at_floor
            cells[(test["a"], test["b"])] = cells[(test["b"], test["a"])] = cell
    rows = tuple(Row(a, tuple(Cell("·") if a == b else cells.get((a, b), Cell(None, "p")) for b in ctx.systems))
                 for a in ctx.systems)
    note = (" ≤: no randomisation round was as extreme as the observed difference, so the p-value is at most "
            "this bound (the floor 1/(R + 1), adjusted)." if bounded else "")
    return Table(f"table-pairs-{metric_id}",
                 f"{ctx.name(metric_id)}: adjusted p-value of each pair of systems ({method.replace('_', ' ')}; "
                 f"{ctx.document.get('statistics', {}).get('correction', '')} over the family in the statistics above)."
                 + note,
                 "System", tuple(Column(s, s, rotate=True) for s in ctx.systems), rows, _density(len(ctx.systems)))


def _p_bound(value: float) -> str:
    """An upper bound on a p-value, in the report's p format (three decimals)."""
    return f"≤{value:.3f}"


def recommendation_section(ctx: Context) -> Section | None:
    """Recommended metrics with formulas, measured reasons and the passages they follow; metrics to
    avoid; notes; where the two papers differ."""
    rec = ctx.document.get("recommendation")
    if not rec:
        return None
    blocks: list[Any] = []
    for entry in rec.get("metrics", []):
        latex = entry.get("formula") or getattr(ctx.records.get(entry["id"]), "formula", "")
        facts = tuple(("why", r) for r in entry.get("reasons", [])) + tuple(
            ("source", _source_text(source)) for source in entry.get("sources", []))
        blocks.append(Definition(f"recommended-{entry['id']}", f"{ctx.name(entry['id'])} ({entry.get('role', '')})",
                                 Formula(ctx.name(entry["id"]), latex, ctx.formula_svg(latex) if ctx.figures else ""),
                                 Facts(facts)))
    if rec.get("avoid"):
        blocks.append(Bullets(tuple(
            f"{ctx.name(a['id'])}: {'; '.join(a.get('reasons', []))}"
            + (f" ({'; '.join(_source_text(s) for s in a['sources'])})" if a.get("sources") else "")
            for a in rec["avoid"]), "Avoid here"))
    if rec.get("notes"):
        blocks.append(Bullets(tuple(note["text"] for note in rec["notes"]), "Notes"))
    if rec.get("papers_differ"):
        blocks.append(Bullets(tuple(f"{item['topic']}: {item['text']}" for item in rec["papers_differ"]),
                              "Where Opitz (2024) and Vickers et al. (2024) differ"))
    if rec.get("rules_fired"):
        blocks.append(Bullets(tuple(str(r) for r in rec["rules_fired"]), "Rules that fired (listed in the appendix)"))
    return Section("recommendation", SECTION_TITLES["recommendation"], tuple(blocks))


def _source_text(source: Mapping[str, Any]) -> str:
    """``Opitz 2024 §8: “quote”`` from a rule's source record (file, section, quote)."""
    author = "Opitz 2024" if source.get("file", "").startswith("opitz") else "Vickers et al. 2024"
    return f"{author} {source.get('section', '')}: \u201c{source.get('quote', '')}\u201d"


def definitions_section(ctx: Context) -> Section:
    blocks: list[Any] = [Paragraph(
        "Notation: C_ij counts items of gold class i predicted as j (rows gold, columns predicted); N items; "
        "p_i = Σ_j C_ij / N prevalence; b_j = Σ_i C_ij / N bias; k labels averaged over.")]
    calibrated = []
    for metric_id in ctx.metric_ids():
        record = ctx.records.get(metric_id)
        if record is None:
            continue
        if record.family == "calibrated":
            calibrated.append(f"{metric_id}: {record.name}")
            continue
        facts = [("id", metric_id), ("range", f"[{record.range[0]:g}, {record.range[1]:g}]")]
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
        blocks.append(Definition(metric_id, record.name,
                                 Formula(record.name, record.formula,
                                         ctx.formula_svg(record.formula) if ctx.figures else ""),
                                 Facts(tuple(facts))))
    if calibrated:
        latex = r"C'_{ij} = \frac{N}{k}\,\frac{C_{ij}}{\sum_l C_{il}}"
        blocks.append(Definition("calibrated", "Prevalence-calibrated variants (Opitz 2024 §5.2)",
                                 Formula("calibration", latex, ctx.formula_svg(latex) if ctx.figures else ""),
                                 Facts((("definition", "the base metric computed on C′, where every gold class has "
                                         "prevalence 1/k; calibrated accuracy equals macro recall and calibrated "
                                         "weighted F1 equals the macro F1 of the calibrated matrix (Opitz §4.6)"), ("variants", "; ".join(calibrated))))))
    return Section("definitions", SECTION_TITLES["definitions"], tuple(blocks))


def confusion_section(ctx: Context) -> Section:
    labels, systems = ctx.labels, ctx.systems
    matrices = {s: ctx.document["systems"][s]["confusion"] for s in systems}
    blocks: list[Any] = [Paragraph("Orientation: rows = gold class, columns = predicted class (scikit-learn's "
                                   "convention; some papers use the transpose). Heatmap colours are row-normalised "
                                   "(share of each gold class); the numbers are counts.")]
    if len(labels) <= 3:
        if ctx.figures:
            blocks.append(Figure("fig-confusion", "Confusion matrix of every system (rows gold, columns predicted).",
                                 ctx.charts.confusion_grid(labels, matrices)))
        pairs = [(i, j) for i in range(len(labels)) for j in range(len(labels))]
        rows = tuple(Row(s, tuple(Cell(matrices[s][i][j], "count", strong=i == j) for i, j in pairs)) for s in systems)
        blocks.append(Table("table-confusion", "Counts per system: column “g → p” counts items of gold class g "
                            "predicted as p.", "System",
                            tuple(Column(f"{labels[i]} → {labels[j]}", rotate=True) for i, j in pairs),
                            rows, _density(len(pairs) + 1)))
        return Section("confusion", SECTION_TITLES["confusion"], tuple(blocks))
    if ctx.figures and len(labels) <= 6:
        blocks.append(Figure("fig-confusion", "Confusion matrix of every system (rows gold, columns predicted).",
                             ctx.charts.confusion_grid(labels, matrices)))
    for index, s in enumerate(systems):
        matrix = matrices[s]
        if ctx.figures and len(labels) > 6:
            blocks.append(Figure(f"fig-confusion-{index}", f"{s}: confusion matrix, row-normalised colours.",
                                 ctx.charts.confusion_heatmap(labels, matrix, s)))
        if len(labels) <= 12:
            rows = tuple(Row(g, tuple(Cell(v, "count", strong=(i == j)) for j, v in enumerate(matrix[i])))
                         for i, g in enumerate(labels))
            blocks.append(Table(f"table-confusion-{index}", f"{s}: counts (rows gold, columns predicted).",
                                "gold \\ predicted", tuple(Column(label, rotate=len(labels) > 6) for label in labels),
                                rows, _density(len(labels))))
    return Section("confusion", SECTION_TITLES["confusion"], tuple(blocks))


def rules_section(ctx: Context) -> Section | None:
    rules = ctx.extra.get("rules")
    if not rules:
        return None
    return Section("rules", SECTION_TITLES["rules"], (Bullets(tuple(rules)),))


def reproducibility_section(ctx: Context) -> Section:
    doc = ctx.document
    blocks: list[Any] = [
        Paragraph("Every number in this report is reproducible from the inputs whose SHA-256 hashes are listed below "
                  "and the options in the signature (auditor version, bootstrap resamples, seed, interval method, "
                  "correction)."),
        Facts((("signature", doc["signature"]), ("schema", doc.get("schema", "")))),
    ]
    sources = doc.get("sources") or {}
    if sources:
        rows = tuple(Row(name, (Cell(source.get("path") or source.get("kind") or ""), Cell(source.get("sha256") or ""),
                                Cell(source.get("n_items"), "count")))
                     for name, source in sources.items())
        blocks.append(Table("table-sources", "Inputs and their SHA-256 hashes.", "Input",
                            (Column("Path"), Column("SHA-256"), Column("Items")), rows, "tiny"))
    return Section("reproducibility", SECTION_TITLES["reproducibility"], tuple(blocks))


def gold_reliability_section(ctx: Context) -> Section | None:
    """Agreement between the annotators of the gold (``--annotators``) and the ceiling it sets."""
    entry = ctx.document.get("gold_reliability")
    if not entry:
        return None
    definitions = entry.get("definitions") or {}
    names = {"raw_agreement": "Raw agreement", "unanimous": "Unanimous items", "cohen_kappa": "Cohen's κ (mean over pairs)",
             "fleiss_kappa": "Fleiss' κ", "krippendorff_alpha": "Krippendorff's α (nominal)"}
    undefined = entry.get("undefined") or {}
    rows = tuple(Row(title, (Cell(entry.get(key), "score"), Cell(undefined.get(key) or definitions.get(key, ""))))
                 for key, title in names.items())
    annotators = entry.get("annotators") or []
    blocks: list[Any] = [
        Paragraph(f"{len(annotators)} annotators ({', '.join(annotators)}) labelled the {entry.get('n_items')} gold "
                  "items. Inter-annotator agreement measures the quality of the gold and the subjectivity of the "
                  "task, and must be measured and reported; raw agreement ignores agreement by chance, which the "
                  "kappas and alpha subtract (slides-nlp-evaluation-protocol.md, 'Measuring inter annotator "
                  "agreement', 'Raw agreement drawback', 'Cohen's kappa'; 'Interpretation of Cohen's kappa': κ above "
                  "0.6 is usually considered ok and above 0.8 good)."),
        Table("table-agreement", "Agreement between the annotators (×100).", "Coefficient",
              (Column("Value"), Column("Definition")), rows, "small"),
    ]
    pairs = entry.get("cohen_kappa_pairs") or []
    if len(annotators) > 2:
        blocks.append(Table("table-agreement-pairs", "Cohen's κ of every pair of annotators (×100).", "Annotator",
                            tuple(Column(a) for a in annotators),
                            tuple(Row(a, tuple(Cell(x, "score") for x in row)) for a, row in zip(annotators, pairs)),
                            _density(len(annotators) + 1)))
    ceiling = entry.get("ceiling") or {}
    systems = [s for s in ctx.systems if "accuracy" in ctx.document["systems"][s]["metrics"]]
    if systems:
        rows = [Row("ceiling (annotators)", (Cell(ceiling.get("accuracy"), "score"), Cell(ceiling.get("kappa"), "score")))]
        rows += [Row(s, (ctx.score_cell(s, "accuracy"), ctx.score_cell(s, "kappa"))) for s in systems]
        blocks.append(Table("table-ceiling", "The systems against the ceiling set by agreement: raw agreement for "
                            "accuracy, mean Cohen's κ for κ (×100).", "System",
                            (Column(ctx.short("accuracy"), ctx.name("accuracy")), Column(ctx.short("kappa"), ctx.name("kappa"))),
                            tuple(rows), "small"))
    blocks.append(Paragraph("What the ceiling means: " + str(ceiling.get("meaning", ""))))
    above = ceiling.get("systems_above") or {}
    blocks.append(Bullets(tuple(f"{s} scores above the annotators' agreement in {', '.join(ms)}" for s, ms in above.items())
                          or ("No system scores above the annotators' agreement.",), "Systems above the ceiling"))
    return Section("gold-reliability", SECTION_TITLES["gold-reliability"], tuple(blocks))


BUILDERS: tuple[Callable[[Context], Section | None], ...] = (
    summary_section, data_section, gold_reliability_section, baselines_section, metrics_section, per_class_section,
    slices_section, scores_section, properties_section,
    rank_section, deployment_section, significance_section, recommendation_section, definitions_section, confusion_section,
    rules_section,
)


def build_document(document: Mapping[str, Any], records: Mapping[str, Any], figures: bool = True,
                   rules: Sequence[str] | None = None, title: str = "Metric audit") -> Report:
    """The report model of an audit JSON ``document``; ``records`` maps metric id -> Metric."""
    from . import charts

    ledger = Ledger()
    ctx = Context(document, records, ledger, figures, charts, charts.formula_svg, {"rules": rules})
    sections = [section for builder in BUILDERS if (section := builder(ctx)) is not None]
    entries = ledger.freeze()
    if entries:
        rows = tuple(Row(str(e.number), (Cell(e.system), Cell(e.state), Cell(e.where), Cell(e.text)), f"ledger-{e.number}")
                     for e in entries)
        sections.append(Section("ledger", SECTION_TITLES["ledger"], (
            Paragraph("Undefined values (0/0) are shown as “—”; values computed with a convention for a 0/0 part carry "
                      "a superscript number. Each number points to an entry here."),
            Table("table-ledger", "Undefined-value ledger.", "#",
                  (Column("System"), Column("State"), Column("Where"), Column("What and which convention")),
                  rows, "small"),
        )))
    sections.append(reproducibility_section(ctx))
    letters = iter("ABCDEFGH")
    sections = [Section(x.id, f"Appendix {next(letters)}: {x.title}", x.blocks) if x.id in APPENDICES else x
                for x in sections]
    gold = (document.get("sources") or {}).get("gold", {}).get("path")
    subtitle = f"{len(document['systems'])} systems scored against {gold}" if gold else _profile_line(document)
    return Report(title, subtitle, document["signature"], SCALE_NOTE, tuple(sections), entries)


def recommendation_rules() -> list[str] | None:
    """Rule texts from ``auditor.recommend.RULES`` when that module exists."""
    try:
        from .recommend import RULES  # type: ignore[attr-defined]
    except ImportError:
        return None
    texts = []
    for rule in RULES:
        if isinstance(rule, str):
            texts.append(rule)
        else:
            name = getattr(rule, "id", None) or getattr(rule, "name", "")
            text = getattr(rule, "text", None) or getattr(rule, "description", None) or str(rule)
            refs = getattr(rule, "references", None)
            texts.append(f"{name}: {text}" + (f" ({'; '.join(refs)})" if refs else "") if name else text)
    return texts


def build(audit: Any, figures: bool = True) -> Report:
    """The report model of an :class:`~auditor.pipeline.Audit`."""
    from .registry import REGISTRY

    # per-class records too: the recommendation can name class_recall (Opitz §8)
    records = {metric.id: metric for metric in (*audit.metrics, *REGISTRY.per_class())}
    return build_document(audit.to_json(), records, figures, recommendation_rules())
