"""The verdict (audit.json ``verdict``) and the page-1 leaderboard.

Issue 12: on GermEval-2018 char-svm leads accuracy by 71.3 vs 71.2 over char-svm-balanced
(exact McNemar p = 0.77), so both are in the accuracy best set and the winner does not depend
on the metric; it depends only where the best sets of two key metrics share no system.
"""
from __future__ import annotations

import importlib

import pytest

import auditor
from auditor.analyses.significance import BestSet, PairTest, Statistics
from auditor.analyses.verdict import decide, ordered, significance_groups

report = importlib.import_module("auditor.report.build")


@pytest.fixture(scope="module")
def germeval(germeval_dir):
    systems = {path.stem: str(path) for path in sorted((germeval_dir / "systems").glob("*.tsv"))}
    return auditor.audit(str(germeval_dir / "gold.tsv"), systems, bootstrap=200)


def test_germeval_accuracy_lead_is_not_a_metric_dependent_winner(germeval):
    verdict = germeval.to_json()["verdict"]
    accuracy = germeval.systems
    assert accuracy["char-svm"].metrics["accuracy"].value > accuracy["char-svm-balanced"].metrics["accuracy"].value
    assert {"char-svm", "char-svm-balanced"} <= set(verdict["leaders"]["accuracy"])
    assert all("char-svm-balanced" in members for members in verdict["leaders"].values())
    assert verdict["winner_depends_on_metric"] is False
    assert verdict["text"].startswith("No: char-svm-balanced is in the best set of every key metric")
    assert set(verdict["key_metrics"]) >= {"accuracy", "macro_f1", "macro_recall", "mcc", "informedness"}
    # the recommendation's primary metric (macro recall on GermEval, issue 8) leads the key metrics
    assert verdict["primary"] == "macro_recall" and verdict["key_metrics"][0] == "macro_recall"


def test_germeval_order_and_groups_follow_the_primary_metric(germeval):
    verdict = germeval.to_json()["verdict"]
    values = {name: result.metrics[verdict["primary"]].value for name, result in germeval.systems.items()}
    assert verdict["order"] == sorted(values, key=values.get, reverse=True)
    assert verdict["groups"][0] == verdict["leaders"][verdict["primary"]]
    assert [s for group in verdict["groups"] for s in group] == verdict["order"]


def test_page_one_leaderboard_sorted_with_best_sets_in_bold(germeval):
    model = report.build(germeval, figures=False)
    summary = model.section("summary")
    facts = dict(summary.blocks[0].pairs)
    assert facts["Winner depends on the metric?"].startswith("No:")
    table = next(b for b in summary.blocks if getattr(b, "id", "") == "summary-leaderboard")
    verdict = germeval.to_json()["verdict"]
    assert [row.header for row in table.rows] == verdict["order"]
    labels = [column.label for column in table.columns]
    assert labels[0] == "Group" and labels[1] == "macR"
    accuracy = labels.index("Acc")
    bold = {row.header for row in table.rows if row.cells[accuracy].strong}
    assert bold == set(verdict["leaders"]["accuracy"])
    assert all(cell.low is not None for cell in table.rows[0].cells[1:-1])  # the last: above chance
    assert "best set" in table.caption and "not significantly worse" in table.caption
    # every other table of the report follows the same order
    metrics_table = next(b for b in model.section("metrics").blocks if getattr(b, "id", "") == "table-metrics")
    assert [row.header for row in metrics_table.rows] == verdict["order"]


def _values(values: dict[str, dict[str, float]]) -> dict[str, dict[str, float | None]]:
    """system -> metric -> value, turned into the verdict's metric -> system -> value."""
    metrics = list(next(iter(values.values())))
    return {m: {s: v.get(m) for s, v in values.items()} for m in metrics}


def _statistics(best: dict[str, list[str]], tests=()) -> Statistics:
    """A Statistics result carrying only the best sets and pairwise tests the verdict reads."""
    best_sets = {m: BestSet(members[0], tuple(members), "approximate_randomisation", 0.05, {})
                 for m, members in best.items()}
    return Statistics(bootstrap=None, tests=tuple(tests), best_set=best_sets, test_metrics=tuple(best),
                      correction="holm", alpha=0.05, rounds=100, family="all pairs")


def test_depends_only_where_best_sets_are_disjoint():
    values = {"a": {"accuracy": 0.9, "macro_f1": 0.5}, "b": {"accuracy": 0.7, "macro_f1": 0.8},
              "c": {"accuracy": 0.6, "macro_f1": 0.4}}
    overlapping = decide(_values(values), _statistics({"accuracy": ["a", "b"], "macro_f1": ["b"]}))
    assert not overlapping.winner_depends_on_metric
    assert overlapping.text.startswith("No: b is in the best set of every key metric")
    assert ("(a under accuracy; b under macro_f1), but b is not significantly worse than the top system under any "
            "of them.") in overlapping.text
    disjoint = decide(_values(values), _statistics({"accuracy": ["a"], "macro_f1": ["b"]}))
    assert disjoint.winner_depends_on_metric
    assert disjoint.disjoint == (("accuracy", "macro_f1"),)
    assert disjoint.text.startswith("Yes: the best sets of accuracy (a) and macro_f1 (b) share no system")


def test_without_tests_leaders_are_the_top_values_and_ties_are_stated():
    values = {"a": {"accuracy": 0.5}, "b": {"accuracy": 0.8}, "c": {"accuracy": 0.8}, "d": {"accuracy": None}}
    verdict = decide(_values(values), None)
    assert verdict.leaders == {"accuracy": ("b", "c")}
    assert verdict.order == ("b", "c", "a", "d")
    assert verdict.ties == {"accuracy": (("b", "c"),)}
    assert "Tied under accuracy: b = c." in verdict.text
    assert "No significance tests ran" in verdict.text
    # a tie below the top is in the JSON, not in the verdict's text
    lower = decide(_values({"a": {"accuracy": 0.9}, "b": {"accuracy": 0.5}, "c": {"accuracy": 0.5}}), None)
    assert lower.ties == {"accuracy": (("b", "c"),)} and "Tied" not in lower.text


def test_significance_groups_from_pairwise_tests():
    values = {s: {"accuracy": v} for s, v in zip("abcd", (0.9, 0.8, 0.7, 0.6))}
    tests = [PairTest(a, b, "accuracy", "approximate_randomisation", 0.0, p, p)
             for (a, b), p in {("b", "c"): 0.3, ("b", "d"): 0.01, ("c", "d"): 0.5}.items()]
    accuracy = {s: v["accuracy"] for s, v in values.items()}
    best = _statistics({"accuracy": ["a"]}).best_set["accuracy"]
    order = ordered(accuracy)
    assert significance_groups("accuracy", accuracy, best, tests, order) == [("a",), ("b", "c"), ("d",)]
    # a pair that was not tested ends the grouping
    assert significance_groups("accuracy", accuracy, best, tests[:1], order) == [("a",)]


def test_without_tests_differing_top_values_are_not_a_yes():
    """Point estimates never answer "the winner depends on the metric" (the design's one rule for significance):
    a and b top different metrics, but without a test the verdict says so and answers neither yes nor no."""
    values = {"a": {"accuracy": 0.9, "macro_f1": 0.5}, "b": {"accuracy": 0.7, "macro_f1": 0.8}}
    verdict = decide(_values(values), None)
    assert verdict.disjoint == (("accuracy", "macro_f1"),)
    assert not verdict.winner_depends_on_metric and not verdict.tested
    assert verdict.text.startswith("Not tested: the top values of accuracy (a) and macro_f1 (b) differ, but whether")
    assert "Yes" not in verdict.text
