"""``auditor codabench INPUT OUTPUT``: the scoring program of the sample bundle in ``examples/codabench`` run on its
simulated submission as the platform lays it out (INPUT/ref, INPUT/res). Oracle: scikit-learn's metrics."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli

BUNDLE = Path(__file__).resolve().parents[1] / "examples" / "codabench"


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("codabench")
    shutil.copytree(BUNDLE / "reference_data", root / "input" / "ref")
    shutil.copytree(BUNDLE / "sample_submission", root / "input" / "res")
    (root / "input" / "res" / "metadata").write_text("description: team A\n")  # the platform's own file
    done = CliRunner().invoke(cli, ["codabench", str(root / "input"), str(root / "output"), "--bootstrap", "50"])
    assert done.exit_code == 0, done.output
    return root


def read(path):
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t")[1] for line in lines]


def test_scores_equal_scikit_learn(scored):
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, cohen_kappa_score, f1_score

    gold = read(BUNDLE / "reference_data" / "gold.tsv")
    predicted = read(BUNDLE / "sample_submission" / "predictions.tsv")
    scores = json.loads((scored / "output" / "scores.json").read_text())
    assert scores["accuracy"] == pytest.approx(accuracy_score(gold, predicted))
    assert scores["macro_f1"] == pytest.approx(f1_score(gold, predicted, average="macro"))
    assert scores["macro_recall"] == pytest.approx(balanced_accuracy_score(gold, predicted))
    assert scores["kappa"] == pytest.approx(cohen_kappa_score(gold, predicted))
    lines = (scored / "output" / "scores.txt").read_text().splitlines()
    assert all(re.fullmatch(r"[a-z_0-9]+: -?\d+\.\d{6}", line) for line in lines)
    assert dict(line.split(": ") for line in lines)["accuracy"] == f"{scores['accuracy']:.6f}"


def test_the_detailed_page_is_self_contained(scored):
    html = (scored / "output" / "detailed_results.html").read_text(encoding="utf-8")
    assert "<svg" in html and "submission" in html
    for fetching in ("<script", "<link", "@import", "<img", "<iframe"):
        assert fetching not in html.lower()
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#|data:)""", html)
    assert not re.search(r"url\((?!\s*['\"]?(#|data:))", html)


def test_input_that_is_not_one_file_each_is_refused(tmp_path):
    (tmp_path / "input" / "ref").mkdir(parents=True)
    (tmp_path / "input" / "res").mkdir()
    shutil.copy(BUNDLE / "reference_data" / "gold.tsv", tmp_path / "input" / "ref")
    done = CliRunner().invoke(cli, ["codabench", str(tmp_path / "input"), str(tmp_path / "output")])
    assert done.exit_code == 2 and "expected one submission file, found nothing" in done.output
    assert not (tmp_path / "output").exists()
