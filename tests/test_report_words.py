"""A word means one thing on every page: what a reader comparing two pages of a report sees.

Each test builds the report model (or the text a paper pastes) and asserts that a number stated twice is the same
number, and that a word (significant, best set, bold) is defined where two families of tests could give it two
meanings."""
from __future__ import annotations

from auditor.analyses.families import BestSet, PairTest
from auditor.report.context import Context, Ledger
from auditor.report.model import Paragraph
from auditor.report.skeleton import best_set_blocks
from auditor.report.spine import Spine


def _context(best_against_top: dict[str, float], pairs: dict[tuple[str, str], float]) -> Context:
    """Three systems, A the top under accuracy: the best set's adjusted p-values (against A) and the pair tests'."""
    best = BestSet("A", ("A", *(s for s, p in best_against_top.items() if p >= 0.05)), "mcnemar_exact", 0.05,
                   best_against_top)
    tests = tuple(PairTest(a, b, "accuracy", "mcnemar_exact", 0.1, p / 3, p) for (a, b), p in pairs.items())
    spine = Spine("classification", ("A", "B", "C"), {s: {} for s in "ABC"}, {}, 0.05, "holm", {}, "sig",
                  best_set={"accuracy": best}, tests=tests)
    return Context(None, {}, Ledger(), False, spine=spine)


def _paragraphs(ctx: Context) -> list[str]:
    return [block.text for block in best_set_blocks(ctx) if isinstance(block, Paragraph)]


def test_a_pair_the_best_set_and_the_pair_tests_answer_differently_is_named_with_both_p_values():
    # SemEval-2018 Task 12, accuracy: rgtjf is outside GIST's best set (p 0.0005 over the 22 comparisons with
    # GIST) while the all-pairs heat map shows the same pair not significant (0.115 over 253 pairs).
    ctx = _context({"B": 0.0005, "C": 0.2}, {("A", "B"): 0.115, ("A", "C"): 0.6, ("B", "C"): 0.9})
    [text] = _paragraphs(ctx)
    assert "B against A, adjusted p <0.001 against the top (outside the best set)" in text
    assert "but 0.115 among the pairs (not significant there)" in text
    assert "C against A" not in text  # both families agree on C
    # GermEval macro F1 the other way round: in the best set by one family, significant in the other
    [text] = _paragraphs(_context({"B": 0.2, "C": 0.04996}, {("A", "B"): 0.01, ("A", "C"): 0.15, ("B", "C"): 1.0}))
    assert "B against A, adjusted p 0.200 against the top (in the best set) but 0.010 among the pairs " \
           "(significant there)" in text
    assert "C against A, adjusted p 0.04996 against the top (outside the best set)" in text


def test_no_paragraph_when_both_families_agree():
    assert _paragraphs(_context({"B": 0.001, "C": 0.3}, {("A", "B"): 0.002, ("A", "C"): 0.6, ("B", "C"): 0.9})) == []


def _small_audit():
    """Binary gold, four systems of falling skill, B = 50, seed 3 (a few seconds)."""
    import numpy as np

    import auditor

    rng = np.random.default_rng(4)
    gold = rng.integers(0, 2, 300)
    systems = {f"sys{i}": np.where(rng.random(300) < 0.9 - 0.15 * i, gold, rng.integers(0, 2, 300)) for i in range(4)}
    return auditor.audit(gold, systems, bootstrap=50, seed=3)


def test_each_paper_table_caption_says_its_units_its_interval_and_its_test():
    """tables.tex puts a caption under each table on its own: the scale (×100), the interval's level, B and seed,
    and which test decided the bold, without page 1's header note."""
    from auditor.report.build import build

    result = _small_audit()
    model = build(result, figures=False)
    tables = {b.id: b for s in model.sections for b in s.blocks if getattr(b, "kind", "") == "table"}
    drawn = "95% bootstrap percentile interval (B = 50 resamples, seed 3)"
    for table_id in ("summary-leaderboard", "table-metrics"):
        assert "×100" in tables[table_id].caption and drawn in tables[table_id].caption, table_id
    baselines = tables["table-baselines"].caption
    assert "Expected score (×100)" in baselines and f"{result.baselines.draws:,} draws" in baselines
    best = tables["table-best"].caption
    assert "Acc: exact McNemar test" in best and "approximate randomisation" in best and "α = 0.05" in best
    assert "B = 50 paired resamples of the items, seed 3" in tables["table-pbest"].caption


def test_the_margin_caption_names_every_baseline_a_margin_is_taken_over():
    """SemEval-2018 Task 12: ART's macro F1 margin is 1.9 (over its own shuffle, 49.9) while page 1's strongest
    macro F1 baseline is prevalence ≈50.0: the caption must name the shuffle among the baselines."""
    from auditor.report.build import build

    result = _small_audit()
    used = {c.strongest_baseline for metrics in result.baselines.chance.values() for c in metrics.values()}
    caption = next(b.caption for s in build(result, figures=False).sections for b in s.blocks
                   if getattr(b, "id", "") == "table-chance-margin")
    assert "shuffle" in used
    assert "uniform, prevalence, majority and the system's own predictions shuffled" in caption
    assert "page 1" not in caption  # it stands alone in tables.tex


def test_a_web_page_reference_ends_with_its_address_not_an_empty_venue():
    """References listed "ACL Rolling Review (2024). Responsible NLP Research Checklist. ." (no venue)."""
    from auditor.report.references import entry_text, references

    entries = references()
    assert entry_text(entries["arr2024responsible"]) == (
        "ACL Rolling Review (2024). Responsible NLP Research Checklist. "
        "https://aclrollingreview.org/responsibleNLPresearch/")
    assert not [key for key, entry in entries.items() if ". ." in entry_text(entry) or "\\" in entry_text(entry)]


def test_the_group_legend_says_a_group_is_not_a_set_of_tied_systems():
    """SemEval-2018 Task 12, macro recall: ART and blcu_nlp are both in group 2 (neither significantly worse than
    the group's top, rgtjf) while the pair heat map shows ART significantly worse than blcu_nlp (p 0.025)."""
    from auditor.report.build import build

    result = _small_audit()
    caption = next(b.caption for s in build(result, figures=False).sections for b in s.blocks
                   if getattr(b, "id", "") == "summary-leaderboard")
    assert len(result.verdict.groups) > 1
    assert "outside group 1, and so on (two members of a group may still differ significantly)" in caption


def test_a_task_leaderboard_caption_names_the_test_the_correction_and_alpha_of_its_bold():
    """tables.tex of a translation audit (WMT21): the leaderboard's bold said "not significant" without the test,
    the correction or α."""
    from auditor.report.skeleton import bold_legend

    ctx = _context({"B": 0.2, "C": 0.001}, {("A", "B"): 0.3, ("A", "C"): 0.002, ("B", "C"): 0.01})
    assert bold_legend(ctx) == ("Bold: the metric's best set (the top system and every system whose test against it, "
                                "exact McNemar test, Holm-adjusted over the comparisons with the top system, has "
                                "p ≥ α (0.05)); a column without a test has no bold.")
