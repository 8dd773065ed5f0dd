"""``auditor plan`` on the command line: modes, JSON against its schema, bad input (issue 24)."""
from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
from click.testing import CliRunner

from auditor.cli import cli

SCHEMA = json.loads((resources.files("auditor") / "plan.schema.json").read_text(encoding="utf-8"))


def run(*args):
    return CliRunner().invoke(cli, ["plan", *args], standalone_mode=True)


def plan_json(*args):
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    jsonschema.validate(document, SCHEMA)
    return document


def test_mode_one_json_has_the_issue_keys_and_validates():
    document = plan_json("--items", "1000", "--accuracy", "0.70", "--difference", "0.02")
    assert document["schema"] == "auditor-plan/1" and document["mode"] == "accuracy"
    assert document["power"] == pytest.approx(0.12, abs=0.01)
    assert document["inputs"]["agreement_given"] is False and "conservative" in document["inputs"]["agreement_note"]
    for key in ("type_s", "type_m", "detectable_difference", "items_needed"):
        assert document[key] is not None


def test_mode_one_terminal_table_says_the_conservative_case():
    result = run("--items", "1000", "--accuracy", "0.70", "--difference", "0.02")
    assert result.exit_code == 0
    assert "smallest possible" in result.output and "power" in result.output


def test_mode_three_json_has_the_curves():
    document = plan_json("--predictive-power", "--prevalence", "a=0.7,b=0.2,c=0.1")
    curve = document["predictive_power"]["informedness"]
    assert curve["value"] == pytest.approx(curve["x"], abs=1e-12)
    assert "expected confusion matrix" in document["shown"]


def test_mode_three_from_a_gold_file(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n1\ta\n2\ta\n3\ta\n4\tb\n", encoding="utf-8")
    document = plan_json("--predictive-power", "--prevalence-from", str(gold), "--simulate", "50", "--draws", "20")
    assert document["inputs"]["prevalence"] == {"a": 0.75, "b": 0.25}
    assert document["simulation"]["items"] == 50


@pytest.mark.parametrize("args, message", [
    (["--items", "0", "--accuracy", "0.7", "--difference", "0.02"], "--items"),
    (["--items", "100", "--accuracy", "1.5", "--difference", "0.02"], "--accuracy"),
    (["--items", "100", "--accuracy", "0.7", "--difference", "0.05", "--agreement", "0.97"], "discordant share"),
    (["--items", "100", "--accuracy", "0.7", "--difference", "0.02", "--agreement", "0.1"], "allow an agreement"),
    (["--items", "100", "--accuracy", "0.7"], "missing --difference"),
    (["--predictive-power", "--prevalence", "a=0.7,b=0.6"], "sum to 1"),
    (["--predictive-power", "--prevalence", "a=1.7,b=-0.7"], "--prevalence"),
    (["--predictive-power", "--prevalence", "a=0.5,b=0.5", "--accuracy", "0.7"], "--accuracy"),
    (["--predictive-power"], "exactly one of"),
])
def test_bad_input_is_one_clear_error_exit_2_and_no_output(args, message, tmp_path):
    out = tmp_path / "out"
    result = run(*args, "-o", str(out))
    assert result.exit_code == 2, result.output
    assert message in result.output and "auditor: error:" in result.output
    assert not out.exists()


def test_mode_two_from_the_example_pilot_validates(germeval_dir):
    document = plan_json(str(germeval_dir / "gold.tsv"), str(germeval_dir / "systems" / "word-logreg.tsv"),
                         str(germeval_dir / "systems" / "word-nb.tsv"), "--items", "1000", "--simulations", "20",
                         "--rounds", "50")
    assert document["mode"] == "pilot"
    pair = document["pairs"][0]
    assert {pair["a"], pair["b"]} == {"word-logreg", "word-nb"}
    assert 0 <= pair["metrics"]["accuracy"]["power"] <= 1
    assert set(document["rank_stability"]) == {"p_top_stays", "expected_kendall_tau"}


def test_mode_two_needs_items_and_refuses_mode_one_options(germeval_dir):
    base = [str(germeval_dir / "gold.tsv"), str(germeval_dir / "systems" / "word-nb.tsv"),
            str(germeval_dir / "systems" / "char-svm.tsv")]
    assert "--items" in run(*base).output
    result = run(*base, "--items", "100", "--accuracy", "0.7")
    assert result.exit_code == 2 and "--accuracy" in result.output


def test_the_readme_planning_commands_work(germeval_dir, tmp_path, monkeypatch):
    """Run where ``auditor example germeval2018 -o germeval2018`` would have written its folder."""
    import re
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    (tmp_path / "germeval2018").symlink_to(germeval_dir, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    section = readme.split("## Planning a test set", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in section.splitlines() if line.startswith("auditor plan")]
    assert len(commands) == 3
    for line in commands:
        for variant in (re.sub(r"\s*\[[^\]]*\]", "", line), line.replace("[", "").replace("]", "")):
            result = CliRunner().invoke(cli, shlex.split(variant)[1:])
            assert result.exit_code == 0, (variant, result.output)


def test_installed_console_script_plans_and_fails_with_exit_2():
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    beside_python = Path(sys.executable).parent / "auditor"
    executable = str(beside_python) if beside_python.exists() else shutil.which("auditor")
    if executable is None:
        pytest.skip("console script not installed")
    completed = subprocess.run([executable, "plan", "--items", "500", "--accuracy", "0.7", "--difference", "0.02",
                                "--agreement", "0.975", "--json"], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["items_needed"] == 503
    failed = subprocess.run([executable, "plan", "--items", "500", "--accuracy", "0.7", "--difference", "0.5",
                             "--agreement", "0.9"], capture_output=True, text=True, timeout=120)
    assert failed.returncode == 2 and failed.stderr.count("auditor: error:") == 1 and not failed.stdout
