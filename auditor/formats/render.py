"""Render an audit in the chosen formats and write the files atomically (all or nothing).

One module per format: :mod:`~auditor.formats.html`, :mod:`~auditor.formats.pdf`,
:mod:`~auditor.formats.latex`, :mod:`~auditor.formats.markdown`, :mod:`~auditor.formats.json`.
Every renderer but JSON reads only the report model (:func:`auditor.report.build.build`); the
JSON renderer writes ``audit.to_json()``; both come from the same typed audit.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Iterable, Mapping

from auditor.errors import UsageError
from auditor.formats.html import render_html
from auditor.formats.json import render_json
from auditor.formats.latex import render_tex
from auditor.formats.markdown import render_md
from auditor.formats.output import write_files
from auditor.formats.pdf import pdf_of, printed
from auditor.progress import SILENT, Progress
from auditor.report.build import build
from auditor.report.charts import batched

FORMATS = ("html", "pdf", "json", "tex", "md")
FILE_NAMES = {"html": "report.html", "pdf": "report.pdf", "json": "audit.json", "tex": "tables.tex",
              "md": "summary.md"}


def parse_formats(text: str | Iterable[str] | None, file_names: Mapping[str, str] = FILE_NAMES) -> tuple[str, ...]:
    """``"html,pdf"`` (or a list) -> the chosen formats, in order, once each; all of ``file_names``'
    formats when None."""
    formats = tuple(file_names)
    items = [f.strip().lower() for f in (text.split(",") if isinstance(text, str) else text or formats) if f.strip()]
    unknown = [f for f in items if f not in formats]
    if unknown or not items:
        raise UsageError(f"--format: unknown format {', '.join(unknown) or '(none)'}; choose from {', '.join(formats)}")
    return tuple(dict.fromkeys(items))


def _systems(audit: Any) -> int:
    """How many systems ``audit`` compares (0 when it does not say)."""
    systems = getattr(audit, "systems", ())
    return len(systems) if hasattr(systems, "__len__") else 0


def document(audit: Any, about_data: str = "") -> dict[str, Any]:
    """``audit.to_json()``, with ``about_data`` (the note on what the data is) when one is given."""
    result = audit.to_json()
    if about_data:
        result["about_data"] = about_data
    return result


def render(audit: Any, outdir: str | os.PathLike, formats: str | Iterable[str] = FORMATS,
           progress: Progress = SILENT, file_names: Mapping[str, str] = FILE_NAMES, about_data: str = "") -> list[Any]:
    """Write the chosen outputs of ``audit`` into ``outdir``, atomically (all or nothing);
    ``file_names``: format -> file name (the planner writes plan.html, plan.pdf, plan.json);
    ``about_data``: a note on what the data is (e.g. simulated, and how), said on page 1 of every task's report
    (:attr:`Report.about_data`) and as ``about_data`` in the JSON.

    Returns the paths written. Raises :class:`~auditor.errors.OutputError` when ``outdir``
    cannot be written; then nothing is written.
    """
    chosen = parse_formats(formats, file_names)
    figures = "html" in chosen or "pdf" in chosen
    stages: list[tuple[str, Callable[[dict[str, Any]], None]]] = []
    state: dict[str, Any] = {}
    files: dict[str, str | bytes] = {}

    def model(_: dict[str, Any]) -> None:
        # another task kind (auditor.tasks) builds its own report model
        build_model = getattr(audit, "report_model", None)
        report = batched(lambda: build_model(figures)) if build_model else build(audit, figures=figures)
        state["report"] = dataclasses.replace(report, about_data=about_data) if about_data else report

    stages.append(("report model and charts", model))
    if "json" in chosen:
        stages.append(("audit.json",
                       lambda s: files.__setitem__(file_names["json"], render_json(document(audit, about_data)))))
    if figures:
        stages.append(("report.html", lambda s: s.__setitem__("html", render_html(s["report"]))))
        if "html" in chosen:
            stages.append(("", lambda s: files.__setitem__(file_names["html"], s["html"])))
        if "pdf" in chosen:  # a lighter model when the report is large (auditor.formats.pdf.printed)
            stages.append(("report.pdf", lambda s: files.__setitem__(file_names["pdf"], pdf_of(
                s["html"] if (pdf := printed(s["report"], _systems(audit))) is s["report"] else render_html(pdf)))))
    if "tex" in chosen:
        stages.append(("tables.tex", lambda s: files.__setitem__(file_names["tex"], render_tex(s["report"]))))
    if "md" in chosen:
        stages.append(("summary.md", lambda s: files.__setitem__(file_names["md"], render_md(s["report"]))))
    with progress.task("rendering", total=len(stages)) as advance:
        for name, stage in stages:
            if name:
                advance(0, description=f"rendering {name}")
            stage(state)
            advance(1)
    ordered = {file_names[f]: files[file_names[f]] for f in chosen}
    return write_files(outdir, ordered)
