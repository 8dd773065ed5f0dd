"""Which analyses run (issue 10: compute what the output shows): ``auditor score``'s table needs
the metric values and the bootstrap intervals only; skipping the other analyses changes none of
its numbers, because every analysis draws from its own seeded stream."""
from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

import auditor
from auditor.cli import DEFAULT_COLUMNS, TABLE_ANALYSES
from auditor.errors import UsageError
from auditor.analyses.significance import NOT_REQUESTED_REASON
from auditor.pipeline import INTERVALS, audit_confusion, needed
from auditor.terminal import print_score_table


def _table_text(result) -> str:
    buffer = io.StringIO()
    print_score_table(result, DEFAULT_COLUMNS, Console(file=buffer, width=250, soft_wrap=True))
    return buffer.getvalue()


def test_the_score_table_is_the_same_with_only_its_analyses(examples_dir):
    root = examples_dir / "germeval2018"
    systems = {path.stem: str(path) for path in sorted((root / "systems").glob("*.tsv"))}
    full = auditor.audit(str(root / "gold.tsv"), systems, bootstrap=50)
    table = auditor.audit(str(root / "gold.tsv"), systems, bootstrap=50, analyses=TABLE_ANALYSES)
    assert table.statistics is not None
    for name in ("baselines", "properties", "rankings", "deployment", "recommendation", "verdict"):
        assert getattr(table, name) is None, name
    for metric_id, intervals in full.statistics.bootstrap.intervals.items():
        np.testing.assert_array_equal(table.statistics.bootstrap.intervals[metric_id], intervals)
    assert _table_text(table) == _table_text(full)
    document = table.to_json()
    assert "baselines" not in document and "statistics" in document
    # the table shows no test, so none ran; the JSON says so instead of an empty family
    assert full.statistics.tests and table.statistics.tests == () and table.statistics.best_set == {}
    assert document["statistics"]["pairwise_tests_unavailable"] == NOT_REQUESTED_REASON
    assert "best_set" not in document["statistics"]
    # the table needs no ranks, so the paired resample did not run (each system's intervals come from
    # its own resamples, the same in both runs): the JSON says so and has no rank entries
    from auditor.analyses.bootstrap import INTERVALS_METHOD

    assert full.statistics.bootstrap.rank_probabilities and table.statistics.bootstrap.rank_probabilities == {}
    assert document["statistics"]["method"] == INTERVALS_METHOD and document["statistics"]["ranks"] == {}


def test_the_intervals_alone_give_the_full_statistics_when_something_reads_them():
    assert needed((INTERVALS,)) == {INTERVALS}
    assert needed((INTERVALS, "verdict")) >= {"statistics"}
    result = auditor.audit(["a", "b", "b", "a"] * 5, {"x": ["a", "b", "a", "a"] * 5, "y": ["b", "b", "b", "a"] * 5},
                           bootstrap=20, analyses=(INTERVALS, "rankings"))
    assert result.statistics.tests and result.statistics.pairwise_unavailable is None


def test_the_table_caption_says_independent_resampling_only_for_confusion_matrices():
    # Items paired (the caption's "no paired tests" must not follow from the tests being skipped)
    paired = auditor.audit(["a", "b", "b", "a"] * 5, {"x": ["a", "b", "a", "a"] * 5}, bootstrap=20,
                           analyses=TABLE_ANALYSES)
    assert "resampled on its own" not in _table_text(paired)
    unpaired = audit_confusion({"x": np.array([[8, 2], [5, 5]])}, labels=["a", "b"], bootstrap=20,
                               analyses=TABLE_ANALYSES)
    assert "each confusion matrix resampled on its own, no paired tests" in _table_text(unpaired)


def test_an_analysis_brings_the_ones_it_reads():
    assert needed(("statistics",)) == {"statistics"}
    assert needed(("verdict",)) == {"verdict", "statistics", "recommendation", "baselines"}
    assert needed(("slices",)) == {"slices", "verdict", "statistics", "recommendation", "baselines"}
    with pytest.raises(UsageError, match="unknown nonsense"):
        needed(("nonsense",))
