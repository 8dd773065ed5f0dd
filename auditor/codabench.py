"""A scoring program as CodaLab and Codabench call it: ``auditor codabench INPUT OUTPUT``.

The platform runs the competition's scoring program with an input folder holding ``ref/`` (the organisers' reference
data: here one gold label file) and ``res/`` (what the participant submitted: one prediction file), and an output
folder it reads back: ``scores.json`` and ``scores.txt`` (``metric: value`` lines; the leaderboard's columns are
chosen among their keys in the competition's settings) and ``detailed_results.html``, the page the platform shows
as a submission's detailed results. Here the scores are fractions (not ×100) of every metric of the terminal table,
undefined ones left out of ``scores.txt`` and null in ``scores.json``; the page is the audit's HTML report of the
submission, self-contained (styles inline, charts and formulas inline SVG, no scripts, fonts or links to fetch).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from auditor.errors import InputError
from auditor.metrics.selections import TERMINAL_COLUMNS

#: Files a platform puts beside a submission that are not predictions.
PLATFORM_FILES = {"metadata", "metadata.yaml", "metadata.json"}


def data_file(folder: Path, role: str, prefer: str | None = None) -> Path:
    """The one label file in ``folder`` (hidden files and the platform's metadata ignored); with several, the one
    named ``prefer`` (the reference file's name), else refused listing them."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder; a scoring program's input holds ref/ (gold) and res/ "
                         "(the submission)")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                   and p.name not in PLATFORM_FILES)
    if prefer is not None and any(p.name == prefer for p in files):
        return folder / prefer
    if len(files) != 1:
        found = ", ".join(p.name for p in files) or "nothing"
        raise InputError(f"{folder}: expected one {role} file, found {found}")
    return files[0]


def scores(result: Any) -> dict[str, float | None]:
    """Metric id -> the submission's value as a fraction (None where undefined), for every terminal-table metric."""
    system = next(iter(result.systems.values()))
    return {metric: system.metrics[metric].value for metric in TERMINAL_COLUMNS if metric in system.metrics}


def score_submission(input_dir: str, output_dir: str, name: str = "submission", bootstrap: int = 1000,
                     seed: int = 12345) -> dict[str, float | None]:
    """Audit ``INPUT/res``'s predictions against ``INPUT/ref``'s gold; write scores.json, scores.txt and
    detailed_results.html into ``OUTPUT``; return the scores."""
    from auditor.formats.html import render_html
    from auditor.formats.output import write_file
    from auditor.pipeline import audit
    from auditor.report.build import build

    root = Path(input_dir)
    gold = data_file(root / "ref", "gold (reference)")
    submission = data_file(root / "res", "submission", prefer=gold.name)
    result = audit(str(gold), {name: str(submission)}, bootstrap=bootstrap, seed=seed)
    values = scores(result)
    html = render_html(build(result, figures=True))
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_file(out / "scores.json", json.dumps(values, indent=2) + "\n")
    write_file(out / "scores.txt", "".join(f"{metric}: {value:.6f}\n" for metric, value in values.items()
                                           if value is not None and math.isfinite(value)))
    write_file(out / "detailed_results.html", html)
    return values


@click.command("codabench")
@click.argument("input_dir", metavar="INPUT")
@click.argument("output_dir", metavar="OUTPUT")
@click.option("--name", default="submission", show_default=True, help="The submission's name in the page.")
@click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Bootstrap resamples of the page's intervals; 0 turns them off.")
@click.option("--seed", type=int, default=12345, show_default=True, help="Seed of every random draw.")
def codabench_command(input_dir: str, output_dir: str, name: str, bootstrap: int, seed: int) -> None:
    """A CodaLab/Codabench scoring program: gold from INPUT/ref, the submission from INPUT/res; writes
    OUTPUT/scores.json, OUTPUT/scores.txt (metric: value, fractions) and OUTPUT/detailed_results.html."""
    values = score_submission(input_dir, output_dir, name, bootstrap, seed)
    click.echo(f"auditor: wrote scores of {len(values)} metrics and detailed_results.html to {output_dir}", err=True)
