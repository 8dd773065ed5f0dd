"""``report.html``: the report model through ``report.html.j2``, autoescaped, styles inline."""
from __future__ import annotations

from functools import lru_cache

import jinja2
import markupsafe

from auditor.formats.templating import environment, load_template
from auditor.formatting import typographic_minus
from auditor.formats.text import printable
from auditor.report.model import Report
from auditor.version import __version__


@lru_cache(maxsize=None)
def html_environment() -> jinja2.Environment:
    """The shared environment with HTML autoescaping (every string is escaped unless marked safe);
    every plain string printed gets the minus sign U+2212 before a number (SVG, marked safe, is left as is)."""
    env = environment(autoescape=True)
    env.finalize = lambda value: value if isinstance(value, markupsafe.Markup) or not isinstance(value, str) \
        else typographic_minus(value)
    return env


def render_html(report: Report) -> str:
    css = load_template("report.css")
    return printable(html_environment().get_template("report.html.j2").render(report=report, css=css,
                                                                               version=__version__))
