"""The command line, through click's CliRunner and once through the installed console script."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn import metrics as sk

from auditor.cli import cli


def germeval_arguments(folder: Path) -> list[str]:
    return [str(folder / "gold.tsv")] + [str(path) for path in sorted((folder / "systems").glob("*.tsv"))]


def read_tsv_labels(path: Path) -> list[str]:
    return [line.split("\t")[1] for line in path.read_text(encoding="utf-8").splitlines()[1:] if line]


@pytest.fixture(scope="module")
def germeval_json(germeval_dir) -> dict:
    result = CliRunner().invoke(cli, ["score", *germeval_arguments(germeval_dir), "--json", "--bootstrap",
                                      "0", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_score_json_has_the_documented_keys(germeval_json):
    assert germeval_json["schema"] == "auditor/3"
    assert germeval_json["signature"].startswith("auditor:0.1.0|gold:")
    assert germeval_json["labels"] == ["ABUSE", "INSULT", "OTHER", "PROFANITY"]
    assert germeval_json["n_items"] == 3532
    system = germeval_json["systems"]["word-logreg"]
    assert set(system) >= {"metrics", "per_class", "confusion"}
    assert set(system["metrics"]["macro_f1"]) >= {"value", "ci", "undefined"}
    assert np.asarray(system["confusion"]).sum() == 3532


def test_score_json_values_agree_with_scikit_learn(germeval_json, germeval_dir):
    """Each value recomputed from the files with scikit-learn (the independent source)."""
    gold = read_tsv_labels(germeval_dir / "gold.tsv")
    for path in sorted((germeval_dir / "systems").glob("*.tsv")):
        prediction = read_tsv_labels(path)
        metrics = germeval_json["systems"][path.stem]["metrics"]
        assert metrics["accuracy"]["value"] == pytest.approx(sk.accuracy_score(gold, prediction), abs=1e-12)
        assert metrics["macro_f1"]["value"] == pytest.approx(
            sk.f1_score(gold, prediction, average="macro", zero_division=0), abs=1e-12)
        assert metrics["weighted_f1"]["value"] == pytest.approx(
            sk.f1_score(gold, prediction, average="weighted", zero_division=0), abs=1e-12)
        assert metrics["kappa"]["value"] == pytest.approx(sk.cohen_kappa_score(gold, prediction), abs=1e-12)


def test_majority_system_mcc_is_null_with_a_reason(germeval_json):
    """The majority-class system predicts one class: MCC is 0/0 (scikit-learn shows 0)."""
    mcc = germeval_json["systems"]["majority"]["metrics"]["mcc"]
    assert mcc["value"] is None
    assert "single class" in mcc["undefined"]
    precision = germeval_json["systems"]["majority"]["metrics"]["macro_precision"]
    assert precision["value"] is not None and "never predicted" in precision["convention"]
    assert germeval_json["systems"]["majority"]["per_class"]["ABUSE"]["precision"] is None


def test_score_table_marks_undefined_values(germeval_dir):
    result = CliRunner().invoke(cli, ["score", *germeval_arguments(germeval_dir), "--bootstrap", "0", "--quiet", "-m",
                                      "mcc", "-m", "macro F1"])
    assert result.exit_code == 0, result.output
    assert "majority" in result.stdout and "—" in result.stdout
    assert "majority/mcc: undefined: the system predicts a single class" in result.stdout
    assert "signature: auditor:" in result.stdout


def test_metrics_listing_and_detail():
    runner = CliRunner()
    listing = runner.invoke(cli, ["metrics"])
    assert listing.exit_code == 0 and "macro_f1_hm" in listing.stdout
    detail = runner.invoke(cli, ["metrics", "balanced accuracy"])
    assert detail.exit_code == 0 and "macro_recall" in detail.stdout and r"\frac" in detail.stdout


def test_unknown_metric_is_one_clear_error():
    result = CliRunner().invoke(cli, ["metrics", "no-such-metric"])
    assert result.exit_code == 2
    assert "auditor: error: unknown metric 'no-such-metric'" in result.stderr


def test_missing_file_exits_non_zero_naming_it(tmp_path):
    (tmp_path / "majority.tsv").write_text("id\tlabel\n1\tOTHER\n2\tOTHER\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["score", str(tmp_path / "absent.tsv"), str(tmp_path / "majority.tsv")])
    assert result.exit_code != 0
    assert "absent.tsv" in result.stderr


def test_installed_console_script_runs(germeval_dir):
    beside_python = Path(sys.executable).parent / "auditor"
    executable = str(beside_python) if beside_python.exists() else shutil.which("auditor")
    if executable is None:
        pytest.skip("console script not installed")
    completed = subprocess.run([executable, "score", *germeval_arguments(germeval_dir), "--bootstrap", "0", "--quiet",
                                "-m", "accuracy"],
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "word-logreg" in completed.stdout


def test_semeval_submissions_are_named_from_metadata_and_duplicates_refused(semeval2018_dir):
    submissions = semeval2018_dir / "submissions"
    gold = str(semeval2018_dir / "gold" / "truth.txt")
    runner = CliRunner()
    result = runner.invoke(cli, ["score", gold, str(submissions / "437952.txt"), "--json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    # metadata-public.xml: submissionID="437952" systemName="GIST"; README table: GIST 0.712
    assert round(json.loads(result.stdout)["systems"]["GIST"]["metrics"]["accuracy"]["value"], 3) == 0.712
    twice = runner.invoke(cli, ["score", gold, f"A={submissions / '437952.txt'}", f"A={submissions / '437000.txt'}"])
    assert twice.exit_code == 2 and "both named 'A'" in twice.stderr


PLUGIN = '''
import numpy as np
from auditor import Metric, Properties, register

def worst_precision(stats):
    """min_i P_i over the labels averaged over."""
    return np.where(stats.active, stats.precision, np.inf).min(axis=-1)

register(Metric(id="test_worst_precision", name="Worst-class precision", function=worst_precision,
                formula=r"\\min_i P_i", uses=("precision",),
                properties=Properties(monotonicity=True, class_sensitivity=True, decomposability=False,
                                      prevalence_invariance=False, chance_correction="none",
                                      source="declared by the test")))
'''


def test_plugin_given_as_a_file_path_is_scored_and_signed(tmp_path, germeval_dir):
    plugin = tmp_path / "worst_precision_plugin.py"
    plugin.write_text(PLUGIN)
    result = CliRunner().invoke(cli, ["score", *germeval_arguments(germeval_dir), "--plugin", str(plugin), "--json",
                                      "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    # majority predicts OTHER only: precisions (ABUSE, INSULT, OTHER, PROFANITY) = (0, 0, 2330/3532, 0)
    assert document["systems"]["majority"]["metrics"]["test_worst_precision"]["value"] == 0.0
    assert document["signature"].endswith(f"plugins:{plugin}")
    missing = CliRunner().invoke(cli, ["score", *germeval_arguments(germeval_dir), "--plugin",
                                       str(tmp_path / "absent.py")])
    assert missing.exit_code == 2 and "absent.py: cannot import it" in missing.stderr


# ------------------------------------------------------------- a CLI in the style of the report


def small_files(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n" + "".join(f"{i}\t{'pos' if i % 3 else 'neg'}\n" for i in range(30)))
    system = tmp_path / "sys.tsv"
    system.write_text("id\tlabel\n" + "".join(f"{i}\t{'pos' if i % 4 else 'neg'}\n" for i in range(30)))
    return [str(gold), str(system)]


def test_score_prints_x100_with_intervals_as_the_report_does(tmp_path):
    result = CliRunner().invoke(cli, ["score", *small_files(tmp_path), "--bootstrap", "200", "--quiet", "-m",
                                      "accuracy", "--json"])
    document = json.loads(result.stdout)
    value = document["systems"]["sys"]["metrics"]["accuracy"]
    table = CliRunner().invoke(cli, ["score", *small_files(tmp_path), "--bootstrap", "200", "--quiet",
                                     "-m", "accuracy"])
    assert table.exit_code == 0, table.output
    # i = 0..29: gold neg at i % 3 == 0, predicted neg at i % 4 == 0; they disagree at 3, 6, 9, 15, 18, 21, 27
    # and 4, 8, 16, 20, 28 -> 18/30 right = 60.0 (×100, one decimal)
    assert value["value"] == pytest.approx(18 / 30)
    low, high = (f"{100 * bound:.1f}" for bound in value["ci"])
    assert f"60.0 [{low}, {high}]" in table.stdout
    assert "1 system, 30 items, 2 labels; scores ×100 as in the report" in table.stdout
    assert "95% percentile bootstrap interval (200 resamples)" in table.stdout
    off = CliRunner().invoke(cli, ["score", *small_files(tmp_path), "--bootstrap", "0", "--quiet", "-m", "accuracy"])
    assert "60.0" in off.stdout and "no intervals (--bootstrap 0: no random draws" in off.stdout
    assert [line for line in off.stdout.splitlines() if "60.0" in line and "[" not in line]


def test_metrics_listing_never_cuts_an_id_at_80_columns():
    from auditor.metrics.registry import REGISTRY

    result = CliRunner().invoke(cli, ["metrics"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    first_cells = {line.split()[0] for line in lines if line.strip()}
    assert {metric.id for metric in REGISTRY} <= first_cells
    assert "…" not in result.stdout


@pytest.mark.parametrize("name, suggested", [("f1", "macro_f1, class_f1"), ("kapa", "kappa"),
                                             ("macro recal", "macro_recall")])
def test_unknown_metric_suggests_close_names(name, suggested):
    result = CliRunner().invoke(cli, ["metrics", name])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"auditor: error: unknown metric {name!r}; did you mean {suggested}")
    score = CliRunner().invoke(cli, ["score", "no-such-gold.tsv", "sys.tsv", "-m", name])
    assert score.exit_code == 2 and f"did you mean {suggested}" in score.stderr  # before any file is read


def test_progress_names_the_step_that_runs(tmp_path, monkeypatch):
    """The rendering bar says "rendering report.pdf" while the PDF is made (it took 14 s at 4/7)."""
    import auditor.formats.render as renderers
    from auditor.progress import Progress

    seen = []

    class Recording(Progress):
        def __init__(self):
            super().__init__(enabled=False)

        def task(self, description, total):
            from contextlib import contextmanager

            @contextmanager
            def recording():
                def advance(steps=1, description=None):
                    if description:
                        seen.append(description)
                yield advance

            return recording()

    monkeypatch.setattr(renderers, "pdf_of", lambda html: seen.append("pdf is running") or b"%PDF")
    result = auditor_audit(small_files(tmp_path))
    renderers.render(result, tmp_path / "out", ("json", "pdf"), progress=Recording())
    assert seen.index("rendering report.pdf") == seen.index("pdf is running") - 1


def auditor_audit(files):
    import auditor

    return auditor.audit(files[0], {"sys": files[1]}, bootstrap=0)


def test_task_is_classification_by_default_and_listed_in_help():
    from click.testing import CliRunner

    from auditor.cli import cli

    result = CliRunner().invoke(cli, ["score", "--help"])
    assert result.exit_code == 0 and "--task" in result.output and "classification" in result.output
