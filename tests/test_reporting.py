"""The reporting statement (ACL checklist B6, C3, C4; NeurIPS item 7): its detectable difference equals the
planner's on the same N, runner-up accuracy and observed agreement (computed here from the files with plain Python),
and the paragraph names the item count, the interval method and B, the seed and the signature."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import auditor
from auditor.cli import cli


def read(path):
    lines = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8") if line.strip()]
    return dict(lines[1:])


@pytest.fixture(scope="module")
def germeval(germeval_dir):
    systems = {path.stem: str(path) for path in sorted((germeval_dir / "systems").glob("*.tsv"))}
    return auditor.audit(str(germeval_dir / "gold.tsv"), systems, bootstrap=60, seed=7), germeval_dir


def test_the_detectable_difference_is_the_planners(germeval):
    result, folder = germeval
    reporting = result.to_json()["reporting"]
    found = reporting["detectable_difference"]["accuracy"]
    gold = read(folder / "gold.tsv")
    right = {path.stem: np.array([table[i] == gold[i] for i in gold])
             for path in sorted((folder / "systems").glob("*.tsv")) for table in [read(path)]}
    accuracy = {name: float(values.mean()) for name, values in right.items()}
    top, second = sorted(accuracy, key=lambda name: -accuracy[name])[:2]
    agreement = float((right[top] == right[second]).mean())
    assert found["systems"] == [top, second] and found["items"] == len(gold) == 3532
    assert found["accuracy"] == pytest.approx(accuracy[second]) and found["agreement"] == pytest.approx(agreement)
    planned = CliRunner().invoke(cli, ["plan", "--json", "--items", str(len(gold)), "--accuracy",
                                       repr(accuracy[second]), "--difference", repr(accuracy[top] - accuracy[second]),
                                       "--agreement", repr(agreement)])
    assert planned.exit_code == 0, planned.output
    assert found["value"] == pytest.approx(json.loads(planned.output)["detectable_difference"], abs=2e-6)
    assert found["power"] == 0.8 and found["alpha"] == 0.05


def test_the_statement_names_what_a_reader_checks(germeval):
    result, _ = germeval
    text = result.to_json()["reporting"]["statement"]
    for needed in ("3,532 items in 4 classes", "OTHER 2,330", "PROFANITY 48", "95% percentile bootstrap interval",
                   "B = 60 resamples of the test items", "seed 7", "systems' outputs are held fixed",
                   "exact McNemar test (accuracy)", "Holm correction", str(result.signature),
                   "zero_division=0", "Bold marks a metric's best set",
                   "Holm correction over the comparisons with that top system alone"):
        assert needed in text, needed
    value = result.to_json()["reporting"]["detectable_difference"]["accuracy"]["value"]
    assert f"{100 * value:.1f} points above the runner-up" in text


def test_without_draws_or_a_second_system():
    gold = ["a", "b", "a", "b", "a", "a"] * 20
    one = auditor.audit(gold, {"x": ["a", "b", "b", "b", "a", "a"] * 20}, bootstrap=0).to_json()["reporting"]
    assert "No intervals were computed" in one["statement"] and one["detectable_difference"] == {}
    assert "120 items in 2 classes (a 80, b 40)" in one["statement"]


def test_the_report_carries_it_on_every_page_kind(germeval, tmp_path):
    from auditor.formats.render import render

    result, _ = germeval
    render(result, tmp_path, formats="html,md,tex")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Reporting statement" in html and "ACL B6" in html and "NeurIPS 7" in html
    assert "ACL Rolling Review" in html and "NeurIPS Program Chairs" in html  # the checklists in References
    statement = result.reporting.statement
    assert statement[:60] in (tmp_path / "summary.md").read_text(encoding="utf-8")
    tex = (tmp_path / "tables.tex").read_text(encoding="utf-8")
    assert "\\providecommand{\\auditorreportingstatement}{The test set has 3,532 items" in tex
