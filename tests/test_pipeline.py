"""Which analyses run (issue 10: compute what the output shows): ``auditor score``'s table needs
the metric values and the bootstrap intervals only; skipping the other analyses changes none of
its numbers, because every analysis draws from its own seeded stream."""
from __future__ import annotations

import inspect
import io

import numpy as np
import pytest
from rich.console import Console

import auditor
from auditor.analyses.significance import NOT_REQUESTED_REASON
from auditor.cli import DEFAULT_COLUMNS, TABLE_ANALYSES
from auditor.errors import UsageError
from auditor.pipeline import ANALYSES, INTERVALS, OPTIONAL_INPUTS, STAGES, audit_confusion, needed
from auditor.results import Audit, ResultField
from auditor.terminal import print_score_table


def _table_text(result) -> str:
    buffer = io.StringIO()
    print_score_table(result, DEFAULT_COLUMNS, Console(file=buffer, width=250, soft_wrap=True))
    return buffer.getvalue()


def test_the_score_table_is_the_same_with_only_its_analyses(germeval_dir):
    root = germeval_dir
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


def test_one_stage_line_per_analysis_and_each_reads_what_its_analyse_takes():
    """Issue 18: the table of stages covers every analysis (an Audit field each, in run order); every
    stage's module has the one verb ``analyse``, whose parameters are exactly the stage's reads (the
    required ones at least), and a stage reads only earlier stages."""
    assert tuple(stage.name for stage in STAGES) == ANALYSES and len(set(ANALYSES)) == len(ANALYSES)
    typed = {name for name, value in vars(Audit).items() if isinstance(value, ResultField)}
    assert typed == set(ANALYSES) - {"toy"}  # the typed accessors name stages
    for position, stage in enumerate(STAGES):
        parameters = inspect.signature(stage.analyse()).parameters
        required = {name for name, p in parameters.items() if p.default is inspect.Parameter.empty}
        assert required <= set(stage.reads) <= set(parameters), stage.name
        later = set(ANALYSES[position:])
        assert not later & set(stage.reads), stage.name


def test_an_optional_input_given_runs_its_stage_whatever_the_analyses_asked():
    gold = ["a", "b", "b", "a"] * 5
    result = auditor.audit(gold, {"x": ["a", "b", "a", "a"] * 5}, annotators={"p": gold, "q": ["a"] * 20},
                           slices=["g", "h"] * 10, bootstrap=0, analyses=("properties",))
    assert result.gold_reliability is not None and result.slices is not None and result.verdict is not None
    assert result.baselines is not None  # the verdict reads the recommendation, which reads the baselines
    assert result.rankings is None and result.deployment is None and result.scores is None
    reading = {name for stage in STAGES for name in stage.reads if name in OPTIONAL_INPUTS}
    assert reading == set(OPTIONAL_INPUTS)


def test_a_new_analysis_is_its_module_and_one_stage_line(monkeypatch):
    """Issue 18's done-when: the record, the JSON loop and the runner need no edit for a new
    analysis; its module (here a stand-in) and its line in STAGES suffice (the constants that
    follow from STAGES are rebuilt as at import)."""
    import sys
    import types

    import auditor.pipeline as pipeline

    class Toy:
        def __init__(self, n_items, alpha):
            self.n_items, self.alpha = n_items, alpha

        def to_json(self):
            return {"toy": {"n_items": self.n_items, "alpha": self.alpha}}

    module = types.ModuleType("auditor.analyses.toy")
    module.analyse = lambda counts, alpha, verdict: Toy(counts.n_items, alpha)
    monkeypatch.setitem(sys.modules, "auditor.analyses.toy", module)
    stages = (*STAGES, pipeline.Stage("toy", ("counts", "alpha", "verdict"), "toy"))
    monkeypatch.setattr(pipeline, "STAGES", stages)
    monkeypatch.setattr(pipeline, "ANALYSES", tuple(stage.name for stage in stages))
    monkeypatch.setattr(pipeline, "READS", {stage.name: tuple(r for r in stage.reads if r in pipeline.ANALYSES)
                                            for stage in stages})
    result = auditor.audit(["a", "b", "b", "a"], {"x": ["a", "b", "a", "a"]}, bootstrap=0, analyses=("toy",))
    assert result.results["toy"].n_items == 4 and result.verdict is not None and result.properties is None
    document = result.to_json()
    assert document["toy"] == {"n_items": 4, "alpha": 0.05} and list(document)[-1] == "toy"


def test_a_new_report_section_is_its_module_alone(monkeypatch):
    """Issue 18's done-when, report side: a builder registered with ``@section(place)`` in a module
    of auditor.report.sections is built in its place, with no edit to report/build.py."""
    import auditor.report.sections as sections
    from auditor.report.model import Paragraph, Section

    sections.builders()  # every section module imported first, so its builders stay in the real registry
    monkeypatch.setattr(sections, "_REGISTERED", dict(sections._REGISTERED))

    @sections.section(135)  # between the recommendation (130) and the first appendix (140)
    def toy_section(ctx):
        return Section("toy", "Toy", (Paragraph(f"{ctx.audit.n_items} items"),))

    order = [builder.__name__ for builder in sections.builders()]
    assert order.index("recommendation_section") < order.index("toy_section") < order.index("definitions_section")
    with pytest.raises(RuntimeError, match="share a place"):
        sections.section(135)(lambda ctx: None)
        sections.builders()
