"""Issue 36's minor items: the tables.tex signature can break, pandas is a dependency."""
from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_tex_caption_signature_breaks_at_each_field(tmp_path):
    import auditor
    from auditor.formats.render import render

    result = auditor.audit(["a", "b", "a", "b", "a"] * 4, {"S": ["a", "a", "a", "b", "b"] * 4,
                                                           "T": ["b", "b", "a", "b", "a"] * 4})
    render(result, tmp_path, ("tex",))
    tex = (tmp_path / "tables.tex").read_text(encoding="utf-8")
    caption = tex[tex.index(r"Signature: \texttt{"):]
    caption = caption[:caption.index("}}")]
    assert caption.count(r"|\allowbreak{}") == str(result.signature).count("|")


def test_pandas_is_a_dependency():
    """``Audit.to_frame()`` needs pandas, so ``pip install .`` installs it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(dep.split(">")[0].split("=")[0].strip() == "pandas" for dep in project["dependencies"])


def test_binary_permutation_table_shows_one_column_when_every_metric_gives_the_same_p():
    """Two classes: the shuffle test's p is the same under each metric, so the table shows it once, says so, and
    says the p-values are unadjusted."""
    import numpy as np

    import auditor
    from auditor.report.build import build

    rng = np.random.default_rng(0)
    gold = rng.integers(0, 2, 300).astype(str)
    systems = {f"S{i}": np.where(rng.random(300) < 0.6 + 0.1 * i, gold, rng.integers(0, 2, 300).astype(str))
               for i in range(3)}
    report = build(auditor.audit(gold, systems), figures=False)
    table = next(b for b in report.section("baselines").blocks if getattr(b, "id", "") == "table-chance-p_shuffle")
    assert [c.label for c in table.columns] == ["every metric"]
    assert table.caption.startswith("Unadjusted permutation p-value") and "shown once" in table.caption


def test_summary_md_formulas_are_math_not_code(tmp_path):
    """summary.md writes a recommended metric's formula as GitHub's inline math, $`…`$ (rendered as math; the
    backticks keep Markdown from reading the LaTeX), not as a bare code span."""
    import auditor
    from auditor.formats.render import render

    result = auditor.audit(["a", "b", "a", "b", "a"] * 4, {"S": ["a", "a", "a", "b", "b"] * 4,
                                                           "T": ["b", "b", "a", "b", "a"] * 4})
    render(result, tmp_path, ("md",))
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    lines = [line for line in summary.splitlines() if line.startswith("- **") and "\\frac" in line]
    assert lines and all("$`" in line and "`$" in line for line in lines)


def test_near_chance_list_says_its_phrase_once_in_order():
    """Ten systems near chance for the same reason: the phrase once, then the systems, highest p first."""
    from auditor.analyses.recommend import _near_chance_text

    phrase = "Informedness not significantly above its shuffled predictions, Holm-adjusted"
    near = {f"S{i}": f"{phrase} p = {p}" for i, p in enumerate(("0.070", "0.52", "0.31"))}
    assert _near_chance_text(near) == f"{phrase}: S1 p = 0.52, S2 p = 0.31, S0 p = 0.070"
