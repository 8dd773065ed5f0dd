"""Multi-label intervals and paired tests over items: approximate randomisation over items (the spine's test over
units) against an exact enumeration of every swap, exact McNemar against a hand count, best sets."""
from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from auditor.options import AuditOptions
from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.counting import count, item_patterns
from auditor.tasks.multilabel.measures import evaluate
from auditor.tasks.multilabel.resampling import item_statistics, mcnemar, pair_tests


def aligned_of(gold, *systems):
    gold = np.asarray(gold, dtype=bool)
    return Aligned.of_bits([f"s{i}" for i in range(len(systems))], tuple("abc"[:gold.shape[1]]), gold, systems)


GOLD = [[1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1], [1, 0, 1], [0, 1, 0]]
A = [[1, 0, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 0], [0, 1, 0]]
B = [[1, 1, 0], [1, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 1], [0, 0, 0]]


#: Two systems whose set codes coincide on items 7 and 8 although their sets differ (each system numbers its own
#: sets): the label-set-triple test that compared codes across systems left such items out of every swap.
GOLD2 = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 0]]
A2 = [[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]]
B2 = [[0, 1, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 1], [0, 0, 1], [1, 1, 0], [1, 1, 0]]


def exact_permutation_p(metrics, data=(GOLD, A, B)):
    """metric -> p over every one of the 2^N swaps of the two systems' sets, by brute force over items."""
    gold, a, b = (np.asarray(x, dtype=bool) for x in data)
    observed = evaluate(count(aligned_of(gold, a, b)).sums)
    hits = dict.fromkeys(metrics, 0)
    for swap in product((False, True), repeat=len(gold)):
        s = np.array(swap)[:, None]
        values = evaluate(count(aligned_of(gold, np.where(s, b, a), np.where(s, a, b))).sums)
        for metric in metrics:
            delta = observed[metric][0] - observed[metric][1]
            hits[metric] += abs(values[metric][0] - values[metric][1]) >= abs(delta) - 1e-12
    return {metric: n / 2 ** len(gold) for metric, n in hits.items()}


@pytest.mark.parametrize("data", [(GOLD, A, B), (GOLD2, A2, B2)], ids=["sets", "codes-coincide"])
def test_randomisation_over_items_matches_the_exact_permutation_distribution(data):
    metrics = ("micro_f1", "macro_f1", "samples_f1", "hamming_loss", "jaccard_samples")
    aligned = aligned_of(*data)
    counted = count(aligned)
    patterns = item_patterns(aligned, counted)
    matrix, layout = patterns.matrix[patterns.items], patterns.layout
    rounds = 20_000
    values = evaluate(counted.sums)
    tests = {t.metric: t for t in pair_tests(matrix, layout, aligned, counted, values, rounds, 1, "holm")}
    exact = exact_permutation_p(metrics, data)
    for metric in metrics:
        test = tests[metric]
        assert test.method == "approximate_randomisation" and test.details["rounds"] == rounds
        assert test.difference == pytest.approx(values[metric][0] - values[metric][1])
        bound = 4 * np.sqrt(exact[metric] * (1 - exact[metric]) / rounds) + 2 / rounds
        assert test.p == pytest.approx(exact[metric], abs=bound), metric


def test_mcnemar_counts_the_items_only_one_system_matches():
    counted = count(aligned_of(GOLD, A, B))
    # exact matches: A on items 2, 4, 6; B on items 1, 3, 5 -> n01 = 3, n10 = 3, p = 1
    assert mcnemar(aligned_of(GOLD, A, B), counted, 0, 1) == (3, 3, 1.0)


def test_identical_systems_are_never_significant_and_share_the_best_set():
    aligned = aligned_of(GOLD, A, A, B)
    stats = item_statistics(aligned, count(aligned), AuditOptions(bootstrap=200, seed=3))
    for test in stats.tests:
        if {test.a, test.b} == {"s0", "s1"}:
            assert test.p == 1.0 and test.difference == 0
    for metric, best in stats.best_set.items():
        assert ("s0" in best.systems) == ("s1" in best.systems), metric
    for metric, intervals in stats.intervals.items():
        assert (intervals[:, 0] <= intervals[:, 1]).all()


def test_patterns_hold_every_item_once_and_sum_to_the_counts():
    rng = np.random.default_rng(5)
    gold = rng.random((300, 3)) < 0.3
    systems = [gold ^ (rng.random((300, 3)) < 0.1 * s) for s in (1, 2, 3)]
    aligned = aligned_of(gold, *systems)
    counted = count(aligned)
    patterns = item_patterns(aligned, counted)
    assert patterns.counts.sum() == 300 and patterns.matrix.shape[0] < 300
    # item by item, as the uncompressed item matrix was built: each item's pair row of every system
    blocks = [np.ones((300, 1)), aligned.gold.astype(float)]
    for s, table in enumerate(counted.pairs):
        rows = table.item_rows(aligned.gold_codes, aligned.codes[s])
        blocks.append(np.concatenate([table.tp, table.fp, table.fields], axis=1)[rows])
    assert np.array_equal(patterns.matrix[patterns.items], np.concatenate(blocks, axis=1))
    sums = patterns.layout.parts(patterns.counts @ patterns.matrix)
    for key in ("n", "gold", "tp", "fp", "items"):
        assert np.allclose(sums[key], counted.sums[key])


def test_the_pattern_bootstrap_has_the_item_bootstrap_s_spread():
    # resamples drawn as pattern counts against N items drawn one by one (by hand here): same mean and spread
    from auditor.tasks.multilabel.resampling import bootstrap_values

    rng = np.random.default_rng(8)
    gold = rng.random((120, 3)) < 0.4
    aligned = aligned_of(gold, gold ^ (rng.random((120, 3)) < 0.15), gold ^ (rng.random((120, 3)) < 0.3))
    counted = count(aligned)
    B = 4000
    patterns = item_patterns(aligned, counted)
    ours = bootstrap_values(patterns, B, seed=1)
    matrix, layout = patterns.matrix[patterns.items], patterns.layout  # one row per item
    draws = rng.integers(0, 120, size=(B, 120))
    weights = np.stack([np.bincount(row, minlength=120) for row in draws]).astype(float)
    by_items = evaluate(layout.parts(weights @ matrix))
    for metric in ("micro_f1", "macro_f1", "samples_f1", "hamming_loss", "subset_accuracy"):
        assert np.allclose(ours[metric].mean(axis=0), by_items[metric].mean(axis=0), atol=0.01), metric
        assert np.allclose(ours[metric].std(axis=0), by_items[metric].std(axis=0), rtol=0.1), metric


def test_the_second_fixture_has_set_codes_that_coincide_on_different_sets():
    aligned = aligned_of(GOLD2, A2, B2)
    sets_a, sets_b = (aligned.sets[s][aligned.codes[s]] for s in (0, 1))
    coincide = (aligned.codes[0] == aligned.codes[1]) & (sets_a != sets_b).any(axis=1)
    assert list(np.flatnonzero(coincide)) == [6, 7]
