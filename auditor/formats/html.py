"""``report.html``: the report model through ``report.html.j2``, autoescaped, styles inline."""
from __future__ import annotations

import re
from functools import lru_cache

import jinja2
import markupsafe

from auditor.formats.templating import environment, load_template
from auditor.formats.text import printable
from auditor.formatting import typographic_minus
from auditor.report.model import Report
from auditor.version import __version__


@lru_cache(maxsize=None)
def html_environment() -> jinja2.Environment:
    """The shared environment with HTML autoescaping (every string is escaped unless marked safe);
    every plain string printed gets the minus sign U+2212 before a number (SVG, marked safe, is left as is)."""
    env = environment(autoescape=True)
    env.finalize = lambda value: value if isinstance(value, markupsafe.Markup) or not isinstance(value, str) \
        else math_html(typographic_minus(value))
    # an attribute value (a tooltip) is plain text: escaped, never math markup
    env.filters["plain"] = lambda value: markupsafe.Markup(markupsafe.escape(typographic_minus(str(value))))
    return env


#: The report's plain-text math, written with "_" for a subscript: only these tokens are set as
#: math (a user's label "x_y" stays as it is).
MATH_TOKENS = ("p_i", "p_j", "b_j", "b_i", "q_i", "q_j", "q_c", "p_c", "p_o", "p_e", "P_e", "R_K", "R_i", "P_i", "F1_i",
               "FPR_i", "C_ii", "C_ij", "o_cd", "n_c", "n_d", "Σ_{c≠d}", "Σ_c", "Σ_i", "Σ_j", "P_j", "b_c", "π_c",
               "P_c", "R_c", "F_β;c", "m_t", "p_t", "g_t",  # the translation and tagging reports
               "MAE_M", "MSE_M", "κ_lin", "κ_quad", "τ_b")  # the ordinal report
#: Those tokens in text (one group: ``split`` puts them at odd positions); the TeX and Markdown
#: renderers set the same tokens as math.
MATH_PATTERN = re.compile(r"(?<![\w.])(" + "|".join(re.escape(t) for t in sorted(MATH_TOKENS, key=len, reverse=True))
                   + r")(?![A-Za-z0-9_])")  # "p_c²" is p_c squared


def math_html(text: str) -> markupsafe.Markup:
    """``text`` escaped, with the report's math tokens (:data:`MATH_TOKENS`) set in italics with a
    real subscript: "p_i" -> <i>p</i><sub><i>i</i></sub>, "Σ_{c≠d}" -> Σ<sub>c≠d</sub>."""
    def math(match: re.Match) -> str:
        base, _, sub = match.group(1).partition("_")
        sub = sub.strip("{}")
        base_html = base if base in ("Σ", "F1", "FPR", "MAE", "MSE") else f"<i>{base}</i>"
        return f"{base_html}<sub><i>{sub}</i></sub>"

    return markupsafe.Markup(MATH_PATTERN.sub(math, str(markupsafe.escape(text))))


def render_html(report: Report) -> str:
    css = load_template("report.css")
    return printable(html_environment().get_template("report.html.j2").render(report=report, css=css,
                                                                               version=__version__))
