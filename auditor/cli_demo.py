"""The command line's ``auditor demo``: a simulated evaluation written as files and reported (:mod:`auditor.demo`)."""
from __future__ import annotations

from pathlib import Path

import click

from auditor.demo import DEMO_SEED, demo_names
from auditor.progress import Progress
from auditor.tasks import CLASSIFICATION


@click.command()
@click.option("--output", "-o", "outdir", required=True, type=click.Path(file_okay=False),
              help="Directory for the report (report.html, report.pdf, audit.json, tables.tex, summary.md) and, in "
                   "its data/ folder, the simulated files it audits.")
@click.option("--task", type=click.Choice(demo_names()), default=CLASSIFICATION, show_default=True,
              help="Which task kind's demo.")
@click.option("--seed", type=click.IntRange(min=0), default=DEMO_SEED, show_default=True,
              help="Seed of the simulation (the audit keeps its default seed).")
@click.option("--size", type=click.IntRange(min=1), help="Tickets, sentences or segments [default: the demo's].")
@click.option("--format", "formats", default="html,pdf,json,tex,md", show_default=True,
              help="Comma-separated subset of html,pdf,json,tex,md.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def demo(outdir: str, task: str, seed: int, size: int | None, formats: str, quiet: bool) -> None:
    """Write a report of a realistic evaluation simulated by auditor's own code (no download) into OUTDIR, and
    the simulated gold and system files into OUTDIR/data."""
    from auditor.demo.run import run_demo
    from auditor.formats.render import parse_formats

    result, written = run_demo(task, outdir, seed, size, parse_formats(formats),
                               Progress(enabled=None if not quiet else False))
    for warning in result.warnings:
        click.echo(f"auditor: warning: {warning}", err=True)
    data = Path(outdir) / "data"
    click.echo(f"wrote {', '.join(str(path) for path in written)} (simulated data in {data})", err=True)
