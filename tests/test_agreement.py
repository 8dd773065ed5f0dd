"""Reliability of the gold (issue 13): agreement coefficients against independent sources.

* slides-nlp-evaluation-protocol.md, "Raw agreement" and "Cohen's kappa" examples: the table
  [[0, 10], [20, 70]] gives raw agreement 0.70 and kappa −0.15;
* scikit-learn's ``cohen_kappa_score`` per pair; statsmodels' ``fleiss_kappa``; the
  ``krippendorff`` package's ``alpha`` (nominal).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import auditor
from auditor.analyses.agreement import category_counts, gold_reliability
from auditor.cli import cli


def _write(path, labels):
    path.write_text("id\tlabel\n" + "".join(f"{i}\t{label}\n" for i, label in enumerate(labels, 1)))
    return path


@pytest.fixture
def slides_files(tmp_path):
    """The slides' two annotators as item files: rows B, columns A of [[0, 10], [20, 70]]."""
    a = ["no"] * 10 + ["yes"] * 20 + ["no"] * 70   # B yes & A no: 10; B no & A yes: 20; both no: 70
    b = ["yes"] * 10 + ["no"] * 20 + ["no"] * 70
    system = ["no"] * 100
    return (_write(tmp_path / "gold.tsv", a), _write(tmp_path / "A.tsv", a), _write(tmp_path / "B.tsv", b),
            _write(tmp_path / "sys.tsv", system))


def test_slides_example_kappa_and_raw_agreement(slides_files):
    gold, a, b, system = slides_files
    result = auditor.audit(gold, {"sys": system}, annotators={"A": a, "B": b}, bootstrap=0)
    reliability = result.to_json()["gold_reliability"]
    assert reliability["raw_agreement"] == pytest.approx(0.70)
    # slides: chance agreement 0.02 + 0.72 = 0.74; (0.70 − 0.74) / (1 − 0.74) = −0.15 (printed rounded)
    assert reliability["cohen_kappa"] == pytest.approx(-0.04 / 0.26)
    assert round(reliability["cohen_kappa"], 2) == -0.15
    pairs = reliability["cohen_kappa_pairs"]
    assert pairs[0][1] == pairs[1][0] == reliability["cohen_kappa"]
    # the system always says "no": accuracy 80/100 against gold = A and κ = 0, both above the
    # annotators' 0.70 and −0.15: the ceiling is practical, not a bound
    assert reliability["ceiling"]["accuracy"] == pytest.approx(0.70)
    assert result.systems["sys"].metrics["accuracy"].value == pytest.approx(0.80)
    assert reliability["ceiling"]["systems_above"] == {"sys": ["accuracy", "kappa"]}


def test_cli_annotators_and_report_section(slides_files, tmp_path):
    gold, a, b, system = slides_files
    result = CliRunner().invoke(cli, ["score", str(gold), str(system), "--annotators", str(a), "--annotators",
                                      f"second={b}", "--bootstrap", "0", "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["gold_reliability"]["annotators"] == ["A", "second"]
    from auditor.report.build import build

    typed = auditor.audit(gold, {"sys": system}, annotators={"A": a, "second": b}, bootstrap=0)
    section = build(typed, figures=False).section("gold-reliability")
    assert section is not None
    text = json.dumps([str(block) for block in section.blocks])
    assert ".md" not in text and "Cohen 1960" in text and "ceiling" in text  # works cited, never files
    assert "sys scores above the annotators' agreement in accuracy, kappa" in text
    ceiling = next(b for b in section.blocks if getattr(b, "id", "") == "table-ceiling")
    assert [row.cells[0].value for row in ceiling.rows] == pytest.approx([0.70, 0.80])


def test_score_prints_the_reliability_line(slides_files):
    gold, a, b, system = slides_files
    result = CliRunner().invoke(cli, ["score", str(gold), str(system), "--annotators", str(a), "--annotators", str(b),
                                      "--bootstrap", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    assert ("gold reliability (2 annotators, ×100): raw agreement 70.0, Cohen's κ (mean over pairs) -15.4"
            in result.stdout)


def test_one_annotator_is_an_error(slides_files):
    gold, a, _, system = slides_files
    result = CliRunner().invoke(cli, ["score", str(gold), str(system), "--annotators", str(a), "--quiet"])
    assert result.exit_code == 2
    assert result.stderr.startswith("auditor: error: --annotators: 1 annotator given")


def test_annotators_with_missing_items_are_refused(slides_files, tmp_path):
    gold, a, _, system = slides_files
    short = _write(tmp_path / "short.tsv", ["no"] * 99)
    result = CliRunner().invoke(cli, ["score", str(gold), str(system), "--annotators", str(a), "--annotators",
                                      str(short), "--quiet"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "short.tsv" in result.stderr


@pytest.mark.parametrize("seed, m, k", [(0, 2, 2), (1, 3, 3), (2, 5, 4), (3, 4, 6)])
def test_against_scikit_learn_statsmodels_and_krippendorff(seed, m, k):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, size=300)
    # annotators agree with a hidden truth 70% of the time, else pick any label
    codes = np.where(rng.random((m, 300)) < 0.7, truth, rng.integers(0, k, size=(m, 300)))
    result = gold_reliability(codes, [f"c{i}" for i in range(k)], [f"a{i}" for i in range(m)])
    for a in range(m):
        for b in range(m):
            if a != b:
                expected = sklearn_metrics.cohen_kappa_score(codes[a], codes[b])
                assert result.cohen_kappa_pairs[a, b] == pytest.approx(expected, abs=1e-12)
    pairs = [sklearn_metrics.cohen_kappa_score(codes[a], codes[b]) for a in range(m) for b in range(a + 1, m)]
    assert result.cohen_kappa == pytest.approx(np.mean(pairs), abs=1e-12)
    agreements = [np.mean(codes[a] == codes[b]) for a in range(m) for b in range(a + 1, m)]
    assert result.raw_agreement == pytest.approx(np.mean(agreements), abs=1e-12)
    table = category_counts(codes, k)
    expected_table, _ = inter_rater.aggregate_raters(codes.T, n_cat=k)
    np.testing.assert_array_equal(table, expected_table)
    assert result.fleiss_kappa == pytest.approx(inter_rater.fleiss_kappa(expected_table, method="fleiss"), abs=1e-12)
    assert result.krippendorff_alpha == pytest.approx(
        krippendorff.alpha(reliability_data=codes.astype(float), level_of_measurement="nominal"), abs=1e-12)
    assert result.unanimous == pytest.approx(np.mean((codes == codes[0]).all(axis=0)))


def test_one_label_everywhere_is_undefined_not_zero():
    codes = np.zeros((3, 20), dtype=np.int64)
    result = gold_reliability(codes, ["a", "b"], ["x", "y", "z"])
    assert result.raw_agreement == 1.0
    assert result.cohen_kappa is None and result.fleiss_kappa is None and result.krippendorff_alpha is None
    assert "chance agreement is 1" in result.undefined["fleiss_kappa"]


def test_tables_tex_carries_the_agreement_table_in_plain_latex(slides_files):
    """tables.tex has the agreement table (issue 13), its definitions in a wrapped column, and every
    symbol of them as a LaTeX command pdflatex knows: P̄ (Fleiss' observed agreement) as \\={P},
    Σ, ≠, ², κ, α — no character outside ASCII."""
    from auditor.formats.render import render_tex
    from auditor.report.build import build

    gold, a, b, system = slides_files
    result = auditor.audit(gold, {"sys": system}, annotators={"A": a, "B": b}, bootstrap=0)
    tex = render_tex(build(result, figures=False))
    start = tex.index(r"\label{tab:auditor-table-agreement}")
    table = tex[start:tex.index(r"\end{table}", start)]
    assert r"\begin{tabular}{lrp{0.55\linewidth}}" in table
    assert r"Raw agreement & 70.0 &" in table and r"Cohen's $\kappa$ (mean over pairs) & $-$15.4 &" in table
    assert r"(\={P} $-$ $P_e$) / (1 $-$ $P_e$), $P_e$ = $\Sigma_c$ $p_c$\textsuperscript{2}" in table  # TeX minus, math
    assert table.isascii(), sorted({ch for ch in table if not ch.isascii()})


def test_the_ceiling_compares_only_defined_values_and_the_result_is_frozen():
    """The ceiling is computed from the reliability and the systems' metric values (no values
    stuffed into the result afterwards): an undefined kappa (one label only) bounds nothing;
    accuracy above the raw agreement is reported."""
    import dataclasses

    from auditor.analyses.agreement import ceiling
    from auditor.metrics.catalogue import MetricValue

    same = gold_reliability(np.zeros((2, 10), dtype=np.int64), ["a", "b"], ["x", "y"])
    assert same.raw_agreement == 1.0 and same.cohen_kappa is None and "cohen_kappa" in same.undefined
    systems = {"s": {"accuracy": MetricValue(1.0), "kappa": MetricValue(0.9)},
               "t": {"accuracy": MetricValue(None, undefined="0/0")}}
    assert dict(ceiling(same, systems).systems_above) == {}
    codes = np.array([[0, 0, 1, 1], [0, 1, 1, 1]])
    reliability = gold_reliability(codes, ["a", "b"], ["x", "y"])
    bound = ceiling(reliability, {"s": {"accuracy": MetricValue(0.9), "kappa": MetricValue(0.1)}})
    assert bound.accuracy == 0.75 and bound.kappa == pytest.approx(0.5)
    assert dict(bound.systems_above) == {"s": ("accuracy",)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        reliability.raw_agreement = 0.0
    with pytest.raises(ValueError):
        reliability.cohen_kappa_pairs[0, 1] = 0.0
