"""Every option error and every plugin failure is one ``auditor: error:`` line, exit 2, no traceback."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor import audit
from auditor.cli import cli
from auditor.errors import UsageError

GOLD = "id\tlabel\n1\tpos\n2\tneg\n3\tpos\n4\tneg\n5\tpos\n"
SYSTEM = "id\tlabel\n1\tpos\n2\tpos\n3\tpos\n4\tneg\n5\tneg\n"


@pytest.fixture
def files(write):
    return [write("gold.tsv", GOLD), write("sys.tsv", SYSTEM)]


def run(arguments, **kwargs):
    return CliRunner().invoke(cli, arguments, **kwargs)


def assert_one_error_line(result, *fragments, code=2):
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("auditor: error: "), lines[0]
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize("option, value, fragments", [
    ("--seed", "-1", ["--seed", "integer from 0"]),
    ("--seed", str(2**64), ["--seed", "integer from 0"]),
    ("--alpha", "nan", ["--alpha", "strictly between 0 and 1", "nan"]),
    ("--alpha", "0", ["--alpha", "strictly between 0 and 1"]),
    ("--alpha", "1", ["--alpha", "strictly between 0 and 1"]),
    ("--alpha", "1.5", ["--alpha", "strictly between 0 and 1"]),
    ("--alpha", "-inf", ["--alpha", "strictly between 0 and 1"]),
    ("--alpha", "abc", ["--alpha", "not a valid float"]),
    ("--deployment-prevalence", "pos=inf", ["--deployment-prevalence", "'pos'", "finite number >= 0", "inf"]),
    ("--deployment-prevalence", "pos=nan,neg=1", ["--deployment-prevalence", "finite number >= 0"]),
    ("--deployment-prevalence", "pos=0,neg=0", ["--deployment-prevalence", "all 0"]),
    ("--deployment-prevalence", "pos", ["--deployment-prevalence entry 1", "expected 'label=share'"]),
    ("--deployment-prevalence", "pos=0.5,pos=0.5", ["--deployment-prevalence entry 2", "given twice"]),
    ("--deployment-prevalence", "maybe=1", ["--deployment-prevalence", "'maybe' not in the label set"]),
    ("--training-prevalence", "pos=0.5", ["--training-prevalence", "sum to 1, found 0.5"]),
    ("--training-prevalence", "pos=0.7,neg=0.7", ["--training-prevalence", "sum to 1, found 1.4"]),
    ("--training-prevalence", "pos=1.5,neg=-0.5", ["--training-prevalence entry 2", "finite number >= 0", "-0.5"]),
    ("--training-prevalence", "pos=0.5,maybe=0.5", ["--training-prevalence", "'maybe' not in the label set"]),
    ("--training-prevalence", "pos=half,neg=0.5", ["--training-prevalence entry 1", "must be a number", "half"]),
    ("--correction", "bonferroni", ["--correction", "bonferroni"]),
    ("--bootstrap", "-5", ["--bootstrap"]),
])
def test_option_errors_are_one_line_naming_the_option(files, option, value, fragments):
    result = run(["score", *files, "--bootstrap", "0", "--quiet", option, value])
    assert_one_error_line(result, *fragments)


def test_prevalence_given_as_a_directory_is_refused(files, tmp_path):
    result = run(["score", *files, "--bootstrap", "0", "--deployment-prevalence", str(tmp_path)])
    assert_one_error_line(result, "--deployment-prevalence", "not a regular file")


def test_prevalence_file_that_is_not_utf8_is_refused_with_its_line(files, write):
    path = write("shares.tsv", b"pos\t0.5\nn\xffg\t0.5\n")
    result = run(["score", *files, "--bootstrap", "0", "--training-prevalence", path])
    assert_one_error_line(result, "--training-prevalence", "shares.tsv line 2", "not UTF-8")


def test_prevalence_file_is_read(files, write):
    path = write("shares.tsv", "# deployment shares\npos\t0.25\nneg\t0.75\n")
    result = run(["score", *files, "--bootstrap", "0", "--json", "--deployment-prevalence", path])
    assert result.exit_code == 0, result.output
    import json

    assert json.loads(result.stdout)["deployment"]["target"] == {"neg": 0.75, "pos": 0.25}


def test_the_python_api_checks_the_same_options():
    gold, system = ["a", "b", "a"], ["a", "a", "b"]
    with pytest.raises(UsageError, match="--seed"):
        audit(gold, {"s": system}, bootstrap=0, seed=-1)
    with pytest.raises(UsageError, match="--alpha"):
        audit(gold, {"s": system}, bootstrap=0, alpha=float("nan"))
    with pytest.raises(UsageError, match="'c' not in the label set"):
        audit(gold, {"s": system}, bootstrap=0, deployment_prevalence={"a": 0.5, "c": 0.5})
    with pytest.raises(UsageError, match="finite"):
        audit(gold, {"s": system}, bootstrap=0, deployment_prevalence={"a": float("inf")})


def test_an_unexpected_exception_is_one_line_and_exit_1(files, monkeypatch):
    import auditor.pipeline

    def broken(*args, **kwargs):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(auditor.pipeline, "audit", broken)
    monkeypatch.delenv("AUDITOR_DEBUG", raising=False)
    result = run(["score", *files, "--bootstrap", "0"])
    assert_one_error_line(result, "unexpected ZeroDivisionError: simulated bug", "please report", code=1)


def test_unexpected_exception_in_report_leaves_no_new_outdir(files, tmp_path, monkeypatch):
    import auditor.formats.render

    def broken(*args, **kwargs):
        raise RuntimeError("simulated renderer bug")

    monkeypatch.setattr(auditor.formats.render, "render_md", broken)
    outdir = tmp_path / "new-report"
    result = run(["report", *files, "--bootstrap", "0", "-o", str(outdir), "--format", "json,md"])
    assert_one_error_line(result, "simulated renderer bug", code=1)
    assert not outdir.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.tsv", "sys.tsv"]


# ---------------------------------------------------------------------------------- plugins

PLUGIN_FAILURES = {
    "raises_plugin": ("import math\nraise RuntimeError('my plugin is misconfigured')\n",
                      ["--plugin raises_plugin", "raises_plugin.py line 2",
                       "RuntimeError: my plugin is misconfigured"]),
    "syntax_plugin": ("def broken(:\n    pass\n",
                      ["--plugin syntax_plugin", "syntax error", "syntax_plugin.py line 1"]),
    "exits_plugin": ("import sys\nsys.exit(7)\n",
                     ["--plugin exits_plugin", "called sys.exit(7)", "exits_plugin.py line 2"]),
    "missing_dependency_plugin": ("import no_such_dependency_xyz\n",
                                  ["--plugin missing_dependency_plugin", "failed while importing",
                                   "No module named 'no_such_dependency_xyz'"]),
}


@pytest.mark.parametrize("module", sorted(PLUGIN_FAILURES))
def test_plugin_failures_are_reported_as_the_plugins(files, tmp_path, monkeypatch, module):
    source, fragments = PLUGIN_FAILURES[module]
    (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    by_name = run(["score", *files, "--bootstrap", "0", "--plugin", module])
    assert_one_error_line(by_name, *fragments)
    assert sys.path == before and module not in sys.modules
    by_path = run(["score", *files, "--bootstrap", "0", "--plugin", str(tmp_path / f"{module}.py")])
    assert_one_error_line(by_path, *fragments[1:])


def test_an_absent_plugin_module_names_where_it_looked(files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(["score", *files, "--bootstrap", "0", "--plugin", "absent_plugin_xyz"])
    assert_one_error_line(result, "--plugin absent_plugin_xyz", "no module named 'absent_plugin_xyz'",
                          "working directory")


def test_plugin_importable_by_name_from_the_working_directory(files, tmp_path, monkeypatch):
    """examples/plugins/my_metric.py's docstring: ``--plugin my_metric`` run from its directory."""
    plugins = Path(__file__).resolve().parent.parent / "examples" / "plugins"
    shutil.copy(plugins / "my_metric.py", tmp_path / "cwd_worst_recall.py")
    source = (tmp_path / "cwd_worst_recall.py").read_text()
    (tmp_path / "cwd_worst_recall.py").write_text(source.replace('id="worst_class_recall"', 'id="cwd_worst_recall"'))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    result = run(["score", *files, "--bootstrap", "0", "--json", "--plugin", "cwd_worst_recall"])
    assert result.exit_code == 0, result.output
    import json

    # recalls: pos 2/3 (items 1, 3 right; 5 wrong), neg 1/2 (item 4 right, 2 wrong) -> min = 1/2
    assert json.loads(result.stdout)["systems"]["sys"]["metrics"]["cwd_worst_recall"]["value"] == 0.5


def console_script() -> str:
    beside_python = Path(sys.executable).parent / "auditor"
    executable = str(beside_python) if beside_python.exists() else shutil.which("auditor")
    if executable is None:
        pytest.skip("console script not installed")
    return executable


def test_console_script_option_error_and_plugin_by_name(files, tmp_path):
    """Through the installed console script: its sys.path[0] is the script's directory, not the
    working directory, so this is the case the PYTHONPATH complaint was about."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "AUDITOR_DEBUG")}
    bad = subprocess.run([console_script(), "score", *files, "--alpha", "nan"], capture_output=True, text=True,
                         timeout=120, env=environment)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        "auditor: error: --alpha: expected a number strictly between 0 and 1 (e.g. 0.05), found nan"]
    (tmp_path / "exits_in_script.py").write_text("import sys\nsys.exit(7)\n")
    plugin = subprocess.run([console_script(), "score", *files, "--bootstrap", "0", "--plugin", "exits_in_script"],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path, env=environment)
    assert plugin.returncode == 2, plugin.stderr
    assert plugin.stderr.startswith("auditor: error: --plugin exits_in_script: the plugin called sys.exit(7)")
    assert len(plugin.stderr.strip().splitlines()) == 1
    shutil.copy(Path(__file__).resolve().parent.parent / "examples" / "plugins" / "my_metric.py", tmp_path)
    good = subprocess.run([console_script(), "score", *files, "--bootstrap", "0", "--plugin", "my_metric",
                           "-m", "worst_class_recall"], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=environment)
    assert good.returncode == 0, good.stderr
    assert "50.0" in good.stdout or "0.5000" in good.stdout
