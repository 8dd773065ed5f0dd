"""Per-class scores: ranking and calibration metrics of systems that output one score per label.

The files are read and aligned to the gold items by :mod:`auditor.io.scores`; this module
computes from the aligned score matrices and the gold codes. The predicted label is the
file's ``label`` column, else the argmax (:func:`auditor.io.scores.top_label`: a tie goes to
the label whose name sorts first); the ECE's top label follows the same rule.

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

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from auditor.io.counts import Counts
from auditor.io.scores import AlignedScores, top_label

__all__ = ["SUM_TOLERANCE", "ECE_BINS", "SCORE_METRICS", "LOSSES", "ScoreValue", "ReliabilityBins", "ScoreAnalysis",
           "score_metrics", "score_systems", "analyse"]

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


# ------------------------------------------------------------------------------- metrics


@dataclass(frozen=True)
class ScoreValue:
    """One score metric of one system: its value (None = undefined, with the reason) and its
    percentile bootstrap interval (None when not computed)."""

    value: float | None
    undefined: str | None = None
    ci: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "ci": list(self.ci) if self.ci else None, "undefined": self.undefined}


@dataclass(frozen=True)
class ReliabilityBins:
    """Per confidence bin (m−1)/M < conf ≤ m/M: items, their mean confidence and accuracy (None
    for an empty bin); the ECE's terms and the reliability diagram's points."""

    count: tuple[int, ...]
    confidence: tuple[float | None, ...]
    accuracy: tuple[float | None, ...]


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


def _probability_problem(scores: np.ndarray, where: Callable[[int], str]) -> str | None:
    negative = np.flatnonzero((scores < 0).any(axis=1))
    if negative.size:
        return f"{where(int(negative[0]))} has a negative score: not probabilities"
    sums = scores.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1) > SUM_TOLERANCE)
    if off.size:
        return (f"{where(int(off[0]))} sums to {sums[off[0]]:.6g} ({off.size} row{'s' if off.size > 1 else ''} "
                f"off 1 by more than {SUM_TOLERANCE:g}): not probabilities")
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


def score_metrics(scores: np.ndarray, gold: np.ndarray, labels: Sequence[str],
                  where: Callable[[int], str] | None = None) -> tuple[dict[str, ScoreValue], ReliabilityBins | None]:
    """The six score metrics of one system (module docstring) and its reliability bins (None when
    the scores are not probabilities). ``where(n)`` names item n in messages.

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
    if problem is not None:
        for metric_id in LOSSES:
            result[metric_id] = ScoreValue(None, problem)
        return result, None
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
    reliability = ReliabilityBins(tuple(count.astype(int).tolist()),
                                  tuple(None if not f else float(v) for f, v in zip(filled, mean_conf)),
                                  tuple(None if not f else float(v) for f, v in zip(filled, accuracy)))
    return result, reliability


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


def _intervals(scores: np.ndarray, gold: np.ndarray, labels: Sequence[str], values: Mapping[str, ScoreValue], B: int,
               seed: int, alpha: float, system_index: int) -> tuple[dict[str, tuple[float, float]], str | None]:
    """Percentile intervals of the defined score metrics from B resamples of the items (N draws with
    replacement each; the same resamples for every metric; resamples where a metric is undefined
    are left out), within :data:`MEAN_BUDGET` and :data:`RANKING_BUDGET`: metric id -> (low, high),
    and a note when some intervals were not computed."""
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
        return {}, note
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
    intervals = {}
    for metric_id, parts in draws.items():
        sample = np.concatenate(parts)
        sample = sample[np.isfinite(sample)]
        if sample.size:
            intervals[metric_id] = (float(np.quantile(sample, alpha / 2)), float(np.quantile(sample, 1 - alpha / 2)))
    return intervals, note


@dataclass(frozen=True)
class ScoreAnalysis:
    """Score metrics and reliability bins of every system that gave scores (``systems.NAME.scores``
    and ``score_summary`` in the JSON)."""

    #: System -> metric id (:data:`SCORE_METRICS`) -> value.
    values: Mapping[str, Mapping[str, ScoreValue]]
    #: System -> its reliability bins (None: the scores are not probabilities).
    reliability: Mapping[str, ReliabilityBins | None]
    #: System -> the labels it gave a score column, in the audit's label order.
    labels: Mapping[str, tuple[str, ...]]
    #: Bootstrap resamples of the intervals (0: none).
    bootstrap: int
    #: Why some intervals were not computed (the time budget), one line per system.
    notes: tuple[str, ...] = ()

    @property
    def intervals(self) -> str:
        """How the intervals were computed, in words (``score_summary.intervals``)."""
        return (f"percentile bootstrap of every score metric ({self.bootstrap} resamples of the items)"
                if self.bootstrap else "none (--bootstrap 0)")

    def to_json(self) -> dict[str, Any]:
        """``systems.NAME.scores`` (the six score metrics) and ``score_summary``."""
        summary = {
            "systems": list(self.values), "score_labels": {name: list(labels) for name, labels in self.labels.items()},
            "ece_bins": ECE_BINS, "sum_tolerance": SUM_TOLERANCE,
            "reliability": {name: {} if bins is None else {"count": list(bins.count),
                                                           "confidence": list(bins.confidence),
                                                           "accuracy": list(bins.accuracy)}
                            for name, bins in self.reliability.items()},
            "lower_is_better": list(LOSSES), "intervals": self.intervals, "notes": list(self.notes),
        }
        return {"systems": {name: {"scores": {metric_id: values[metric_id].to_json() for metric_id in SCORE_METRICS}}
                            for name, values in self.values.items()},
                "score_summary": summary}

    def summary_lines(self) -> list[str]:
        """Terminal lines: the six score metrics of each system that gave scores (three decimals)."""
        lines = ["per-class scores: " + ", ".join(SCORE_METRICS)]
        for name, values in self.values.items():
            shown = ["—" if values[m].value is None else f"{values[m].value:.3f}" for m in SCORE_METRICS]
            lines.append(f"  {name}: {' '.join(shown)}")
        return lines


def analyse(scored: Mapping[str, AlignedScores], counts: Counts, bootstrap: int, seed: int,
            alpha: float) -> ScoreAnalysis:
    """Score metrics of the systems that gave scores (:func:`score_systems` on the counts' gold codes,
    labels and systems)."""
    return score_systems(scored, counts.gold, counts.labels, counts.systems, bootstrap=bootstrap, seed=seed,
                         alpha=alpha)


def score_systems(scored: Mapping[str, AlignedScores], gold: np.ndarray, labels: Sequence[str],
                  systems: Sequence[str], *, bootstrap: int, seed: int, alpha: float) -> ScoreAnalysis:
    """Score metrics of the systems in ``scored`` (aligned to the gold items, :func:`auditor.io.scores.align_scores`).

    ``gold`` (N,) codes into ``labels`` (the audit's labels; every gold class has a score column);
    ``systems`` all systems of the audit in order: a system's position seeds its resamples
    (``default_rng([seed, 13, position])``). ``bootstrap`` resamples (0: no intervals), percentile
    intervals at level 1 − ``alpha``.
    """
    values: dict[str, Mapping[str, ScoreValue]] = {}
    reliability: dict[str, ReliabilityBins | None] = {}
    used: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []
    for name, aligned in scored.items():
        remap = np.full(len(labels), -1)
        remap[[list(labels).index(label) for label in aligned.labels]] = np.arange(len(aligned.labels))
        system_gold = remap[gold]
        system_values, bins = score_metrics(aligned.scores, system_gold, aligned.labels, aligned.where)
        if bootstrap:
            intervals, note = _intervals(aligned.scores, system_gold, aligned.labels, system_values, bootstrap, seed,
                                         alpha, list(systems).index(name))
            system_values = {m: replace(v, ci=intervals.get(m)) for m, v in system_values.items()}
            if note:
                notes.append(f"{name}: {note}")
        values[name] = MappingProxyType(system_values)
        reliability[name], used[name] = bins, aligned.labels
    return ScoreAnalysis(MappingProxyType(values), MappingProxyType(reliability), MappingProxyType(used), bootstrap,
                         tuple(notes))

