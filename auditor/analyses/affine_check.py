"""Whether a chance baseline's expected value is exact: each metric checked for being affine between its draws.

Part of the *analyse* stage, used by :mod:`auditor.analyses.baselines`. f(E[C]) = E[f(C)] whenever f is
affine on the convex hull of the tables a baseline can produce; :func:`affine_on_segments` tests f at random
convex combinations λA + (1 − λ)B of pairs of its draws (:func:`affine_pairs` picks them, :func:`mixtures`
builds the mixed tables while a chunk of draws is still in memory, so that no chunk outlives its scoring).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from auditor.metrics.catalogue import compute
from auditor.metrics.registry import ConfusionStats, Metric

#: Random convex combinations of two draws checked by :func:`affine_on_draws_and_points`.
AFFINE_PAIRS = 24
#: The pairs of draws it checks: first and second indices and the weight λ of each pair.
AffinePairs = tuple[np.ndarray, np.ndarray, np.ndarray]


def mixtures(stats: ConfusionStats, first: np.ndarray, second: np.ndarray, weight: np.ndarray,
             active: bool) -> ConfusionStats:
    """Stats of λ C[first] + (1 − λ) C[second] for each pair of draws of one batch (dense or cells)."""
    if "cells" not in stats.__dict__:
        w = weight[:, None, None]
        return ConfusionStats(w * stats.C[first] + (1 - w) * stats.C[second], active)
    shape, flat, count = stats.cells
    k2 = shape[-1] * shape[-1]
    bounds = np.searchsorted(flat // k2, np.arange(shape[0] + 1))
    pieces, values = [], []
    for pair, (a, b, w) in enumerate(zip(first, second, weight)):  # a loop over the pairs, not the items
        for draw, share in ((a, w), (b, 1 - w)):
            cells = slice(bounds[draw], bounds[draw + 1])
            pieces.append(flat[cells] % k2 + pair * k2)
            values.append(count[cells] * share)
    return ConfusionStats.from_cells((len(first), *shape[1:]), np.concatenate(pieces), np.concatenate(values), active)


def affine_pairs(rng: np.random.Generator, n: int, pairs: int = AFFINE_PAIRS) -> AffinePairs | None:
    """Random pairs of the first ``n`` draws and a weight λ for each (None: fewer than two draws)."""
    if n < 2:
        return None
    return rng.integers(0, n, pairs), rng.integers(0, n, pairs), rng.uniform(0.1, 0.9, pairs)


def affine_on_segments(pairs: AffinePairs, mixed_values: dict[str, np.ndarray], values: dict[str, np.ndarray],
                       metrics: Sequence[Metric]) -> dict[str, bool]:
    """Whether each metric is affine along segments between tables: ``pairs`` = (first, second, λ) index the
    tables, ``values`` are the metrics on them, ``mixed_values`` on λ C[first] + (1 − λ) C[second] (for draws:
    :func:`mixtures`).

    f(λA + (1−λ)B) = λ f(A) + (1−λ) f(B) on every tested pair means f is affine on the
    hull of the draws, so E[f(C)] = f(E[C]). Metrics undefined on every draw count as
    affine (the expectation is "undefined" exactly); partly undefined ones do not.
    """
    first, second, weight = pairs
    result = {}
    for metric in metrics:
        drawn = values[metric.id]
        undefined = np.isnan(values[metric.id])
        if undefined.all():
            result[metric.id] = True
            continue
        if undefined.any():
            result[metric.id] = False
            continue
        line = weight * drawn[first] + (1 - weight) * drawn[second]
        got = mixed_values[metric.id]
        scale = np.maximum(1.0, np.abs(line))
        result[metric.id] = bool(np.all(np.abs(got - line) <= 1e-9 * scale))
    return result


def stacked(batches: Sequence[ConfusionStats]) -> ConfusionStats:
    """Batches of one shape as one batch with a leading axis (dense, or cells when they are cells): each table's
    stats are the same floats as in its own batch (a table's sums run over its own cells, in the same order)."""
    active = batches[0].all_labels_active
    if "cells" not in batches[0].__dict__:
        return ConfusionStats(np.stack([batch.C for batch in batches]), active)
    shape = batches[0].cells[0]
    size = int(np.prod(shape, dtype=np.int64))
    flat = np.concatenate([batch.cells[1] + index * size for index, batch in enumerate(batches)])
    count = np.concatenate([batch.cells[2] for batch in batches])
    return ConfusionStats.from_cells((len(batches), *shape), flat, count, active)


#: Points built by :func:`hull_points` (consecutive ones are paired by :func:`affine_on_points`).
HULL_POINTS = 7


def hull_points(kind: str, row: np.ndarray, other: np.ndarray, points: int = HULL_POINTS) -> np.ndarray:
    """Tables inside the hull of what a baseline can produce, built without a random draw (for ``--bootstrap 0``).

    ``kind`` "random" (``other`` = q): row i spread over the labels with q_j > 0 in the fixed, uneven
    proportions q_j (1 + (3i + 5j + 7t) mod 11); "shuffle" (``other`` = column sums): the midpoint of the
    expected table r c^T / N and the north-west-corner table of rows and columns taken in a rotated order
    (a vertex of the set of tables with these margins), a different rotation for each t.
    """
    row, other = np.asarray(row, dtype=float), np.asarray(other, dtype=float)
    k = row.size
    i, j = np.arange(k)[:, None], np.arange(k)[None, :]
    tables = np.zeros((points, k, k))
    for t in range(points):
        if kind == "random":
            weights = other[None, :] * (1 + (3 * i + 5 * j + 7 * t) % 11)
            tables[t] = row[:, None] * weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-300)
        else:
            tables[t] = 0.5 * row[:, None] * other[None, :] / max(row.sum(), 1.0) + 0.5 * _north_west(
                row, other, np.roll(np.arange(k), t), np.roll(np.arange(k)[::-1], 2 * t))
    return tables


def _north_west(row: np.ndarray, col: np.ndarray, row_order: np.ndarray, col_order: np.ndarray) -> np.ndarray:
    """The north-west-corner table with margins ``row`` and ``col``, rows and columns visited in the given orders
    (a loop over at most 2k steps, not over items)."""
    table = np.zeros((row.size, col.size))
    left, wanted = row[row_order].copy(), col[col_order].copy()
    a = b = 0
    while a < row.size and b < col.size:
        moved = min(left[a], wanted[b])
        table[row_order[a], col_order[b]] += moved
        left[a] -= moved
        wanted[b] -= moved
        if left[a] <= 0:
            a += 1
        else:
            b += 1
    return table


def affine_on_points(kind: str, row: np.ndarray, other: np.ndarray, metrics: Sequence[Metric],
                     all_labels_active: bool) -> dict[str, bool]:
    """:func:`affine_on_segments` on the segments between consecutive :func:`hull_points` (weights 0.3 and 0.7
    alternating) instead of random draws: what ``--bootstrap 0`` uses, so that no random number is drawn."""
    return affine_on_points_of(kind, row, np.asarray(other)[None], metrics, all_labels_active)[0]


def affine_on_points_of(kind: str, row: np.ndarray, others: np.ndarray, metrics: Sequence[Metric],
                        all_labels_active: bool) -> list[dict[str, bool]]:
    """:func:`affine_on_points` for each of ``others`` (one baseline's q, or each system's column sums), the
    metrics computed on every baseline's points at once."""
    tables = np.stack([hull_points(kind, row, other) for other in others])
    first = np.arange(tables.shape[1] - 1)
    second = first + 1
    weight = np.where(first % 2 == 0, 0.3, 0.7)
    values = compute(ConfusionStats(tables, all_labels_active), metrics, all_labels_active)
    w = weight[:, None, None]
    mixed = compute(ConfusionStats(w * tables[:, first] + (1 - w) * tables[:, second], all_labels_active), metrics,
                    all_labels_active)
    return [affine_on_segments((first, second, weight), {m: v[index] for m, v in mixed.items()},
                      {m: np.asarray(v[index], dtype=float) for m, v in values.items()}, metrics)
            for index in range(len(others))]


def affine_on_draws_and_points(
    pairs: AffinePairs | None, mixed: ConfusionStats | None, values: dict[str, np.ndarray], kind: str,
    row: np.ndarray, other: np.ndarray, metrics: Sequence[Metric], all_labels_active: bool,
) -> dict[str, bool]:
    """A metric counts as affine only where both the draws (:func:`affine_on_segments` between random pairs of
    them, mixed by :func:`mixtures`) and :func:`affine_on_points` find it so.

    The draws alone can agree by accident: when most draws of a random predictor miss some class, the geometric
    mean of recalls is 0 at both ends of most drawn segments and "affine" on them, although E[f(C)] is far below
    f(E[C]) (300 items, 12 classes: 0.0004 against 0.091). The hull points are built with every cell of a
    reachable label positive, so such a metric fails there.
    """
    return affine_of_baselines([pairs], [mixed], [values], kind, row, np.asarray(other)[None], metrics,
                               all_labels_active)[0]


def affine_of_baselines(
    pairs: Sequence[AffinePairs | None], mixed: Sequence[ConfusionStats | None],
    values: Sequence[dict[str, np.ndarray]], kind: str, row: np.ndarray, others: np.ndarray, metrics: Sequence[Metric],
    all_labels_active: bool,
) -> list[dict[str, bool]]:
    """:func:`affine_on_draws_and_points` of several baselines of one kind (each system's shuffle: ``others`` its
    column sums), the metrics computed on every baseline's mixtures at once (:func:`stacked`) and on every
    baseline's points at once: the same answers as one by one. A baseline without pairs of draws to check (a
    system whose shuffles were not drawn; fewer than two draws) is checked on the points alone, as
    :func:`affine_on_points` does without draws."""
    checked = [index for index in range(len(values)) if pairs[index] is not None and mixed[index] is not None]
    mixed_values = compute(stacked([mixed[index] for index in checked]), metrics, all_labels_active) if checked else {}
    at = {index: position for position, index in enumerate(checked)}
    built = affine_on_points_of(kind, row, others, metrics, all_labels_active)
    out = []
    for index, points in enumerate(built):
        if index not in at:  # no pair of draws to check on: the points alone
            out.append(dict(points))
            continue
        drawn = affine_on_segments(pairs[index], {m: v[at[index]] for m, v in mixed_values.items()}, values[index],
                                   metrics)
        out.append({metric: drawn[metric] and points[metric] for metric in drawn})
    return out
