"""Every printed string escaped in every format: Markdown, LaTeX, JSON, the terminal."""
from __future__ import annotations

import json
import re

import pytest

import auditor
from auditor.errors import UsageError
from auditor.formats.json import render_json
from auditor.formats.latex import latex_escape, latex_row_start, render_tex
from auditor.formats.markdown import markdown_code, markdown_escape, render_md
from auditor.report.build import build

HOSTILE_SYSTEMS = ("| a |", "<script>alert(1)</script>", "[link](http://example.org)", "[3cm]", "*star", "- dash")
HOSTILE_LABELS = ("x|y", "<b>", "[3cm]", "#happy")


@pytest.fixture(scope="module")
def hostile_report():
    gold = [label for label in HOSTILE_LABELS for _ in range(3)]
    systems = {name: gold[index:] + gold[:index] for index, name in enumerate(HOSTILE_SYSTEMS)}
    return build(auditor.audit(gold, systems, bootstrap=0), figures=False)


def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_markdown_tables_keep_their_shape_with_pipes_and_html_in_names(hostile_report):
    markdown = render_md(hostile_report)
    tables = [block for block in markdown.split("\n\n") if block.startswith("|")]
    assert tables
    for table in tables:
        widths = {unescaped_pipes(line) for line in table.splitlines()}
        assert len(widths) == 1, table  # no cell split by a "|" in a name
    assert "<script>" not in markdown and r"\<script\>alert(1)\</script\>" in markdown
    assert "[link](http" not in markdown.replace(r"\[link\](http", "")
    assert r"\| a \|" in markdown


def test_markdown_escape_cases():
    assert markdown_escape("| a |") == r"\| a \|"
    assert markdown_escape("<script>") == r"\<script\>"
    assert markdown_escape("[x](y)") == r"\[x\](y)"
    assert markdown_escape("- item") == r"\- item"
    assert markdown_escape("1. first") == r"1\. first"
    assert markdown_escape("#happy") == r"\#happy"
    assert markdown_escape("a\nb") == "a b"
    assert markdown_escape("bell\x07") == r"bell\\x07"
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("`x`") == "`` `x` ``"


def test_latex_escapes_every_special_and_guards_a_row_start(hostile_report):
    assert latex_escape(r"\&%$#_{}~^<>") == (r"\textbackslash{}\&\%\$\#\_\{\}\textasciitilde{}\textasciicircum{}"
                                             r"\textless{}\textgreater{}")
    assert latex_escape("a\nb\x1c") == r"a\textbackslash{}x0ab\textbackslash{}x1c"
    assert latex_row_start("[3cm]") == "{}[3cm]"
    assert latex_row_start("*star") == "{}*star"
    assert latex_row_start("plain") == "plain"
    tex = render_tex(hostile_report)
    lines = tex.splitlines()
    for previous, line in zip(lines, lines[1:]):
        if previous.rstrip().endswith(("\\\\", r"\toprule", r"\midrule")):
            assert not line.startswith(("[", "*")), (previous, line)  # read as an optional argument / star
    assert "{}[3cm] &" in tex and "{}*star &" in tex
    assert "<script>" not in tex and r"\textless{}script\textgreater{}" in tex
    assert "\n#" not in tex and r"\#happy" in tex


def test_lone_surrogate_label_from_the_python_api_is_refused_before_output():
    with pytest.raises(UsageError, match=r"label 'x\\ud800' holds a lone surrogate \(U\+D800\)"):
        auditor.audit(["a", "x\ud800", "a"], {"s": ["a", "a", "a"]}, bootstrap=0)
    with pytest.raises(UsageError, match="system name .* lone surrogate.*NAME=PATH"):
        auditor.audit(["a", "b"], {"s\udcff": ["a", "b"]}, bootstrap=0)


def test_json_with_a_lone_surrogate_in_a_path_is_valid_utf8_and_round_trips():
    document = {"sources": {"A": {"path": "s\udcff.tsv"}}}
    text = render_json(document)
    text.encode("utf-8")  # no UnicodeEncodeError at output
    assert json.loads(text) == document


def test_terminal_table_prints_names_with_rich_markup_literally(tmp_path, write):
    from click.testing import CliRunner

    from auditor.cli import cli

    gold = write("gold.tsv", "id\tlabel\n1\tpos\n2\tneg\n3\tpos\n")
    system = write("sys.tsv", "id\tlabel\n1\tpos\n2\tpos\n3\tpos\n")
    result = CliRunner().invoke(cli, ["score", gold, f"[bold]x[/bold]={system}", f"[/broken]={system}",
                                      "--bootstrap", "0", "-m", "accuracy"])
    assert result.exit_code == 0, result.output
    assert "[bold]x[/bold]" in result.stdout and "[/broken]" in result.stdout


def test_terminal_output_shows_control_characters_instead_of_sending_them(write):
    from click.testing import CliRunner

    from auditor.cli import cli

    gold = write("gold.tsv", "id\tlabel\n1\tpos\n2\tneg\n3\tpos\n")
    system = write("sys.tsv", "id\tlabel\n1\tpos\n2\tpos\n3\tpos\n")
    result = CliRunner().invoke(cli, ["score", gold, f"\x1b[31mred={system}", "--bootstrap", "0", "-m", "accuracy"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and r"\x1b[31mred" in result.stdout
    table = write("table.tsv", "label\tprecision\trecall\tsupport\n\x1b[2Ja\t0.5\t0.5\t10\nb\t0.5\t0.5\t10\n")
    claim = CliRunner().invoke(cli, ["check-claim", "accuracy=0.5", "--table", table])
    assert claim.exit_code == 0, claim.output
    assert "\x1b" not in claim.stdout and r"\x1b[2Ja" in claim.stdout


def test_tables_tex_spells_the_property_symbols_as_latex_commands():
    """pdflatex's UTF-8 input does not define ✓ ✗ ω Ω: the property table (probed / Table 5 /
    declared) must reach tables.tex as math commands, or the paper does not compile."""
    from auditor.report.build import build

    result = auditor.audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"]}, bootstrap=0)
    tex = render_tex(build(result, figures=False))
    assert "tab:auditor-table-properties" in tex
    assert not set("✓✗ωΩα≤≥≠Σ§") & set(tex)
    assert r"$\surd$" in tex and r"$\omega$" in tex
