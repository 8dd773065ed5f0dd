"""Stage 1, load: every format, header or not, comments, separators, BOM, CRLF, arrays;
and one test per bad input that the loader itself catches."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from auditor.errors import InputError
from auditor.load import (
    LabelColumn, from_values, parse_system_argument, read_labels, semeval_names,
)


def _check(column: LabelColumn, ids, labels, lines=None):
    assert column.labels.tolist() == labels
    assert (column.ids is None and ids is None) or column.ids.tolist() == ids
    if lines is not None:
        assert column.lines.tolist() == lines
    assert column.labels.dtype.kind == "U"


# ----------------------------------------------------------------------- formats

@pytest.mark.parametrize("name, content", [
    ("a.tsv", "a1\tpos\na2\tneg\na3\tpos\n"),
    ("a.tsv", "id\tlabel\na1\tpos\na2\tneg\na3\tpos\n"),
    ("a.csv", "a1,pos\na2,neg\na3,pos\n"),
    ("a.csv", "id,label\na1,pos\na2,neg\na3,pos\n"),
    ("a.txt", "a1 pos\na2  neg\na3\tpos\n"),
    ("a.txt", "a1\tpos\na2\tneg\na3\tpos"),
    ("a.txt", "id label\na1 pos\na2 neg\na3 pos\n"),
    ("a.pred", "a1 pos\na2 neg\na3 pos\n"),
    ("a.jsonl", '{"id": "a1", "label": "pos"}\n{"id": "a2", "label": "neg"}\n'
                '{"id": "a3", "label": "pos"}\n'),
    ("a.ndjson", '{"id": "a1", "prediction": "pos", "score": 0.9}\n'
                 '{"id": "a2", "prediction": "neg", "score": 0.1}\n'
                 '{"id": "a3", "prediction": "pos", "score": 0.7}\n'),
    ("a.json", '[{"id": "a1", "y": "pos"}, {"id": "a2", "y": "neg"}, {"id": "a3", "y": "pos"}]'),
])
def test_formats_with_ids(write, name, content):
    column = read_labels(write(name, content))
    _check(column, ["a1", "a2", "a3"], ["pos", "neg", "pos"])


def test_line_numbers_skip_header_comments_and_blank_lines(write):
    path = write("g.tsv", "# made by hand\n\nid\tlabel\n# a comment\na1\tpos\n\n  \na2\tneg\n")
    _check(read_labels(path), ["a1", "a2"], ["pos", "neg"], lines=[5, 8])


def test_commented_header_and_comments_like_semeval_truth(write):
    path = write("truth.txt", "# truth\n#\n#id\tcorrectLabelW0orW1\nx_1\t0\nx_2 1\n")
    _check(read_labels(path), ["x_1", "x_2"], ["0", "1"], lines=[4, 5])


def test_space_separated_after_tab_header(write):
    # SemEval-2018 submission 437256: the header uses a tab, the data lines a space.
    path = write("s.txt", "#id\tcorrectLabelW0orW1\nx_1 1\nx_2 0")
    _check(read_labels(path), ["x_1", "x_2"], ["1", "0"])


def test_bom_and_crlf(write):
    path = write("g.csv", "\ufeffid,label\r\na1,pos\r\na2,neg\r\n")
    column = read_labels(path)
    _check(column, ["a1", "a2"], ["pos", "neg"], lines=[2, 3])


def test_one_column_is_labels_only(write):
    _check(read_labels(write("g.txt", "pos\nneg\npos\n")), None, ["pos", "neg", "pos"])
    _check(read_labels(write("h.csv", "label\npos\nneg\n")), None, ["pos", "neg"])
    _check(read_labels(write("p.jsonl", '{"pred": 1}\n{"pred": 0}\n')), None, ["1", "0"])
    _check(read_labels(write("q.jsonl", '1\n0\n"x"\n')), None, ["1", "0", "x"])


def test_yes_no_label_y_is_data_not_a_header(write):
    # "y" is also a column name, but it occurs again below: it is a label.
    _check(read_labels(write("g.txt", "y\nn\ny\n")), None, ["y", "n", "y"])


def test_unknown_names_are_an_item_not_a_header(write):
    # Issue 9: a header is found by known column names only, never because the first row
    # "does not look like" the others (before, `tweet<TAB>sentiment` above numbers was a header).
    column = read_labels(write("g.tsv", "tweet\tsentiment\n1\t0\n2\t1\n"))
    _check(column, ["tweet", "1", "2"], ["sentiment", "0", "1"], lines=[1, 2, 3])


def test_id_with_unknown_label_column_name_is_refused(write):
    with pytest.raises(InputError, match=r"g\.tsv line 1: 'id<TAB>sentiment' looks like a header "
                                         r"but 'sentiment' is not a known column name"):
        read_labels(write("g.tsv", "id\tsentiment\n1\t0\n2\t1\n"))


def test_swapped_columns_by_header(write):
    _check(read_labels(write("g.csv", "label,id\npos,a1\nneg,a2\n")), ["a1", "a2"], ["pos", "neg"])


def test_wide_csv_with_header_picks_id_and_label(write):
    content = 'text,label,id\n"hello, world",pos,a1\n"a ""quoted"" one",neg,a2\n'
    _check(read_labels(write("g.csv", content)), ["a1", "a2"], ["pos", "neg"], lines=[2, 3])


def test_wide_tsv_with_gold_and_pred_needs_column(write):
    path = write("g.tsv", "id\ttext\tgold\tpred\na1\thi\tpos\tneg\na2\tho\tneg\tneg\n")
    with pytest.raises(InputError, match=r"g\.tsv.*more than one could be the label.*'gold', 'pred'"):
        read_labels(path)
    _check(read_labels(path, column="pred"), ["a1", "a2"], ["neg", "neg"])
    _check(read_labels(path, column="gold"), ["a1", "a2"], ["pos", "neg"])


def test_labels_with_spaces_in_tsv_and_stripped_fields(write):
    path = write("g.tsv", "a1\tvery positive \na2\t negative\n")
    _check(read_labels(path), ["a1", "a2"], ["very positive", "negative"])


def test_json_numbers_keep_their_text(write):
    path = write("p.jsonl", '{"id": 1, "label": 1}\n{"id": 2, "label": 0.0}\n'
                             '{"id": 3, "label": true}\n{"id": 4, "label": "b"}\n')
    _check(read_labels(path), ["1", "2", "3", "4"], ["1", "0", "True", "b"])


def test_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": ["a1", "a2", "a3"], "score": [0.1, 0.2, 0.3],
                             "label": [1, 0, 1]}), path)
    column = read_labels(path)
    _check(column, ["a1", "a2", "a3"], ["1", "0", "1"], lines=[1, 2, 3])
    assert column.format == "parquet" and column.where(1).endswith("p.parquet row 2")
    labels_only = tmp_path / "q.parquet"
    pq.write_table(pa.table({"prediction": ["x", "y"]}), labels_only)
    _check(read_labels(labels_only), None, ["x", "y"])


def test_parquet_detected_by_magic_bytes(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "p.bin"
    pq.write_table(pa.table({"id": ["a"], "label": ["b"]}), path)
    _check(read_labels(path), ["a"], ["b"])


def test_sha256_and_source(write):
    content = "a1\tpos\na2\tneg\n"
    path = write("g.tsv", content)
    column = read_labels(path)
    assert column.sha256 == hashlib.sha256(content.encode()).hexdigest()
    assert column.source == path and column.where(0) == f"{path} line 1"
    assert len(column) == 2
    assert read_labels(Path(path)).source == path


def test_large_file_is_read_in_bulk(tmp_path):
    n = 200_000
    rng = np.random.default_rng(0)
    labels = rng.choice(["pos", "neg", "neutral"], n)
    path = tmp_path / "big.txt"
    path.write_text("".join(f"item{i} {label}\n" for i, label in enumerate(labels)))
    column = read_labels(path)
    assert len(column) == n and column.labels.tolist() == labels.tolist()
    assert column.ids[-1] == f"item{n - 1}" and column.lines[-1] == n


# ----------------------------------------------------------------------- arrays

def test_from_values_list_and_array():
    column = from_values(["a", "b", 1, 2.0, None], "A")
    assert column.source == "<A>" and column.ids is None and column.lines is None
    assert column.labels.tolist() == ["a", "b", "1", "2", "None"]
    assert from_values(np.array([0, 1, 1]), "B").labels.tolist() == ["0", "1", "1"]
    assert from_values(np.array([0.0, 1.0, np.nan]), "C").labels.tolist() == ["0", "1", "nan"]
    assert from_values(np.array([True, False]), "D").labels.tolist() == ["True", "False"]
    assert from_values({"x": "pos", "y": "neg"}, "E").ids.tolist() == ["x", "y"]
    assert from_values(["a"], "A").where(0) == "<A> index 0"


def test_from_values_pandas_series_index_as_ids():
    pd = pytest.importorskip("pandas")
    plain = from_values(pd.Series(["a", "b"]), "gold")
    assert plain.ids is None and plain.labels.tolist() == ["a", "b"]
    indexed = from_values(pd.Series([1, 0], index=["x", "y"]), "sys")
    assert indexed.ids.tolist() == ["x", "y"] and indexed.labels.tolist() == ["1", "0"]
    shifted = from_values(pd.Series(["a", "b"], index=[3, 7]), "sys")
    assert shifted.ids.tolist() == ["3", "7"]
    categorical = from_values(pd.Series(["a", None, "b"], dtype="category"), "c")
    assert categorical.labels.tolist() == ["a", "nan", "b"]
    nullable = from_values(pd.Series([1, None, 0], dtype="Int64"), "n")
    assert nullable.labels.tolist() == ["1", "nan", "0"]


def test_from_values_rejects_non_sequences():
    with pytest.raises(InputError, match="<A>: expected a sequence of labels.*found str"):
        from_values("abc", "A")
    with pytest.raises(InputError, match=r"<B>: expected a one-dimensional.*shape \(2, 2\)"):
        from_values(np.zeros((2, 2)), "B")
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"<C>: expected one column.*table with columns.*'id', 'label'"):
        from_values(pd.DataFrame({"id": [1], "label": [2]}), "C")


# ----------------------------------------------------------------------- arguments

def test_parse_system_argument(tmp_path, monkeypatch):
    assert parse_system_argument("runs/bert.tsv") == ("bert", "runs/bert.tsv")
    assert parse_system_argument("BERT=runs/bert.tsv") == ("BERT", "runs/bert.tsv")
    assert parse_system_argument("a b=x=y.tsv") == ("a b", "x=y.tsv")
    odd = tmp_path / "lr=0.1.tsv"
    odd.write_text("a\tb\n")
    assert parse_system_argument(str(odd)) == ("lr=0.1", str(odd))
    with pytest.raises(InputError, match=r"'=x\.tsv': empty name; expected PATH or NAME=PATH"):
        parse_system_argument("=x.tsv")
    with pytest.raises(InputError, match=r"'A=': empty path"):
        parse_system_argument("A=")


def test_semeval_names(examples_dir, tmp_path):
    names = semeval_names(examples_dir / "semeval2018-task12" / "submissions")
    assert names["437952"] == "GIST"
    assert names["438181"] == "TakeLab"  # shownName wins over the long systemName
    assert names["435053"] == "Joker"  # no systemName: the username
    assert names["436419"] == "rgtjf (withdrawn)"
    assert len(names) == 23
    assert semeval_names(tmp_path) == {}
    evil = tmp_path / "metadata-public.xml"
    evil.write_text('<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaa">]>'
                    '<metadata><participant submissionID="1" systemName="&a;"/></metadata>')
    with pytest.raises(InputError, match="metadata-public.xml: declares a DOCTYPE"):
        semeval_names(tmp_path)


# ----------------------------------------------------------------------- bad input

def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.tsv")
    with pytest.raises(InputError, match=r"nope\.tsv: no such file"):
        read_labels(path)


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(InputError, match="is a directory; expected a file of labels"):
        read_labels(tmp_path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read anything")
def test_unreadable_file(write):
    path = write("locked.tsv", "a\tb\n")
    os.chmod(path, 0)
    with pytest.raises(InputError, match=r"locked\.tsv: cannot read the file \(permission denied\)"):
        read_labels(path)


def test_empty_file(write):
    with pytest.raises(InputError, match=r"e\.tsv: the file is empty; expected lines of `id<TAB>label`"):
        read_labels(write("e.tsv", ""))


def test_only_comments(write):
    with pytest.raises(InputError, match=r"c\.tsv: no items \(only comments and blank lines\)"):
        read_labels(write("c.tsv", "# nothing\n\n"))


def test_only_header(write):
    with pytest.raises(InputError, match=r"h\.tsv: no items, only a header \(id<TAB>label\)"):
        read_labels(write("h.tsv", "id\tlabel\n"))


@pytest.mark.parametrize("name, content, what", [
    ("p.xlsx", b"anything", r"unknown format \(\.xlsx, an Excel workbook\)"),
    ("p.tsv.gz", b"\x1f\x8b\x08\x00rest", "unknown format, looks like a gzip-compressed file"),
    ("p.bin", b"\x00\x01\x02binary", r"unknown format \(binary data\)"),
    ("p.parquet", b"id\tlabel\n", r"not a Parquet file \(no PAR1 magic bytes\)"),
])
def test_unknown_format(write, name, content, what):
    with pytest.raises(InputError, match=rf"{name.replace('.', chr(92) + '.')}: {what}; expected CSV, TSV"):
        read_labels(write(name, content))


def test_non_utf8_names_line_and_byte(write):
    path = write("latin1.tsv", "id\tlabel\na1\tpos\na2\tn\u00e9g\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1\.tsv line 3 \(byte 20\): not UTF-8 text "
                                         r"\(found byte 0xe9\); expected UTF-8"):
        read_labels(path)


def test_utf16(write):
    with pytest.raises(InputError, match=r"u\.tsv: UTF-16 text; expected UTF-8"):
        read_labels(write("u.tsv", "a\tb\n".encode("utf-16")))


def test_wrong_number_of_columns_names_line(write):
    path = write("s.tsv", "id\tlabel\na1\tpos\na2\tneg\textra\n")
    with pytest.raises(InputError, match=r"s\.tsv line 3: found 3 fields \('a2<TAB>neg<TAB>extra'\); "
                                         r"expected 2 like the header \(id<TAB>label\)"):
        read_labels(path)


def test_missing_label_column_in_whitespace_file(write):
    path = write("s.txt", "a1 pos\na2\na3 neg\n")
    with pytest.raises(InputError, match=r"s\.txt line 2: found 1 field \('a2'\); expected 2 like line 1"):
        read_labels(path)


def test_many_columns_without_header(write):
    with pytest.raises(InputError, match=r"w\.csv: found 3 columns and no header; expected 2 columns "
                                         r"\(`id,label`\), 1 column"):
        read_labels(write("w.csv", "a1,pos,0.3\na2,neg,0.1\n"))


def test_header_without_label_column(write):
    with pytest.raises(InputError, match=r"w\.csv line 1: 'id,text,score' looks like a header but "
                                         r"'text', 'score' are not known column names; expected a "
                                         r"header naming an id column .* and a label column"):
        read_labels(write("w.csv", "id,text,score\na1,hi,0.3\n"))


def test_unknown_column_requested(write):
    with pytest.raises(InputError, match=r"w\.csv: no column named 'pred'; found columns 'id', 'label'"):
        read_labels(write("w.csv", "id,label\na1,pos\n"), column="pred")


def test_invalid_json_line(write):
    path = write("p.jsonl", '{"id": "a1", "label": "pos"}\n{"id": "a2", "label": }\n')
    with pytest.raises(InputError, match=r"p\.jsonl line 2: invalid JSON \(Expecting value\); "
                                         r"expected one JSON object per line"):
        read_labels(path)


def test_json_line_without_label_key(write):
    path = write("p.jsonl", '{"id": "a1", "label": "pos"}\n\n{"id": "a2", "lab": "neg"}\n')
    with pytest.raises(InputError, match=r"p\.jsonl line 3: found 'id', 'lab'; expected an object "
                                         r"with 'id' and 'label' like line 1"):
        read_labels(path)


def test_json_keys_not_recognised(write):
    with pytest.raises(InputError, match=r"p\.jsonl line 1: no label key; found keys 'a', 'b'; "
                                         r"expected one named label, gold, prediction"):
        read_labels(write("p.jsonl", '{"a": 1, "b": 2}\n'))


def test_tsv_extension_with_spaces_is_sniffed(write):
    _check(read_labels(write("s.tsv", "a1 pos\na2 neg\n")), ["a1", "a2"], ["pos", "neg"])
    _check(read_labels(write("s.csv", "a1\tpos\na2\tneg\n")), ["a1", "a2"], ["pos", "neg"])


def test_non_utf8_offset_counts_the_bom(write):
    path = write("bom.txt", b"\xef\xbb\xbfa1 pos\na2 n\xe9g\n")
    with pytest.raises(InputError, match=r"bom\.txt line 2 \(byte 14\): not UTF-8"):
        read_labels(path)
