"""``auditor demo`` (issue 31): a simulated evaluation written as files and reported.

The classification demo's systems are built to show behaviours evaluations meet; each test below reads the
audit of the default demo and fails if a change to the generator loses the behaviour the report is meant to
show (and page 1's note promises): a majority-class system at the majority share, a prior sampler and a system
barely above chance near their shuffle baselines, a system that never predicts the rare class, a class-balanced
twin that trades accuracy for macro recall, two close competitors whose order flips between metrics.
"""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from auditor.cli import cli


def run_demo(outdir: Path, *options: str) -> dict:
    result = CliRunner().invoke(cli, ["demo", "-o", str(outdir), "--format", "json,md", "--quiet", *options])
    assert result.exit_code == 0, result.output
    return json.loads((outdir / "audit.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def classification_demo(tmp_path_factory) -> tuple[Path, dict]:
    """The default classification demo (json and md), its folder and its audit.json."""
    outdir = tmp_path_factory.mktemp("demo") / "demo"
    return outdir, run_demo(outdir)


def metric(audit: dict, system: str, metric_id: str) -> float | None:
    return audit["systems"][system]["metrics"][metric_id]["value"]


def test_the_demo_writes_its_data_and_says_on_page_1_that_it_is_simulated(classification_demo):
    outdir, audit = classification_demo
    data = outdir / "data"
    assert (data / "gold.tsv").read_text(encoding="utf-8").startswith("id\tlabel\nT0001\t")
    assert sorted(p.stem for p in (data / "systems").glob("*.tsv")) == sorted(audit["systems"])
    assert audit["about_data"].startswith("Simulated, not a real evaluation: 3,000 support tickets")
    summary = (outdir / "summary.md").read_text(encoding="utf-8")
    assert "**About the data.** Simulated, not a real evaluation" in summary
    assert "auditor report" in (data / "README.md").read_text(encoding="utf-8")
    assert_valid(audit)


def assert_valid(audit: dict) -> None:
    """``audit`` (an audit.json, its ``about_data`` included) against the shipped schema."""
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text(encoding="utf-8"))
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
              for e in jsonschema.Draft202012Validator(schema).iter_errors(audit)]
    assert not errors, errors


def test_auditor_report_on_the_written_files_gives_the_same_figures(classification_demo, tmp_path):
    outdir, audit = classification_demo
    systems = sorted(str(p) for p in (outdir / "data" / "systems").glob("*.tsv"))  # as the shell's * lists them
    result = CliRunner().invoke(cli, ["report", str(outdir / "data" / "gold.tsv"), *systems, "-o",
                                      str(tmp_path / "rerun"), "--format", "json", "--quiet"])
    assert result.exit_code == 0, result.output
    again = json.loads((tmp_path / "rerun" / "audit.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in audit.items() if k != "about_data"} == again


def test_a_fixed_seed_gives_the_same_files_and_audit(tmp_path):
    outdir = tmp_path / "a"
    run_demo(outdir, "--size", "400", "--seed", "7")
    first = {p: p.read_bytes() for p in sorted(outdir.rglob("*")) if p.is_file()}
    run_demo(outdir, "--size", "400", "--seed", "7")  # again, into the same folder
    assert {p: p.read_bytes() for p in sorted(outdir.rglob("*")) if p.is_file()} == first
    other = run_demo(tmp_path / "b", "--size", "400", "--seed", "8")
    assert other["signature"].split("|")[1] != json.loads(first[outdir / "audit.json"])["signature"].split("|")[1]


def test_the_data_are_imbalanced_with_one_rare_class(classification_demo):
    _, audit = classification_demo
    profile = audit["profile"]
    assert profile["k"] == 4 and profile["n_items"] == 3000
    assert profile["support"]["fraud"] == profile["min_support"] == 90
    assert profile["majority_label"] == "billing" and profile["majority_share"] == pytest.approx(0.55)


def test_majority_scores_the_majority_share_and_nothing_chance_corrected(classification_demo):
    _, audit = classification_demo
    assert metric(audit, "majority", "accuracy") == pytest.approx(0.55)
    assert metric(audit, "majority", "macro_recall") == pytest.approx(0.25)
    assert metric(audit, "majority", "kappa") == pytest.approx(0.0)
    assert metric(audit, "majority", "mcc") is None  # 0/0: one predicted class
    # accuracy ranks it above two systems that are above chance: the flip the report lists
    flips = {(f["a"], f["b"]): f for f in audit["rank_disagreement"]["flips"]}
    assert flips[("majority", "tiny-nb")]["a_better_under"] == ["accuracy"]


def test_the_prior_sampler_and_the_barely_above_chance_system_sit_near_their_shuffles(classification_demo):
    _, audit = classification_demo
    primary = audit["verdict"]["primary"]
    chance = {s: audit["chance"]["systems"][s][primary] for s in audit["systems"]}
    assert chance["prior-sampler"]["p_shuffle_adjusted"] >= 0.05  # not above chance
    assert abs(chance["prior-sampler"]["margin"]) < 0.02
    assert abs(metric(audit, "prior-sampler", "kappa")) < 0.03
    assert chance["tiny-nb"]["p_shuffle_adjusted"] < 0.05  # above chance, but barely
    assert 0 < chance["tiny-nb"]["margin"] < 0.1
    assert metric(audit, "tiny-nb", "kappa") < 0.1
    trained = [s for s in audit["systems"] if s not in ("majority", "prior-sampler", "tiny-nb")]
    assert min(chance[s]["margin"] for s in trained) > 3 * chance["tiny-nb"]["margin"]


def test_one_system_never_predicts_the_rare_class(classification_demo):
    _, audit = classification_demo
    never = {s: v["never_predicted"] for s, v in audit["profile"]["systems"].items()}
    assert never["bow-logreg"] == ["fraud"]
    assert sorted(s for s, labels in never.items() if labels) == ["bow-logreg", "majority"]
    assert audit["systems"]["bow-logreg"]["per_class"]["fraud"]["recall"] == 0
    assert metric(audit, "bow-logreg", "gmean_recall") == 0


def test_the_class_balanced_twin_trades_accuracy_for_macro_recall(classification_demo):
    _, audit = classification_demo
    plain, balanced = "bow-logreg", "bow-logreg-balanced"
    assert metric(audit, balanced, "accuracy") < metric(audit, plain, "accuracy") - 0.05
    assert metric(audit, balanced, "macro_recall") > metric(audit, plain, "macro_recall") + 0.05
    assert audit["systems"][balanced]["per_class"]["fraud"]["precision"] < 0.4  # many false alarms


def test_the_close_competitors_flip_between_accuracy_and_macro_recall(classification_demo):
    _, audit = classification_demo
    a, b = "transformer-a", "transformer-b"
    assert 0 < metric(audit, a, "accuracy") - metric(audit, b, "accuracy") < 0.03
    assert metric(audit, b, "macro_recall") > metric(audit, a, "macro_recall")
    flip = next(f for f in audit["rank_disagreement"]["flips"] if {f["a"], f["b"]} == {a, b})
    a_side, b_side = (flip["a_better_under"], flip["b_better_under"]) if flip["a"] == a else \
        (flip["b_better_under"], flip["a_better_under"])
    assert "accuracy" in a_side and "macro_recall" in b_side
    winners = audit["rank_disagreement"]["winners"]
    assert winners["accuracy"] == a and winners["macro_recall"] == b
    # close: A's accuracy lead is not significant; B's macro-recall lead is
    best = audit["statistics"]["best_set"]
    assert set(best["accuracy"]["systems"]) == {a, b}
    assert best["macro_recall"]["systems"] == [b]


def test_keyword_rules_raise_few_false_alarms_and_miss_much(classification_demo):
    _, audit = classification_demo
    fraud = audit["systems"]["keyword-rules"]["per_class"]["fraud"]
    assert fraud["precision"] > 0.85 and fraud["recall"] < 0.5


def test_the_recommendation_follows_the_imbalance(classification_demo):
    _, audit = classification_demo
    recommendation = audit["recommendation"]
    assert [m["id"] for m in recommendation["metrics"] if m["role"] == "primary"] == ["macro_recall"]
    assert "accuracy" in [m["id"] for m in recommendation["metrics"]]


def test_a_demo_too_small_is_refused(tmp_path):
    result = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path / "x"), "--size", "5", "--quiet"])
    assert result.exit_code == 2 and "--size" in result.output
    assert not (tmp_path / "x").exists()


def test_any_audit_carries_an_about_the_data_note_on_page_1(tmp_path):
    """The note is the report model's (any task's report shows it), escaped like every user text."""
    import auditor

    result = auditor.audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"]}, bootstrap=0)
    note = "Held-out split <2024>; labels by two annotators & an adjudicator."
    auditor.render(result, tmp_path, formats="html,tex,md,json", about_data=note)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert ("<span>About the data</span> Held-out split &lt;2024&gt;; labels by two annotators &amp; an "
            "adjudicator.") in html
    assert html.index("About the data") < html.index('id="summary"')  # on the cover, before the summary
    assert f"% About the data: {note}" in (tmp_path / "tables.tex").read_text(encoding="utf-8")
    assert json.loads((tmp_path / "audit.json").read_text(encoding="utf-8"))["about_data"] == note
    plain = tmp_path / "plain"
    auditor.render(result, plain, formats="md,json")
    assert "About the data" not in (plain / "summary.md").read_text(encoding="utf-8")
    assert "about_data" not in json.loads((plain / "audit.json").read_text(encoding="utf-8"))
