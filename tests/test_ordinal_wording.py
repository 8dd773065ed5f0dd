"""The ordinal report speaks of levels and errors (issue 36, #34's leftovers): ranks of an error count lowest first,
page 1's strongest baseline of an error is its lowest expected value, and the reporting statement counts ordered
levels and says that the detectable difference is accuracy's alone."""
from __future__ import annotations

import pytest

from auditor.analyses.significance import RANK_RULE, rank_rule
from auditor.options import AuditOptions
from auditor.report.build import build
from auditor.tasks.ordinal.run import audit

GOLD = ["a", "a", "b", "b", "b", "c", "c", "a", "b", "c"] * 6
NEAR = ["a", "b", "b", "b", "c", "c", "b", "a", "b", "c"] * 6
MIDDLE = ["b"] * 60


@pytest.fixture(scope="module")
def small():
    return audit(GOLD, {"near": NEAR, "middle": MIDDLE}, levels=["a", "b", "c"],
                 options=AuditOptions(bootstrap=200, seed=1))


def test_the_rank_rule_names_the_errors_ranked_lowest_first(small):
    assert rank_rule(()) == RANK_RULE
    rule = small.audit.statistics.rank_rule
    assert rule.startswith("rank 1 = highest value (lowest for the errors: MAE_M, MAE, MSE_M, MSE);")
    assert small.to_json()["statistics"]["rank_rule"] == rule


def test_page_one_strongest_baseline_of_an_error_is_the_lowest(small):
    model = build(small.audit, figures=False)  # the levels' audit, as the ordinal report builds it
    facts = dict(next(b for b in model.section("summary").blocks if b.kind == "facts").pairs)
    strongest = facts["Strongest chance baseline"]
    assert strongest.startswith("MAE_M: ")
    # by hand, gold counts a 18, b 24, c 18 (N = 60): the majority level b is 1 step from a and c, so its MAE^M is
    # mean(1, 0, 1) = 2/3; the uniform predictor's is mean over gold levels of (0+1+2)/3, (1+0+1)/3, (2+1+0)/3 = 8/9;
    # the prevalence sampler's is mean_i Σ_j p_j |i − j| with p = (.3, .4, .3): (.4+.6, .3+.3, .6+.4)/3 = 0.867
    assert "MAE_M: majority 0.667" in strongest


def test_the_statement_counts_ordered_levels_and_names_accuracy_as_the_detectable_figure(small):
    text = small.audit.reporting.statement
    assert "60 items in 3 ordered levels (a 18, b 24, c 18)" in text
    assert "Accuracy is the one figure with an exact test; no detectable difference is computed for the errors " \
           "(MAE_M, MAE), which approximate randomisation tests." in text


def test_the_notebook_view_shows_errors_as_they_are(small):
    html = small._repr_html_()
    assert "scores ×100, errors as they are; ordered by MAE_M" in html
    mae = small.audit.systems["near"].metrics["mae_macro"].value
    assert f"<b>{mae:.3f}</b>" in html  # near leads macro MAE: its best set, bold, three decimals


def test_page_one_data_line_counts_levels(small):
    model = build(small.audit, figures=False)
    facts = dict(next(b for b in model.section("summary").blocks if b.kind == "facts").pairs)
    assert facts["Data"].startswith("60 items, 3 levels (3 in gold), 2 systems; smallest level 18 items")
    assert "majority level “b” = 40.0% of items" in facts["Data"]
