"""The property table: declared, Opitz 2024 Table 5 and probed values; each disagreement with its witness."""
from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from auditor.analyses.properties import PropertyResult, Witness
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Bullets, Cell, Column, Paragraph, Row, Section, Table
from auditor.report.sections import section


@section(90)
def properties_section(ctx: Context) -> Section | None:
    """Declared, Opitz Table 5 and probed values side by side; every disagreement with its witness."""
    table = ctx.audit.properties if ctx.audit is not None else None
    if table is None or not table.results:
        return None
    names = (("monotonicity", "PI"), ("class_sensitivity", "PII"), ("decomposability", "PIII"),
             ("prevalence_invariance", "PIV"), ("chance_correction", "PV"))
    rows, disagreements, declared_notes = [], [], []
    for entry in table:
        metric_id, literature = entry.metric_id, entry.literature
        cells = []
        for key, _ in names:
            paper = "—" if literature is None else _mark(literature.get(key),
                                                         key in literature.get("by_calibration", []))
            cells.append(Cell(f"{_mark(entry.probed[key])} / {paper} / {_mark(getattr(entry.declared, key))}"))
        cells.append(Cell(_chance_text(entry)))
        cells.append(Cell("—" if literature is None else (literature.get("chance_value") or "—")))
        agrees = entry.agrees_with_literature
        cells.append(Cell("not in table" if agrees is None else "agrees" if agrees else "DIFFERS"))
        rows.append(Row(ctx.short(metric_id) + (" (cal.)" if ctx.family(metric_id) == "calibrated" else ""),
                        tuple(cells)))
        found = entry.witnesses
        records = entry.disagreement_records()
        for record in records:
            key = record.property
            disagreements.append(
                f"{ctx.name(metric_id)}, {dict(names)[key]}: probed {_mark(record.probed)}, Table 5 "
                f"{_mark(record.literature)} ({record.section}). {record.explanation}"
                + (f" Witness: {_witness_text(found[key], ctx.labels)}" if key in found else ""))
        if entry.declared_differs and not records:
            declared_notes.append(f"{ctx.name(metric_id)}: {entry.note}")
    columns = tuple(Column(label, key.replace("_", " ")) for key, label in names) + (
        Column("ω(k) probed"), Column("Table 5 ω(n)/Ω"), Column("vs Table 5"))
    blocks: list[Any] = [
        Paragraph(PROPERTY_NAMES),
        _findings_table(ctx, table),
        Paragraph("The full table: each cell reads probed / Opitz 2024 §6.1 Table 5 as printed / declared by the "
                  "metric record; (✓) marks a property the table says is obtained through prevalence calibration "
                  "(§5.2). PI, PII, PIV and PV are probed on random and adversarial confusion matrices and on this "
                  "data's matrices, the calibrated variants like any metric; PIII is structural and declared. The "
                  "smallest counter-example of each probe is in the appendix “Property witnesses”."),
        Table("table-properties", "Metric properties: probed / Table 5 / declared (cal. = prevalence-calibrated "
              "variant).", "Metric", columns, tuple(rows), "small", for_paper=True),
    ]
    if disagreements:
        blocks.append(Bullets(tuple(disagreements),
                              "Where the probes and Table 5 differ, and why (matrices: rows = gold "
                              "class, columns = predicted class, classes numbered from 0)"))
    if declared_notes:
        blocks.append(Bullets(tuple(declared_notes), "Where the probes and a metric's declaration differ"))
    return Section("properties", SECTION_TITLES["properties"], tuple(blocks))


#: PI–PV in one sentence each (Opitz 2024 §3), where the report first uses them.
PROPERTY_NAMES = (
    "Properties after Opitz (2024, §3): PI monotonicity (one more correct item never lowers the score, one more "
    "error never raises it), PII class sensitivity (the score depends on which class an item is in), PIII class "
    "decomposability (a mean over per-class scores), PIV prevalence invariance (rescaling a gold class's items "
    "leaves the score unchanged), PV chance correction: bounded (every classifier that ignores its input scores at "
    "most ω(k), a bound that depends on the number of classes k only), strict (all exactly ω(k)), complete (one "
    "constant Ω for every k), or none.")


#: The short form, where the full sentences are a section away (the appendix of witnesses).
PROPERTY_LEGEND = (
    "PI monotonicity, PII class sensitivity, PIV prevalence invariance, PV chance correction: each defined in the "
    "section “Metric properties” (after Opitz 2024, §3).")


def _findings_table(ctx: Context, table: Any) -> Table:
    """What the probes found on this data: the range of chance scores at this k and the properties
    that failed on the systems' own confusion matrices."""
    k = str(len(ctx.labels))
    names = {"monotonicity": "PI", "prevalence_invariance": "PIV"}  # a witness of these is a failure
    rows = []
    for entry in table:
        if ctx.family(entry.metric_id) == "calibrated":
            continue
        chance = entry.chance_baselines.get(k)
        span = (Cell("—") if chance is None or chance.min is None else
                Cell(f"{_pct(chance.min)} to {_pct(chance.max)}"))
        broken = [f"{names[key]} ({'on ' + w.system if w.system is not None else 'synthetic'})"
                  for key, w in entry.witnesses.items() if key in names]
        rows.append(Row(ctx.short(entry.metric_id), (
            span, Cell(_mark(entry.probed["chance_correction"])),
            Cell(", ".join(broken) if broken else "none"))))
    return Table("table-properties-data", f"What the probes found on this data (k = {k} classes): the scores of "
                 "classifiers that ignore their input (×100, lowest to highest over the probed gold prevalences and "
                 "prediction shares), the chance correction that follows, and whether one more item (PI) or a "
                 "rescaled class (PIV) moved the score the wrong way, with where the smallest such case was found "
                 "(a system's own confusion matrix, or a synthetic one; appendix “Property witnesses”).", "Metric",
                 (Column("Chance scores"), Column("PV"), Column("PI / PIV broken")), tuple(rows),
                 "small")


def _pct(x: float) -> str:
    """A chance score ×100; the probe's floating-point dust (|x| < 1e-9, e.g. −3e−10) is 0."""
    from auditor.formatting import format_value, typographic_minus

    return typographic_minus(format_value(0.0 if abs(x) < 1e-9 else x, "score"))


@section(150)
def witnesses_section(ctx: Context) -> Section | None:
    """Appendix: the smallest counter-example of each probe (synthetic or a system's own matrix)."""
    table = ctx.audit.properties if ctx.audit is not None else None
    if table is None or not table.results:
        return None
    names = (("monotonicity", "PI"), ("class_sensitivity", "PII"), ("prevalence_invariance", "PIV"),
             ("chance_correction", "PV"))
    rows = tuple(Row(ctx.short(entry.metric_id), (Cell(label), Cell(_witness_text(entry.witnesses[key], ctx.labels))))
                 for entry in table if ctx.family(entry.metric_id) != "calibrated"
                 for key, label in names if key in entry.witnesses)
    if not rows:
        return None
    return Section("witnesses", SECTION_TITLES["witnesses"], (
        Paragraph(PROPERTY_LEGEND),
        Table("table-witnesses", "The smallest counter-example each probe found. Matrices: rows = gold class, columns "
              "= predicted class, classes numbered from 0, rows separated by “/”; scores ×100.", "Metric",
              (Column("Property"), Column("Witness")), rows, "small"),
    ))


def _mark(value: Any, by_calibration: bool = False) -> str:
    """✓ / ✗ for a property, the PV level as a word; "(✓)" when obtained through calibration."""
    text = "✓" if value is True else "✗" if value is False else "—" if value is None else str(value)
    if value in (False, "none") and by_calibration:
        text = ("✗" if value is False else "none") + "(✓)"
    return text


def _chance_text(entry: PropertyResult) -> str:
    if entry.chance_value is not None:
        return f"Ω = {entry.chance_value:g}"
    if entry.chance_formula:
        return entry.chance_formula if entry.probed["chance_correction"] != "none" else f"({entry.chance_formula})"
    return "—"


_OMEGA = re.compile(r"ω\(k\) = 1/(\d+)")


_CLASS = re.compile(r"\b(gold class|class|predicted) (\d+)\b")


_CELL = re.compile(r"\bcell \((\d+), (\d+)\)")
_NUMBERS = re.compile(r"from (-?[\d.e+-]+) to (-?[\d.e+-]+)")


def _scaled(value: str, other: str) -> str:
    """A witness's score ×100 with one decimal, or as many more as it takes to differ from ``other``."""
    from auditor.formatting import typographic_minus

    x, y = 100 * float(value), 100 * float(other)
    for digits in range(1, 7):
        if round(x, digits) != round(y, digits) or digits == 6:
            return typographic_minus(f"{x:.{digits}f}")
    return value


def _witness_text(witness: Witness, labels: Sequence[str] = ()) -> str:
    """A probe's witness in words. ω(k) is spelled out; classes are named by the data's labels when
    the witness is a system's own confusion matrix, else the synthetic matrix (and the one it was
    changed into) is shown so that "class 2" has a meaning (rows gold, columns predicted, classes
    numbered from 0)."""
    text = _OMEGA.sub(lambda m: f"1/{m.group(1)} (the chance bound ω(k) = 1/k of Opitz 2024 §3.5, k = {m.group(1)} "
                                "classes)", witness.description)
    text = _NUMBERS.sub(lambda m: f"from {_scaled(m.group(1), m.group(2))} to {_scaled(m.group(2), m.group(1))}", text)
    if witness.system is not None and len(labels) == len(witness.before):
        name = lambda i: f"“{labels[int(i)]}”"  # noqa: E731
        text = _CELL.sub(lambda m: f"cell ({name(m.group(1))}, {name(m.group(2))})", text)
        text = _CLASS.sub(lambda m: f"{m.group(1)} {name(m.group(2))}", text)
        return f"on {witness.system}'s confusion matrix: {text}"
    text += f"; C = {_matrix_text(witness.before)}"
    if witness.after is not None:
        text += f" → {_matrix_text(witness.after)}"
    return text


def _matrix_text(matrix: np.ndarray) -> str:
    """Rows separated by " / "; whole counts as integers, fractional ones to 6 decimals (as audit.json)."""
    if len(matrix) > 6:
        return f"({len(matrix)}×{len(matrix)} matrix in audit.json)"
    return "[" + " / ".join(" ".join(f"{_count(x):g}" for x in row) for row in matrix) + "]"


def _count(x: float) -> float:
    return int(x) if float(x).is_integer() else round(float(x), 6)
