"""``--task ordinal`` through the command line (issue 34): the order and every refusal, the terminal table at 80
columns, audit.json against the schema, the same figures from numeric levels without --order."""
from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
from click.testing import CliRunner

from auditor.cli import cli

GOLD = "id\tlevel\n" + "".join(f"i{n}\t{level}\n" for n, level in enumerate("A B C B C A B B C A".split()))
SYSTEM = "id\tlevel\n" + "".join(f"i{n}\t{level}\n" for n, level in enumerate("A B B B C B C B C A".split()))
CONSTANT = "id\tlevel\n" + "".join(f"i{n}\tB\n" for n in range(10))


def _run(*args, env=None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


@pytest.fixture
def files(write):
    return {"gold": write("gold.tsv", GOLD), "sys": write("sys.tsv", SYSTEM), "flat": write("flat.tsv", CONSTANT)}


def test_score_at_80_columns_with_the_order_and_the_undefined_correlation(files):
    result = _run("score", "--task", "ordinal", files["gold"], files["sys"], files["flat"], "--order", "A,B,C",
                  "--bootstrap", "20", "--quiet", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines if not line.startswith("signature:")), result.output
    assert "MAE_M" in result.output and "A < B < C" in result.output and "task:ordinal" in result.output
    assert "flat/spearman" in result.output and "single level" in result.output


def test_json_is_valid_against_the_schema_and_names_the_task_and_order(files):
    result = _run("score", "--task", "ordinal", files["gold"], files["sys"], files["flat"], "--order", "A,B,C",
                  "--bootstrap", "20", "--quiet", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text())
    jsonschema.validate(document, schema)
    assert document["task"] == "ordinal" and document["order"]["levels"] == ["A", "B", "C"]
    metrics = document["systems"]["sys"]["metrics"]
    assert metrics["mae"]["value"] == pytest.approx(0.3) and metrics["mae"]["ci"] is not None
    assert document["systems"]["flat"]["metrics"]["kendall_tau_b"]["value"] is None
    assert "mae_macro" in document["lower_is_better"]


def test_numeric_levels_need_no_order_and_give_the_same_figures(write):
    numbers = str.maketrans({"A": "1", "B": "2", "C": "3"})
    numeric_gold = write("g.tsv", "id\tlevel\n" + GOLD.split("\n", 1)[1].translate(numbers))
    numeric_sys = write("s.tsv", "id\tlevel\n" + SYSTEM.split("\n", 1)[1].translate(numbers))
    lettered = (write("lg.tsv", GOLD), write("ls.tsv", SYSTEM))
    numeric = json.loads(_run("score", "--task", "ordinal", numeric_gold, f"s={numeric_sys}", "--bootstrap", "0",
                              "--json", "--quiet").output)
    given = json.loads(_run("score", "--task", "ordinal", lettered[0], f"s={lettered[1]}", "--order", "A,B,C",
                            "--bootstrap", "0", "--json", "--quiet").output)
    assert numeric["order"]["how"] == "numeric" and numeric["order"]["levels"] == ["1", "2", "3"]
    for metric_id in ("mae", "mae_macro", "quadratic_kappa", "spearman", "kendall_tau_b", "cem_ord", "macro_f1"):
        assert numeric["systems"]["s"]["metrics"][metric_id]["value"] == given["systems"]["s"]["metrics"][metric_id][
            "value"]


def test_a_level_outside_the_order_is_refused_naming_it_its_file_and_line(files, tmp_path):
    result = _run("report", "--task", "ordinal", files["gold"], files["sys"], "--order", "A,B", "-o", tmp_path / "o")
    assert result.exit_code == 2
    assert f"{files['gold']} line 4: level 'C' is not in the order given by --order (A, B)" in result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("gold, order, message", [
    ("id\tlevel\na\t1\nb\t1.0\nc\t2\n", None, "'1' (", ),
    ("id\tlevel\na\tlow\nb\thigh\n", None, "label 'high' ("),
    ("id\tlevel\na\t1\nb\t2\n", "1,2,1", "level '1' is given twice"),
    ("id\tlevel\na\t1\nb\t2\n", "1", "at least two levels"),
    ("id\tlevel\na\t1\nb\t2\n", "1,,2", "an empty level"),
])
def test_refusals(write, gold, order, message):
    path = write("g.tsv", gold)
    arguments = ["score", "--task", "ordinal", path, f"s={path}", "--bootstrap", "0"]
    result = _run(*arguments, *(["--order", order] if order else []))
    assert result.exit_code == 2 and message in result.output, result.output
    if order is None and "high" in gold:
        assert "--order" in result.output


def test_order_file_comma_or_lines_and_conflicts(files, write):
    lines = write("order.txt", "# CEFR-like\nA\nB\n\nC\n")
    commas = write("order2.txt", "A,B,C\n")
    twice = write("order3.txt", "A\nB\nA\n")
    for path in (lines, commas):
        result = _run("score", "--task", "ordinal", files["gold"], files["sys"], "--order-file", path,
                      "--bootstrap", "0", "--json", "--quiet")
        assert json.loads(result.output)["order"]["levels"] == ["A", "B", "C"]
    refused = _run("score", "--task", "ordinal", files["gold"], files["sys"], "--order-file", twice)
    assert refused.exit_code == 2 and f"{twice} line 3: level 'A' is given twice" in refused.output
    both = _run("score", "--task", "ordinal", files["gold"], files["sys"], "--order", "A,B,C", "--order-file", commas)
    assert both.exit_code == 2 and "give one of them" in both.output
    labels = _run("score", "--task", "ordinal", files["gold"], files["sys"], "--labels", "A,B,C")
    assert labels.exit_code == 2 and "--order" in labels.output
    other_task = _run("score", files["gold"], files["sys"], "--order", "A,B,C")
    assert other_task.exit_code == 2 and "belongs to --task ordinal" in other_task.output


def test_level_is_a_label_column_name_for_classification_too(files):
    result = _run("score", files["gold"], files["sys"], "--bootstrap", "0", "--json", "--quiet")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["labels"] == ["A", "B", "C"]


def test_report_sections_and_the_json_recommendation(files, tmp_path):
    from auditor.options import AuditOptions
    from auditor.tasks.ordinal.run import audit

    result = audit(files["gold"], {"sys": files["sys"], "flat": files["flat"]}, order="A,B,C",
                   options=AuditOptions(bootstrap=20),
                   annotators={"A": files["gold"], "B": files["sys"]})
    model = result.report_model(figures=False)
    ids = [section.id for section in model.sections]
    for expected in ("levels", "ordinal-agreement", "ordinal-baselines", "ordinal-figures", "ordinal-properties",
                     "recommendation", "rules"):
        assert expected in ids
    assert ids.index("levels") < ids.index("ordinal-figures") < ids.index("recommendation")
    table = next(block for block in model.section("ordinal-figures").blocks
                 if getattr(block, "id", "") == "table-ordinal")
    assert table.rows[0].cells[0].kind == "number" and table.columns[0].label == "MAE_M"
    assert "task:ordinal" in model.signature
    recommendation = result.to_json()["recommendation"]
    assert recommendation["metrics"][0]["id"] == "mae_macro"
    assert recommendation["metrics"][0]["sources"][0]["reference"]["citation"] == "Baccianella et al. 2009"
    written = _run("report", "--task", "ordinal", files["gold"], files["sys"], "--order", "A,B,C", "--bootstrap",
                   "20", "--format", "json,md", "-o", tmp_path / "out", "--quiet")
    assert written.exit_code == 0, written.output
    assert "Levels" in (tmp_path / "out" / "summary.md").read_text()
