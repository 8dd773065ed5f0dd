"""Ranks from each pair's own resample (auditor.analyses.pairwise_resample), against the joint route.

The pairs route replaces the joint resample of all systems when the pattern table is large. Its
claims, each checked here:

* a pair's two confusion matrices have the same distribution in the pair's resample as in the
  joint one: two-sample Kolmogorov–Smirnov tests of m(a) − m(b) over 2000 resamples of each
  route (fixed seeds, so no flakiness), with a negative control (the pair resampled from half
  the items) that the same test rejects;
* P(a beats b) agrees between routes (two-proportion z-test);
* the expected rank 1 + Σ P(other beats s) equals Σ_r r · P(rank = r) of the joint ranks (linearity
  of expectation; exact on the same draws, ties and undefined values included);
* the paired p-values do not depend on the route (they read the pair tables in both).
"""
from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import auditor
import auditor.metrics.catalogue  # noqa: F401  (registers the catalogue)
from auditor.analyses import bootstrap as bootstrap_module
from auditor.analyses import pairwise_resample
from auditor.analyses.bootstrap import PAIRS_METHOD, bootstrap, rank_probabilities
from auditor.analyses.pairwise_resample import JOINT, PAIRS, beats, pair_values, route
from auditor.analyses.profile import identical_systems
from auditor.analyses.resample import Resampler
from auditor.analyses.significance import discordant_counts, statistics
from auditor.io.counts import Counts, count
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY

B = 2000


def _counts(n: int = 1500, k: int = 4, S: int = 3, seed: int = 3) -> Counts:
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, size=n)
    systems = {}
    for s in range(S):
        right = rng.random(n) < 0.55 + 0.05 * s
        systems[f"S{s}"] = np.where(right, gold, rng.integers(0, k, size=n)).astype(str)
    return count(gold.astype(str), systems)


def _joint(counts: Counts, metrics, seed: int) -> dict[str, np.ndarray]:
    """Metric id -> (B, S) values on the joint (paired) resample of all systems."""
    resampler = Resampler(counts, B, seed)
    chunks = [compute(resampler.stats(i), metrics) for i in range(resampler.n_chunks)]
    return {m.id: np.concatenate([chunk[m.id] for chunk in chunks]) for m in metrics}


METRICS = [REGISTRY.get(m) for m in ("accuracy", "macro_f1", "mcc")]


@pytest.mark.parametrize("pair", [(0, 1), (0, 2), (1, 2)])
def test_pair_resample_has_the_joint_distribution(pair):
    counts = _counts()
    joint = _joint(counts, METRICS, seed=11)
    pairs = pair_values(counts, *pair, METRICS, B, seed=12)
    a, b = pair
    for metric in METRICS:
        joint_difference = joint[metric.id][:, a] - joint[metric.id][:, b]
        pair_difference = pairs[metric.id][:, 0] - pairs[metric.id][:, 1]
        assert scipy.stats.ks_2samp(joint_difference, pair_difference).pvalue > 0.001, metric.id
        for column, system in ((0, a), (1, b)):  # each system's own marginal too
            assert scipy.stats.ks_2samp(joint[metric.id][:, system], pairs[metric.id][:, column]).pvalue > 0.001
        # P(a beats b): two-proportion z-test (ties count 1/2: a mean of values in {0, 1/2, 1})
        p_joint, p_pair = beats(joint[metric.id][:, [a, b]]), beats(pairs[metric.id])
        pooled = (p_joint + p_pair) / 2
        se = np.sqrt(max(pooled * (1 - pooled), 1e-9) * 2 / B)
        assert abs(p_joint - p_pair) < 4 * se + 1e-12, (metric.id, p_joint, p_pair)


def test_the_distribution_test_rejects_a_wrong_resample():
    # Negative control: the pair table of half the items (so half the N) has a wider distribution
    # of m(a) - m(b); the same KS test must reject it, or the test above proves nothing.
    counts = _counts()
    joint = _joint(counts, METRICS, seed=11)
    codes, n = counts.pair_patterns(0, 1)
    half = Counts.from_patterns(counts.labels, ("S0", "S1"), codes, np.maximum(n // 2, 1))
    wrong = pair_values(half, 0, 1, METRICS, B, seed=12)
    difference = joint["accuracy"][:, 0] - joint["accuracy"][:, 1]
    assert scipy.stats.ks_2samp(difference, wrong["accuracy"][:, 0] - wrong["accuracy"][:, 1]).pvalue < 1e-6


def test_expected_rank_from_pairs_equals_joint_expected_rank_on_the_same_draws():
    # E[rank_s] = 1 + sum_t P(t beats s) is linearity of expectation; computed here from the joint
    # draws' pair columns, it must equal sum_r r P(rank = r) from rank_probabilities exactly.
    values = np.array([[0.5, 0.5, 0.2], [0.1, np.nan, 0.3], [0.7, 0.2, 0.7], [0.4, 0.4, 0.4]])
    S = values.shape[1]
    p_beats = np.full((S, S), np.nan)
    for a in range(S):
        for b in range(S):
            if a != b:
                p_beats[a, b] = beats(values[:, [a, b]])
    ranks = pairwise_resample.PairwiseRanks(("A", "B", "C"), ("m",), {"m": p_beats}, 0)
    joint_expected = rank_probabilities(values) @ np.arange(1, S + 1)
    np.testing.assert_allclose(ranks.expected_rank("m"), joint_expected, rtol=0, atol=1e-12)
    # hand check of system B (0.5, NaN, 0.2, 0.4): A beats it in rows 2 (NaN ranks last) and 3 and ties
    # in rows 1 and 4, P = (2 + 1/2 + 1/2)/4; C beats it in rows 2 and 3, ties in 4, loses in 1, P =
    # (2 + 1/2)/4: E[rank] = 1 + 3/4 + 5/8 = 2.375
    assert ranks.expected_rank("m")[1] == pytest.approx(2.375)


def test_route_rule(monkeypatch):
    counts = _counts(n=3000, S=5)  # U = 683 patterns; the 10 pair tables hold at most 10 x 4^3 = 640 cells
    assert len(counts.patterns()[1]) == 683 and route(counts) == JOINT  # below PAIRS_FROM
    monkeypatch.setattr(pairwise_resample, "PAIRS_FROM", 682)
    assert route(counts) == PAIRS
    monkeypatch.setattr(pairwise_resample, "PAIRS_FROM", 683)
    assert route(counts) == JOINT
    monkeypatch.setattr(pairwise_resample, "PAIRS_FROM", 10)
    few = _counts(n=150, S=3)  # U < 3 x 4^3 = 192: the pair tables may be no smaller than the full one
    assert len(few.patterns()[1]) < 192 and route(few) == JOINT
    assert route(_counts(n=3000, S=1)) == JOINT  # one system: no pair


def test_bootstrap_in_the_pairs_route(monkeypatch):
    counts = _counts()
    monkeypatch.setattr(pairwise_resample, "route", lambda counts: PAIRS)
    result = bootstrap(counts, METRICS, B=200, seed=5, alpha=0.05, threads=2)
    assert result.method == PAIRS_METHOD and result.rank_probabilities == {}
    same = bootstrap(counts, METRICS, B=200, seed=5, alpha=0.05, threads=1)  # threads change nothing
    for metric in METRICS:
        np.testing.assert_array_equal(result.pairwise.p_beats[metric.id], same.pairwise.p_beats[metric.id])
        p = result.pairwise.p_beats[metric.id]
        np.testing.assert_allclose(p + p.T, np.where(np.eye(3, dtype=bool), np.nan, 1.0))
        assert result.pairwise.expected_rank(metric.id).sum() == pytest.approx(1 + 2 + 3)
    ranks = result.ranks_json()
    assert ranks["rank_route"] == "pairs" and ranks["ranks"] == {} and ranks["p_win"] == {}
    assert ranks["rank_route_rule"] == pairwise_resample.PAIRS_RULE and "2^18" not in ranks["rank_route_rule"]
    assert set(ranks["pairwise_ranks"]["accuracy"]) == {"p_beats", "expected_rank"}


def test_intervals_and_p_values_do_not_depend_on_the_route(monkeypatch):
    counts = _counts()
    metrics = [REGISTRY.get(m) for m in ("accuracy", "macro_f1")]
    before = statistics(counts, metrics, B=100, seed=3, alpha=0.05, correction="holm")
    monkeypatch.setattr(pairwise_resample, "route", lambda counts: PAIRS)
    after = statistics(counts, metrics, B=100, seed=3, alpha=0.05, correction="holm")
    assert before.bootstrap.pairwise is None and after.bootstrap.pairwise is not None
    assert [t.to_json() for t in before.tests] == [t.to_json() for t in after.tests]
    for metric in metrics:
        np.testing.assert_array_equal(before.bootstrap.intervals[metric.id], after.bootstrap.intervals[metric.id])


def test_audit_json_and_report_in_the_pairs_route(monkeypatch):
    from importlib import resources

    from auditor.report.build import build

    monkeypatch.setattr(pairwise_resample, "route", lambda counts: PAIRS)
    counts = _counts(n=400)
    gold = np.asarray(counts.labels)[counts.gold]
    systems = {name: np.asarray(counts.labels)[counts.predictions[s]] for s, name in enumerate(counts.systems)}
    result = auditor.audit(gold, systems, bootstrap=100, seed=1)
    document = json.loads(json.dumps(result.to_json(), allow_nan=False))
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(document)
    assert document["statistics"]["rank_route"] == "pairs"
    assert "ranks=pairs," in document["signature"] and "ranks=paired" not in document["signature"]
    assert document["statistics"]["pairwise_ranks"]["macro_f1"]["expected_rank"].keys() == set(systems)
    model = build(result, figures=False)
    tables = [block for section in model.sections for block in section.blocks if getattr(block, "id", "") ==
              "table-expected-rank"]
    assert len(tables) == 1 and "resampled on its own" in tables[0].caption


def test_joint_route_json_names_its_route():
    counts = _counts(n=300)
    assert bootstrap(counts, METRICS, B=20, seed=1, alpha=0.05).ranks_json()["rank_route"] == "joint"
    assert bootstrap(counts, METRICS, B=20, seed=1, alpha=0.05, ranks=False).ranks_json()["rank_route"] == "none"
    assert bootstrap_module.METHOD != PAIRS_METHOD


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(2, 4), st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_counts_from_pairs_equal_counts_from_the_pattern_table(k, S, rows, seed):
    # Counts.from_pairs (what an engine gives when the pattern table is too large) against the full table.
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, k, size=(rows, 1 + S))
    codes[0, 0], codes[-1, 0] = 0, k - 1
    if seed % 2:  # the last system copies the first: identical systems found from the pairs too
        codes[:, S] = codes[:, 1]
    full = Counts.from_patterns([str(i) for i in range(k)], [f"S{s}" for s in range(S)], codes,
                                rng.integers(1, 50, size=rows))
    pairs = {(a, b): full.pair_patterns(a, b) for a in range(S) for b in range(a + 1, S)}
    from_pairs = Counts.from_pairs(full.labels, full.systems, pairs)
    np.testing.assert_array_equal(from_pairs.confusion, full.confusion)
    assert from_pairs.paired and from_pairs.n_items == full.n_items
    for a in range(S):
        for b in range(S):
            if a != b:
                for x, y in zip(from_pairs.pair_patterns(a, b), full.pair_patterns(a, b)):
                    np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(pairwise_resample.discordant_from_pairs(from_pairs), discordant_counts(full))
    assert identical_systems(from_pairs) == identical_systems(full)
