"""The multi-label audit of GoEmotions' test split (../shared/data/goemotions/audit, through the shared_data fixture):
every figure of the six systems against scikit-learn, the four input layouts, thresholds, the Ekman label map,
and one clear error for each bad input."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.errors import InputError
from auditor.tasks.multilabel.measures import SHORT
from auditor.tasks.multilabel.run import audit

SYSTEMS = ("always-neutral", "prior-sampler", "tfidf-lr-t30", "tfidf-lr-t50", "tfidf-lr-top1", "tfidf-lr-tuned")
#: figures.md (scikit-learn 1.9.1): subset acc, hamming, micro F1, macro F1, weighted F1, samples F1, jaccard samples.
FIGURES = {
    "tfidf-lr-t30": (0.4122, 0.0350, 0.5424, 0.3778, 0.5016, 0.5076, 0.4831),
    "tfidf-lr-t50": (0.3149, 0.0338, 0.4523, 0.2811, 0.4093, 0.3589, 0.3477),
    "tfidf-lr-tuned": (0.3138, 0.0456, 0.5314, 0.4594, 0.5395, 0.5415, 0.4807),
    "tfidf-lr-top1": (0.4866, 0.0356, 0.5393, 0.3575, 0.4929, 0.5503, 0.5341),
    "always-neutral": (0.2959, 0.0538, 0.3040, 0.0177, 0.1399, 0.3178, 0.3123),
    "prior-sampler": (0.1047, 0.0730, 0.1269, 0.0445, 0.1279, 0.1325, 0.1253),
}
FIGURE_IDS = ("subset_accuracy", "hamming_loss", "micro_f1", "macro_f1", "weighted_f1", "samples_f1",
              "jaccard_samples")
EMPTY = {"tfidf-lr-t30": 883, "tfidf-lr-t50": 2526, "tfidf-lr-tuned": 186, "tfidf-lr-top1": 0,
         "always-neutral": 0, "prior-sampler": 0}


@pytest.fixture(scope="session")
def goemotions(shared_data):
    return shared_data / "goemotions" / "audit"


@pytest.fixture(scope="session")
def labels(goemotions):
    return tuple(goemotions.joinpath("labels.txt").read_text().split())


@pytest.fixture(scope="session")
def audited(goemotions, labels):
    """The audit of every system (B = 0, the labels of labels.txt), once for the module's tests."""
    from auditor.options import AuditOptions

    return audit(str(goemotions / "gold.tsv"), {name: str(goemotions / "systems" / f"{name}.tsv") for name in SYSTEMS},
                 options=AuditOptions(bootstrap=0, labels=labels))


@pytest.fixture(scope="session")
def document(audited):
    return audited.to_json()


def read_sets(path, labels):
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:]]
    ids = [row[0] for row in rows]
    index = {label: i for i, label in enumerate(labels)}
    bits = np.zeros((len(rows), len(labels)), dtype=int)
    for n, row in enumerate(rows):
        for label in filter(None, row[1].split(",")):
            bits[n, index[label]] = 1
    return ids, bits


def test_every_figure_equals_scikit_learn(document, goemotions, labels):
    from sklearn import metrics as M
    from test_multilabel_metrics import sklearn_figures

    gold_ids, Y = read_sets(goemotions / "gold.tsv", labels)
    for name in SYSTEMS:
        ids, P = read_sets(goemotions / "systems" / f"{name}.tsv", labels)
        assert ids == gold_ids
        metrics = document["systems"][name]["metrics"]
        for metric, expected in sklearn_figures(Y, P).items():
            assert metrics[metric]["value"] == pytest.approx(expected, abs=1e-12), (name, metric)
        for metric, expected in zip(FIGURE_IDS, FIGURES[name]):
            assert round(metrics[metric]["value"], 4) == pytest.approx(expected, abs=1e-9), (name, metric)
        per_class = document["systems"][name]["per_class"]
        f1 = M.f1_score(Y, P, average=None, zero_division=0)
        precision = M.precision_score(Y, P, average=None, zero_division=0)
        assert [per_class[label]["f1"] for label in labels] == pytest.approx(list(f1), abs=1e-12)
        assert [per_class[label]["precision"] for label in labels] == pytest.approx(list(precision), abs=1e-12)
        assert [per_class[label]["support"] for label in labels] == list(Y.sum(axis=0))
        assert document["multilabel"]["empty"][name] == EMPTY[name]
    assert round(document["multilabel"]["cardinality"]["gold"], 3) == 1.166


def test_zero_divisions_are_in_the_ledger_with_the_convention(document):
    neutral = document["systems"]["always-neutral"]
    assert "27 labels" in neutral["metrics"]["macro_precision"]["convention"]
    assert "zero_division=0" in neutral["metrics"]["macro_precision"]["convention"]
    assert neutral["per_class"]["joy"]["precision"] == 0
    assert any("never predicted" in reason for reason in neutral["per_class"]["joy"]["undefined"])
    t50 = document["systems"]["tfidf-lr-t50"]["metrics"]["samples_precision"]
    assert "2,526 items with an empty predicted set" in t50["convention"]


def write_jsonl(path, ids, bits, labels):
    path.write_text("".join(json.dumps({"id": i, "labels": [labels[j] for j in np.flatnonzero(row)]}) + "\n"
                            for i, row in zip(ids, bits)))


def write_columns(path, ids, bits, labels, fmt="{:d}"):
    lines = ["id\t" + "\t".join(labels)] + [i + "\t" + "\t".join(fmt.format(v) for v in row)
                                            for i, row in zip(ids, bits)]
    path.write_text("\n".join(lines) + "\n")


def test_json_lines_parquet_and_label_columns_read_to_the_same_figures(document, goemotions, labels, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from auditor.options import AuditOptions

    gold_ids, Y = read_sets(goemotions / "gold.tsv", labels)
    ids, P = read_sets(goemotions / "systems" / "tfidf-lr-tuned.tsv", labels)
    order = np.random.default_rng(0).permutation(len(ids))  # another item order: matched by id
    write_jsonl(tmp_path / "gold.jsonl", gold_ids, Y, labels)
    write_columns(tmp_path / "tuned.tsv", [ids[i] for i in order], P[order], labels)
    pq.write_table(pa.table({"id": [ids[i] for i in order],
                             "labels": [[labels[j] for j in np.flatnonzero(P[i])] for i in order]}),
                   tmp_path / "tuned.parquet")
    result = audit(str(tmp_path / "gold.jsonl"), {"columns": str(tmp_path / "tuned.tsv"),
                                                  "parquet": str(tmp_path / "tuned.parquet")},
                   options=AuditOptions(bootstrap=0, labels=labels)).to_json()
    expected = document["systems"]["tfidf-lr-tuned"]["metrics"]
    for name in ("columns", "parquet"):
        for metric, entry in result["systems"][name]["metrics"].items():
            assert entry["value"] == pytest.approx(expected[metric]["value"], abs=1e-12), (name, metric)
    assert result["sources"]["columns"]["layout"] == "columns"


def test_probabilities_at_0_3_are_the_t30_system(document, goemotions, labels):
    from auditor.options import AuditOptions

    result = audit(str(goemotions / "gold.tsv"), {"t30": str(goemotions / "scores" / "tfidf-lr.tsv")},
                   options=AuditOptions(bootstrap=0, labels=labels), threshold=0.3).to_json()
    for metric, entry in result["systems"]["t30"]["metrics"].items():
        assert entry["value"] == pytest.approx(document["systems"]["tfidf-lr-t30"]["metrics"][metric]["value"],
                                               abs=1e-12), metric
    assert result["options"]["thresholds"]["how"] == "given (--threshold)"


def test_the_default_threshold_is_0_5_and_said_so(document, goemotions, labels):
    from auditor.options import AuditOptions

    result = audit(str(goemotions / "gold.tsv"), {"t50": str(goemotions / "scores" / "tfidf-lr.tsv")},
                   options=AuditOptions(bootstrap=0, labels=labels)).to_json()
    assert result["systems"]["t50"]["metrics"]["micro_f1"]["value"] == pytest.approx(
        document["systems"]["tfidf-lr-t50"]["metrics"]["micro_f1"]["value"], abs=1e-12)
    assert result["options"]["thresholds"]["how"] == "default 0.5 (no --threshold given)"


def test_the_ekman_level_through_a_label_map(goemotions, labels):
    from sklearn.metrics import f1_score

    from auditor.options import AuditOptions

    mapping = dict(line.split("\t") for line in goemotions.joinpath("ekman.tsv").read_text().splitlines()[1:])
    groups = sorted(set(mapping.values()))
    member = np.array([[mapping[label] == group for group in groups] for label in labels], dtype=int)
    _, Y = read_sets(goemotions / "gold.tsv", labels)
    _, P = read_sets(goemotions / "systems" / "tfidf-lr-tuned.tsv", labels)
    result = audit(str(goemotions / "gold.tsv"), {"tuned": str(goemotions / "systems" / "tfidf-lr-tuned.tsv")},
                   options=AuditOptions(bootstrap=0), label_map=str(goemotions / "ekman.tsv")).to_json()
    assert sorted(result["labels"]) == groups
    ours = result["systems"]["tuned"]["metrics"]
    for average in ("micro", "macro", "samples"):
        assert ours[f"{average}_f1"]["value"] == pytest.approx(
            f1_score(Y @ member > 0, P @ member > 0, average=average, zero_division=0), abs=1e-12)


@pytest.mark.parametrize("content, expected", [
    ("id\tlabels\n1\ta,,b\n", r"s.tsv line 2 \(the set 'a,,b'\): an empty label \(two ',' in a row"),
    ("id\tlabels\n1\ta,b,a\n", r"s.tsv line 2 \(the set 'a,b,a'\): label 'a' twice in one set"),
])
def test_a_bad_set_is_one_error_naming_the_line(write, content, expected):
    gold = write("gold.tsv", "id\tlabels\n1\ta\n")
    with pytest.raises(InputError, match=expected):
        audit(gold, {"s": write("s.tsv", content)})


@pytest.mark.parametrize("line, problem", [
    ('{"id": "2", "labels": ["b"]} {"id": "3", "labels": []}', "more than one JSON value on one line"),
    ('{"id": "2", "labels": ["b"]}, {"id": "3", "labels": []}', "more than one JSON value on one line"),
])
def test_two_json_objects_on_one_line_are_refused_naming_the_line(write, line, problem):
    gold = write("gold.jsonl", '{"id": "1", "labels": ["a"]}\n\n{"id": "2", "labels": ["b"]}\n')
    system = write("s.jsonl", '{"id": "1", "labels": ["a"]}\n' + line + "\n")
    with pytest.raises(InputError, match=rf"s.jsonl line 2: {problem}; expected one JSON object per line"):
        audit(gold, {"s": system})


def test_json_lines_sets_keep_their_lines_past_a_blank_line(write):
    from auditor.tasks.multilabel.reading import read_sets as read_file

    read = read_file(write("gold.jsonl", '{"id": "1", "labels": ["a"]}\n\n{"id": "2", "labels": ["b"]}\n'))
    assert read.column.lines.tolist() == [1, 3]


def test_a_label_column_value_outside_zero_one_is_refused(write):
    gold = write("gold.tsv", "id\tlabels\n1\ta\n2\tb\n")
    system = write("s.tsv", "id\ta\tb\n1\t0.2\t0.9\n2\t1.5\t0\n")
    with pytest.raises(InputError, match=r"s.tsv line 3: 'a' is 1.5; expected 0 or 1 .* or a score in \[0, 1\]"):
        audit(gold, {"s": system})
    system = write("t.tsv", "id\ta\tb\n1\t0.2\t0.9\n2\thigh\t0\n")
    with pytest.raises(InputError, match=r"t.tsv line 3: score of 'a' is 'high'; expected a number"):
        audit(gold, {"t": system})


def test_a_system_missing_an_item_is_refused_and_nothing_written(goemotions, tmp_path):
    lines = goemotions.joinpath("systems", "tfidf-lr-t30.tsv").read_text().splitlines()
    short = tmp_path / "short.tsv"
    short.write_text("\n".join(lines[:-1]) + "\n")
    missing = lines[-1].split("\t")[0]
    out = tmp_path / "out"
    run = CliRunner().invoke(cli, ["report", "--task", "multilabel", str(goemotions / "gold.tsv"), str(short),
                                   "-o", str(out), "--format", "json"])
    assert run.exit_code != 0
    assert "short.tsv: 1 gold id missing" in run.output and missing in run.output
    assert not out.exists() or not any(out.iterdir())


def test_a_label_map_missing_a_label_is_refused(write):
    gold = write("gold.tsv", "id\tlabels\n1\ta,b\n2\tc\n")
    mapping = write("map.tsv", "label\tgroup\na\tx\nb\tx\n")
    with pytest.raises(InputError, match="map.tsv: no group for label 'c'"):
        audit(gold, {"s": gold}, label_map=mapping)


def test_a_threshold_without_scores_is_refused(write):
    from auditor.errors import UsageError

    gold = write("gold.tsv", "id\tlabels\n1\ta,b\n2\tc\n")
    with pytest.raises(UsageError, match="--threshold applies to per-label scores"):
        audit(gold, {"s": gold}, threshold=0.3)


def test_score_table_fits_80_columns_and_json_names_the_task(goemotions):
    arguments = ["score", "--task", "multilabel", "--bootstrap", "0", str(goemotions / "gold.tsv"),
                 *(str(goemotions / "systems" / f"{name}.tsv") for name in SYSTEMS)]
    run = CliRunner().invoke(cli, arguments)
    assert run.exit_code == 0, run.output
    assert max(len(line) for line in run.output.splitlines()) <= 80
    assert "tfidf-lr-top1" in run.output and "48.7" in run.output
    run = CliRunner().invoke(cli, [*arguments, "--json", "-m", "micro_f1"])
    assert json.loads(run.output)["task"] == "multilabel"
    run = CliRunner().invoke(cli, [*arguments, "-m", "exact match", "--sort", "hamming"])
    assert run.exit_code == 0 and "subset acc" in run.output


def test_the_audit_json_validates_against_the_schema(document):
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(json.loads(json.dumps(document, allow_nan=False)))


def test_the_report_model_has_the_sections_and_bold_only_in_best_sets(goemotions):
    from auditor.options import AuditOptions

    result = audit(str(goemotions / "gold.tsv"), {name: str(goemotions / "systems" / f"{name}.tsv")
                                                  for name in SYSTEMS[2:5]}, options=AuditOptions(bootstrap=100))
    model = result.report_model(figures=False)
    ids = [section.id for section in model.sections]
    for expected in ("summary", "data", "metrics", "per-label", "rank-disagreement", "significance", "definitions",
                     "ledger", "reproducibility"):
        assert expected in ids
    best = result.statistics.best_set
    for row in model.section("summary").blocks[-1].rows:
        for column, cell in zip(model.section("summary").blocks[-1].columns, row.cells):
            metric = next(m for m, short in SHORT.items() if short == column.label)
            assert cell.strong == (row.header in best[metric].systems)


def test_the_recommendation_cites_what_it_read_and_the_report_lists_the_references(audited):
    result = audited
    found = result.to_json()["recommendation"]
    assert found["metrics"][0]["id"] == "macro_f1"  # neutral is 298 times as frequent as grief
    assert "298 times" in found["metrics"][0]["reasons"][0]
    assert {e["id"] for e in found["avoid"]} == {"subset_accuracy", "hamming_loss"}
    keys = {s["reference"]["key"] for e in found["metrics"] + found["avoid"] for s in e["sources"]}
    assert keys == {"zhang2014review", "mohammad2018semeval"}
    model = result.report_model(figures=False)
    references = " ".join(model.section("references").blocks[-1].items)
    assert "Zhang" in references and "Affect in Tweets" in references
    assert result.verdict.primary == "macro_f1"


def test_the_threshold_curve_passes_through_the_t30_and_t50_systems(document, goemotions, labels):
    from auditor.options import AuditOptions

    result = audit(str(goemotions / "gold.tsv"), {"lr": str(goemotions / "scores" / "tfidf-lr.tsv")},
                   options=AuditOptions(bootstrap=0, labels=labels), threshold=0.5)
    curve = result.to_json()["multilabel"]["threshold_curves"]["lr"]
    for threshold, system in ((0.3, "tfidf-lr-t30"), (0.5, "tfidf-lr-t50")):
        at = curve["grid"].index(threshold)
        for metric, values in curve["values"].items():
            assert values[at] == pytest.approx(document["systems"][system]["metrics"][metric]["value"], abs=1e-12)
    assert curve["used"] == 0.5 and curve["best"]["micro_f1"]["threshold"] == 0.2
    assert result.report_model(figures=False).section("thresholds") is not None
