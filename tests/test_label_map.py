"""``--label-map`` for single-label classification (issue 33): GermEval-2018's fine labels audited as its coarse task.

GermEval-2018's coarse task is OFFENSE against OTHER, where OFFENSE is the union of the fine task's ABUSE, INSULT and
PROFANITY (Wiegand et al. 2018, the data's README); the map below says so. The figures are checked against
scikit-learn on the labels mapped here with plain Python.
"""
from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.errors import InputError
from auditor.options import INTERVALS, AuditOptions
from auditor.pipeline import audit

COARSE = {"ABUSE": "OFFENSE", "INSULT": "OFFENSE", "PROFANITY": "OFFENSE", "OTHER": "OTHER"}
SYSTEMS = ("word-logreg", "char-svm-balanced", "majority")


def _labels(path) -> dict[str, str]:
    with open(path, encoding="utf-8") as stream:
        rows = list(csv.reader(stream, delimiter="\t"))
    return {row[0]: row[1] for row in rows[1:]}


@pytest.fixture(scope="module")
def coarse_map(tmp_path_factory):
    path = tmp_path_factory.mktemp("label-map") / "coarse.tsv"
    path.write_text("fine\tcoarse\n" + "".join(f"{label}\t{group}\n" for label, group in COARSE.items()),
                    encoding="utf-8")
    return path


def test_germeval_coarse_figures_equal_scikit_learn_on_the_mapped_labels(germeval_dir, coarse_map):
    metrics = pytest.importorskip("sklearn.metrics")
    result = audit(str(germeval_dir / "gold.tsv"), {name: str(germeval_dir / "systems" / f"{name}.tsv")
                                                     for name in SYSTEMS},
                   options=AuditOptions(bootstrap=0), analyses=(INTERVALS,), label_map=str(coarse_map))
    document = result.to_json()
    assert document["labels"] == ["OFFENSE", "OTHER"]
    assert document["options"]["label_map"] == COARSE
    assert result.signature.fields[-1][0] == "label_map"
    gold = _labels(germeval_dir / "gold.tsv")
    y = [COARSE[gold[i]] for i in gold]
    for name in SYSTEMS:
        predicted = _labels(germeval_dir / "systems" / f"{name}.tsv")
        p = [COARSE[predicted[i]] for i in gold]
        ours = document["systems"][name]["metrics"]
        assert ours["accuracy"]["value"] == pytest.approx(metrics.accuracy_score(y, p), abs=1e-12)
        assert ours["macro_f1"]["value"] == pytest.approx(
            metrics.f1_score(y, p, average="macro", zero_division=0), abs=1e-12)
        assert ours["kappa"]["value"] == pytest.approx(metrics.cohen_kappa_score(y, p), abs=1e-12)
        if name != "majority":  # a constant prediction: MCC is 0/0, recorded as undefined
            assert ours["mcc"]["value"] == pytest.approx(metrics.matthews_corrcoef(y, p), abs=1e-12)
        f1 = metrics.f1_score(y, p, average=None, labels=["OFFENSE", "OTHER"], zero_division=0)
        for label, value in zip(["OFFENSE", "OTHER"], f1):
            assert document["systems"][name]["per_class"][label]["f1"] == pytest.approx(value, abs=1e-12)
            assert document["systems"][name]["per_class"][label]["support"] == y.count(label)


def test_a_map_missing_a_label_is_one_error_naming_the_map_and_the_label(germeval_dir, tmp_path):
    partial = tmp_path / "partial.tsv"
    partial.write_text("ABUSE\tOFFENSE\nINSULT\tOFFENSE\nOTHER\tOTHER\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"partial\.tsv: no group for label 'PROFANITY' \(first at .*gold\.tsv "
                                         r"line \d+\); expected a line `label<TAB>group` for every label"):
        audit(str(germeval_dir / "gold.tsv"), {"m": str(germeval_dir / "systems" / "majority.tsv")},
              options=AuditOptions(bootstrap=0), label_map=str(partial))
    out = tmp_path / "out"
    run = CliRunner().invoke(cli, ["report", str(germeval_dir / "gold.tsv"), str(germeval_dir / "systems" /
                                   "majority.tsv"), "--label-map", str(partial), "-o", str(out), "--format", "json"])
    assert run.exit_code != 0 and "no group for label 'PROFANITY'" in run.output
    assert not out.exists() or not any(out.iterdir())


def test_ordinal_refuses_a_label_map_saying_why(write, coarse_map):
    gold = write("gold.tsv", "id\tlevel\n1\tA1\n2\tB1\n")
    run = CliRunner().invoke(cli, ["score", "--task", "ordinal", gold, gold, "--label-map", str(coarse_map)])
    assert run.exit_code == 2
    assert "--label-map is for classification and multilabel" in run.output and "in their order" in run.output


def test_multilabel_keeps_its_label_map_on_the_command_line(write):
    gold = write("gold.tsv", "id\tlabels\n1\ta,b\n2\tc\n3\t\n")
    system = write("s.tsv", "id\tlabels\n1\ta\n2\tb\n3\tc\n")
    mapping = write("map.tsv", "label\tgroup\na\tx\nb\tx\nc\ty\n")
    run = CliRunner().invoke(cli, ["score", "--task", "multilabel", "--json", "--bootstrap", "0", gold, system,
                                   "--label-map", mapping])
    assert run.exit_code == 0, run.output
    document = json.loads(run.output)
    assert document["labels"] == ["x", "y"] and document["options"]["label_map"] == {"a": "x", "b": "x", "c": "y"}
