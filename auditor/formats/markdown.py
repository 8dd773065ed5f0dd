"""``summary.md``: the summary, data, baselines, metrics and recommendation as Markdown
(CommonMark + GFM tables) through ``summary.md.j2``; every string escaped (filter ``md``).

The report's math tokens (``p_i``, ``R_K``, ``Σ_{c≠d} o_cd``: :data:`~auditor.formats.html.MATH_TOKENS`)
are written as ``$p_i$``, the inline math GitHub and GitLab render (and markdown-it's dollarmath
plugin parses); Unicode has no subscript K, c or d, so subscript characters could not write them
all, and a CommonMark reader without math still reads ``$R_K$`` as it is meant. A ``$`` in any
other text is escaped, so a label never opens math.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from auditor.formats.html import MATH_PATTERN
from auditor.formats.latex import latex_math
from auditor.formats.templating import environment
from auditor.formats.text import is_control
from auditor.formatting import typographic_minus
from auditor.report.model import Report
from auditor.version import __version__

#: Characters that mean something to Markdown (CommonMark + GFM tables and strikethrough)
#: wherever they stand; a backslash in front prints them as themselves.
MARKDOWN_SPECIAL = set("\\`*_[]<>|#~&!$")



def markdown_escape(text: Any) -> str:
    """:func:`markdown_text` with the report's math tokens as ``$…$`` inline math (module docstring)."""
    parts = MATH_PATTERN.split(str(text))
    return "".join(latex_math(part) if index % 2 else markdown_text(part, leading=index == 0)
                   for index, part in enumerate(parts))


def markdown_text(text: Any, leading: bool = True) -> str:
    """Text for a Markdown table cell or list item: every special character backslash-escaped
    (``|`` would split a cell, ``<script>`` would be raw HTML, ``[x](y)`` a link), a leading
    ``-``, ``+``, ``=`` or ``1.`` escaped (a list or heading marker), control characters and
    lone surrogates as a visible ``\\xHH`` / ``\\udXXX``, newlines as spaces (``leading``: ``text``
    starts the cell or item)."""
    out = []
    for ch in str(text):
        if ch in "\r\n\t":
            out.append(" ")
        elif ch in MARKDOWN_SPECIAL:
            out.append("\\" + ch)
        elif is_control(ch):
            out.append("\\\\" + (f"x{ord(ch):02x}" if ord(ch) < 0x100 else f"u{ord(ch):04x}"))
        else:
            out.append(ch)
    escaped = "".join(out)
    stripped = escaped.lstrip(" ")
    numbered = stripped[:1].isdigit() and stripped.lstrip("0123456789")[:1] in (".", ")")
    marker = stripped[:1] in ("-", "+", "=") or numbered
    if leading and marker:
        head = len(escaped) - len(stripped)
        position = head if not stripped[:1].isdigit() else head + len(stripped) - len(stripped.lstrip("0123456789"))
        escaped = escaped[:position] + "\\" + escaped[position:]
    return escaped


def markdown_code(text: Any) -> str:
    """``text`` as Markdown inline code, fenced with more backticks than it holds."""
    text = " ".join(str(text).splitlines())
    run, longest = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


@lru_cache(maxsize=None)
def markdown_environment() -> jinja2.Environment:
    """The shared environment, unescaped, with the ``md`` / ``mdcode`` filters."""
    env = environment(autoescape=False)
    env.filters.update(md=markdown_escape, mdcode=markdown_code)
    # the minus sign U+2212 before a number, except in code spans (LaTeX formulas keep their "-")
    env.finalize = lambda value: typographic_minus(value) if isinstance(value, str) and "`" not in value else value
    return env


def render_md(report: Report) -> str:
    """The sections marked ``for_summary`` (:class:`~auditor.report.model.Section`) with their facts,
    bullets, definitions and the tables marked ``for_summary``, as CommonMark + GFM tables."""
    return markdown_environment().get_template("summary.md.j2").render(report=report, version=__version__)
