"""The ``auditor`` command line: thin click commands over the library.

Each command parses options, calls one library function and writes its outputs.
Errors become one message on standard error and a non-zero exit code in one place,
:func:`main`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import click

from . import __version__
from .pipeline import Audit, AuditOptions, audit
from .errors import AuditorError, UsageError
from .load import parse_system_argument, semeval_names
from .output import check_writable
from .progress import Progress
from .registry import REGISTRY

#: Columns of the terminal table when no --metric is given.
DEFAULT_COLUMNS = (
    "accuracy", "macro_recall", "macro_precision", "macro_f1", "macro_f1_hm", "weighted_f1",
    "kappa", "mcc", "informedness", "markedness", "nit",
)


def parse_prevalence(text: str | None) -> dict[str, float] | None:
    """``"a=0.2,b=0.8"`` or a file of ``label<TAB>share`` lines -> {label: share}."""
    if not text:
        return None
    import os

    if os.path.exists(text):
        with open(text, encoding="utf-8") as stream:
            pairs = [line.split(None, 1) for line in stream if line.strip() and not line.startswith("#")]
        source = text
    else:
        pairs = [item.split("=", 1) for item in text.split(",")]
        source = "prevalence"
    result = {}
    for number, pair in enumerate(pairs, 1):
        try:
            label, share = pair
            result[label.strip()] = float(share)
        except ValueError:
            raise UsageError(f"{source} entry {number}: expected 'label=share' (or 'label<TAB>share' in a file), "
                             f"found {'='.join(pair)!r}") from None
    if any(share < 0 for share in result.values()) or sum(result.values()) <= 0:
        raise UsageError(f"{source}: shares must be non-negative and not all 0")
    return result


def _deployment_option(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """``uniform``, ``test``, ``unknown`` stay words; anything else is a file or 'a=0.2,b=0.8'."""
    if value is None or value in ("uniform", "test", "unknown"):
        return value
    return parse_prevalence(value)


def audit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by every command that runs an audit."""
    decorators = [
        click.argument("gold", type=str),
        click.argument("systems", nargs=-1, required=True, type=str),
        click.option("--labels", help="Comma-separated label set and order (default: union of gold and predictions)."),
        click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
                     help="Bootstrap resamples for intervals and tests; 0 turns them off."),
        click.option("--seed", type=int, default=12345, show_default=True, help="Seed of every random draw."),
        click.option("--alpha", type=click.FloatRange(min=0, max=1, min_open=True, max_open=True), default=0.05,
                     show_default=True, help="Level of tests; intervals cover 1 - alpha."),
        click.option("--correction", type=click.Choice(["holm", "bh"]), default="holm", show_default=True,
                     help="Multiple-comparison correction of the pairwise tests (Holm or Benjamini-Hochberg)."),
        click.option("--training-prevalence", help="Training class shares ('a=0.3,b=0.7' or a file) for informedness_train."),
        click.option("--deployment-prevalence", callback=_deployment_option,
                     help="Class shares where the systems will be used: uniform, test, unknown, a file of "
                          "'label<TAB>share' lines or 'a=0.2,b=0.8'. Adds metrics and rankings re-weighted to it."),
        click.option("--rare-classes-matter", is_flag=True,
                     help="Rare classes matter more than their share (intent for the recommendation)."),
        click.option("--plugin", "plugins", multiple=True, help="Module that registers extra metrics (repeatable)."),
        click.option("--quiet", is_flag=True, help="No progress bars."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def name_systems(arguments: tuple[str, ...]) -> dict[str, str]:
    """SYSTEM arguments -> {name: path}. A bare PATH is named by its file stem, or by its team
    name when the file sits beside a SemEval ``metadata-public.xml`` listing it."""
    named: dict[str, str] = {}
    for argument in arguments:
        name, path = parse_system_argument(argument)
        if path == argument:
            name = semeval_names(Path(path).parent).get(name, name)
        if name in named:
            raise UsageError(f"{named[name]} and {path} are both named {name!r}; name them with NAME=PATH")
        named[name] = path
    return named


def run_audit(gold: str, systems: tuple[str, ...], labels: str | None, bootstrap: int, seed: int,
              training_prevalence: str | None, plugins: tuple[str, ...], quiet: bool, **extra: Any) -> Audit:
    named = name_systems(systems)
    options = AuditOptions(
        labels=tuple(label.strip() for label in labels.split(",")) if labels else None,
        bootstrap=bootstrap, seed=seed, training_prevalence=parse_prevalence(training_prevalence),
        plugins=tuple(plugins), **extra,
    )
    result = audit(gold, named, options=options, progress=Progress(enabled=None if not quiet else False))
    for warning in result.warnings:  # label checks (auditor.label_checks); shown even with --quiet
        click.echo(f"auditor: warning: {warning}", err=True)
    return result


class ReportedError(click.ClickException):
    """An AuditorError on its way out: one message on standard error, the error's exit code."""

    def __init__(self, error: AuditorError):
        super().__init__(str(error))
        self.exit_code = error.exit_code

    def show(self, file: Any = None) -> None:
        click.echo(f"auditor: error: {self.message}", err=True)


class AuditorGroup(click.Group):
    """Turns every AuditorError raised by a command into a ReportedError, in this one place."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AuditorError as error:
            raise ReportedError(error) from None


@click.group(cls=AuditorGroup)
@click.version_option(__version__, prog_name="auditor")
def cli() -> None:
    """Audit how classification systems are evaluated."""


@cli.command()
@audit_options
@click.option("--json", "as_json", is_flag=True, help="Print the audit JSON instead of the table.")
@click.option("--metric", "-m", "columns", multiple=True, help="Metric ids or aliases to show (repeatable).")
def score(as_json: bool, columns: tuple[str, ...], **arguments: Any) -> None:
    """Score SYSTEMS (PATH or NAME=PATH) against GOLD: every metric of the catalogue."""
    result = run_audit(**arguments)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=1, ensure_ascii=False, allow_nan=False))
        return
    from .terminal import print_score_table

    print_score_table(result, [REGISTRY.resolve(name) for name in columns] or list(DEFAULT_COLUMNS))


@cli.command()
@audit_options
@click.option("--output", "-o", "outdir", required=True, type=click.Path(file_okay=False),
              help="Directory for report.html, report.pdf, audit.json, tables.tex, summary.md.")
@click.option("--format", "formats", default="html,pdf,json,tex,md", show_default=True,
              help="Comma-separated subset of html,pdf,json,tex,md.")
def report(outdir: str, formats: str, **arguments: Any) -> None:
    """Write the full audit of SYSTEMS (PATH or NAME=PATH) against GOLD into OUTDIR."""
    from .renderers import parse_formats, render

    chosen = parse_formats(formats)
    check_writable(outdir)
    result = run_audit(**arguments)
    written = render(result, outdir, chosen, progress=Progress(enabled=None if not arguments["quiet"] else False))
    if not arguments["quiet"]:
        click.echo("wrote " + ", ".join(str(path) for path in written), err=True)


@cli.command()
@click.argument("metric", required=False)
def metrics(metric: str | None) -> None:
    """The metric catalogue: formulas, properties, references (one METRIC in detail)."""
    from .terminal import print_catalogue, print_metric

    if metric:
        print_metric(REGISTRY.get(metric))
    else:
        print_catalogue()


@cli.command("check-claim")
@click.argument("claims", nargs=-1, required=True)
@click.option("--confusion", help="Confusion matrix file (CSV/TSV of counts, rows = gold; optional label row/column).")
@click.option("--table", help="Per-class table (CSV/TSV with header: label precision recall support [f1]).")
@click.option("--gold", help="Gold labels file (with --system).")
@click.option("--system", help="One system's predictions file (with --gold).")
@click.option("--labels", help="Comma-separated label set and order (with --gold/--system).")
@click.option("--json", "as_json", is_flag=True, help="Print the check as JSON.")
def check_claim(claims: tuple[str, ...], confusion: str | None, table: str | None, gold: str | None,
                system: str | None, labels: str | None, as_json: bool) -> None:
    """Which metric definitions reproduce CLAIMS (e.g. 'macro_f1=65.4 accuracy=66.1', as printed)?"""
    from .claims import check, format_report

    result = check(claims, confusion=confusion, table=table, gold=gold, system=system,
                   labels=[label.strip() for label in labels.split(",")] if labels else None)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=1, ensure_ascii=False, allow_nan=False))
    else:
        click.echo(format_report(result))


main = cli
