"""Synthetic systems shared by the statistics tests."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from auditor.io.counts import Counts, count


def synthetic_counts(seed: int = 0, n: int = 200, k: int = 3,
                     accuracies: Sequence[float] = (0.7, 0.6, 0.5)) -> Counts:
    """Uniform gold over k classes; system s is right with probability ``accuracies[s]``,
    otherwise it predicts one of the other k − 1 classes uniformly."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, size=n)
    systems = {}
    for s, accuracy in enumerate(accuracies):
        wrong = (gold + rng.integers(1, k, size=n)) % k
        systems[f"s{s}"] = np.where(rng.random(n) < accuracy, gold, wrong)
    return count(gold, systems)
