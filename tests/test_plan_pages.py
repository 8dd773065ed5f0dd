"""``auditor plan -o``: the pages go through the audit's renderers (issue 24)."""
from __future__ import annotations

import json

from click.testing import CliRunner
from pypdf import PdfReader

from auditor.cli import cli
from auditor.plan.documents import PredictivePlan, plan_accuracy
from auditor.plan.pages import accuracy_page, power_curve, predictive_page
from auditor.plan.predictive import model


def test_accuracy_page_carries_the_figures_and_the_curve_is_the_exact_power():
    plan = plan_accuracy(1000, 0.70, 0.02)
    report = accuracy_page(plan, figures=False)
    table = report.sections[0].blocks[1]
    assert table.rows[0].cells[0].value == plan.figures.power
    assert table.rows[-1].cells[0].value == plan.needed.items
    sizes, values = power_curve(plan)
    assert ((values >= 0.8) == (sizes >= plan.needed.items)).all()


def test_predictive_page_names_the_curves_that_coincide():
    plan = PredictivePlan(model({"a": 0.7, "b": 0.2, "c": 0.1}), "--prevalence")
    report = predictive_page(plan, figures=True)
    figure = report.sections[0].blocks[1]
    assert "kappa, mcc, informedness" in figure.caption and figure.svg.startswith("<svg")


def test_plan_writes_html_pdf_and_json_as_a_set(tmp_path):
    out = tmp_path / "plan"
    result = CliRunner().invoke(cli, ["plan", "--items", "500", "--accuracy", "0.7", "--difference", "0.02",
                                      "--agreement", "0.975", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["plan.html", "plan.json", "plan.pdf"]
    assert json.loads((out / "plan.json").read_text(encoding="utf-8"))["mode"] == "accuracy"
    html = (out / "plan.html").read_text(encoding="utf-8")
    assert "Gelman &amp; Carlin (2014)" in html and "<svg" in html
    text = "".join(page.extract_text() for page in PdfReader(out / "plan.pdf").pages)
    assert "Test-set plan: accuracy" in text and "Card, Henderson" in text


def test_pilot_page_draws_power_against_size_when_sizes_were_simulated(germeval_pilot):
    from auditor.plan.documents import PilotPlan
    from auditor.plan.pages import pilot_page
    from auditor.plan.pilot import plan_pilot_counts

    result = plan_pilot_counts(germeval_pilot("word-logreg", "char-svm"), items=300, simulations=10, rounds=40, seed=1,
                               sizes=(100, 900), metric_ids=("accuracy",))
    report = pilot_page(PilotPlan(result), figures=True)
    kinds = [block.kind for block in report.sections[0].blocks]
    assert kinds.count("figure") == 1 and kinds.count("table") == 2
    table = report.sections[0].blocks[1]
    assert table.rows[0].cells[0].value == float(result.power["accuracy"][0])
