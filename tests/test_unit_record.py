"""The one record of the tasks counted per unit (``auditor.results.UnitAudit``) and the runner steps they share:
metric records, the signature, the options JSON, the verdict read off best sets and the classification-only
options refused from one table (issue 32). Small hand-built inputs; each expectation is worked out in the test."""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

from auditor.analyses.families import RANDOMISATION, BestSet, PairTest
from auditor.errors import UsageError
from auditor.options import CLASSIFICATION_ONLY, AuditOptions, check_options
from auditor.results import Signature, UnitAudit, unit_options, unit_scores, unit_verdict


@dataclass(frozen=True, eq=False, kw_only=True)
class ToyAudit(UnitAudit):
    task = "toy"
    unit = "segment"
    default_columns = ("f",)


def toy(values: dict[str, list[float]], intervals: dict[str, list[tuple[float, float]]] | None = None) -> ToyAudit:
    systems = ("a", "b")
    observed = {m: np.array(v, dtype=float) for m, v in values.items()}

    def interval(metric: str, s: int):
        return None if intervals is None else intervals[metric][s]

    metrics = unit_scores(systems, observed, interval, 0.95, lambda m, s, v: ("0/0" if v is None else None, None))
    options = unit_options(AuditOptions(bootstrap=10, seed=1), own="x")
    signature = Signature.of_units("toy", (("gold", "g" * 12),), {"a": "1" * 64, "b": "2" * 64}, options,
                                   (("own", "x"),), "percentile", "segment")
    return ToyAudit(signature=signature, n_items=3, systems=systems, sources={}, options=options, metrics=metrics)


def test_metric_records_say_why_a_value_is_undefined_and_carry_the_interval():
    audit = toy({"f": [0.5, np.nan]}, {"f": [(0.4, 0.6), None]})
    a, b = audit.metrics["a"]["f"], audit.metrics["b"]["f"]
    assert (a.value, a.interval, a.level, a.undefined) == (0.5, (0.4, 0.6), 0.95, None)
    assert (b.value, b.interval, b.level, b.undefined) == (None, None, None, "0/0")
    document = audit.to_json()
    assert document["systems"]["b"]["metrics"]["f"] == {"value": None, "ci": None, "undefined": "0/0",
                                                        "convention": None}
    assert document["options"] == {"bootstrap": 10, "seed": 1, "alpha": 0.05, "correction": "holm", "own": "x"}
    assert np.isnan(audit.observed["f"][1]) and audit.observed["f"][0] == 0.5


def test_the_signature_writes_the_shared_fields_in_one_order():
    import hashlib

    signature = toy({"f": [0.5, 0.7]}).signature
    keys = [key for key, _ in signature.fields]
    assert keys == ["auditor", "task", "gold", "systems", "own", "boot", "seed", "ci", "alpha", "correction", "unit"]
    systems = hashlib.sha256(f"a:{'1' * 64}|b:{'2' * 64}".encode()).hexdigest()[:12]
    assert signature["systems"] == f"2:{systems}" and signature["unit"] == "segment" and signature["ci"] == "percentile"
    none = Signature.of_units("toy", (), {}, unit_options(AuditOptions(bootstrap=0)), (), "percentile", "item",
                              SimpleNamespace(source={"sha256": "c" * 64}))
    assert none["ci"] == "none" and none["unit"] == "cluster:" + "c" * 12


def test_the_table_names_only_metrics_the_audit_has():
    audit = toy({"f": [0.5, 0.7]}, {"f": [(0.4, 0.6), (0.6, 0.8)]})
    lines = audit.terminal_lines(sort="f")
    assert lines[0] == "3 segments; scores ×100" and lines[1] == "sorted by f"
    table = lines[lines.index(next(line for line in lines if line.startswith("system"))):]
    assert table[1].startswith("b") and "70.0 [60.0, 80.0]" in table[1] and table[2].startswith("a")  # best first
    signature = lines[lines.index(next(line for line in lines if line.startswith("signature: "))):]
    assert "".join(signature).removeprefix("signature: ") == str(audit.signature)  # broken after a "|"
    assert max(map(len, lines)) <= 80 and len(signature) == 2
    with pytest.raises(UsageError, match="unknown metric 'g' for --task toy; choose from f"):
        audit.terminal_lines(["g"])


def test_the_verdict_reads_best_sets_not_point_values():
    audit = toy({"f": [0.5, 0.7], "h": [0.9, 0.2]})
    # b leads f by 0.2 but the test cannot tell them apart: both are in f's best set; a alone leads h.
    tests = (PairTest("b", "a", "f", RANDOMISATION, 0.2, 0.5, p_adjusted=0.5),
             PairTest("a", "b", "h", RANDOMISATION, 0.7, 0.001, p_adjusted=0.001))
    best = {"f": BestSet("b", ("b", "a"), RANDOMISATION, 0.05, {"a": 0.5}),
            "h": BestSet("a", ("a",), RANDOMISATION, 0.05, {"b": 0.001})}
    verdict = unit_verdict(audit.metrics, ("f", "h"), tests, best)
    assert verdict.tested and not verdict.winner_depends_on_metric  # a is in both best sets
    assert verdict.leaders == {"f": ("b", "a"), "h": ("a",)}
    untested = unit_verdict(audit.metrics, ("f", "h"), None, None)  # leaders by point value, no claim without a test
    assert not untested.tested and untested.leaders == {"f": ("b",), "h": ("a",)}
    assert not untested.winner_depends_on_metric


@pytest.mark.parametrize("name", sorted(CLASSIFICATION_ONLY))
def test_a_task_refuses_the_options_only_classification_reads(name):
    value = {"labels": ("x", "y"), "training_prevalence": {"x": 0.5, "y": 0.5}, "deployment_prevalence": "uniform",
             "rare_classes_matter": True, "plugins": ("mod",)}[name]
    options = AuditOptions(**{name: value})
    with pytest.raises(UsageError, match=f"{CLASSIFICATION_ONLY[name]} is for classification; it cannot be used "
                                         f"with --task translation"):
        check_options(options, "translation")
    check_options(options, "translation", takes=(name,))
    check_options(options)  # classification reads them all


def test_the_statistics_stage_says_when_and_why_no_pair_is_tested():
    """One rule for the tasks tested by approximate randomisation over units (results.unit_statistics_stage):
    --bootstrap 0 draws nothing, so it tests nothing and the note says so; a request for intervals only tests
    nothing; otherwise ``pair_tests_of`` runs with randomisation_rounds' rounds (max(R₀, ⌈2m/α⌉) = max(1000, 120)
    for m = 3 pairs at α = 0.05, whatever B); the tested metrics' best sets follow."""
    from auditor.results import unit_statistics_stage

    observed = {"f": np.array([0.9, 0.5, 0.1])}
    asked: list[int] = []

    def pair_tests_of(rounds: int) -> list[PairTest]:
        asked.append(rounds)
        return [PairTest("a", "b", "f", RANDOMISATION, 0.4, 0.01, 0.01), PairTest("a", "c", "f", RANDOMISATION, 0.8,
                                                                                  0.01, 0.02)]

    def stage(bootstrap: int, analyses=None):
        return unit_statistics_stage({}, observed, ("a", "b", "c"), AuditOptions(bootstrap=bootstrap, seed=3),
                                     analyses, ("f",), pair_tests_of, 3, "segment")

    none = stage(0)
    assert none.tests is None and none.note == "not run: --bootstrap 0" and not asked
    assert none.to_json(("a", "b", "c"))["pairwise_tests_unavailable"] == "not run: --bootstrap 0"
    assert stage(10, ("rankings",)).tests is None and not asked
    tested = stage(10)
    assert asked == [1000] and tested.rounds == 1000 and tested.seed == 3 and tested.unit == "segment"
    assert tested.best_set["f"].systems == ("a",)


@pytest.mark.parametrize("task", ["tagging", "translation"])
def test_one_system_is_its_own_best_set_and_the_report_says_no_pair_was_tested(tmp_path, task):
    """As classification: with one system there is no pair, so no test runs (``tests`` empty) and the system is its
    metric's best set; the report says why no test ran rather than laying out empty tables."""
    import json

    from click.testing import CliRunner
    from test_tasks_common import FIXTURES

    from auditor.cli import cli
    from auditor.report.skeleton import section_texts

    paths, own = FIXTURES[task](tmp_path)
    done = CliRunner().invoke(cli, ["score", "--json", "--task", task, *paths[:2], *own, "--bootstrap", "20"])
    document = json.loads(done.stdout)
    assert document["tests"] == []
    assert all(best["systems"] == ["A"] for best in document["statistics"]["best_set"].values())
    module = __import__(f"auditor.tasks.{task}.run", fromlist=["audit"])
    options = dict(zip((flag.lstrip("-").replace("-", "_") for flag in own[::2]), own[1::2]))
    audit = module.audit(paths[0], {"A": paths[1]}, options=AuditOptions(bootstrap=20), **options)
    assert "Paired tests not run: one system (no pair to test)." in section_texts(
        audit.report_model(figures=False).sections)


@pytest.mark.parametrize("task", ["tagging", "translation"])
def test_bootstrap_0_writes_the_statistics_record_saying_why_no_test_ran(tmp_path, task):
    """Tagging wrote no ``statistics`` at --bootstrap 0 where translation wrote the record with the reason: both
    write it now, from the one stage."""
    import json

    from click.testing import CliRunner
    from test_tasks_common import FIXTURES

    from auditor.cli import cli

    paths, own = FIXTURES[task](tmp_path)
    done = CliRunner().invoke(cli, ["score", "--json", "--task", task, *paths, *own, "--bootstrap", "0"])
    statistics = json.loads(done.stdout)["statistics"]
    assert statistics["B"] == 0 and statistics["interval"] == "none: --bootstrap 0 (no resamples)"
    assert statistics["pairwise_tests_unavailable"] == "not run: --bootstrap 0"
