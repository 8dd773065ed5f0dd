"""Fuzz the loaders and ``auditor score --json --bootstrap 0`` (issue 9).

Hypothesis writes gold and system files (TSV, CSV, whitespace text, one column, JSON Lines,
Parquet; header or not; BOM, CRLF, blank lines, comments; shuffled systems) holding tricky
labels (hashtags, name-like words, control characters, missing-value markers, quotes,
commas). Every run must end in one of two ways: the numbers are right, checked against a
count made here with ``collections.Counter``; or exactly one ``InputError`` (exit 2 and
one ``auditor: error:`` line). Inputs the rules say are bad (a missing label, one gold
class) must be refused. Longer runs with more mutations: ``benchmarks/fuzz_inputs.py``.
"""
from __future__ import annotations

import csv
import io
import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.io.load import MISSING_LABELS, read_labels
from auditor.io.validate import align

# Missing markers ("NA", "-", "nan", "", "\x1c") are rarer than the rest, so that most
# examples are valid and their numbers get checked.
LABELS = ["pos", "neg", "#happy", "#sad", "LABEL_2", "y", "class", "0", "1", "1.0", "a b",
          "x\x1cy", "ü", "z\u2028z", " padded ", "a,b", 'q"t', "none", "label",
          "308868e07268_1"] * 4 + ["NA", "-", "nan", "", "\x1c"]
IDS = ["a1", "#1", "308868e07268_1", "1e5", "nan", "x y", "ü2", "i\x1cd", "7", "b-3"]
FORMATS = ["tsv", "csv", "txt", "one", "jsonl", "parquet"]
NAMES = {"label", "labels", "gold", "gold_label", "prediction", "predictions", "predicted",
         "pred", "preds", "y_true", "y_pred"}


def _text(label: str) -> str:
    """What a label reads as in a text format: trimmed of spaces and tabs."""
    return label.strip(" \t")


def _missing(label: str) -> bool:
    return label in MISSING_LABELS or all(c.isspace() or not c.isprintable() for c in label)


def _representable(fmt: str, ids: list[str], labels: list[str], header: bool) -> bool:
    """Can this format hold these items, by the documented rules? (Otherwise a clear error
    is all we can ask for, and the test only checks that nothing crashes.)"""
    values = labels + (ids if fmt not in ("one",) else [])
    if fmt in ("txt", "one"):
        if any(" " in v or "\t" in v or v != _text(v) or not v for v in values):
            return False
        if not header and fmt == "one" and labels[0] in NAMES:
            return False
    if fmt == "tsv" and any("\t" in v or '"' in v for v in values):
        return False
    if fmt in ("tsv", "csv", "txt", "one"):
        first = (ids[0] if fmt != "one" else "") + labels[0]
        if first.startswith("#") and (len(first) == 1 or first[1] in " \t"):
            return False
        if not header and fmt != "one" and (labels[0] in NAMES or ids[0] in ("id", "item")):
            return False
    return True


def _write(path, fmt: str, ids: list[str], labels: list[str], header: bool, variant: int) -> None:
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"id": ids, "label": labels}), path)
        return
    if fmt == "jsonl":
        lines = [json.dumps({"id": i, "label": lab}) for i, lab in zip(ids, labels)]
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if header:
            writer.writerow(["id", "label"])
        writer.writerows(zip(ids, labels))
        lines = buffer.getvalue().split("\n")[:-1]
    else:
        sep = {"tsv": "\t", "txt": " "}.get(fmt)
        lines = ([f"id{sep}label"] if header and sep else ["label"] if header else []) + [
            (f"{i}{sep}{lab}" if sep else lab) for i, lab in zip(ids, labels)]
    if variant & 1:
        lines = ([] if fmt == "jsonl" else ["# written by the fuzz test"]) + [""] + lines
    if variant & 2 and len(lines) > 2 and fmt != "one":
        lines.insert(len(lines) // 2 + 1, "")
    text = ("\r\n" if variant & 4 else "\n").join(lines) + ("\n\n" if variant & 8 else "\n")
    path.write_bytes((b"\xef\xbb\xbf" if variant & 16 else b"") + text.encode("utf-8"))


def _expected(fmt: str, gold: list[str], systems: dict[str, list[str]]):
    """Label set and confusion counts, counted here with Counter (no auditor code)."""
    norm = (lambda v: v) if fmt in ("jsonl", "parquet") else _text
    gold_text = [norm(v) for v in gold]
    system_text = {name: [norm(v) for v in values] for name, values in systems.items()}
    every = gold_text + [v for values in system_text.values() for v in values]
    if any(_missing(v) for v in every):
        return "error"
    if len(set(gold_text)) < 2:
        return "error"
    labels = sorted(set(every))
    confusion = {}
    for name, values in system_text.items():
        pairs = Counter(zip(gold_text, values))
        confusion[name] = [[pairs[(g, p)] for p in labels] for g in labels]
    return labels, confusion


items = st.integers(min_value=2, max_value=len(IDS)).flatmap(lambda n: st.tuples(
    st.permutations(IDS).map(lambda ids: ids[:n]),
    st.lists(st.sampled_from(LABELS), min_size=n, max_size=n),
    st.lists(st.lists(st.sampled_from(LABELS), min_size=n, max_size=n), min_size=1, max_size=2),
    st.permutations(list(range(n))),
))


def _case(tmp_path, data, fmt, header, variant):
    ids, gold, systems, order = data
    gold_path = tmp_path / f"gold.{ {'one': 'txt', 'txt': 'txt'}.get(fmt, fmt) }"
    _write(gold_path, fmt, ids, gold, header, variant)
    paths = {}
    for s, labels in enumerate(systems):
        path = tmp_path / f"S{s}.{ {'one': 'txt', 'txt': 'txt'}.get(fmt, fmt) }"
        shuffled = order if fmt != "one" else list(range(len(ids)))
        _write(path, fmt, [ids[i] for i in shuffled], [labels[i] for i in shuffled], header,
               variant >> 1)
        paths[f"S{s}"] = path
    expected = _expected(fmt, gold, {f"S{s}": labels for s, labels in enumerate(systems)})
    representable = _representable(fmt, ids, gold, header) and all(
        _representable(fmt, ids, labels, header) for labels in systems)
    return gold_path, paths, expected, representable


SETTINGS = settings(max_examples=250, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@SETTINGS
@given(data=items, fmt=st.sampled_from(FORMATS), header=st.booleans(),
       variant=st.integers(0, 31))
def test_fuzz_loaders_right_numbers_or_one_input_error(tmp_path_factory, data, fmt, header, variant):
    tmp_path = tmp_path_factory.mktemp("fuzz")
    gold_path, paths, expected, representable = _case(tmp_path, data, fmt, header, variant)
    try:
        table = align(read_labels(gold_path), {name: read_labels(p) for name, p in paths.items()})
        counts = table.counts()
    except InputError as error:
        assert str(error) and "\n" not in str(error).strip()
        return
    assert expected != "error", f"accepted an input the rules refuse: {expected}"
    if not representable:
        return  # the format cannot hold these items; any clean outcome will do
    labels, confusion = expected
    assert list(counts.labels) == labels
    for s, name in enumerate(counts.systems):
        assert counts.confusion[s].tolist() == confusion[name]


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=items, fmt=st.sampled_from(FORMATS), header=st.booleans(), variant=st.integers(0, 31))
def test_fuzz_cli_score_json(tmp_path_factory, monkeypatch, data, fmt, header, variant):
    """``auditor score --json --bootstrap 0``: the accuracy and confusion the CLI prints are
    the hand count's, or the run ends with exit 2 and one ``auditor: error:`` line. The
    analyses after counting are switched off here (they are tested on their own)."""
    from click.testing import CliRunner

    import auditor.pipeline
    from auditor.cli import cli

    monkeypatch.setattr(auditor.pipeline, "run_stages", lambda reads, wanted: {})
    tmp_path = tmp_path_factory.mktemp("cli")
    gold_path, paths, expected, representable = _case(tmp_path, data, fmt, header, variant)
    result = CliRunner().invoke(cli, ["score", str(gold_path),
                                      *[f"{n}={p}" for n, p in paths.items()],
                                      "--json", "--bootstrap", "0", "--quiet"])
    if result.exit_code != 0:
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        errors = [line for line in result.output.splitlines() if line.startswith("auditor: error:")]
        assert len(errors) == 1 and "Traceback" not in result.output
        return
    assert expected != "error"
    if not representable:
        return
    labels, confusion = expected
    audit = json.loads(result.stdout)
    assert audit["labels"] == labels and audit["n_items"] == len(data[0])
    for name, matrix in confusion.items():
        system = audit["systems"][name]
        assert system["confusion"] == matrix
        accuracy = np.trace(np.array(matrix)) / len(data[0])
        assert system["metrics"]["accuracy"]["value"] == pytest.approx(accuracy)
