"""The recommendation: every rule fires on a constructed profile and not on its opposite, quotes
the passage it follows (checked against the source text when the sources are present), and
contradicts none of them; GermEval's recommendation follows from the rules."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from auditor.analyses.profile import profile
from auditor.analyses.recommend import OPITZ, PAPERS_DIFFER, RULES, SMALL_CLASS, VICKERS, Facts, facts_from, recommend
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY

BASE = Facts(k=3, n_items=1000, min_support=200, min_label="c", imbalance_ratio=2.0, prevalence_entropy=1.5,
             normalised_entropy=0.95, majority_label="a", majority_share=0.4,
             bias_divergence={"S": {"total_variation": 0.02, "kl_divergence": 0.01}},
             never_predicted={"S": []})
IMBALANCED = replace(BASE, imbalance_ratio=48.0, majority_share=0.66)
TWO_WINNERS = replace(BASE, values={"A": {"accuracy": 0.8, "macro_recall": 0.6, "informedness": 0.3},
                                    "B": {"accuracy": 0.7, "macro_recall": 0.7, "informedness": 0.4}})

#: rule id -> (facts on which it fires, the opposite facts on which it does not)
CASES = {
    "deployment-known": (replace(BASE, deployment_prevalence="a=0.5,b=0.3,c=0.2"), BASE),
    "deployment-test": (replace(BASE, deployment_prevalence="test"), replace(BASE, deployment_prevalence="uniform")),
    "macro-recall-primary": (BASE, replace(BASE, deployment_prevalence="test")),
    "majority-baseline": (IMBALANCED, replace(IMBALANCED, deployment_prevalence="test")),
    "every-class-matters": (replace(BASE, rare_classes_matter=True), BASE),
    "skewed-bias": (replace(BASE, bias_divergence={"S": {"total_variation": 0.3, "kl_divergence": 1.0}}), BASE),
    "small-class": (replace(BASE, min_support=49), replace(BASE, min_support=50)),
    "multiple-winners": (TWO_WINNERS, replace(TWO_WINNERS, values={"A": {"accuracy": 0.8}, "B": {"accuracy": 0.7}})),
}
ALWAYS = {"accuracy-and-macro-recall", "informedness-alongside", "name-macro-f1", "weighted-f1", "class-wise-recall"}
SOURCES = Path(__file__).resolve().parents[2] / "shared" / "sources"


def _normalise(text: str) -> str:
    """Text without the PDF conversion's artefacts: apostrophes unified, markdown emphasis and all
    whitespace dropped (the conversion glues words to emphasised ones: '*GmacR*can')."""
    for old, new in (("’", "'"), ("‘", "'"), ("*", ""), ("−", "-"), ("′", "'")):
        text = text.replace(old, new)
    return "".join(text.split())


def test_every_rule_has_a_case_and_quotes_its_source():
    assert set(CASES) | ALWAYS == {rule.id for rule in RULES}
    for rule in RULES:
        assert rule.text and rule.sources
        for source in rule.sources:
            assert source.file in (OPITZ, VICKERS) and source.section and len(source.quote) > 30


@pytest.mark.skipif(not SOURCES.is_dir(), reason="the papers' text is not part of a user's checkout")
def test_every_quote_is_in_its_source_file():
    """Each quoted passage appears word for word in the source file it names (PDF conversion
    artefacts aside: emphasis markers, apostrophes, line breaks)."""
    quoted = [source for rule in RULES for source in rule.sources]
    quoted += [source for item in PAPERS_DIFFER for source in item.sources]
    for source in quoted:
        file, quote = source.file, source.quote
        text = _normalise((SOURCES / file).read_text(encoding="utf-8"))
        # the converted Opitz text lost the symbols in 'GmacR (p = −1)'; compare up to that point
        probe = _normalise(quote).split("(p=-1)")[0]
        assert probe in text, (file, quote[:60])


@pytest.mark.parametrize("rule", [r for r in RULES if r.id in CASES], ids=lambda r: r.id)
def test_rule_fires_on_its_profile_and_not_on_the_opposite(rule):
    fires, opposite = CASES[rule.id]
    firing = rule.check(fires)
    assert firing is not None and firing.reasons
    assert rule.check(opposite) is None
    assert rule.id in recommend(fires).rules_fired
    assert rule.id not in recommend(opposite).rules_fired


@pytest.mark.parametrize("facts", [BASE, IMBALANCED, replace(BASE, k=2),
                                   replace(IMBALANCED, k=2, near_chance={"S": "x"}),
                                   replace(BASE, deployment_prevalence="uniform"),
                                   replace(BASE, rare_classes_matter=True)],
                         ids=["balanced", "imbalanced", "binary", "binary-near-chance", "uniform", "rare"])
def test_no_rule_contradicts_its_source(facts):
    result = recommend(facts)
    chosen = [m.id for m in result.metrics]
    avoided = {a.id for a in result.avoid}
    # Opitz §8: "complementary metrics such as Accuracy and macro Recall"; Vickers §7.2: informedness alongside
    assert {"accuracy", "macro_recall", "informedness"} <= set(chosen)
    assert "accuracy" not in avoided and "macro_recall" not in avoided
    # Vickers §2: MCC depends on the test set's class frequencies: never preferred, for two classes neither
    assert "mcc" not in chosen
    # Opitz §5.1: GmacR/HmacR when performance in every class matters, never avoided
    assert not {"gmean_recall", "hmean_recall"} & avoided
    # Opitz §6.1: macro recall 'treats all classes equally'; macro F1 is reported, named, not primary
    assert result.primary != "macro_f1" and "macro_f1" in chosen
    for entry in result.metrics + result.avoid:
        assert entry.sources, entry.id  # every conclusion names the passage it follows


def test_primary_follows_intent():
    assert recommend(replace(BASE, deployment_prevalence="test")).primary == "accuracy"
    assert recommend(replace(BASE, deployment_prevalence="a=0.5,b=0.3,c=0.2")).primary == "accuracy"
    assert recommend(replace(BASE, deployment_prevalence="uniform")).primary == "macro_recall"
    assert recommend(BASE).primary == "macro_recall"
    assert recommend(replace(IMBALANCED, rare_classes_matter=True)).primary == "macro_recall"
    # test prevalence = deployment, but every class matters more than its share: macro recall
    rare_test = recommend(replace(BASE, deployment_prevalence="test", rare_classes_matter=True))
    assert rare_test.primary == "macro_recall"
    assert {"gmean_recall", "hmean_recall"} <= {m.id for m in rare_test.metrics}


def test_small_class_threshold_is_the_tools_own():
    """Vickers et al., Limitations: "low numbers (< 50) of examples" is about a test set, not one class's
    support; the note calls 50 this tool's threshold."""
    assert SMALL_CLASS == 50
    notes = recommend(replace(BASE, min_support=49)).notes
    assert any("this tool's threshold of 50" in note.text and note.sources[0].section == "Limitations"
               for note in notes)
    assert not any("Vickers" in note.text for note in notes)


def test_class_wise_recall_for_few_classes_variance_for_many():
    few = recommend(BASE)
    assert "class_recall" in [m.id for m in few.metrics]
    many = recommend(replace(BASE, k=12))
    assert "class_recall" not in [m.id for m in many.metrics]
    assert any("variance of class recall" in note.text for note in many.notes)


def test_papers_differ_in_the_json_and_name_both_sources():
    document = recommend(BASE).to_json()
    differ = document["recommendation"]["papers_differ"]
    assert {item["topic"] for item in differ} == {"the headline metric", "MCC", "macro F1"}
    for item in differ:
        assert {source["file"] for source in item["sources"]} == {OPITZ, VICKERS}


def test_germeval_recommendation_follows_from_the_rules(germeval_counts):
    """GermEval 2018 (shared data): 4 classes, OTHER 2330 of 3532 items, PROFANITY 48;
    no deployment prevalence given. Rules: macro-recall-primary (deployment unknown), accuracy and
    macro recall together (Opitz §8), informedness alongside (Vickers §7.2), macro F1 named, weighted
    F1 avoided (Opitz §6.1), macro precision avoided (systems' biases diverge, §4.3), PROFANITY
    below 50 items (Vickers, Limitations), class-wise recalls (k = 4 ≤ 5, Opitz §8), and the
    winners disagree: char-svm on accuracy, char-svm-balanced on macro recall (Opitz §8)."""
    counts = germeval_counts
    arrays = compute(counts.confusion, REGISTRY.scalar())
    values = {s: {m: (None if np.isnan(a[i]) else float(a[i])) for m, a in arrays.items()}
              for i, s in enumerate(counts.systems)}
    result = recommend(facts_from(profile(counts), values, None, alpha=0.05, deployment_prevalence=None,
                                  rare_classes_matter=False))
    assert result.facts.imbalance_ratio == pytest.approx(2330 / 48)
    assert list(result.rules_fired) == ["macro-recall-primary", "accuracy-and-macro-recall", "majority-baseline",
                                  "informedness-alongside", "name-macro-f1", "weighted-f1", "skewed-bias",
                                  "small-class", "class-wise-recall", "multiple-winners"]
    assert [m.id for m in result.metrics] == ["macro_recall", "accuracy", "informedness", "macro_f1",
                                                  "class_recall"]
    # macro F1′ is a naming note, not avoided: no source says to avoid it (Opitz §8: name the metric)
    assert [a.id for a in result.avoid] == ["weighted_f1"]
    # macro precision: Opitz §4.3 says its differences are hard to interpret when biases differ, not to avoid it
    assert any(note.rule == "skewed-bias" and "Opitz §4.3" in note.text for note in result.notes)
    assert any(note.rule == "name-macro-f1" and "homonym" in note.text for note in result.notes)
    accuracy = next(m for m in result.metrics if m.id == "accuracy")
    assert any("66.0 accuracy" in reason for reason in accuracy.reasons)  # the majority baseline, ×100
    assert any("PROFANITY (48 items, fewer than this tool's threshold of 50)" in note.text for note in result.notes)
    assert any("Accuracy: char-svm;" in note.text and "Macro recall: char-svm-balanced" in note.text
               for note in result.notes)
    document = result.to_json()
    section = document["recommendation"]
    assert section["metrics"][0]["formula"] == REGISTRY.get("macro_recall").formula
    assert set(section) >= {"metrics", "avoid", "notes", "profile_facts", "rules_fired", "rules", "papers_differ"}


def test_audit_pipeline_sections(germeval_dir):
    from auditor.pipeline import audit

    folder = germeval_dir
    systems = {path.stem: str(path) for path in sorted((folder / "systems").glob("*.tsv"))}
    result = audit(str(folder / "gold.tsv"), systems, bootstrap=0, deployment_prevalence="uniform")
    document = result.to_json()
    assert document["rank_disagreement"]["winners"]["accuracy"] == "char-svm"
    assert document["rank_disagreement"]["winners"]["macro_f1"] == "char-svm-balanced"
    assert document["deployment"]["rankings"]["accuracy"][0] == "char-svm-balanced"
    # Intent "uniform": macro recall (= calibrated accuracy) primary; accuracy reported next to it
    assert document["recommendation"]["metrics"][0]["id"] == "macro_recall"
    assert "accuracy" in {entry["id"] for entry in document["recommendation"]["metrics"]}
    test = audit(str(folder / "gold.tsv"), systems, bootstrap=0, deployment_prevalence="test").to_json()
    assert "deployment" not in test or test["recommendation"]["metrics"][0]["id"] == "accuracy"
    assert test["recommendation"]["metrics"][0]["id"] == "accuracy"


def test_near_chance_is_the_permutation_test_at_the_audits_alpha(germeval_counts):
    """With baselines, a system is near chance when its permutation p against its own shuffle, adjusted
    over the systems as page 1's column is, is ≥ alpha (a test level, the audit's --alpha); p = 0.07 is
    near chance at 0.05, not at 0.1; the raw p (0.02) is not what decides."""
    from auditor.analyses.baselines import ChanceComparison

    class Baselines:  # the attributes the recommendation reads: chance[system][metric].p_shuffle_adjusted
        correction = "holm"
        chance = {"S": {"informedness": ChanceComparison(margin=0.01, strongest_baseline="shuffle", p_shuffle=0.02,
                                                         p_shuffle_adjusted=0.07)}}

    facts = {alpha: facts_from(profile(germeval_counts), {}, Baselines(), alpha=alpha, deployment_prevalence=None,
                               rare_classes_matter=False) for alpha in (0.05, 0.1)}
    assert dict(facts[0.05].near_chance) == {"S": "Informedness not significantly above its shuffled predictions, "
                                                  "Holm-adjusted p = 0.070"}
    assert dict(facts[0.1].near_chance) == {}


def test_the_rules_appendix_lists_every_rule_with_its_references():
    from auditor.report.sections.recommendation import recommendation_rules

    lines = recommendation_rules()
    assert len(lines) == len(RULES)
    assert lines[0] == f"deployment-known: {RULES[0].text} (Opitz 2024 §8; Opitz 2024 §4.1)"


def _rule_tables():
    from auditor.tasks.multilabel import recommend as labelsets
    from auditor.tasks.ordinal import advice
    from auditor.tasks.tagging import recommend as tagging
    from auditor.tasks.translation import recommend as translation

    return {"classification": RULES, "ordinal": advice.RULES, "multilabel": labelsets.RULES, "tagging": tagging.RULES,
            "translation": translation.RULES}


@pytest.mark.parametrize("task", ["classification", "ordinal", "multilabel", "tagging", "translation"])
def test_every_task_kinds_rules_are_the_one_modules_and_cite_known_references(task):
    """Ordinal's, multi-label's and tagging's rule tables are :class:`Rule` records of the one recommendation module:
    each with an id, a statement and its passages, each passage quoted with a bib key of auditor/references.bib."""
    from auditor.analyses.recommend import Rule, Source

    bib = (Path(__file__).parents[1] / "auditor" / "references.bib").read_text(encoding="utf-8")
    rules = _rule_tables()[task]
    assert len({rule.id for rule in rules}) == len(rules)
    for rule in rules:
        assert isinstance(rule, Rule) and rule.text and ":" not in rule.id
        for source in rule.sources:
            assert isinstance(source, Source) and source.section and len(source.quote) > 30
            assert "{" + source.reference[0] + "," in bib, (task, rule.id, source.reference)


def test_rules_apply_in_order_with_per_metric_reasons():
    """apply_rules by hand: the first primary wins (a later one is a complement only if it says so), complements
    accumulate in order, an avoided metric leaves the set, a rule of several firings keeps each metric's own reason
    and is listed once, every entry carries the passages of the rules it came from."""
    from auditor.analyses.recommend import Firing, Rule, Source, apply_rules

    one = Source("a.md", "§1", "x" * 40, "k1", "One 2001")
    two = Source("b.md", "§2", "y" * 40, "k2", "Two 2002")
    rules = (Rule("first", "m1 first", (one,), lambda facts: Firing(("r1",), primary="m1")),
             Rule("second", "m2 would be first", (two,), lambda facts: Firing(("r2",), primary="m2",
                                                                               complements=("m3", "m4"))),
             Rule("never", "does not fire", (one,), lambda facts: None),
             Rule("split", "per metric", (two,), lambda facts: (Firing(("only m4",), avoid=("m4",)),
                                                                Firing(("only m5",), avoid=("m5",)))))
    found = apply_rules(None, rules, lambda m: (m.upper(), f"f({m})"))
    assert [(m.id, m.role, m.name, m.formula) for m in found.metrics] == [
        ("m1", "primary", "M1", "f(m1)"), ("m3", "complement", "M3", "f(m3)")]
    assert found.metrics[0].reasons == ("r1",) and found.metrics[0].sources == (one,)
    assert found.metrics[1].reasons == ("r2",) and found.metrics[1].sources == (two,)
    assert [(a.id, a.reasons) for a in found.avoid] == [("m4", ("only m4",)), ("m5", ("only m5",))]
    assert found.rules_fired == ("first", "second", "split")
    record = found.to_json()["recommendation"]
    assert [r["id"] for r in record["rules"]] == ["first", "second", "never", "split"]
    assert record["metrics"][0]["sources"] == [{"file": "a.md", "section": "§1", "quote": "x" * 40,
                                                "reference": {"key": "k1", "citation": "One 2001"}}]
    assert "profile_facts" not in record and "papers_differ" not in record


def test_every_task_with_a_rule_table_writes_the_same_recommendation_record(tmp_path):
    """The recommendation of each task kind's small fixture (tests/test_tasks_common.py) has one shape."""
    import json

    from click.testing import CliRunner
    from test_tasks_common import FIXTURES

    from auditor.cli import cli

    shapes = set()
    for task in ("classification", "ordinal", "multilabel", "tagging"):
        paths, _ = FIXTURES[task](tmp_path)
        done = CliRunner().invoke(cli, ["score", "--json", "--quiet", "--task", task, "--bootstrap", "0", *paths])
        record = json.loads(done.stdout)["recommendation"]
        assert {"metrics", "avoid", "notes", "rules_fired", "rules"} <= set(record), task
        shapes.add((tuple(sorted({key for m in record["metrics"] for key in m})),
                    tuple(sorted({key for rule in record["rules"] for key in rule}))))
        assert set(record["rules_fired"]) <= {rule["id"] for rule in record["rules"]}
    assert shapes == {(("formula", "id", "name", "reasons", "role", "sources"),
                       ("id", "references", "sources", "text"))}
