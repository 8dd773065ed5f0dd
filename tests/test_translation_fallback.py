"""When the human scores pick no metric, the rule without them decides, and the recommendation says what the human
scores hold against its choice (issue 36: the translation demo's MacroF ranks the scrambled system first)."""
from auditor.tasks.translation.agreement import Correlation, HumanAgreement
from auditor.tasks.translation.recommend import WARNING, against_human

# Hand-made agreement: four metrics' τ with the human scores, the leader BLEU not separated (interval contains 0).
TAUS = {"macrof": 0.07, "microf": -0.07, "bleu": 0.47, "chrf": 0.33}
HUMAN = HumanAgreement(
    level="segment", human={"strong": 90.0, "scrambled": 40.0, "truncated": 60.0}, missing={}, source="human.tsv",
    lower_better=False,
    correlations={m: {"kendall_tau": Correlation(t, None), "pearson": Correlation(t, None)} for m, t in TAUS.items()},
    leader="bleu", leader_differences={"chrf": Correlation(0.13, (-0.13, 0.27))})
VALUES = {"strong": {"macrof": 0.80}, "scrambled": {"macrof": 0.85}, "truncated": {"macrof": 0.50}}


def test_the_fallback_says_its_metric_agrees_less_and_ranks_another_system_first():
    (text,) = against_human("macrof", HUMAN, VALUES)
    assert text.startswith(WARNING)  # page 1 of the translation report points to it by this opening
    # by hand: 0.47 and 0.33 are above 0.07, -0.07 is not -> below 2 of the other 3; MacroF's top is scrambled
    # (0.85 > 0.80 > 0.50), the human top is strong (90 > 60 > 40)
    assert "MacroF's Kendall τ-b with the human scores is 0.07, below 2 of the other 3 metrics" in text
    assert "(BLEU 0.47, chrF 0.33, MicroF -0.07)" in text
    assert "MacroF ranks scrambled first, the human scores rank strong first" in text
    assert "report BLEU (the highest τ, though not significantly) beside it" in text


def test_lower_better_human_scores_pick_their_lowest_system_first():
    human = HumanAgreement(**{**HUMAN.__dict__, "lower_better": True,
                              "human": {"strong": 1.0, "scrambled": 5.0, "truncated": 3.0}})
    (text,) = against_human("macrof", human, VALUES)
    assert "the human scores rank strong first" in text


def test_nothing_is_said_when_the_choice_agrees_with_the_human_scores():
    values = {"strong": {"bleu": 0.4}, "scrambled": {"bleu": 0.1}, "truncated": {"bleu": 0.2}}
    assert against_human("bleu", HUMAN, values) == []
    assert against_human("bleu", None, values) == []


def test_the_lowest_tau_is_called_the_lowest():
    taus = {"macrof": 0.26, "microf": 0.44, "bleu": 0.38, "chrf": 0.36}  # WMT21 TED's system-level τ
    human = HumanAgreement(**{**HUMAN.__dict__, "leader": "microf", "correlations": {
        m: {"kendall_tau": Correlation(t, None), "pearson": Correlation(t, None)} for m, t in taus.items()}})
    (text,) = against_human("macrof", human, VALUES)
    assert "MacroF's Kendall τ-b with the human scores is 0.26, the lowest of the 4 metrics (MicroF 0.44" in text


def test_an_undefined_correlation_is_null_in_the_json_and_a_dash_in_the_report():
    """A metric constant over the systems has no τ (0/0): every correlation, the leader's differences included, is
    written by the one Correlation.to_json (null) and laid out by the one report cell (no value: the dash)."""
    from auditor.tasks.translation.report import _tau_cell

    undefined = Correlation(float("nan"), None)
    assert undefined.to_json() == {"value": None, "ci": None}
    assert Correlation(0.13, (-0.13, 0.27)).to_json() == {"value": 0.13, "ci": [-0.13, 0.27]}
    cell = _tau_cell(undefined)
    assert cell.value is None and cell.low is None and cell.high is None
    assert (_tau_cell(HUMAN.leader_differences["chrf"]).low, _tau_cell(HUMAN.leader_differences["chrf"]).high) == (
        -0.13, 0.27)
