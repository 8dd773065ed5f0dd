"""What the chance, recommendation and property texts say, read against the sources (issue 20):
exact expectations win over Monte Carlo noise in margins, plug-in values are marked ≈, the
recommendation's "near chance" is page 1's corrected test, chance witnesses in whole counts."""
from __future__ import annotations

import numpy as np
import pytest

import auditor
from auditor.report.build import build


@pytest.fixture(scope="module")
def germeval(germeval_dir):
    systems = {path.stem: str(path) for path in sorted((germeval_dir / "systems").glob("*.tsv"))}
    # the chance baselines and what reads them, drawn as the full audit draws them (no bootstrap runs)
    return auditor.audit(str(germeval_dir / "gold.tsv"), systems, seed=12345,
                         analyses=("baselines", "properties", "recommendation"))


def test_margin_subtracts_the_exact_zero_not_monte_carlo_noise(germeval):
    """char-svm's MCC against chance: the shuffle's MCC is exactly 0 (both margins fixed, MCC affine
    in the diagonal), the random predictors' MCC only ≈ 0 by Monte Carlo; the margin is the MCC
    itself (33.0, not 32.9)."""
    comparison = germeval.baselines.chance["char-svm"]["mcc"]
    mcc = germeval.systems["char-svm"].metrics["mcc"].value
    assert comparison.strongest_baseline == "shuffle" and comparison.margin == pytest.approx(mcc, abs=1e-12)
    for name in ("uniform", "prevalence"):
        entry = germeval.baselines.baselines[name]["mcc"]
        assert not entry.exact and abs(entry.mc_mean) < 3 * entry.mc_se + 1e-12


def test_page_one_marks_plug_in_baselines_approximate(germeval):
    """Macro F1 of the prevalence predictor: f(E[C]) = 25.0 is a plug-in value (a ratio with a random
    denominator), not E[f(C)]; page 1 marks it ≈ and leaves accuracy's exact 66.0 unmarked."""
    facts = dict(next(b for b in build(germeval, figures=False).section("summary").blocks if b.kind == "facts").pairs)
    strongest = facts["Strongest chance baseline"]
    assert "Acc: majority 66.0" in strongest and "macF1: prevalence ≈25.0" in strongest


def test_near_chance_is_page_ones_corrected_test(germeval):
    """The recommendation's 'near chance' systems read the adjusted p (Holm over the systems), as
    page 1's column does; the prior sampler and the majority class are the two."""
    near = germeval.recommendation.facts.near_chance
    assert set(near) == {"prior-sampler", "majority"}
    for system, text in near.items():
        p = germeval.baselines.chance[system]["informedness"].p_shuffle_adjusted
        assert f"Holm-adjusted p = {p:.3f}" in text


def test_multiple_winners_note_names_every_top_system(germeval):
    notes = [n.text if hasattr(n, "text") else str(n) for n in germeval.recommendation.notes]
    note = next(n for n in notes if "admit multiple best systems" in n)
    assert note.startswith("admit multiple best systems: char-svm-balanced, char-svm (") or \
        note.startswith("admit multiple best systems: char-svm, char-svm-balanced (")


def test_unbounded_chance_witness_in_whole_counts(germeval):
    """Accuracy's PV witness: the majority classifier on gold counts (3600, 1) scores 3600/3601 =
    99.97, within 1.0 of the maximum: a matrix of whole counts, not 0.00036 of an item."""
    witness = germeval.properties["accuracy"].witnesses["chance_correction"]
    assert np.array_equal(witness.before, [[3600, 0], [1, 0]])
    assert witness.score_before == pytest.approx(3600 / 3601) and "99.97" in witness.description


def test_germeval_above_chance_answers_are_settled(germeval):
    """Four classes: the six trained systems' macro recall p is settled by a tail bound without draws (each
    far below α/8; Monte Carlo needed more than the 1,000 base draws for them); the two chance systems' p
    are Monte Carlo, whose 1,000 draws settle their Holm answer."""
    chance = germeval.to_json()["chance"]["systems"]
    entries = {s: c["macro_recall"] for s, c in chance.items()}
    assert all(e["p_shuffle_resolved"] for e in entries.values())
    above = {s for s, e in entries.items() if e["p_shuffle_adjusted"] < 0.05}
    assert above == set(chance) - {"prior-sampler", "majority"}
    assert all(entries[s]["p_shuffle_method"] == "bound" and entries[s]["p_shuffle_draws"] is None
               and entries[s]["p_shuffle_interval"] == [0.0, entries[s]["p_shuffle"]] < [0.0, 0.05 / 8] for s in above)
    assert all(entries[s]["p_shuffle_method"] == "monte carlo" for s in ("prior-sampler", "majority"))
