"""``--bootstrap 0`` means no random draw anywhere (issue 38, decision 1): every task kind runs with numpy's
generator factory made to raise for any caller in auditor but the property probes (which probe constructed
matrices, not the data); what is exact stays (metric values, exact expectations, exact McNemar, two-class exact
shuffle p-values, settling bounds) and the outputs say what did not run."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from test_tasks_common import FIXTURES

import auditor
from auditor.analyses import baselines, shuffle_test
from auditor.analyses.affine_check import affine_on_points
from auditor.cli import cli
from auditor.io.counts import count

#: Modules that may draw with --bootstrap 0: the property probes (constructed matrices, not the data).
ALLOWED = {"auditor.analyses.properties", "auditor.tasks.ordinal.probes"}


@pytest.fixture
def no_generator(monkeypatch):
    """``numpy.random.default_rng`` raising for every auditor module but :data:`ALLOWED` (other libraries, e.g.
    scipy at import, keep theirs); auditor never draws from numpy's legacy global functions."""
    real = np.random.default_rng

    def guarded(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("auditor") and caller not in ALLOWED:
            raise AssertionError(f"a random generator was made in {caller} with --bootstrap 0")
        return real(*args, **kwargs)

    monkeypatch.setattr(np.random, "default_rng", guarded)


@pytest.mark.parametrize("task", sorted(FIXTURES))
def test_no_task_draws_with_bootstrap_0(task, tmp_path, no_generator):
    files, extra = FIXTURES[task](tmp_path)
    out = tmp_path / "out"
    done = CliRunner().invoke(cli, ["report", *files, "--task", task, "--bootstrap", "0", "-o", str(out),
                                    "--format", "json,md", "--quiet", *extra])
    assert done.exit_code == 0, done.output
    document = json.loads((out / "audit.json").read_text())
    assert all(metric.get("ci") is None for system in document["systems"].values()
               for metric in system.get("metrics", {}).values())
    summary = (out / "summary.md").read_text(encoding="utf-8")  # no caption claims the intervals that were not drawn
    assert not any(claim in summary for claim in ("% intervals over", "% bootstrap intervals", "Scores ×100 with"))


def _three_class(n: int = 600, seed: int = 3):
    rng = np.random.default_rng(seed)
    gold = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    good = np.where(rng.random(n) < 0.8, gold, rng.choice(["a", "b", "c"], size=n))
    close = np.where(rng.random(n) < 0.75, gold, rng.choice(["a", "b", "c"], size=n))
    guess = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    return gold, {"good": good, "close": close, "guess": guess}


def test_classification_keeps_what_is_exact(no_generator):
    gold, systems = _three_class()
    result = auditor.audit(gold, systems, bootstrap=0)
    stats = result.statistics
    assert {t.method for t in stats.tests} == {"mcnemar_exact"} and set(stats.best_set) == {"accuracy"}
    assert set(stats.not_run) >= {"intervals", "ranks", "approximate_randomisation"}
    document = result.to_json()
    assert document["statistics"]["B"] == 0 and document["statistics"]["rank_route"] == "none"
    assert "not_run" in document["chance"]["method"] and document["chance"]["method"]["draws"] == 0
    # the guessing system: no exact test (3 classes) and no settling bound, so not tested, never "not above chance"
    guess = document["chance"]["systems"]["guess"]["accuracy"]
    assert guess["p_shuffle"] is None and guess["p_shuffle_adjusted"] is None
    assert guess["p_shuffle_method"] == shuffle_test.NOT_TESTED
    good = document["chance"]["systems"]["good"]["accuracy"]
    assert good["p_shuffle_method"] == "bound" and good["p_shuffle_adjusted"] < 0.05
    assert all(entry["mc_mean"] is None for entry in document["baselines"]["uniform"]["metrics"].values())


def test_mcnemar_and_bounds_agree_with_the_full_audit():
    """The exact McNemar p-values are those of the full audit; a system settled by its bound without draws is
    also above chance with draws (the bound is never below the true p, tests/test_shuffle_bound.py)."""
    gold, systems = _three_class()
    zero, full = auditor.audit(gold, systems, bootstrap=0), auditor.audit(gold, systems, bootstrap=200)
    mcnemar = {(t.a, t.b): t.p_adjusted for t in full.statistics.tests if t.metric == "accuracy"}
    assert {(t.a, t.b): t.p_adjusted for t in zero.statistics.tests} == mcnemar
    assert zero.statistics.best_set["accuracy"].systems == full.statistics.best_set["accuracy"].systems
    for system, comparisons in zero.baselines.chance.items():
        for metric_id, comparison in comparisons.items():
            if comparison.shuffle_p is not None and comparison.shuffle_p.method == "bound":
                assert full.baselines.chance[system][metric_id].p_shuffle_adjusted < 0.05
                assert comparison.p_shuffle_adjusted >= full.baselines.chance[system][metric_id].p_shuffle_adjusted


def test_two_classes_keep_every_exact_shuffle_p(no_generator):
    rng = np.random.default_rng(0)
    gold = rng.choice(["x", "y"], size=300)
    result = auditor.audit(gold, {"s": np.where(rng.random(300) < 0.7, gold, "x")}, bootstrap=0)
    methods = {c.shuffle_p.method for c in result.baselines.chance["s"].values() if c.shuffle_p is not None}
    assert methods == {"exact"}


def test_points_agree_with_draws_on_affine_metrics():
    """The exactness check without draws (segments between tables built inside each baseline's hull) gives the
    draws' answer for the metrics the module docstring proves affine (accuracy, macro recall for every baseline;
    kappa, MCC and the other diagonal-only metrics for the shuffle) and for the ratios that are not (macro F1 of a
    random predictor)."""
    rng = np.random.default_rng(5)
    gold = rng.choice(4, size=2000, p=[0.4, 0.3, 0.2, 0.1])
    counts = count(gold, {"s": np.where(rng.random(2000) < 0.6, gold, rng.choice(4, size=2000))})
    metrics = [m for m in auditor.REGISTRY.scalar() if not m.per_class]
    support = counts.support.astype(np.int64)
    q, _ = baselines.predictor_distributions(counts)
    random_ = affine_on_points("random", support, q["prevalence"], metrics, False)
    shuffle = affine_on_points("shuffle", support, counts.confusion.sum(axis=1)[0], metrics, False)
    assert random_["accuracy"] and random_["macro_recall"] and not random_["macro_f1"] and not random_["mcc"]
    assert shuffle["accuracy"] and shuffle["kappa"] and shuffle["mcc"] and shuffle["informedness"]


def test_report_says_not_tested(tmp_path):
    gold, systems = _three_class()
    folder = Path(tmp_path)
    (folder / "gold.tsv").write_text("id\tlabel\n" + "".join(f"{i}\t{x}\n" for i, x in enumerate(gold)))
    for name, labels in systems.items():
        (folder / f"{name}.tsv").write_text("id\tlabel\n" + "".join(f"{i}\t{x}\n" for i, x in enumerate(labels)))
    done = CliRunner().invoke(cli, ["report", str(folder / "gold.tsv"), *(str(folder / f"{n}.tsv") for n in systems),
                                    "--bootstrap", "0", "-o", str(folder / "out"), "--format", "md", "--quiet"])
    assert done.exit_code == 0, done.output
    summary = (folder / "out" / "summary.md").read_text()
    assert "| not tested: no draws |" in summary and "only accuracy has a best set" in summary


def test_report_says_which_shuffles_were_not_drawn(tmp_path):
    """60 ordinal systems far above chance under Holm: no shuffle is drawn (a Monte Carlo p over 1,000 draws is
    adjusted to at least 60/1,001 > α), and macro MAE, page 1's primary, has no bound: page 1 says its answer is
    not tested and why (not "--bootstrap 0", which was not given), and the leaderboard's column says so per system."""
    rng = np.random.default_rng(2)
    gold = rng.integers(1, 6, 200)
    folder = Path(tmp_path)
    (folder / "gold.tsv").write_text("id\tlabel\n" + "".join(f"{i}\t{x}\n" for i, x in enumerate(gold)))
    for s in range(60):
        labels = np.clip(gold + rng.integers(-1, 2, 200) * (rng.random(200) < 0.3), 1, 5)
        (folder / f"s{s:02d}.tsv").write_text("id\tlabel\n" + "".join(f"{i}\t{x}\n" for i, x in enumerate(labels)))
    done = CliRunner().invoke(cli, ["report", "--task", "ordinal", str(folder / "gold.tsv"),
                                    *(str(folder / f"s{s:02d}.tsv") for s in range(60)), "--bootstrap", "20",
                                    "-o", str(folder / "out"), "--format", "md", "--quiet"])
    assert done.exit_code == 0, done.output
    summary = (folder / "out" / "summary.md").read_text()
    assert ("Not significantly above chance**: not tested for 60 of 60 systems: their shuffles were not drawn, as "
            "with Holm over 60 systems no Monte Carlo p over 1,000 draws can pass α") in summary
    assert "| not tested: shuffles not drawn |" in summary and "--bootstrap 0" not in summary
    assert "The shuffles of 60 of 60 systems were not drawn" in summary


def test_a_large_report_prints_lighter_in_the_pdf_only():
    """Issue 40: above PDF_ROWS rows a table is typeset without its intervals and above PDF_ROWS systems the
    confusion small multiples (every page of them) are left out of the PDF, each said in place; a small report is
    untouched."""
    from auditor.formats.pdf import PDF_ROWS, printed
    from auditor.report.model import Cell, Column, Figure, Report, Row, Section, Table

    def report(rows: int) -> Report:
        table = Table("table-metrics", "Every metric.", "System", (Column("Acc"),),
                      tuple(Row(f"s{i}", (Cell(0.5, "score", low=0.4, high=0.6),)) for i in range(rows)))
        figures = (Figure("fig-confusion", "Confusion matrix of every system. Chart 1 of 2: systems s0 to s29.",
                          "<svg/>"), Figure("fig-confusion-2", "Confusion matrix of every system. Chart 2 of 2: "
                                            "systems s30 to s31.", "<svg/>"))
        return Report("t", "", "sig", "", (Section("metrics", "Metrics", (table, *figures)),), ())

    small = report(PDF_ROWS)
    assert printed(small, PDF_ROWS) is small
    large = printed(report(PDF_ROWS + 1), PDF_ROWS + 1)
    table, note = large.sections[0].blocks  # the chart's pages said once: one paragraph
    assert all(cell.low is None and cell.high is None for row in table.rows for cell in row.cells)
    assert "without its intervals" in table.caption and "report.html" in note.text and note.kind == "paragraph"
    assert note.text.startswith("Confusion matrix of every system. With more than") and "Chart" not in note.text


def test_a_large_report_leaves_uniform_rows_out_of_the_pdf():
    """Above PDF_ROWS systems the PDF leaves out the shuffle p-value rows that are < 0.001 under every metric and the
    P(rank first) rows that are 0 under every metric, saying how many; a row with one other cell stays; when every
    row goes, a paragraph says so. Below PDF_ROWS systems nothing is left out."""
    from auditor.formats.pdf import PDF_ROWS, printed
    from auditor.report.model import Cell, Column, Report, Row, Section, Table

    def report(rows: tuple[Row, ...], table_id: str) -> Report:
        table = Table(table_id, "Each system.", "System", (Column("Acc"), Column("BM")), rows)
        return Report("t", "", "sig", "", (Section("baselines", "Baselines", (table,)),), ())

    tiny = tuple(Row(f"s{i}", (Cell(1e-9, "p"), Cell(1e-5, "p"))) for i in range(PDF_ROWS + 9))
    rows = tiny + (Row("near", (Cell(1e-9, "p"), Cell("≤0.020", "text"))),)
    table = printed(report(rows, "table-chance-p_shuffle"), len(rows)).sections[0].blocks[0]
    assert [row.header for row in table.rows] == ["near"]
    assert f"the {PDF_ROWS + 9} systems that have p < 0.001 under every metric are left out" in table.caption
    assert printed(report(rows[-PDF_ROWS:], "table-chance-p_shuffle"), PDF_ROWS).sections[0].blocks[0].rows == \
        rows[-PDF_ROWS:]
    never = tuple(Row(f"s{i}", (Cell(0.0, "share"), Cell(0.0, "share"))) for i in range(PDF_ROWS + 1))
    note = printed(report(never, "table-pbest"), len(never)).sections[0].blocks[0]
    assert note.kind == "paragraph" and f"All {PDF_ROWS + 1} systems ranked first in no resample" in note.text
