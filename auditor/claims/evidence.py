"""What claims are checked against: per-class counts (TP, gold support, predicted) as one or
more candidate :class:`~auditor.metrics.registry.ConfusionStats`.

Evidence comes from a confusion matrix (an array, or a file read by
:func:`auditor.io.confusion.read_matrix`, the one matrix reader), from gold and predictions
(read, aligned and counted by :mod:`auditor.io` through :func:`auditor.pipeline.gather`), or
from a paper's per-class table of precision, recall and support (read by
:func:`auditor.io.class_table.read_class_table`).

From a per-class table, TP_i = R_i · support_i and predicted_i = TP_i / P_i are reconstructed
as integers where the printed digits allow; accuracy (Σ TP / N), macro P/R/F1, F1′, weighted
F1, kappa, MCC and informedness follow from (TP, support, predicted) alone. When the printed
digits leave several integers possible, each definition's value is a range.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.claims.parse import decimals
from auditor.errors import InputError, UsageError
from auditor.io.class_table import ClassRow, ClassTable, read_class_table
from auditor.io.confusion import read_matrix
from auditor.io.validate import single_class_error
from auditor.metrics.registry import ConfusionStats

EPS = 1e-9
#: Limits that keep the reconstruction bounded whatever a table says (under a second, well
#: under 100 MB): a paper's table has far fewer classes and items than this.
MAX_CLASSES = 1_000
MAX_SUPPORT = 10**12
#: TP counts examined per table (at least 100 per class); a wider range (a huge support
#: with few printed digits) is sampled evenly, endpoints included; the values are ranges anyway.
MAX_TP_OPTIONS = 100_000
#: A k × k matrix of this many classes is 8 MB of float64.
MAX_CLASSES_MATRIX = 1_000


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


@dataclass(frozen=True)
class Evidence:
    """One or more candidate statistics (several when the printed digits leave a range),
    what kind of evidence it was, and the problems found while reconstructing counts.
    ``counts`` is label -> {tp, support, predicted} of the most likely candidate."""

    labels: tuple[str, ...]
    kind: str
    candidates: tuple[ConfusionStats, ...]
    exact: bool
    counts: Mapping[str, Mapping[str, float]]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "labels": list(self.labels), "exact": self.exact, "notes": list(self.notes),
                "counts": {label: dict(value) for label, value in self.counts.items()}}


def _counts(labels: Sequence[str], stats: ConfusionStats) -> Mapping[str, Mapping[str, float]]:
    return MappingProxyType({
        label: MappingProxyType({"tp": float(stats.diag[i]), "support": float(stats.row[i]),
                                 "predicted": float(stats.col[i])})
        for i, label in enumerate(labels)})


def from_confusion(confusion: Any, labels: Sequence[str] | None = None, kind: str = "confusion matrix") -> Evidence:
    """Evidence from a k × k matrix of counts (rows gold, columns predicted)."""
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
    return Evidence(labels, kind, (stats,), True, _counts(labels, stats))


def read_confusion(path: str) -> Evidence:
    """Evidence from a confusion-matrix file in the layout of ``auditor report --confusion``
    (:func:`auditor.io.confusion.read_matrix`: a header row of predicted labels, then per gold
    label its label and counts)."""
    labels, matrix, _ = read_matrix(path)
    present = np.flatnonzero(np.asarray(matrix).sum(axis=1))
    if len(present) == 1:  # the rule of label files and of `report --confusion`
        raise single_class_error(path, int(np.asarray(matrix).sum()), labels[int(present[0])])
    return from_confusion(matrix, labels, kind=path)


def from_predictions(gold: str, system: str, labels: Sequence[str] | None = None) -> Evidence:
    """Evidence from a gold file and one system's predictions, read, aligned and counted by
    :mod:`auditor.io` as ``auditor report`` does."""
    from auditor.io.counts import count
    from auditor.pipeline import gather

    aligned = gather(gold, {"system": system}, labels)
    counts = count(aligned.gold, aligned.systems, labels)
    return from_confusion(counts.confusion[0], counts.labels, kind=f"predictions {system} against {gold}")


def _number(text: str) -> tuple[float, float]:
    """Printed number -> (value, half unit)."""
    text = text.strip().rstrip("%")
    try:
        return float(text), 0.5 * 10.0 ** (-decimals(text))
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
    # Bounds on predicted = TP / P for TP > 0; a printed precision of 0 (low_p <= 0) gives no
    # upper bound but N, and TP = 0 rows are counted apart below, so no 0/0 is ever used.
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


def _parsed_rows(rows: Sequence[ClassRow]) -> tuple[list[Any], float, np.ndarray]:
    """Each row's printed numbers as (value, half unit), the scale (100 when printed in percent)
    and the supports; a class named twice, too few or too many classes, values outside their
    range and supports that are not whole numbers refused."""
    named = Counter(row.label for row in rows)
    repeated = [label for label, times in named.items() if times > 1]
    if repeated:
        raise InputError(f"per-class table: class {repeated[0]!r} appears twice; expected one row per class")
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
    support = np.array([s[0] for _, _, _, s, _ in parsed])
    if (support < 0).any() or (support != np.round(support)).any() or (support > MAX_SUPPORT).any() \
            or support.sum() <= 0:
        raise InputError(f"per-class table: support must be a whole number of gold items, 0 or more, and not "
                         f"0 for every class (at most {MAX_SUPPORT:.0e})")
    return parsed, scale, support


def from_class_table(rows: Sequence[ClassRow] | ClassTable) -> Evidence:
    """Evidence from a paper's per-class precision, recall, support (and optional F1); a
    :class:`~auditor.io.class_table.ClassTable`'s summary rows are checked against its classes
    (:mod:`auditor.claims.summaries`). A support of 0 (a class never in gold) is a class."""
    summaries = rows.summaries if isinstance(rows, ClassTable) else ()
    rows = tuple(rows)
    parsed, scale, support = _parsed_rows(rows)
    problems, notes = [], []
    labels = tuple(row.label for row in rows)
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
            # predicted ≈ TP / P, P floored at 1/N so that a printed 0 gives at most N
            c = min(n, max(t, int(round(t / max(p, 1 / max(n, 1)))))) if t else None
            found = ClassOptions((t, c), (t, c), (t, c), 1)
        elif found.sampled:
            notes.append(f"class {row.label}: more than {budget:,} true-positive counts fit the printed "
                         f"recall; {budget:,} of them, evenly spaced, were examined")
        if f is not None:
            problem = _f1_problem(row, p, hp, r, hr, f[0] / scale, f[1] / scale)
            if problem:
                problems.append(problem)
        options.append(found)
    unknown_predicted = [labels[i] for i, option in enumerate(options)
                         if None in (option.first[1], option.middle[1], option.last[1])]
    if unknown_predicted:
        notes.append(f"predicted count of {', '.join(unknown_predicted)} unknown (no true positive and precision 0); "
                     "taken as the gap to N")
    exact = all(option.count == 1 for option in options)
    candidates, missing = _candidates(options, support, n, exact)
    middle = candidates[-1]
    if not missing and abs(middle.col.sum() - middle.n) > 0.5 and exact:
        problems.append(f"predicted counts reconstructed from precision sum to {middle.col.sum():.0f}, but the gold "
                        f"supports sum to N = {middle.n:.0f}: the table is incomplete or inconsistent")
    if not exact:
        notes.append("the printed digits allow several whole-number tables; values are ranges")
    if summaries:
        found, said = _summary_problems(summaries, parsed, support, scale)
        problems += found
        notes += said
    return Evidence(labels, "per-class table", tuple(candidates), exact, _counts(labels, middle), tuple(problems),
                    tuple(notes))


def _candidates(options: Sequence[ClassOptions], support: np.ndarray, n: int, exact: bool
                ) -> tuple[list[ConfusionStats], list[int]]:
    """Extreme choices per class (fewest / most TP and predictions), which bracket the monotone
    metrics, then the middle choice, the most likely table (only that one when ``exact``); and the
    classes whose predicted count is unknown (the gap to N shared evenly among them)."""
    candidates = []
    missing: list[int] = []
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
        stats = stats_from_margins(np.array(diag, float), support, np.array(col, float))
        stats.all_labels_active = True  # a class the table lists counts, as scikit-learn's labels= (support 0 too)
        candidates.append(stats)
        if exact:
            break
    return candidates, missing


def _summary_problems(summaries: Sequence[Any], parsed: Sequence[Any], support: np.ndarray, scale: float
                      ) -> tuple[list[str], list[str]]:
    """Summary rows against the class rows (:func:`auditor.claims.summaries.check_summaries`)."""
    from auditor.claims.summaries import check_summaries

    def column(position: int) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([item[position][0] for item in parsed]) / scale,
                np.array([item[position][1] for item in parsed]) / scale)

    columns = {"precision": column(1), "recall": column(2)}
    if all(item[4] is not None for item in parsed):
        columns["f1"] = column(4)

    def parse(text: str) -> tuple[float, float]:
        value, half = _number(text)
        return value / scale, half / scale

    return check_summaries(summaries, columns, support.astype(float), parse)


def _f1_problem(row: ClassRow, p: float, hp: float, r: float, hr: float, f: float, hf: float) -> str | None:
    """Whether a printed F1 can be the harmonic mean 2PR / (P + R) of the printed P and R
    within their rounding; the bounds' denominators are floored at EPS (P = R = 0 gives 0)."""
    p_low, r_low = max(p - hp, 0.0), max(r - hr, 0.0)  # a printed 0.00 stands for [0, h], never below 0
    low = 2 * p_low * r_low / max(p_low + r_low, EPS)
    high = 2 * min(1, p + hp) * min(1, r + hr) / max(min(1, p + hp) + min(1, r + hr), EPS)
    if f + hf < low - EPS or f - hf > high + EPS:
        return (f"class {row.label}: F1 {row.f1} is not the harmonic mean of precision "
                f"{row.precision} and recall {row.recall} ({low:.4f}–{high:.4f})")
    return None


def read_table(path: str) -> Evidence:
    """Evidence from a per-class table file (:func:`auditor.io.class_table.read_class_table`)."""
    return from_class_table(read_class_table(path))
