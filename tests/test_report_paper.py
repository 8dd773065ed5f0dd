"""The paper-ready report (issue 20): significance stated once with its family, the pairwise
heat-map at many systems, page 1's "above chance" column, references, the files a paper uses."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import auditor
from auditor.report import charts
from auditor.report.build import build


def _germeval(folder: Path, **options):
    systems = {path.stem: str(path) for path in sorted((folder / "systems").glob("*.tsv"))}
    return auditor.audit(str(folder / "gold.tsv"), systems, **options)


@pytest.fixture(scope="module")
def germeval(germeval_dir):
    return _germeval(germeval_dir, bootstrap=100)


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
    pairs = blocks["table-pairs"]  # one row per pair, one column per tested metric
    assert len(pairs.rows) == 28 and len(pairs.columns) == 1 + len(germeval.statistics.best_set)
    assert "Holm-adjusted within each metric" in pairs.caption
    for column in pairs.columns[1:]:  # all 28 pairs, or those whose p is defined (MCC: 21)
        assert re.search(rf"family: (all 28|the \d+) pairs of systems under {re.escape(column.label)}(?![\w′])",
                         pairs.caption), column.label
    stats = germeval.statistics
    assert stats.family_sizes()["informedness"] == 28


def test_pairwise_heatmap_replaces_the_tables_beyond_twelve_systems():
    result = _many_systems()
    model = build(result, figures=True)
    blocks = _blocks(model, "significance")
    assert not [b for b in blocks if b.kind == "table" and b.id.startswith("table-pairs")]
    figures = [b for b in blocks if b.kind == "figure" and b.id.startswith("fig-pairs-")]
    assert {f.id.removeprefix("fig-pairs-") for f in figures} == set(result.statistics.best_set)
    for figure in figures:
        assert "family: all 91 pairs of systems" in figure.caption and "sorted by" in figure.caption
        assert "<svg" in figure.svg


def test_a_leaderboard_draws_no_matrix_of_untested_pairs_and_no_table_per_system():
    """31 systems (above the all-pairs limit): only the comparisons with each top system are tested, so no
    pairwise heat-map (its p-values are the table against the top), a sentence says why; the confusion counts
    that overflow their cells are left out of the small multiples and get no table per system (audit.json)."""
    from types import SimpleNamespace

    from auditor.report.context import Context, Ledger
    from auditor.report.sections.appendices import confusion_section
    from auditor.report.sections.significance import ONLY_AGAINST_THE_TOP, significance_section

    rng = np.random.default_rng(8)
    gold = rng.integers(0, 4, 400)
    result = auditor.audit(gold, {f"s{i:02d}": np.where(rng.random(400) < 0.3 + 0.02 * i, gold, rng.integers(0, 4, 400))
                                  for i in range(31)}, bootstrap=20, seed=1)
    drawn = []
    stub = SimpleNamespace(MAX_MATRIX_CLASSES=charts.MAX_MATRIX_CLASSES, confusion_counts_fit=lambda *a: False,
                           confusion_pages=lambda labels, systems: [list(systems)],
                           confusion_grid=lambda labels, matrices, counts=True: drawn.append(counts) or "<svg/>",
                           pairwise_heatmap=lambda *a: drawn.append("pairs") or "<svg/>")
    ctx = Context(result, {m.id: m for m in result.metrics}, Ledger(), True, stub, None, {"rules": ()})
    blocks = significance_section(ctx).blocks
    assert not [b for b in blocks if b.kind == "figure"] and ONLY_AGAINST_THE_TOP in blocks[-1].text
    assert "table-best" in [b.id for b in blocks if b.kind == "table"]
    blocks = confusion_section(ctx).blocks
    assert drawn == [False] and not [b for b in blocks if b.kind == "table"]
    assert "every count is in audit.json, under each system's confusion matrix" in blocks[-1].text


def test_pairwise_heatmap_bins_follow_the_adjusted_p_values():
    assert [charts.p_bin(p, 0.05) for p in (0.0004, 0.004, 0.04, 0.05, None)] == list(charts.P_BINS)
    spec = charts.pairwise_spec(["a", "b", "c"], {("a", "b"): 0.0004, ("b", "a"): 0.0004,
                                                  ("a", "c"): 0.2, ("c", "a"): 0.2}, 0.05)
    cells = {(c["a"], c["b"]): c["bin"] for c in spec["data"]["values"]}
    # one triangle: row below column (the mirror cell would repeat it)
    assert cells[("b", "a")] == "p < .001" and ("a", "b") not in cells
    assert cells[("c", "a")] == "p ≥ α" and cells[("c", "b")] == "not tested"
    assert ("a", "a") not in cells and len(cells) == 3
    assert spec["encoding"]["y"]["sort"] == ["a", "b", "c"]
    assert spec["encoding"]["y"]["axis"]["labelFontSize"] >= 9  # ≥ 7 pt once the SVG is on the page


def test_page_one_says_which_systems_are_not_above_chance(germeval, germeval_model):
    """The primary metric's shuffle p-value, Holm-adjusted over the 8 systems: the two chance
    systems of GermEval (majority, prior sampler) are not above chance, the six trained ones are."""
    primary = germeval.verdict.primary
    facts = dict(_blocks(germeval_model, "summary")[0].pairs)
    line = facts["Not significantly above chance"]
    assert line.startswith("2 of 8 systems") and "Holm over the 8 systems" in line
    assert line.endswith("majority, prior-sampler") or line.endswith("prior-sampler, majority")
    table = next(b for b in _blocks(germeval_model, "summary") if b.kind == "table")
    assert table.columns[-1].label == "Above chance"
    column = {row.header: row.cells[-1].value for row in table.rows}
    adjusted = {s: germeval.baselines.chance[s][primary].p_shuffle_adjusted for s in germeval.systems}
    assert column == {s: "yes" if p < 0.05 else "no" for s, p in adjusted.items()}
    assert "Holm-adjusted over the 8 systems" in table.caption


# ------------------------------------------------------------------------------ citations


def _all_text(model) -> str:
    from auditor.report.skeleton import section_texts

    return "\n".join(section_texts(model.sections))


def test_references_list_every_cited_work_in_full(germeval_model):
    from auditor.report.references import references

    section = germeval_model.section("references")
    assert section is not None and germeval_model.sections[-1] is section
    entries = section.blocks[-1].items
    text = _all_text(germeval_model)
    for entry in references().values():
        mentioned = re.search(rf"\b{re.escape(entry.surnames[0])}\b[^\n]{{0,40}}?\b{entry.get('year')}\b",
                              text.replace("\n".join(entries), ""))
        listed = any(item.startswith(entry.surnames[0]) and f"({entry.get('year')})" in item for item in entries)
        assert bool(mentioned) == listed, entry.key
    vickers = next(item for item in entries if item.startswith("Vickers"))
    assert vickers == ("Vickers, P., Barrault, L., Monti, E. & Aletras, N. (2023). We Need to Talk About "
                       "Classification Evaluation Metrics in NLP. In Proceedings of the 13th International Joint "
                       "Conference on Natural Language Processing and the 3rd Conference of the Asia-Pacific Chapter "
                       "of the Association for Computational Linguistics (IJCNLP-AACL 2023).")
    assert any(item.startswith("McNemar, Q. (1947)") for item in entries)
    assert any(item.startswith("Holm, S. (1979)") for item in entries)


def test_no_source_is_cited_by_file_name_and_vickers_is_2023():
    """Every sentence of a report with slices and annotators (the sections that cited files); the
    year in every file of the package (code may cite a source file in a docstring, the report never)."""
    gold = ["a", "b", "c", "a"] * 10
    result = auditor.audit(gold, {"s": ["a", "b", "b", "a"] * 10}, bootstrap=0,
                           annotators={"x": gold, "y": ["a", "b", "c", "c"] * 10},
                           slices=["g1", "g2"] * 20)
    text = _all_text(build(result, figures=False))
    assert "Reliability of the gold" in text or result.gold_reliability is not None
    assert not re.search(r"[\w-]+\.md\b", text), re.findall(r"[\w-]+\.md\b", text)
    package = Path(auditor.__file__).parent
    for path in [*package.rglob("*.py"), *package.parent.joinpath("templates").glob("*")]:
        if path.is_file():
            source = path.read_text(encoding="utf-8")
            assert "Vickers et al. 2024" not in source and "Vickers et al. (2024)" not in source, path


def test_bib_parser_reads_accents_and_bare_numbers():
    from auditor.report.references import entry_text, parse_bib

    entries = parse_bib("% comment\n@article{k1,\n  author = {Pel{\\'a}ez, Carmen and Ljube{\\v{s}}i{\\'c}, N.},\n"
                        "  title = {A {B} \\& C}, journal = {J}, volume = 9, pages = {1--2},\n  year = {2014}\n}\n")
    entry = entries["k1"]
    assert entry.surnames == ["Peláez", "Ljubešić"] and entry.cite == "Peláez & Ljubešić 2014"
    assert entry_text(entry) == "Peláez, C. & Ljubešić, N. (2014). A B & C. J, 9, 1–2."


# ------------------------------------------------------------- statements the sources support


def test_recommendation_says_what_sources_say(germeval):
    """Opitz 2024 Table 5 and §5.1: GmacR and HmacR have all five properties too; §6.2: macR alone is
    strictly chance corrected. Vickers et al. §2: informedness is 0 *in expectation* for chance.
    No source says to avoid macro F1′ (Opitz §8: name the metric)."""
    recommendation = germeval.recommendation
    reasons = " ".join(r for m in recommendation.metrics for r in m.reasons)
    assert "one metric of Table 5 with all five" not in reasons
    assert "as its siblings GmacR and HmacR do; of the three it alone is strictly chance corrected" in reasons
    assert "0 in expectation for a classifier that ignores its input" in reasons
    assert "macro_f1_hm" not in {a.id for a in recommendation.avoid}
    assert re.search(r"ranges from \d+\.\d to \d+\.\d \(×100\)", reasons)  # ×100, one decimal
    assert not re.search(r"(?<!p = )\b0\.\d{3}\b", reasons)  # p-values keep three decimals
    # display names, not ids
    assert "macro_recall" not in reasons and "macro_f1" not in reasons and "informedness ranges" not in reasons


# ------------------------------------------------------------------------------ property probes


@pytest.fixture(scope="module")
def three_class_properties():
    from auditor.analyses.properties import property_analysis
    from auditor.metrics.registry import REGISTRY

    rng = np.random.default_rng(0)
    gold = rng.choice(3, 200, p=[0.5, 0.3, 0.2])
    pred = np.where(rng.random(200) < 0.6, gold, rng.choice(3, 200))
    confusion = np.zeros((1, 3, 3))
    np.add.at(confusion[0], (gold, pred), 1)
    return property_analysis(REGISTRY.scalar(), confusion, ["s"], seed=12345)


def _informedness(m):
    """Σ_i b_i (R_i − FPR_i) (Powers 2011), written out independently of the catalogue."""
    m = np.asarray(m, dtype=float)
    n, row, col, diag = m.sum(), m.sum(axis=1), m.sum(axis=0), np.diag(m)
    return float(np.sum(col / n * (diag / row - (col - diag) / (n - row))))


def _mcc(m):
    """Gorodkin's R_K via scikit-learn on the items the matrix counts."""
    from sklearn.metrics import matthews_corrcoef

    m = np.asarray(m, dtype=int)
    gold, pred = np.nonzero(m)
    reps = m[gold, pred]
    return matthews_corrcoef(np.repeat(gold, reps), np.repeat(pred, reps))


def _markedness(m):
    """Σ_j b_j (P_j − FOR_j)... written as informedness of the transpose (Powers 2011: markedness is
    informedness with the roles of gold and prediction swapped)."""
    return _informedness(np.asarray(m).T)


@pytest.mark.parametrize("metric_id, independent", [("informedness", _informedness), ("mcc", _mcc),
                                                    ("markedness", _markedness)])
def test_pi_witnesses_have_every_class_in_gold_and_whole_counts(three_class_properties, metric_id, independent):
    """Opitz §3.1 (PI): one more error must not raise the score (one more correct item must not lower
    it). The witness is a data set a reader could have: every class in gold, whole counts, and its
    scores recomputed independently move the wrong way."""
    witness = three_class_properties.results[metric_id].witnesses["monotonicity"]
    for matrix in (witness.before, witness.after):
        assert (matrix.sum(axis=1) > 0).all() and (matrix == np.round(matrix)).all(), matrix
    assert witness.before.shape == (3, 3)
    before, after = independent(witness.before), independent(witness.after)
    assert (before, after) == pytest.approx((witness.score_before, witness.score_after))
    added = witness.after - witness.before
    i, j = np.argwhere(added == 1)[0]
    assert after > before if i != j else after < before


def test_chance_probe_builds_extreme_gold_for_every_class():
    from auditor.analyses.probe_matrices import chance_classifiers

    classifiers = chance_classifiers(4, np.random.default_rng(0), None, 10_000)
    extremes = {c.gold: c.p for c in classifiers if c.gold.startswith("extreme")}
    assert sorted(extremes) == [f"extreme (class {c})" for c in range(4)]
    for c in range(4):
        assert np.argmax(extremes[f"extreme (class {c})"]) == c


def test_informedness_train_is_not_chance_corrected_under_any_training_prevalence():
    """Declared "none" (Vickers et al., Limitations: the training distribution sets the loss and gain):
    with extreme gold for every class, the probe finds it unbounded whatever class the training
    prevalence favours."""
    rng = np.random.default_rng(1)
    gold = rng.choice(["a", "b", "c"], 300)
    pred = np.where(rng.random(300) < 0.6, gold, rng.choice(["a", "b", "c"], 300))
    for train in ({"a": 0.8, "b": 0.1, "c": 0.1}, {"a": 0.1, "b": 0.1, "c": 0.8}, {"a": 0.3, "b": 0.4, "c": 0.3}):
        result = auditor.audit(gold, {"s": pred}, bootstrap=0, training_prevalence=train)
        assert result.properties.results["informedness_train"].probed["chance_correction"] == "none", train


def test_calibration_marks_say_decomposability_is_declared_not_shown(three_class_properties):
    notes = [n for r in three_class_properties.results.values() for n in r.notes if "Table 5 marks" in n]
    assert notes
    for note in notes:
        assert "shows decomposability" not in note and "shows them all" not in note
        if "decomposability" in note:
            assert "decomposability is declared, not probed" in note


def test_a_one_by_one_matrix_in_the_probes_works():
    """Issue 19: a 1×1 matrix (one class) has nothing to probe; the generated matrices still are."""
    from auditor.analyses.properties import property_analysis
    from auditor.metrics.registry import REGISTRY

    table = property_analysis(REGISTRY.scalar(), np.array([[[5.0]]]), ["s"], seed=1)
    assert table.n_user_matrices == 0
    assert table.results["macro_recall"].probed["chance_correction"] == "strict"


# ---------------------------------------------------------------- numbers as the reader sees them


def test_signs_survive_rounding_and_use_the_minus_sign():
    from auditor.formats.latex import latex_escape
    from auditor.formats.templating import cell_interval, cell_text
    from auditor.formatting import format_value
    from auditor.report.model import Cell

    assert format_value(-0.0003, "score") == "-0.03"  # a margin of −0.03 is neither "0.0" nor "-0.0"
    assert format_value(-0.00004, "score") == "-0.004" and format_value(-2e-9, "score") == "0.0"  # 3 more at most
    assert format_value(-0.0004, "number") == "-0.0004" and format_value(-0.002, "tau") == "-0.002"
    assert format_value(0.00049, "number") == "0.0005" and format_value(0.0123, "score") == "1.2"
    assert format_value(-1e-17, "score") == "0.0"  # an exact zero computed in floating point
    assert cell_text(Cell(-0.0123, "score")) == "\u22121.2"
    assert cell_interval(Cell(0.01, "score", low=-0.011, high=0.044)) == "[\u22121.1, 4.4]"
    assert cell_text(Cell(0.33, "score", approximate=True)) == "≈33.0"
    assert latex_escape(cell_text(Cell(-0.0123, "score", approximate=True))) == r"$\approx$$-$1.2"
    assert latex_escape("word-5 and x-y") == "word-5 and x-y"  # hyphens stay hyphens


def test_chance_tables_mark_approximate_values_only(germeval, germeval_model):
    result = germeval.baselines
    tables = {b.id: b for b in _blocks(germeval_model, "baselines") if b.kind == "table"}
    from auditor.analyses.verdict import KEY_METRICS

    present = germeval.systems["majority"].metrics
    keys = [m for m in KEY_METRICS if m in present]
    table = tables["table-baselines"]
    for row in table.rows:
        for metric_id, cell in zip(keys, row.cells):
            entry = result.baselines[row.header][metric_id]
            assert cell.approximate == (not entry.exact), (row.header, metric_id)
    assert "≈" in table.caption
    margins = tables["table-chance-margin"]
    for row in margins.rows:
        for metric_id, cell in zip(keys, row.cells):
            comparison = result.chance[row.header][metric_id]
            if comparison.strongest_baseline is None:
                continue
            name = comparison.strongest_baseline
            reference = (result.shuffle[row.header] if name == "shuffle" else result.baselines[name])[metric_id]
            assert cell.approximate == (not reference.exact)
            expected = germeval.systems[row.header].metrics[metric_id].value - reference.reference
            assert cell.value == pytest.approx(expected)


def test_html_and_markdown_print_the_minus_sign(tmp_path):
    gold = ["a"] * 20 + ["b"] * 20
    worse = ["b"] * 15 + ["a"] * 5 + ["a"] * 15 + ["b"] * 5  # below chance: kappa −0.5
    result = auditor.audit(gold, {"worse": worse, "ok": gold[:30] + ["a"] * 10}, bootstrap=0)
    auditor.render(result, tmp_path, formats="html,md,tex")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    body = re.sub(r"<svg.*?</svg>|<style>.*?</style>", "", html, flags=re.S)
    assert "\u221250.0" in body
    assert not re.search(r">-\d", body)
    markdown = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "\u221250.0" in markdown and not re.search(r"(?<![\w`{^])-\d+\.\d\b", markdown)
    tex = (tmp_path / "tables.tex").read_text(encoding="utf-8")
    assert "$-$50.0" in tex and "\u2212" not in tex


# ------------------------------------------------------------------------ files a paper uses


@pytest.fixture(scope="module")
def paper_files(germeval, tmp_path_factory):
    from auditor.formats.latex import render_tex
    from auditor.formats.markdown import render_md

    model = build(germeval, figures=False)
    return model, render_tex(model), render_md(model)


def _tex_tables(tex: str) -> dict[str, str]:
    return {re.search(r"\\label\{tab:auditor-([^}]*)\}", t).group(1): t
            for t in re.findall(r"\\begin\{table\}.*?\\end\{table\}", tex, flags=re.S)}


def test_tables_marked_for_the_paper_are_the_ones_in_tables_tex(paper_files):
    """Issue 18 part 5: the section emitted table-chance-margin and table-chance-p_shuffle while the
    id list named table-chance, so no chance table reached tables.tex. A table says where it goes."""
    model, tex, _ = paper_files
    marked = [b.id.replace("_", "-") for s in model.sections for b in s.blocks if b.kind == "table" and b.for_paper]
    assert list(_tex_tables(tex)) == marked
    assert {"summary-leaderboard", "table-baselines", "table-chance-margin", "table-chance-p-shuffle",
            "table-best", "table-metrics"} <= set(marked)
    leaderboard = _tex_tables(tex)["summary-leaderboard"]
    assert "Group" in leaderboard and "Above chance" in leaderboard and r"\textbf{" in leaderboard
    marks = re.findall(r"\\textsuperscript\{(\d+)\}", "".join(t for k, t in _tex_tables(tex).items()
                                                             if k != "table-ledger"))
    assert not marks or "table-ledger" in _tex_tables(tex)  # a footnote mark only with its ledger


def _compile(tex_table: str, tmp_path: Path) -> subprocess.CompletedProcess:
    document = ("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n"
                + tex_table + "\n\\end{document}\n")
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, errors="replace", timeout=120)


def test_each_table_of_tables_tex_compiles_on_its_own(paper_files, tmp_path):
    """Each table with only booktabs and graphicx: compiled with pdflatex where it is installed
    (Debian texlive-latex-base and -recommended), else checked structurally."""
    _, tex, _ = paper_files
    tables = _tex_tables(tex)
    for name, table in tables.items():
        assert table.count(r"\begin{tabular}") == table.count(r"\end{tabular}") == 1, name
        assert table.count("{") == table.count("}") + table.count(r"\{") - table.count(r"\}"), name
        columns = re.search(r"\\begin\{tabular\}\{([^\n]*)\}\n", table).group(1)
        width = len(re.sub(r"p\{[^}]*\}", "p", columns))
        body = table.split(r"\midrule")[1].split(r"\bottomrule")[0]
        for line in filter(None, (line.strip() for line in body.splitlines())):
            assert len(re.findall(r"(?<!\\)&", line)) == width - 1, (name, line)
        assert not re.search(r"[^\x00-\u017f“”‘’–—€•]", table), (name, set(re.findall(r"[^\x00-\u017f]", table)))
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: structural checks only")
    for name, table in tables.items():
        result = _compile(table, tmp_path)
        assert result.returncode == 0, (name, [line for line in result.stdout.splitlines() if line.startswith("!")])


def test_summary_md_renders_as_meant_in_commonmark(paper_files):
    """markdown-it-py (CommonMark + GFM tables): every table marked for the summary is a table,
    'Avoid here' is a paragraph of its own, not the tail of the recommended list's last item."""
    from markdown_it import MarkdownIt

    model, _, markdown = paper_files
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    tables = sum(token.type == "table_open" for token in tokens)
    summary_sections = [s for s in model.sections if s.for_summary]
    expected = sum(b.kind == "table" and b.for_summary for s in summary_sections for b in s.blocks)
    assert tables == expected > 0
    depth, outside = 0, []
    for token in tokens:
        depth += {"list_item_open": 1, "list_item_close": -1}.get(token.type, 0)
        if token.type == "inline" and depth == 0:
            outside.append(token.content)
    assert "**Avoid here**" in outside and "**Notes**" in outside
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[:2] == ["Metric audit", "Summary"] and "References" in headings
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "\\." not in html and "<td>\u221266" not in html


def test_property_pages_lead_with_the_findings_on_this_data(germeval, germeval_model):
    blocks = _blocks(germeval_model, "properties")
    tables = [b for b in blocks if b.kind == "table"]
    assert [t.id for t in tables] == ["table-properties-data", "table-properties"]
    assert "PII class sensitivity (the score depends" in blocks[0].text  # PI–PV explained where they appear
    findings = {row.header: [c.value for c in row.cells] for row in tables[0].rows}
    accuracy = germeval.properties.results["accuracy"].chance_baselines["4"]
    assert findings["Acc"][0] == f"{100 * accuracy.min:.1f} to {100 * accuracy.max:.1f}"
    witnesses = germeval_model.section("witnesses")
    assert witnesses is not None and witnesses.title.startswith("Appendix")
    table = witnesses.blocks[-1]
    assert "rows = gold class" in table.caption
    assert not any("rows gold" in str(c.value) for row in table.rows for c in row.cells)
    rescaled = [str(row.cells[1].value) for row in table.rows if "gold rows rescaled" in str(row.cells[1].value)]
    assert rescaled and all(re.search(r"C = \[[\d /]+\] → \[[\d /]+\]$", text) for text in rescaled), rescaled


def test_calibrated_table_is_not_repeated_when_calibration_changes_nothing():
    """Balanced gold (every class 1/k): calibration rescales nothing, so the calibrated table would
    repeat the plain one; it is replaced by one sentence. Imbalanced gold keeps it."""
    gold = ["a"] * 20 + ["b"] * 20
    balanced = build(auditor.audit(gold, {"s": ["a"] * 15 + ["b"] * 25, "t": ["b"] * 40}, bootstrap=0), figures=False)
    ids = [b.id for b in _blocks(balanced, "metrics") if b.kind == "table"]
    assert ids == ["table-metrics"]
    assert any("not repeated" in b.text for b in _blocks(balanced, "metrics") if b.kind == "paragraph")
    skewed = build(auditor.audit(["a"] * 30 + ["b"] * 10, {"s": ["a"] * 25 + ["b"] * 15}, bootstrap=0),
                   figures=False)
    assert [b.id for b in _blocks(skewed, "metrics") if b.kind == "table"] == ["table-metrics", "table-calibrated"]


def test_page_one_says_which_system_never_predicts_which_labels(germeval_model):
    facts = dict(_blocks(germeval_model, "summary")[0].pairs)
    assert facts["Labels never predicted"] == ("char-svm, word-nb never predict PROFANITY; majority never predicts "
                                               "ABUSE, INSULT, PROFANITY")


# ---------------------------------------------------------------------------------- Python


def test_to_frame_is_tidy_and_agrees_with_the_json(germeval):
    frame = germeval.to_frame()
    assert list(frame.columns) == ["system", "metric", "value", "lo", "hi", "undefined"]
    assert len(frame) == len(germeval.systems) * len(germeval.systems["majority"].metrics)
    document = germeval.to_json()["systems"]
    for row in frame.itertuples():
        entry = document[row.system]["metrics"][row.metric]
        if entry["value"] is None:
            assert np.isnan(row.value) and row.undefined == entry["undefined"]
        else:
            assert row.value == entry["value"] and row.undefined is None
        if entry["ci"] is not None:
            assert [row.lo, row.hi] == entry["ci"]


def test_repr_is_short_and_the_notebook_view_is_the_leaderboard():
    result = _many_systems(n_systems=23)
    text = repr(result)
    assert len(text) < 2000 and text.startswith("<Audit: 23 systems, 300 items, 2 labels")
    assert "13 more systems" in text
    hostile = auditor.audit(["a", "b"] * 10, {"<b>x</b>": ["a", "b"] * 10}, bootstrap=0)
    html = hostile._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x" not in html and "<th>Acc</th>" in html


def test_chart_numbers_are_printed_as_formatted_not_rounded_with_the_coordinates():
    """The SVG's coordinates are rounded to one decimal to keep the report small; a number the chart
    prints (Kendall τ with two decimals) is left as formatted."""
    svg = charts.tau_heatmap({"a": {"a": 1.0, "b": 0.94}, "b": {"a": 0.94, "b": 1.0}}, str)
    assert re.findall(r">(\d\.\d+)</text>", svg).count("0.94") == 2
    assert not re.search(r'[xy]="-?\d+\.\d{2,}"', svg)  # coordinates still rounded


# ---------------------------------------------------------------------------------- terminal


@pytest.fixture(scope="module")
def germeval_files(germeval_dir) -> list[str]:
    return [str(germeval_dir / "gold.tsv"), *sorted(str(p) for p in (germeval_dir / "systems").glob("*.tsv"))]


@pytest.mark.parametrize("columns", [80, 120])
def test_score_fits_the_terminal_without_breaking_a_name_or_an_interval(columns, germeval_files):
    from click.testing import CliRunner

    from auditor.cli import cli

    result = CliRunner().invoke(cli, ["score", *germeval_files, "--bootstrap", "50", "--quiet"],
                                env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= columns for line in lines if not line.startswith("signature:")), columns
    systems = [Path(p).stem for p in germeval_files[1:]]
    rows = [line for line in lines if line.split(" ")[0] in systems]
    parts = len([line for line in lines if line.startswith("system ")])
    assert len(rows) == len(systems) * parts and parts >= 2  # every part repeats every system, whole
    for line in rows:
        cells = re.findall(r"\d+\.\d†? \[[−-]?\d+\.\d, [−-]?\d+\.\d\]|—", line)
        assert cells, line
    words = {w for line in lines for w in line.split()}
    assert "[lo," not in words or "hi]" in words


def test_score_sorts_by_a_metric_and_slices_follow_the_metric_asked_for(germeval_files, germeval_extras):
    from click.testing import CliRunner

    from auditor.cli import cli

    args = ["score", *germeval_files, "--bootstrap", "0", "--quiet", "--sort", "MCC", "-m", "mcc", "-m", "accuracy",
            "--slices", str(germeval_extras / "slices.tsv")]
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    systems = [line.split()[0] for line in lines if line.split()[:1] and line.split()[0] in
               {Path(p).stem for p in germeval_files[1:]}]
    mcc = {s: _germeval_mcc[s] for s in systems}
    defined = [s for s in systems if mcc[s] is not None]
    assert defined == sorted(defined, key=lambda s: -mcc[s]) and systems[-1] == "majority"  # undefined last
    assert any(line.startswith("slices (Matthews correlation") for line in lines)


_germeval_mcc = {"char-svm-balanced": 0.347, "char-svm": 0.330, "word-complement-nb": 0.266,
                 "word-logreg-balanced": 0.246, "word-nb": 0.236, "word-logreg": 0.219, "prior-sampler": 0.016,
                 "majority": None}  # MCC ×1/100 of the GermEval example (report page 1; majority: 0/0)


def test_metrics_listing_breaks_no_word_at_80_columns():
    from click.testing import CliRunner

    from auditor.cli import cli
    from auditor.metrics.registry import REGISTRY

    output = CliRunner().invoke(cli, ["metrics"], env={"COLUMNS": "80"}).stdout
    assert all(len(line) <= 80 for line in output.splitlines())
    words = {w for metric in REGISTRY for w in metric.name.split()}
    words |= {piece for w in words for piece in re.split(r"(?<=-)", w)}  # a line may break after a hyphen
    body = [line for line in output.splitlines() if line.strip() and "─" not in line
            and not line.strip().startswith(("id ", "metric catalogue"))]
    assert len(body) >= len(list(REGISTRY))
    for line in body:
        first = line.split()[0]
        rest = line.strip()[len(first):] if first in REGISTRY.metrics else line
        name_part = re.split(r"\s{2,}", rest.strip())[0]
        for word in name_part.split():
            assert word in words or word.startswith("[") or word in ("yes", "no"), (word, line)


def test_templates_come_from_the_copy_of_the_code_that_runs():
    """From a source checkout another installed auditor's ``auditor.templates`` may be importable;
    the renderers read the templates beside this package."""
    from auditor.formats.templating import _template_dir, load_template

    root = Path(auditor.__file__).resolve().parent
    folder = Path(str(_template_dir()))
    assert folder in (root / "templates", root.parent / "templates")
    assert load_template("summary.md.j2") == (folder / "summary.md.j2").read_text(encoding="utf-8")


def test_bold_means_the_best_set_on_page_one_and_in_the_metric_table(germeval, germeval_model):
    leaders = germeval.verdict.leaders
    tables = {b.id: b for s in germeval_model.sections for b in s.blocks if getattr(b, "kind", "") == "table"}
    page_one, metrics = tables["summary-leaderboard"], tables["table-metrics"]
    for table in (page_one, metrics):
        labels = [c.label for c in table.columns]
        for row in table.rows:
            for label, cell in zip(labels, row.cells):
                metric_id = next((m for m in germeval.systems[row.header].metrics
                                  if germeval_model and _short(m) == label), None)
                expected = metric_id in leaders and row.header in leaders[metric_id]
                assert cell.strong == expected, (table.id, row.header, label)
    # the same words as page 1, standing alone in tables.tex (no "as on page 1"): the tests, the family, α
    assert "as on page 1" not in metrics.caption
    assert ("Bold: the metric's best set, the top system and every system not significantly worse (Acc: exact "
            "McNemar test; macR, macF1, MCC, BM: approximate randomisation; Holm-adjusted over the comparisons with "
            "the top system, p ≥ α (0.05))") in metrics.caption


def _short(metric_id):
    from auditor.metrics.registry import REGISTRY

    return REGISTRY.metrics[metric_id].label if metric_id in REGISTRY.metrics else metric_id


def test_math_is_typeset_in_html_and_user_names_are_left_alone():
    from auditor.formats.html import math_html

    html = str(math_html("Prevalence p_i; multi-class R_K; Σ_{c≠d} o_cd; label x_y; id macro_f1; <b>"))
    assert "<i>p</i><sub><i>i</i></sub>" in html and "<i>R</i><sub><i>K</i></sub>" in html
    assert "Σ<sub><i>c≠d</i></sub> <i>o</i><sub><i>cd</i></sub>" in html
    assert "x_y" in html and "macro_f1" in html and "&lt;b&gt;" in html


def _prose(model) -> list[str]:
    """Every sentence a reader reads as text: paragraphs, bullets, captions and fact values (a definition's "id"
    row names the id on purpose, and the signature is code)."""
    texts = []
    for section in model.sections:
        for block in section.blocks:
            if block.kind == "paragraph":
                texts.append(block.text)
            elif block.kind == "bullets":
                texts.extend(block.items)
            elif block.kind in ("table", "figure"):
                texts.append(block.caption)
            elif block.kind in ("facts", "definition"):
                pairs = block.pairs if block.kind == "facts" else block.facts.pairs
                texts.extend(value for key, value in pairs if key != "id" and "signature" not in key.lower())
    return texts


def test_germeval_prose_names_metrics_not_ids_json_fields_or_modules(germeval_model):
    """Issue 36: running text uses display names; ids live in the definitions' "id" rows and in audit.json."""
    from auditor.metrics.registry import REGISTRY

    ids = [m for m in REGISTRY.metrics if "_" in m] + ["mcc"]
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, ids)) + r")\b|\bholm\b|\bbh\b|systems\.NAME|"
                         r"under “tests”|\bauditor\.[a-z_]+\.|\.py\b")
    texts = [text.replace(germeval_model.signature, "SIGNATURE") for text in _prose(germeval_model)]
    found = [(text[:80], m.group(0)) for text in texts for m in [pattern.search(text)] if m]
    assert not found, found
