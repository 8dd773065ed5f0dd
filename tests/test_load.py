"""Stage 1, load: every format, header or not, comments, separators, BOM, CRLF, arrays;
and one test per bad input that the loader itself catches."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.io.load import LabelColumn, from_values, read_labels
from auditor.io.semeval import semeval_names
from auditor.options import parse_system_argument


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


def test_semeval_names(semeval2018_dir, tmp_path):
    names = semeval_names(semeval2018_dir / "submissions")
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
    with pytest.raises(InputError, match=r"e\.tsv: the file is empty; expected a file of labels \(lines of "
                                         r"`id<TAB>label`\)"):
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


@pytest.mark.parametrize("line, problem", [
    ('{"id": "a2", "label": "neg"}, {"id": "a3", "label": "pos"}', r"more than one JSON value on one line"),
    ('{"id": "a2", "label": "neg"} {"id": "a3", "label": "pos"}', r"more than one JSON value on one line"),
    ('{"id": "a2", "label": "neg"} x', r"text after the JSON value \('x'\)"),
])
def test_two_json_values_on_one_line_are_refused_naming_the_line(write, line, problem):
    # joined into one array, "{...}, {...}" would read as two records and shift every later line
    path = write("p.jsonl", '{"id": "a1", "label": "pos"}\n' + line + '\n{"id": "a4", "label": "neg"}\n')
    with pytest.raises(InputError, match=rf"p\.jsonl line 2: {problem}; expected one JSON object per line"):
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


# ----------------------------------------------------------------------- issue 9: no silent drops

def test_hashtag_ids_and_labels_are_items_not_comments(write):
    # A hashtag is a normal label in NLP; before, `#happy` lines were dropped as comments.
    _check(read_labels(write("h.tsv", "#a1\t#happy\n#a2\t#sad\n")), ["#a1", "#a2"],
           ["#happy", "#sad"], lines=[1, 2])
    _check(read_labels(write("h.txt", "#happy\n#sad\n#happy\n")), None,
           ["#happy", "#sad", "#happy"], lines=[1, 2, 3])


def test_comments_only_before_the_first_item(write):
    column = read_labels(write("c.tsv", "# made by hand\n#\na1\tpos\n# a2\tneg\na3\tneg\n"))
    _check(column, ["a1", "# a2", "a3"], ["pos", "neg", "neg"], lines=[3, 4, 5])
    assert column.skipped == {"comment": 2}


@pytest.mark.parametrize("first", ["LABEL_2", "label_2", "y", "class", "target"])
def test_label_that_looks_like_a_name_in_a_one_column_file_is_an_item(write, first):
    column = read_labels(write("l.txt", f"{first}\nLABEL_1\n{first}\n"))
    _check(column, None, [first, "LABEL_1", first])
    assert column.skipped == {}


def test_float_like_ids_do_not_make_the_first_row_a_header(write):
    # `a0` was taken as a header because `308868e07268_1` parses as a float.
    _check(read_labels(write("f.tsv", "a0\tx\n308868e07268_1\ty\n1e5\tx\n")),
           ["a0", "308868e07268_1", "1e5"], ["x", "y", "x"])


def test_only_newlines_split_lines(write):
    # str.splitlines splits on \x1c, \x85, \u2028...: a line must never vanish or split.
    column = read_labels(write("c.txt", "a\n\x1c\nb\u2028c\nd\x85e\n\x0bf\n"))
    _check(column, None, ["a", "\x1c", "b\u2028c", "d\x85e", "\x0bf"], lines=[1, 2, 3, 4, 5])


def test_control_character_label_is_refused_not_dropped(write):
    from auditor.io.validate import align

    gold = read_labels(write("g.txt", "a\n\x1c\nb\n"))
    with pytest.raises(InputError, match=r"g\.txt line 2: label of only whitespace or control "
                                         r"characters \('\\x1c'\)"):
        align(gold, {})


def test_every_skipped_line_is_counted(write):
    column = read_labels(write("g.tsv", "# c\n\nid\tlabel\n# c2\na1\tpos\n\n  \na2\tneg\n\n"))
    assert len(column) == 2 and column.skipped == {"blank": 4, "comment": 2, "header": 1}
    trailing = read_labels(write("t.txt", "pos\nneg\n\n"))
    assert len(trailing) == 2 and trailing.skipped == {"blank": 1}
    jsonl = read_labels(write("j.jsonl", '{"id": 1, "label": 1}\n\n{"id": 2, "label": 2}\n'))
    assert jsonl.skipped == {"blank": 1}


@pytest.mark.parametrize("name, content, line", [
    ("g.txt", "pos\n\nneg\npos\n", 2), ("g.jsonl", '"pos"\n"neg"\n \n"pos"\n', 3)])
def test_blank_line_between_labels_only_items_is_refused(write, name, content, line):
    # Items without ids are matched by line: skipping a blank line would shift the rest.
    with pytest.raises(InputError, match=rf"g\.\w+ line {line}: blank line between items"):
        read_labels(write(name, content))
    clean = "\n".join(line for line in content.split("\n") if line.strip())
    assert len(read_labels(write("t" + name, "\n" + clean + "\n\n"))) == 3  # before / after: fine


def test_header_by_known_names_only(write):
    _check(read_labels(write("g.tsv", "ID\tGold_Label\na\tx\n")), ["a"], ["x"])
    _check(read_labels(write("g.csv", "label\nx\ny\n")), None, ["x", "y"])
    _check(read_labels(write("h.csv", "text,label,id\nhi,x,a\n")), ["a"], ["x"])


def test_parquet_without_label_column_is_refused_naming_columns(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": ["a1", "a2"], "score": [0.1, 0.9]}), path)
    with pytest.raises(InputError, match=r"p\.parquet: no label column; found columns 'id', 'score'"):
        read_labels(path)


@pytest.mark.parametrize("values, kind", [([["pos"], ["neg"]], "list"), ([{"x": 1}, {"x": 2}], "struct")])
def test_parquet_list_and_struct_labels_are_refused(tmp_path, values, kind):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": ["a1", "a2"], "label": values}), path)
    with pytest.raises(InputError, match=rf"p\.parquet: label column 'label' holds {kind}<"):
        read_labels(path)


def test_csv_and_arrow_readers_agree(write):
    # The pyarrow body reader and the line-by-line reader give the same items and lines.
    from auditor.io.delimited import parse_delimited as _parse_delimited

    for name, content in [("a.tsv", "id\tlabel\na1\t pos \n\na2\tneg\n\n"),
                          ("b.csv", "# c\nid,label\na1,x y\na2,#z\n"),
                          ("c.txt", "\nx\ny\n#z\n\n"), ("d.tsv", "id\tlabel\na1\tpos\n\na2\tneg\n\n\n"),
                          ("e.tsv", "a1\tpos\na2\tneg\n\n"), ("f.txt", "x\ny\n\n\n"), ("g.tsv", "a1\tpos\na2\tneg")]:
        fmt = {".tsv": "tsv", ".csv": "csv"}.get(name[1:], "text")
        fast = _parse_delimited(content.encode(), name, fmt, "", None, fast=True)
        slow = _parse_delimited(content.encode(), name, fmt, "", None, fast=False)
        assert fast.labels.tolist() == slow.labels.tolist()
        assert (fast.ids is None) == (slow.ids is None)
        assert fast.ids is None or fast.ids.tolist() == slow.ids.tolist()
        assert fast.lines.tolist() == slow.lines.tolist() and fast.skipped == slow.skipped


# ----------------------------------------------------------------------- issue 9: clear errors

def test_lone_surrogate_label_in_jsonl(write):
    with pytest.raises(InputError, match=r"s\.jsonl line 2: label '\\ud800' is not valid Unicode"):
        read_labels(write("s.jsonl", '{"id": "a", "label": "x"}\n{"id": "b", "label": "\\ud800"}\n'))


def test_json_nested_100k_deep(write):
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(InputError, match=r"d\.jsonl line 1: JSON nested too deeply"):
        read_labels(write("d.jsonl", f'{{"id": 1, "label": {deep}}}\n'))
    with pytest.raises(InputError, match=r"e\.json: JSON nested too deeply"):
        read_labels(write("e.json", deep))


def test_json_integer_over_4300_digits(write):
    with pytest.raises(InputError, match=r"i\.jsonl line 1: an integer of more than 4,300 digits"):
        read_labels(write("i.jsonl", '{"id": 1, "label": ' + "7" * 5000 + "}\n"))


def test_json_nested_label(write):
    with pytest.raises(InputError, match=r"n\.jsonl line 2: label is a JSON array; expected a "
                                         r"string or number"):
        read_labels(write("n.jsonl", '{"id": 1, "label": "a"}\n{"id": 2, "label": ["b"]}\n'))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.tsv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"pipe\.tsv: is a FIFO \(named pipe\), not a regular file"):
        read_labels(fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_without_reading():
    with pytest.raises(InputError, match=r"/dev/zero: is a character device, not a regular file"):
        read_labels("/dev/zero")


def test_label_and_id_length_limit(write):
    from auditor.io.load import MAX_LABEL_CHARS

    ok = read_labels(write("ok.tsv", f"a\t{'x' * MAX_LABEL_CHARS}\nb\ty\n"))
    assert len(ok.categories[ok.codes[0]]) == MAX_LABEL_CHARS
    with pytest.raises(InputError, match=r"long\.tsv line 2: label of 10,001 characters; labels "
                                         r"are at most 10,000 characters"):
        read_labels(write("long.tsv", f"a\ty\nb\t{'x' * 10_001}\n"))
    with pytest.raises(InputError, match=r"lid\.tsv line 1: id of 10,001 characters"):
        read_labels(write("lid.tsv", f"{'i' * 10_001}\ty\nb\tx\n"))


def test_thousand_classes_load_and_count(write):
    from auditor.io.validate import align

    n = 3000
    gold = read_labels(write("g.tsv", "".join(f"i{i}\tc{i % 1000}\n" for i in range(n))))
    system = read_labels(write("s.tsv", "".join(f"i{i}\tc{(i + 1) % 1000}\n" for i in range(n))))
    counts = align(gold, {"s": system}).counts()
    assert counts.k == 1000 and counts.confusion.shape == (1, 1000, 1000)
    assert counts.confusion.sum() == n and np.trace(counts.confusion[0]) == 0


# ----------------------------------------------------------------------- arrays without strings

def test_integer_and_categorical_inputs_never_become_strings_per_item():
    from auditor.pipeline import gather

    gold = np.array([0, 1, 2, 10, 1])
    column = from_values(gold, "g")
    assert column.codes.dtype.kind == "i" and set(column.categories) == {"0", "1", "2", "10"}
    table = gather(gold, {"s": np.array([0, 1, 1, 10, 2])})
    assert "labels" not in column.__dict__  # the per-item str array was never built
    assert table.labels == ("0", "1", "10", "2")  # label texts in sorted order, as before
    counts = table.counts()
    assert counts.confusion[0].trace() == 3 and counts.confusion.sum() == 5
    pa = pytest.importorskip("pyarrow")
    arrow = from_values(pa.chunked_array([["a", "b"], ["a", None]]), "A")
    assert arrow.labels.tolist() == ["a", "b", "a", "nan"]
    pd = pytest.importorskip("pandas")
    categorical = from_values(pd.Series(pd.Categorical(["x", "y", "x"], categories=["z", "y", "x"])), "C")
    assert categorical.categories == ("y", "x") and categorical.labels.tolist() == ["x", "y", "x"]


@pytest.mark.parametrize("gold, systems, message", [
    ([["a"], "b", "a"], {"s": ["a", "b", "a"]}, r"<gold> index 0: the label is a list"),
    (["a", "b", "a"], {"s": ["a", ["b", "c"], "a"]}, r"<s> index 1: the label is a list"),
    (["a", "b"], None, r"systems: expected a mapping of system name to predictions.*NoneType"),
    (["a", "b"], ["a", "b"], r"systems: expected a mapping.*found list"),
])
def test_python_api_bad_values_are_input_errors(gold, systems, message):
    from auditor.pipeline import gather

    with pytest.raises(InputError, match=message):
        gather(gold, systems)


def test_python_api_object_whose_str_raises():
    from auditor.pipeline import gather

    class Unprintable:
        def __str__(self):
            raise ValueError("boom")

    with pytest.raises(InputError, match=r"<gold> index 2: cannot turn the label into text "
                                         r"\(ValueError: boom\)"):
        gather(["a", "b", Unprintable()], {"s": ["a", "b", "a"]})


@pytest.mark.parametrize("content", [
    '{"id": "a1", "label": "pos"}\n\n{"id": "a2", "label": "#neg"}\n\n',
    '\n{"id": 1, "prediction": 0, "score": 0.5}\n{"id": 2, "prediction": 1, "score": 0.1}\n',
    '{"id": "a1", "label": true}\n{"id": "a2", "label": false}\n',
    '{"label": "x"}\n{"label": "y"}\n',
])
def test_jsonl_arrow_and_python_readers_agree(content):
    from auditor.io.jsonl import _parse_json, _read_json_arrow

    fast = _read_json_arrow(content.encode(), "p.jsonl", "", None)
    slow = _parse_json(content, "p.jsonl", "", None)
    assert fast is not None
    assert fast.labels.tolist() == slow.labels.tolist() and fast.skipped == slow.skipped
    assert fast.lines.tolist() == slow.lines.tolist()
    assert (fast.ids is None and slow.ids is None) or fast.ids.tolist() == slow.ids.tolist()


@pytest.mark.parametrize("content", [
    '{"id": 1, "label": 99999999999999999999999}\n{"id": 2, "label": 1}\n',  # over int64
    '{"id": 1, "label": 1.5}\n{"id": 2, "label": 1}\n',
    '{"id": 1, "label": "a"}\n{"id": 2}\n',
    '{"id": 1, "label": "a"}\n  \n{"id": 2, "label": "b"}\n',
])
def test_jsonl_unusual_files_take_the_python_reader(content):
    from auditor.io.jsonl import _read_json_arrow

    assert _read_json_arrow(content.encode(), "p.jsonl", "", None) is None


def test_name_paths_names_each_system_once():
    """One rule for SYSTEM arguments (score, report, plan, --conlleval): a bare PATH may be renamed
    (a SemEval team), NAME=PATH never is, and a name given twice is refused naming both paths."""
    from auditor.errors import UsageError
    from auditor.options import name_paths

    team = {"sub1": "TeamA"}
    assert name_paths(["runs/sub1.txt", "B=runs/sub1.txt"], lambda stem, path: team.get(stem, stem)) == {
        "TeamA": "runs/sub1.txt", "B": "runs/sub1.txt"}
    with pytest.raises(UsageError, match=r"a/x.tsv and b/x.tsv are both named 'x'"):
        name_paths(["a/x.tsv", "b/x.tsv"])


@given(st.binary(max_size=60).map(lambda b: b.replace(b"x", b"\n")), st.integers(0, 70))
def test_count_lines_agrees_with_bytes_count(data, begin):
    """The reader's numpy newline count is ``bytes.count`` (plus the unterminated last line), for any
    bytes and any start, past the end included."""
    from auditor.io.lines import count_lines

    assert count_lines(data, begin) == data.count(b"\n", begin) + (0 if data.endswith(b"\n") else 1)
