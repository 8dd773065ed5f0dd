"""``report.pdf``: the HTML report typeset by weasyprint, which fetches nothing but inline
``data:`` URLs (:class:`InlineDataFetcher`); by the command line in a child process started beside the audit
(:func:`renderer_started`), so that importing weasyprint costs the report no time."""
from __future__ import annotations

import re
import subprocess
import sys
from typing import Any, ContextManager

from auditor.children import child_started

#: One cell of a Vega rect mark as vl-convert writes it: a filled path with its screen-reader label.
_RECT_CELL = re.compile(r'<path aria-label="[^"]*" role="graphics-symbol" aria-roledescription="rect mark" '
                        r'd="(M[^"]*Z)" fill="([^"]*)"/>')
#: A rect mark group holding nothing but such cells (a heat map's cells, a bar chart's bars).
_RECT_GROUP = re.compile(r'(<g class="mark-rect role-mark[^"]*"[^>]*>)((?:' + _RECT_CELL.pattern.replace("(", "(?:")
                         + r')+)(</g>)')


#: The screen-reader attributes vl-convert writes on every SVG element (a mark's label, its role): the HTML keeps them;
#: the PDF, which weasyprint writes untagged, has no use for them (1M x 10 x 20: 70 KB of the 660 KB it parses).
_SCREEN_READER = re.compile(r' (?:aria-label|aria-roledescription|aria-hidden|role)="[^"<>]*"')


def refuse_non_data_url(url: str) -> None:
    """Raise unless ``url`` is an inline ``data:`` URL: the PDF renderer fetches nothing else."""
    if not url.lower().startswith("data:"):
        raise ValueError(f"auditor fetches no external resource; refused {url!r}")


def _fetcher_class():
    from weasyprint.urls import URLFetcher

    class InlineDataFetcher(URLFetcher):
        """weasyprint URL fetcher that refuses every URL that is not inline ``data:``."""

        def __init__(self) -> None:
            super().__init__(allowed_protocols=("data",), allow_redirects=False, fail_on_errors=False)

        def fetch(self, url: str, headers: Any = None):  # type: ignore[override]
            refuse_non_data_url(url)
            return super().fetch(url, headers)

    return InlineDataFetcher


def url_fetcher():
    """A fresh :class:`InlineDataFetcher` (refuses http, https, file and every other scheme)."""
    return _fetcher_class()()


def merge_rect_cells(html: str) -> str:
    """``html`` with the cells of each Vega rect mark drawn as one path per fill colour (its
    rectangles as subpaths) instead of one path per cell, for the PDF only: the same pixels, as
    the cells of a heat map do not overlap; weasyprint parses and draws each SVG element on its
    own (1M items x 10 systems x 20 labels: the confusion matrices' 4,000 cells become 137 paths).
    The HTML keeps the cells and their screen-reader labels."""
    def merged(group: re.Match) -> str:
        paths: dict[str, list[str]] = {}
        for outline, fill in _RECT_CELL.findall(group.group(2)):
            paths.setdefault(fill, []).append(outline)
        return (group.group(1) + "".join(f'<path d="{" ".join(outlines)}" fill="{fill}"/>'
                                         for fill, outlines in paths.items()) + group.group(3))

    return _RECT_GROUP.sub(merged, html)


#: Above this many rows a table is printed in the PDF without its intervals, and above this many systems the
#: PDF leaves out the confusion-matrix small multiples (issue 40: weasyprint lays out each cell, interval and chart
#: element on its own; at 100 systems those took 22 of its 50 s of CPU). report.html and audit.json keep both.
PDF_ROWS = 30
#: The figures the PDF leaves out above :data:`PDF_ROWS` systems -> why, and where their numbers are: the confusion
#: small multiples (one per system), the rank bump chart (one line per system: at 100 systems the lines cannot be
#: told apart, the legend stops at 29 and the chart runs past the page).
PER_SYSTEM_FIGURES = {
    "fig-confusion": "one small multiple per system; it is in report.html, and the counts are in audit.json",
    "fig-bump": "one line per system, too many to tell apart; it is in report.html, and each system's rank under "
                "each metric is in the table of ranks and audit.json",
}
#: Tables whose rows the PDF leaves out above :data:`PDF_ROWS` systems where every cell says the same thing: table id
#: -> (whether a cell says it, what the left-out rows say). At 100 submissions most systems are far above chance
#: and never rank first, so these pages were a hundred rows of "<0.001" and "0.0".
UNIFORM_ROWS = {
    "table-chance-p_shuffle": (lambda cell: cell.kind == "p" and isinstance(cell.value, float) and cell.value < 0.001,
                               "have p < 0.001 under every metric"),
    "table-pbest": (lambda cell: cell.kind == "share" and cell.value == 0, "ranked first in no resample under "
                                                                            "any metric"),
}


#: A figure's id, and its page number when a chart is drawn a page at a time ("fig-confusion-2"); its caption's
#: sentence naming that page (auditor.report.sections.appendices).
_PAGE_OF_FIGURE = re.compile(r"(.+?)(?:-(\d+))?")
_PAGE_OF_CHARTS = re.compile(r" Chart \d+ of \d+: .*$")


def printed(report: Any, systems: int) -> Any:
    """The report model the PDF typesets (:data:`PDF_ROWS`): ``report`` with each table of more than PDF_ROWS rows
    printed without intervals, and with more than PDF_ROWS systems no per-system small multiples and none of the
    rows of :data:`UNIFORM_ROWS` that say nothing but the uniform answer, each change said where it is made. The
    same ``report`` when nothing is that large."""
    from dataclasses import replace

    from auditor.report.model import Figure, Paragraph, Table

    def lighter(block: Any) -> Any:
        if isinstance(block, Table) and len(block.rows) > PDF_ROWS and any(
                cell.low is not None for row in block.rows for cell in row.cells):
            rows = tuple(replace(row, cells=tuple(replace(cell, low=None, high=None) for cell in row.cells))
                         for row in block.rows)
            return replace(block, rows=rows, caption=f"{block.caption} In the PDF, a table of more than {PDF_ROWS} "
                           "rows is printed without its intervals: they are in report.html and audit.json.")
        if isinstance(block, Table) and block.id in UNIFORM_ROWS and systems > PDF_ROWS:
            return _uniform_rows_left_out(block)
        figure = isinstance(block, Figure) and _PAGE_OF_FIGURE.fullmatch(block.id)
        if figure and figure.group(1) in PER_SYSTEM_FIGURES and systems > PDF_ROWS:  # said once, for all its pages
            return None if figure.group(2) else Paragraph(
                f"{_PAGE_OF_CHARTS.sub('', block.caption)} With more than {PDF_ROWS} systems the PDF leaves this "
                f"chart out ({PER_SYSTEM_FIGURES[figure.group(1)]}).")
        return block

    sections = tuple(replace(section, blocks=tuple(b for b in map(lighter, section.blocks) if b is not None))
                     for section in report.sections)
    return report if sections == report.sections else replace(report, sections=sections)


def _uniform_rows_left_out(table: Any) -> Any:
    """``table`` without the rows whose every cell gives :data:`UNIFORM_ROWS`' uniform answer, its caption saying
    how many and what they say (a paragraph when that is every row)."""
    from dataclasses import replace

    from auditor.report.model import Paragraph

    says, answer = UNIFORM_ROWS[table.id]
    kept = tuple(row for row in table.rows if not all(says(cell) for cell in row.cells))
    left = len(table.rows) - len(kept)
    if not left:
        return table
    where = "they are in report.html and audit.json"
    if not kept:
        return Paragraph(f"{table.caption} All {left} systems {answer}: in the PDF the table is left out ({where}).")
    return replace(table, rows=kept, caption=f"{table.caption} In the PDF, the {left} systems that {answer} are left "
                                             f"out: {where}.")


def render_pdf(html: str) -> bytes:
    """The PDF of the rendered HTML report (:func:`auditor.formats.html.render_html`)."""
    import logging

    from weasyprint import HTML

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return HTML(string=without_screen_reader_labels(merge_rect_cells(html)), base_url=None,
                url_fetcher=url_fetcher()).write_pdf()


def without_screen_reader_labels(html: str) -> str:
    """``html`` with the screen-reader attributes of its inline SVGs removed (:data:`_SCREEN_READER`), for the PDF
    only; outside an ``<svg>`` element nothing changes."""
    return re.sub(r"<svg\b.*?</svg>", lambda svg: _SCREEN_READER.sub("", svg.group(0)), html, flags=re.S)


#: The PDF renderer run in a child process (:func:`renderer_started`): weasyprint imported and one line laid out while
#: the audit runs, then the report's HTML read from stdin and its PDF written to stdout. It loads this module by its
#: path (its first argument), not the auditor package (0.3 s of CPU): at its top this module imports none of auditor.
_CHILD = ("import importlib.util, sys\nspec = importlib.util.spec_from_file_location('auditor_pdf', sys.argv[1])\n"
          "pdf = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(pdf)\n"
          "pdf.render_pdf('<p>auditor</p>')\nhtml = sys.stdin.buffer.read()\n"
          "if html:\n    sys.stdout.buffer.write(pdf.render_pdf(html.decode()))\n")
#: A renderer started ahead of its report by :func:`renderer_started`, waiting for its HTML.
_STARTED: list[subprocess.Popen] = []


def renderer_started() -> ContextManager[None]:
    """Start the PDF renderer now, in a child process that imports weasyprint (0.6 s of CPU) beside the audit, on
    another core; the next :func:`pdf_of` hands it the report's HTML. Stopped on leaving when no report used it."""
    return child_started([sys.executable, "-c", _CHILD, __file__], _STARTED)


def pdf_of(html: str) -> bytes:
    """:func:`render_pdf` of ``html``: in the renderer :func:`renderer_started` started when there is one (where it
    failed, here again, which raises the error itself), else here."""
    if not _STARTED:
        return render_pdf(html)
    child = _STARTED.pop()
    pdf, _ = child.communicate(html.encode())
    return pdf if child.returncode == 0 and pdf else render_pdf(html)
