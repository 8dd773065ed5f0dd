"""``report.pdf``: the HTML report typeset by weasyprint, which fetches nothing but inline
``data:`` URLs (:class:`InlineDataFetcher`)."""
from __future__ import annotations

from typing import Any


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


def render_pdf(html: str) -> bytes:
    """The PDF of the rendered HTML report (:func:`auditor.formats.html.render_html`)."""
    import logging

    from weasyprint import HTML

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return HTML(string=html, base_url=None, url_fetcher=url_fetcher()).write_pdf()
