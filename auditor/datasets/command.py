"""The ``auditor example`` command (registered on the command line by :mod:`auditor.cli`)."""
from __future__ import annotations

from pathlib import Path

import click

from auditor.datasets.catalogue import DATASETS
from auditor.datasets.fetch import BASE_URL_VARIABLE, fetch, report_command


@click.command("example")
@click.argument("name", type=click.Choice(list(DATASETS)))
@click.option("--output", "-o", "outdir", required=True, type=click.Path(file_okay=False),
              help="New folder to write the dataset into (created; must not hold anything).")
@click.option("--base-url", envvar=BASE_URL_VARIABLE, show_envvar=True, metavar="URL",
              help="Download from this mirror (URL/NAME/FILE) instead of the dataset's public repository.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the report command.")
def example(name: str, outdir: str, base_url: str | None, quiet: bool) -> None:
    """Fetch the public dataset NAME at its pinned commit, check every file's SHA-256 and lay it out for
    `auditor report` (illustrative systems are trained where the dataset has gold labels only: pip install
    'auditor[examples]'). Prints the report command."""
    say = (lambda line: None) if quiet else (lambda line: click.echo(line, err=True))
    arguments = fetch(name, Path(outdir), base_url, say=say)
    if not quiet:
        click.echo(f"{DATASETS[name].title}: written to {outdir} (licence and citation in {outdir}/SOURCE.md)",
                   err=True)
    click.echo(report_command(outdir, arguments))
