"""Label checks before scoring (issue 12): respelled labels and disjoint label sets are errors,
labels absent from gold are warnings (stderr and page 1); identical systems are flagged."""
from __future__ import annotations

import importlib

import pytest
from click.testing import CliRunner

import auditor
from auditor.cli import cli
from auditor.errors import InputError

GOLD = ["OFFENSE"] * 4 + ["OTHER"] * 6
GOOD = ["OFFENSE"] * 3 + ["OTHER"] * 7


def test_lower_case_predictions_are_an_error_naming_both_spellings():
    lower = [label.lower() for label in GOOD]
    with pytest.raises(InputError) as error:
        auditor.audit(GOLD, {"lower": lower}, bootstrap=0)
    message = str(error.value)
    assert "'offense' where gold has 'OFFENSE'" in message and "'other' where gold has 'OTHER'" in message
    assert "only after case or whitespace folding" in message and "system 'lower'" in message


def test_whitespace_variant_is_an_error():
    padded = ["OFFENSE"] * 3 + ["OTHER "] * 7
    with pytest.raises(InputError, match="'OTHER ' where gold has 'OTHER'"):
        auditor.audit(GOLD, {"padded": padded}, bootstrap=0)


def test_system_sharing_no_label_with_gold_is_an_error():
    with pytest.raises(InputError, match="predicts no label that gold .* uses"):
        auditor.audit(GOLD, {"other-task": ["pos"] * 5 + ["neg"] * 5}, bootstrap=0)


def test_typo_label_is_a_warning_in_the_result_and_on_page_one():
    typo = ["OFFENSE"] * 3 + ["INSLUT"] + ["OTHER"] * 6
    result = auditor.audit(GOLD, {"typo": typo, "good": GOOD}, bootstrap=0)
    assert len(result.warnings) == 1
    assert "'INSLUT', absent from gold (1 item)" in result.warnings[0] and "system 'typo'" in result.warnings[0]
    assert result.to_json()["warnings"] == list(result.warnings)
    model = importlib.import_module("auditor.report.build").build(result, figures=False)
    facts = model.section("summary").blocks[0].pairs
    assert ("Label warning", result.warnings[0]) in facts


def test_declared_label_absent_from_gold_gets_no_warning():
    typo = ["OFFENSE"] * 3 + ["INSULT"] + ["OTHER"] * 6
    result = auditor.audit(GOLD, {"s": typo}, labels=["OFFENSE", "OTHER", "INSULT"], bootstrap=0)
    assert result.warnings == ()


def test_cli_prints_the_warning_on_stderr_and_the_error_once(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("".join(f"{i}\t{label}\n" for i, label in enumerate(GOLD)), encoding="utf-8")
    typo = tmp_path / "typo.tsv"
    typo.write_text("".join(f"{i}\t{label}\n" for i, label in enumerate(["INSLUT"] + GOOD[1:])), encoding="utf-8")
    lower = tmp_path / "lower.tsv"
    lower.write_text("".join(f"{i}\t{label.lower()}\n" for i, label in enumerate(GOOD)), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["score", str(gold), str(typo), "--bootstrap", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "auditor: warning: system 'typo'" in result.stderr and "'INSLUT'" in result.stderr
    result = runner.invoke(cli, ["score", str(gold), str(lower), "--bootstrap", "0", "--quiet"])
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("auditor: error: system 'lower'")
    assert "'offense' where gold has 'OFFENSE'" in errors[0] and "Traceback" not in result.output


def test_identical_systems_grouped_in_profile_and_flagged_on_page_one():
    other = ["OTHER"] * 10
    result = auditor.audit(GOLD, {"a": GOOD, "b": other, "copy-of-a": list(GOOD), "c": other}, bootstrap=0)
    assert result.profile.identical_systems == (("a", "copy-of-a"), ("b", "c"))
    assert result.to_json()["profile"]["identical_systems"] == [["a", "copy-of-a"], ["b", "c"]]
    model = importlib.import_module("auditor.report.build").build(result, figures=False)
    flagged = [text for term, text in model.section("summary").blocks[0].pairs if term == "Identical systems"]
    assert [text.split(":")[0] for text in flagged] == ["a = copy-of-a", "b = c"]
    assert "Identical predictions: a = copy-of-a." in result.to_json()["verdict"]["text"]


def test_no_identical_systems_when_predictions_differ():
    result = auditor.audit(GOLD, {"a": GOOD, "b": ["OTHER"] * 10}, bootstrap=0)
    assert result.profile.identical_systems == ()


def test_same_confusion_matrix_is_not_identical_predictions():
    """Two systems that swap their answers on two items of one gold class have the same
    confusion matrix but different predictions: not identical."""
    gold = ["A", "A", "B", "B"]
    result = auditor.audit(gold, {"x": ["A", "B", "B", "B"], "y": ["B", "A", "B", "B"], "z": ["A", "B", "B", "B"]},
                           bootstrap=0)
    assert (result.counts.confusion[0] == result.counts.confusion[1]).all()
    assert result.profile.identical_systems == (("x", "z"),)


def test_identical_rows_groups_equal_predictions_in_system_order():
    """By hand: rows 0, 2, 3 are equal, 1 differs in one place, 4 and 5 are equal bytes; a row of another length
    never joins a group (the digest differs; ``np.array_equal`` would refuse it too)."""
    import numpy as np

    from auditor.analyses.profile import identical_rows

    rows = [np.array([1, 2, 3]), np.array([1, 2, 4]), np.array([1, 2, 3]), np.array([1, 2, 3]), np.array([1, 2])]
    assert identical_rows("abcde", rows) == (("a", "c", "d"),)
    assert identical_rows(["x", "y", "z"], [b"one\ntwo", b"one\ntwo", b"one\ntw"]) == (("x", "y"),)
    assert identical_rows(["only"], [np.zeros(3)]) == () and identical_rows(["p", "q"], [b"p", b"q"]) == ()
