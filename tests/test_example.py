"""``auditor example NAME -o DIR`` (issue 31): datasets fetched from a mirror on 127.0.0.1 that serves the shared
data (skipped where it is absent), every file's SHA-256 checked, laid out for ``auditor report``; one clear error
and nothing written when the network or a hash fails."""
from __future__ import annotations

import functools
import hashlib
import http.server
import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from auditor.datasets import catalogue, cefr, goemotions
from auditor.datasets.fetch import digest, fetch, report_command
from auditor.errors import FetchError, OutputError, UsageError


def serve(folder: Path):
    """An HTTP server on 127.0.0.1 (a free port) serving ``folder``, in a daemon thread."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def mirror(shared_data):
    """The base URL of a local mirror of the shared data (its folders are the catalogue's names)."""
    server = serve(shared_data)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_every_recorded_hash_is_of_the_shared_copy(shared_data):
    """The catalogue's SHA-256 are those of the files as the shared data holds them (transcribed files: of their
    parsed JSON), so a download of the pinned commit is checked against the bytes the tests use."""
    for dataset in catalogue.DATASETS.values():
        for file in dataset.files:
            data = (shared_data / dataset.name / file.name).read_bytes()
            assert digest(file, data) == file.sha256, (dataset.name, file.name)


def test_semeval_from_the_mirror_reports_the_published_accuracy(mirror, shared_data, tmp_path):
    out = tmp_path / "semeval"
    result = CliRunner().invoke(cli, ["example", "semeval2018-task12", "-o", str(out), "--base-url", mirror])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"auditor report {out}/gold/truth.txt {out}/submissions/*.txt -o {out}/report"
    assert sha256(out / "gold" / "truth.txt") == sha256(shared_data / "semeval2018-task12" / "gold" / "truth.txt")
    assert len(list((out / "submissions").glob("*.txt"))) == 23 and (out / "SOURCE.md").is_file()
    assert "Apache-2.0" in (out / "SOURCE.md").read_text(encoding="utf-8")
    files = sorted(str(p) for p in (out / "submissions").glob("*.txt"))
    scored = CliRunner().invoke(cli, ["score", str(out / "gold" / "truth.txt"), *files, "--json", "--bootstrap", "0",
                                      "--quiet"])
    assert scored.exit_code == 0, scored.output
    # habernal/semeval2018-task12-results README: GIST 0.712 (metadata-public.xml names 437952 GIST)
    assert round(json.loads(scored.stdout)["systems"]["GIST"]["metrics"]["accuracy"]["value"], 3) == 0.712
    assert leftovers(tmp_path) == ["semeval"]


def test_wmt21_from_the_mirror_named_by_the_environment(mirror, tmp_path, monkeypatch):
    from test_datasets import WMT21_FILES

    monkeypatch.setenv("AUDITOR_EXAMPLES_URL", mirror)
    out = tmp_path / "wmt21"
    result = CliRunner().invoke(cli, ["example", "wmt21-ted-mqm", "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "--task translation" in result.stdout and f"--human {out}/human.tsv" in result.stdout
    assert {name: sha256(out / name) for name in WMT21_FILES} == WMT21_FILES


def test_a_changed_file_is_one_error_and_nothing_is_written(tmp_path):
    served = tmp_path / "mirror" / "semeval2018-task12" / "gold"
    served.mkdir(parents=True)
    (served / "truth.txt").write_text("# not the organisers' file\n1 0\n", encoding="utf-8")
    server = serve(tmp_path / "mirror")
    try:
        out = tmp_path / "out" / "semeval"
        out.parent.mkdir()
        result = CliRunner().invoke(cli, ["example", "semeval2018-task12", "-o", str(out), "--base-url",
                                          f"http://127.0.0.1:{server.server_address[1]}"])
        assert result.exit_code == 4
        assert result.stderr.count("auditor: error:") == 1 and "gold/truth.txt: SHA-256" in result.stderr
        assert "nothing was written" in result.stderr
        missing = CliRunner().invoke(cli, ["example", "wmt21-ted-mqm", "-o", str(out), "--base-url",
                                           f"http://127.0.0.1:{server.server_address[1]}"])
        assert missing.exit_code == 4 and "answered 404" in missing.stderr
    finally:
        server.shutdown()
        server.server_close()
    assert leftovers(out.parent) == []


def test_no_network_is_one_error_and_nothing_is_written(tmp_path):
    closed = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    port = closed.server_address[1]
    closed.server_close()
    with pytest.raises(FetchError, match="cannot download it"):
        fetch("wmt21-ted-mqm", tmp_path / "wmt21", base_url=f"http://127.0.0.1:{port}")
    assert leftovers(tmp_path) == []


def test_an_occupied_folder_or_unknown_name_is_refused_before_downloading(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputError, match="not an empty folder"):
        fetch("wmt21-ted-mqm", tmp_path / "full", base_url="http://127.0.0.1:9")
    with pytest.raises(UsageError, match="the examples are germeval2018"):
        fetch("wmt22-de-en", tmp_path / "x")
    assert leftovers(tmp_path) == ["full"]


def test_a_missing_builder_dependency_is_named_before_downloading(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sklearn" else real(name, *a))
    with pytest.raises(UsageError, match=r"pip install 'auditor\[examples\]'"):
        fetch("cefr-sp-wikiauto", tmp_path / "cefr", base_url="http://127.0.0.1:9")
    assert leftovers(tmp_path) == []


def test_a_transcribed_file_is_checked_by_its_content():
    file = catalogue.UpstreamFile("x.json", "x.json", "", transcribed=True)
    assert digest(file, b'{"b": [1, 2],\n "a": "\\u00e9"}') == digest(file, '{"a":"é","b":[1,2]}'.encode())
    plain = catalogue.UpstreamFile("x.json", "x.json", "")
    assert digest(plain, b'{"a": 1}') != digest(plain, b'{"a":1}')


def test_report_command_prefixes_files_only():
    assert report_command("out/", ["--task", "ordinal", "--order-file", "order.txt", "gold.tsv", "systems/*.tsv"]) \
        == "auditor report --task ordinal --order-file out/order.txt out/gold.tsv out/systems/*.tsv -o out/report"


# ------------------------------------------------- builders of gold-only datasets, on small inputs written here

WORDS = "calm happy sad angry river stone light quick slow bright dark green".split()


def test_goemotions_layout_has_the_multilabel_shapes(tmp_path):
    pytest.importorskip("sklearn")
    names = ["joy", "anger", "neutral"]
    (tmp_path / "emotions.txt").write_text("\n".join(names), encoding="utf-8")
    (tmp_path / "ekman_mapping.json").write_text('{"joy": ["joy"], "anger": ["anger"]}', encoding="utf-8")
    (tmp_path / "sentiment_dict.json").write_text('{"positive": ["joy"], "negative": ["anger"]}', encoding="utf-8")
    for split, n in (("train", 90), ("test", 30)):
        rows = [f"{WORDS[i % 12]} {WORDS[(i * 5) % 12]}\t{'0,1' if i % 7 == 0 else i % 3}\t{split}{i}"
                for i in range(n)]
        (tmp_path / f"{split}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert goemotions.lay_out(tmp_path, out) == ["--task", "multilabel", "gold.tsv", "systems/*.tsv"]
    gold = (out / "gold.tsv").read_text(encoding="utf-8").splitlines()
    assert gold[0] == "id\tlabels" and gold[1] == "test0\tjoy,anger" and gold[2] == "test1\tanger"
    systems = {p.stem: p.read_text(encoding="utf-8").splitlines() for p in (out / "systems").glob("*.tsv")}
    assert set(systems) == {"tfidf-lr-t30", "tfidf-lr-t50", "tfidf-lr-top1", "always-neutral", "prior-sampler"}
    for lines in systems.values():
        assert [line.split("\t")[0] for line in lines] == [line.split("\t")[0] for line in gold]
    assert all(line.endswith("\tneutral") for line in systems["always-neutral"][1:])
    scores = [line.split("\t") for line in (out / "scores" / "tfidf-lr.tsv").read_text(encoding="utf-8").splitlines()]
    assert scores[0] == ["id", *names]
    for row, line in zip(scores[1:], systems["tfidf-lr-t30"][1:]):  # the scores thresholded at 0.3 are t30
        assert line.split("\t")[1] == ",".join(n for n, p in zip(names, row[1:]) if float(p) >= 0.3)
    assert (out / "ekman.tsv").read_text(encoding="utf-8") == ("emotion\tgroup\njoy\tjoy\nanger\tanger\n"
                                                               "neutral\tneutral\n")
    assert (out / "labels.txt").read_text(encoding="utf-8") == "joy\nanger\nneutral\n"


def test_cefr_layout_has_the_ordinal_shapes(tmp_path):
    pytest.importorskip("sklearn")
    for file, n in ((cefr.TRAIN, 120), (cefr.TEST, 24)):
        rows = [f"{' '.join(WORDS[: 1 + i % 12])}\t{1 + (i % 12) // 2}\t{min(6, 2 + (i % 12) // 2)}" for i in range(n)]
        (tmp_path / file).write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert cefr.lay_out(tmp_path, out) == ["--task", "ordinal", "--order-file", "order.txt", "gold.tsv",
                                           "systems/*.tsv"]
    gold = (out / "gold.tsv").read_text(encoding="utf-8").splitlines()
    assert gold[:3] == ["id\tlevel", "test-1\tA1", "test-2\tA1"] and len(gold) == 25
    assert (out / "annotator-b.tsv").read_text(encoding="utf-8").splitlines()[1] == "test-1\tA2"
    assert (out / "order.txt").read_text(encoding="utf-8") == "A1,A2,B1,B2,C1,C2\n"
    for path in (out / "systems").glob("*.tsv"):
        lines = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
        assert [row[0] for row in lines] == [line.split("\t")[0] for line in gold], path.stem
        assert {row[1] for row in lines[1:]} <= set(cefr.LEVELS), path.stem
    assert {p.stem for p in (out / "systems").glob("*.tsv")} == {"ridge-rounded", "lr-nominal", "length-only",
                                                                  "majority"}


def test_germeval_layout_has_gold_systems_slices_and_scores(tmp_path):
    pytest.importorskip("sklearn")
    from auditor.datasets import germeval

    labels = ["OTHER", "ABUSE", "INSULT", "PROFANITY"]
    for file, n in ((germeval.TRAIN, 80), (germeval.TEST, 20)):
        rows = [f"{'@user ' if i % 3 == 0 else ''}{WORDS[i % 12]} {WORDS[(i * 7) % 12]}{' @x' if i % 5 == 1 else ''}"
                f"\t{'OTHER' if i % 4 == 0 else 'OFFENSE'}\t{labels[i % 4]}" for i in range(n)]
        (tmp_path / file).write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert germeval.lay_out(tmp_path, out) == ["gold.tsv", "systems/*.tsv"]
    gold = (out / "gold.tsv").read_text(encoding="utf-8").splitlines()
    assert gold[:3] == ["id\tlabel", "1\tOTHER", "2\tABUSE"] and len(gold) == 21
    slices = (out / "slices.tsv").read_text(encoding="utf-8").splitlines()
    assert slices[:3] == ["id\tgroup", "1\treply", "2\tmention"] and slices[3] == "3\tno-mention"
    assert {p.stem for p in (out / "systems").glob("*.tsv")} == set(germeval.classifiers())
    for path in (out / "systems").glob("*.tsv"):
        assert [line.split("\t")[0] for line in path.read_text(encoding="utf-8").splitlines()] == \
            [line.split("\t")[0] for line in gold], path.stem
    scores = [line.split("\t")
              for line in (out / "scores" / "word-logreg.tsv").read_text(encoding="utf-8").splitlines()]
    predicted = (out / "systems" / "word-logreg.tsv").read_text(encoding="utf-8").splitlines()
    assert scores[0] == ["id", *sorted(labels)]
    for row, line in zip(scores[1:], predicted[1:]):  # its argmax is the system's label
        values = [float(v) for v in row[1:]]
        assert abs(sum(values) - 1) < 1e-5 and scores[0][1 + values.index(max(values))] == line.split("\t")[1]
