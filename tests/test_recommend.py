"""The recommendation: every rule fires on a constructed profile and not on its opposite;
on GermEval accuracy is not primary and the macro-F1 variant is named."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from auditor.metrics import compute
from auditor.profile import profile
from auditor.recommend import RULES, Facts, facts_from, recommend
from auditor.registry import REGISTRY

BASE = Facts(k=3, n_items=1000, min_support=200, min_label="c", imbalance_ratio=2.0, prevalence_entropy=1.5,
             normalised_entropy=0.95, majority_label="a", majority_share=0.4,
             bias_divergence={"S": {"total_variation": 0.02, "kl_divergence": 0.01}},
             never_predicted={"S": []})
IMBALANCED = replace(BASE, imbalance_ratio=48.0, majority_share=0.66)

#: rule id -> (facts on which it fires, the opposite facts on which it does not)
CASES = {
    "deployment-known": (replace(BASE, deployment_prevalence="a=0.5,b=0.3,c=0.2"), BASE),
    "deployment-test": (replace(BASE, deployment_prevalence="test"), replace(BASE, deployment_prevalence="uniform")),
    "rare-classes": (replace(BASE, rare_classes_matter=True), BASE),
    "deployment-uniform": (replace(BASE, deployment_prevalence="uniform"), BASE),
    "imbalanced-unknown": (IMBALANCED, BASE),
    "balanced-default": (BASE, IMBALANCED),
    "majority-inflates-accuracy": (IMBALANCED, replace(IMBALANCED, deployment_prevalence="test")),
    "chance-correction": (replace(BASE, near_chance={"S": "informedness 0.010"}), BASE),
    "binary-mcc": (replace(BASE, k=2), BASE),
    "skewed-bias": (replace(BASE, bias_divergence={"S": {"total_variation": 0.3, "kl_divergence": 1.0}}), BASE),
    "collapsed-recall-means": (replace(BASE, never_predicted={"S": ["c"]}), BASE),
    "small-class": (replace(BASE, min_support=12), BASE),
}


def test_every_rule_has_a_case_and_references():
    assert set(CASES) | {"name-macro-f1"} == {rule.id for rule in RULES}
    for rule in RULES:
        assert rule.text and rule.references


@pytest.mark.parametrize("rule", [r for r in RULES if r.id in CASES], ids=lambda r: r.id)
def test_rule_fires_on_its_profile_and_not_on_the_opposite(rule):
    fires, opposite = CASES[rule.id]
    firing = rule.check(fires)
    assert firing is not None and firing.reasons
    assert rule.check(opposite) is None
    assert rule.id in recommend(fires).rules_fired
    assert rule.id not in recommend(opposite).rules_fired


def test_name_macro_f1_always_fires_and_measures_the_gap():
    facts = replace(BASE, values={"S": {"macro_f1": 0.40, "macro_f1_hm": 0.45}})
    firing = next(r for r in RULES if r.id == "name-macro-f1").check(facts)
    assert firing.avoid == ("macro_f1_hm",)
    assert any("0.050" in reason for reason in firing.reasons)


def test_primary_follows_intent():
    assert recommend(replace(BASE, deployment_prevalence="test")).primary == "accuracy"
    assert recommend(replace(BASE, deployment_prevalence="uniform")).primary == "macro_recall"
    assert recommend(replace(IMBALANCED, rare_classes_matter=True)).primary == "macro_f1"
    assert recommend(replace(BASE, k=2, near_chance={"S": "x"})).metrics[1]["id"] in ("mcc", "macro_f1")


def test_germeval_recommendation(germeval_counts):
    counts = germeval_counts
    arrays = compute(counts.confusion, REGISTRY.scalar())
    values = {s: {m: (None if np.isnan(a[i]) else float(a[i])) for m, a in arrays.items()}
              for i, s in enumerate(counts.systems)}
    result = recommend(facts_from(profile(counts), values))
    assert result.facts.imbalance_ratio == pytest.approx(2330 / 48)
    assert result.primary == "macro_f1"  # the mean of class F1, named as such
    assert "mean of class F1" in " ".join(result.metrics[0]["reasons"])
    ids = [m["id"] for m in result.metrics]
    assert "accuracy" not in ids and "macro_f1_hm" not in ids
    avoided = {entry["id"]: " ".join(entry["reasons"]) for entry in result.avoid}
    assert "0.66 accuracy" in avoided["accuracy"]  # the majority baseline's measured accuracy
    assert "macro_f1_hm" in avoided and "gmean_recall" in avoided
    assert "prior-sampler" in result.facts.near_chance and "majority" in result.facts.near_chance
    assert "informedness" in ids
    document: dict = {}
    result.add_to_json(document)
    section = document["recommendation"]
    assert section["metrics"][0]["formula"] == REGISTRY.get("macro_f1").formula
    assert set(section) >= {"metrics", "avoid", "profile_facts", "rules_fired"}


def test_audit_pipeline_sections(examples_dir):
    from auditor.pipeline import audit

    folder = examples_dir / "germeval2018"
    systems = {path.stem: str(path) for path in sorted((folder / "systems").glob("*.tsv"))}
    result = audit(str(folder / "gold.tsv"), systems, bootstrap=0, deployment_prevalence="uniform")
    document = result.to_json()
    assert document["winners"]["accuracy"] == "char-svm"
    assert document["winners"]["macro_f1"] == "char-svm-balanced"
    assert document["deployment"]["rankings"]["accuracy"][0] == "char-svm-balanced"
    # Intent "uniform": macro recall (= calibrated accuracy) becomes primary; accuracy still avoided.
    assert document["recommendation"]["metrics"][0]["id"] == "macro_recall"
    assert "accuracy" in {entry["id"] for entry in document["recommendation"]["avoid"]}
    plain = audit(str(folder / "gold.tsv"), systems, bootstrap=0).to_json()
    assert "deployment" not in plain
    assert plain["recommendation"]["metrics"][0]["id"] == "macro_f1"


def test_rules_text_for_the_appendix():
    from auditor.recommend import rules_text

    lines = rules_text()
    assert len(lines) == len(RULES) and lines[0].startswith("deployment-known: ")
    assert any("Chicco & Jurman 2020" in line for line in lines)
