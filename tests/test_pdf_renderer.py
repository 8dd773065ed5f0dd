"""The PDF renderer started beside the audit (auditor.formats.pdf.renderer_started): it writes the same PDF as
rendering in process, and a renderer no report used is stopped."""
from __future__ import annotations

import pytest

from auditor.formats import pdf

HTML = "<html><body><h1>Audit</h1><p>one page</p></body></html>"


def test_the_renderer_started_beside_the_audit_writes_the_pdf_and_an_unused_one_stops():
    pdfium = pytest.importorskip("pypdfium2")
    with pdf.renderer_started():
        assert len(pdf._STARTED) == 1
        written = pdf.pdf_of(HTML)
        assert not pdf._STARTED  # handed its HTML: used once
    here = pdf.render_pdf(HTML)
    assert written.startswith(b"%PDF") and len(pdfium.PdfDocument(written)) == len(pdfium.PdfDocument(here)) == 1
    assert pdfium.PdfDocument(written)[0].get_textpage().get_text_range() == \
        pdfium.PdfDocument(here)[0].get_textpage().get_text_range()
    with pdf.renderer_started():
        child = pdf._STARTED[0]
    assert child.poll() is not None and not pdf._STARTED
