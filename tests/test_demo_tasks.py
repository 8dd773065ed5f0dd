"""``auditor demo --task tagging`` and ``--task translation`` (issue 31): each simulated tagger or translation
system shows the behaviour page 1's note promises, read from the audit of the default demo, and ``auditor
report`` on the written files gives the same figures."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_demo import assert_valid, run_demo

from auditor.cli import cli


@pytest.fixture(scope="module")
def tagging_demo(tmp_path_factory) -> tuple[Path, dict]:
    outdir = tmp_path_factory.mktemp("demo") / "tagging"
    return outdir, run_demo(outdir, "--task", "tagging")


@pytest.fixture(scope="module")
def translation_demo(tmp_path_factory) -> tuple[Path, dict]:
    outdir = tmp_path_factory.mktemp("demo") / "translation"
    return outdir, run_demo(outdir, "--task", "translation")


def rerun(outdir: Path, task: str, gold: str, pattern: str, tmp_path: Path, *options: str) -> dict:
    """``auditor report --task TASK`` on the demo's files, the systems as a shell's ``*`` lists them."""
    systems = sorted(str(p) for p in (outdir / "data" / "systems").glob(pattern))
    result = CliRunner().invoke(cli, ["report", "--task", task, str(outdir / "data" / gold), *systems, *options,
                                      "-o", str(tmp_path / "rerun"), "--format", "json", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / "rerun" / "audit.json").read_text(encoding="utf-8"))


def test_tagging_rerun_gives_the_same_figures(tagging_demo, tmp_path):
    outdir, audit = tagging_demo
    assert audit["about_data"].startswith("Simulated, not a real evaluation: 1,500 news-like sentences")
    assert_valid(audit)
    assert {k: v for k, v in audit.items() if k != "about_data"} == rerun(outdir, "tagging", "gold.iob2", "*.iob2",
                                                                            tmp_path)


def spans(audit: dict, system: str) -> dict:
    return audit["systems"][system]["spans"]


def test_the_iob1_twin_is_ill_formed_and_the_span_rule_decides_its_score(tagging_demo):
    _, audit = tagging_demo
    ill = audit["tagging"]["ill_formed"]
    assert ill["crf-iob1"] > 0.9 * audit["tagging"]["gold_chunks"]
    assert all(count == 0 for system, count in ill.items() if system != "crf-iob1")
    twin, crf = spans(audit, "crf-iob1"), spans(audit, "crf")
    assert abs(twin["micro"]["f1"] - crf["micro"]["f1"]) < 0.02  # conlleval reads its chunks
    assert twin["other_rule_micro_f1"] < 0.05  # the strict rule drops them
    assert crf["other_rule_micro_f1"] == pytest.approx(crf["micro"]["f1"])


def test_each_tagger_makes_its_own_kind_of_error(tagging_demo):
    _, audit = tagging_demo
    errors = {s: spans(audit, s)["errors"] for s in audit["systems"] if s != "capitalised"}
    assert max(errors, key=lambda s: errors[s]["wrong_boundary"]) == "bilstm-spans"
    assert max(errors, key=lambda s: errors[s]["wrong_type"]) == "type-confused"
    assert max(errors, key=lambda s: errors[s]["missed"]) == "cautious"
    metric = {s: {m: v["value"] for m, v in audit["systems"][s]["metrics"].items()} for s in audit["systems"]}
    # boundary errors get partial credit, type errors are forgiven by the exact (type-blind) view
    assert metric["bilstm-spans"]["span_partial_f1"] > metric["bilstm-spans"]["span_micro_f1"] + 0.1
    assert metric["type-confused"]["span_exact_f1"] > metric["type-confused"]["span_micro_f1"] + 0.2
    cautious = spans(audit, "cautious")
    assert cautious["micro"]["precision"] == max(spans(audit, s)["micro"]["precision"] for s in audit["systems"])
    assert cautious["per_type"]["MISC"]["recall"] < 0.3
    assert metric["capitalised"]["span_micro_f1"] < 0.35
    assert audit["rank_disagreement"]["flips"]  # the order of some taggers depends on the metric


def test_translation_rerun_with_the_human_scores_gives_the_same_figures(translation_demo, tmp_path):
    outdir, audit = translation_demo
    assert audit["about_data"].startswith("Simulated, not a real evaluation: a reference text of 500")
    assert_valid(audit)
    again = rerun(outdir, "translation", "ref.txt", "*.txt", tmp_path, "--human",
                  str(outdir / "data" / "human.tsv"))
    assert {k: v for k, v in audit.items() if k != "about_data"} == again


def test_each_translation_system_fools_a_different_metric(translation_demo):
    _, audit = translation_demo
    rankings = audit["rankings"]
    human = audit["human"]["scores"]
    by_human = sorted(human, key=human.get, reverse=True)
    value = {s: {m: v["value"] for m, v in audit["systems"][s]["metrics"].items()} for s in audit["systems"]}
    # losing rare words: last under MacroF, near the top under BLEU
    assert rankings["macrof"][-1] == "rare-dropper" and rankings["bleu"].index("rare-dropper") <= 2
    # a shuffled word order: last under BLEU and for the humans, yet MacroF (unigrams) ties it with the best
    assert rankings["bleu"][-1] == "scrambled" and by_human[-1] == "scrambled"
    assert value["scrambled"]["macrof"] > value["strong"]["macrof"] - 0.01
    # synonyms: second for the humans, near the bottom under BLEU
    assert by_human[:2] == ["strong", "paraphraser"] and rankings["bleu"].index("paraphraser") >= 4
    agreement = audit["human_agreement"]
    assert agreement["bleu"]["pearson"]["value"] > agreement["macrof"]["pearson"]["value"]
