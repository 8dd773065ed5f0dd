"""ConfusionStats from non-zero cells (many classes, few items) equal the dense stats, metric by metric."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY, ConfusionStats


def _sparse(confusion: np.ndarray, all_labels_active: bool = False, shuffle_seed: int = 0) -> ConfusionStats:
    flat = np.flatnonzero(confusion)
    counts = confusion.ravel()[flat]
    # split every cell into two repeated entries, in random order: from_cells must sum repeats
    rng = np.random.default_rng(shuffle_seed)
    part = np.floor(counts * rng.random(counts.size))
    flat2, counts2 = np.concatenate([flat, flat]), np.concatenate([part, counts - part])
    order = rng.permutation(flat2.size)
    return ConfusionStats.from_cells(confusion.shape, flat2[order], counts2[order], all_labels_active)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 60), st.integers(1, 3), st.booleans(), st.integers(0, 2**32 - 1))
def test_every_metric_same_from_cells_as_dense(k, n, batch, active, seed):
    rng = np.random.default_rng(seed)
    confusion = np.zeros((batch, k * k))
    for b in range(batch):
        np.add.at(confusion[b], rng.integers(0, k * k, n), 1)
    confusion = confusion.reshape(batch, k, k)
    dense = compute(confusion, REGISTRY.scalar(), active)
    with np.errstate(all="ignore"):
        sparse = {m.id: m.function(_sparse(confusion, active, seed)) for m in REGISTRY.scalar()}
    for metric_id, value in dense.items():
        np.testing.assert_allclose(sparse[metric_id], value, rtol=1e-10, atol=1e-12, err_msg=metric_id)


def test_dense_matrix_built_on_demand_from_cells():
    confusion = np.array([[[3, 1, 0], [0, 0, 2], [1, 0, 5]]], dtype=float)
    stats = _sparse(confusion)
    np.testing.assert_array_equal(stats.C, confusion)


def test_nit_hand_computed_from_cells():
    # C = [[2, 0], [0, 2]]: MI = 1 bit, k_Y = 2, so NIT = 2^1 / 2 = 1 (Vickers et al. Eq. 7)
    stats = ConfusionStats.from_cells((2, 2), np.array([0, 3]), np.array([2.0, 2.0]))
    assert REGISTRY.metrics["nit"].function(stats) == 1.0
