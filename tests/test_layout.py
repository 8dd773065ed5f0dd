"""Layout and charts of the report (issue 12): intervals follow alpha, systems follow the primary
metric, ties drawn as ties, 30 systems told apart, chance lines, heatmap number = colour."""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

import auditor
from auditor.report import charts

report = importlib.import_module("auditor.report.build")
report_model = importlib.import_module("auditor.report.model")
property_section = importlib.import_module("auditor.report.sections.properties")


def _germeval(folder: Path, **options):
    systems = {path.stem: str(path) for path in sorted((folder / "systems").glob("*.tsv"))}
    return auditor.audit(str(folder / "gold.tsv"), systems, **options)


def _texts(model) -> str:
    parts = [model.scale_note]
    for section in model.sections:
        for block in section.blocks:
            for attribute in ("caption", "text"):
                parts.append(str(getattr(block, attribute, "")))
            parts += [f"{a} {b}" for a, b in getattr(block, "pairs", ())]
            parts += list(getattr(block, "items", ()))
    return "\n".join(parts)


@pytest.fixture(scope="module")
def germeval_alpha_10(germeval_dir):
    return _germeval(germeval_dir, bootstrap=50, alpha=0.1)


def test_interval_captions_follow_alpha(germeval_alpha_10):
    """--alpha 0.1 gives 90% intervals, and every caption says 90%, none 95%."""
    document = germeval_alpha_10.to_json()
    low, high = document["systems"]["char-svm"]["metrics"]["accuracy"]["ci"]
    assert low < document["systems"]["char-svm"]["metrics"]["accuracy"]["value"] < high
    model = report.build(germeval_alpha_10, figures=False)
    text = _texts(model)
    assert not re.search(r"95% (bootstrap|range|interval|percentile|confidence)", text), "a 95% caption"
    assert "95%" not in text.replace("[5%, 95%]", "")  # the 90% interval's upper percentile only
    assert text.count("90% bootstrap") >= 3  # leaderboard, metric table, calibrated table
    assert "α = 0.1" in text


def test_every_table_follows_the_primary_metric_order(germeval_alpha_10):
    order = germeval_alpha_10.to_json()["verdict"]["order"]
    model = report.build(germeval_alpha_10, figures=False)
    for table_id in ("summary-leaderboard", "table-metrics", "table-calibrated", "table-ranks", "table-pbest"):
        table = next(b for s in model.sections for b in s.blocks if getattr(b, "id", "") == table_id)
        assert [row.header for row in table.rows] == order, table_id
    for table_id in ("table-bias", "table-class-f1"):
        table = next(b for s in model.sections for b in s.blocks if getattr(b, "id", "") == table_id)
        assert [c.label for c in table.columns if c.label in order] == order, table_id


def test_bump_chart_draws_tied_systems_side_by_side_at_their_rank():
    ranks = {"a": {"m1": 1.0, "m2": 2.0}, "b": {"m1": 2.0, "m2": 2.0}, "c": {"m1": 3.0, "m2": 2.0}}
    spec = charts.bump_spec(ranks, ["m1", "m2"], ["a", "b", "c"], str)
    at_m2 = {row["system"]: row["rank"] for row in spec["data"]["values"] if row["metric"] == "m2"}
    assert at_m2 == {"a": 2.0, "b": 2.0, "c": 2.0}
    shown = {row["system"]: row["shown"] for row in spec["data"]["values"] if row["metric"] == "m2"}
    assert shown == pytest.approx({"a": 1.7, "b": 2.0, "c": 2.3})  # no point hides another
    untied = {row["system"]: row["shown"] for row in spec["data"]["values"] if row["metric"] == "m1"}
    assert untied == {"a": 1.0, "b": 2.0, "c": 3.0}


def test_even_four_systems_differ_in_shape_as_well_as_colour():
    marks = charts.system_marks(["a", "b", "c", "d"])
    assert len(set(marks["shape"]["range"])) == 4 and len(set(marks["color"]["range"])) == 4


def test_thirty_systems_get_distinct_marks():
    systems = [f"s{i}" for i in range(30)]
    marks = charts.system_marks(systems)
    combos = set(zip(marks["color"]["range"], marks["shape"]["range"]))
    assert len(combos) == 30
    assert marks["color"]["domain"] == systems


def test_forest_plot_has_a_chance_line_per_metric():
    values = {s: {"accuracy": (v, v - 0.1, v + 0.1)} for s, v in (("a", 0.8), ("b", 0.6))}
    spec = charts.metric_spec(["a", "b"], ["accuracy"], ["Acc"], values, {"accuracy": 0.5})
    rules = [layer for layer in spec["spec"]["layer"] if layer["encoding"]["x"].get("field") == "chance"]
    assert len(rules) == 1 and rules[0]["mark"]["strokeDash"]
    assert {row["chance"] for row in spec["data"]["values"]} == {50.0}


def test_bias_heatmap_prints_the_quantity_its_colour_shows():
    spec = charts.bias_spec(["x", "y"], ["a", "b"], (0.25, 0.75), {"a": (0.5, 0.5), "b": (0.25, 0.75)})
    layers = spec["vconcat"][1]["layer"]
    assert layers[0]["encoding"]["color"]["field"] == layers[1]["encoding"]["text"]["field"] == "diff"
    values = {(c["system"], c["label"]): c["diff"] for c in spec["vconcat"][1]["data"]["values"]}
    assert values[("a", "x")] == 25.0 and values[("b", "y")] == 0.0


def test_confusion_small_multiples_name_the_classes_once_per_row_and_column():
    """7 matrices in 3 columns: gold names on the left matrix of each row, predicted names under the lowest matrix of
    each column (the last row's, and those above its 2 empty slots)."""
    matrices = {f"s{i}": [[3, 1, 0, 0], [2, 4, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]] for i in range(7)}
    spec = charts.confusion_grid_spec(["0", "1", "2", "3"], matrices)
    assert spec["columns"] == 3 and len(spec["concat"]) == 7
    axes = [chart["layer"][0]["encoding"] for chart in spec["concat"]]
    assert [i for i, e in enumerate(axes) if e["y"]["axis"]["labels"]] == [0, 3, 6]
    assert [i for i, e in enumerate(axes) if e["x"]["axis"]["labels"]] == [4, 5, 6]


def test_long_tables_may_break_and_short_ones_stay_whole():
    cell = report_model.Cell(0.5, "score", low=0.4, high=0.6)
    rows = tuple(report_model.Row(f"s{i}", (cell,)) for i in range(12))
    long = report_model.Table("t", "caption", "System", (report_model.Column("Acc"),), rows)
    assert long.lines == 24 and not long.compact
    assert report_model.Table("t", "c", "System", (report_model.Column("Acc"),), rows, inline_ci=True).compact
    wordy = tuple(report_model.Row(f"p{i}", (report_model.Cell("x" * 100),)) for i in range(8))
    assert not report_model.Table("t", "c", "Pair", (report_model.Column("why"),), wordy).compact


def test_witness_text_names_classes_and_defines_omega():
    import numpy as np

    from auditor.analyses.properties import Witness

    text = "one item of gold class 1 moved from predicted 0 to predicted 1 (an error corrected)"
    own = Witness(text, np.array([[2, 0], [1, 3]]), None, 0.5, None, system="sysA")
    assert property_section._witness_text(own, ["NEG", "POS"]) == (
        "on sysA's confusion matrix: one item of gold class “POS” moved from predicted “NEG” to predicted “POS” "
        "(an error corrected)")
    synthetic = Witness(text, np.array([[0, 1], [2, 0]]), None, 0.5, None)
    assert property_section._witness_text(synthetic, ["NEG", "POS"]).endswith(
        "; C = [0 1 / 2 0]")  # the orientation is said once, in the witness table's caption
    scores = Witness("one error added: the score moves from 0.333333 to 0.3333339", np.array([[1, 0], [0, 1]]),
                     None, 0.333333, 0.3333339)
    assert "from 33.3333 to 33.3334" in property_section._witness_text(scores)  # ×100, as many decimals as differ
    chance = Witness("k=2: a predictor that ignores its input scores 0.9 > ω(k) = 1/2", np.array([[9, 0], [1, 0]]),
                     None, 0.9, None)
    assert "ω(k) = 1/k of Opitz 2024 §3.5, k = 2 classes" in property_section._witness_text(chance)


def test_tables_with_a_column_per_system_turn_to_a_row_per_system_beyond_sixteen():
    """SemEval-2018 Task 12 has 23 systems: the bias and per-class tables must fit the width."""
    gold = ["x"] * 6 + ["y"] * 4
    systems = {f"team-{i:02d}": ["x"] * (6 - i % 3) + ["y"] * (4 + i % 3) for i in range(23)}
    result = auditor.audit(gold, systems, bootstrap=0)
    model = report.build(result, figures=False)
    order = result.to_json()["verdict"]["order"]
    assert order != list(systems)  # ordered by the primary metric, not by input
    for table_id in ("table-bias", "table-class-f1", "table-class-recall", "table-class-precision"):
        table = next(b for s in model.sections for b in s.blocks if getattr(b, "id", "") == table_id)
        assert [c.label for c in table.columns] == ["x", "y"], table_id
        assert [r.header for r in table.rows if r.header.startswith("team-")] == order, table_id
    bias = next(b for s in model.sections for b in s.blocks if getattr(b, "id", "") == "table-bias")
    assert [r.header for r in bias.rows[:2]] == ["Support", "Prevalence"]
    assert [c.value for c in bias.rows[0].cells] == [6, 4]


def test_cli_alpha_reaches_every_caption_of_every_format(tmp_path, germeval_dir):
    """`auditor report ... --alpha 0.1 --bootstrap 50`: 90% in the captions of report.html,
    summary.md and tables.tex, and no 95% anywhere but as the 90% interval's upper percentile."""
    from click.testing import CliRunner

    from auditor.cli import cli

    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["report", str(germeval_dir / "gold.tsv"),
                                      *map(str, sorted((germeval_dir / "systems").glob("*.tsv"))),
                                      "-o", str(out), "--alpha", "0.1", "--bootstrap", "50",
                                      "--format", "html,md,tex,json", "--quiet"])
    assert result.exit_code == 0, result.output
    for name, least in (("report.html", 3), ("summary.md", 1), ("tables.tex", 3)):
        text = (out / name).read_text(encoding="utf-8").replace("[5%, 95%]", "")
        assert "95%" not in text and "95\\%" not in text, name
        assert text.count("90%") + text.count("90\\%") >= least, name
    document = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    assert document["options"]["alpha"] == 0.1 and "90%" in document["chance"]["method"]["range"]
