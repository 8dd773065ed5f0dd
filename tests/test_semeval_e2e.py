"""End to end on real shared-task data (``../shared/data``, through the ``semeval2018_dir`` and ``germeval_dir``
fixtures): load and align every file as it was
published, and reproduce the organisers' numbers.

SemEval-2018 Task 12 (Habernal et al. 2018): the accuracy of each of the 22 ranked
submissions, rounded to 3 decimals, must equal the official results table in
``README.md`` of habernal/semeval2018-task12-results (the shared copy of that repository).
Accuracy is computed here with numpy directly, independently of the metric catalogue.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from auditor.io.load import read_labels
from auditor.io.semeval import semeval_names
from auditor.io.validate import align
from auditor.options import parse_system_argument

# The table's "Random baseline" is metadata-public.xml's systemName "Random bsl.".
TABLE_ALIASES = {"Random baseline": "Random bsl."}


def _published_table(readme: Path) -> dict[str, float]:
    """Team -> accuracy from the README's results block (``rank  name  accuracy``)."""
    block = readme.read_text(encoding="utf-8").split("Rank    Team/System  Accuracy")[1]
    block = block.split("```")[0]
    rows = re.findall(r"^\s*\d+\s+(.+?)\s+(0\.\d{3})\s*$", block, flags=re.MULTILINE)
    return {name: float(value) for name, value in rows}


@pytest.fixture
def semeval(semeval2018_dir):
    root = semeval2018_dir
    gold = read_labels(root / "gold" / "truth.txt")
    names = semeval_names(root / "submissions")
    systems = []
    for path in sorted((root / "submissions").glob("*.txt")):
        stem, file = parse_system_argument(str(path))
        systems.append((names.get(stem, stem), read_labels(file)))
    return root, gold, systems


def test_semeval2018_task12_loads_every_submission(semeval):
    _, gold, systems = semeval
    assert len(gold) == 444 and gold.ids is not None
    assert Counter(gold.labels.tolist()) == {"0": 214, "1": 230}
    assert len(systems) == 23
    table = align(gold, systems)
    assert table.n_items == 444 and len(table.systems) == 23
    for name, column in systems:
        assert len(column) == 444, name
        assert set(table.systems[name].tolist()) == {"0", "1"}, name


def test_semeval2018_task12_reproduces_published_accuracy(semeval):
    root, gold, systems = semeval
    published = _published_table(root / "README.md")
    assert len(published) == 22  # 21 teams + the random baseline; 436419 was withdrawn
    table = align(gold, systems)
    accuracy = {name: float(np.mean(table.gold == pred)) for name, pred in table.systems.items()}
    reproduced = {team: round(accuracy[TABLE_ALIASES.get(team, team)], 3) for team in published}
    assert reproduced == published
    # The withdrawn submission loads too; it is simply not ranked.
    assert "rgtjf (withdrawn)" in accuracy and "rgtjf (withdrawn)" not in published


def test_semeval2018_task12_alignment_is_by_id_not_by_line(semeval):
    # GIST (437952) is in gold order; TakeLab (438181) is shuffled. Aligning by line would
    # turn TakeLab's published 0.541 into chance level.
    _, gold, systems = semeval
    takelab = dict(systems)["TakeLab"]
    assert not np.array_equal(takelab.ids, gold.ids)
    assert round(float(np.mean(takelab.labels == gold.labels)), 3) != 0.541
    assert round(float(np.mean(align(gold, {"T": takelab}).systems["T"] == gold.labels)), 3) == 0.541


def test_germeval2018_counts(germeval_dir):
    root = germeval_dir
    gold = read_labels(root / "gold.tsv")
    systems = {path.stem: read_labels(path) for path in sorted((root / "systems").glob("*.tsv"))}
    assert len(systems) == 8
    table = align(gold, systems)
    assert table.n_items == 3532
    assert Counter(table.gold.tolist()) == {"OTHER": 2330, "ABUSE": 773, "INSULT": 381,
                                            "PROFANITY": 48}
    assert set(table.systems["majority"].tolist()) == {"OTHER"}
    assert round(float(np.mean(table.systems["majority"] == table.gold)), 3) == 0.660
    assert table.ids[:3].tolist() == ["1", "2", "3"]


def test_cli_score_json_reproduces_published_accuracy(semeval2018_dir):
    """``auditor score GOLD SYS... --json`` on the published files, through click's CliRunner."""
    cli_module = pytest.importorskip("auditor.cli")
    if "score" not in getattr(cli_module.cli, "commands", {}):
        pytest.skip("auditor.cli has no score command yet")
    import json

    from click.testing import CliRunner

    root = semeval2018_dir
    names = semeval_names(root / "submissions")
    published = _published_table(root / "README.md")
    files = sorted(str(path) for path in (root / "submissions").glob("*.txt"))
    result = CliRunner().invoke(cli_module.cli, ["score", str(root / "gold" / "truth.txt"), *files,
                                                 "--json", "--bootstrap", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    audit = json.loads(result.stdout)
    assert audit["n_items"] == 444 and len(audit["systems"]) == 23
    # the CLI names each submission by its team, from metadata-public.xml beside the files
    assert set(audit["systems"]) == set(names.values())
    by_name = {name: system["metrics"]["accuracy"]["value"] for name, system in audit["systems"].items()}
    assert {team: round(by_name[TABLE_ALIASES.get(team, team)], 3) for team in published} == published


def test_cli_reports_bad_input_once(semeval2018_dir, write):
    cli_module = pytest.importorskip("auditor.cli")
    if "score" not in getattr(cli_module.cli, "commands", {}):
        pytest.skip("auditor.cli has no score command yet")
    from click.testing import CliRunner

    gold = str(semeval2018_dir / "gold" / "truth.txt")
    bad = write("sys.txt", "18249360_112_A104V8NZIQFN2F\t1\n18249360_112_A104V8NZIQFN2F\t0\n")
    result = CliRunner().invoke(cli_module.cli, ["score", gold, bad, "--json", "--quiet"])
    assert result.exit_code == 2
    assert "sys.txt: duplicate id '18249360_112_A104V8NZIQFN2F' on lines 1 and 2" in result.output
    assert "Traceback" not in result.output
