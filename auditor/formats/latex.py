"""``tables.tex``: the report's tables ready to ``\\input`` in a paper, through ``tables.tex.j2``.

Every string goes through :func:`latex_escape` (filter ``tex``), which also maps the symbols
of the property table and captions that pdflatex's UTF-8 input does not define
(:data:`LATEX_SPECIAL`); the template's delimiters are ``((( )))`` and ``((* *))`` so that
LaTeX braces need no escaping.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import jinja2

from auditor.formats.html import MATH_PATTERN
from auditor.formats.templating import environment
from auditor.formats.text import is_control
from auditor.formatting import typographic_minus
from auditor.report.model import Report
from auditor.version import __version__

#: Characters LaTeX reads as commands, and symbols pdflatex's UTF-8 input does not define.
LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
    "−": r"$-$", "—": "---", "≈": r"$\approx$", "′": "'", "κ": r"$\kappa$", "π": r"$\pi$", "τ": r"$\tau$",
    "×": r"$\times$",
    # symbols of the property table and the captions that pdflatex's UTF-8 input does not define
    "✓": r"$\surd$", "✗": r"$\times$", "ω": r"$\omega$", "Ω": r"$\Omega$", "α": r"$\alpha$",
    "≤": r"$\leq$", "≥": r"$\geq$", "≠": r"$\neq$", "Σ": r"$\Sigma$", "§": r"\S{}",
    # the agreement table's definitions (gold reliability), the ledger's formulas
    "²": r"\textsuperscript{2}", "ᵀ": r"\textsuperscript{T}", "√": r"$\surd$", "∑": r"$\sum$", "Π": r"$\Pi$",
    "ρ": r"$\rho$", "β": r"$\beta$", "…": r"\ldots{}", "‰": r"\textperthousand{}", "→": r"$\rightarrow$",
    "·": r"$\cdot$", "∞": r"$\infty$", "±": r"$\pm$",
}
#: Characters pdflatex's default UTF-8 input reads (ASCII, Latin-1, Latin Extended-A, common
#: punctuation); any other character is written as its code point, so the file always compiles.
LATEX_READS = frozenset(chr(c) for c in range(0x20, 0x17F)) | set("“”‘’–—€•")
#: A letter with a combining accent, as a LaTeX text accent: P̄ (Fleiss' observed agreement) -> ``\={P}``.
LATEX_ACCENTS = {"\u0304": "="}
_LATEX_TOKEN = re.compile("[A-Za-z][" + "".join(LATEX_ACCENTS) + "]|.", re.S)



def latex_escape(text: Any) -> str:
    """Text for LaTeX: every special character (``\\ & % $ # _ { } ~ ^ < >``) as a command,
    a letter with a combining macron as ``\\={P}``, control characters (a newline would end a
    table row, a blank line a paragraph) as a visible ``\\xHH``, lone surrogates as ``\\udXXX``."""
    parts = MATH_PATTERN.split(typographic_minus(str(text)))  # odd positions: the report's math tokens
    return "".join(latex_math(part) if index % 2 else "".join(_latex_token(t) for t in _LATEX_TOKEN.findall(part))
                   for index, part in enumerate(parts))


#: Bases of the report's math tokens written upright or as a command in TeX.
_TEX_BASES = {"Σ": r"\Sigma", "π": r"\pi", "F1": r"\mathrm{F1}", "FPR": r"\mathrm{FPR}", "MAE": r"\mathrm{MAE}",
              "MSE": r"\mathrm{MSE}", "κ": r"\kappa", "τ": r"\tau"}


def latex_math(token: str) -> str:
    r"""One of the report's math tokens (:data:`~auditor.formats.html.MATH_TOKENS`) as TeX math:
    "p_i" -> ``$p_i$``, "Σ_{c≠d}" -> ``$\Sigma_{c \neq d}$``, "o_cd" -> ``$o_{cd}$``."""
    base, _, sub = token.partition("_")
    sub = sub.strip("{}").replace("≠", r" \neq ").replace("β", r"\beta ")
    return f"${_TEX_BASES.get(base, base)}_{{{sub}}}$" if len(sub) > 1 else f"${_TEX_BASES.get(base, base)}_{sub}$"


def _latex_token(token: str) -> str:
    if len(token) == 2:  # a letter and its combining accent
        return f"\\{LATEX_ACCENTS[token[1]]}{{{token[0]}}}"
    if token in LATEX_SPECIAL:
        return LATEX_SPECIAL[token]
    if is_control(token):
        return _escaped_control(token)
    return token if token in LATEX_READS else f"\\texttt{{U+{ord(token):04X}}}"


def latex_row_start(text: Any) -> str:
    """:func:`latex_escape` for the first cell of a table row. After ``\\\\`` or a booktabs
    rule, LaTeX reads a leading ``[`` as an optional argument (``[3cm]`` vanishes) and a
    leading ``*`` as the star form; an empty group ``{}`` in front stops both."""
    escaped = latex_escape(text)
    return "{}" + escaped if escaped[:1] in ("[", "*") else escaped


def _escaped_control(ch: str) -> str:
    code = ord(ch)
    return r"\textbackslash{}" + (f"x{code:02x}" if code < 0x100 else f"u{code:04x}")


@lru_cache(maxsize=None)
def latex_environment() -> jinja2.Environment:
    """The shared environment with LaTeX-safe delimiters and the ``tex`` / ``texrow`` filters."""
    env = environment(autoescape=False, block_start_string="((*", block_end_string="*))",
                      variable_start_string="(((", variable_end_string=")))", comment_start_string="((#",
                      comment_end_string="#))")
    env.finalize = lambda value: value
    env.filters.update(tex=latex_escape, texrow=latex_row_start)
    return env


def render_tex(report: Report) -> str:
    """The tables marked ``for_paper`` (:class:`~auditor.report.model.Table`), each a ``table``
    environment that compiles on its own with booktabs and graphicx."""
    return latex_environment().get_template("tables.tex.j2").render(report=report, version=__version__)
