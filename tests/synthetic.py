"""Synthetic systems shared by the statistics tests, and the small audit with hostile names whose report the
report tests share (``small_report`` in conftest)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from auditor.io.counts import Counts, count

#: A label, and two system names, that would break the HTML or the LaTeX if written unescaped.
SCRIPT_LABEL = "<script>alert(1)</script>"
IMG_SYSTEM = '"><img src=x>'
TEX_SYSTEM = "A&B_50%"


def small_audit():
    """30 items over 3 labels (one of them ``SCRIPT_LABEL``), two systems with hostile names, B = 50."""
    import auditor

    gold = [SCRIPT_LABEL] * 6 + ["x_y"] * 9 + ["plain"] * 15
    good = [SCRIPT_LABEL] * 5 + ["plain"] + ["x_y"] * 7 + ["plain"] * 2 + ["plain"] * 13 + ["x_y"] * 2
    other = ["plain"] * 30
    return auditor.audit(gold, {IMG_SYSTEM: good, TEX_SYSTEM: other}, bootstrap=50)


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
