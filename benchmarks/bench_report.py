"""Benchmark: the full report for the 23 SemEval-2018 Task 12 submissions, time per output format (the shared
data's ``semeval2018-task12``; skipped where it is absent).

Run: ``python benchmarks/bench_report.py``. Target: every format together (model and charts
included, audit excluded) in under 10 s. Prints one line per stage.
"""
from __future__ import annotations

import importlib
import sys
import tempfile

import timing
from shared_data import folder
from timing import Timing

import auditor

report = importlib.import_module("auditor.report.build")
html_format = importlib.import_module("auditor.formats.html")
pdf_format = importlib.import_module("auditor.formats.pdf")
latex_format = importlib.import_module("auditor.formats.latex")
markdown_format = importlib.import_module("auditor.formats.markdown")
json_format = importlib.import_module("auditor.formats.json")


def timed(label: str, function, *args) -> Timing:
    """Time one stage (:func:`timing.call`) and print it."""
    stage = timing.call(function, *args)
    print(f"{label:<28} {stage}", flush=True)
    return stage


def main() -> int:
    from auditor.io.semeval import semeval_names

    root = folder("semeval2018-task12")
    if root is None:
        return 0

    names = semeval_names(root / "submissions")
    systems = {names.get(path.stem, path.stem): str(path) for path in sorted((root / "submissions").glob("*.txt"))}
    print(timing.load())
    audit = timed(f"audit ({len(systems)} systems)", auditor.audit, str(root / "gold" / "truth.txt"), systems)
    result = audit.value
    model = timed("report model + charts", report.build, result)
    html = timed("html", html_format.render_html, model.value)
    stages = [model, timed("json", lambda: json_format.render_json(result.to_json())), html,
              timed("pdf (weasyprint on the html)", pdf_format.render_pdf, html.value),
              timed("tex", latex_format.render_tex, model.value), timed("md", markdown_format.render_md, model.value)]
    print(f"{'all formats (no audit)':<28} {sum(s.wall for s in stages):8.3f} s wall "
          f"{sum(s.cpu for s in stages):8.3f} s CPU   target < 10 s")
    with tempfile.TemporaryDirectory() as outdir:
        end_to_end = timed("auditor.render(), all files", auditor.render, result, outdir)
    print(f"{'audit + render, end to end':<28} {audit.wall + end_to_end.wall:8.3f} s wall "
          f"{audit.cpu + end_to_end.cpu:8.3f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
