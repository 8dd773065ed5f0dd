"""Benchmark: the full report for the 23 SemEval-2018 Task 12 submissions, time per output format (the shared
data's ``semeval2018-task12``; skipped where it is absent).

Run: ``python benchmarks/bench_report.py``. Target: every format together (model and charts
included, audit excluded) in under 10 s. Prints one line per stage.
"""
from __future__ import annotations

import importlib
import sys
import tempfile
import time

from shared_data import folder

import auditor

report = importlib.import_module("auditor.report.build")
html_format = importlib.import_module("auditor.formats.html")
pdf_format = importlib.import_module("auditor.formats.pdf")
latex_format = importlib.import_module("auditor.formats.latex")
markdown_format = importlib.import_module("auditor.formats.markdown")
json_format = importlib.import_module("auditor.formats.json")


def timed(label: str, function, *args):
    start = time.perf_counter()
    value = function(*args)
    elapsed = time.perf_counter() - start
    print(f"{label:<28} {elapsed:7.2f} s", flush=True)
    return value, elapsed


def main() -> int:
    from auditor.io.semeval import semeval_names

    root = folder("semeval2018-task12")
    if root is None:
        return 0

    names = semeval_names(root / "submissions")
    systems = {names.get(path.stem, path.stem): str(path) for path in sorted((root / "submissions").glob("*.txt"))}
    result, audit_time = timed(f"audit ({len(systems)} systems)", auditor.audit, str(root / "gold" / "truth.txt"), systems)
    model, model_time = timed("report model + charts", report.build, result)
    _, json_time = timed("json", lambda: json_format.render_json(result.to_json()))
    html, html_time = timed("html", html_format.render_html, model)
    _, pdf_time = timed("pdf (weasyprint on the html)", pdf_format.render_pdf, html)
    _, tex_time = timed("tex", latex_format.render_tex, model)
    _, md_time = timed("md", markdown_format.render_md, model)
    total = model_time + json_time + html_time + pdf_time + tex_time + md_time
    print(f"{'all formats (no audit)':<28} {total:7.2f} s   target < 10 s")
    with tempfile.TemporaryDirectory() as outdir:
        _, end_to_end = timed("auditor.render(), all files", auditor.render, result, outdir)
    print(f"{'audit + render, end to end':<28} {audit_time + end_to_end:7.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
