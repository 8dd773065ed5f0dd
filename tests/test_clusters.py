"""Clustered items (``--clusters``, ``--lm-eval-cluster``): the spine's resampler draws clusters, the pair test swaps
systems cluster by cluster, and the record states the unit, the number of clusters and the design effect.

Independent sources: the clustered standard error of a mean as issue #35 states it (the cluster-robust variance
without a small-sample factor), ``SE² = Σ_c (Σ_{i∈c} (x_i − x̄))² / n²``, computed here by hand from the per-item
outcomes; statsmodels' exact
McNemar test for the unclustered run; the enumerated cluster-swap distribution for the randomisation test.
"""
from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from click.testing import CliRunner
from lmeval_logs import model_logliks, questions, write_mc_run

import auditor.pipeline
from auditor.cli import cli
from auditor.errors import InputError


@pytest.fixture(scope="module")
def clustered_runs(tmp_path_factory):
    """Three models' runs of a 1,200-question, 40-subject task whose subjects differ in difficulty (each subject's
    share of questions every model gets wrong), one model biased to the first choice."""
    folder = tmp_path_factory.mktemp("clustered")
    docs = questions(1200, subjects=40)
    rng = np.random.default_rng(7)
    hardness = rng.uniform(0.0, 0.7, size=40)
    shared = rng.random(1200) < hardness[np.arange(1200) % 40]
    runs = {}
    for s, (name, accuracy, bias) in enumerate((("model-a", 0.9, 0.0), ("model-b", 0.85, 0.0),
                                                 ("model-c", 0.8, 0.6))):
        logliks = model_logliks(docs, accuracy, seed=s, first_bias=bias, shared=shared)
        write_mc_run(folder / name, "quiz", docs, logliks, model=name)
        runs[name] = (str(folder / name), np.argmax(logliks, axis=1) == np.array([d["answer"] for d in docs]))
    return docs, runs


def miller_se(x: np.ndarray, clusters: np.ndarray) -> float:
    """SE² = Σ_c (Σ_{i∈c} (x_i − x̄))² / n², by hand."""
    total = 0.0
    for c in np.unique(clusters):
        total += float(np.sum(x[clusters == c] - x.mean())) ** 2
    return float(np.sqrt(total) / x.size)


def test_clustered_interval_width_agrees_with_millers_standard_error(clustered_runs):
    docs, runs = clustered_runs
    subjects = np.array([d["subject"] for d in docs])
    result = auditor.pipeline.audit_lm_eval([f"{name}={path}" for name, (path, _) in runs.items()],
                                            cluster_field="subject", bootstrap=1000, seed=5)
    document = result.to_json()
    resampling = document["statistics"]["resampling"]
    assert resampling["unit"] == "cluster" and resampling["clusters"] == 40
    for name, (_, right) in runs.items():
        x = right.astype(float)
        se = miller_se(x, subjects)
        low, high = document["systems"][name]["metrics"]["accuracy"]["ci"]
        assert high - low == pytest.approx(2 * 1.959964 * se, rel=0.2)
        naive = np.sqrt(np.sum((x - x.mean()) ** 2)) / x.size
        assert resampling["design_effect"]["systems"][name] == pytest.approx((se / naive) ** 2, rel=1e-9)
        assert resampling["design_effect"]["systems"][name] > 1.5  # the subjects differ: clustered errors are larger
    assert {t["method"] for t in document["tests"]} == {"approximate_randomisation"}  # no McNemar over clusters
    assert document["statistics"]["rank_route"] == "clusters"


def test_mcnemar_is_unaffected_without_clusters(clustered_runs):
    from statsmodels.stats.contingency_tables import mcnemar

    _, runs = clustered_runs
    result = auditor.pipeline.audit_lm_eval([f"{name}={path}" for name, (path, _) in runs.items()], bootstrap=200)
    document = result.to_json()
    a, b = runs["model-a"][1], runs["model-b"][1]
    expected = mcnemar([[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]],
                       exact=True).pvalue
    test = next(t for t in document["tests"] if t["metric"] == "accuracy" and {t["a"], t["b"]} == {"model-a",
                                                                                                   "model-b"})
    assert test["method"] == "mcnemar_exact" and test["p"] == pytest.approx(expected, rel=1e-12)
    assert "resampling" not in document["statistics"]


def test_the_cluster_randomisation_equals_the_enumerated_swaps():
    """Six clusters of two systems' 0/1 outcomes: the p of approximate randomisation over clusters (9,999 rounds)
    agrees with the exact p over all 2^6 cluster swaps."""
    from auditor.analyses.outcomes import analyse
    from auditor.io.clusters import from_names

    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(6), [5, 9, 3, 7, 4, 6])
    a = (rng.random(codes.size) < 0.8).astype(float)
    b = (rng.random(codes.size) < 0.5).astype(float)
    clusters = from_names([f"c{c}" for c in codes], "item", {})
    d = np.bincount(codes, weights=a - b)
    exact = np.mean([abs(np.dot(signs, d)) >= abs(d.sum()) - 1e-12 for signs in product((-1, 1), repeat=6)])
    found = analyse("exact_match", ["a", "b"], np.vstack([a, b]), 10, 1, 0.05, "holm", clusters=clusters)
    assert found.pairs[0].method == "approximate_randomisation"
    assert found.pairs[0].p == pytest.approx(exact, abs=0.015)


def test_few_clusters_state_the_smallest_p_a_swap_test_can_give():
    """Five clusters: of the 2^5 = 32 swaps, swapping none or all leaves |Δ| as it is, so p ≥ 2/32 = 0.0625 in the
    exact test, and the text says so; with 40 clusters the floor (2/2^40) is not worth a sentence."""
    from auditor.analyses.units import resampling_text

    few = resampling_text({"unit": "item", "clusters": 5, "design_effect": None})
    assert "2/2^5 = 0.0625" in few and "32 swaps" in few
    many = resampling_text({"unit": "item", "clusters": 40, "design_effect": None})
    assert "cannot fall" not in many and "40 clusters of items" in many


@pytest.mark.parametrize("lines, message", [
    (["q0\tx", "q1\ty"], r"clusters.tsv: no cluster for item id 'q2'"),
    (["q0\tx", "q1\ty", "q2\tz", "q9\tz"], r"clusters.tsv line 4: item id 'q9' is not one of"),
    (["q0\tx", "q1\ty", "q1\tz", "q2\tz"], r"clusters.tsv line 3: item id 'q1' is given twice \(first on line 2\)"),
    (["id\tcluster", "q0\tx", "q1\t ", "q2\tz"], r"clusters.tsv line 3: empty cluster name for item id 'q1'"),
    (["q0\tx", "q1", "q2\tz"], r"clusters.tsv line 2: expected `item id<TAB>cluster`"),
])
def test_bad_cluster_files_are_refused_naming_file_and_line(tmp_path, lines, message):
    gold = tmp_path / "gold.tsv"
    gold.write_text("q0\ta\nq1\tb\nq2\ta\n", encoding="utf-8")
    system = tmp_path / "sys.tsv"
    system.write_text("q0\ta\nq1\ta\nq2\ta\n", encoding="utf-8")
    clusters = tmp_path / "clusters.tsv"
    clusters.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InputError, match=message):
        auditor.pipeline.audit(str(gold), {"s": str(system)}, bootstrap=10, clusters=str(clusters))
    done = CliRunner().invoke(cli, ["score", str(gold), str(system), "--clusters", str(clusters)])
    assert done.exit_code != 0 and "clusters.tsv" in done.output


#: Ids of each common fixture's units (tests/test_tasks_common.py): item ids, or sentence and segment numbers.
UNIT_IDS = {"classification": [f"i{n}" for n in range(12)], "tagging": ["1", "2", "3", "4"],
            "translation": [str(n) for n in range(1, 7)], "multilabel": [f"i{n}" for n in range(8)],
            "ordinal": [f"i{n}" for n in range(10)]}


@pytest.mark.parametrize("task", sorted(UNIT_IDS))
def test_every_task_kind_resamples_clusters(tmp_path, task):
    """``--clusters`` on every task kind's common fixture: the record says the unit is the cluster, how many, and is
    valid against the schema; the signature names the clusters file."""
    import hashlib
    import json
    from importlib import resources

    import jsonschema
    from test_tasks_common import FIXTURES

    paths, own = FIXTURES[task](tmp_path)
    clusters = tmp_path / "clusters.tsv"
    clusters.write_text("".join(f"{key}\tc{n % 2}\n" for n, key in enumerate(UNIT_IDS[task])), encoding="utf-8")
    done = CliRunner().invoke(cli, ["score", "--json", "--task", task, *paths, *own, "--clusters", str(clusters),
                                    "--bootstrap", "50"])
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    resampling = document["statistics"]["resampling"]
    assert resampling["unit"] == "cluster" and resampling["clusters"] == 2
    assert f"cluster:{hashlib.sha256(clusters.read_bytes()).hexdigest()[:12]}" in document["signature"]
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema)


def test_numbered_units_clusters_name_the_unit_number(tmp_path):
    """Sentences, segments and the items of a gold without ids are known by their numbers: one reader for all three
    (None without ``--clusters``), whose messages say what the number counts."""
    from auditor.io.clusters import numbered_clusters

    assert numbered_clusters(None, 3, "segment") is None
    clusters = tmp_path / "clusters.tsv"
    clusters.write_text("1\ta\n2\tb\n3\ta\n", encoding="utf-8")
    found = numbered_clusters(str(clusters), 3, "sentence")
    assert found.n_clusters == 2 and found.codes.tolist() == [0, 1, 0]
    clusters.write_text("1\ta\n4\tb\n", encoding="utf-8")
    with pytest.raises(InputError, match="segment number"):
        numbered_clusters(str(clusters), 3, "segment")
