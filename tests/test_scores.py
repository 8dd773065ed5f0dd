"""Per-class scores: known answers against scikit-learn and hand computations."""
from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import average_precision_score, log_loss, roc_auc_score

from auditor import audit
from auditor.cli import cli
from auditor.errors import InputError
from auditor.analyses.scores import ECE_BINS, score_metrics

LABELS = ["a", "b", "c"]


def _probabilities(seed: int = 3, n: int = 300):
    rng = np.random.default_rng(seed)
    gold = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    logits = rng.normal(size=(n, 3)) + 1.5 * np.eye(3)[gold]
    logits = np.round(logits, 1)  # coarse values: tied scores within a class exercise the mid-ranks
    p = np.exp(logits)
    return gold, p / p.sum(axis=1, keepdims=True)


def test_ranking_and_probability_metrics_agree_with_scikit_learn():
    gold, p = _probabilities()
    values, _ = score_metrics(p, gold, LABELS)
    assert values["roc_auc_macro"].value == pytest.approx(roc_auc_score(gold, p, multi_class="ovr", average="macro"),
                                                          abs=1e-12)
    assert values["roc_auc_weighted"].value == pytest.approx(
        roc_auc_score(gold, p, multi_class="ovr", average="weighted"), abs=1e-12)
    onehot = np.eye(3)[gold]
    assert values["average_precision_macro"].value == pytest.approx(
        average_precision_score(onehot, p, average="macro"), abs=1e-12)
    assert values["log_loss"].value == pytest.approx(log_loss(gold, p, labels=[0, 1, 2]), abs=1e-12)
    # Brier (1950), multi-class: mean over items of sum over classes of (p - y)^2, by hand
    hand = sum(sum((p[i, c] - (gold[i] == c)) ** 2 for c in range(3)) for i in range(len(gold))) / len(gold)
    assert values["brier"].value == pytest.approx(hand, abs=1e-12)


def test_ece_by_hand():
    # four items, M = 15 bins of width 1/15: confidences 0.9, 0.9 (bin 14), 0.5 (bin 8), 0.34 (bin 6)
    p = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.5, 0.3, 0.2], [0.33, 0.34, 0.33]])
    gold = np.array([0, 2, 0, 1])  # correct, wrong, correct, correct
    values, bins = score_metrics(p, gold, LABELS)
    # bin of 0.9: acc 1/2, conf 0.9 -> 2/4 * 0.4; bin of 0.5: 1/4 * 0.5; bin of 0.34: 1/4 * 0.66
    assert values["ece"].value == pytest.approx(2 / 4 * 0.4 + 1 / 4 * 0.5 + 1 / 4 * 0.66, abs=1e-12)
    assert len(bins.count) == ECE_BINS and sum(bins.count) == 4
    assert bins.count[13] == 2 and bins.count[7] == 1 and bins.count[5] == 1
    # a confidence exactly on a bin edge (1/3 = 5/15) falls in the lower bin (m-1)/M < conf <= m/M
    edge, edge_bins = score_metrics(np.array([[1 / 3, 1 / 3, 1 / 3], [1.0, 0.0, 0.0]]), np.array([0, 0]), LABELS)
    assert edge_bins.count[4] == 1 and edge_bins.count[14] == 1


def test_undefined_cases_are_recorded_with_their_reason():
    gold, p = _probabilities()
    gold = np.where(gold == 2, 0, gold)  # class c has no gold item
    values, _ = score_metrics(p, gold, LABELS)
    assert values["roc_auc_macro"].value is None and "'c'" in values["roc_auc_macro"].undefined
    assert values["average_precision_macro"].value is None
    assert values["roc_auc_weighted"].value == pytest.approx(
        roc_auc_score(gold, p[:, :2] / p[:, :2].sum(axis=1, keepdims=True), multi_class="ovr", average="weighted")
        if False else np.sum([roc_auc_score(gold == c, p[:, c]) * np.mean(gold == c) for c in (0, 1)]), abs=1e-12)
    # not probabilities: the losses are undefined, naming the first row
    scores = p * 2
    values, _ = score_metrics(scores, gold, LABELS)
    assert values["log_loss"].value is None and "item 1 sums to" in values["log_loss"].undefined
    assert values["roc_auc_weighted"].value is not None  # ranking metrics need no probabilities
    zero = p.copy()
    zero[0] = np.eye(3)[(gold[0] + 1) % 3]
    values, _ = score_metrics(zero, gold, LABELS)
    assert values["log_loss"].value is None and "infinite" in values["log_loss"].undefined


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


GOLD = "id\tlabel\n1\ta\n2\tb\n3\tc\n4\ta\n5\tb\n6\tc\n"


def test_score_file_argmax_ties_and_label_column(tmp_path):
    gold = _write(tmp_path, "gold.tsv", GOLD)
    # columns in another order than the labels, rows in another order than the gold; item 4 ties a and c
    scores = _write(tmp_path, "s.tsv", "id\tc\tb\ta\n6\t0.7\t0.2\t0.1\n4\t0.4\t0.2\t0.4\n1\t0.1\t0.1\t0.8\n"
                                       "2\t0.2\t0.5\t0.3\n3\t0.3\t0.4\t0.3\n5\t0.3\t0.3\t0.4\n")
    document = audit(gold, {"s": scores}, bootstrap=0).to_json()
    # argmax: 1 a, 2 b, 3 b, 4 a (tie a/c -> a, first by name), 5 a, 6 c
    assert document["systems"]["s"]["confusion"] == [[2, 0, 0], [1, 1, 0], [0, 1, 1]]
    p = np.array([[0.8, 0.1, 0.1], [0.3, 0.5, 0.2], [0.3, 0.4, 0.3], [0.4, 0.2, 0.4], [0.4, 0.3, 0.3], [0.1, 0.2, 0.7]])
    y = np.array([0, 1, 2, 0, 1, 2])
    scores_json = document["systems"]["s"]["scores"]
    assert scores_json["roc_auc_macro"]["value"] == pytest.approx(roc_auc_score(y, p, multi_class="ovr"), abs=1e-12)
    assert scores_json["log_loss"]["value"] == pytest.approx(log_loss(y, p), abs=1e-12)
    # a label column overrides the argmax
    labelled = _write(tmp_path, "l.csv", "id,label,a,b,c\n1,c,0.8,0.1,0.1\n2,b,0.3,0.5,0.2\n3,c,0.3,0.4,0.3\n"
                                         "4,a,0.4,0.2,0.4\n5,b,0.4,0.3,0.3\n6,c,0.1,0.2,0.7\n")
    document = audit(gold, {"l": labelled}, bootstrap=0).to_json()
    assert document["systems"]["l"]["confusion"] == [[1, 0, 1], [0, 2, 0], [0, 0, 2]]
    assert document["systems"]["l"]["scores"]["log_loss"]["value"] == pytest.approx(log_loss(y, p), abs=1e-12)


def test_json_lines_scores_and_intervals(tmp_path):
    gold = _write(tmp_path, "gold.tsv", GOLD)
    rows = [(1, 0.8, 0.1, 0.1), (2, 0.3, 0.5, 0.2), (3, 0.3, 0.4, 0.3), (4, 0.4, 0.2, 0.4), (5, 0.4, 0.3, 0.3),
            (6, 0.1, 0.2, 0.7)]
    lines = "".join(json.dumps({"id": str(i), "scores": {"a": a, "b": b, "c": c}}) + "\n" for i, a, b, c in rows)
    path = _write(tmp_path, "s.jsonl", lines)
    result = CliRunner().invoke(cli, ["score", gold, path, "--bootstrap", "200", "--json"])
    assert result.exit_code == 0, result.output
    scores_json = json.loads(result.output)["systems"]["s"]["scores"]
    y = np.array([0, 1, 2, 0, 1, 2])
    p = np.array([r[1:] for r in rows])
    assert scores_json["brier"]["value"] == pytest.approx(np.mean(np.sum((p - np.eye(3)[y]) ** 2, axis=1)))
    low, high = scores_json["brier"]["ci"]
    assert low <= scores_json["brier"]["value"] <= high
    for metric_id, entry in scores_json.items():  # every score metric gets an interval around its value
        assert entry["ci"][0] <= entry["value"] <= entry["ci"][1], metric_id


@pytest.mark.parametrize("text, expected", [
    ("id\ta\tb\n1\t0.5\t0.5\n2\t0.5\t0.5\n3\t0.5\t0.5\n4\t0.5\t0.5\n5\t0.5\t0.5\n6\t0.5\t0.5\n",
     "no score column for gold label(s) 'c'"),
    ("id\ta\tb\tc\n1\t0.5\tx\t0.5\n", "line 2: score of 'b' is 'x'; expected a number"),
    ("id\ta\tb\tc\n1\t0.5\tnan\t0.5\n", "line 2: score of 'b' is nan"),
])
def test_bad_score_files(tmp_path, text, expected):
    gold = _write(tmp_path, "gold.tsv", GOLD)
    path = _write(tmp_path, "s.tsv", text)
    with pytest.raises(InputError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        audit(gold, {"s": path}, bootstrap=0)


def test_reliability_chart_renders():
    from auditor.report.charts import reliability_chart

    gold, p = _probabilities()
    _, bins = score_metrics(p, gold, LABELS)
    svg = reliability_chart({"sys": asdict(bins)})
    assert svg.startswith("<svg") and "Accuracy" in svg


def test_scores_section_in_the_report(tmp_path):
    from auditor.report.build import build

    gold = _write(tmp_path, "gold.tsv", GOLD)
    scores = _write(tmp_path, "s.tsv", "id\ta\tb\tc\n1\t0.8\t0.1\t0.1\n2\t0.3\t0.5\t0.2\n3\t0.3\t0.4\t0.3\n"
                                       "4\t0.4\t0.2\t0.4\n5\t0.4\t0.3\t0.3\n6\t0.1\t0.2\t0.7\n")
    labels = _write(tmp_path, "plain.tsv", GOLD)
    section = build(audit(gold, {"s": scores, "plain": labels}, bootstrap=0), figures=False).section("scores")
    table = next(b for b in section.blocks if getattr(b, "kind", "") == "table")
    assert [row.header for row in table.rows] == ["s"]
    assert table.rows[0].cells[3].value == pytest.approx(log_loss([0, 1, 2, 0, 1, 2], [
        [0.8, 0.1, 0.1], [0.3, 0.5, 0.2], [0.3, 0.4, 0.3], [0.4, 0.2, 0.4], [0.4, 0.3, 0.3], [0.1, 0.2, 0.7]]))


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(5, 60))
def test_invariants_of_the_score_metrics(seed, n):
    """AUC and AP depend only on each column's order (a strictly increasing map keeps them); Brier
    lies in [0, 2], ECE in [0, 1], log loss >= 0; every defined value agrees with scikit-learn's AUC."""
    rng = np.random.default_rng(seed)
    gold = np.r_[0, 1, 2, rng.integers(0, 3, n - 3)]
    p = rng.dirichlet(np.ones(3), size=n)
    values, _ = score_metrics(p, gold, LABELS)
    moved, _ = score_metrics(p ** 3 + 2, gold, LABELS)  # not probabilities, same order per column
    for metric_id in ("roc_auc_macro", "roc_auc_weighted", "average_precision_macro"):
        assert moved[metric_id].value == pytest.approx(values[metric_id].value, abs=1e-12)
    assert moved["brier"].value is None
    assert 0 <= values["brier"].value <= 2 and 0 <= values["ece"].value <= 1 and values["log_loss"].value >= 0
    assert values["roc_auc_macro"].value == pytest.approx(roc_auc_score(gold, p, multi_class="ovr"), abs=1e-12)


def test_a_weighted_resample_equals_the_metrics_of_the_repeated_items():
    """The bootstrap's weighted formulas (sorted once, weights per distinct score) give exactly the
    metrics of the resampled items written out, and scikit-learn's AUC and AP on them."""
    from auditor.analyses.scores import _Resampler

    gold, p = _probabilities(seed=11, n=120)
    rng = np.random.default_rng(5)
    weights = rng.multinomial(120, np.full(120, 1 / 120), size=3).astype(float)
    batch = _Resampler(p, gold, LABELS)(weights)
    for b in range(3):
        items = np.repeat(np.arange(120), weights[b].astype(int))
        expected, _ = score_metrics(p[items], gold[items], LABELS)
        for metric_id, value in expected.items():
            assert batch[metric_id][b] == pytest.approx(value.value, abs=1e-12), metric_id
        assert batch["roc_auc_macro"][b] == pytest.approx(
            roc_auc_score(gold[items], p[items], multi_class="ovr"), abs=1e-12)
        assert batch["average_precision_macro"][b] == pytest.approx(
            average_precision_score(np.eye(3)[gold[items]], p[items], average="macro"), abs=1e-12)


def test_intervals_beyond_the_time_budget_are_null_with_a_note(tmp_path, monkeypatch):
    import auditor.analyses.scores as scores_module

    monkeypatch.setattr(scores_module, "RANKING_BUDGET", 10)
    gold = _write(tmp_path, "gold.tsv", GOLD)
    path = _write(tmp_path, "s.tsv", "id\ta\tb\tc\n1\t0.8\t0.1\t0.1\n2\t0.3\t0.5\t0.2\n3\t0.3\t0.4\t0.3\n"
                                     "4\t0.4\t0.2\t0.4\n5\t0.4\t0.3\t0.3\n6\t0.1\t0.2\t0.7\n")
    document = audit(gold, {"s": path}, bootstrap=50).to_json()
    entry = document["systems"]["s"]["scores"]
    assert entry["roc_auc_macro"]["ci"] is None and entry["average_precision_macro"]["ci"] is None
    assert entry["brier"]["ci"] is not None
    assert document["score_summary"]["notes"] == ["s: AUC and AP intervals not computed: N·B·k = 900 is above 10"]


def test_json_lines_scores_with_a_bad_line_or_deep_nesting_are_one_clear_error(tmp_path):
    """The scores reader and the label reader share one JSON Lines parser: a bad line is named
    with what a scores line should hold, and nesting too deep to sniff is the loader's error,
    not a RecursionError."""
    gold = _write(tmp_path, "gold.tsv", GOLD)
    good = json.dumps({"id": "1", "scores": {"a": 0.5, "b": 0.3, "c": 0.2}})
    bad_line = _write(tmp_path, "bad.jsonl", good + "\n{oops\n")
    result = CliRunner().invoke(cli, ["score", gold, bad_line, "--bootstrap", "0"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "bad.jsonl line 2: invalid JSON" in result.output and '"scores": {"pos": 0.8' in result.output
    deep = _write(tmp_path, "deep.jsonl", '{"scores": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    result = CliRunner().invoke(cli, ["score", gold, deep, "--bootstrap", "0"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "deep.jsonl line 1: JSON nested too deeply" in result.output


def test_a_label_file_whose_header_words_are_gold_labels_is_read_as_labels(tmp_path):
    """Gold labels named `id` and `label` make the header `id<TAB>label` look like two score
    columns; the first item line holds no numbers there, so the file is a label file (found by
    benchmarks/fuzz_inputs.py, which counted it as a valid input refused)."""
    gold = _write(tmp_path, "gold.tsv", "id\tlabel\n1\tid\n2\tlabel\n3\tid\n")
    system = _write(tmp_path, "s.tsv", "id\tlabel\n1\tid\n2\tid\n3\tlabel\n")
    result = audit(gold, {"s": system}, bootstrap=0)
    assert result.systems["s"].metrics["accuracy"].value == pytest.approx(1 / 3)
    assert "scores" not in result.to_json()["systems"]["s"]


def test_analyse_takes_aligned_scores_gold_codes_and_the_options_it_needs():
    """scores.score_systems needs no Audit: aligned score matrices, gold codes, labels, the systems' order
    (a system's position seeds its resamples) and bootstrap / seed / alpha from the caller. The same
    seed gives the same intervals; alpha sets their level; the result is frozen."""
    import dataclasses

    from auditor.analyses.scores import score_systems
    from auditor.io.scores import AlignedScores

    gold, p = _probabilities(seed=4, n=80)
    aligned = {"s": AlignedScores("<s>", tuple(LABELS), p, np.arange(2, 82))}
    first = score_systems(aligned, gold, LABELS, ("t", "s"), bootstrap=200, seed=7, alpha=0.05)
    again = score_systems(aligned, gold, LABELS, ("t", "s"), bootstrap=200, seed=7, alpha=0.05)
    wider = score_systems(aligned, gold, LABELS, ("t", "s"), bootstrap=200, seed=7, alpha=0.01)
    brier = first.values["s"]["brier"]
    assert brier.value == pytest.approx(np.mean(np.sum((p - np.eye(3)[gold]) ** 2, axis=1)), abs=1e-12)
    assert brier.ci == again.values["s"]["brier"].ci
    low, high = wider.values["s"]["brier"].ci
    assert low <= brier.ci[0] and brier.ci[1] <= high
    assert first.values["s"]["roc_auc_macro"].value == pytest.approx(roc_auc_score(gold, p, multi_class="ovr"))
    assert first.reliability["s"] is not None and sum(first.reliability["s"].count) == 80
    none = score_systems(aligned, gold, LABELS, ("t", "s"), bootstrap=0, seed=7, alpha=0.05)
    assert none.values["s"]["brier"].ci is None and none.intervals == "none (--bootstrap 0)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        brier.ci = None
