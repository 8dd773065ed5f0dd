"""The report: model, HTML/PDF/LaTeX/Markdown renderers, safety, atomic output, CLI.

The PDF is rendered once per run (``small_report`` in conftest: a small audit with hostile label and system
names), and shared with the other tests that read a whole report.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import re
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from synthetic import IMG_SYSTEM, SCRIPT_LABEL, TEX_SYSTEM

import auditor
from auditor.cli import cli
from auditor.errors import OutputError
from auditor.report.context import SECTION_TITLES

render_module = importlib.import_module("auditor.formats.render")
pdf_module = importlib.import_module("auditor.formats.pdf")
formatting = importlib.import_module("auditor.formatting")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def rendered(small_report):
    """All five outputs of the small audit (``small_report`` in conftest: rendered once for the run)."""
    return small_report


def test_all_five_files_written(rendered):
    names = sorted(path.name for path in rendered["dir"].iterdir())
    assert names == ["audit.json", "report.html", "report.pdf", "summary.md", "tables.tex"]
    assert json.loads((rendered["dir"] / "audit.json").read_text()) == json.loads(
        json.dumps(rendered["audit"].to_json()))


def test_pdf_holds_every_section_title(rendered):
    model = importlib.import_module("auditor.report.build").build(rendered["audit"], figures=False)
    text = _squash(rendered["pdf_text"])
    assert len(model.sections) >= 8
    for section in model.sections:
        assert _squash(section.title) in text, section.title
    for core in ("summary", "data", "metrics", "per-class"):
        assert _squash(SECTION_TITLES[core]) in text


def test_pdf_holds_metric_values_as_formatted(rendered):
    text = _squash(rendered["pdf_text"])
    document = rendered["audit"].to_json()
    checked = 0
    for system in document["systems"].values():
        for entry in system["metrics"].values():
            shown = formatting.format_value(entry["value"], "score")
            assert shown in text
            checked += 1
    assert checked > 40
    assert formatting.format_value(0.71234, "score") == "71.2"
    assert formatting.format_value(None, "score") == "—"


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.urls += [value or "" for name, value in attrs if name in ("src", "href", "xlink:href", "srcset", "data")]


def test_html_loads_no_external_resource(rendered):
    parser = _Links()
    parser.feed(rendered["html"])
    assert "script" not in parser.tags
    assert parser.urls, "expected internal links (table of contents)"
    for url in parser.urls:
        assert url.startswith("#") or url.startswith("data:"), url
    assert not re.search(r"url\(\s*['\"]?(?!#|data:)", rendered["html"])
    assert "@import" not in rendered["html"]


def test_hostile_names_escaped_in_html_and_intact_in_pdf(rendered):
    html = rendered["html"]
    assert SCRIPT_LABEL not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert IMG_SYSTEM not in html and "<img" not in html
    assert "&#34;&gt;&lt;img src=x&gt;" in html or "&quot;&gt;&lt;img src=x&gt;" in html
    text = _squash(rendered["pdf_text"])
    assert _squash(SCRIPT_LABEL) in text
    assert _squash(IMG_SYSTEM) in text


def test_weasyprint_gets_the_refusing_fetcher(rendered):
    assert len(rendered["calls"]) == 1
    fetcher = rendered["calls"][0]["url_fetcher"]
    assert type(fetcher).__name__ == "InlineDataFetcher"
    for url in ("http://example.com/x.png", "https://example.com/font.woff", "file:///etc/passwd", "ftp://h/x"):
        with pytest.raises(ValueError, match="refused"):
            fetcher.fetch(url)
        with pytest.raises(ValueError):
            pdf_module.refuse_non_data_url(url)
    response = fetcher.fetch("data:text/plain;base64,aGk=")
    assert response is not None
    pdf_module.refuse_non_data_url("data:image/png;base64,AAAA")


def test_pdf_is_a4_with_embedded_fonts_and_page_numbers(rendered):
    from pypdf import PdfReader

    reader = PdfReader(rendered["dir"] / "report.pdf")
    box = reader.pages[0].mediabox
    assert abs(float(box.width) - 595.3) < 1 and abs(float(box.height) - 841.9) < 1
    assert f"Page 1 of {len(reader.pages)}" in rendered["pdf_text"]
    outline = [item.title for item in reader.outline if not isinstance(item, list)]
    assert outline[0] == "Metric audit" and "Summary" in outline and "Contents" not in outline
    for page in reader.pages[:2]:
        for font in page["/Resources"]["/Font"].values():
            descendant = font.get_object()["/DescendantFonts"][0].get_object()
            assert "/FontFile2" in descendant["/FontDescriptor"] or "/FontFile3" in descendant["/FontDescriptor"]


def test_latex_tables_booktabs_and_escaped(rendered):
    tex = (rendered["dir"] / "tables.tex").read_text(encoding="utf-8")
    for command in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}", r"\caption{"):
        assert command in tex
    assert r"A\&B\_50\%" in tex
    assert r"x\_y" in tex
    assert r"\textless{}script\textgreater{}" in tex
    assert "auditor:0.1.0" in tex  # the signature in every caption
    body = re.sub(r"^%.*$", "", tex, flags=re.M).replace("{%\n", "{\n")  # comment lines, line-end %
    unescaped = re.sub(r"\\[&%_]", "", body).replace(" & ", " ")
    assert not re.search(r"[&%_]", unescaped), "unescaped LaTeX special character"
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}")


def test_markdown_summary(rendered):
    md = (rendered["dir"] / "summary.md").read_text(encoding="utf-8")
    assert md.startswith("# Metric audit")
    assert "Signature: `auditor:" in md
    assert "\\<script\\>" in md and "<script>" not in md
    assert "Leaderboard (×100), ordered by" in md  # the page-1 leaderboard is in the Markdown summary too


def test_failing_renderer_leaves_outdir_as_it_was(rendered, tmp_path, monkeypatch):
    outdir = tmp_path / "out"
    outdir.mkdir()
    (outdir / "summary.md").write_text("old summary")
    (outdir / "keep.txt").write_text("keep")
    before = {p.name: p.read_bytes() for p in outdir.iterdir()}

    def boom(report):
        raise RuntimeError("renderer failed")

    monkeypatch.setattr(render_module, "render_tex", boom)
    with pytest.raises(RuntimeError):
        auditor.render(rendered["audit"], outdir, formats=("json", "md", "tex"))
    assert {p.name: p.read_bytes() for p in outdir.iterdir()} == before


def test_write_failure_cleans_up(rendered, tmp_path, monkeypatch):
    outdir = tmp_path / "out"
    outdir.mkdir()
    import auditor.formats.output as output

    real = output._write
    calls = []

    def flaky(path, data):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(output, "_write", flaky)
    with pytest.raises(OutputError):
        auditor.render(rendered["audit"], outdir, formats=("json", "md"))
    assert list(outdir.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.fixture
def label_files(tmp_path):
    gold = tmp_path / "gold.tsv"
    a = tmp_path / "a.tsv"
    b = tmp_path / "b.tsv"
    gold.write_text("id\tlabel\n" + "".join(f"{i}\t{'pos' if i % 3 else 'neg'}\n" for i in range(30)))
    a.write_text("id\tlabel\n" + "".join(f"{i}\t{'pos' if i % 4 else 'neg'}\n" for i in range(30)))
    b.write_text("id\tlabel\n" + "".join(f"{i}\tpos\n" for i in range(30)))
    return tmp_path, gold, a, b


def test_cli_format_subset_writes_only_those(label_files):
    tmp_path, gold, a, b = label_files
    outdir = tmp_path / "report"
    result = CliRunner().invoke(cli, ["report", str(gold), str(a), str(b), "-o", str(outdir), "--format", "json,md,tex",
                                      "--bootstrap", "20", "--quiet"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in outdir.iterdir()) == ["audit.json", "summary.md", "tables.tex"]


def test_cli_unwritable_outdir_one_error_nothing_written(label_files):
    tmp_path, gold, a, b = label_files
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a directory")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(cli, ["report", str(gold), str(a), "-o", str(blocker / "out"), "--format", "json,md",
                                      "--bootstrap", "0", "--quiet"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("auditor: error:") and "file.txt" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert blocker.read_text() == "not a directory"


def test_cli_unknown_format(label_files):
    tmp_path, gold, a, b = label_files
    result = CliRunner().invoke(cli, ["report", str(gold), str(a), "-o", str(tmp_path / "o"), "--format", "docx"])
    assert result.exit_code == 2
    assert "docx" in result.output
    assert not (tmp_path / "o").exists()


def test_absent_keys_give_absent_sections(rendered):
    report = importlib.import_module("auditor.report.build")
    result = dataclasses.replace(rendered["audit"], baselines=None, statistics=None, properties=None, verdict=None)
    model = report.build(result, figures=False)
    ids = [section.id for section in model.sections]
    assert "baselines" not in ids and "significance" not in ids and "properties" not in ids
    assert {"summary", "data", "metrics", "per-class", "reproducibility"} <= set(ids)
    tex = render_module.render_tex(model)
    assert r"\toprule" in tex


def test_ledger_marks_undefined_and_conventions(rendered):
    report = importlib.import_module("auditor.report.build")
    model = report.build(rendered["audit"], figures=False)
    assert model.ledger, "the constant system leaves precision of two classes undefined"
    states = {entry.state for entry in model.ledger}
    assert "undefined" in states
    metrics = model.section("metrics").blocks
    table = next(block for block in metrics if getattr(block, "id", "") == "table-metrics")
    row = next(r for r in table.rows if r.header == TEX_SYSTEM)
    assert any(cell.mark for cell in row.cells)


def test_recommendation_section_renders_formulas_and_summary_headline(rendered):
    from dataclasses import replace

    from auditor.analyses.recommend import Avoided, Recommendation, Recommended

    report = importlib.import_module("auditor.report.build")
    result = rendered["audit"]
    recommendation = Recommendation(
        metrics=(Recommended("macro_f1", "Macro F1", "primary", r"\frac{1}{k}\sum_i F1_i",
                             ("the majority class already reaches 50.0 accuracy",), ()),
                 Recommended("mcc", "MCC", "complement", "", ("chance-corrected",), ())),
        avoid=(Avoided("accuracy", "Accuracy", ("the majority-class baseline reaches 50.0",), ()),),
        facts=result.recommendation.facts, rules_fired=("R1: imbalance",))
    model = report.build(replace(result, recommendation=recommendation), figures=True)
    section = model.section("recommendation")
    definitions = [block for block in section.blocks if block.kind == "definition"]
    assert [d.id for d in definitions] == ["recommended-macro_f1", "recommended-mcc"]  # ids apart from the appendix's
    assert all(d.formula.svg.startswith("<svg") for d in definitions)  # mcc falls back to its registry formula
    summary = dict(model.section("summary").blocks[0].pairs)
    assert summary["Recommendation"].startswith("report Macro F1")
    assert "avoid Accuracy" in summary["Recommendation"]
    assert model.section("rules") is not None
    html = render_module.render_html(model)
    assert "the majority-class baseline reaches 50.0" in html
    assert "Appendix" in model.section("rules").title


def test_html_ids_unique_so_svg_references_resolve(rendered):
    ids = re.findall(r'\sid="([^"]+)"', rendered["html"])
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates
    for target in re.findall(r'(?:url\(#|href="#)([^")]+)', rendered["html"]):
        assert target in ids, target


def test_germeval_summary_names_the_top_value_under_accuracy_and_under_macro_metrics(germeval_dir):
    """Issue 5: on GermEval the accuracy top value is not the macro one (macR, the primary
    metric since issue 8), visible in the summary;
    issue 38: with --bootstrap 0 only accuracy's exact tests run, and the summary says macR is left out."""
    systems = {path.stem: str(path) for path in sorted((germeval_dir / "systems").glob("*.tsv"))}
    result = auditor.audit(str(germeval_dir / "gold.tsv"), systems, bootstrap=0)
    model = importlib.import_module("auditor.report.build").build(result, figures=False)
    summary = dict(model.section("summary").blocks[0].pairs)
    verdict = summary["Winner depends on the metric?"]
    # --bootstrap 0: accuracy's exact McNemar tests ran, macro recall (the primary) has no test and is left out
    assert verdict.startswith("No: ") and "best set of every key metric (Acc)" in verdict
    assert "macR: no test ran (--bootstrap 0" in verdict
    assert model.sections[0].id == "summary"
