"""Slices (``--slices``): known answers against hand-filtered sub-files and scikit-learn."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

from auditor import audit
from auditor.analyses.slices import MIN_ITEMS, slice_confusion
from auditor.cli import cli
from auditor.errors import InputError
from auditor.io.load import read_groups
from auditor.io.source import Source

LABELS = ("a", "b", "c")


def _data(seed: int = 7, n: int = 400):
    rng = np.random.default_rng(seed)
    gold = rng.choice(LABELS, size=n, p=[0.6, 0.3, 0.1])
    systems = {}
    for name, keep in (("good", 0.8), ("fair", 0.6), ("poor", 0.4)):
        noise = rng.choice(LABELS, size=n)
        systems[name] = np.where(rng.random(n) < keep, gold, noise)
    # a small slice (30 items) so the warning fires; the rest split in two
    groups = np.where(np.arange(n) < 30, "tiny", np.where(rng.random(n) < 0.5, "east", "west"))
    return gold, systems, groups


def test_slice_metrics_equal_the_audit_of_the_filtered_files():
    gold, systems, groups = _data()
    result = audit(list(gold), {k: list(v) for k, v in systems.items()}, bootstrap=0, slices=list(groups))
    document = result.to_json()
    assert set(document["slices"]) == {"east", "tiny", "west"}
    for group in ("east", "tiny", "west"):
        keep = groups == group
        entry = document["slices"][group]
        assert entry["n_items"] == int(keep.sum())
        sub = audit(list(gold[keep]), {k: list(v[keep]) for k, v in systems.items()}, bootstrap=0)
        for name in systems:
            for metric_id, value in sub.to_json()["systems"][name]["metrics"].items():
                got = entry["systems"][name]["metrics"][metric_id]["value"]
                if value["value"] is None:
                    assert got is None, (group, name, metric_id)
                else:
                    assert got == pytest.approx(value["value"], abs=1e-12), (group, name, metric_id)
            # scikit-learn on the slice for three metrics
            metrics = entry["systems"][name]["metrics"]
            y, p = gold[keep], systems[name][keep]
            assert metrics["accuracy"]["value"] == pytest.approx(accuracy_score(y, p), abs=1e-12)
            assert metrics["macro_f1"]["value"] == pytest.approx(f1_score(y, p, average="macro"), abs=1e-12)
            assert metrics["mcc"]["value"] == pytest.approx(matthews_corrcoef(y, p), abs=1e-12)


def test_leaders_ties_small_slices_and_winner_changes():
    # slice x: A right on all, B wrong on one; slice y: B right on all, A wrong on one; C = A in y (tie)
    gold = ["a", "b"] * 30 + ["a", "b"] * 30
    a = gold[:60] + ["b"] + gold[61:]
    b = ["b"] + gold[1:60] + gold[60:]
    c = gold[:60] + ["b"] + gold[61:]  # identical to a: ties lead together
    groups = ["x"] * 60 + ["y"] * 60
    document = audit(gold, {"A": list(a), "B": b, "C": c}, bootstrap=0, slices=groups).to_json()
    assert document["slices"]["x"]["leaders"]["accuracy"] == ["A", "C"]
    assert document["slices"]["y"]["leaders"]["accuracy"] == ["B"]
    summary = document["slice_summary"]
    assert summary["winner_changes"]["accuracy"] is True
    assert summary["small"] == [] and summary["min_items"] == MIN_ITEMS == 50
    small = audit(gold, {"A": list(a), "B": b}, bootstrap=0, slices=["x"] * 70 + ["y"] * 50 ).to_json()
    assert small["slice_summary"]["small"] == []
    tiny = audit(gold, {"A": list(a), "B": b}, bootstrap=0, slices=["x"] * 71 + ["y"] * 49).to_json()
    assert tiny["slice_summary"]["small"] == ["y"]
    # leaders of a small slice do not count as a change
    assert tiny["slice_summary"]["winner_changes"]["accuracy"] is False


def test_slice_confusion_is_one_bincount_per_slice_and_system():
    rng = np.random.default_rng(1)
    gold, preds, groups = rng.integers(0, 3, 200), rng.integers(0, 3, (2, 200)), rng.integers(0, 4, 200)
    tensor = slice_confusion(groups, gold, preds, 4, 3)
    assert tensor.shape == (4, 2, 3, 3)
    for g in range(4):
        for s in range(2):
            keep = groups == g
            expected = np.zeros((3, 3), dtype=np.int64)
            np.add.at(expected, (gold[keep], preds[s][keep]), 1)
            assert (tensor[g, s] == expected).all()


def test_analyse_is_a_function_of_counts_groups_and_metric_records():
    """The analysis needs no Audit: counts, group codes, the metric records, the key metrics and
    the overall values. Each slice's values are scikit-learn's on that slice's items; the result
    is frozen, its mappings read-only."""
    import dataclasses

    from auditor.analyses.slices import slice_table
    from auditor.io.counts import count
    from auditor.metrics.catalogue import describe
    from auditor.metrics.registry import REGISTRY

    rng = np.random.default_rng(3)
    gold = rng.choice(["a", "b", "c"], 300)
    systems = {"S": np.where(rng.random(300) < 0.7, gold, rng.choice(["a", "b", "c"], 300)),
               "T": rng.choice(["a", "b", "c"], 300)}
    counts = count(gold, systems)
    codes = rng.integers(0, 2, 300)
    metrics = [REGISTRY.get(m) for m in ("accuracy", "macro_f1", "mcc")]
    overall = dict(zip(counts.systems, describe(counts.confusion, counts.labels, metrics, counts.labels_given)))
    result = slice_table(("p", "q"), codes, counts, metrics, ("accuracy", "mcc"), overall,
                         Source("<groups>", None, len(codes)))
    for g, group in enumerate(("p", "q")):
        keep = codes == g
        assert result.n_items[group] == keep.sum()
        for name, predicted in systems.items():
            values = result.values[group][name]
            assert values["accuracy"].value == pytest.approx(accuracy_score(gold[keep], predicted[keep]), abs=1e-12)
            assert values["macro_f1"].value == pytest.approx(
                f1_score(gold[keep], predicted[keep], average="macro", labels=["a", "b", "c"]), abs=1e-12)
            assert values["mcc"].value == pytest.approx(matthews_corrcoef(gold[keep], predicted[keep]), abs=1e-12)
    assert result.overall_leaders["accuracy"] == ("S",) and result.key_metrics == ("accuracy", "mcc")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.groups = ()
    with pytest.raises(TypeError):
        result.values["p"]["S"]["accuracy"] = None


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_slices_file_by_id_in_any_order_and_by_name_rules(tmp_path):
    gold = _write(tmp_path, "gold.tsv", "id\tlabel\n" + "".join(f"{i}\t{'ab'[i % 2]}\n" for i in range(1, 9)))
    system = _write(tmp_path, "sys.tsv", "id\tlabel\n" + "".join(f"{i}\t{'ab'[i % 3 == 0]}\n" for i in range(1, 9)))
    # a header with a label column beside the group column: the group column is read
    slices = _write(tmp_path, "slices.tsv", "id\tlabel\tgroup\n" + "".join(
        f"{i}\tz\t{'early' if i < 5 else 'late'}\n" for i in range(8, 0, -1)))
    column = read_groups(slices)
    assert sorted(column.categories) == ["early", "late"]
    result = CliRunner().invoke(cli, ["score", gold, system, "--slices", slices, "--bootstrap", "0", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["slices"]["early"]["n_items"] == 4 and document["slices"]["late"]["n_items"] == 4
    assert "|slices:" in document["signature"]
    # two columns without a header: id group
    plain = _write(tmp_path, "plain.tsv", "".join(f"{i}\tg{i % 2}\n" for i in range(1, 9)))
    assert sorted(read_groups(plain).categories) == ["g0", "g1"]
    # a one-column `slice` header: groups by line
    assert read_groups(_write(tmp_path, "lines.txt", "slice\nx\ny\n")).id_array is None


@pytest.mark.parametrize("text, expected", [
    ("id\tgroup\n1\tx\n2\tx\n", "no group for gold id '3'"),
    ("id\tgroup\n1\tx\n2\tx\n3\ty\n3\tz\n", "id '3' has more than one group"),
    ("id\tgroup\n1\tx\n2\tx\n3\ty\n4\tz\n", "id '4' is not in"),
    ("id\tgroup\n1\tx\n2\tNA\n3\ty\n", "empty or missing group"),
    ("id\tdomain\n1\tx\n2\tx\n3\ty\n", "names no group column"),
])
def test_bad_slices_files_get_one_clear_error(tmp_path, text, expected):
    gold = _write(tmp_path, "gold.tsv", "id\tlabel\n1\ta\n2\tb\n3\ta\n")
    slices = _write(tmp_path, "slices.tsv", text)
    with pytest.raises(InputError, match=expected):
        audit(gold, {"s": gold}, bootstrap=0, slices=slices)
    result = CliRunner().invoke(cli, ["score", gold, f"s={gold}", "--slices", slices, "--bootstrap", "0"])
    assert result.exit_code == 2
    assert result.output.count("auditor: error:") == 1 and expected in result.output


def test_line_aligned_slices_must_match_the_gold_length():
    with pytest.raises(InputError, match="2 groups but"):
        audit(["a", "b", "a"], {"s": ["a", "b", "b"]}, bootstrap=0, slices=["x", "y"])


def test_slices_section_in_the_report():
    from auditor.report.build import build

    gold, systems, groups = _data()
    result = audit(list(gold), {k: list(v) for k, v in systems.items()}, bootstrap=0, slices=list(groups))
    section = build(result, figures=False).section("slices")
    assert section is not None
    texts = [b for b in section.blocks if getattr(b, "kind", "") == "bullets"]
    assert any("tiny has 30 items, fewer than 50" in item for b in texts for item in b.items)
    tables = [b for b in section.blocks if getattr(b, "kind", "") == "table"]
    assert tables and tables[0].rows[-1].header == "all items"


def test_slices_in_json_lines_and_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    gold = _write(tmp_path, "gold.tsv", "id\tlabel\n1\ta\n2\tb\n3\ta\n4\tb\n")
    lines = _write(tmp_path, "slices.jsonl", "".join(json.dumps({"id": str(i), "slice": "xy"[i > 2]}) + "\n"
                                                     for i in (4, 3, 2, 1)))
    parquet = str(tmp_path / "slices.parquet")
    pq.write_table(pa.table({"item_id": ["1", "2", "3", "4"], "group": ["x", "x", "y", "y"]}), parquet)
    for path in (lines, parquet):
        document = audit(gold, {"s": gold}, bootstrap=0, slices=path).to_json()
        assert {g: v["n_items"] for g, v in document["slices"].items()} == {"x": 2, "y": 2}


def test_terminal_table_is_followed_by_the_slice_leaders(tmp_path):
    gold = _write(tmp_path, "gold.tsv", "id\tlabel\n" + "".join(f"{i}\t{'ab'[i % 2]}\n" for i in range(1, 9)))
    system = _write(tmp_path, "sys.tsv", "id\tlabel\n" + "".join(f"{i}\t{'ab'[i % 3 == 0]}\n" for i in range(1, 9)))
    slices = _write(tmp_path, "slices.tsv", "id\tgroup\n" + "".join(f"{i}\t{'xy'[i > 4]}\n" for i in range(1, 9)))
    result = CliRunner().invoke(cli, ["score", gold, system, "--slices", slices, "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    assert "x (n=4): sys" in result.output and "too small to rank" in result.output
