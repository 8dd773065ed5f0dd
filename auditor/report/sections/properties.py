"""The property table: declared, Opitz 2024 Table 5 and probed values; each disagreement with its witness."""
from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from auditor.analyses.properties import PropertyResult, Witness
from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Bullets, Cell, Column, Paragraph, Row, Section, Table


def properties_section(ctx: Context) -> Section | None:
    """Declared, Opitz Table 5 and probed values side by side; every disagreement with its witness."""
    table = ctx.audit.properties if ctx.audit is not None else None
    if table is None or not table.results:
        return None
    names = (("monotonicity", "PI"), ("class_sensitivity", "PII"), ("decomposability", "PIII"),
             ("prevalence_invariance", "PIV"), ("chance_correction", "PV"))
    rows, witnesses, disagreements, declared_notes = [], [], [], []
    for entry in table:
        metric_id, literature = entry.metric_id, entry.literature
        cells = []
        for key, _ in names:
            paper = "—" if literature is None else _mark(literature.get(key), key in literature.get("by_calibration", []))
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
        if ctx.family(metric_id) == "calibrated":
            continue
        for key, label in names:
            if key in found:
                witnesses.append(Row(ctx.short(metric_id), (Cell(label), Cell(_witness_text(found[key], ctx.labels)))))
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


def _chance_text(entry: PropertyResult) -> str:
    if entry.chance_value is not None:
        return f"Ω = {entry.chance_value:g}"
    if entry.chance_formula:
        return entry.chance_formula if entry.probed["chance_correction"] != "none" else f"({entry.chance_formula})"
    return "—"


_OMEGA = re.compile(r"ω\(k\) = 1/(\d+)")


_CLASS = re.compile(r"\b(gold class|class|predicted) (\d+)\b")


_CELL = re.compile(r"\bcell \((\d+), (\d+)\)")


def _witness_text(witness: Witness, labels: Sequence[str] = ()) -> str:
    """A probe's witness in words. ω(k) is spelled out; classes are named by the data's labels when
    the witness is a system's own confusion matrix, else the synthetic matrix (and the one it was
    changed into) is shown so that "class 2" has a meaning (rows gold, columns predicted, classes
    numbered from 0)."""
    text = _OMEGA.sub(lambda m: f"1/{m.group(1)} (the chance bound ω(k) = 1/k of Opitz 2024 §3.5, k = {m.group(1)} "
                                "classes)", witness.description)
    if witness.system is not None and len(labels) == len(witness.before):
        name = lambda i: f"“{labels[int(i)]}”"  # noqa: E731
        text = _CELL.sub(lambda m: f"cell ({name(m.group(1))}, {name(m.group(2))})", text)
        text = _CLASS.sub(lambda m: f"{m.group(1)} {name(m.group(2))}", text)
        return f"on {witness.system}'s confusion matrix: {text}"
    text += f"; witness C = {_matrix_text(witness.before)}"
    if witness.after is not None:
        text += f" → {_matrix_text(witness.after)}"
    return text + " (rows gold, columns predicted, classes numbered from 0)"


def _matrix_text(matrix: np.ndarray) -> str:
    """Rows separated by " / "; whole counts as integers, fractional ones to 6 decimals (as audit.json)."""
    if len(matrix) > 6:
        return f"({len(matrix)}×{len(matrix)} matrix in audit.json)"
    return "[" + " / ".join(" ".join(f"{_count(x):g}" for x in row) for row in matrix) + "]"


def _count(x: float) -> float:
    return int(x) if float(x).is_integer() else round(float(x), 6)
