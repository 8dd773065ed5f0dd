"""Per-class scores: ranking and calibration metrics of systems that output one score per label.

A system file may carry one column per label instead of (or beside) a label column:

* CSV/TSV with a header naming an id column (optional), an optional label column and one
  column per label (``id<TAB>OTHER<TAB>ABUSE...``): every gold label needs a column, and a
  column name that is neither an id, a label column nor a label makes it an ordinary file;
* JSON Lines with a ``scores`` object per line (``{"id": "7", "scores": {"a": 0.9, "b": 0.1}}``)
  and optionally a ``label``.

The predicted label (the one every count-based metric uses) is the ``label`` column when
given, else the argmax of the scores; a tie in the argmax goes to the tied label whose name
sorts first (numpy's ``argmax`` over the columns in sorted-name order, whatever the file's
column order or ``--labels``). The ECE's top label follows the same rule.

Metrics (``systems.NAME.scores``), k = classes with a score column, y_ic = [gold_i = c]:

* ``roc_auc_macro`` / ``roc_auc_weighted``: one-vs-rest ROC AUC per class (the Mann–Whitney
  statistic with tied scores counted 1/2), averaged unweighted / weighted by gold prevalence —
  scikit-learn's ``roc_auc_score(multi_class="ovr", average=...)``. A class with no gold
  item (or no other item) has an undefined AUC (0/0): the macro average is then undefined;
  the weighted one gives it weight 0.
* ``average_precision_macro``: per class, AP = Σ_n (R_n − R_{n−1}) P_n over the distinct
  score thresholds (scikit-learn's ``average_precision_score``), unweighted mean; undefined
  when a class has no gold item.
* ``log_loss`` = −(1/N) Σ_i ln p_{i, gold_i} (scikit-learn's ``log_loss``); infinite (shown
  undefined, with the item) when an item gives its gold class probability 0.
* ``brier`` = (1/N) Σ_i Σ_c (p_ic − y_ic)² — Brier's (1950) multi-class score, in [0, 2]
  (not the binary ``brier_score_loss`` of the positive class only).
* ``ece`` (top-label expected calibration error, Guo et al. 2017 §2 with M = 15 bins):
  confidence_i = max_c p_ic, correct_i = [argmax_c p_ic = gold_i]; bins (m−1)/M < conf ≤ m/M
  (the first bin includes 0); ECE = Σ_m (n_m / N) |acc_m − conf_m|.

The last three need probabilities: every row non-negative and summing to 1 within
:data:`SUM_TOLERANCE` (scores are used as given, never renormalised); otherwise they are
undefined with the first offending item named. Bootstrap intervals (percentile, the audit's
B and seed; N items drawn with replacement per resample) are given for all six: each class's
items are sorted once, and a resample's AUC and AP follow from the weight of positives and
negatives at each distinct score (no re-ranking per resample). Within a time budget: AUC and
AP when N·B·k ≤ :data:`RANKING_BUDGET`, the means when N·B ≤ :data:`MEAN_BUDGET`; beyond it
the interval is ``null`` and ``score_summary.notes`` says why.

Scores are per item, so this module is the exception to "counts only"; it stays vectorised
(numpy over items, loops over classes, systems and bins only).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import InputError
from auditor.io.load import LabelColumn

__all__ = ["ScoreColumn", "SUM_TOLERANCE", "ECE_BINS", "read_scored", "check_columns", "score_metrics", "analyse"]

#: A row of probabilities may sum to 1 ± this (files round to a few decimals).
SUM_TOLERANCE = 1e-3
#: Equal-width confidence bins of the ECE and the reliability diagram (Guo et al. 2017 use 15).
ECE_BINS = 15
SCORE_METRICS = ("roc_auc_macro", "roc_auc_weighted", "average_precision_macro", "log_loss", "brier", "ece")
#: Lower is better for these.
LOSSES = ("log_loss", "brier", "ece")
#: Largest N x B block of resampling weights held at once (float64: 8 bytes each).
_BLOCK = 4_000_000
#: Intervals of log loss, Brier and ECE when N·B is at most this (about 1 s per 10^8).
MEAN_BUDGET = 100_000_000
#: Intervals of AUC and AP too when N·B·k is at most this (a sort-order gather per class and
#: resample: about 1.5 s per 2.5·10^7, measured at N = 100,000, k = 4).
RANKING_BUDGET = 50_000_000


@dataclass(frozen=True)
class ScoreColumn:
    """One system's scores as read: ``scores[n, c]`` for label ``labels[c]``, item ids, lines."""

    source: str
    labels: tuple[str, ...]
    scores: np.ndarray
    id_array: Any
    lines: np.ndarray
    has_label: bool

    def where(self, index: int) -> str:
        return f"{self.source} line {int(self.lines[index])}"


# ------------------------------------------------------------------------------- reading


def _header(text: str) -> tuple[int, str, int] | None:
    """(line number, header line, offset of the next line) of the first line that is not blank or a comment."""
    from auditor.io.load import _is_comment

    offset, number = 0, 0
    while offset < len(text):
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end
        number += 1
        stripped = text[offset:end].strip(" \t")
        if stripped and not _is_comment(stripped):
            return number, text[offset:end], end + 1
        offset = end + 1
    return None


def read_scored(path: str | os.PathLike, label_names: Sequence[str]) -> tuple[LabelColumn, ScoreColumn] | None:
    """The predictions and scores of a scores file, or None when ``path`` is not one.

    ``label_names``: the labels a score column may name (gold labels, or ``--labels``).
    """
    source = os.fspath(path)
    if not os.path.isfile(source):
        return None
    suffix = os.path.splitext(source)[1].lower()
    if suffix in (".parquet",):
        return None
    with open(source, "rb") as stream:
        head = stream.read(65536)
    if b"\x00" in head:
        return None
    names = set(label_names)
    stripped = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    if suffix in (".jsonl", ".ndjson", ".json") or stripped[:1] == b"{":
        first = stripped.split(b"\n", 1)[0]
        try:
            record = json.loads(first)
        except (ValueError, RecursionError):  # not a scores file; the label loader says what is wrong
            return None
        if not isinstance(record, dict) or not isinstance(record.get("scores"), dict):
            return None
        return _read_json(source, names)
    try:
        text_head = head.decode("utf-8-sig", errors="ignore").replace("\r\n", "\n").replace("\r", "\n")
    except Exception:  # pragma: no cover - errors="ignore" never raises
        return None
    found = _header(text_head)
    if found is None:
        return None
    from auditor.io.load import _fields, _is_id_name, _is_label_name

    delimiter = {".csv": ",", ".tsv": "\t"}.get(suffix) or ("\t" if "\t" in found[1] else "," if "," in found[1] else None)
    if delimiter is None:
        return None
    fields = _fields(found[1], delimiter)
    score_columns = [i for i, f in enumerate(fields) if f in names]
    others = [i for i in range(len(fields)) if i not in score_columns]
    if len(score_columns) < 2 or any(not (_is_id_name(fields[i]) or _is_label_name(fields[i])) for i in others):
        return None
    if all(_is_id_name(f) or _is_label_name(f) for f in fields) and \
            not _first_row_has_numbers(text_head[found[2]:], delimiter, score_columns):
        return None  # a label file's header (`id<TAB>label`) whose words happen to be gold labels
    ids = [i for i in others if _is_id_name(fields[i])]
    labels = [i for i in others if i not in ids]
    if len(ids) > 1 or len(labels) > 1:
        raise InputError(f"{source} line {found[0]}: a scores header needs at most one id and one label column besides "
                         f"the label columns; found {', '.join(repr(fields[i]) for i in others)}")
    return _read_delimited(source, delimiter, fields, found[0], score_columns,
                           ids[0] if ids else None, labels[0] if labels else None, names)


def _first_row_has_numbers(text: str, delimiter: str, score_columns: list[int]) -> bool:
    """True when the first item line of ``text`` (after the header) holds a number in every
    score column, or when the sniffed head holds no item line."""
    from auditor.io.load import _fields, _is_comment

    for line in text.split("\n"):
        stripped = line.strip(" \t")
        if not stripped or _is_comment(stripped):
            continue
        cells = _fields(line, delimiter)
        try:
            for i in score_columns:
                float(cells[i])
        except (IndexError, ValueError):
            return False
        return True
    return True


def _line_numbers(data: bytes, begin: int, first_line: int, n_rows: int, source: str) -> np.ndarray:
    """Line of every non-empty line from ``begin`` (as the loader counts them)."""
    buffer = np.frombuffer(data, dtype=np.uint8, offset=begin)
    breaks = np.flatnonzero(buffer == 10)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [buffer.size]])
    if starts[-1] == buffer.size:
        starts, ends = starts[:-1], ends[:-1]
    numbers = np.flatnonzero(ends > starts).astype(np.int64) + first_line
    if numbers.size != n_rows:
        raise InputError(f"{source}: {n_rows} rows read but {numbers.size} non-empty lines; expected one item per line")
    return numbers


def _read_delimited(source: str, delimiter: str, fields: list[str], header_line: int, score_columns: list[int],
                    id_column: int | None, label_column: int | None, names: set[str]) -> tuple[LabelColumn, ScoreColumn]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from auditor.io.load import _decode, _finish, _id_array

    raw = open(source, "rb").read()
    _decode(raw, source)  # a clear message for bytes that are not UTF-8
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    # offset of the line after the header
    begin = 0
    for _ in range(header_line):
        end = raw.find(b"\n", begin)
        begin = len(raw) if end < 0 else end + 1
    names_arrow = [f"c{i}" for i in range(len(fields))]
    types = {names_arrow[i]: pa.float64() for i in score_columns}
    for column in (id_column, label_column):
        if column is not None:
            types[names_arrow[column]] = pa.string()
    try:
        table = pacsv.read_csv(
            pa.py_buffer(memoryview(raw)[begin:]),
            read_options=pacsv.ReadOptions(column_names=names_arrow),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                 strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise _first_bad_line(raw, begin, header_line, delimiter, fields, score_columns, source, error) from None
    if table.num_rows == 0:
        raise InputError(f"{source}: no items, only a header")
    numbers = _line_numbers(raw, begin, header_line + 1, table.num_rows, source)
    matrix = np.column_stack([table.column(names_arrow[i]).to_numpy() for i in score_columns]).astype(np.float64)
    labels = tuple(fields[i] for i in score_columns)
    ids = None if id_column is None else _id_array(table.column(names_arrow[id_column]), source)
    _check_values(matrix, numbers, source, labels)
    if label_column is not None:
        predicted = _finish(source, table.column(names_arrow[label_column]), ids, numbers, _sha256(source),
                            "tsv" if delimiter == "\t" else "csv", {})
    else:
        predicted = None
    return _predictions(source, matrix, labels, ids, numbers, predicted, names)


def _first_bad_line(raw: bytes, begin: int, header_line: int, delimiter: str, fields: list[str],
                    score_columns: list[int], source: str, error: Exception) -> InputError:
    """The exact line of a body pyarrow refused (error path only)."""
    import csv
    import io

    reader = csv.reader(io.StringIO(raw[begin:].decode("utf-8")), delimiter=delimiter)
    for offset, row in enumerate(reader):
        line = header_line + 1 + offset
        if not row or not "".join(row).strip():
            continue
        if len(row) != len(fields):
            return InputError(f"{source} line {line}: found {len(row)} fields; expected {len(fields)} like the header")
        for i in score_columns:
            try:
                float(row[i])
            except ValueError:
                return InputError(f"{source} line {line}: score of {fields[i]!r} is {row[i].strip()!r}; expected a number")
    return InputError(f"{source}: cannot read the scores ({error})")


def _check_values(matrix: np.ndarray, numbers: np.ndarray, source: str, labels: Sequence[str]) -> None:
    bad = ~np.isfinite(matrix)
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise InputError(f"{source} line {int(numbers[row])}: score of {labels[column]!r} is {float(matrix[row, column])!r}; "
                         f"expected a finite number")


def _read_json(source: str, names: set[str]) -> tuple[LabelColumn, ScoreColumn]:
    from auditor.io.load import _decode, _finish, _id_array, json_lines

    raw = open(source, "rb").read()
    records, keep, _ = json_lines(_decode(raw, source), source, '{"id": "a1", "scores": {"pos": 0.8, "neg": 0.2}}')
    numbers = np.asarray(keep, dtype=np.int64) + 1
    from auditor.io.load import _is_id_name, _is_label_name

    keys = [key for key in records[0] if key != "scores"] if isinstance(records[0], dict) else []
    ids_found = [key for key in keys if _is_id_name(key)]
    labels_found = [key for key in keys if _is_label_name(key) and key not in ids_found]
    id_key = ids_found[0] if ids_found else None
    label_key = labels_found[0] if labels_found else None
    labels = tuple(records[0]["scores"])
    missing_labels = [label for label in labels if label not in names]
    if missing_labels:
        raise InputError(f"{source} line {numbers[0]}: scores name {', '.join(map(repr, missing_labels))}, not a gold "
                         f"label; expected one score per label ({', '.join(sorted(names))})")
    for n, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("scores"), dict) or \
                list(record["scores"]) != list(labels) and set(record["scores"]) != set(labels) or \
                (id_key is not None and id_key not in record) or (label_key is not None and label_key not in record):
            raise InputError(f"{source} line {numbers[n]}: expected an object with "
                             f"{', '.join(repr(k) for k in (id_key, label_key) if k)}{' and ' if id_key or label_key else ''}"
                             f"'scores' holding {', '.join(map(repr, labels))} like line {numbers[0]}")
    try:
        matrix = np.array([[record["scores"][label] for label in labels] for record in records], dtype=np.float64)
    except (TypeError, ValueError):
        n = next(n for n, r in enumerate(records) if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                             for v in r["scores"].values()))
        raise InputError(f"{source} line {numbers[n]}: a score is not a number ({records[n]['scores']}); expected "
                         f"numbers") from None
    _check_values(matrix, numbers, source, labels)
    ids = None if id_key is None else _id_array(np.asarray([r[id_key] for r in records] + [None], dtype=object)[:-1],
                                                 source)
    predicted = None
    if label_key is not None:
        predicted = _finish(source, _id_array(np.asarray([r[label_key] for r in records] + [None], dtype=object)[:-1],
                                              source), ids, numbers, _sha256(source), "jsonl", {})
    return _predictions(source, matrix, labels, ids, numbers, predicted, names)


def _predictions(source: str, matrix: np.ndarray, labels: tuple[str, ...], ids: Any, numbers: np.ndarray,
                 predicted: LabelColumn | None, names: set[str]) -> tuple[LabelColumn, ScoreColumn]:
    """The predicted labels: the label column, else the argmax in sorted label order (first tied label wins)."""
    scored = ScoreColumn(source, labels, matrix, ids, numbers, predicted is not None)
    if predicted is not None:
        return predicted, scored
    order = sorted(range(len(labels)), key=lambda c: labels[c])
    arg = np.argmax(matrix[:, order], axis=1)
    from auditor.io.load import _merge

    codes, used = _merge(arg.astype(np.int32), [labels[c] for c in order])
    return LabelColumn(source, codes, used, ids, numbers, _sha256(source), "tsv", {}), scored


def _sha256(source: str) -> str:
    import hashlib

    return hashlib.sha256(open(source, "rb").read()).hexdigest()


# ------------------------------------------------------------------------------- metrics


@dataclass
class ScoreValue:
    value: float | None
    undefined: str | None = None
    ci: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "ci": list(self.ci) if self.ci else None, "undefined": self.undefined}


def _auc_per_class(scores: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """One-vs-rest AUC of every column: (R₊ − n₊(n₊+1)/2) / (n₊ n₋), R₊ the sum of the positives'
    mid-ranks (ties share their mean rank, i.e. count 1/2). NaN where n₊ or n₋ is 0."""
    from scipy.stats import rankdata

    ranks = rankdata(scores, axis=0)
    positives = truth.sum(axis=0).astype(np.float64)
    negatives = truth.shape[0] - positives
    rank_sum = (ranks * truth).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def _average_precision(score: np.ndarray, positive: np.ndarray) -> float:
    """AP = Σ_n (R_n − R_{n−1}) P_n over the distinct thresholds, highest first (NaN without positives)."""
    order = np.argsort(-score, kind="mergesort")
    ordered, hits = score[order], positive[order].astype(np.float64)
    last = np.r_[np.flatnonzero(np.diff(ordered)), ordered.size - 1]  # last item of each distinct score
    tp = np.cumsum(hits)[last]
    predicted = last + 1.0
    total = hits.sum()
    if total == 0:
        return float("nan")
    recall = tp / total
    precision = tp / predicted
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def _probability_problem(scores: np.ndarray, where: Any) -> str | None:
    negative = np.flatnonzero((scores < 0).any(axis=1))
    if negative.size:
        return f"{where(int(negative[0]))} has a negative score: not probabilities"
    sums = scores.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1) > SUM_TOLERANCE)
    if off.size:
        return (f"{where(int(off[0]))} sums to {sums[off[0]]:.6g} ({off.size} row{'s' if off.size > 1 else ''} off 1 by more than "
                f"{SUM_TOLERANCE:g}): not probabilities")
    return None


def calibration_bins(confidence: np.ndarray, correct: np.ndarray, bins: int = ECE_BINS,
                     weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin (m−1)/M < conf ≤ m/M (first bin from 0): item count, mean confidence and accuracy (NaN when empty)."""
    index = np.clip(np.ceil(confidence * bins).astype(np.int64) - 1, 0, bins - 1)
    w = np.ones_like(confidence) if weights is None else weights
    count = np.bincount(index, weights=w, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.bincount(index, weights=w * confidence, minlength=bins) / count
        accuracy = np.bincount(index, weights=w * correct, minlength=bins) / count
    return count, mean_conf, accuracy


def score_metrics(scores: np.ndarray, gold: np.ndarray, labels: Sequence[str], where: Any = None
                  ) -> tuple[dict[str, ScoreValue], dict[str, Any]]:
    """The six score metrics of one system (module docstring) and its reliability bins.

    ``scores`` (N, k) in the order of ``labels``; ``gold`` (N,) codes into ``labels`` (every gold
    item's class has a column).
    """
    where = where or (lambda i: f"item {i + 1}")
    n, k = scores.shape
    truth = np.zeros((n, k), dtype=bool)
    truth[np.arange(n), gold] = True
    support = truth.sum(axis=0)
    result: dict[str, ScoreValue] = {}
    auc = _auc_per_class(scores, truth)
    absent = [labels[c] for c in range(k) if support[c] == 0]
    lone = [labels[c] for c in range(k) if support[c] == n]
    if absent or lone:
        reason = (f"one-vs-rest AUC of {', '.join(map(repr, absent or lone))} is 0/0: "
                  f"{'no gold item' if absent else 'every gold item'} has that class")
        result["roc_auc_macro"] = ScoreValue(None, reason)
    else:
        result["roc_auc_macro"] = ScoreValue(float(np.mean(auc)))
    defined = support > 0
    if (support[defined] == n).any():
        result["roc_auc_weighted"] = ScoreValue(None, "one class holds every gold item: AUC is 0/0")
    else:
        result["roc_auc_weighted"] = ScoreValue(float(np.sum(auc[defined] * support[defined]) / n))
    ap = np.array([_average_precision(scores[:, c], truth[:, c]) for c in range(k)])
    if absent:
        result["average_precision_macro"] = ScoreValue(
            None, f"average precision of {', '.join(map(repr, absent))} is 0/0: no gold item has that class")
    else:
        result["average_precision_macro"] = ScoreValue(float(np.mean(ap)))
    problem = _probability_problem(scores, where)
    reliability: dict[str, Any] = {}
    if problem is not None:
        for metric_id in LOSSES:
            result[metric_id] = ScoreValue(None, problem)
        return result, reliability
    gold_probability = scores[np.arange(n), gold]
    zero = np.flatnonzero(gold_probability <= 0)
    if zero.size:
        result["log_loss"] = ScoreValue(None, f"{where(int(zero[0]))} gives its gold class probability 0: the log loss "
                                              f"is infinite ({zero.size} such items)")
    else:
        result["log_loss"] = ScoreValue(float(-np.mean(np.log(gold_probability))))
    result["brier"] = ScoreValue(float(np.mean(np.sum((scores - truth) ** 2, axis=1))))
    confidence = scores.max(axis=1)
    correct = (top_label(scores, labels) == gold).astype(np.float64)
    count, mean_conf, accuracy = calibration_bins(confidence, correct)
    filled = count > 0
    result["ece"] = ScoreValue(float(np.sum(count[filled] / n * np.abs(accuracy[filled] - mean_conf[filled]))))
    reliability = {"count": count.astype(int).tolist(),
                   "confidence": [None if not f else float(v) for f, v in zip(filled, mean_conf)],
                   "accuracy": [None if not f else float(v) for f, v in zip(filled, accuracy)]}
    return result, reliability


def top_label(scores: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """Column of the highest score per row; ties go to the label whose name sorts first."""
    order = np.array(sorted(range(len(labels)), key=lambda c: labels[c]), dtype=np.int64)
    return order[np.argmax(scores[:, order], axis=1)]


class _Resampler:
    """Every score metric of a batch of weighted resamples: ``weights`` (b, N), item n counted
    ``weights[b, n]`` times. Each class's items are sorted once; a resample then needs per
    distinct score only its positive and negative weight (``np.add.reduceat``), so AUC and AP
    cost O(b·N) per class, like the means."""

    def __init__(self, scores: np.ndarray, gold: np.ndarray, labels: Sequence[str], ranking: bool = True) -> None:
        n, k = scores.shape
        self.n = n
        self.truth = np.zeros((n, k), dtype=bool)
        self.truth[np.arange(n), gold] = True
        self.classes = []
        for c in range(k if ranking else 0):
            order = np.argsort(-scores[:, c], kind="mergesort")  # highest score first
            ordered = scores[order, c]
            starts = np.r_[0, np.flatnonzero(np.diff(ordered)) + 1]  # first item of each distinct score
            self.classes.append((order, starts, self.truth[order, c]))
        self.probabilities = _probability_problem(scores, lambda i: str(i)) is None
        if self.probabilities:
            positive = scores[np.arange(n), gold]
            with np.errstate(divide="ignore"):
                self.log_loss = -np.log(positive)
            self.brier = np.sum((scores - self.truth) ** 2, axis=1)
            confidence = scores.max(axis=1)
            correct = (top_label(scores, labels) == gold).astype(np.float64)
            bins = np.clip(np.ceil(confidence * ECE_BINS).astype(np.int64) - 1, 0, ECE_BINS - 1)
            onehot = np.zeros((n, ECE_BINS))
            onehot[np.arange(n), bins] = 1.0
            self.gap = (correct - confidence)[:, None] * onehot  # (N, M): Σ_bin (correct − conf) per item

    def __call__(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Metric id -> (b,) values; NaN where a resample leaves a class without positives or negatives."""
        total = weights.sum(axis=1)
        result: dict[str, np.ndarray] = {}
        if self.probabilities:
            result["log_loss"] = weights @ self.log_loss / total
            result["brier"] = weights @ self.brier / total
            result["ece"] = np.abs(weights @ self.gap).sum(axis=1) / total
        if not self.classes:
            return result
        aucs, aps, support = [], [], []
        for order, starts, positive in self.classes:
            w = np.take(weights, order, axis=1)
            wp = w * positive
            wn = w - wp
            if starts.size < self.n:  # tied scores: weight per distinct score
                wp, wn = np.add.reduceat(wp, starts, axis=1), np.add.reduceat(wn, starts, axis=1)
            n_pos, n_neg = wp.sum(axis=1), wn.sum(axis=1)
            below = n_neg[:, None] - np.cumsum(wn, axis=1)  # negatives scored lower than the group
            with np.errstate(invalid="ignore", divide="ignore"):
                aucs.append((wp * (below + 0.5 * wn)).sum(axis=1) / (n_pos * n_neg))
                predicted = np.cumsum(wp + wn, axis=1)
                precision = np.where(predicted > 0, np.cumsum(wp, axis=1) / np.where(predicted > 0, predicted, 1), 0)
                aps.append((wp * precision).sum(axis=1) / n_pos)
            support.append(n_pos)
        auc, ap, support_matrix = np.stack(aucs, 1), np.stack(aps, 1), np.stack(support, 1)
        result["roc_auc_macro"], result["average_precision_macro"] = auc.mean(axis=1), ap.mean(axis=1)
        with np.errstate(invalid="ignore"):
            present = support_matrix > 0
            result["roc_auc_weighted"] = np.where(present, np.nan_to_num(auc) * support_matrix, 0).sum(axis=1) / total
            result["roc_auc_weighted"][(present & np.isnan(auc)).any(axis=1)] = np.nan
        return result


def _intervals(scores: np.ndarray, gold: np.ndarray, labels: Sequence[str], values: dict[str, ScoreValue], B: int,
               seed: int, alpha: float, system_index: int) -> str | None:
    """Percentile intervals of the defined score metrics from B resamples of the items (N draws with
    replacement each; the same resamples for every metric; resamples where a metric is undefined
    are left out), within :data:`MEAN_BUDGET` and :data:`RANKING_BUDGET`. Returns a note when
    some intervals were not computed."""
    n, k = scores.shape
    ranking = n * B * k <= RANKING_BUDGET
    wanted = [m for m in SCORE_METRICS if values[m].value is not None
              and (ranking or m in LOSSES) and n * B <= MEAN_BUDGET]
    note = None
    if not ranking:
        note = (f"AUC and AP intervals not computed: N·B·k = {n * B * k:,} is above {RANKING_BUDGET:,}"
                + ("" if n * B <= MEAN_BUDGET else f"; nor log loss, Brier and ECE: N·B = {n * B:,} is above "
                                                   f"{MEAN_BUDGET:,}"))
    if not wanted or B <= 0:
        return note
    resampler = _Resampler(scores, gold, labels, ranking)
    rng = np.random.default_rng([seed, 13, system_index])
    draws: dict[str, list[np.ndarray]] = {m: [] for m in wanted}
    block = max(1, _BLOCK // max(n, 1))
    for start in range(0, B, block):
        size = min(block, B - start)
        drawn = rng.integers(0, n, size=(size, n)) + np.arange(size)[:, None] * n  # N items with replacement
        weights = np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        batch = resampler(weights)
        for metric_id in wanted:
            draws[metric_id].append(batch[metric_id])
    for metric_id, parts in draws.items():
        sample = np.concatenate(parts)
        sample = sample[np.isfinite(sample)]
        if sample.size:
            values[metric_id].ci = (float(np.quantile(sample, alpha / 2)), float(np.quantile(sample, 1 - alpha / 2)))
    return note


@dataclass
class ScoreAnalysis:
    """Score metrics and reliability bins of every system that gave scores."""

    values: dict[str, dict[str, ScoreValue]]
    reliability: dict[str, dict[str, Any]]
    labels: dict[str, list[str]]
    bootstrap: int
    notes: list[str] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        """Terminal lines: the six score metrics of each system that gave scores (three decimals)."""
        lines = ["per-class scores: " + ", ".join(SCORE_METRICS)]
        for name, values in self.values.items():
            shown = ["—" if values[m].value is None else f"{values[m].value:.3f}" for m in SCORE_METRICS]
            lines.append(f"  {name}: {' '.join(shown)}")
        return lines

    def add_to_json(self, document: dict[str, Any]) -> None:
        for name, values in self.values.items():
            document["systems"][name]["scores"] = {m: values[m].to_json() for m in SCORE_METRICS}
        document["score_summary"] = {
            "systems": list(self.values), "score_labels": self.labels, "ece_bins": ECE_BINS,
            "sum_tolerance": SUM_TOLERANCE, "reliability": self.reliability, "lower_is_better": list(LOSSES),
            "intervals": (f"percentile bootstrap of every score metric ({self.bootstrap} resamples of the items)"
                          if self.bootstrap else "none (--bootstrap 0)"),
            "notes": self.notes,
        }


def check_columns(scored: Mapping[str, ScoreColumn], gold_labels: Sequence[str]) -> None:
    """Every gold label needs a score column (checked before counting)."""
    for column in scored.values():
        missing = sorted(label for label in gold_labels if label not in column.labels)
        if missing:
            raise InputError(f"{column.source}: no score column for gold label(s) {', '.join(map(repr, missing))}; "
                             f"expected one column per gold label")


def align_scores(scored: ScoreColumn, id_array: Any, n_items: int, labels: Sequence[str]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The scores in gold order with columns in ``labels`` order (each has a column), and the row of
    the file each gold item came from. The predictions were aligned already, so the ids match."""
    if id_array is None or scored.id_array is None:
        order = np.arange(n_items)
    else:
        import pyarrow.compute as pc

        ids = scored.id_array.combine_chunks() if hasattr(scored.id_array, "combine_chunks") else scored.id_array
        order = pc.index_in(id_array, value_set=ids).to_numpy(zero_copy_only=False).astype(np.int64)
    position = {label: c for c, label in enumerate(scored.labels)}
    return scored.scores[order][:, [position[label] for label in labels]], order


def analyse(result: Any, scored: Mapping[str, ScoreColumn], id_array: Any) -> ScoreAnalysis:
    """Score metrics of the systems in ``scored`` (their predictions are in ``result.counts``)."""
    counts = result.counts
    labels = list(counts.labels)
    values: dict[str, dict[str, ScoreValue]] = {}
    reliability: dict[str, dict[str, Any]] = {}
    used: dict[str, list[str]] = {}
    notes: list[str] = []
    for name, column in scored.items():
        chosen = [label for label in labels if label in column.labels]
        index = [labels.index(label) for label in chosen]
        matrix, rows = align_scores(column, id_array, counts.n_items, chosen)
        remap = np.full(len(labels), -1)
        remap[index] = np.arange(len(index))
        gold = remap[counts.gold]
        system_values, bins = score_metrics(matrix, gold, chosen, lambda i, c=column, r=rows: c.where(int(r[i])))
        if result.options.bootstrap:
            note = _intervals(matrix, gold, chosen, system_values, result.options.bootstrap, result.options.seed,
                              result.options.alpha, counts.systems.index(name))
            if note:
                notes.append(f"{name}: {note}")
        values[name], reliability[name], used[name] = system_values, bins, chosen
    return ScoreAnalysis(values, reliability, used, result.options.bootstrap, notes)
