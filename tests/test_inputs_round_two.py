"""Issue 19's inputs: the shapes real prediction dumps and pasted tables take.

Each case was silently wrong, an internal error or a valid input refused before; every
expected value below is a hand count written next to it.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import auditor
from auditor.cli import cli
from auditor.errors import InputError, UsageError

GOLD = "id,label\n1,a\n2,b\n3,a\n"
# the system predicts a, a, a: right on items 1 and 3, so accuracy 2/3 (by hand)
DUMP_IDS = "id,label,prediction\n1,a,a\n2,b,a\n3,a,a\n"
DUMP_NO_IDS = "label,pred\na,a\nb,a\na,a\n"
DUMP_JSONL = "".join(json.dumps({"id": i, "label": g, "prediction": p}) + "\n"
                     for i, g, p in (("1", "a", "a"), ("2", "b", "a"), ("3", "a", "a")))


def run(arguments):
    return CliRunner().invoke(cli, arguments)


def one_error(result, *fragments):
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("auditor: error: "), result.stderr
    assert "unexpected" not in lines[0], lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert result.stdout == ""


def accuracy(gold, system):
    result = auditor.audit(gold, {"s": system}, bootstrap=0, analyses=())
    return result.systems["s"].metrics["accuracy"].value


# ------------------------------------------------------------------ prediction dumps keep a gold copy

@pytest.mark.parametrize("name, text, gold", [
    ("dump.csv", DUMP_IDS, GOLD),
    ("dump.csv", DUMP_NO_IDS, "label\na\nb\na\n"),
    ("dump.jsonl", DUMP_JSONL, GOLD),
])
def test_a_prediction_dump_is_scored_from_its_prediction_column(write, name, text, gold):
    assert accuracy(write("gold.csv", gold), write(name, text)) == pytest.approx(2 / 3)


def test_a_dump_is_scored_from_its_prediction_column_in_parquet(tmp_path, write):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "dump.parquet"
    pq.write_table(pa.table({"id": ["1", "2", "3"], "label": ["a", "b", "a"], "pred": ["a", "a", "a"]}), path)
    assert accuracy(write("gold.csv", GOLD), str(path)) == pytest.approx(2 / 3)


def test_the_gold_file_keeps_its_gold_column(write):
    # read as gold, `id,label,prediction` is gold `label`: a perfect system scores 1
    assert accuracy(write("gold.csv", DUMP_IDS), write("sys.csv", GOLD)) == 1.0


def test_two_prediction_columns_are_refused_naming_them(write):
    system = write("sys.csv", "id,label,pred,prediction\n1,a,a,b\n2,b,a,b\n3,a,a,b\n")
    with pytest.raises(InputError, match=r"sys\.csv.*'pred', 'prediction'"):
        accuracy(write("gold.csv", GOLD), system)


def test_the_cli_scores_the_prediction_column(write):
    result = run(["score", write("gold.csv", GOLD), write("dump.csv", DUMP_IDS), "--json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["systems"]["dump"]["metrics"]["accuracy"]["value"] == pytest.approx(2 / 3)


# ------------------------------------------------------------------ --labels with a missing value

@pytest.mark.parametrize("labels", ["a,,b", "a,NA,b", "a, nan ,b"])
def test_labels_option_refuses_a_missing_value(write, labels):
    result = run(["score", write("gold.csv", GOLD), write("sys.csv", GOLD), "--labels", labels])
    one_error(result, "--labels")


@pytest.mark.parametrize("labels", [["a", None, "b"], ["a", "NA", "b"], ["a", "", "b"]])
def test_labels_argument_refuses_a_missing_value(labels):
    with pytest.raises(UsageError, match="--labels"):
        auditor.audit(["a", "b", "a"], {"s": ["a", "a", "a"]}, labels=labels, bootstrap=0, analyses=())


def test_confusion_labels_refuse_a_missing_value():
    with pytest.raises(UsageError, match="--labels"):
        auditor.audit_confusion({"A": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, labels=["a", None, "b"], bootstrap=0,
                                analyses=())


# ------------------------------------------------------------------ quotes never span lines silently

def test_an_unterminated_quote_is_refused_naming_the_line_it_opened(write):
    gold = write("gold.csv", 'id,label\n1,"a\n2,b\n3,a\n')
    result = run(["score", gold, write("sys.csv", GOLD)])
    one_error(result, "gold.csv line 2", "quote")


def test_a_quoted_field_spanning_lines_is_refused(write):
    # CR LF inside quotes: "a\r\nb" and "a\nb" were merged into one label "a\nb"
    gold = write("gold.csv", 'id,label\r\n1,"a\r\nb"\r\n2,"a\nb"\r\n3,b\r\n')
    with pytest.raises(InputError, match=r"gold\.csv line 2: .*quote"):
        auditor.audit(gold, {"s": gold}, bootstrap=0, analyses=())


def test_quoted_fields_on_one_line_still_read(write):
    gold = write("gold.csv", 'id,label\n1,"a,x"\n2,"b"\n3,"a,x"\n')
    assert accuracy(gold, gold) == 1.0


# ------------------------------------------------------------------ valid inputs that were refused

def test_pandas_series_to_csv_header_reads(write):
    # pandas.Series(["a", "b", "a"], name="label").to_csv() writes ",label" and an index column
    gold = write("gold.csv", ",label\n0,a\n1,b\n2,a\n")
    system = write("sys.csv", ",label\n0,a\n1,a\n2,a\n")
    assert accuracy(gold, system) == pytest.approx(2 / 3)


def test_quoted_score_header_reads(write):
    gold = write("gold.csv", "id,label\n1,pos\n2,neg\n3,neg\n")
    # R's write.csv quotes every name; argmax pos, neg, pos: 2 of 3 right (by hand)
    scores = write("sys.csv", '"id","pos","neg"\n"1",0.9,0.1\n"2",0.2,0.8\n"3",0.7,0.3\n')
    assert accuracy(gold, scores) == pytest.approx(2 / 3)


# ------------------------------------------------------------------ --confusion: one rule with label files

@pytest.mark.parametrize("text, fragment", [
    (",a,b\na,5,1\nb,0,0\n", "at least two gold classes"),
    (",a,NA\na,5,1\nNA,2,3\n", "missing label"),
    (",a,\na,5,1\n,2,3\n", "empty label"),
])
def test_confusion_files_follow_the_label_file_rules(write, text, fragment):
    one_error(run(["score", "--confusion", write("m.csv", text)]), "m.csv", fragment)


def test_confusion_cell_of_ten_to_the_thirty_is_one_clear_error(write):
    matrix = write("m.csv", ",a,b\na,1000000000000000000000000000000,1\nb,2,3\n")
    one_error(run(["score", "--confusion", matrix]), "m.csv", "2^53")


@pytest.mark.parametrize("matrix", [
    np.array([[2 ** 63, 1], [2, 3]], dtype=np.uint64),
    np.array([[2 ** 53, 1], [2, 3]], dtype=np.int64),
    np.array([[1e30, 1], [2, 3]]),
])
def test_confusion_totals_beyond_exact_floats_are_refused(matrix):
    with pytest.raises(InputError, match=r"2\^53"):
        auditor.audit_confusion({"A": matrix}, labels=["a", "b"], bootstrap=0, analyses=())


def test_confusion_just_below_the_limit_is_exact():
    big = 2 ** 52
    result = auditor.audit_confusion({"A": np.array([[big, 0], [0, 1]], dtype=np.uint64)}, labels=["a", "b"],
                                     bootstrap=0, analyses=())
    assert result.systems["A"].metrics["accuracy"].value == 1.0


# ------------------------------------------------------------------ hostile names through report

@pytest.mark.parametrize("separator", ["\u2028", "\u2029"])
def test_report_html_with_a_line_separator_in_a_label(write, tmp_path, separator):
    gold = write("gold.csv", f"id,label\n1,a{separator}x\n2,b\n3,a{separator}x\n")
    system = write("sys.csv", f"id,label\n1,a{separator}x\n2,a{separator}x\n3,b\n")
    result = run(["report", gold, f"S{separator}T={system}", "-o", str(tmp_path / "out"), "--format", "html,json",
                  "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<svg" in html
