"""Multi-label chance baselines: the exact expectations against a full enumeration (every permutation of the
items; every outcome of the label-wise sampler with its probability), the constant predictors by hand."""
from __future__ import annotations

from itertools import permutations, product

import numpy as np
import pytest

from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.chance import baselines, prevalence_sampler, shuffled
from auditor.tasks.multilabel.counting import count
from auditor.tasks.multilabel.measures import evaluate

GOLD = np.array([[1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1], [1, 0, 0]], dtype=bool)
SYSTEM = np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 1]], dtype=bool)


def values(gold, system):
    aligned = Aligned.of_bits(["s"], "abc", gold, [system])
    return {m: float(v[0]) for m, v in evaluate(count(aligned).sums).items()}


def test_the_shuffle_expectations_equal_the_mean_over_every_permutation():
    aligned = Aligned.of_bits(["s"], "abc", GOLD, [SYSTEM])
    baseline = shuffled(aligned, 0, np.random.default_rng(0), draws=10)
    every = [values(GOLD, SYSTEM[list(order)]) for order in permutations(range(len(GOLD)))]
    for metric, expected in baseline.exact.items():
        assert expected == pytest.approx(np.mean([v[metric] for v in every]), abs=1e-12), metric
    assert {"micro_f1", "macro_f1", "subset_accuracy", "samples_f1", "hamming_loss"} <= set(baseline.exact)


def test_the_sampler_expectations_equal_the_probability_weighted_mean_of_every_outcome():
    gold = GOLD[:3, :2]
    aligned = Aligned.of_bits(["s"], "ab", gold, [gold])
    baseline = prevalence_sampler(aligned, np.random.default_rng(0), draws=10)
    p = gold.mean(axis=0)
    totals = {metric: 0.0 for metric in baseline.exact}
    for outcome in product((False, True), repeat=gold.size):
        bits = np.array(outcome).reshape(gold.shape)
        weight = np.prod(np.where(bits, p, 1 - p))
        for metric, value in values(gold, bits).items():
            if metric in totals:
                totals[metric] += weight * value
    for metric, expected in baseline.exact.items():
        assert expected == pytest.approx(totals[metric], abs=1e-12), metric


def test_the_constant_predictors_by_hand():
    aligned = Aligned.of_bits(["s"], "abc", GOLD, [SYSTEM])
    empty, modal = baselines(aligned, 1, draws=5)[:2]
    assert empty.exact["hamming_loss"] == pytest.approx(7 / 15)  # every gold label missed: 7 of 5 x 3
    assert empty.exact["micro_recall"] == 0 and empty.exact["subset_accuracy"] == 0
    assert "a" in modal.description  # {a} is gold's most frequent set (items 3 and 5)
    assert modal.exact["subset_accuracy"] == pytest.approx(2 / 5)


def test_the_monte_carlo_range_follows_alpha():
    """The range is the alpha/2 and 1 − alpha/2 quantiles of the draws (numpy's linear interpolation, computed here
    from the same draws by hand: the same seed gives the same permutations), so --alpha 0.2 narrows it."""
    aligned = Aligned.of_bits(["s"], "abc", GOLD, [SYSTEM])
    wide = shuffled(aligned, 0, np.random.default_rng(3), draws=40, alpha=0.05)
    narrow = shuffled(aligned, 0, np.random.default_rng(3), draws=40, alpha=0.2)
    rng = np.random.default_rng(3)
    drawn = np.sort([values(GOLD, SYSTEM[rng.permutation(len(GOLD))])["micro_f1"] for _ in range(40)])
    position = 0.1 * 39  # the 10% quantile of 40 values: between the 4th and 5th smallest
    low = drawn[3] + (position - 3) * (drawn[4] - drawn[3])
    assert narrow.low["micro_f1"] == pytest.approx(low, abs=1e-12)
    assert wide.low["micro_f1"] <= narrow.low["micro_f1"] <= narrow.high["micro_f1"] <= wide.high["micro_f1"]
    assert narrow.to_json()["alpha"] == 0.2 and wide.mean == narrow.mean
