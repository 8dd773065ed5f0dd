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


def test_a_system_file_of_several_label_columns_none_named_as_prediction_is_refused(write):
    system = write("sys.csv", "id,label,class\n1,a,a\n2,b,a\n3,a,a\n")
    with pytest.raises(InputError, match=r"sys\.csv.*could be the prediction.*'label', 'class'"):
        accuracy(write("gold.csv", GOLD), system)


def test_gold_and_pred_columns_in_a_system_file_score_pred(write):
    system = write("sys.tsv", "id\tgold\tpred\n1\ta\ta\n2\tb\ta\n3\ta\ta\n")
    assert accuracy(write("gold.csv", GOLD), system) == pytest.approx(2 / 3)


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


@pytest.mark.parametrize("text, line", [
    ('id,label\n1,a\n2,b\n3,"a', 4),      # never closed, on the last line, no final line break
    ('id,label\n1,a\n2,b\n3,"a\n', 4),    # never closed, on the last line
    ('id,label\n1,"a\n2,b\n3,a\n', 2),    # never closed: the rest of the file was one label
])
def test_a_quote_never_closed_names_its_line(write, text, line):
    with pytest.raises(InputError, match=rf"gold\.csv line {line}: a quote opened on this line"):
        auditor.audit(write("gold.csv", text), {"s": ["a", "b", "a"]}, bootstrap=0, analyses=())


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


@pytest.mark.parametrize("text, fragment", [
    (",a,b\na,5,1\nb,0,0\n", "at least two gold classes"),
    (",a,NA\na,5,1\nNA,2,3\n", "missing label"),
])
def test_check_claim_confusion_follows_the_same_rules(write, text, fragment):
    """check-claim's --confusion route refuses what `score --confusion` refuses (one rule)."""
    one_error(run(["check-claim", "accuracy=83.3", "--confusion", write("m.csv", text)]), "m.csv", fragment)


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

def test_report_html_with_a_line_separator_in_a_label(write, tmp_path):
    """Each of four line separators in a label and in a system name (one report holds all four: one report's
    charts converted instead of four)."""
    separators = ["\u2028", "\u2029", "\x1c", "\x0b"]
    labels = [f"{letter}{separator}x" for letter, separator in zip("abcd", separators)]
    gold = write("gold.csv", "id,label\n" + "".join(f"{i},{label}\n" for i, label in enumerate(labels * 2)))
    predicted = labels + labels[1:] + labels[:1]  # every label predicted, the first four right
    system = write("sys.csv", "id,label\n" + "".join(f"{i},{label}\n" for i, label in enumerate(predicted)))
    named = [f"S{separator}T={system}" for separator in separators]
    result = run(["report", gold, *named, "-o", str(tmp_path / "out"), "--format", "html,json", "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<svg" in html
    document = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert set(document["labels"]) == set(labels) and set(document["systems"]) == {n.split("=")[0] for n in named}


# ------------------------------------------------------------------ check-claim tables as people paste them

# scikit-learn 1.x classification_report of y_true = [very good, bad, bad, ok, very good, ok, bad, bad],
# y_pred = [very good, bad, ok, ok, bad, ok, bad, very good]. By hand: bad TP 2 of 4, predicted 3;
# ok TP 2 of 2, predicted 3; very good TP 1 of 2, predicted 2. Accuracy 5/8 = 62.5; class F1 4/7, 4/5, 1/2,
# macro F1 (4/7 + 4/5 + 1/2) / 3 = 0.6238.
SKLEARN_TEXT = """              precision    recall  f1-score   support

         bad       0.67      0.50      0.57         4
          ok       0.67      1.00      0.80         2
   very good       0.50      0.50      0.50         2

    accuracy                           0.62         8
   macro avg       0.61      0.67      0.62         8
weighted avg       0.62      0.62      0.61         8
"""
SKLEARN_DICT = {
    "bad": {"precision": 2 / 3, "recall": 0.5, "f1-score": 4 / 7, "support": 4.0},
    "ok": {"precision": 2 / 3, "recall": 1.0, "f1-score": 0.8, "support": 2.0},
    "very good": {"precision": 0.5, "recall": 0.5, "f1-score": 0.5, "support": 2.0},
    "accuracy": 0.625,
    "macro avg": {"precision": 0.611111111111111, "recall": 2 / 3, "f1-score": 0.6238095238095238, "support": 8.0},
    "weighted avg": {"precision": 0.625, "recall": 0.625, "f1-score": 0.6107142857142858, "support": 8.0},
}


def check_claim(*arguments):
    result = run(["check-claim", *arguments, "--json"])
    found = json.loads(result.stdout)
    holds = not found["problems"] and all(claim["named_reproduces"] for claim in found["claims"])
    assert result.exit_code == (0 if holds else 1), result.output  # 1: a claim does not hold
    return found


@pytest.mark.parametrize("name, text", [("report.txt", SKLEARN_TEXT), ("report.json", json.dumps(SKLEARN_DICT))])
def test_a_pasted_classification_report_reproduces_its_own_claims(write, name, text):
    found = check_claim("macro_f1=62.4 accuracy=62.5", "--table", write(name, text))
    assert found["evidence"]["labels"] == ["bad", "ok", "very good"]
    assert [claim["named_reproduces"] for claim in found["claims"]] == [True, True]
    assert found["problems"] == []


def test_a_summary_row_that_the_classes_cannot_give_is_a_problem(write):
    wrong = SKLEARN_TEXT.replace("macro avg       0.61", "macro avg       0.71")
    found = check_claim("accuracy=62.5", "--table", write("report.txt", wrong))
    assert len(found["problems"]) == 1 and "'macro avg'" in found["problems"][0]
    assert "precision 0.71" in found["problems"][0]


def test_a_support_zero_row_is_a_class(write):
    text = SKLEARN_TEXT.replace("\n\n    accuracy",
                                "\n       never       0.00      0.00      0.00         0\n\n    accuracy")
    text = text.replace("macro avg       0.61      0.67      0.62", "macro avg       0.46      0.50      0.47")
    found = check_claim("accuracy=62.5", "--table", write("report.txt", text))
    assert found["evidence"]["labels"] == ["bad", "ok", "very good", "never"]
    assert found["claims"][0]["named_reproduces"] is True
    assert found["problems"] == []


@pytest.mark.parametrize("text", [
    "label\tprecision\trecall\tsupport\na\t0.5\t0.5\t10\nb\t0.5\t0.5\t10\na\t0.5\t0.5\t10\n",
    SKLEARN_TEXT.replace("          ok ", "         bad "),
])
def test_a_class_named_twice_is_refused(write, text):
    one_error(run(["check-claim", "accuracy=50", "--table", write("table.txt", text)]), "table.txt line", "twice")


def test_pandas_csv_of_a_report_reads(write):
    # pandas.DataFrame(report_dict).T.to_csv(): an unnamed label column; the accuracy row repeats its value
    text = (",precision,recall,f1-score,support\nbad,0.667,0.5,0.571,4.0\nok,0.667,1.0,0.8,2.0\n"
            "very good,0.5,0.5,0.5,2.0\naccuracy,0.625,0.625,0.625,0.625\nmacro avg,0.611,0.667,0.624,8.0\n")
    found = check_claim("accuracy=62.5", "--table", write("report.csv", text))
    assert found["evidence"]["labels"] == ["bad", "ok", "very good"]
    assert found["problems"] == []


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = ["bad", "ok", "very good", "so so", "x", "n a"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=6, max_size=60),
       digits=st.integers(2, 5))
def test_any_classification_report_reads_back_with_consistent_summaries(tmp_path_factory, data, digits):
    """scikit-learn's report text, read back: its classes (never its summary rows), each value within
    half a unit of its output_dict, and summary rows the class rows can give (no problem)."""
    from sklearn.metrics import classification_report

    from auditor.claims.evidence import from_class_table
    from auditor.io.class_table import read_class_table

    gold = [NAMES[g] for g, _ in data]
    predicted = [NAMES[p] for _, p in data]
    if len(set(gold)) < 2:
        return
    text = classification_report(gold, predicted, digits=digits, zero_division=0)
    exact = classification_report(gold, predicted, output_dict=True, zero_division=0)
    path = tmp_path_factory.mktemp("report") / "report.txt"
    path.write_text(text)
    table = read_class_table(path)
    assert [row.label for row in table] == sorted(set(gold) | set(predicted))
    half = 0.5 * 10.0 ** -digits + 1e-12
    for row in table:
        assert abs(float(row.precision) - exact[row.label]["precision"]) <= half
        assert abs(float(row.recall) - exact[row.label]["recall"]) <= half
        assert float(row.support) == exact[row.label]["support"]  # printed "5" or, at times, "5.0"
    assert {s.name for s in table.summaries} == {"accuracy", "macro avg", "weighted avg"}
    assert from_class_table(table).problems == ()


def test_a_report_spaced_by_single_spaces_reads(write):
    """Pasted through a tool that squeezes runs of spaces: the values are the last cells."""
    squeezed = "\n".join(" ".join(line.split()) for line in SKLEARN_TEXT.splitlines())
    found = check_claim("macro_f1=62.4 accuracy=62.5", "--table", write("report.txt", squeezed))
    assert found["evidence"]["labels"] == ["bad", "ok", "very good"]
    assert [claim["named_reproduces"] for claim in found["claims"]] == [True, True] and found["problems"] == []
    table = write("table.txt", "label  precision  recall  support\na 0.5 0.5 10\nb  0.5  0.5  10\n")
    assert check_claim("accuracy=50", "--table", table)["evidence"]["labels"] == ["a", "b"]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(prediction=st.sampled_from(["prediction", "pred", "y_pred", "predicted", "preds", "pred_label", "Prediction"]),
       gold=st.sampled_from(["label", "gold", "y_true", "gold_label", "truth", "target"]),
       extras=st.lists(st.sampled_from(["score", "text", "confidence", "source"]), unique=True, max_size=3),
       with_id=st.booleans(), order=st.randoms(use_true_random=False))
def test_a_system_file_is_read_from_its_prediction_column_whatever_the_order(prediction, gold, extras, with_id, order):
    """Under the predictions rule the prediction column wins over any gold copy, in any column order."""
    from auditor.io.names import PREDICTIONS, choose_columns

    names = [prediction, gold, *extras] + (["id"] if with_id else [])
    order.shuffle(names)
    id_column, label_column = choose_columns(names, "sys.csv", "columns", None, PREDICTIONS)
    assert names[label_column] == prediction
    assert (id_column is None) != with_id and (id_column is None or names[id_column] == "id")
