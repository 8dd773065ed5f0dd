"""Common tests over the spine's registries (scikit-learn's ``test_common.py`` style): a part is complete when it
passes these by being registered.

- every file format of :data:`auditor.io.load.READERS`: the same rows, written in that format by this file's own
  writer, read to the same ids and labels (and the format's reader is the one that takes the file);
- every task's file reader (labels, tags, segments, label sets, clusters): the same refusal of a missing file, a
  directory, an empty file, a compressed file, UTF-16 text and a byte that is not UTF-8, each naming the file
  (and the line), as :mod:`auditor.files` words it once;
- every report section: each section of each task kind's report (:data:`auditor.tasks.TASKS`, and lm-eval
  outcomes) renders on its own in HTML and in Markdown; every registered section says which task kinds it serves,
  and a section registered for every task reaches each of them.
Small fixtures written here (no real data), each built once per module.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from auditor.io.load import READERS, read_labels
from auditor.tasks import TASKS, task_module

#: The rows every format writes: ids and labels, with a non-ASCII label and one with a space.
ROWS = [("a1", "pos"), ("a2", "neg"), ("a3", "neutral"), ("a4", "négatif fort"), ("a5", "pos"), ("a6", "neg")]


def _tsv(folder: Path) -> Path:
    path = folder / "labels.tsv"
    path.write_text("id\tlabel\n" + "".join(f"{i}\t{label}\n" for i, label in ROWS), encoding="utf-8")
    return path


def _csv(folder: Path) -> Path:
    path = folder / "labels.csv"
    path.write_text("id,label\n" + "".join(f"{i},{label}\n" for i, label in ROWS), encoding="utf-8")
    return path


def _jsonl(folder: Path) -> Path:
    path = folder / "labels.jsonl"
    path.write_text("".join(json.dumps({"id": i, "label": label}) + "\n" for i, label in ROWS), encoding="utf-8")
    return path


def _parquet(folder: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "labels.parquet"
    pq.write_table(pa.table({"id": [i for i, _ in ROWS], "label": [label for _, label in ROWS]}), path)
    return path


#: Reader name -> writers of the same rows in that reader's format (a new reader adds its writer here).
WRITERS = {"parquet": (_parquet,), "jsonl": (_jsonl,), "delimited": (_tsv, _csv)}


def _read_tags(path):
    from auditor.tasks.tagging.reading import read_tagged

    return read_tagged(str(path))


def _read_segments(path):
    from auditor.tasks.translation.reading import read_lines

    return read_lines(path)


def _read_sets(path):
    from auditor.tasks.multilabel.reading import read_sets

    return read_sets(path)


def _read_clusters(path):
    from auditor.io.clusters import read_clusters

    return read_clusters(path, ["1", "2"], "item")


#: Every task's own file reader (classification's and multilabel's delimited files go through read_labels).
FILE_READERS = {"labels": read_labels, "tags": _read_tags, "segments": _read_segments, "sets": _read_sets,
                "clusters": _read_clusters}
#: A bad file -> (its bytes, or None for no file / a directory, and the refusal every reader gives).
BAD_FILES = {
    "missing": (None, r"missing\.txt: no such file"),
    "directory": ("dir", r"directory\.txt: is a directory; expected "),
    "empty": (b"", r"empty\.txt: the file is empty; expected "),
    "gzip": (b"\x1f\x8b\x08\x00rest", r"gzip\.txt: unknown format, looks like a gzip-compressed file; expected "),
    "utf16": ("a\tB-PER\n".encode("utf-16"), r"utf16\.txt: UTF-16 text; expected UTF-8"),
    "latin1": ("1\tcafé\n".encode("latin-1"), r"latin1\.txt line 1 \(byte 5\): not UTF-8 text \(found byte 0xe9\)"),
}


@pytest.mark.parametrize("reader", FILE_READERS)
@pytest.mark.parametrize("bad", BAD_FILES)
def test_every_reader_refuses_a_bad_file_in_the_same_words(reader, bad, tmp_path):
    from auditor.errors import InputError

    content, message = BAD_FILES[bad]
    path = tmp_path / f"{bad}.txt"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        FILE_READERS[reader](path)


def test_every_reader_has_a_writer_here():
    assert set(WRITERS) == {reader.name for reader in READERS}, "a reader without a common-test writer"


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.name)
def test_the_same_rows_read_to_the_same_column(reader, tmp_path):
    for write in WRITERS[reader.name]:
        path = write(tmp_path)
        raw = path.read_bytes()
        first = next(r for r in READERS if r.sniff(path.suffix, raw))
        assert first.name == reader.name, f"{path.name} is taken by {first.name}, not {reader.name}"
        column = read_labels(path)
        read = list(zip(column.id_array.to_pylist(), (column.categories[c] for c in column.codes)))
        assert read == ROWS, path.name
        assert column.lines is not None and len(column.lines) == len(ROWS)


def _outcomes():
    """A generation task's outcomes: three systems' 0/1 scores over 40 items, with their report."""
    from auditor.analyses.outcomes import analyse
    from auditor.report.outcomes import OutcomesAudit

    rng = np.random.default_rng(4)
    values = (rng.random((3, 40)) < np.array([[0.8], [0.5], [0.45]])).astype(float)
    sources = {name: {"path": f"{name}.jsonl", "sha256": "0" * 64, "n_items": 40} for name in ("x", "y", "z")}
    return OutcomesAudit.of(analyse("exact_match", ["x", "y", "z"], values, 50, 1, 0.05, "holm", sources))


@pytest.fixture(scope="module", params=[*sorted(TASKS), "outcomes"])
def reported(request, tmp_path_factory):
    """(task, report model) of each task kind's small fixture (the one ``test_tasks_common`` audits)."""
    from test_tasks_common import FIXTURES

    from auditor.options import AuditOptions

    task = request.param
    if task == "outcomes":
        return task, _outcomes().report_model(figures=False)
    paths, _ = FIXTURES[task](tmp_path_factory.mktemp(task))
    result = task_module(task).audit(paths[0], {Path(p).stem: p for p in paths[1:]},
                                     options=AuditOptions(bootstrap=40))
    if not hasattr(result, "report_model"):
        from auditor.report.build import build

        return task, build(result, figures=False)
    return task, result.report_model(figures=False)


def _for_summary(section):
    """``section`` with every block in the Markdown summary (which takes only what is marked for it)."""
    blocks = tuple(dataclasses.replace(b, for_summary=True) if hasattr(b, "for_summary") else b
                   for b in section.blocks)
    return dataclasses.replace(section, blocks=blocks, for_summary=True)


def test_every_section_renders_in_html_and_markdown(reported):
    from auditor.formats.html import render_html
    from auditor.formats.markdown import render_md

    task, report = reported
    assert report.section("summary") is not None and report.section("reproducibility") is not None, task
    for section in report.sections:
        alone = dataclasses.replace(report, sections=(_for_summary(section),))
        page = render_html(alone)
        assert section.title.split(":")[-1].strip() in page, (task, section.id)
        text = render_md(alone)
        assert text.strip(), (task, section.id)


def test_every_recommendation_the_report_shows_has_the_rules_appendix_it_points_to(reported):
    """"Rules that fired (each stated in the appendix …)": the tagging and translation reports said so with no rules
    appendix (it served classification only); every task kind that shows the rules fired now has the appendix."""
    from auditor.formats.html import render_html

    task, report = reported
    recommendation = report.section("recommendation")
    if recommendation is not None and "Rules that fired" in render_html(
            dataclasses.replace(report, sections=(recommendation,))):
        assert report.section("rules") is not None, task


def test_every_registered_section_says_which_tasks_it_serves_and_reaches_them(reported):
    from auditor.report import sections

    task, report = reported
    sections.registered()
    known = {*TASKS, "*"}
    for name, (_, _, tasks) in sections._REGISTERED.items():
        assert set(tasks) <= known, f"{name} serves an unknown task kind: {tasks}"
    if task != "outcomes":  # one metric: no rank disagreement between metrics
        assert report.section("rank-disagreement") is not None, f"the rank section registered for every task is " \
                                                                f"missing from the {task} report"
    ids = [s.id for s in report.sections]
    assert len(ids) == len(set(ids)), f"two {task} sections share an id: {ids}"
