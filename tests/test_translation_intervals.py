"""BCa intervals of the translation metrics (issue 23): equal to scipy.stats.bootstrap(method='BCa')
on the same resamples; the jackknife from counts equals recomputing without each segment."""
from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.options import AuditOptions
from auditor.tasks.translation import audit
from auditor.tasks.translation.counting import count_corpus
from auditor.tasks.translation.intervals import METHODS, bca_intervals, bias_removed_intervals, intervals, jackknife
from auditor.tasks.translation.names import METRICS
from auditor.tasks.translation.resampling import bootstrap, point_scores, scores

WORDS = "the a cat dog sat on mat . , house big small runs Haus über rare1 rare2 rare3 rare4".split()


def _corpus(n=30, seed=4):
    rng = random.Random(seed)

    def line():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9)))

    references = [[line() for _ in range(n)] for _ in range(2)]
    systems = {"A": [line() for _ in range(n)], "B": [r if rng.random() < 0.5 else line() for r in references[0]]}
    return count_corpus(references, systems, "13a", False)


def test_jackknife_from_counts_equals_recounting_without_each_segment():
    corpus = _corpus()
    left_out = jackknife(corpus, 1.0, 1.0)
    for i in (0, 7, 29):
        weights = np.ones((1, corpus.n_segments))
        weights[0, i] = 0
        direct = scores(corpus, weights, 1.0, 1.0)
        for metric in METRICS:
            np.testing.assert_allclose(left_out[metric][i], direct[metric][0], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("metric", METRICS)
def test_bca_equals_scipy_on_the_same_resamples(metric):
    """scipy draws rng.integers(0, N, (B, N)); our bootstrap draws rng.choice(N, (B, N)): the same indices."""
    corpus = _corpus()
    n, resamples, seed = corpus.n_segments, 400, 21
    observed = point_scores(corpus, 1.0, 1.0)
    resampled = bootstrap(corpus, resamples, seed, 1.0, 1.0)
    ours = bca_intervals(resampled.values[metric], observed[metric], jackknife(corpus, 1.0, 1.0)[metric], 0.05)
    chosen = intervals(corpus, observed, resampled.values, 0.05, 1.0, 1.0)[metric]
    if METHODS[metric] == "bca":
        np.testing.assert_array_equal(chosen["interval"], ours[0])
    np.testing.assert_array_equal(chosen["z0"], ours[1])
    for s in range(len(corpus.systems)):

        def statistic(index, axis=-1):
            rows = np.atleast_2d(index)
            weights = np.stack([np.bincount(row, minlength=n) for row in rows.reshape(-1, rows.shape[-1])])
            values = scores(corpus, weights.astype(np.float64), 1.0, 1.0)[metric][:, s]
            return values.reshape(rows.shape[:-1]) if np.ndim(index) > 1 else values[0]

        result = scipy.stats.bootstrap((np.arange(n),), statistic, vectorized=True, n_resamples=resamples,
                                       method="BCa", confidence_level=0.95, rng=np.random.default_rng(seed))
        np.testing.assert_allclose(result.bootstrap_distribution, resampled.values[metric][:, s], rtol=1e-12)
        assert ours[0][s] == pytest.approx([result.confidence_interval.low, result.confidence_interval.high],
                                           rel=1e-10)


def test_bca_by_hand_with_no_bias_and_no_skew_is_the_percentile_interval():
    """Resamples symmetric around the value (z0 = Φ⁻¹(1/2) = 0) and a symmetric jackknife (a = 0):
    α1,2 = Φ(z_{α/2}), Φ(z_{1−α/2}) = 0.025, 0.975, the percentile interval."""
    resampled = np.linspace(-1, 1, 401)[:, None]
    interval, z0, a, fallback = bca_intervals(resampled, np.array([0.0]), np.array([[-1.0], [1.0]]), 0.05)
    assert z0[0] == 0 and a[0] == 0 and not fallback[0]
    np.testing.assert_allclose(interval[0], np.quantile(resampled[:, 0], [0.025, 0.975]))


def test_a_value_outside_every_resample_falls_back_to_the_percentile_interval():
    resampled = np.linspace(1, 2, 101)[:, None]
    interval, z0, _, fallback = bca_intervals(resampled, np.array([0.5]), np.array([[0.4], [0.6], [0.5]]), 0.05)
    assert np.isneginf(z0[0]) and fallback[0]
    np.testing.assert_allclose(interval[0], np.quantile(resampled[:, 0], [0.025, 0.975]))


def test_the_audit_names_bca_in_json_and_every_value_lies_in_its_interval(tmp_path):
    rng = random.Random(9)
    n = 80

    def line():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))

    paths = {}
    for name in ("ref", "A", "B"):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(line() for _ in range(n)) + "\n", encoding="utf-8")
    result = audit(paths["ref"], {"A": paths["A"], "B": paths["B"]}, options=AuditOptions(bootstrap=300))
    document = result.to_json()
    assert document["statistics"]["interval_method"] == {"macrof": "bias_removed_percentile",
                                                         "microf": "bias_removed_percentile", "bleu": "bca",
                                                         "chrf": "bca"}
    assert set(document["statistics"]["bca"]["microf"]["A"]) == {"z0", "acceleration", "percentile_fallback",
                                                                 "resample_mean"}
    assert "ci:bca" in document["signature"]
    for system in ("A", "B"):
        for metric in METRICS:
            entry = document["systems"][system]["metrics"][metric]
            assert entry["ci"][0] <= entry["value"] <= entry["ci"][1], (system, metric)


def test_bias_removed_interval_by_hand():
    """Resamples 1, 2, ..., 101 (mean 51; 2.5% and 97.5% linear quantiles 3.5 and 98.5) and value 40:
    [40 + 3.5 − 51, 40 + 98.5 − 51] = [−7.5, 87.5]."""
    interval, mean = bias_removed_intervals(np.arange(1.0, 102.0)[:, None], np.array([40.0]), 0.05)
    assert mean[0] == 51 and interval[0].tolist() == pytest.approx([-7.5, 87.5])


def test_type_level_intervals_are_the_resamples_spread_around_the_value():
    """Many rare types (each in one segment): the bias-removed interval holds the value by construction
    (value − lower = mean − q_{α/2} > 0 unless the resamples are skewed past their mean)."""
    rng = random.Random(5)
    n = 60
    references = [[" ".join(f"r{rng.randrange(400)}" for _ in range(6)) + " the cat" for _ in range(n)]]
    system = {"S": [" ".join(t if rng.random() < 0.6 else "x" for t in line.split()) for line in references[0]]}
    corpus = count_corpus(references, system, "13a", False)
    observed = point_scores(corpus, 1.0, 1.0)
    resampled = bootstrap(corpus, 300, 3, 1.0, 1.0).values
    result = intervals(corpus, observed, resampled, 0.05, 1.0, 1.0)
    for metric in ("macrof", "microf"):
        low, high = result[metric]["interval"][0]
        assert low <= observed[metric][0] <= high
        assert observed[metric][0] - low == pytest.approx(
            result[metric]["resample_mean"][0] - np.quantile(resampled[metric][:, 0], 0.025))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from("a b c d e f".split()), max_size=6),
                          st.lists(st.sampled_from("a b c x y".split()), max_size=6)), min_size=2, max_size=9),
       st.floats(0.5, 3.0), st.floats(1.0, 4.0))
def test_jackknife_equals_recounting_on_generated_corpora(rows, beta, k):
    """Property: for any small corpus (empty segments, types in one segment only), every leave-one-out value
    from the counts equals scoring the corpus with that segment's weight 0."""
    references = [[" ".join(r) for r, _ in rows]]
    corpus = count_corpus(references, {"S": [" ".join(h) for _, h in rows]}, "13a", False)
    left_out = jackknife(corpus, beta, k)
    weights = np.ones((len(rows), len(rows))) - np.eye(len(rows))
    direct = scores(corpus, weights, beta, k)
    for metric in METRICS:
        np.testing.assert_allclose(left_out[metric][:, 0], direct[metric][:, 0], rtol=1e-12, atol=1e-15)
