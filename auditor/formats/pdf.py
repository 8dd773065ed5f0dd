"""``report.pdf``: the HTML report typeset by weasyprint, which fetches nothing but inline
``data:`` URLs (:class:`InlineDataFetcher`)."""
from __future__ import annotations

import re
from typing import Any

#: One cell of a Vega rect mark as vl-convert writes it: a filled path with its screen-reader label.
_RECT_CELL = re.compile(r'<path aria-label="[^"]*" role="graphics-symbol" aria-roledescription="rect mark" '
                        r'd="(M[^"]*Z)" fill="([^"]*)"/>')
#: A rect mark group holding nothing but such cells (a heat map's cells, a bar chart's bars).
_RECT_GROUP = re.compile(r'(<g class="mark-rect role-mark[^"]*"[^>]*>)((?:' + _RECT_CELL.pattern.replace("(", "(?:")
                         + r')+)(</g>)')


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


def render_pdf(html: str) -> bytes:
    """The PDF of the rendered HTML report (:func:`auditor.formats.html.render_html`)."""
    import logging

    from weasyprint import HTML

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return HTML(string=merge_rect_cells(html), base_url=None, url_fetcher=url_fetcher()).write_pdf()
