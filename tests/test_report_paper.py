"""The paper-ready report (issue 20): significance stated once with its family, the pairwise
heat-map at many systems, page 1's "above chance" column, references, the files a paper uses."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import auditor
from auditor.report import charts
from auditor.report.build import build

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "germeval2018"


def _germeval(**options):
    systems = {path.stem: str(path) for path in sorted((EXAMPLES / "systems").glob("*.tsv"))}
    return auditor.audit(str(EXAMPLES / "gold.tsv"), systems, **options)


@pytest.fixture(scope="module")
def germeval():
    return _germeval(bootstrap=100)


@pytest.fixture(scope="module")
def germeval_model(germeval):
    return build(germeval, figures=False)


def _blocks(model, section_id):
    section = model.section(section_id)
    return section.blocks if section is not None else ()


def _many_systems(n_systems: int = 14, n: int = 300, seed: int = 4):
    """Binary gold and ``n_systems`` systems of rising skill (the last ones near chance)."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n)
    systems = {}
    for index in range(n_systems):
        skill = 0.9 - 0.07 * index
        systems[f"sys{index:02d}"] = np.where(rng.random(n) < max(skill, 0), gold, rng.integers(0, 2, n))
    return auditor.audit(gold, systems, bootstrap=50, seed=3)


# ------------------------------------------------------------------ significance stated once


def test_every_adjusted_p_value_names_its_family(germeval, germeval_model):
    """The same pair gets different adjusted p-values in the best-set table (S − 1 comparisons
    with the top system) and in the pairwise tables (all S(S − 1)/2 pairs): each caption names its
    family, with its size and the correction."""
    blocks = {b.id: b for b in _blocks(germeval_model, "significance") if b.kind == "table"}
    assert "family: the 7 comparisons with that metric's top system, Holm" in blocks["table-best"].caption
    pairs = [b for key, b in blocks.items() if key.startswith("table-pairs-")]
    assert pairs
    for table in pairs:
        assert re.search(r"family: all 28 pairs of systems under .+, Holm", table.caption), table.caption
    stats = germeval.statistics
    assert stats.family_sizes()["informedness"] == 28


def test_pairwise_heatmap_replaces_the_tables_beyond_twelve_systems():
    result = _many_systems()
    model = build(result, figures=True)
    blocks = _blocks(model, "significance")
    assert not [b for b in blocks if b.kind == "table" and b.id.startswith("table-pairs-")]
    figures = [b for b in blocks if b.kind == "figure" and b.id.startswith("fig-pairs-")]
    assert {f.id.removeprefix("fig-pairs-") for f in figures} == set(result.statistics.best_set)
    for figure in figures:
        assert "family: all 91 pairs of systems" in figure.caption and "sorted by" in figure.caption
        assert "<svg" in figure.svg


def test_pairwise_heatmap_bins_follow_the_adjusted_p_values():
    assert [charts.p_bin(p, 0.05) for p in (0.0004, 0.004, 0.04, 0.05, None)] == list(charts.P_BINS)
    spec = charts.pairwise_spec(["a", "b", "c"], {("a", "b"): 0.0004, ("b", "a"): 0.0004,
                                                  ("a", "c"): 0.2, ("c", "a"): 0.2}, 0.05)
    cells = {(c["a"], c["b"]): c["bin"] for c in spec["data"]["values"]}
    assert cells[("a", "b")] == cells[("b", "a")] == "p < .001"
    assert cells[("a", "c")] == "p ≥ α" and cells[("b", "c")] == "not tested"
    assert ("a", "a") not in cells
    assert spec["encoding"]["y"]["sort"] == ["a", "b", "c"]
    assert spec["encoding"]["y"]["axis"]["labelFontSize"] >= 9  # ≥ 7 pt once the SVG is on the page


def test_page_one_says_which_systems_are_not_above_chance(germeval, germeval_model):
    """The primary metric's shuffle p-value, Holm-adjusted over the 8 systems: the two chance
    systems of GermEval (majority, prior sampler) are not above chance, the six trained ones are."""
    primary = germeval.verdict.primary
    facts = dict(_blocks(germeval_model, "summary")[0].pairs)
    line = facts["Not above chance"]
    assert line.startswith("2 of 8 systems") and "Holm over the 8 systems" in line
    assert line.endswith("majority, prior-sampler") or line.endswith("prior-sampler, majority")
    table = next(b for b in _blocks(germeval_model, "summary") if b.kind == "table")
    assert table.columns[-1].label == "Above chance"
    column = {row.header: row.cells[-1].value for row in table.rows}
    adjusted = {s: germeval.baselines.chance[s][primary].p_shuffle_adjusted for s in germeval.systems}
    assert column == {s: "yes" if p < 0.05 else "no" for s, p in adjusted.items()}
    assert "Holm-adjusted over the 8 systems" in table.caption
