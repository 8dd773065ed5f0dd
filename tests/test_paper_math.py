"""Math in the files a paper uses: the report's plain-text math tokens (p_i, R_K, Σ_{c≠d} o_cd) are TeX
math in tables.tex (compiled with pdflatex where it is installed) and ``$…$`` inline math in
summary.md (parsed with markdown-it-py's CommonMark and the dollarmath plugin GitHub's syntax
follows); user text keeps its underscores and dollars as characters."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

import auditor
from auditor.formats.latex import latex_escape, render_tex
from auditor.formats.markdown import markdown_escape, render_md
from auditor.report.build import build

TEXT = "prevalence p_i; MCC (R_K); α = 1 − Σ_{c≠d} o_cd / D; F1_i; a label x_p_i"


def test_tex_math_tokens():
    assert latex_escape(TEXT) == (r"prevalence $p_i$; MCC ($R_K$); $\alpha$ = 1 $-$ $\Sigma_{c \neq d}$ $o_{cd}$ / D; "
                                  r"$\mathrm{F1}_i$; a label x\_p\_i")


def test_markdown_math_tokens_and_escaped_dollars():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    text = markdown_escape(TEXT + "; costs $5 and $6")
    assert text == (r"prevalence $p_i$; MCC ($R_K$); α = 1 − $\Sigma_{c \neq d}$ $o_{cd}$ / D; $\mathrm{F1}_i$; "
                    r"a label x\_p\_i; costs \$5 and \$6")
    tokens = MarkdownIt("commonmark").use(dollarmath_plugin).parse(text)[1].children
    assert [t.content for t in tokens if t.type == "math_inline"] == ["p_i", "R_K", r"\Sigma_{c \neq d}", "o_{cd}",
                                                                      r"\mathrm{F1}_i"]
    plain = MarkdownIt("commonmark").render(text)  # without math: the tokens as written, no emphasis
    assert "$p_i$" in plain and "<em>" not in plain


@pytest.fixture(scope="module")
def annotated():
    rng = np.random.default_rng(4)
    gold = rng.choice(["a", "b", "c"], 120)
    noisy = lambda share: np.where(rng.random(120) < share, gold, rng.choice(["a", "b", "c"], 120))  # noqa: E731
    result = auditor.audit(gold, {"s": noisy(0.6), "t": noisy(0.4)}, annotators={"x": noisy(0.8), "y": noisy(0.8)},
                           bootstrap=50, seed=1)
    model = build(result, figures=False)
    return render_tex(model), render_md(model)


def test_rendered_tex_and_markdown_carry_math(annotated, tmp_path):
    tex, markdown = annotated
    assert r"$\Sigma_{c \neq d}$ $o_{cd}$" in tex and "o\\_cd" not in tex and "p\\_i" not in tex
    assert "$p_i$" in markdown and "p\\_i" not in markdown
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed")
    for table in re.findall(r"\\begin\{table\}.*?\\end\{table\}", tex, re.S):
        if "$" not in table.replace(r"\$", ""):
            continue
        (tmp_path / "t.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
                                        f"\\begin{{document}}\n{table}\n\\end{{document}}\n", encoding="utf-8")
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                              capture_output=True, text=True, errors="replace", timeout=120)
        assert done.returncode == 0, [line for line in done.stdout.splitlines() if line.startswith("!")]


def test_html_tooltips_are_plain_text_and_p_j_is_math():
    """A column's tooltip (title attribute) holds the metric's name as text: "R_K" in MCC's name is
    set as math in the page, never as <i> markup inside the attribute."""
    from auditor.formats.html import math_html, render_html

    rng = np.random.default_rng(1)
    gold = rng.choice(["a", "b"], 80)
    page = render_html(build(auditor.audit(gold, {"s": gold, "t": rng.choice(["a", "b"], 80)}, bootstrap=0),
                             figures=False))
    titles = re.findall(r'title="([^"]*)"', page)
    assert any("R_K" in t for t in titles) and not any("<" in t for t in titles)
    assert str(math_html("P_j = p_j")) == "<i>P</i><sub><i>j</i></sub> = <i>p</i><sub><i>j</i></sub>"


def test_task_report_notation_is_math_in_every_format():
    """The tagging notation (m_t, p_t, g_t) and the translation formulas (F_β;c, P_c, R_c) are set as
    math like the classification notation: a real subscript in HTML, $…$ in TeX and Markdown (β as
    \\beta, which pdflatex needs); a user's label "x_t" stays text."""
    from auditor.formats.html import math_html
    from auditor.formats.latex import latex_escape
    from auditor.formats.markdown import markdown_escape

    assert str(math_html("F_β;c from P_c and R_c")) == (
        "<i>F</i><sub><i>β;c</i></sub> from <i>P</i><sub><i>c</i></sub> and <i>R</i><sub><i>c</i></sub>")
    assert str(math_html("m_t of p_t, g_t; x_t")) == (
        "<i>m</i><sub><i>t</i></sub> of <i>p</i><sub><i>t</i></sub>, <i>g</i><sub><i>t</i></sub>; x_t")
    assert latex_escape("mean of F_β;c") == r"mean of $F_{\beta ;c}$"
    assert latex_escape("m_t and x_t") == r"$m_t$ and x\_t"
    assert markdown_escape("g_t") == "$g_t$"
