"""Issue 37's inputs: tagging files, translation options and human scores, datasets across a glob, the
planner. Each case was silently wrong or an internal error before; each expectation comes from an
independent source named beside it (seqeval, conlleval.pl's counting shown by hand, pandas, the memory
engine)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from auditor.cli import cli


def run(arguments):
    return CliRunner().invoke(cli, arguments)


def one_error(result, *fragments):
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("auditor: error: "), result.stderr
    assert "unexpected" not in lines[0], lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def scored(arguments, system="S"):
    result = run([*arguments, "--json", "--bootstrap", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    audit = json.loads(result.stdout)
    return audit, {m: v["value"] for m, v in audit["systems"][system]["metrics"].items()}


def tagging(tmp_path, gold: str, system: str, *options):
    (tmp_path / "gold.txt").write_text(gold, encoding="utf-8")
    (tmp_path / "sys.txt").write_text(system, encoding="utf-8")
    return scored(["score", "--task", "tagging", str(tmp_path / "gold.txt"), f"S={tmp_path / 'sys.txt'}", *options])


def seqeval_f1(gold: list[list[str]], predicted: list[list[str]]) -> float:
    from seqeval.metrics import f1_score

    return f1_score(gold, predicted)  # default mode: conlleval's chunking


# --- tagging: comment lines ------------------------------------------------------------------------------

TWEET_GOLD = [["B-MISC", "O", "O"], ["B-LOC"]]
TWEET_SYSTEM = [["O", "O", "O"], ["B-LOC"]]


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_a_hashtag_opening_a_sentence_is_a_token(tmp_path, separator):
    """`#FollowFriday B-MISC` opens a tweet: a token line (it has the token line's columns), not a comment.
    seqeval: gold MISC and LOC, the system finds LOC only: F1 = 2/3; conlleval.pl's token accuracy 3/4."""
    def text(tags):
        words = [["#FollowFriday", "is", "fun"], ["Paris"]]
        sentences = ("\n".join(f"{w}{separator}{t}" for w, t in zip(ws, ts)) for ws, ts in zip(words, tags))
        return "\n\n".join(sentences) + "\n"

    audit, values = tagging(tmp_path, text(TWEET_GOLD), text(TWEET_SYSTEM))
    assert audit["n_items"] == 4
    assert values["span_micro_f1"] == pytest.approx(seqeval_f1(TWEET_GOLD, TWEET_SYSTEM)) == pytest.approx(2 / 3)
    assert values["accuracy"] == pytest.approx(3 / 4)


def test_comment_lines_are_told_from_token_lines_by_the_line_alone(tmp_path):
    """A TAB file: `# sent_id = 1` (no TAB) is a comment, `#tag<TAB>O` a token; a numbered file: every `#` line
    is a comment; a space-separated file has none (a `# sent_id = 1` line there is refused, naming the rule)."""
    gold = "# sent_id = 1\nEU\tB-ORG\n#tag\tO\n\n# sent_id = 2\nParis\tB-LOC\n"
    system = "EU\tB-ORG\n#tag\tB-MISC\n\nParis\tB-LOC\n"
    audit, values = tagging(tmp_path, gold, system)
    assert audit["n_items"] == 3 and audit["n_units"] == 2
    # seqeval: gold ORG, LOC; system ORG, MISC, LOC: P = 2/3, R = 1, F1 = 0.8
    assert values["span_micro_f1"] == pytest.approx(seqeval_f1([["B-ORG", "O"], ["B-LOC"]],
                                                               [["B-ORG", "B-MISC"], ["B-LOC"]])) == pytest.approx(0.8)
    numbered = "# text = EU\n1 EU B-ORG - -\n2 # O - -\n"
    audit, values = tagging(tmp_path, numbered, numbered)
    assert audit["n_items"] == 2 and values["span_micro_f1"] == 1.0
    (tmp_path / "gold.txt").write_text("# sent_id = 1\nEU B-ORG\n")
    one_error(run(["score", "--task", "tagging", str(tmp_path / "gold.txt"), str(tmp_path / "gold.txt")]),
              "gold.txt line 1: 4 columns", "comment in a numbered file")


# --- tagging: layouts ------------------------------------------------------------------------------------

def test_a_conll_2003_line_opening_with_a_number_is_not_numbered(tmp_path):
    """`3 CD B-NP B-MISC`: the first column does not count 1, 2, 3 in each sentence, so the tag is the last
    column (NER), not the chunk column. seqeval on the NER column: gold MISC, system none: F1 0; tokens 2/3."""
    gold = "3 CD B-NP B-MISC\ncats NNS I-NP O\n\nok JJ B-ADJP O\n"
    system = "3 CD B-NP O\ncats NNS I-NP O\n\nok JJ B-ADJP O\n"
    audit, values = tagging(tmp_path, gold, system)
    assert audit["tagging"]["types"] == ["MISC"]
    assert values["span_micro_f1"] == seqeval_f1([["B-MISC", "O"], ["O"]], [["O", "O"], ["O"]]) == 0
    assert values["accuracy"] == pytest.approx(2 / 3)


def test_a_hashtag_inside_a_sentence_is_never_a_numbered_file_s_comment(tmp_path):
    """`1 NN I-NP O` then `#FollowFriday CD I-NP B-LOC`: a `#` line after a token line is no comment (CoNLL-U's
    comments precede a sentence), so the first column does not count 1, 2 and the tag is the last column.
    seqeval: gold LOC found: F1 1; 2 tokens."""
    gold = "1 NN I-NP O\n#FollowFriday CD I-NP B-LOC\n"
    audit, values = tagging(tmp_path, gold, "O\nB-LOC\n")
    assert audit["n_items"] == 2 and audit["tagging"]["types"] == ["LOC"]
    assert values["span_micro_f1"] == seqeval_f1([["O", "B-LOC"]], [["O", "B-LOC"]]) == 1.0


def test_a_numbered_file_still_reads_its_tag_column(tmp_path):
    """UNER's layout: the index counts 1, 2 in each sentence; the tag is the first tag-like column after the token."""
    gold = "1\tEU\tB-ORG\t-\t-\n2\tsaid\tO\t-\t-\n\n1\tParis\tB-LOC\t-\t-\n"
    system = "1\tEU\tB-ORG\t-\t-\n2\tsaid\tO\t-\t-\n\n1\tParis\tO\t-\t-\n"
    audit, values = tagging(tmp_path, gold, system)
    assert audit["tagging"]["types"] == ["LOC", "ORG"]
    assert values["span_micro_f1"] == pytest.approx(seqeval_f1([["B-ORG", "O"], ["B-LOC"]], [["B-ORG", "O"], ["O"]]))


DOCSTART = "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n"
DOCSTART_SYSTEM = "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP B-ORG\n"


def test_docstart_lines_count_alike_in_both_layouts_as_conlleval_counts_them(tmp_path):
    """conlleval.pl's boundary is a first field `-X-`; `-DOCSTART-` is not one, so the line is a token (tag O,
    right): 3 tokens, 2 right (-DOCSTART- and EU; `rejects` wrong) = 2/3; chunks: gold ORG, system ORG ORG: F1 2/3."""
    two_files, values = tagging(tmp_path, DOCSTART, DOCSTART_SYSTEM)
    both = "\n".join(f"{g} {s.split()[-1]}" if g else "" for g, s in zip(DOCSTART.split("\n"),
                                                                         DOCSTART_SYSTEM.split("\n")))
    (tmp_path / "both.txt").write_text(both)
    conlleval, conlleval_values = scored(["score", "--task", "tagging", "--conlleval", f"S={tmp_path / 'both.txt'}"])
    assert two_files["n_items"] == conlleval["n_items"] == 3
    for found in (values, conlleval_values):
        assert found["accuracy"] == pytest.approx(2 / 3)
        assert found["span_micro_f1"] == pytest.approx(2 / 3)


def test_a_no_break_space_is_part_of_a_token_and_a_trailing_tab_is_no_column(tmp_path):
    """conlleval.pl splits at the delimiter only: `New\u00a0York B-LOC` is one token; Perl's split drops the empty
    field after a trailing TAB, so `EU<TAB>B-ORG<TAB>` is token and tag. seqeval: both chunks found, F1 1."""
    gold = "New\u00a0York B-LOC\nis O\n"
    audit, values = tagging(tmp_path, gold, gold)
    assert audit["n_items"] == 2 and values["span_micro_f1"] == 1.0
    gold = "EU\tB-ORG\t\nsaid\tO\n\nParis\tB-LOC\t\n"
    system = "EU\tB-ORG\nsaid\tO\t\n\nParis\tO\n"
    audit, values = tagging(tmp_path, gold, system)
    assert audit["n_items"] == 3
    assert values["span_micro_f1"] == pytest.approx(seqeval_f1([["B-ORG", "O"], ["B-LOC"]], [["B-ORG", "O"], ["O"]]))


# --- translation -----------------------------------------------------------------------------------------

@pytest.fixture()
def texts(tmp_path):
    (tmp_path / "ref.txt").write_text("the cat sat\na dog ran\n")
    (tmp_path / "A.txt").write_text("the cat sat\na dog\n")
    (tmp_path / "B.txt").write_text("cat sat\na dog ran\n")
    return ["score", "--task", "translation", str(tmp_path / "ref.txt"), str(tmp_path / "A.txt"),
            str(tmp_path / "B.txt"), "--bootstrap", "0", "--json"]


@pytest.mark.parametrize("lines, fragments", [
    ("A\t1\t0.5\nB\t1\t0.7\nA\t2\t0.1\nB\t2\t0.3\nA\t1\t0.9\n", ("line 5", "second score for system 'A' at line 1")),
    ("A\tNone\nA\t0.4\nB\t0.2\n", ("line 2", "second score for system 'A'")),
    ("A\t\u00b2\t0.5\nB\t1\t0.7\n", ("line 1", "'\u00b2' is not a line number")),
    ("A\t\u0663\t0.5\nB\t1\t0.7\n", ("line 1", "is not a line number")),
    ("A\t0.5\nB\t1_0\n", ("line 2", "'1_0' is not a number")),
    ("A\t0.5\nB\tnAn\n", ("line 2", "'nAn' is not a number")),
])
def test_human_scores_twice_or_with_odd_numerals_are_refused(tmp_path, texts, lines, fragments):
    (tmp_path / "human.tsv").write_text(lines, encoding="utf-8")
    one_error(run([*texts, "--human", str(tmp_path / "human.tsv")]), "human.tsv", *fragments)


@pytest.mark.parametrize("option, value", [("--f-beta", "0"), ("--f-beta", "-1"), ("--f-beta", "1e300"),
                                           ("--f-beta", "nan"), ("--f-beta", "inf"), ("--microf-k", "0"),
                                           ("--microf-k", "0.5"), ("--microf-k", "inf"), ("--microf-k", "1e300")])
def test_f_beta_and_k_outside_the_formula_are_refused_never_replaced(texts, option, value):
    one_error(run([*texts, option, value]), option)


def test_f_beta_inside_the_range_is_used(texts):
    """β = 1e-100: F_β;c = (1+β²)·Match/(β²·Refs + Preds) = Match/Preds (precision) to double precision; β = 2
    differs."""
    small = json.loads(run([*texts, "--f-beta", "1e-100"]).stdout)
    assert small["options"]["f_beta"] == 1e-100


# --- the planner -----------------------------------------------------------------------------------------

def test_a_pilot_system_predicting_one_class_plans_with_json_and_pages(tmp_path):
    """System A always predicts `a`: its MCC is 0/0 on the pilot, so the pair's MCC difference (and power) is
    undefined, said so in `undefined`, never NaN in the JSON."""
    gold = ["a", "b", "c"] * 10
    (tmp_path / "g.csv").write_text("id,label\n" + "".join(f"{i},{g}\n" for i, g in enumerate(gold)))
    (tmp_path / "a.csv").write_text("id,label\n" + "".join(f"{i},a\n" for i in range(len(gold))))
    (tmp_path / "b.csv").write_text("id,label\n" + "".join(f"{i},{g if i % 4 else 'b'}\n" for i, g in enumerate(gold)))
    base = ["plan", str(tmp_path / "g.csv"), f"A={tmp_path / 'a.csv'}", f"B={tmp_path / 'b.csv'}", "--items", "60",
            "--simulations", "5", "--rounds", "20"]
    result = run([*base, "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["pairs"][0]["metrics"]["mcc"] == {"power": None, "power_se": None, "difference": None,
                                                  "method": "approximate_randomisation"}
    assert "undefined on the pilot" in plan["undefined"]["A vs B: mcc"]
    result = run([*base, "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    json.loads((tmp_path / "out" / "plan.json").read_text())


# --- --dataset across a glob, in every engine ------------------------------------------------------------

@pytest.fixture(autouse=True)
def _one_spark_session(request):
    """A test run with engine "spark" uses the run's one Spark session (``spark_session`` in conftest: skipped
    where PySpark or Java is absent)."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("engine") == "spark":
        request.getfixturevalue("spark_session")


def _engines():
    import os
    import shutil

    spark = pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"),
                               reason="Java is absent: the spark engine needs Java 17")
    return ["memory", "duckdb", pytest.param("spark", marks=spark)]


def dataset_score(path, engine, systems="S"):
    return run(["score", "--dataset", path, "--gold-column", "gold", "--system-columns", systems, "--engine", engine,
                "--json", "--bootstrap", "0", "--quiet"])


def pandas_accuracy(files):
    """The oracle: each file read by pandas with its own types, gold and S compared row by row."""
    import pandas as pd

    right = total = 0
    for file in files:
        frame = pd.read_parquet(file)
        right += int((frame["gold"].astype(str) == frame["S"].astype(str)).sum())
        total += len(frame)
    return right / total


@pytest.mark.parametrize("engine", _engines())
@pytest.mark.parametrize("second", [{"gold": [2.0, 2.0], "S": [2.5, 2.0]}, {"gold": ["2", "x"], "S": ["2", "x"]}])
def test_a_glob_whose_files_type_a_label_column_differently_reads_each_file_as_it_is(tmp_path, engine, second):
    """Integers in one Parquet file, floats (2.5 must not become 2) or text in another: labels are text in every
    engine, so accuracy is pandas' file-by-file count (0.75 and 1.0); the memory engine failed on int + text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"gold": [1, 2], "S": [1, 2]}), tmp_path / "a.parquet")
    pq.write_table(pa.table(second), tmp_path / "b.parquet")
    result = dataset_score(str(tmp_path / "*.parquet"), engine)
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["systems"]["S"]["metrics"]["accuracy"]["value"]
    assert found == pytest.approx(pandas_accuracy([tmp_path / "a.parquet", tmp_path / "b.parquet"]))


@pytest.mark.parametrize("engine", _engines())
@pytest.mark.parametrize("header, systems, fragments", [
    ("gold,S,s", "S,s", ("columns 'S' and 's' differ only in case",)),
    ("gold,sys,sys", "sys", ("column 'sys' appears 2 times",)),
])
def test_column_names_twice_or_differing_in_case_are_refused_in_every_engine(tmp_path, engine, header, systems,
                                                                              fragments):
    """DuckDB scored `S` twice for `S` and `s` and Spark failed; the memory engine scored the first `sys` of
    `gold,sys,sys` where DuckDB refused: one refusal, the same in every engine."""
    (tmp_path / "d.csv").write_text(header + "\na,a,b\nb,b,b\n")
    one_error(dataset_score(str(tmp_path / "d.csv"), engine, systems), "d.csv", *fragments)


def test_a_native_message_is_cut_to_its_explanation(tmp_path):
    """DuckDB's CSV error lists fixes and the reader's settings over 20 lines: one line is kept."""
    (tmp_path / "d.csv").write_text("gold,S\na,a\nb,b,c\n")
    result = dataset_score(str(tmp_path / "d.csv"), "duckdb")
    one_error(result, "Expected Number of Columns: 2 Found: 3")
    assert "Possible fixes" not in result.stderr and len(result.stderr) < 400


@pytest.mark.parametrize("engine", _engines())
@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_a_row_without_an_id_is_refused_in_every_engine(tmp_path, engine, fmt):
    """One null id (an empty field in CSV) was accepted where the files' reader refuses an empty id."""
    path = tmp_path / f"d.{fmt}"
    ids = ["a", None, "c"]
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"id": ids, "gold": ["x", "y", "x"], "S": ["x", "y", "y"]}), path)
    elif fmt == "csv":
        path.write_text("id,gold,S\na,x,x\n,y,y\nc,x,y\n")
    else:
        path.write_text("".join(json.dumps({"id": i, "gold": g, "S": s}) + "\n"
                                for i, g, s in zip(ids, "xyx", "xyy")))
    result = run(["score", "--dataset", str(path), "--gold-column", "gold", "--system-columns", "S", "--id-column",
                  "id", "--engine", engine, "--json", "--bootstrap", "0", "--quiet"])
    one_error(result, f"d.{fmt}: 1 row has no id in column 'id'")


@pytest.mark.parametrize("engine", [e for e in _engines() if e != "memory"])
def test_joined_files_with_a_row_without_an_id_are_refused_naming_it(tmp_path, engine):
    """GOLD and SYSTEM files joined by id in DuckDB or Spark: an empty id was reported as an id `None` not in the
    gold file; it is a row without an id, as the files' reader says."""
    (tmp_path / "g.csv").write_text("id,label\na,x\n,y\nc,x\n")
    (tmp_path / "s.csv").write_text("id,label\na,x\nb,y\nc,y\n")
    result = run(["score", str(tmp_path / "g.csv"), f"S={tmp_path / 's.csv'}", "--engine", engine, "--json",
                  "--bootstrap", "0", "--quiet"])
    one_error(result, "g.csv: 1 row has no id in column 'id'")


def test_tag_column_names_the_tag_of_a_numbered_gold_and_leaves_a_file_of_tags_alone(tmp_path):
    """`--tag-column 3` for UNER-like gold, a system file of tags alone: read as tags (it was refused as having
    1 column). seqeval: gold ORG and LOC, the system ORG: F1 2/3."""
    gold = "1\tEU\tB-ORG\t-\t-\n2\tsaid\tO\t-\t-\n\n1\tParis\tB-LOC\t-\t-\n"
    audit, values = tagging(tmp_path, gold, "B-ORG\nO\n\nO\n", "--tag-column", "3")
    assert values["span_micro_f1"] == pytest.approx(seqeval_f1([["B-ORG", "O"], ["B-LOC"]], [["B-ORG", "O"], ["O"]]))
