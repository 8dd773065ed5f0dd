"""Stage 2, validate: alignment by id and by line, and one test per bad input."""
from __future__ import annotations

import numpy as np
import pytest

from auditor.errors import InputError, UsageError
from auditor.io.load import from_values, read_labels
from auditor.io.validate import LabelTable, align


@pytest.fixture
def gold(write):
    return read_labels(write("gold.tsv", "id\tlabel\na1\tpos\na2\tneg\na3\tpos\na4\tneu\n"))


# ----------------------------------------------------------------------- alignment

def test_align_by_id_in_any_order(write, gold):
    same = read_labels(write("same.tsv", "a1\tpos\na2\tpos\na3\tneg\na4\tneu\n"))
    shuffled = read_labels(write("shuf.txt", "a4 neg\na2 neg\na1 pos\na3 pos\n"))
    table = align(gold, {"same": same, "shuf": shuffled})
    assert isinstance(table, LabelTable)
    assert table.ids.tolist() == ["a1", "a2", "a3", "a4"]
    assert table.gold.tolist() == ["pos", "neg", "pos", "neu"]
    assert table.systems["same"].tolist() == ["pos", "pos", "neg", "neu"]
    assert table.systems["shuf"].tolist() == ["pos", "neg", "pos", "neg"]
    assert list(table.systems) == ["same", "shuf"] and table.n_items == 4
    assert table.sources["gold"].to_json() == {"path": gold.source, "sha256": gold.sha256, "n_items": 4,
                                     "skipped_lines": {"header": 1}}
    assert table.sources["shuf"].n_items == 4 and len(table.sources["shuf"].sha256) == 64


def test_align_by_line_when_nobody_has_ids(write):
    gold = read_labels(write("g.txt", "pos\nneg\npos\n"))
    table = align(gold, [("A", from_values(["pos", "pos", "neg"], "A"))])
    assert table.ids is None and table.systems["A"].tolist() == ["pos", "pos", "neg"]
    assert table.sources["A"].to_json() == {"path": "<A>", "sha256": None, "n_items": 3}


def test_align_arrays_and_series_by_index():
    pd = pytest.importorskip("pandas")
    gold = from_values(pd.Series(["a", "b", "a"], index=["x", "y", "z"]), "gold")
    system = from_values(pd.Series(["b", "a", "a"], index=["z", "x", "y"]), "S")
    assert align(gold, {"S": system}).systems["S"].tolist() == ["a", "a", "b"]


def test_label_only_predicted_by_a_system_is_allowed(gold, write):
    system = read_labels(write("s.tsv", "a1\tpos\na2\tOTHER\na3\tpos\na4\tneu\n"))
    assert align(gold, {"s": system}).systems["s"][1] == "OTHER"


def test_labels_option_accepts_a_superset(gold, write):
    system = read_labels(write("s.tsv", "a1\tpos\na2\tneg\na3\tpos\na4\tneu\n"))
    table = align(gold, {"s": system}, labels=["neg", "neu", "pos", "unused"])
    assert table.n_items == 4


def test_no_systems_is_allowed(gold):
    assert align(gold, {}).systems == {}


def test_align_large_shuffled_system_is_vectorised():
    n = 100_000
    rng = np.random.default_rng(1)
    ids = np.array([f"i{k}" for k in range(n)])
    labels = rng.choice(["a", "b", "c"], n)
    order = rng.permutation(n)
    gold = from_values(dict(zip(ids, labels)), "gold")
    system = from_values(dict(zip(ids[order], labels[order])), "S")
    assert np.array_equal(align(gold, {"S": system}).systems["S"], labels)


# ----------------------------------------------------------------------- bad input

def test_duplicate_gold_id_names_both_lines(write):
    gold = read_labels(write("gold.tsv", "id\tlabel\na1\tpos\na2\tneg\na1\tneg\n"))
    with pytest.raises(InputError, match=r"gold\.tsv: duplicate id 'a1' on lines 2 and 4; "
                                         r"every id must appear once"):
        align(gold, {})


@pytest.mark.parametrize("ids, duplicate", [
    (("1", "2", "3", "2"), "'2' on lines 3 and 5"),  # integer ids, not increasing: hashed
    (("1", "2", "3", "3"), "'3' on lines 4 and 5"),
    ((), None),  # 1, 2, 3, 4: increasing integers, unique without hashing
    (("1", "01", "2", "3"), None),  # 1 and 01 read as the same number, but are different ids
    (("3", "2", "1", "0"), None),
    (("c1", "c2", "c3", "c2"), "'c2' on lines 3 and 5"),  # one prefix, then integers: hashed when not increasing
    (("c1", "c2", "c01", "c3"), None),  # c1 and c01 read as one number, but are different ids
    (("c1", "c2", "c3", "d4"), None),  # another prefix: hashed
    (("2018-En-01", "2018-En-02", "2018-En-03", "2018-En-01"), "'2018-En-01' on lines 2 and 5"),
    (("2018-En-01", "2018-En-02", "2018-En-03", "2018-En-3x"), None),
])
def test_integer_ids_are_unique_exactly_when_their_texts_differ(write, ids, duplicate):
    ids = ids or ("1", "2", "3", "4")
    gold = read_labels(write("gold.tsv", "id\tlabel\n" + "".join(f"{i}\t{'ab'[n % 2]}\n" for n, i in enumerate(ids))))
    if duplicate is None:
        assert align(gold, {}).n_items == 4
    else:
        with pytest.raises(InputError, match=f"gold\\.tsv: duplicate id {duplicate}"):
            align(gold, {})


def test_duplicate_system_id_names_both_lines(gold, write):
    system = read_labels(write("s.tsv", "a1\tpos\na2\tneg\na3\tpos\na2\tneu\n"))
    with pytest.raises(InputError, match=r"s\.tsv: duplicate id 'a2' on lines 2 and 4"):
        align(gold, {"s": system})


def test_ids_missing_from_system(gold, write):
    system = read_labels(write("s.tsv", "a1\tpos\na3\tneg\n"))
    with pytest.raises(InputError, match=r"s\.tsv: 2 gold ids missing: 'a2', 'a4' \(first at "
                                         r".*gold\.tsv line 3\); expected a prediction for every "
                                         r"id in .*gold\.tsv \(4 items, found 2\)"):
        align(gold, {"s": system})


def test_extra_ids_in_system(gold, write):
    extra = "".join(f"b{k}\tpos\n" for k in range(7))
    system = read_labels(write("s.tsv", "a1\tpos\na2\tneg\na3\tpos\na4\tneu\n" + extra))
    with pytest.raises(InputError, match=r"s\.tsv: 7 ids not in the gold file .*gold\.tsv: "
                                         r"'b0', 'b1', 'b2', 'b3', 'b4' and 2 more \(first at "
                                         r".*s\.tsv line 5\); expected the gold file's ids only"):
        align(gold, {"s": system})


def test_length_mismatch_without_ids(write):
    gold = read_labels(write("g.txt", "pos\nneg\npos\n"))
    system = read_labels(write("s.txt", "pos\nneg\n"))
    with pytest.raises(InputError, match=r"s\.txt: 2 items but .*g\.txt has 3; without ids items "
                                         r"are matched by line"):
        align(gold, {"s": system})


def test_system_without_ids_against_gold_with_ids(gold, write):
    system = read_labels(write("s.txt", "pos\nneg\npos\nneu\n"))
    with pytest.raises(InputError, match=r"s\.txt has no ids \(one column of labels\) but "
                                         r".*gold\.tsv has ids; give ids in every file"):
        align(gold, {"s": system})


def test_gold_without_ids_against_system_with_ids(write):
    gold = read_labels(write("g.txt", "pos\nneg\n"))
    system = read_labels(write("s.tsv", "a1\tpos\na2\tneg\n"))
    with pytest.raises(InputError, match=r"g\.txt has no ids .* but .*s\.tsv has ids"):
        align(gold, {"s": system})


def test_empty_label_names_line_and_layout(write):
    gold = read_labels(write("gold.tsv", "id\tlabel\na1\tpos\na2\t\na3\tneg\n"))
    with pytest.raises(InputError, match=r"gold\.tsv line 3 \(id 'a2'\): empty label; every item "
                                         r"needs `id<TAB>label`"):
        align(gold, {})


@pytest.mark.parametrize("value", ["nan", "NaN", "null", "None"])
def test_missing_label_in_system(gold, write, value):
    system = read_labels(write("s.tsv", f"a1\tpos\na2\tneg\na3\t{value}\na4\t{value}\n"))
    with pytest.raises(InputError, match=rf"s\.tsv line 3 \(id 'a3'\): missing label \('{value}'\); "
                                         r"every item needs `id<TAB>label` \(2 items without a label\)"):
        align(gold, {"s": system})


def test_json_null_label(write):
    gold = read_labels(write("g.jsonl", '{"id": 1, "label": "a"}\n{"id": 2, "label": null}\n'))
    with pytest.raises(InputError, match=r"g\.jsonl line 2 \(id '2'\): missing label \('null'\)"):
        align(gold, {})


def test_nan_in_array():
    gold = from_values(["a", "b", float("nan")], "gold")
    with pytest.raises(InputError, match=r"<gold> index 2: missing label \('nan'\)"):
        align(gold, {})


def test_single_gold_class(write):
    gold = read_labels(write("g.tsv", "a1\tpos\na2\tpos\n"))
    with pytest.raises(InputError, match=r"g\.tsv: every one of the 2 gold items has the label "
                                         r"'pos'; expected at least two gold classes"):
        align(gold, {})


def test_label_not_in_labels_option(gold, write):
    system = read_labels(write("s.tsv", "a1\tpos\na2\tneg\na3\tPOS\na4\tneu\n"))
    with pytest.raises(InputError, match=r"s\.tsv line 3: label 'POS' is not in --labels "
                                         r"\(neg, neu, pos\)"):
        align(gold, {"s": system}, labels=["neg", "neu", "pos"])
    with pytest.raises(InputError, match=r"gold\.tsv line 5: label 'neu' is not in --labels \(neg, pos\)"):
        align(gold, {"s": system}, labels=["neg", "pos"])


def test_bad_labels_option(gold):
    with pytest.raises(UsageError, match="--labels is empty"):
        align(gold, {}, labels=[])
    with pytest.raises(UsageError, match="--labels repeats 'pos'"):
        align(gold, {}, labels=["pos", "neg", "pos"])


def test_duplicate_system_names(gold, write):
    a = read_labels(write("a/run.tsv", "a1\tpos\na2\tneg\na3\tpos\na4\tneu\n"))
    b = read_labels(write("b/run.tsv", "a1\tpos\na2\tneg\na3\tpos\na4\tneu\n"))
    with pytest.raises(InputError, match=r"duplicate system name 'run' \(.*a/run\.tsv and "
                                         r".*b/run\.tsv\); every system needs its own name"):
        align(gold, [("run", a), ("run", b)])


def test_reserved_system_name(gold):
    with pytest.raises(InputError, match="the system name 'gold' is reserved"):
        align(gold, {"gold": gold})


# ----------------------------------------------------------------------- issue 9: missing values

@pytest.mark.parametrize("value", ["NA", "N/A", "n/a", "-", "nan", "NaN", "null", "None", "#N/A"])
def test_missing_value_markers_are_refused_alike_in_files(gold, write, value):
    # Before, `NA`, `N/A` and `-` became classes while `nan` was refused.
    system = read_labels(write("s.tsv", f"a1\tpos\na2\t{value}\na3\tpos\na4\tneu\n"))
    with pytest.raises(InputError, match=rf"s\.tsv line 2 \(id 'a2'\): missing label "
                                         rf"\('{value}'\); every item needs `id<TAB>label`"):
        align(gold, {"s": system})


def test_empty_and_blank_labels_are_refused(write):
    gold = read_labels(write("g.csv", "id,label\na1,pos\na2, \na3,neg\n"))
    with pytest.raises(InputError, match=r"g\.csv line 3 \(id 'a2'\): empty label"):
        align(gold, {})


@pytest.mark.parametrize("value", [None, float("nan"), "NA", "-"])
def test_missing_values_in_arrays_are_refused(value):
    gold = from_values(["a", "b", value], "gold")
    with pytest.raises(InputError, match=r"<gold> index 2: missing label"):
        align(gold, {})


def test_missing_values_in_pandas_are_refused():
    pd = pytest.importorskip("pandas")
    for series in (pd.Series(["a", pd.NA, "b"], dtype="string"), pd.Series([1, None, 0], dtype="Int64"),
                   pd.Series(["a", None, "b"], dtype="category")):
        with pytest.raises(InputError, match=r"<gold> index 1: missing label \('nan'\)"):
            align(from_values(series, "gold"), {})


def test_lowercase_none_is_a_class(write):
    gold = read_labels(write("g.tsv", "a1\tnone\na2\tsome\n"))
    assert align(gold, {}).gold.tolist() == ["none", "some"]


def test_empty_id_is_refused(write):
    gold = read_labels(write("g.tsv", "a1\tx\n\ty\n"))
    with pytest.raises(InputError, match=r"g\.tsv line 2: empty id"):
        align(gold, {})


def test_counts_from_codes_match_a_hand_count(write):
    gold = read_labels(write("g.tsv", "id\tlabel\na\tx\nb\ty\nc\tx\nd\tz\n"))
    system = read_labels(write("s.csv", "id,prediction\nd,x\nc,x\nb,w\na,x\n"))
    counts = align(gold, {"S": system}).counts()
    assert counts.labels == ("w", "x", "y", "z")
    expected = np.zeros((4, 4), dtype=int)
    for g, p in [("x", "x"), ("y", "w"), ("x", "x"), ("z", "x")]:  # gold order a, b, c, d
        expected[counts.labels.index(g), counts.labels.index(p)] += 1
    assert counts.confusion[0].tolist() == expected.tolist()
