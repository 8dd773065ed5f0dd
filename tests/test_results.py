"""The audit record's JSON plumbing (auditor.results): the signature record, the merge of each
analysis's keys, and the one NaN -> null rule (auditor.formatting.nan_to_none)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auditor import audit
from auditor.formatting import nan_to_none
from auditor.results import Signature, merge_json


@pytest.mark.parametrize("value, expected", [
    (None, None), (float("nan"), None), (math.inf, None), (-math.inf, None), (np.nan, None),
    (0.0, 0.0), (-0.25, -0.25), (np.float64(0.5), 0.5), (np.int64(3), 3.0),
])
def test_nan_to_none(value, expected):
    found = nan_to_none(value)
    assert found == expected and (found is None or type(found) is float)


def test_merge_adds_inside_mappings_and_keeps_key_order():
    document = {"systems": {"A": {"metrics": {"accuracy": {"value": 0.5, "ci": None, "undefined": None}}}},
                "tests": []}
    merge_json(document, {"systems": {"A": {"metrics": {"accuracy": {"ci": [0.4, 0.6]}}, "scores": {}}},
                          "tests": [1], "statistics": {"B": 10}})
    assert document == {"systems": {"A": {"metrics": {"accuracy": {"value": 0.5, "ci": [0.4, 0.6], "undefined": None}},
                                          "scores": {}}},
                        "tests": [1], "statistics": {"B": 10}}
    assert list(document["systems"]["A"]["metrics"]["accuracy"]) == ["value", "ci", "undefined"]
    assert list(document) == ["systems", "tests", "statistics"]


def test_signature_is_a_record_whose_string_the_json_carries():
    result = audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"], "t": ["b", "b", "b", "a"]},
                   bootstrap=0, seed=7, analyses=())
    signature = result.signature
    assert isinstance(signature, Signature)
    assert result.to_json()["signature"] == str(signature) == signature.format()
    keys = [key for key, _ in signature.fields]
    assert keys == ["auditor", "gold", "systems", "labels", "boot", "seed", "ci", "alpha", "correction", "samplers"]
    from auditor.analyses.sampling import SIGNATURE

    # which draws made the figures (none at B = 0; B = 1 runs the same code with draws)
    drawn = audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"]}, bootstrap=1, seed=7, analyses=()).signature
    assert drawn["samplers"] == SIGNATURE == \
        "ci=cells+patterns,ranks=paired-split,chance=rows,shuffles=1000+needed,settle=affine-bound+fewest"
    assert drawn["ci"] == "percentile"
    assert (signature["boot"], signature["seed"], signature["labels"], signature["correction"]) \
        == ("0", "7", "2", "holm")
    assert signature["systems"].startswith("2:")
    assert str(signature).startswith("auditor:") and "|boot:0|seed:7|ci:none|alpha:0.05|" in str(signature)
    assert signature["samplers"] == "none"  # --bootstrap 0 draws nothing


def test_the_id_lists_name_registered_metrics_and_table_5_is_the_literature_table():
    from auditor.metrics.literature import LITERATURE
    from auditor.metrics.registry import REGISTRY
    from auditor.metrics.selections import KEY_METRICS, TABLE_5_METRICS, TERMINAL_COLUMNS, TEST_METRICS

    for ids in (TERMINAL_COLUMNS, KEY_METRICS, TEST_METRICS, TABLE_5_METRICS):
        assert all(REGISTRY.get(metric_id).id == metric_id for metric_id in ids)
    assert list(LITERATURE) == list(TABLE_5_METRICS)


def test_a_calibrated_variant_names_its_base_and_the_enum_fields_are_literals():
    from typing import get_args

    from auditor.formatting import CellKind
    from auditor.metrics.registry import CHANCE_CORRECTION_LEVELS, REGISTRY, ChanceCorrection
    from auditor.options import CORRECTIONS, AuditOptions

    for metric in REGISTRY.scalar():
        if metric.family == "calibrated":
            assert metric.base is not None and metric.id == f"{metric.base}_calibrated"
            assert REGISTRY.get(metric.base).family == "base"
        else:
            assert metric.base is None
    assert CHANCE_CORRECTION_LEVELS == get_args(ChanceCorrection) == ("none", "bounded", "strict", "complete")
    assert CORRECTIONS == ("holm", "bh") and AuditOptions().correction in CORRECTIONS
    assert {"score", "count", "p", "text"} <= set(get_args(CellKind))


def test_sources_are_records_written_as_before():
    from auditor.io.source import Source

    result = audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"]}, bootstrap=0, analyses=())
    gold = result.sources["gold"]
    assert isinstance(gold, Source) and gold.path == "<gold>" and gold.n_items == 4
    assert result.to_json()["sources"]["gold"] == {"path": "<gold>", "sha256": gold.sha256, "n_items": 4}
    matrix = Source("", "ab" * 32, 10, kind="row sums of the confusion matrices")
    assert list(matrix.to_json()) == ["path", "kind", "sha256", "n_items"] and matrix.name == matrix.kind
    read = Source("g.tsv", "cd" * 32, 3, skipped_lines={"header": 1})
    assert read.to_json() == {"path": "g.tsv", "sha256": "cd" * 32, "n_items": 3, "skipped_lines": {"header": 1}}


def test_results_by_name_with_typed_accessors_and_replace():
    import dataclasses

    result = audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"]}, bootstrap=0, analyses=("recommendation",))
    assert list(result.results) == ["baselines", "recommendation"]
    assert result.baselines is result.results["baselines"] and result.statistics is None
    without = dataclasses.replace(result, baselines=None)
    assert list(without.results) == ["recommendation"] and without.baselines is None
    assert "baselines" not in without.to_json() and "baselines" in result.to_json()
    with pytest.raises(AttributeError):
        result.baseline  # a typo is an error, never a silent None


def test_a_label_column_says_its_file_format_from_the_literal(tmp_path):
    from typing import get_args

    from auditor.io.column import FileFormat
    from auditor.io.load import label_column

    (tmp_path / "g.tsv").write_text("1\ta\n2\tb\n", encoding="utf-8")
    (tmp_path / "g.jsonl").write_text('{"id": 1, "label": "a"}\n', encoding="utf-8")
    assert label_column(["a", "b"], "<g>").format == "array"
    assert label_column(str(tmp_path / "g.tsv"), "g").format == "tsv"
    assert label_column(str(tmp_path / "g.jsonl"), "g").format == "jsonl"
    assert {"array", "tsv", "jsonl", "whitespace", "csv", "json", "parquet"} == set(get_args(FileFormat))


def test_a_metric_value_carries_its_interval_and_reads_as_a_number():
    """``audit.systems[NAME].metrics[ID]``: value, lo, hi (the bootstrap interval of the statistics
    stage, the one ``Audit.interval`` and ``to_frame`` give), undefined; float-like. Accuracy by
    hand: 3 of 4 right = 0.75."""
    from auditor.results import Score

    result = audit(["a", "a", "b", "b"], {"s": ["a", "a", "b", "a"], "t": ["a", "a", "a", "a"]}, bootstrap=200, seed=1)
    score = result.systems["s"].metrics["accuracy"]
    assert isinstance(score, Score) and score.value == 0.75 and score == 0.75
    assert (score.lo, score.hi) == result.interval("s", "accuracy") and score.level == pytest.approx(0.95)
    frame = result.to_frame().set_index(["system", "metric"])
    assert frame.loc[("s", "accuracy"), "lo"] == score.lo and frame.loc[("s", "accuracy"), "hi"] == score.hi
    assert float(score) == 0.75 and score > 0.5 and 0.5 < score and score * 100 == 75.0 and 1 - score == 0.25
    assert f"{score:.1%}" == "75.0%" and round(score, 1) == 0.8 and np.asarray(score, dtype=float) == 0.75
    assert repr(score) == f"Score(0.75, 95% CI [{score.lo:.6g}, {score.hi:.6g}])"
    undefined = result.systems["t"].metrics["markedness"]  # never predicts b: PPV of b is 0/0
    assert undefined.value is None or undefined.convention
    nothing = Score(None, "0/0: no item predicted")
    assert math.isnan(float(nothing)) and repr(nothing) == "Score(undefined: 0/0: no item predicted)"
    # its JSON carries its own interval: every task kind writes systems.NAME.metrics.ID through Score.to_json
    assert result.systems["s"].metrics["accuracy"].to_json() == {"value": 0.75, "ci": [score.lo, score.hi],
                                                                 "undefined": None, "convention": None}
    without = audit(["a", "b"], {"s": ["a", "b"]}, bootstrap=0)
    assert without.systems["s"].metrics["accuracy"].interval is None
    assert repr(without.systems["s"].metrics["accuracy"]) == "Score(1)"
