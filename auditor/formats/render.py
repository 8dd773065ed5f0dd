"""Renderers (stage "render"): HTML, PDF, JSON, LaTeX and Markdown from the report model.

Every renderer reads only the :class:`~auditor.report.build.Report` (the JSON renderer writes
``audit.to_json()``, the document the model was built from). Numbers are formatted here,
by jinja filters, never in templates: scores ×100 with one decimal, shares as percentages
with one decimal, p-values with three decimals. HTML is autoescaped; the PDF renderer
fetches nothing but inline ``data:`` URLs (:class:`InlineDataFetcher`).
"""
from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterable, Mapping

import jinja2

from auditor.version import __version__
from auditor.errors import UsageError
from auditor.formatting import format_value
from auditor.formats.output import write_files
from auditor.progress import SILENT, Progress
from auditor.report.build import Cell, Report, build

FORMATS = ("html", "pdf", "json", "tex", "md")
FILE_NAMES = {"html": "report.html", "pdf": "report.pdf", "json": "audit.json", "tex": "tables.tex",
              "md": "summary.md"}


# --------------------------------------------------------------------------- formatting


def cell_text(cell: Cell) -> str:
    return format_value(cell.value, cell.kind)


def cell_interval(cell: Cell) -> str:
    """"[lo, hi]" for a cell with a confidence interval, else the empty string."""
    if cell.low is None or cell.high is None:
        return ""
    return f"[{format_value(cell.low, cell.kind)}, {format_value(cell.high, cell.kind)}]"


LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
    "−": "-", "—": "---", "′": "'", "κ": r"$\kappa$", "π": r"$\pi$", "τ": r"$\tau$", "×": r"$\times$",
    # symbols of the property table and the captions that pdflatex's UTF-8 input does not define
    "✓": r"$\surd$", "✗": r"$\times$", "ω": r"$\omega$", "Ω": r"$\Omega$", "α": r"$\alpha$",
    "≤": r"$\leq$", "≥": r"$\geq$", "≠": r"$\neq$", "Σ": r"$\Sigma$", "§": r"\S{}",
    # the agreement table's definitions (gold reliability)
    "²": r"\textsuperscript{2}",
}
#: A letter with a combining accent, as a LaTeX text accent: P̄ (Fleiss' observed agreement) -> ``\={P}``.
LATEX_ACCENTS = {"\u0304": "="}
_LATEX_TOKEN = re.compile("[A-Za-z][" + "".join(LATEX_ACCENTS) + "]|.", re.S)


def latex_escape(text: Any) -> str:
    """Text for LaTeX: every special character (``\\ & % $ # _ { } ~ ^ < >``) as a command,
    a letter with a combining macron as ``\\={P}``, control characters (a newline would end a
    table row, a blank line a paragraph) as a visible ``\\xHH``, lone surrogates as ``\\udXXX``."""
    return "".join(_latex_token(token) for token in _LATEX_TOKEN.findall(str(text)))


def _latex_token(token: str) -> str:
    if len(token) == 2:  # a letter and its combining accent
        return f"\\{LATEX_ACCENTS[token[1]]}{{{token[0]}}}"
    return LATEX_SPECIAL.get(token) or (_escaped_control(token) if _is_control(token) else token)


def latex_row_start(text: Any) -> str:
    """:func:`latex_escape` for the first cell of a table row. After ``\\\\`` or a booktabs
    rule, LaTeX reads a leading ``[`` as an optional argument (``[3cm]`` vanishes) and a
    leading ``*`` as the star form; an empty group ``{}`` in front stops both."""
    escaped = latex_escape(text)
    return "{}" + escaped if escaped[:1] in ("[", "*") else escaped


def _is_control(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF or 0x80 <= code < 0xA0


def _escaped_control(ch: str) -> str:
    code = ord(ch)
    return r"\textbackslash{}" + (f"x{code:02x}" if code < 0x100 else f"u{code:04x}")


#: Characters that mean something to Markdown (CommonMark + GFM tables and strikethrough)
#: wherever they stand; a backslash in front prints them as themselves.
MARKDOWN_SPECIAL = set("\\`*_[]<>|#~&!")


def markdown_escape(text: Any) -> str:
    """Text for a Markdown table cell or list item: every special character backslash-escaped
    (``|`` would split a cell, ``<script>`` would be raw HTML, ``[x](y)`` a link), a leading
    ``-``, ``+``, ``=`` or ``1.`` escaped (a list or heading marker), control characters and
    lone surrogates as a visible ``\\xHH`` / ``\\udXXX``, newlines as spaces."""
    out = []
    for ch in str(text):
        if ch in "\r\n\t":
            out.append(" ")
        elif ch in MARKDOWN_SPECIAL:
            out.append("\\" + ch)
        elif _is_control(ch):
            out.append("\\\\" + (f"x{ord(ch):02x}" if ord(ch) < 0x100 else f"u{ord(ch):04x}"))
        else:
            out.append(ch)
    escaped = "".join(out)
    stripped = escaped.lstrip(" ")
    if stripped[:1] in ("-", "+", "=") or (stripped[:1].isdigit() and stripped.lstrip("0123456789")[:1] in (".", ")")):
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


# ---------------------------------------------------------------------------- templates


@lru_cache(maxsize=None)
def environment(kind: str) -> jinja2.Environment:
    """Jinja environment loading from the ``auditor.templates`` package."""
    loader = jinja2.FunctionLoader(_load_template)
    if kind == "html":
        env = jinja2.Environment(loader=loader, autoescape=True, trim_blocks=True, lstrip_blocks=True,
                                 undefined=jinja2.StrictUndefined)
    elif kind == "tex":
        env = jinja2.Environment(loader=loader, autoescape=False, trim_blocks=True, lstrip_blocks=True,
                                 block_start_string="((*", block_end_string="*))", variable_start_string="(((",
                                 variable_end_string=")))", comment_start_string="((#", comment_end_string="#))",
                                 undefined=jinja2.StrictUndefined)
        env.finalize = lambda value: value
    else:
        env = jinja2.Environment(loader=loader, autoescape=False, trim_blocks=True, lstrip_blocks=True,
                                 undefined=jinja2.StrictUndefined)
    env.filters.update(num=cell_text, interval=cell_interval, tex=latex_escape, texrow=latex_row_start,
                       md=markdown_escape, mdcode=markdown_code)
    return env


def _load_template(name: str) -> str:
    return resources.files("auditor.templates").joinpath(name).read_text(encoding="utf-8")


def render_html(report: Report) -> str:
    css = _load_template("report.css")
    return printable(environment("html").get_template("report.html.j2").render(report=report, css=css,
                                                                               version=__version__))


#: Tables that go into ``tables.tex`` (ready to ``\input`` in a paper).
TEX_TABLES = ("table-metrics", "table-calibrated", "table-baselines", "table-chance", "table-class-f1",
              "table-ranks", "table-properties", "table-pbest", "table-scores", "table-agreement")
#: Sections and tables of ``summary.md``.
MD_SECTIONS = ("summary", "data", "gold-reliability", "baselines", "metrics", "scores", "recommendation")
MD_TABLES = ("summary-leaderboard", "table-metrics", "table-baselines", "table-agreement", "table-ceiling",
             "table-scores")


def render_tex(report: Report) -> str:
    return environment("tex").get_template("tables.tex.j2").render(report=report, version=__version__,
                                                                   tex_tables=TEX_TABLES)


def render_md(report: Report) -> str:
    return environment("md").get_template("summary.md.j2").render(report=report, version=__version__,
                                                                  md_sections=MD_SECTIONS, md_tables=MD_TABLES)


def render_json(document: Mapping[str, Any]) -> str:
    return printable(json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False)) + "\n"


def printable(text: str) -> str:
    """``text`` with each lone surrogate written as its escape ``\\udcff``: valid UTF-8 in every
    output, and in JSON the very escape that stands for it. Labels and system names with lone
    surrogates are refused before scoring (:func:`auditor.options.check_names`); this covers
    file paths given as undecodable bytes, which the report prints."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# ---------------------------------------------------------------------------------- PDF


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
    import logging

    from weasyprint import HTML

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return HTML(string=html, base_url=None, url_fetcher=url_fetcher()).write_pdf()


# ------------------------------------------------------------------------------- render


def parse_formats(text: str | Iterable[str] | None) -> tuple[str, ...]:
    items = [f.strip().lower() for f in (text.split(",") if isinstance(text, str) else text or FORMATS) if f.strip()]
    unknown = [f for f in items if f not in FORMATS]
    if unknown or not items:
        raise UsageError(f"--format: unknown format {', '.join(unknown) or '(none)'}; choose from {', '.join(FORMATS)}")
    return tuple(dict.fromkeys(items))


def render(audit: Any, outdir: str | os.PathLike, formats: str | Iterable[str] = FORMATS,
           progress: Progress = SILENT) -> list[Any]:
    """Write the chosen outputs of ``audit`` into ``outdir``, atomically (all or nothing).

    Returns the paths written. Raises :class:`~auditor.errors.OutputError` when ``outdir``
    cannot be written; then nothing is written.
    """
    chosen = parse_formats(formats)
    figures = "html" in chosen or "pdf" in chosen
    stages: list[tuple[str, Callable[[dict[str, Any]], None]]] = []
    state: dict[str, Any] = {}
    files: dict[str, str | bytes] = {}

    def model(_: dict[str, Any]) -> None:
        state["report"] = build(audit, figures=figures)

    stages.append(("report model and charts", model))
    if "json" in chosen:
        stages.append(("audit.json", lambda s: files.__setitem__(FILE_NAMES["json"], render_json(audit.to_json()))))
    if figures:
        stages.append(("report.html", lambda s: s.__setitem__("html", render_html(s["report"]))))
        if "html" in chosen:
            stages.append(("", lambda s: files.__setitem__(FILE_NAMES["html"], s["html"])))
        if "pdf" in chosen:
            stages.append(("report.pdf", lambda s: files.__setitem__(FILE_NAMES["pdf"], render_pdf(s["html"]))))
    if "tex" in chosen:
        stages.append(("tables.tex", lambda s: files.__setitem__(FILE_NAMES["tex"], render_tex(s["report"]))))
    if "md" in chosen:
        stages.append(("summary.md", lambda s: files.__setitem__(FILE_NAMES["md"], render_md(s["report"]))))
    with progress.task("rendering", total=len(stages)) as advance:
        for name, stage in stages:
            if name:
                advance(0, description=f"rendering {name}")
            stage(state)
            advance(1)
    ordered = {FILE_NAMES[f]: files[FILE_NAMES[f]] for f in chosen}
    return write_files(outdir, ordered)
