"""Common tests over every task kind of :data:`auditor.tasks.TASKS` (scikit-learn's ``test_common.py`` style):
a task is complete when it passes these by being registered (docs/architecture.md, "Adding a task kind").

Each task gets a small fixture (a few items, written here by hand, no real data); its audit runs through the
command line; its JSON is valid against the schema and writes the one record (``task``, ``sources`` with the
SHA-256 of each file as stored, ``options``, ``warnings``, ``signature``, every metric's ``value``, ``ci``,
``undefined``, ``convention``); its report model is built and every bold score cell is a best-set member; its
terminal table prints; its package is in the wheel's package list.
"""
from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.tasks import TASKS, task_module

LABELS = "a b c a b c a a b c b a".split()
SENTENCES = [[("Ann", "B-PER"), ("Lee", "I-PER"), ("met", "O")], [("in", "O"), ("Rome", "B-LOC")],
             [("IBM", "B-ORG"), ("sued", "O"), ("Bob", "B-PER")], [("at", "O"), ("noon", "O")]]
SEGMENTS = ["the cat sat on the mat", "a dog runs in the park", "we like green tea", "rain falls on the roof",
            "she reads a long book", "the sun is warm today"]


def _tagged(sentences) -> str:
    return "\n\n".join("\n".join(f"{word}\t{tag}" for word, tag in sentence) for sentence in sentences) + "\n"


def _classification(folder: Path) -> tuple[list[str], list[str]]:
    (folder / "gold.tsv").write_text("id\tlabel\n" + "".join(f"i{n}\t{x}\n" for n, x in enumerate(LABELS)))
    shifted = {"A": LABELS[1:] + LABELS[:1], "B": LABELS[:6] + ["a"] * 6}
    for name, labels in shifted.items():
        (folder / f"{name}.tsv").write_text("id\tlabel\n" + "".join(f"i{n}\t{x}\n" for n, x in enumerate(labels)))
    return [str(folder / "gold.tsv"), str(folder / "A.tsv"), str(folder / "B.tsv")], []


def _tagging(folder: Path) -> tuple[list[str], list[str]]:
    (folder / "gold.txt").write_text(_tagged(SENTENCES))
    (folder / "A.txt").write_text(_tagged([[(w, "O" if t == "B-LOC" else t) for w, t in s] for s in SENTENCES]))
    (folder / "B.txt").write_text(_tagged([[(w, t.replace("PER", "ORG")) for w, t in s] for s in SENTENCES]))
    return [str(folder / "gold.txt"), str(folder / "A.txt"), str(folder / "B.txt")], []


def _translation(folder: Path) -> tuple[list[str], list[str]]:
    (folder / "ref.txt").write_text("\n".join(SEGMENTS) + "\n")
    (folder / "A.txt").write_text("\n".join(s.replace("the", "a") for s in SEGMENTS) + "\n")
    (folder / "B.txt").write_text("\n".join(" ".join(s.split()[:-1]) for s in SEGMENTS) + "\n")
    return [str(folder / "ref.txt"), str(folder / "A.txt"), str(folder / "B.txt")], []


def _multilabel(folder: Path) -> tuple[list[str], list[str]]:
    gold = ["x,y", "y", "z", "x", "x,z", "y,z", "x", "z"]
    systems = {"A": ["x", "y", "z", "x", "x", "y", "x,y", "z"], "B": ["x,y", "y,z", "z", "y", "x,z", "y", "x", "x"]}
    (folder / "gold.tsv").write_text("id\tlabels\n" + "".join(f"i{n}\t{x}\n" for n, x in enumerate(gold)))
    for name, sets in systems.items():
        (folder / f"{name}.tsv").write_text("id\tlabels\n" + "".join(f"i{n}\t{x}\n" for n, x in enumerate(sets)))
    return [str(folder / "gold.tsv"), str(folder / "A.tsv"), str(folder / "B.tsv")], []


def _ordinal(folder: Path) -> tuple[list[str], list[str]]:
    gold = "1 2 3 2 3 1 2 2 3 1".split()
    systems = {"A": "1 2 2 2 3 2 3 2 3 1".split(), "B": "2 2 3 3 3 1 1 2 2 1".split()}
    (folder / "gold.tsv").write_text("id\tlevel\n" + "".join(f"i{n}\t{x}\n" for n, x in enumerate(gold)))
    for name, levels in systems.items():
        (folder / f"{name}.tsv").write_text("id\tlevel\n" + "".join(f"i{n}\t{x}\n" for n, x in enumerate(levels)))
    return [str(folder / "gold.tsv"), str(folder / "A.tsv"), str(folder / "B.tsv")], []


#: A small fixture per task kind: folder -> (GOLD and SYSTEM paths, the task's own options).
FIXTURES = {"classification": _classification, "tagging": _tagging, "translation": _translation,
            "multilabel": _multilabel, "ordinal": _ordinal}


def test_every_task_has_a_fixture_here():
    assert set(FIXTURES) == set(TASKS), "a task kind registered without a common-test fixture (add it to FIXTURES)"


@pytest.fixture(scope="module", params=sorted(TASKS))
def audited(request, tmp_path_factory):
    """(task, paths, audit.json) of the task's fixture, audited through ``auditor score --json``."""
    task = request.param
    folder = tmp_path_factory.mktemp(task)
    paths, own = FIXTURES[task](folder)
    result = CliRunner().invoke(cli, ["score", "--json", "--quiet", "--task", task, "--bootstrap", "60", *own,
                                      *paths])
    assert result.exit_code == 0, result.output
    return task, paths, json.loads(result.stdout)


def test_the_json_is_the_one_record_and_valid(audited):
    task, paths, document = audited
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text())
    jsonschema.validate(document, schema)
    assert document["schema"] == "auditor/3" and document["task"] == task
    for key in ("sources", "options", "warnings", "signature", "systems", "statistics", "rankings",
                "rank_disagreement"):
        assert key in document, key
    gold = hashlib.sha256(Path(paths[0]).read_bytes()).hexdigest()
    assert document["sources"]["gold"]["sha256"] == gold and f"{gold[:12]}" in document["signature"]
    for system in document["systems"].values():
        for entry in system["metrics"].values():
            assert {"value", "ci", "undefined", "convention"} <= set(entry)


def test_the_statistics_are_one_shape(audited):
    """Every task's ``statistics`` says how it resampled (``B``, ``seed``, ``alpha``, ``correction``, ``method``,
    ``interval``, ``rank_rule``) and writes the ranks as ``{p_rank, p_best}`` per system and ``p_win``."""
    task, _, document = audited
    statistics = document["statistics"]
    for key in ("B", "seed", "alpha", "correction", "method", "interval", "rank_rule", "ranks", "p_win", "best_set"):
        assert key in statistics, (task, key)
    for metric, systems in statistics["ranks"].items():
        for entry in systems.values():
            assert set(entry) == {"p_rank", "p_best"} and entry["p_best"] == entry["p_rank"][0], (task, metric)


def test_best_sets_are_tested_and_hold_their_top(audited):
    _, _, document = audited
    best = document["statistics"].get("best_set", {})
    assert best, "no best set: bold and the verdict need one for every tested metric"
    for metric, entry in best.items():
        assert entry["top"] in entry["systems"] and set(entry["systems"]) <= set(document["systems"]), metric


def test_the_report_is_built_and_every_bold_score_is_in_a_best_set(audited, tmp_path):
    task, paths, document = audited
    result = task_module(task).audit(paths[0], {Path(p).stem: p for p in paths[1:]}, **_options(task))
    report = result.report_model(figures=False) if hasattr(result, "report_model") else _classification_report(result)
    members = {name for entry in document["statistics"]["best_set"].values() for name in entry["systems"]}
    strong = [(table.id, row.header) for section in report.sections for table in section.blocks
              if hasattr(table, "rows") for row in table.rows for cell in row.cells
              if getattr(cell, "strong", False) and cell.kind == "score"]
    assert all(header in members for _, header in strong if header in document["systems"]), strong
    if task in SKELETON_REPORTS:  # one wording of the tests, read off the pair tests (skeleton.tests_text)
        text = " ".join(b.text for b in report.section("significance").blocks if b.kind == "paragraph")
        assert text.startswith("Pair tests, one per pair of systems and tested metric")
        assert "The best sets, and so the bold, come from" in text


def test_the_terminal_table_prints(audited):
    task, paths, _ = audited
    result = CliRunner().invoke(cli, ["score", "--quiet", "--task", task, "--bootstrap", "0", *paths],
                                env={"COLUMNS": "80"})
    assert result.exit_code == 0 and result.output.strip(), result.output


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_task_shows_the_protocol_and_is_in_the_wheel(task):
    import tomllib

    module = task_module(task)
    assert isinstance(module.OPTIONS, list) and module.METRIC_IDS and callable(module.audit)
    packages = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert TASKS[task] in packages["tool"]["setuptools"]["packages"]


#: The task kinds whose report the skeleton writes (classification and ordinal: the classification report).
SKELETON_REPORTS = ("tagging", "translation", "multilabel")


def _options(task: str) -> dict:
    from auditor.options import AuditOptions

    return {"options": AuditOptions(bootstrap=60)}


def _classification_report(result):
    from auditor.report.build import build

    return build(result, figures=False)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_system_given_twice_is_named_identical(task, tmp_path):
    """System A's file copied under the name C: every task's verdict lists A and C as identical (the same
    prediction on every unit) and says so in its text, as classification's always did."""
    paths, own = FIXTURES[task](tmp_path)
    copy = tmp_path / f"C{Path(paths[1]).suffix}"
    copy.write_bytes(Path(paths[1]).read_bytes())
    result = CliRunner().invoke(cli, ["score", "--json", "--quiet", "--task", task, "--bootstrap", "0", *own,
                                      *paths, str(copy)])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)["verdict"]
    assert verdict["identical_systems"] == [["A", "C"]], task
    assert "Identical predictions: A = C." in verdict["text"], task


def test_the_randomisation_rounds_do_not_follow_the_bootstrap_count(audited):
    """Every task's approximate randomisation starts from the same R₀ = AR_ROUNDS, raised to ⌈2m/α⌉ where the
    family needs it, whatever --bootstrap sets the intervals to (the fixtures run at --bootstrap 60; tagging and
    translation once drew only max(60, ⌈2m/α⌉) = 60 rounds where classification drew 1000)."""
    from auditor.analyses.randomisation import AR_ROUNDS
    from auditor.analyses.significance import randomisation_rounds

    task, _, document = audited
    statistics = document["statistics"]
    rounds = [t["rounds"] for t in document.get("tests") or () if t.get("method") == "approximate_randomisation"]
    assert rounds, task
    S = len(document["systems"])
    assert set(rounds) == {randomisation_rounds(AR_ROUNDS, S * (S - 1) // 2, 0.05)}, task
    assert statistics.get("randomisation_rounds", rounds[0]) == rounds[0], task


def test_each_signature_field_is_named_once(audited):
    """Split on "|", each field's name (before its first ":") occurs once, so a reader or a script looking up
    ``tok`` or ``case`` finds auditor's own field (translation once embedded sacrebleu's signatures verbatim, whose
    ``case``, ``tok`` and ``version`` repeated auditor's names)."""
    task, _, document = audited
    names = [field.split(":", 1)[0] for field in document["signature"].split("|")]
    assert len(names) == len(set(names)), (task, names)


def test_every_input_is_listed_with_its_hash_and_size(audited):
    """``sources.NAME`` = {path, sha256 of the file as stored, n_items (items, tokens or segments)} for gold and
    each system in every task kind (multi-label wrote ``items``, translation no size at all)."""
    task, paths, document = audited
    sources = document["sources"]
    for name in ("gold", *document["systems"]):
        entry = sources[name]
        assert {"path", "sha256", "n_items"} <= set(entry), (task, name, sorted(entry))
        assert isinstance(entry["n_items"], int) and entry["n_items"] > 0, (task, name)
    for name, path in zip(("A", "B"), paths[1:]):
        assert sources[name]["sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest(), (task, name)
