"""The jinja environment shared by the HTML, LaTeX and Markdown renderers, and its number filters.

Numbers are formatted here, by jinja filters, never in templates (:func:`auditor.formatting.format_value`:
scores ×100 with one decimal, shares as percentages with one decimal, p-values with three
decimals). Templates are loaded from the ``auditor.templates`` package; each format adds its
own escaping filters (:mod:`~auditor.formats.html`, :mod:`~auditor.formats.latex`,
:mod:`~auditor.formats.markdown`).
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from auditor.formatting import APPROXIMATE, format_value, typographic_minus
from auditor.report.model import Cell


def cell_text(cell: Cell) -> str:
    """A cell's value as every output shows it (filter ``num``): the minus sign U+2212 (the LaTeX
    escape turns it into TeX's own), "≈" before an approximate value."""
    text = typographic_minus(format_value(cell.value, cell.kind))
    return APPROXIMATE + text if cell.approximate and cell.value is not None else text


def cell_interval(cell: Cell) -> str:
    """"[lo, hi]" for a cell with a confidence interval, else the empty string (filter ``interval``)."""
    if cell.low is None or cell.high is None:
        return ""
    return typographic_minus(f"[{format_value(cell.low, cell.kind)}, {format_value(cell.high, cell.kind)}]")


def _template_dir() -> Any:
    """The templates that belong to this copy of the code: ``auditor/templates`` once installed,
    ``templates/`` beside the package in a source tree (Python run from a checkout, where another
    installed copy's ``auditor.templates`` may be importable), else the ``auditor.templates`` package."""
    package = Path(__file__).resolve().parent.parent
    for folder in (package / "templates", package.parent / "templates"):
        if (folder / "report.html.j2").is_file():
            return folder
    return resources.files("auditor.templates")


def load_template(name: str) -> str:
    """A file of this copy's templates (:func:`_template_dir`)."""
    return _template_dir().joinpath(name).read_text(encoding="utf-8")


def environment(**options: Any) -> jinja2.Environment:
    """A strict jinja environment over the ``auditor.templates`` package with the filters
    ``num`` and ``interval``; ``options`` (autoescape, delimiters) are the format's own."""
    env = jinja2.Environment(loader=jinja2.FunctionLoader(load_template), trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined, **options)
    env.filters.update(num=cell_text, interval=cell_interval)
    return env
