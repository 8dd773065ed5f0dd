"""The typeset PDF, checked on weasyprint's own layout (issues #20 and #21): the GermEval report
fits its page budget, no heading ends a page, no short table is split over two pages, a split
table keeps at least two rows on each page, and every chart is drawn at its print size (its
labels stay at 7.5 pt: never scaled down)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

import auditor
from auditor.formats.html import render_html
from auditor.report.build import build

#: The GermEval report (8 systems, 4 classes) with every section: at most this many A4 pages (#21).
PAGE_BUDGET = 16
#: A table of at most this many body rows is never split over two pages.
SHORT_TABLE_ROWS = 10


def _germeval(folder: Path, **options):
    systems = {path.stem: str(path) for path in sorted((folder / "systems").glob("*.tsv"))}
    return auditor.audit(str(folder / "gold.tsv"), systems, **options)


def _builtin_only(patch: pytest.MonkeyPatch) -> None:
    """The built-in metrics only: a plugin another test loaded stays registered for the session."""
    from auditor.metrics.registry import REGISTRY

    builtin = {k: m for k, m in REGISTRY.metrics.items()
               if getattr(m.function, "__module__", "").startswith("auditor.") and m.family != "plugin"}
    patch.setattr(REGISTRY, "metrics", builtin)


@pytest.fixture(scope="module")
def layout(germeval_dir):
    """(html, weasyprint Document, audit) of the GermEval report with its charts."""
    from weasyprint import HTML

    from auditor.formats.pdf import url_fetcher

    with pytest.MonkeyPatch.context() as patch:
        _builtin_only(patch)
        result = _germeval(germeval_dir, bootstrap=200)
        html = render_html(build(result, figures=True))
    return html, HTML(string=html, base_url=None, url_fetcher=url_fetcher()).render(), result


def _walk(box, ancestors=()):
    """Every box below ``box`` in document order, with its ancestors' elements (outermost first)."""
    yield box, ancestors
    element = getattr(box, "element", None)
    inner = ancestors + (element,) if element is not None and (not ancestors or ancestors[-1] is not element) \
        else ancestors
    for child in getattr(box, "children", ()):
        yield from _walk(child, inner)


def _content(page):
    """The page's boxes, without the page-margin boxes (running footer and page number)."""
    for child in page._page_box.children:
        if type(child).__name__ != "MarginBox":
            yield from _walk(child)


def test_germeval_report_fits_its_page_budget(layout):
    _, document, _ = layout
    assert len(document.pages) <= PAGE_BUDGET


def test_no_heading_ends_a_page(layout):
    """The last line of text on every page but the last is never a heading (h1–h3)."""
    _, document, _ = layout
    for number, page in enumerate(document.pages[:-1], start=1):
        texts = [(box.text, ancestors) for box, ancestors in _content(page)
                 if type(box).__name__ == "TextBox" and box.text.strip()]
        assert texts, f"page {number} has no text"
        text, ancestors = texts[-1]
        tags = {getattr(element, "tag", "") for element in ancestors}
        assert not tags & {"h1", "h2", "h3"}, f"page {number} ends with the heading {text!r}"
        figure = next((e for e in reversed(ancestors) if getattr(e, "tag", "") == "figure"), None)
        above = figure is not None and "table" in (figure.get("class") or "").split()  # a table's caption is above it
        assert not (above and "figcaption" in tags), f"page {number} ends with the caption {text!r} of a table"


def _table_rows_per_page(document) -> dict[str, dict[int, set[int]]]:
    """Table id -> page number -> the indices of its body rows (tr) typeset on that page."""
    tables: dict[str, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for number, page in enumerate(document.pages, start=1):
        for box, ancestors in _content(page):
            element = getattr(box, "element", None)
            if type(box).__name__ != "TableRowBox" or element is None:
                continue
            figure = next((e for e in reversed(ancestors) if getattr(e, "tag", "") == "figure"), None)
            body = next((e for e in reversed(ancestors) if getattr(e, "tag", "") == "tbody"), None)
            if figure is None or body is None:  # a header row (repeated on each page)
                continue
            tables[figure.get("id")][number].add(list(body).index(element))
    return tables


def test_short_tables_stay_on_one_page_and_long_ones_split_between_whole_groups(layout):
    _, document, _ = layout
    tables = _table_rows_per_page(document)
    assert {"table-pairs", "summary-leaderboard", "table-best"} <= set(tables)
    for table_id, pages in tables.items():
        rows = set().union(*pages.values())
        if len(rows) <= SHORT_TABLE_ROWS:
            assert len(pages) == 1, f"{table_id} ({len(rows)} rows) is split over pages {sorted(pages)}"
        for number, on_page in pages.items():
            assert len(on_page) >= 2 or len(rows) < 2, f"{table_id}: one row alone on page {number}"


def test_charts_are_drawn_at_their_print_size(layout):
    """No chart is scaled down to fit (its 10 px labels are 7.5 pt on the page): each chart's
    SVG is typeset at its own width."""
    _, document, _ = layout
    seen = 0
    for page in document.pages:
        for box, ancestors in _content(page):
            figure = next((e for e in reversed(ancestors) if getattr(e, "tag", "") == "figure"), None)
            if type(box).__name__ not in ("InlineReplacedBox", "BlockReplacedBox") or figure is None \
                    or "chart" not in (figure.get("class") or ""):
                continue
            intrinsic = box.replacement.get_intrinsic_size(1, 16)[0]
            assert box.width >= 0.99 * intrinsic, \
                f"{figure.get('id')}: {intrinsic:.0f} px drawn {box.width:.0f} px wide"
            seen += 1
    assert seen >= 5  # bias, metrics, bump, Kendall, confusion


def _bold_cells(html: str) -> list[tuple[str, str, str]]:
    """(table id, row header, column title) of every bold cell (``td.best``) in the rendered HTML."""
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.table, self.titles, self.header, self.column, self.bold = None, [], "", 0, []
            self.in_row_header = False

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "figure":
                self.table, self.titles = attrs.get("id"), []
            elif tag == "th" and attrs.get("scope") == "col":
                self.titles.append(attrs.get("title", ""))
            elif tag == "tr":
                self.header, self.column = "", 0
            elif tag == "th" and attrs.get("scope") == "row":
                self.in_row_header = True
            elif tag == "td":
                self.column += 1
                if "best" in (attrs.get("class") or "").split():
                    self.bold.append((self.table, self.header, self.titles[self.column]))

        def handle_endtag(self, tag):
            if tag == "th":
                self.in_row_header = False

        def handle_data(self, data):
            if self.in_row_header:
                self.header += data

    parser = Cells()
    parser.feed(html)
    return parser.bold


def test_bold_means_a_best_set_and_nothing_else_in_the_rendered_report(layout):
    """Every bold cell of the rendered report is a system in the best set of its column's metric
    (page 1 and the metric tables); no other table has bold (per-class, deployment, confusion),
    and the meaning is stated once, in the header."""
    from auditor.metrics.registry import REGISTRY

    html, _, result = layout
    names = {REGISTRY.metrics[m].name: m for m in REGISTRY.metrics}
    best = {m: set(entry.systems) for m, entry in result.statistics.best_set.items()}
    bold = _bold_cells(html)
    assert {table for table, _, _ in bold} == {"summary-leaderboard", "table-metrics"}
    for table, system, title in bold:
        metric_id = names[title]
        assert system in best[metric_id], (table, system, title)
    leaderboard = {(system, names[title]) for table, system, title in bold if table == "summary-leaderboard"}
    assert leaderboard == {(s, m) for m, systems in best.items() for s in systems if m in result.verdict.key_metrics}
    assert html.count("Bold means one thing throughout") == 1


def test_only_accuracy_is_bold_without_draws(monkeypatch, germeval_dir):
    """--bootstrap 0: only accuracy's exact McNemar tests ran, so bold marks accuracy's best set and nothing else."""
    from auditor.metrics.registry import REGISTRY

    _builtin_only(monkeypatch)
    result = _germeval(germeval_dir, bootstrap=0)
    html = render_html(build(result, figures=False))
    names = {REGISTRY.metrics[m].name: m for m in REGISTRY.metrics}
    bold = _bold_cells(html)
    assert bold and {names[title] for _, _, title in bold} == {"accuracy"}
    assert {system for _, system, _ in bold} <= set(result.statistics.best_set["accuracy"].systems)
    assert "only accuracy has a best set" in html


def test_only_the_classification_formula_cards_are_set_in_two_columns(layout, uner_dir):
    """Balanced columns re-lay a section out several times: the classification report's formula cards
    need them to fit GermEval's 16 pages; a task report's definitions save no page in them (UNER: 7 pages
    either way), so they are laid out in one column."""
    import re

    from auditor.options import AuditOptions
    from auditor.tasks import task_module

    html = layout[0]
    assert re.search(r'<section id="definitions" class="section-definitions two-columns">', html)
    assert len(re.findall(r'<section [^>]*two-columns', html)) == 1
    systems = {path.stem: str(path) for path in sorted((uner_dir / "systems").glob("*.iob2"))[:2]}
    result = task_module("tagging").audit(str(uner_dir / "gold.iob2"), systems, options=AuditOptions(bootstrap=0))
    assert not re.findall(r'<section [^>]*two-columns', render_html(result.report_model(False)))


def test_the_contents_are_two_lists_numbered_on(layout):
    """The contents in two columns split by the template (CSS columns would be balanced by laying the list out again
    on every layout of page 1): the second list goes on numbering from the first."""
    import re

    nav = re.search(r'<nav class="toc">(.*?)</nav>', layout[0], re.S).group(1)
    first, second = re.findall(r"<ol[^>]*>(.*?)</ol>", nav, re.S)
    assert f'style="counter-reset: list-item {first.count("<li>")}"' in nav
    assert 0 <= first.count("<li>") - second.count("<li>") <= 1
