"""The PDF draws each rect mark's cells as one path per fill colour (auditor.formats.pdf.merge_rect_cells):
the same rectangles and colours, the same pixels; anything else in the SVG is left as it is."""
from __future__ import annotations

import re

import pytest

from auditor.formats.pdf import merge_rect_cells, render_pdf
from auditor.report.charts import confusion_grid

LABELS = ["a", "b", "c"]
MATRICES = {"s1": [[5, 1, 0], [0, 4, 2], [1, 0, 6]], "s2": [[3, 3, 0], [1, 4, 1], [0, 0, 7]]}
CELL = re.compile(r'<path aria-label="[^"]*" role="graphics-symbol" aria-roledescription="rect mark" '
                  r'd="([^"]*)" fill="([^"]*)"/>')


def _outlines(svg: str) -> set[tuple[str, str]]:
    """(rectangle, fill) of every cell, a merged path counting once per subpath."""
    cells = {(d, fill) for d, fill in CELL.findall(svg)}
    for d, fill in re.findall(r'<path d="([^"]*)" fill="([^"]*)"/>', svg):
        cells |= {(outline, fill) for outline in d.split(" ")}
    return cells


@pytest.fixture(scope="module")
def heatmap() -> str:
    return f"<html><body><figure>{confusion_grid(LABELS, MATRICES)}</figure></body></html>"


def test_cells_become_one_path_per_fill_with_the_same_rectangles(heatmap):
    merged = merge_rect_cells(heatmap)
    assert len(CELL.findall(heatmap)) == 18 and not CELL.findall(merged)
    groups = re.findall(r'<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)</g>', heatmap, re.S)
    fills = sum(len({fill for _, fill in CELL.findall(group)}) for group in groups)  # one path per fill, per facet
    assert len(groups) == 2 and len(re.findall(r'<path d="[^"]*" fill="[^"]*"/>', merged)) == fills < 18
    assert _outlines(merged) == _outlines(heatmap)
    # the rest of the chart (axes, texts, labels) is untouched
    strip = re.compile(r'<g class="mark-rect role-mark[^"]*"[^>]*>.*?</g>', re.S)
    assert strip.sub("", merged) == strip.sub("", heatmap)


def test_groups_with_other_cells_are_left_alone():
    stroked = ('<g class="mark-rect role-mark x" role="graphics-object"><path aria-label="a" role="graphics-symbol" '
               'aria-roledescription="rect mark" d="M0,0h1v1h-1Z" fill="red" stroke="#bbbbbb"/></g>')
    assert merge_rect_cells(stroked) == stroked


def test_merged_cells_draw_the_same_pixels(heatmap):
    pdfium = pytest.importorskip("pypdfium2")
    from weasyprint import HTML

    from auditor.formats.pdf import url_fetcher

    def pixels(pdf: bytes):
        page = pdfium.PdfDocument(pdf)[0]
        return page.render(scale=2).to_pil().convert("RGB").tobytes()

    plain = HTML(string=heatmap, base_url=None, url_fetcher=url_fetcher()).write_pdf()
    merged, plain_pixels = pixels(render_pdf(heatmap)), pixels(plain)
    differing = sum(a != b for a, b in zip(merged, plain_pixels))
    assert differing <= 0.002 * len(merged)  # anti-aliasing where two cells meet, nothing more


def test_the_pdf_copy_drops_the_svg_screen_reader_labels_only(heatmap):
    from auditor.formats.pdf import without_screen_reader_labels

    page = f'<p role="note">a figure:</p>{heatmap}'
    lean = without_screen_reader_labels(page)
    assert 'aria-label="' in page and "aria-" not in lean and ' role="graphics' not in lean
    assert lean.startswith('<p role="note">a figure:</p>')  # outside an <svg>, nothing changes
    assert re.sub(r' (aria-[a-z]+|role)="[^"]*"', "", page.split("</p>", 1)[1]) == lean.split("</p>", 1)[1]
