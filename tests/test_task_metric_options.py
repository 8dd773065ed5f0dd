"""``-m`` and ``--sort`` for task kinds other than classification (issue 22): checked against the task's
``METRIC_IDS`` before the audit runs (one error listing the ids, exit 2, nothing printed on standard output),
and ``--sort`` orders the task's table, best first."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from auditor.cli import cli, resolve_task_metric
from auditor.errors import UsageError
from auditor.tasks import task_module

GOLD = "Ann B-PER\nLee I-PER\nmet O\nBob B-PER\n\nin O\nNew B-LOC\nYork I-LOC\n"
#: Span micro F1 by hand: A finds 1 of 3 gold chunks (Ann Lee) with 3 predicted (2/6); B all 3 (1); C 2 of 3
#: with 2 (4/5).
SYSTEMS = {"A": "Ann B-PER\nLee I-PER\nmet O\nBob B-ORG\n\nin O\nNew B-ORG\nYork I-ORG\n",
           "B": GOLD,
           "C": "Ann B-PER\nLee I-PER\nmet O\nBob O\n\nin O\nNew B-LOC\nYork I-LOC\n"}
REFERENCE = "the cat sat on the mat\na dog runs\nthe house is big\n"
TRANSLATIONS = {"A": "a dog sat\nthe cat\nbig house\n", "B": REFERENCE, "C": "the cat sat on a mat\na dog\nthe house\n"}


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture()
def tagging_files(tmp_path):
    (tmp_path / "gold.txt").write_text(GOLD, encoding="utf-8")
    for name, text in SYSTEMS.items():
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    return [tmp_path / "gold.txt", *(f"{name}={tmp_path / name}.txt" for name in SYSTEMS)]


@pytest.fixture()
def translation_files(tmp_path):
    (tmp_path / "ref.txt").write_text(REFERENCE, encoding="utf-8")
    for name, text in TRANSLATIONS.items():
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    return [tmp_path / "ref.txt", *(f"{name}={tmp_path / name}.txt" for name in TRANSLATIONS)]


@pytest.mark.parametrize("task", ["tagging", "translation"])
@pytest.mark.parametrize("option", ["-m", "--sort"])
def test_an_unknown_metric_fails_before_the_audit_runs(task, option, tmp_path):
    # The files do not exist: the error is the metric's, so the check ran before any file was read.
    result = _run("score", "--task", task, tmp_path / "missing.txt", tmp_path / "nor.txt", option, "span_mikro_f1")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"unknown metric 'span_mikro_f1' for {option} with --task {task}" in result.stderr
    assert all(metric_id in result.stderr for metric_id in task_module(task).METRIC_IDS)


@pytest.mark.parametrize(("task", "name", "expected"), [
    ("tagging", "span_micro_f1", "span_micro_f1"), ("tagging", "Span-Macro-F1", "span_macro_f1"),
    ("tagging", "balanced accuracy", "macro_recall"), ("tagging", "type_balanced_accuracy", "type_macro_recall"),
    ("tagging", "type_mcc", "type_mcc"), ("translation", "MacroF", "macrof"), ("translation", "chrF2", "chrf"),
    ("translation", "BLEU", "bleu")])
def test_ids_and_aliases_resolve_to_the_tasks_ids(task, name, expected):
    assert resolve_task_metric(task, name) == expected


@pytest.mark.parametrize(("task", "name"), [("translation", "accuracy"), ("tagging", "macrof"),
                                            ("tagging", "type_span_micro_f1")])
def test_another_tasks_metric_is_refused(task, name):
    with pytest.raises(UsageError, match=f"unknown metric '{name}'"):
        resolve_task_metric(task, name)


def _table_order(output: str, names=("A", "B", "C")) -> list[str]:
    """The systems' rows in table order: a name, then a figure (a wrapped note line such as "C 0" is not a row);
    a table split into blocks to fit 80 columns repeats its rows, counted once."""
    rows = [line.split()[0] for line in output.splitlines()
            if len(line.split()) > 1 and line.split()[0] in names and re.fullmatch(r"-?\d+\.\d|—", line.split()[1])]
    return list(dict.fromkeys(rows))


def _column(output: str, name: str, index: int = 1) -> float:
    line = next(line for line in output.splitlines() if line.split() and line.split()[0] == name)
    return float(re.findall(r"\d+\.\d", line)[index - 1])


def test_tagging_sort_orders_the_table_best_first(tagging_files):
    unsorted = _run("score", "--task", "tagging", *tagging_files, "--bootstrap", "0", "-m", "span_micro_f1")
    assert unsorted.exit_code == 0, unsorted.stderr
    assert _table_order(unsorted.stdout) == ["A", "B", "C"]
    assert [_column(unsorted.stdout, n) for n in "ABC"] == [33.3, 100.0, 80.0]  # by hand, see SYSTEMS
    result = _run("score", "--task", "tagging", *tagging_files, "--bootstrap", "0", "--sort", "span micro f1")
    assert result.exit_code == 0, result.stderr
    assert _table_order(result.stdout) == ["B", "C", "A"]
    assert "sorted by span_micro_f1" in " ".join(result.stdout.split())  # the line may wrap at 80 columns


def test_translation_sort_orders_the_table_best_first(translation_files):
    result = _run("score", "--task", "translation", *translation_files, "--bootstrap", "0", "-m", "bleu",
                  "--sort", "BLEU")
    assert result.exit_code == 0, result.stderr
    order = _table_order(result.stdout)
    values = [_column(result.stdout, n) for n in order]
    assert order[0] == "B" and values == sorted(values, reverse=True) and values[0] == 100.0
    assert "sorted by BLEU" in result.stdout
