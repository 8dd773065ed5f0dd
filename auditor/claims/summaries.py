"""Check a table's summary rows (scikit-learn's ``accuracy``, ``macro avg``, ``weighted avg``,
``micro avg``) against its class rows, within the rounding of the printed digits.

Each printed class value x stands for the interval [x − h, x + h] (h = half a unit of its last
digit); a summary is consistent when its own interval meets the interval the class rows give
(scikit-learn's definitions, ``sklearn.metrics.classification_report``):

* macro avg = (1/k) Σ_i x_i;
* weighted avg = Σ_i s_i x_i / N (s_i the support, N = Σ_i s_i);
* accuracy = micro recall = Σ_i TP_i / N with TP_i = R_i s_i;
* micro precision = Σ TP_i / Σ pred_i with pred_i = TP_i / P_i (checked where every P_i − h > 0);
* the support of a summary row is N.

``samples avg`` (multi-label) cannot be derived from the class rows and is said so.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from auditor.io.class_table import SummaryRow

#: (value, half unit) of a printed number, in the table's scale (0-1)
Parse = Callable[[str], tuple[float, float]]


def _meets(lo: float, hi: float, value: float, half: float) -> bool:
    return value + half >= min(max(lo, 0.0), 1.0) - 1e-9 and value - half <= min(max(hi, 0.0), 1.0) + 1e-9


def _macro_weighted(values: np.ndarray, halves: np.ndarray, support: np.ndarray, weighted: bool
                    ) -> tuple[float, float]:
    if weighted:
        n = support.sum()
        return float(((values - halves) * support).sum() / n), float(((values + halves) * support).sum() / n)
    return float((values - halves).mean()), float((values + halves).mean())


def _micro(p: np.ndarray, hp: np.ndarray, r: np.ndarray, hr: np.ndarray, s: np.ndarray
           ) -> dict[str, tuple[float, float]]:
    """Intervals of micro recall (= accuracy) and, where every precision's lower end is positive,
    micro precision and micro F1 (monotone in both)."""
    n = s.sum()
    tp_lo, tp_hi = np.clip((r - hr) * s, 0, s), np.clip((r + hr) * s, 0, s)
    found = {"recall": (float(tp_lo.sum() / n), float(tp_hi.sum() / n))}
    if (p - hp > 0).all():
        pred_lo = tp_lo / np.minimum(p + hp, 1.0)
        pred_hi = tp_hi / (p - hp)
        precision = (float(tp_lo.sum() / max(pred_hi.sum(), 1e-300)), float(min(1.0, tp_hi.sum() / max(pred_lo.sum(),
                                                                                                        1e-300))))
        found["precision"] = precision
        lo = 2 * precision[0] * found["recall"][0] / max(precision[0] + found["recall"][0], 1e-300)
        hi = 2 * precision[1] * found["recall"][1] / max(precision[1] + found["recall"][1], 1e-300)
        found["f1"] = (lo, hi)
    return found


def check_summaries(summaries: Sequence[SummaryRow], columns: dict[str, tuple[np.ndarray, np.ndarray]],
                    support: np.ndarray, parse: Parse) -> tuple[list[str], list[str]]:
    """(problems, notes): each summary value that the class rows cannot give within rounding.

    ``columns``: per value (``precision``, ``recall``, ``f1`` when printed) the class values and
    their half units, in the table's scale (0-1); ``parse`` reads a printed summary cell the same way.
    """
    problems: list[str] = []
    checked: list[str] = []
    n = int(support.sum())
    micro = _micro(*columns["precision"], *columns["recall"], support)
    for row in summaries:
        where = f"summary row {row.name!r}" + (f" (line {row.line})" if row.line else "")
        if row.name == "samples avg":
            continue
        cells = {"precision": row.precision, "recall": row.recall, "f1": row.f1}
        if row.name == "accuracy":  # one value, in the f1-score column (or the first one printed)
            value = row.f1 or row.precision or row.recall
            cells = {"recall": value} if value else {}
        for key, cell in cells.items():
            if cell is None:
                continue
            value, half = parse(cell)
            if row.name in ("accuracy", "micro avg"):
                if key not in micro:
                    continue
                lo, hi = micro[key]
                what = "accuracy (sum of TP over N)" if row.name == "accuracy" else f"micro {key}"
            elif key in columns:
                lo, hi = _macro_weighted(*columns[key], support, row.name == "weighted avg")
                what = f"the {'support-weighted mean' if row.name == 'weighted avg' else 'mean'} of the class {key}"
            else:
                continue
            if not _meets(lo, hi, value, half):
                problems.append(f"{where}: {key if row.name != 'accuracy' else 'accuracy'} {cell} is not {what} "
                                f"({max(lo, 0):.4f}–{min(hi, 1):.4f} within the printed rounding)")
        if row.support is not None and row.name != "accuracy" and _support_differs(row.support, n):
            problems.append(f"{where}: support {row.support} is not the sum of the class supports ({n:,})")
        checked.append(row.name)
    notes = [f"summary rows checked against the class rows: {', '.join(checked)}"] if checked else []
    if any(row.name == "samples avg" for row in summaries):
        notes.append("summary row 'samples avg' (multi-label) cannot be derived from the class rows; not checked")
    return problems, notes


def _support_differs(text: str, n: int) -> bool:
    try:
        return float(text) != n
    except ValueError:
        return True
