"""Claim check for reviewers: which metric definition reproduces a reported number?

A claim is a number as printed (``macro_f1=65.4``, percent or fraction); its rounding is the
half-unit of its last printed digit, so ``65.4`` stands for [0.6535, 0.6545]. Evidence is a
confusion matrix (from predictions or a file) or a paper's per-class table of precision,
recall and support. Every definition — each registered scalar metric, weighted precision, the
zero_division conventions of the macro averages, and the macro/micro averages without one
class — is evaluated on the evidence and compared with each claim within rounding.

From a per-class table, TP_i = R_i · support_i and predicted_i = TP_i / P_i are reconstructed
as integers where the printed digits allow; accuracy (Σ TP / N), macro P/R/F1, F1′, weighted
F1, kappa, MCC and informedness follow from (TP, support, predicted) alone. When the printed
digits leave several integers possible, each definition's value is a range.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Sequence

import numpy as np

from auditor.errors import InputError, UsageError
from auditor.metrics.registry import REGISTRY, ConfusionStats, ratio

EPS = 1e-9
#: Limits that keep the reconstruction bounded whatever a table says (under a second, well
#: under 100 MB): a paper's table has far fewer classes and items than this.
MAX_CLASSES = 1_000
MAX_SUPPORT = 10**12
#: TP counts examined per table (at least 100 per class); a wider range (a huge support
#: with few printed digits) is sampled evenly, endpoints included; the values are ranges anyway.
MAX_TP_OPTIONS = 100_000
#: "Without class X" definitions are tried up to this many classes (k definitions each).
MAX_CLASSES_WITHOUT = 50
#: A k × k matrix of this many classes is 8 MB of float64.
MAX_CLASSES_MATRIX = 1_000
#: Evidence files are a few kilobytes; anything larger is not a paper's table.
MAX_FILE_BYTES = 10_000_000


# ---------------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Claim:
    """A reported number as printed: ``name``, ``text`` (digits as printed), ``percent``."""

    name: str
    text: str
    value: float
    decimals: int
    percent: bool

    @property
    def half_unit(self) -> float:
        return 0.5 * 10.0 ** (-self.decimals)

    @property
    def interval(self) -> tuple[float, float]:
        """The values on [0, 1] (or [-1, 1]) that print as ``text``."""
        scale = 100.0 if self.percent else 1.0
        return ((self.value - self.half_unit) / scale, (self.value + self.half_unit) / scale)


def _decimals(text: str) -> int:
    try:
        exponent = Decimal(text).as_tuple().exponent
    except InvalidOperation:
        raise UsageError(f"{text!r} is not a number") from None
    return max(0, -int(exponent))


def parse_claims(items: Sequence[str]) -> list[Claim]:
    """``["macro_f1=65.4 accuracy=66.1%", "kappa=0.41"]`` -> claims.

    A value with ``%`` or above 1 is a percentage, otherwise a fraction.
    """
    claims = []
    for token in (t for item in items for t in item.replace(",", " ").split()):
        match = re.fullmatch(r"([^=]+)=([-+]?[0-9]*\.?[0-9]+)(%?)", token)
        if not match:
            raise UsageError(f"claim {token!r}: expected NAME=NUMBER as printed, e.g. macro_f1=65.4")
        name, text, percent_sign = match.groups()
        value = float(text)
        claims.append(Claim(name, text, value, _decimals(text), bool(percent_sign) or abs(value) > 1))
    if not claims:
        raise UsageError("no claim given; write NAME=NUMBER as printed, e.g. macro_f1=65.4")
    return claims


# -------------------------------------------------------------------------------- evidence


def stats_from_margins(diag: np.ndarray, row: np.ndarray, col: np.ndarray,
                       confusion: np.ndarray | None = None) -> ConfusionStats:
    """ConfusionStats from TP, gold and predicted counts per class (no full matrix needed
    except for NIT, which then raises)."""
    stats = ConfusionStats.__new__(ConfusionStats)
    stats.C = None if confusion is None else np.asarray(confusion, dtype=float)
    stats.diag, stats.row, stats.col = (np.asarray(x, dtype=float) for x in (diag, row, col))
    stats.k = stats.diag.shape[-1]
    stats.n = stats.row.sum(axis=-1)
    stats.all_labels_active = False
    return stats


@dataclass
class Evidence:
    """One or more candidate statistics (several when the printed digits leave a range),
    what kind of evidence it was, and the problems found while reconstructing counts."""

    labels: tuple[str, ...]
    kind: str
    candidates: list[ConfusionStats]
    exact: bool
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, dict[str, float]] = field(default_factory=dict)


def from_confusion(confusion: np.ndarray, labels: Sequence[str] | None = None, kind: str = "confusion matrix") -> Evidence:
    confusion = np.asarray(confusion, dtype=float)
    if confusion.ndim != 2 or confusion.shape[0] != confusion.shape[1] or confusion.shape[0] < 2:
        raise InputError(f"{kind}: expected a square matrix of counts with at least 2 classes, "
                         f"found shape {confusion.shape}")
    if confusion.shape[0] > MAX_CLASSES_MATRIX:
        raise InputError(f"{kind}: {confusion.shape[0]:,} classes; at most {MAX_CLASSES_MATRIX:,} are checked")
    if not np.isfinite(confusion).all() or (confusion < 0).any() or confusion.sum() == 0:
        raise InputError(f"{kind}: counts must be finite, non-negative and not all 0")
    labels = tuple(labels) if labels else tuple(str(i) for i in range(confusion.shape[0]))
    stats = ConfusionStats(confusion)
    counts = {label: {"tp": float(stats.diag[i]), "support": float(stats.row[i]), "predicted": float(stats.col[i])}
              for i, label in enumerate(labels)}
    return Evidence(labels, kind, [stats], True, counts=counts)


@dataclass(frozen=True)
class ClassRow:
    label: str
    precision: str
    recall: str
    support: str
    f1: str | None = None


def _number(text: str) -> tuple[float, float]:
    """Printed number -> (value, half unit)."""
    text = text.strip().rstrip("%")
    try:
        return float(text), 0.5 * 10.0 ** (-_decimals(text))
    except (ValueError, UsageError):
        raise InputError(f"per-class table: {text!r} is not a number") from None


@dataclass(frozen=True)
class ClassOptions:
    """The whole-number (TP, predicted) pairs one printed row allows, in (TP, predicted)
    order, kept as their first, middle and last pair and their number, never enumerated:
    TP ∈ [(R − h)·s, (R + h)·s] ∩ [0, s] and, for TP > 0, predicted ∈
    [TP / min(1, P + h), TP / (P − h)] ∩ [TP, N] (no upper bound but N when P − h ≤ 0).
    ``predicted`` is None for TP = 0 with precision printed as 0 (0/0)."""

    first: tuple[int, int | None]
    middle: tuple[int, int | None]
    last: tuple[int, int | None]
    count: int
    sampled: bool = False


def _integer_range(lo: float, hi: float) -> tuple[int, int]:
    """The first and last integers in [lo, hi] (first > last when there are none)."""
    return int(np.ceil(lo - EPS)), int(np.floor(hi + EPS))


def class_options(p: float, hp: float, r: float, hr: float, support: int, n: int,
                  budget: int = MAX_TP_OPTIONS) -> ClassOptions | None:
    """The (TP, predicted) pairs of one row (see :class:`ClassOptions`), or None if none.

    Vectorised over at most ``budget`` TP values (evenly spaced, endpoints kept, when more
    fit): time and memory do not grow with the support or with how few digits were printed.
    """
    t_lo, t_hi = _integer_range((r - hr) * support, (r + hr) * support)
    t_lo, t_hi = max(t_lo, 0), min(t_hi, support)
    if t_lo > t_hi:
        return None
    sampled = t_hi - t_lo + 1 > budget
    if sampled:  # spacing > 1, so the rounded points are distinct and increasing
        tp = np.linspace(t_lo, t_hi, budget).round().astype(np.int64)
    else:
        tp = np.arange(t_lo, t_hi + 1, dtype=np.int64)
    high_p, low_p = min(1.0, p + hp), p - hp
    positive = tp > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        c_lo = np.ceil(tp / high_p - EPS) if high_p > 0 else np.full(tp.shape, np.inf)
        c_hi = np.floor(tp / low_p + EPS) if low_p > 0 else np.full(tp.shape, float(n))
    c_lo = np.maximum(c_lo, tp)
    c_hi = np.minimum(c_hi, n)
    counts = np.where(positive, np.maximum(c_hi - c_lo + 1, 0), 0).astype(np.int64)
    zero_ok = low_p <= 0  # TP = 0 is possible only with precision printed as 0 (0/0 or 0/c)
    counts = np.where(~positive, 1 if zero_ok else 0, counts)
    total = int(counts.sum())
    if total == 0:
        return None
    cumulative = np.cumsum(counts)

    def pair(position: int) -> tuple[int, int | None]:
        index = int(np.searchsorted(cumulative, position, side="right"))
        t = int(tp[index])
        if t == 0:
            return 0, None
        before = int(cumulative[index - 1]) if index else 0
        return t, int(c_lo[index]) + (position - before)

    return ClassOptions(pair(0), pair(total // 2), pair(total - 1), total, sampled)


def from_class_table(rows: Sequence[ClassRow]) -> Evidence:
    """Evidence from a paper's per-class precision, recall, support (and optional F1)."""
    if len(rows) < 2:
        raise InputError("per-class table: expected at least 2 classes")
    if len(rows) > MAX_CLASSES:
        raise InputError(f"per-class table: {len(rows):,} classes; at most {MAX_CLASSES:,} are checked")
    parsed = [(row, _number(row.precision), _number(row.recall), _number(row.support),
               _number(row.f1) if row.f1 not in (None, "") else None) for row in rows]
    percent = any(p[0] > 1 or r[0] > 1 for _, p, r, _, _ in parsed)
    scale = 100.0 if percent else 1.0
    for row, (p, _), (r, _), _, f in parsed:
        for name, value in (("precision", p), ("recall", r)) + ((("f1", f[0]),) if f else ()):
            if not 0 <= value / scale <= 1:
                raise InputError(f"per-class table: class {row.label}: {name} {value:g} is outside "
                                 f"{'0–100 %' if percent else '0–1'}")
    problems, notes = [], []
    labels = tuple(row.label for row in rows)
    support = np.array([s[0] for _, _, _, s, _ in parsed])
    if (support <= 0).any() or (support != np.round(support)).any() or (support > MAX_SUPPORT).any():
        raise InputError(f"per-class table: support must be a positive whole number of gold items "
                         f"(at most {MAX_SUPPORT:.0e})")
    n = int(support.sum())
    options: list[ClassOptions] = []
    budget = max(100, MAX_TP_OPTIONS // len(rows))
    for row, (p, hp), (r, hr), (s, _), f in parsed:
        p, hp, r, hr, s = p / scale, hp / scale, r / scale, hr / scale, int(s)
        found = class_options(p, hp, r, hr, s, n, budget)
        if found is None:
            t_lo, t_hi = _integer_range((r - hr) * s, (r + hr) * s)
            if max(t_lo, 0) > min(t_hi, s):
                problems.append(f"class {row.label}: recall {row.recall} with support {s} cannot come from a whole "
                                f"number of true positives ({(r - hr) * s:.2f}–{(r + hr) * s:.2f})")
                t = int(round(r * s))
            else:
                t = max(t_lo, 0)
                problems.append(f"class {row.label}: precision {row.precision} cannot come from whole numbers given "
                                f"{t} true positives")
            c = min(n, max(t, int(round(t / max(p, 1 / max(n, 1)))))) if t else None
            found = ClassOptions((t, c), (t, c), (t, c), 1)
        elif found.sampled:
            notes.append(f"class {row.label}: more than {budget:,} true-positive counts fit the printed "
                         f"recall; {budget:,} of them, evenly spaced, were examined")
        if f is not None:
            f_value, hf = f[0] / scale, f[1] / scale
            low = 2 * (p - hp) * (r - hr) / max((p - hp) + (r - hr), EPS)
            high = 2 * min(1, p + hp) * min(1, r + hr) / max(min(1, p + hp) + min(1, r + hr), EPS)
            if f_value + hf < low - EPS or f_value - hf > high + EPS:
                problems.append(f"class {row.label}: F1 {row.f1} is not the harmonic mean of precision "
                                f"{row.precision} and recall {row.recall} ({low:.4f}–{high:.4f})")
        options.append(found)
    unknown_predicted = [labels[i] for i, option in enumerate(options)
                         if None in (option.first[1], option.middle[1], option.last[1])]
    if unknown_predicted:
        notes.append(f"predicted count of {', '.join(unknown_predicted)} unknown (no true positive and precision 0); "
                     "taken as the gap to N")
    candidates = []
    exact = all(option.count == 1 for option in options)
    # Extreme choices per class (fewest / most TP and predictions) bracket the monotone metrics;
    # the middle choice is the most likely table.
    for pick in ("first", "last", "middle"):
        diag, col = [], []
        for option in options:
            t, c = getattr(option, pick)
            diag.append(t)
            col.append(c)
        known = sum(c for c in col if c is not None)
        missing = [i for i, c in enumerate(col) if c is None]
        for i in missing:
            col[i] = max(0.0, (n - known) / len(missing))
        candidates.append(stats_from_margins(np.array(diag, float), support, np.array(col, float)))
        if exact:
            break
    middle = candidates[-1]
    if not missing and abs(middle.col.sum() - middle.n) > 0.5 and exact:
        problems.append(f"predicted counts reconstructed from precision sum to {middle.col.sum():.0f}, but the gold "
                        f"supports sum to N = {middle.n:.0f}: the table is incomplete or inconsistent")
    if not exact:
        notes.append("the printed digits allow several whole-number tables; values are ranges")
    counts = {label: {"tp": float(middle.diag[i]), "support": float(middle.row[i]), "predicted": float(middle.col[i])}
              for i, label in enumerate(labels)}
    return Evidence(labels, "per-class table", candidates, exact, problems, notes, counts)


def read_confusion(path: str) -> Evidence:
    """A CSV/TSV/whitespace file of counts, rows gold; optional header row and label column."""
    text = _read(path)
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    del text
    if not lines:
        raise InputError(f"{path}: empty; expected counts, rows = gold class")
    header = None
    first = _split(lines[0])
    if not all(_is_number(cell) for cell in first[1:]):
        header = first
        lines = lines[1:]
    labels_column = bool(lines) and not _is_number(_split(lines[0])[0])
    labels: list[str] | None = [] if labels_column else None
    body = []
    for number, line in enumerate(lines, 2 if header else 1):
        cells = _split(line)
        if labels is not None:
            labels.append(cells[0])
            cells = cells[1:]
        try:
            body.append(np.array([float(cell) for cell in cells], dtype=float))
        except ValueError as error:
            raise InputError(f"{path}: expected counts, rows = gold class ({error})") from None
        if len(body) > MAX_CLASSES_MATRIX:
            raise InputError(f"{path}: more than {MAX_CLASSES_MATRIX:,} rows; at most {MAX_CLASSES_MATRIX:,} "
                             f"classes are checked")
    if len({len(row) for row in body}) > 1:
        raise InputError(f"{path}: rows of different lengths; expected a square matrix of counts")
    matrix = np.array(body, dtype=float)
    if header is not None and labels is None:
        labels = header[-matrix.shape[1]:] if matrix.ndim == 2 else None
    return from_confusion(matrix, labels, kind=path)


def read_class_table(path: str) -> Evidence:
    """A CSV/TSV with a header naming label, precision, recall, support (and optionally f1)."""
    text = _read(path)
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{path}: empty; expected a header 'label precision recall support [f1]'")
    header = [cell.lower() for cell in _split(lines[0])]
    names = {"label": ("label", "class"), "precision": ("precision", "p", "prec"), "recall": ("recall", "r", "rec"),
             "support": ("support", "n", "count"), "f1": ("f1", "f", "f-score", "f1-score", "fscore")}
    index = {}
    for key, options in names.items():
        found = [i for i, cell in enumerate(header) if cell in options]
        if found:
            index[key] = found[0]
        elif key != "f1":
            raise InputError(f"{path} line 1: no {key!r} column; expected a header 'label precision recall support [f1]'"
                             f", found {lines[0]!r}")
    rows = []
    for number, line in enumerate(lines[1:], 2):
        cells = _split(line)
        if len(cells) < len(header):
            raise InputError(f"{path} line {number}: expected {len(header)} columns, found {len(cells)}")
        rows.append(ClassRow(cells[index["label"]], cells[index["precision"]], cells[index["recall"]],
                             cells[index["support"]], cells[index["f1"]] if "f1" in index else None))
    return from_class_table(rows)


def _read(path: str) -> str:
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({error.strerror or error})") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{path}: larger than {MAX_FILE_BYTES // 1_000_000} MB; expected a paper's table")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path} line {line}: not UTF-8 text") from None


def _split(line: str) -> list[str]:
    if "\t" in line:
        return [cell.strip() for cell in line.split("\t")]
    if "," in line:
        return [cell.strip() for cell in next(csv.reader(io.StringIO(line)))]
    return line.split()


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


# ----------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class Definition:
    id: str
    description: str
    function: Callable[[ConfusionStats], float]
    metric: str | None = None


def _macro_with(quantity: str, fill: float | None) -> Callable[[ConfusionStats], float]:
    """Macro average of a per-class ratio with 0/0 counted as ``fill`` (None: left out)."""

    def function(s: ConfusionStats) -> float:
        values = getattr(s, quantity)
        undefined = getattr(s, f"{quantity}_undefined") & s.active
        keep = s.active & ~undefined if fill is None else s.active
        values = np.where(undefined, 0.0 if fill is None else fill, values)
        return float(np.where(keep, values, 0).sum() / max(keep.sum(), 1))

    return function


def _hm(precision: Callable, recall: Callable) -> Callable[[ConfusionStats], float]:
    def function(s: ConfusionStats) -> float:
        p, r = precision(s), recall(s)
        return 2 * p * r / (p + r) if p + r > 0 else float("nan")

    return function


def _without(label_index: int, metric_id: str) -> Callable[[ConfusionStats], float]:
    def function(s: ConfusionStats) -> float:
        copy = stats_from_margins(s.diag, s.row, s.col, s.C)
        active = (copy.row + copy.col) > 0
        active[label_index] = False
        copy.__dict__["active"] = active
        return float(REGISTRY.get(metric_id).function(copy))

    return function


def _micro_without(label_index: int) -> Callable[[ConfusionStats], float]:
    def function(s: ConfusionStats) -> float:
        keep = np.ones(s.k, bool)
        keep[label_index] = False
        tp, gold, predicted = s.diag[keep].sum(), s.row[keep].sum(), s.col[keep].sum()
        value, undefined = ratio(2 * tp, gold + predicted)
        return float("nan") if undefined else float(value)

    return function


def definitions(labels: Sequence[str]) -> list[Definition]:
    """Every definition a reported number is compared with ("without class X" only up to
    :data:`MAX_CLASSES_WITHOUT` classes: k of them, each O(k), would make a large table slow)."""
    result = [Definition(m.id, m.name, lambda s, m=m: float(m.function(s)), m.id) for m in REGISTRY.scalar()]
    result.append(Definition("weighted_precision", "Weighted precision Σ p_i P_i (scikit-learn average='weighted')",
                             lambda s: float((s.prevalence * s.precision).sum())))
    result.append(Definition("weighted_recall", "Weighted recall Σ p_i R_i (= accuracy)",
                             lambda s: float((s.prevalence * s.recall).sum())))
    for fill, tag in ((1.0, "zero_division=1"), (None, "undefined classes left out")):
        p, r = _macro_with("precision", fill), _macro_with("recall", fill)
        result += [
            Definition(f"macro_precision[{tag}]", f"Macro precision, 0/0 per class {tag}", p, "macro_precision"),
            Definition(f"macro_recall[{tag}]", f"Macro recall, 0/0 per class {tag}", r, "macro_recall"),
            Definition(f"macro_f1[{tag}]", f"Macro F1 (mean of class F1), 0/0 per class {tag}",
                       _macro_with("f1", fill), "macro_f1"),
            Definition(f"macro_f1_hm[{tag}]", f"Macro F1′ (HM of macro P and macro R), 0/0 per class {tag}",
                       _hm(p, r), "macro_f1_hm"),
        ]
    for index, label in enumerate(labels if len(labels) <= MAX_CLASSES_WITHOUT else ()):
        for metric_id in ("macro_precision", "macro_recall", "macro_f1", "macro_f1_hm"):
            result.append(Definition(f"{metric_id}[without {label}]",
                                     f"{REGISTRY.get(metric_id).name} over every class except {label}",
                                     _without(index, metric_id), metric_id))
        result.append(Definition(f"micro_f1[without {label}]", f"Micro F1 over every class except {label}",
                                 _micro_without(index)))
    return result


# ----------------------------------------------------------------------------------- check


@dataclass
class ClaimCheck:
    """The claim check: one row per claim, plus whether the numbers can hold together."""

    evidence: Evidence
    rows: list[dict[str, Any]]
    problems: list[str]

    @property
    def consistent(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"evidence": {"kind": self.evidence.kind, "labels": list(self.evidence.labels),
                             "exact": self.evidence.exact, "notes": self.evidence.notes,
                             "counts": self.evidence.counts},
                "claims": self.rows, "consistent": self.consistent, "problems": self.problems}


def _value_range(definition: Definition, evidence: Evidence) -> tuple[float, float] | None:
    values = []
    for stats in evidence.candidates:
        try:
            with np.errstate(all="ignore"):
                value = definition.function(stats)
        except (TypeError, AttributeError, ValueError, IndexError):
            return None  # needs the full matrix (NIT from a per-class table)
        if value is not None and not np.isnan(value):
            values.append(float(value))
    return (min(values), max(values)) if values else None


def check_claims(claims: Sequence[Claim], evidence: Evidence) -> ClaimCheck:
    """Compare every claim with every definition evaluated on ``evidence``."""
    evaluated = []
    spans: dict[str, tuple[float, float]] = {}
    for definition in definitions(evidence.labels):
        span = _value_range(definition, evidence)
        if span is None:
            continue
        spans[definition.id] = span
        # A zero_division variant that changes nothing on this evidence is not a separate definition.
        convention = "[zero_division" in definition.id or "[undefined" in definition.id
        if convention and definition.metric in spans and np.allclose(spans[definition.metric], span, atol=EPS):
            continue
        evaluated.append((definition, span))
    problems = list(evidence.problems)
    rows = []
    for claim in claims:
        lo, hi = claim.interval
        try:
            named = REGISTRY.resolve(claim.name)
        except UsageError:
            named = None
        matches, misses = [], []
        for definition, (vlo, vhi) in evaluated:
            entry = {"definition": definition.id, "description": definition.description,
                     "value": (vlo + vhi) / 2, "range": [vlo, vhi]}
            if vhi >= lo - EPS and vlo <= hi + EPS:
                matches.append(entry)
            else:
                entry["distance"] = min(abs(vlo - hi), abs(vhi - lo))
                misses.append(entry)
        named_entry = next((e for e in matches + misses if e["definition"] == named), None)
        reproduces = named is not None and any(e["definition"] == named for e in matches)
        rows.append({
            "claim": f"{claim.name}={claim.text}{'%' if claim.percent and abs(claim.value) <= 1 else ''}",
            "name": claim.name, "printed": claim.text, "percent": claim.percent, "interval": [lo, hi],
            "named_as": named, "named_value": None if named_entry is None else named_entry["value"],
            "named_reproduces": reproduces if named else None,
            "reproduced_by": [e["definition"] for e in matches],
            "matches": matches,
            "not_reproduced_by": [e["definition"] for e in sorted(misses, key=lambda e: e["distance"])],
        })
        if not matches:
            problems.append(f"{claim.name}={claim.text}: no definition reproduces it from this evidence")
        if named == "accuracy" and not reproduces and named_entry is not None and evidence.kind == "per-class table":
            problems.append(f"accuracy must equal Σ TP / N = {named_entry['value']:.4f} from the table's recall and "
                            f"support; {claim.text} cannot hold")
    values = {row["named_as"]: row["interval"] for row in rows if row["named_as"]}
    if "macro_f1" in values and "macro_f1_hm" in values and values["macro_f1_hm"][1] < values["macro_f1"][0] - EPS:
        problems.append("macro F1′ (HM of macro P and macro R) is never below macro F1 (Opitz & Burst 2019), "
                        "but the reported F1′ is")
    return ClaimCheck(evidence, rows, problems)


def format_report(check: ClaimCheck) -> str:
    """A plain-text table for the terminal."""
    out = [f"Evidence: {check.evidence.kind} ({len(check.evidence.labels)} classes: "
           f"{', '.join(check.evidence.labels)}){'' if check.evidence.exact else ' — values are ranges'}"]
    out += [f"  note: {note}" for note in check.evidence.notes]
    out.append("")
    width = max(len(row["claim"]) for row in check.rows) + 2
    out.append(f"{'claim':<{width}}{'as named':<24}reproduced by (within rounding)")
    for row in check.rows:
        if row["named_as"] is None:
            named = "unknown name"
        else:
            value = row["named_value"]
            mark = "yes" if row["named_reproduces"] else "NO"
            named = f"{mark} ({value:.4f})" if value is not None else f"{mark} (n/a)"
        matches = ", ".join(row["reproduced_by"]) or "nothing"
        out.append(f"{row['claim']:<{width}}{named:<24}{matches}")
        if not row["reproduced_by"]:
            out.append(f"{'':<{width}}{'':<24}closest: " + ", ".join(row["not_reproduced_by"][:3]))
    out.append("")
    if check.consistent:
        out.append("The numbers can hold together: every claim is reproduced by some definition.")
    else:
        out.append("The numbers cannot all hold together:")
        out += [f"  - {problem}" for problem in check.problems]
    return "".join(f"\\x{ord(ch):02x}" if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) < 0xA0 else ch
                   for ch in "\n".join(out))


def check(claims: Sequence[str], confusion: str | None = None, table: str | None = None,
          gold: str | None = None, system: str | None = None, labels: Sequence[str] | None = None) -> ClaimCheck:
    """The ``check-claim`` command's library call: parse claims, read one kind of evidence, check."""
    given = [x is not None for x in (confusion, table, gold)]
    if sum(given) != 1 or (gold is None) != (system is None):
        raise UsageError("give exactly one kind of evidence: --confusion FILE, --table FILE, or --gold GOLD "
                         "--system SYSTEM")
    parsed = parse_claims(claims)
    if confusion is not None:
        evidence = read_confusion(confusion)
    elif table is not None:
        evidence = read_class_table(table)
    else:
        from auditor.pipeline import gather
        from auditor.io.counts import count

        aligned = gather(gold, {"system": system}, labels)
        counts = count(aligned.gold, aligned.systems, labels)
        evidence = from_confusion(counts.confusion[0], counts.labels, kind=f"predictions {system} against {gold}")
    return check_claims(parsed, evidence)


__all__ = ["Claim", "ClaimCheck", "ClassRow", "Evidence", "check", "check_claims", "definitions", "format_report",
           "from_class_table", "from_confusion", "parse_claims", "read_class_table", "read_confusion",
           "stats_from_margins"]
