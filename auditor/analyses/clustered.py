"""Classification's statistics when the items come in clusters (``--clusters``, ``--lm-eval-cluster``).

Part of the *analyse* stage, chosen by :func:`auditor.analyses.significance.statistics` when clusters are given.
Each cluster's units are summed into one row of confusion cells, ``X[c, (s, i, j)] = #{items of cluster c with
gold i that system s predicts as j}`` (:func:`cluster_cells`); the cluster bootstrap draws C clusters with
replacement (:class:`auditor.analyses.units.UnitResampler`), a resample's confusion matrices are ``w X`` and every
metric is computed on them: percentile intervals, rank distributions and P(win) from the same paired draws. The
pair test of every metric, accuracy included, is approximate randomisation that swaps the two systems' cells
cluster by cluster (:func:`auditor.analyses.units.randomisation_tests`): McNemar's exact test assumes independent
items, which clustered items are not. The design effect of each system's accuracy (clustered over naive
variance, :func:`auditor.analyses.units.design_effect`) is reported beside them.
"""
from __future__ import annotations

import zlib
from typing import Any, Sequence

import numpy as np

from auditor.analyses.bootstrap import BootstrapResult, percentile_intervals, rank_probabilities
from auditor.analyses.units import (
    Clusters,
    UnitResampler,
    design_effect,
    randomisation_tests,
    resampling_json,
)
from auditor.io.counts import Counts
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import ConfusionStats, Metric
from auditor.progress import SILENT, Progress

#: The method written into the JSON (``statistics.method``).
METHOD = ("cluster bootstrap: C clusters drawn with replacement, every system on the same draw (paired), each "
          "resample's confusion matrices summed from the drawn clusters' cells; percentile intervals, ranks and "
          "P(win) from the same draws")
def cluster_cells(counts: Counts, clusters: Clusters) -> Any:
    """``X`` (C × S·k², CSR): each cluster's confusion cells of every system."""
    import scipy.sparse

    k, S, C = counts.k, len(counts.systems), clusters.n_clusters
    gold = counts.gold.astype(np.int64)
    columns = (np.arange(S)[:, None] * k + gold[None, :]) * k + counts.predictions.astype(np.int64)
    rows = np.broadcast_to(clusters.codes, columns.shape)
    return scipy.sparse.csr_matrix((np.ones(columns.size), (rows.ravel(), columns.ravel())), shape=(C, S * k * k))


def bootstrap(counts: Counts, metrics: Sequence[Metric], cells: Any, clusters: Clusters, B: int, seed: int,
              alpha: float, all_labels_active: bool, progress: Progress = SILENT) -> BootstrapResult:
    """The cluster bootstrap of every scalar metric (module docstring)."""
    scalar = [metric for metric in metrics if not metric.per_class]
    S, k = len(counts.systems), counts.k
    observed = compute(counts.confusion, scalar, all_labels_active)
    transposed = cells.T.tocsr()
    values = {metric.id: np.empty((B, S)) for metric in scalar}
    with progress.task("cluster bootstrap", total=B) as advance:
        for start, draws in UnitResampler(counts.n_items, B, [seed, zlib.crc32(b"clusters")], clusters).draws():
            size = draws.shape[0]
            sums = np.asarray(transposed @ draws.T.astype(np.float64)).T.reshape(size, S, k, k)
            for metric_id, array in compute(ConfusionStats(sums, all_labels_active), scalar,
                                            all_labels_active).items():
                values[metric_id][start:start + size] = array
            advance(size)
    summaries = {metric.id: percentile_intervals(values[metric.id], alpha) for metric in scalar}
    return BootstrapResult(
        systems=tuple(counts.systems), metric_ids=tuple(metric.id for metric in scalar), B=B, seed=seed, alpha=alpha,
        values=values, observed={key: np.asarray(v, dtype=float) for key, v in observed.items()}, method=METHOD,
        intervals={key: summary[0] for key, summary in summaries.items()},
        undefined={key: summary[1] for key, summary in summaries.items()},
        rank_probabilities={metric.id: rank_probabilities(metric.oriented(values[metric.id])) for metric in scalar})


def pair_tests(counts: Counts, cells: Any, chosen: Sequence[Metric], observed: dict[str, np.ndarray],
               pairs: Sequence[tuple[int, int]], rounds: int, seed: int, correction: str,
               all_labels_active: bool) -> list:
    """Approximate randomisation over clusters of every pair in ``pairs`` under every metric of ``chosen``."""
    k = counts.k

    def evaluate(a: int, b: int, sums: np.ndarray) -> dict[str, np.ndarray]:
        stats = ConfusionStats(sums.reshape(-1, 2, k, k), all_labels_active)
        return compute(stats, list(chosen), all_labels_active)

    return randomisation_tests(cells, 0, k * k, evaluate, observed, counts.systems, [m.id for m in chosen], rounds,
                               seed, correction, pairs=pairs)


def resampling(counts: Counts, clusters: Clusters) -> dict[str, Any]:
    """The record's ``statistics.resampling``: clusters drawn, and each system's design effect of accuracy."""
    correct = counts.predictions == counts.gold[None, :]
    return resampling_json(clusters, "item", design_effect(correct, None, clusters), counts.systems, "accuracy")
