"""audit.json against its JSON Schema (auditor/audit.schema.json, schema "auditor/3"; issue 11).

The schema ships in the package; every kind of audit validates against it, and a document
with a renamed or misplaced key does not.
"""
from __future__ import annotations

import copy
import json
from importlib import resources

import jsonschema
import pytest

import auditor
from auditor.results import SCHEMA


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema"]["const"] == SCHEMA
    return jsonschema.Draft202012Validator(schema)


def _document(result) -> dict:
    """The document as audit.json holds it (through the JSON text: no NaN, only JSON types)."""
    return json.loads(json.dumps(result.to_json(), allow_nan=False))


def _errors(validator, document) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message[:200]}"
            for error in validator.iter_errors(document)]


@pytest.fixture(scope="module")
def systems(germeval_dir) -> dict[str, str]:
    return {path.stem: str(path) for path in sorted((germeval_dir / "systems").glob("*.tsv"))}


@pytest.fixture(scope="module")
def germeval(germeval_dir, systems):
    return _document(auditor.audit(str(germeval_dir / "gold.tsv"), systems, bootstrap=50))


def test_germeval_audit_validates(validator, germeval):
    assert _errors(validator, germeval) == []
    assert germeval["schema"] == "auditor/3"
    assert {"options", "chance", "statistics", "verdict", "recommendation", "properties"} <= set(germeval)
    assert germeval["options"]["bootstrap"] == 50 and germeval["options"]["alpha"] == 0.05
    assert {"ranks", "best_set", "p_win"} <= set(germeval["statistics"])
    assert "baselines_method" not in germeval and "ranks" not in germeval and "best_set" not in germeval


def test_audit_without_bootstrap_validates(validator, germeval_dir, systems):
    document = _document(auditor.audit(str(germeval_dir / "gold.tsv"), systems, bootstrap=0))
    assert document["statistics"]["not_run"] and {test["method"] for test in document["tests"]} == {"mcnemar_exact"}
    assert document["chance"]["method"]["draws"] == 0 and "not_run" in document["chance"]["method"]
    assert _errors(validator, document) == []


def test_confusion_only_audit_validates(validator, germeval_extras):
    matrices = {path.stem: str(path) for path in sorted((germeval_extras / "confusion").glob("*.tsv"))}
    document = _document(auditor.audit_confusion(matrices, bootstrap=50))
    assert "pairwise_tests_unavailable" in document["statistics"] and document["tests"] == []
    assert _errors(validator, document) == []


def test_audit_with_slices_annotators_and_scores_validates(validator, germeval_dir, germeval_extras, systems):
    scored = {**systems, "word-nb-scores": str(germeval_extras / "scores" / "word-nb.tsv")}
    result = auditor.audit(str(germeval_dir / "gold.tsv"), scored, bootstrap=20,
                           annotators={"svm": systems["char-svm"], "logreg": systems["word-logreg"]},
                           slices=str(germeval_extras / "slices.tsv"),
                           deployment_prevalence="uniform", training_prevalence={"OTHER": 0.6, "ABUSE": 0.3,
                                                                                 "INSULT": 0.05, "PROFANITY": 0.05})
    document = _document(result)
    assert {"gold_reliability", "slices", "deployment"} <= set(document)
    assert "scores" in document["systems"]["word-nb-scores"]
    assert document["options"]["deployment_prevalence"] == "uniform"
    assert _errors(validator, document) == []


@pytest.mark.parametrize("mutate, where", [
    (lambda d: d.__setitem__("baselines_method", d.pop("chance")["method"]), "baselines_method"),  # an auditor/1 key
    (lambda d: d["systems"]["char-svm"].__setitem__("chance", d["chance"]["systems"]["char-svm"]), "chance"),
    (lambda d: d["systems"]["char-svm"]["metrics"]["accuracy"].__setitem__("value", "0.71"), "value"),
    (lambda d: d["properties"]["accuracy"].__setitem__("chance_correction", "partial"), "chance_correction"),
    (lambda d: d["recommendation"]["metrics"][0].__setitem__("role", "main"), "role"),
    (lambda d: d.__setitem__("schema", "auditor/1"), "schema"),
    (lambda d: d["options"].pop("alpha"), "alpha"),
    (lambda d: d["statistics"].pop("best_set"), "statistics"),
])
def test_a_mutated_document_fails(validator, germeval, mutate, where):
    document = copy.deepcopy(germeval)
    mutate(document)
    errors = _errors(validator, document)
    assert errors and any(where in error for error in errors), errors


def test_the_record_and_the_core_results_are_frozen():
    """The pipeline builds the Audit once; neither it nor the core analyses' results can be
    changed afterwards (a later stage would otherwise rewrite what an earlier one reported)."""
    import dataclasses

    result = auditor.audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"], "t": ["b", "b", "b", "a"]},
                           bootstrap=20)
    for record, field in ((result, "verdict"), (result.baselines, "draws"), (result.statistics, "alpha"),
                          (result.statistics.tests[0], "p_adjusted"), (result.profile, "n_items"),
                          (result.verdict, "order"), (result.statistics.bootstrap, "B")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, field, None)
    assert isinstance(result.warnings, tuple) and isinstance(result.statistics.tests, tuple)
    assert result.options.bootstrap == 20 and result.to_json()["options"]["bootstrap"] == 20


def test_a_classification_audit_says_so_and_keeps_its_keys(validator, germeval):
    """``task`` is "classification"; the classification keys stay required for it (the schema's
    allOf), and are required when ``task`` is absent too (audits written before task kinds)."""
    assert germeval["task"] == "classification"
    for document in (copy.deepcopy(germeval), {k: v for k, v in germeval.items() if k != "task"}):
        del document["labels"]
        assert any("'labels' is a required property" in error for error in _errors(validator, document))
