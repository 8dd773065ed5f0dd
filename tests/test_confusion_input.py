"""Audit from confusion matrices alone (issue 13, "Confusion matrices only").

Known answer: every metric computed from a matrix equals the metric computed from the item
files that produced it (GermEval 2018, shared data); the slides' 2 x 2 table gives kappa −0.15.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import auditor
from auditor.cli import cli
from auditor.errors import InputError, UsageError
from auditor.io.confusion import confusion_counts, format_matrix, read_matrix

SYSTEMS = ("word-logreg", "char-svm-balanced", "majority")


@pytest.fixture(scope="module")
def item_audit(germeval_dir):
    return auditor.audit(germeval_dir / "gold.tsv",
                         {name: germeval_dir / "systems" / f"{name}.tsv" for name in SYSTEMS}, bootstrap=0)


@pytest.fixture(scope="module")
def matrix_files(item_audit, tmp_path_factory):
    """Matrices built from the GermEval item files, written in the documented layout."""
    folder = tmp_path_factory.mktemp("matrices")
    paths = {}
    for name in SYSTEMS:
        paths[name] = folder / f"{name}.tsv"
        paths[name].write_text(format_matrix(item_audit.labels, item_audit.systems[name].confusion))
    return paths


def test_metrics_from_matrices_equal_those_from_items(item_audit, matrix_files):
    from_matrices = auditor.audit_confusion({name: str(path) for name, path in matrix_files.items()}, bootstrap=0)
    assert from_matrices.labels == item_audit.labels and from_matrices.n_items == 3532
    for name in SYSTEMS:
        ours, theirs = from_matrices.systems[name], item_audit.systems[name]
        assert set(ours.metrics) == set(theirs.metrics)
        for metric_id, value in theirs.metrics.items():
            assert ours.metrics[metric_id].value == value.value, (name, metric_id)
            assert ours.metrics[metric_id].undefined == value.undefined
        assert ours.per_class == theirs.per_class
    a, b = from_matrices.to_json(), item_audit.to_json()
    for section in ("profile", "baselines", "properties", "rankings", "rank_agreement", "recommendation"):
        assert json.dumps(a[section], sort_keys=True) == json.dumps(b[section], sort_keys=True), section


def test_matrices_counted_apart_read_as_the_audit_counts_the_items(item_audit, germeval_extras):
    """The germeval_extras matrices (counted with plain Python in tests/conftest.py) read back as the audit's own
    counts of the item files."""
    for name in ("word-logreg", "char-svm-balanced"):
        labels, matrix, _ = read_matrix(germeval_extras / "confusion" / f"{name}.tsv")
        assert tuple(labels) == item_audit.labels
        np.testing.assert_array_equal(matrix, item_audit.systems[name].confusion)


def test_slides_table_kappa_and_raw_agreement():
    """slides-nlp-evaluation-protocol.md, Cohen's kappa example: [[0, 10], [20, 70]] -> 0.70, −0.15."""
    result = auditor.audit_confusion({"A": [[0, 10], [20, 70]]}, labels=["yes", "no"], bootstrap=0)
    metrics = result.systems["A"].metrics
    assert metrics["accuracy"].value == pytest.approx(0.70)
    # p_e = 0.2·0.1 + 0.8·0.9 = 0.74; (0.70 − 0.74) / 0.26 = −0.1538 (the slides round to −0.15)
    assert metrics["kappa"].value == pytest.approx(-0.04 / 0.26)


def test_bootstrap_is_independent_multinomial_and_tests_unavailable(matrix_files):
    result = auditor.audit_confusion({name: str(path) for name, path in matrix_files.items()}, bootstrap=300, seed=3)
    document = result.to_json()
    statistics = document["statistics"]
    assert statistics["method"].startswith("independent multinomial")
    assert statistics["pairwise_tests_unavailable"].startswith("only confusion matrices were given")
    assert document["tests"] == [] and "best_set" not in document["statistics"]
    boot = result.statistics.bootstrap
    # the resampled accuracy of a system is Binomial(N, acc) / N: its spread matches sqrt(acc(1-acc)/N)
    accuracy = boot.values["accuracy"][:, 0]
    observed = boot.observed["accuracy"][0]
    assert abs(accuracy.mean() - observed) < 0.004
    assert accuracy.std() == pytest.approx(np.sqrt(observed * (1 - observed) / 3532), rel=0.15)
    lo, hi = document["systems"]["word-logreg"]["metrics"]["accuracy"]["ci"]
    assert lo < observed < hi
    assert "confusion matrices" in document["verdict"]["text"]


def test_bootstrap_resamples_keep_each_matrix_size():
    from auditor.analyses.resample import Resampler

    counts, _ = confusion_counts({"A": [[5, 5], [10, 80]], "B": [[0, 10], [20, 70]]}, labels=["x", "y"])
    batch = next(iter(Resampler(counts, 50, seed=1)))
    assert batch.shape[1:] == (2, 2, 2)
    np.testing.assert_array_equal(batch.sum(axis=(2, 3)), 100)
    assert (batch[:, 1, 0, 0] == 0).all()  # a cell with no item stays empty


def test_cli_score_json_and_report_sections(matrix_files, tmp_path):
    runner = CliRunner()
    arguments = [f"--confusion={name}={path}" for name, path in matrix_files.items()]
    result = runner.invoke(cli, ["score", *arguments, "--bootstrap", "50", "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert list(document["systems"]) == list(SYSTEMS)
    assert document["sources"]["gold"]["kind"] == "row sums of the confusion matrices"
    from auditor.report.build import build

    result = auditor.audit_confusion(dict(matrix_files), bootstrap=50)
    assert result.to_json()["statistics"] == document["statistics"]
    report = build(result, figures=False)
    significance = report.section("significance")
    assert significance is not None
    assert "pairwise tests unavailable" in json.dumps([str(block) for block in significance.blocks])


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("g\ta\tb\na\t1\t2\nb\t3\n", "2 cells; expected 3"),
    ("g\ta\tb\na\t1\t-2\nb\t3\t4\n", "'-2' is not a count"),
    ("g\ta\tb\na\t1\t2.5\nb\t3\t4\n", "'2.5' is not a count"),
    ("g\ta\tb\na\t1\tx\nb\t3\t4\n", "'x' is not a count"),
    ("g\ta\tb\na\t1\t2\nc\t3\t4\n", "row labels (gold) and the column labels (predicted) differ"),
    ("g\ta\tb\na\t1\t2\n", "only as columns: 'b'"),
    ("g\ta\ta\na\t1\t2\na\t3\t4\n", "label 'a' appears twice"),
    ("g\ta\tb\na\t1\t2\nb\t3\t4\nb\t3\t4\n", "more rows than the 2 labels"),
    ("1\t2\n3\t4\n", "only numbers"),
    ("g\ta\tb\na\t0\t0\nb\t0\t0\n", "every count is 0"),
    ("g\ta\t\na\t1\t2\n\t3\t4\n", "an empty label"),
])
def test_bad_matrix_files(tmp_path, text, message):
    path = tmp_path / "m.tsv"
    path.write_text(text)
    with pytest.raises(InputError, match=None) as caught:
        read_matrix(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_csv_layout_with_quotes_comments_and_row_order(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text('# a comment\n,"b, quoted",a\n\na,1,2\n"b, quoted",3,4\n')
    labels, matrix, _ = read_matrix(path)
    assert labels == ["b, quoted", "a"]
    np.testing.assert_array_equal(matrix, [[3, 4], [1, 2]])  # rows put in column order


def test_margins_must_match_and_the_first_mismatch_is_named(tmp_path):
    first, second = tmp_path / "one.tsv", tmp_path / "two.tsv"
    first.write_text("g\ta\tb\na\t1\t2\nb\t3\t4\n")
    second.write_text("g\ta\tb\na\t3\t0\nb\t3\t5\n")
    with pytest.raises(InputError) as caught:
        confusion_counts({"one": str(first), "two": str(second)})
    message = str(caught.value)
    assert "two.tsv" in message and "'b' is 8" in message and "one.tsv has 7" in message and "gold margins" in message


def test_label_sets_must_match_across_files(tmp_path):
    first, second = tmp_path / "one.tsv", tmp_path / "two.tsv"
    first.write_text("g\ta\tb\na\t1\t2\nb\t3\t4\n")
    second.write_text("g\ta\tc\na\t1\t2\nc\t3\t4\n")
    with pytest.raises(InputError, match="missing 'b'; extra 'c'"):
        confusion_counts({"one": str(first), "two": str(second)})


def test_files_in_another_order_are_aligned(tmp_path):
    first, second = tmp_path / "one.tsv", tmp_path / "two.tsv"
    first.write_text("g\ta\tb\na\t1\t2\nb\t3\t4\n")
    second.write_text("g\tb\ta\nb\t4\t3\na\t0\t3\n")
    counts, _ = confusion_counts({"one": str(first), "two": str(second)})
    np.testing.assert_array_equal(counts.confusion[1], [[3, 0], [3, 4]])
    assert counts.n_items == 10 and not counts.paired
    np.testing.assert_array_equal(counts.support, [3, 7])


def test_array_errors():
    with pytest.raises(UsageError, match="needs labels"):
        confusion_counts({"A": [[1, 2], [3, 4]]})
    with pytest.raises(InputError, match=r"shape \(2, 3\)"):
        confusion_counts({"A": [[1, 2, 3], [3, 4, 5]]}, labels=["a", "b"])
    with pytest.raises(InputError, match="non-negative whole-number"):
        confusion_counts({"A": [[1, -2], [3, 4]]}, labels=["a", "b"])


@pytest.mark.parametrize("arguments, message", [
    (["score", "--quiet"], "missing GOLD and SYSTEMS"),
    (["score", "gold.tsv", "--quiet"], "missing SYSTEMS"),
    (["score", "gold.tsv", "--confusion", "A=a.tsv"], "--confusion replaces GOLD and SYSTEMS"),
    (["score", "--confusion", "A=absent.tsv"], "absent.tsv: cannot read"),
])
def test_cli_errors_are_one_line(arguments, message):
    result = CliRunner().invoke(cli, arguments)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("auditor: error:") and message in lines[0]


def test_labels_option_fixes_the_order_and_must_be_the_same_set(matrix_files):
    path = str(matrix_files["word-logreg"])
    result = auditor.audit_confusion({"A": path}, labels=["OTHER", "ABUSE", "INSULT", "PROFANITY"], bootstrap=0)
    labels, matrix, _ = read_matrix(path)
    order = [labels.index(label) for label in result.labels]
    np.testing.assert_array_equal(result.systems["A"].confusion, matrix[np.ix_(order, order)])
    with pytest.raises(InputError, match=r"differ from those of --labels \(extra 'PROFANITY'\)"):
        auditor.audit_confusion({"A": path}, labels=["OTHER", "ABUSE", "INSULT"], bootstrap=0)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.integers(1, 3), st.integers(5, 60), st.integers(0, 2**31))
def test_any_items_give_the_same_metrics_as_their_matrices(k, systems, n, seed):
    """Invariant: every metric is a function of the matrix, so both paths agree exactly."""
    rng = np.random.default_rng(seed)
    labels = [f"l{i}" for i in range(k)]
    gold = rng.integers(0, k, n)
    gold[:k] = np.arange(k)  # every label in gold
    predictions = {f"S{s}": rng.integers(0, k, n) for s in range(systems)}
    names = np.array(labels)
    # the metrics only (analyses=()): the analyses read the same counts and cost 0.3 s an audit, 25 examples over
    from_items = auditor.audit(names[gold].tolist(), {s: names[p].tolist() for s, p in predictions.items()},
                               labels=labels, bootstrap=0, analyses=())
    from_matrices = auditor.audit_confusion({s: r.confusion for s, r in from_items.systems.items()}, labels=labels,
                                            bootstrap=0, analyses=())
    for name, system in from_items.systems.items():
        for metric_id, value in system.metrics.items():
            other = from_matrices.systems[name].metrics[metric_id].value
            assert (value.value is None and other is None) or value.value == other, (name, metric_id)
