"""What the planner says (issue 36): the pilot when no metric reaches the target power, which agreement mode 1's
detectable difference assumes, what --simulate adds to the terminal, and the plan pages' own legend."""
from __future__ import annotations

import numpy as np
from click.testing import CliRunner

from auditor.cli import cli
from auditor.plan.pilot import PilotResult


def _pilot(power_a, power_b, sizes=None):
    return PilotResult(systems=("A", "B", "C"), labels=("x", "y"), pilot_items=200, items=1000, simulations=100,
                       rounds=100, alpha=0.05, target_power=0.8, correction="holm", seed=1,
                       metrics=("accuracy", "macro_f1"), pairs=(("A", "B"), ("A", "C")),
                       pilot_difference={"accuracy": np.array([0.1, 0.2]), "macro_f1": np.array([0.1, 0.2])},
                       power={"accuracy": np.array(power_a), "macro_f1": np.array(power_b)},
                       p_top_stays={"accuracy": 0.5, "macro_f1": 0.5}, expected_kendall_tau={"accuracy": 0.1,
                                                                                             "macro_f1": 0.1},
                       sources={}, mean_power_by_size=sizes or {})


def test_pilot_says_when_no_metric_reaches_the_target():
    """Mean powers 0.24 and 0.23 at N: none reaches 0.8, so no metric 'separates the systems with the fewest
    items'; the sentence gives each mean with its Monte Carlo bound (mean of sqrt(p(1 − p)/R): for 0.2 and 0.28,
    (0.04 + 0.0449)/2 = 0.042 -> 4%) and sizes to simulate."""
    r = _pilot([0.2, 0.28], [0.2, 0.26], {"accuracy": {1000: 0.24}, "macro_f1": {1000: 0.23}})
    assert not r.reaches_target()
    value, se = r.mean_power("accuracy")
    assert value == np.float64(0.24) or abs(value - 0.24) < 1e-12
    assert abs(se - (np.sqrt(0.2 * 0.8 / 100) + np.sqrt(0.28 * 0.72 / 100)) / 2) < 1e-12
    sentence = r.separation_sentence()
    assert sentence.startswith("no metric reaches the target power 0.8")
    assert "accuracy 24% ± 4%" in sentence and "--sizes 2000,4000,8000" in sentence
    reached = _pilot([0.9, 0.85], [0.5, 0.6], {"accuracy": {1000: 0.875}, "macro_f1": {1000: 0.55}})
    assert reached.separation_sentence() == "separates the systems with the fewest items: accuracy"


def test_mode_1_says_which_agreement_and_simulate_shows_in_the_terminal():
    runner = CliRunner()
    out = runner.invoke(cli, ["plan", "--items", "1000", "--accuracy", "0.8", "--difference", "0.03"]).output
    assert "D at the smallest agreement each D allows" in out
    out = runner.invoke(cli, ["plan", "--items", "1000", "--accuracy", "0.8", "--difference", "0.03",
                              "--agreement", "0.9"]).output
    assert "D at the given agreement, held fixed as D varies" in out
    plain = runner.invoke(cli, ["plan", "--predictive-power", "--prevalence", "a=0.7,b=0.3"]).output
    simulated = runner.invoke(cli, ["plan", "--predictive-power", "--prevalence", "a=0.7,b=0.3", "--simulate", "200",
                                    "--draws", "20"]).output
    assert "Simulated at N = 200" in simulated and "Simulated" not in plain


def test_plan_pages_carry_their_own_legend(tmp_path):
    from auditor.plan.documents import plan_accuracy

    page = plan_accuracy(1000, 0.8, 0.03).report_model(figures=False)
    assert page.legend and "best set" not in page.legend and "×100" not in page.legend
    facts = dict(page.sections[1].blocks[1].pairs)
    assert "Items needed" in facts and "items_needed" not in facts
    assert "auditor." not in str(page.sections[0].blocks[0].pairs)
