"""The one statistics record of the tasks counted per unit (``auditor.analyses.units``): the pair-test loop's
p-values by hand, sacrebleu's paired bootstrap p by hand (parity only, never a best set), and the record's JSON
valid against the schema's shared ``statistics`` for both interval kinds (percentile; BCa and the jackknife normal
interval by metric, equal to ``auditor.analyses.intervals``)."""
from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pytest

from auditor.analyses.families import RANDOMISATION
from auditor.analyses.intervals import bca_intervals, jackknife_intervals
from auditor.analyses.units import PAIRED_BOOTSTRAP, pair_tests, unit_statistics

SYSTEMS = ("a", "b", "c")


def _statistics_schema() -> dict:
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text(encoding="utf-8"))
    return {**schema["$defs"]["statistics"], "$defs": schema["$defs"]}


def test_pair_tests_p_by_hand():
    """Δ = 0.3 − 0.1 = 0.2; shuffled Δ* = (0.25, −0.2, 0.05, 0.1, NaN): 2 of the 4 defined are at least as extreme,
    p = (1 + 2) / (4 + 1) = 0.6. Paired bootstrap (Koehn 2004, sacrebleu's paired_bs): resampled |d_b| =
    (0.1, 0.3, 0.2), mean 0.2, d_b − mean = (−0.1, 0.1, 0): none ≥ 0.2, p = 1 / 4."""
    observed = {"m": np.array([0.3, 0.1, 0.2])}
    null = {"m": np.array([0.25, -0.2, 0.05, 0.1, np.nan])}
    resampled = {"m": np.array([[0.4, 0.3, 0.0], [0.5, 0.2, 0.0], [0.3, 0.1, 0.0]])}
    tests = pair_tests(SYSTEMS, ["m"], observed, [(0, 1)], lambda a, b: null, 5, "holm", resampled)
    by_method = {t.method: t for t in tests}
    assert by_method[RANDOMISATION].p == pytest.approx(0.6)
    assert by_method[RANDOMISATION].details == {"rounds": 5}
    assert by_method[PAIRED_BOOTSTRAP].p == pytest.approx(0.25)
    assert by_method[RANDOMISATION].difference == pytest.approx(0.2)


@pytest.fixture
def values():
    rng = np.random.default_rng(3)
    return {"m": rng.normal([0.5, 0.4, 0.3], 0.05, size=(200, 3)), "n": rng.normal([0.2, 0.3, 0.1], 0.05, (200, 3))}


def test_the_record_is_the_shared_statistics_in_both_interval_kinds(values):
    observed = {m: v.mean(axis=0) for m, v in values.items()}
    left_out = {m: np.random.default_rng(4).normal(observed[m], 0.01, size=(30, 3)) for m in values}
    null = {m: np.linspace(-0.05, 0.05, 99) for m in values}
    pairs = [(0, 1), (0, 2), (1, 2)]
    tests = pair_tests(SYSTEMS, list(values), observed, pairs, lambda a, b: null, 99, "holm", values)
    percentile = unit_statistics(values, observed, SYSTEMS, 200, 0.05, "holm", list(values), tests, seed=1,
                                 unit="sentence", rank_rule="rank 1 = highest value", rounds=99, rounds_rule="R = 99")
    by_metric = unit_statistics(values, observed, SYSTEMS, 200, 0.05, "holm", list(values), tests, seed=1,
                                unit="segment", rank_rule="rank 1 = highest value", rounds=99, rounds_rule="R = 99",
                                left_out=left_out, methods={"m": "bca", "n": "jackknife_normal"})
    schema = _statistics_schema()
    for stats in (percentile, by_metric):
        document = stats.to_json(SYSTEMS)
        jsonschema.validate(document, schema)
        assert document["p_floor"] == {RANDOMISATION: 1 / 100, PAIRED_BOOTSTRAP: 1 / 201}
        assert document["family_sizes"] == {"m": 3, "n": 3} and document["test_metrics"] == ["m", "n"]
        assert set(document["test_methods"]) == {RANDOMISATION, PAIRED_BOOTSTRAP}
        assert {best["test"] for best in document["best_set"].values()} == {RANDOMISATION}
    assert "interval_method" not in percentile.to_json(SYSTEMS)
    assert by_metric.to_json(SYSTEMS)["interval_method"] == {"m": "bca", "n": "jackknife_normal"}
    np.testing.assert_array_equal(by_metric.intervals["m"],
                                  bca_intervals(values["m"], observed["m"], left_out["m"], 0.05)[0])
    np.testing.assert_array_equal(by_metric.intervals["n"], jackknife_intervals(left_out["n"], observed["n"], 0.05)[0])


def test_no_test_says_why(values):
    observed = {m: v.mean(axis=0) for m, v in values.items()}
    stats = unit_statistics(values, observed, SYSTEMS, 200, 0.05, "holm", None, note="not run: one system")
    document = stats.to_json(SYSTEMS)
    jsonschema.validate(document, _statistics_schema())
    assert document["pairwise_tests_unavailable"] == "not run: one system" and "best_set" not in document
