"""``report.html``: the report model through ``report.html.j2``, autoescaped, styles inline."""
from __future__ import annotations

from functools import lru_cache

import jinja2

from auditor.formats.templating import environment, load_template
from auditor.formats.text import printable
from auditor.report.model import Report
from auditor.version import __version__


@lru_cache(maxsize=None)
def html_environment() -> jinja2.Environment:
    """The shared environment with HTML autoescaping (every string is escaped unless marked safe)."""
    return environment(autoescape=True)


def render_html(report: Report) -> str:
    css = load_template("report.css")
    return printable(html_environment().get_template("report.html.j2").render(report=report, css=css,
                                                                               version=__version__))
