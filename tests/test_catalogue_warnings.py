"""Degenerate matrices (no item, an empty gold row, one class) raise no RuntimeWarning in the catalogue: each 0/0
is decided where it arises (issue 36), and the values stay what they were (NaN where undefined)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from auditor.metrics.registry import REGISTRY, ConfusionStats

CASES = [np.zeros((3, 3)), np.array([[5, 0, 0], [0, 0, 0], [1, 0, 0.0]]), np.zeros((2, 2)), np.zeros((4, 3, 3)),
         np.array([[3.0]])]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_no_runtime_warning_on_degenerate_matrices(index):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for metric in REGISTRY:
            try:
                metric.function(ConfusionStats(CASES[index]))
            except (TypeError, ValueError, IndexError):  # a parameterised metric that needs its own input
                continue


def test_accuracy_of_no_item_is_undefined():
    assert np.isnan(REGISTRY.get("accuracy").function(ConfusionStats(np.zeros((2, 2)))))
    assert REGISTRY.get("accuracy").function(ConfusionStats(np.array([[3.0, 1.0], [0.0, 4.0]]))) == pytest.approx(7 / 8)
