"""The ``auditor`` command line: thin click commands over the library.

Each command parses options, calls one library function and writes its outputs.
Errors become one message on standard error and a non-zero exit code in one place,
:func:`main`.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

from auditor.cli_demo import demo
from auditor.cli_lmeval import LM_EVAL_OPTIONS, lm_eval_options, run_lm_eval
from auditor.codabench import codabench_command
from auditor.datasets.command import example as example_command
from auditor.errors import AuditorError, UsageError
from auditor.io.semeval import semeval_names
from auditor.metrics.registry import REGISTRY, load_plugin, normalise_name
from auditor.metrics.selections import TERMINAL_COLUMNS
from auditor.options import (
    CORRECTIONS,
    DEPLOYMENT_WORDS,
    ENGINES,
    INTERVALS,
    AuditOptions,
    name_paths,
    parse_prevalence,
)
from auditor.progress import Progress
from auditor.tasks import CLASSIFICATION, TASKS, task_module, task_names
from auditor.version import __version__

if TYPE_CHECKING:  # the pipeline is imported when a classification audit runs: other tasks start without it
    from auditor.pipeline import Audit

#: Columns of the terminal table when no --metric is given.
DEFAULT_COLUMNS = TERMINAL_COLUMNS

#: The analyses behind ``auditor score``'s table: the bootstrap intervals it prints, without
#: the pairwise tests (the inputs' own analyses — annotators, score files, slices — run
#: whenever they are given).
TABLE_ANALYSES = (INTERVALS,)

#: The defaults of every audit option: the command line shows and uses these.
DEFAULTS = AuditOptions()


def task_options() -> list[Callable[..., Any]]:
    """Every task kind's own options (:mod:`auditor.tasks`), in registry order."""
    return [option for name in TASKS for option in task_module(name).OPTIONS]


def task_option_names() -> dict[str, set[str]]:
    """Task -> the parameter names of its own options."""
    names: dict[str, set[str]] = {}
    for name in TASKS:
        names[name] = set()
        for option in task_module(name).OPTIONS:
            names[name].update(parameter.name for parameter in option(lambda: None).__click_params__)
    return names


def audit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by every command that runs an audit."""
    decorators = [
        click.argument("gold", type=str, required=False),
        click.argument("systems", nargs=-1, type=str),
        click.option("--task", type=click.Choice(task_names()), default=CLASSIFICATION, show_default=True,
                     help="What the systems output: one label per item (classification)"
                          + "".join(f", {name}" for name in TASKS if name != CLASSIFICATION) + "."),
        click.option("--confusion", "confusion", multiple=True, metavar="NAME=FILE",
                     help="A system's confusion matrix instead of GOLD and SYSTEMS (repeatable): CSV/TSV of counts, "
                          "a corner cell then the predicted labels on the first row, then one row per gold label "
                          "(label, counts)."),
        click.option("--annotators", "annotators", multiple=True, metavar="[NAME=]FILE",
                     help="One annotator's labels of the gold items, aligned like a system (repeatable, at least "
                          "two): adds the reliability of the gold (raw agreement, Cohen's and Fleiss' kappa, "
                          "Krippendorff's alpha)."),
        click.option("--labels", help="Comma-separated label set and order (default: union of gold and predictions)."),
        click.option("--label-map", "label_map", type=str, default=None, metavar="FILE",
                     help="Audit at the group level: `label<TAB>group` lines, a header allowed (classification and "
                          "multilabel; every label needs a group, --labels then names groups)."),
        click.option("--bootstrap", type=click.IntRange(min=0), default=DEFAULTS.bootstrap, show_default=True,
                     help="Bootstrap resamples for intervals and tests; 0 turns them off."),
        click.option("--seed", type=int, default=DEFAULTS.seed, show_default=True,
                     help="Seed of every random draw (>= 0)."),
        click.option("--alpha", type=float, default=DEFAULTS.alpha, show_default=True,
                     help="Level of tests, in (0, 1); intervals cover 1 - alpha."),
        click.option("--correction", type=click.Choice(CORRECTIONS), default=DEFAULTS.correction, show_default=True,
                     help="Multiple-comparison correction of the pairwise tests (Holm or Benjamini-Hochberg)."),
        click.option("--training-prevalence",
                     help="Training class shares ('a=0.3,b=0.7' or a file) for informedness_train."),
        click.option("--deployment-prevalence",
                     help="Class shares where the systems will be used: uniform, test, unknown, a file of "
                          "'label<TAB>share' lines or 'a=0.2,b=0.8'. Adds metrics and rankings re-weighted to it."),
        click.option("--rare-classes-matter", is_flag=True,
                     help="Rare classes matter more than their share (intent for the recommendation)."),
        click.option("--plugin", "plugins", multiple=True, help="Module that registers extra metrics (repeatable)."),
        click.option("--slices", help="File of one group per gold item (`id<TAB>group`, or one group per line): every "
                                      "metric per slice, its leaders, and where the winner changes."),
        click.option("--clusters", help="File of one cluster per unit (`id<TAB>cluster`; ids: item ids, or 1-based "
                                        "sentence / segment numbers for tagging and translation): intervals, ranks "
                                        "and pair tests resample and swap whole clusters; the design effect is "
                                        "reported."),
        click.option("--quiet", is_flag=True, help="No progress bars (errors, warnings and the 'wrote' line stay)."),
        *dataset_options(),
        *lm_eval_options(),
        *task_options(),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def dataset_options() -> list[Callable[..., Any]]:
    """``--dataset`` (one table, a column per system) and the engine that counts it (:mod:`auditor.engines`)."""
    return [
        click.option("--dataset", metavar="PATH_OR_GLOB",
                     help="One table instead of GOLD and SYSTEMS: Parquet, CSV, TSV or JSON Lines; a file, a glob or "
                          "a directory of Parquet files, with a gold column and one column per system."),
        click.option("--gold-column", help="With --dataset: the gold labels' column."),
        click.option("--system-columns", help="With --dataset: comma-separated columns, one per system (its name)."),
        click.option("--id-column", help="With --dataset: the ids' column (checked to be unique)."),
        click.option("--slice-column", help="With --dataset: a column of groups: every metric per slice."),
        click.option("--engine", type=click.Choice(ENGINES), default=None,
                     help="Where the counting runs: memory (pyarrow), duckdb (embedded, spills to disk), spark, or "
                          "auto (duckdb for files large for this machine's memory) [default: auto with --dataset, "
                          "memory otherwise]."),
        click.option("--memory-limit", help="Memory limit of the duckdb engine (e.g. 2GB; Spark: driver memory)."),
        click.option("--temp-directory", help="Where the duckdb (or spark) engine spills when past --memory-limit."),
        click.option("--spark-master", help="Spark master URL of the spark engine [default: local[*]]."),
    ]


def run_dataset(gold: str | None, systems: tuple[str, ...], slices: str | None, progress: Progress,
                analyses: tuple[str, ...] | None, arguments: dict[str, Any], engine: dict[str, Any]) -> Audit:
    """The audit of ``--dataset`` (a table with a column per system), counted by ``--engine``."""
    if gold is not None or systems or slices:
        raise UsageError("--dataset replaces GOLD, SYSTEMS and --slices (use --gold-column, --system-columns and "
                         "--slice-column); give either a dataset or label files, not both")
    if not engine["gold_column"] or not engine["system_columns"]:
        raise UsageError("--dataset needs --gold-column and --system-columns (e.g. --gold-column gold "
                         "--system-columns a,b,c)")
    from auditor.pipeline import audit_dataset

    return audit_dataset(engine.pop("dataset"), engine.pop("gold_column"),
                         [c.strip() for c in engine.pop("system_columns").split(",") if c.strip()],
                         engine=engine.pop("engine") or "auto", options=parse_options(**arguments),
                         progress=progress, analyses=analyses, **engine)


def run_joined(gold: str | None, systems: tuple[str, ...], slices: str | None, confusion: tuple[str, ...],
               annotators: tuple[str, ...], progress: Progress, analyses: tuple[str, ...] | None,
               arguments: dict[str, Any], engine: dict[str, Any]) -> Audit:
    """GOLD and SYSTEM files joined by id in an engine (``--engine duckdb``)."""
    if gold is None or not systems or confusion or annotators or slices:
        raise UsageError(f"--engine {engine['engine']} reads GOLD and SYSTEMS (joined by id) or --dataset; "
                         f"--confusion, --annotators and --slices use the default in-memory path")
    from auditor.engines import open_label_files
    from auditor.pipeline import audit_dataset

    return audit_dataset(open_label_files(gold, name_systems(systems)), engine=engine["engine"],
                         options=parse_options(**arguments), progress=progress, analyses=analyses,
                         memory_limit=engine["memory_limit"], temp_directory=engine["temp_directory"],
                         spark_master=engine["spark_master"])


#: The command line's options of :func:`dataset_options`.
DATASET_OPTIONS = ("dataset", "gold_column", "system_columns", "id_column", "slice_column", "engine", "memory_limit",
                   "temp_directory", "spark_master")


def name_systems(arguments: tuple[str, ...]) -> dict[str, str]:
    """SYSTEM arguments -> {name: path}. A bare PATH is named by its file stem, or by its team
    name when the file sits beside a SemEval ``metadata-public.xml`` listing it."""
    return name_paths(arguments, lambda stem, path: semeval_names(Path(path).parent).get(stem, stem))


def parse_options(labels: str | None, bootstrap: int, seed: int, training_prevalence: str | None,
                  deployment_prevalence: str | None, plugins: tuple[str, ...], **extra: Any) -> AuditOptions:
    """The command line's option texts -> :class:`AuditOptions` (checked by :func:`audit`, as for
    every caller, before any file is read)."""
    if deployment_prevalence is not None and deployment_prevalence not in DEPLOYMENT_WORDS:
        deployment_prevalence = parse_prevalence(deployment_prevalence, "--deployment-prevalence")
    options = AuditOptions(
        labels=tuple(label.strip() for label in labels.split(",")) if labels else None,
        bootstrap=bootstrap, seed=seed,
        training_prevalence=parse_prevalence(training_prevalence, "--training-prevalence"),
        deployment_prevalence=deployment_prevalence, plugins=tuple(plugins), **extra,
    )
    return options


def run_audit(gold: str | None, systems: tuple[str, ...], quiet: bool, confusion: tuple[str, ...] = (),
              annotators: tuple[str, ...] = (), analyses: tuple[str, ...] | None = None, **arguments: Any) -> Audit:
    """The audit the command line asks for; ``analyses`` as for :func:`auditor.pipeline.audit`
    (default: all)."""
    progress = Progress(enabled=None if not quiet else False)
    task = arguments.pop("task", CLASSIFICATION)
    own = split_task_arguments(task, arguments)
    engine = {name: arguments.pop(name, None) for name in DATASET_OPTIONS}
    lm_eval = {name: arguments.pop(name, None) for name in LM_EVAL_OPTIONS}
    label_map = arguments.pop("label_map", None)
    if label_map is not None and (confusion or any(engine.values()) or any(lm_eval.values())):
        raise UsageError("--label-map applies to GOLD and SYSTEMS label files; it cannot be used with --confusion, "
                         "--dataset, --engine or --lm-eval")
    if lm_eval["lm_eval"] or any(lm_eval.values()):
        return echo_warnings(run_lm_eval(gold, systems, task, engine, confusion, annotators, progress, analyses,
                                         arguments, lm_eval, parse_options))
    if task != CLASSIFICATION:
        if any(engine.values()):
            raise UsageError(f"--dataset and --engine are for classification; they cannot be used with --task {task}")
        if label_map is not None:
            own["label_map"] = label_map
        return run_task(task, gold, systems, progress, confusion, annotators, analyses, own, arguments)
    slices = arguments.pop("slices", None)
    if engine["dataset"]:
        if confusion or annotators:
            raise UsageError("--confusion and --annotators cannot be used with --dataset")
        result = run_dataset(gold, systems, slices, progress, analyses, arguments, engine)
    elif [name for name in DATASET_OPTIONS[1:5] if engine[name]]:
        raise UsageError("--gold-column, --system-columns, --id-column and --slice-column need --dataset")
    elif engine["engine"] not in (None, "memory", "auto"):
        result = run_joined(gold, systems, slices, confusion, annotators, progress, analyses, arguments, engine)
    elif engine["memory_limit"] or engine["temp_directory"] or engine["spark_master"]:
        raise UsageError("--memory-limit, --temp-directory and --spark-master are for --engine duckdb or spark")
    elif confusion:
        if gold is not None:
            raise UsageError("--confusion replaces GOLD and SYSTEMS: give either confusion matrices or label files, "
                             "not both")
        if slices:
            raise UsageError("--slices needs GOLD (a group for each gold item); it cannot be used with --confusion")
        if annotators:
            raise UsageError("--annotators needs GOLD (the annotators' labels are aligned to its items); it cannot be "
                             "used with --confusion")
        options = parse_options(**arguments)
        from auditor.pipeline import audit_confusion

        result = audit_confusion(name_systems(confusion), options=options, progress=progress, analyses=analyses)
    else:
        if gold is None or not systems:
            raise UsageError("missing " + ("GOLD and SYSTEMS" if gold is None else "SYSTEMS")
                             + ": give a gold file and at least one system file, or --confusion NAME=FILE")
        options = parse_options(**arguments)
        from auditor.pipeline import audit

        result = audit(gold, name_systems(systems), options=options, progress=progress,
                       annotators=name_systems(annotators) if annotators else None, slices=slices,
                       analyses=analyses, label_map=label_map)
    return echo_warnings(result)


def echo_warnings(result: Any) -> Any:
    """Print ``result``'s warnings to stderr, even with --quiet (classification's label checks, a task's
    empty outputs or human-score lines of systems not audited); return ``result``."""
    for warning in result.warnings:
        click.echo(f"auditor: warning: {warning}", err=True)
    return result


def split_task_arguments(task: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Pop every task's own options from ``arguments``; return ``task``'s. Another task's option
    given a value is refused (it would be silently ignored)."""
    own: dict[str, Any] = {}
    for name, parameters in task_option_names().items():
        for parameter in parameters:
            value = arguments.pop(parameter, None)
            if name == task:
                own[parameter] = value
            elif value not in (None, False, ()):
                raise UsageError(f"--{parameter.replace('_', '-')} belongs to --task {name}, not --task {task}")
    return own


def run_task(task: str, gold: str | None, systems: tuple[str, ...], progress: Progress, confusion: tuple[str, ...],
             annotators: tuple[str, ...], analyses: tuple[str, ...] | None, own: dict[str, Any],
             arguments: dict[str, Any]) -> Any:
    """The audit of a task kind other than classification (:mod:`auditor.tasks`)."""
    module = task_module(task)
    accepted = getattr(module, "INPUTS", ())
    for option, given in (("--confusion", confusion), ("--annotators", annotators),
                          ("--slices", arguments.pop("slices", None))):
        if given and option[2:] not in accepted:
            raise UsageError(f"{option} is for classification; it cannot be used with --task {task}")
    if own.get("label_map") is not None and "label_map" not in accepted:
        from auditor.tasks.ordinal.choices import ORDINAL_MAP

        raise UsageError(f"--label-map is for classification and multilabel; it cannot be used with --task {task}"
                         + (ORDINAL_MAP if task == "ordinal" else ""))
    if annotators:
        own["annotators"] = name_systems(annotators)
    options = parse_options(**arguments)
    return echo_warnings(module.audit(gold, name_systems(systems), options=options, progress=progress,
                                      analyses=analyses, **own))


def error_line(message: str) -> str:
    """The one line every failure prints: ``auditor: error: ...`` (newlines folded)."""
    return "auditor: error: " + " ".join(str(message).split())


def resolve_metric(name: str) -> str:
    """A metric id for ``name`` (id or alias); unknown names get "did you mean" suggestions."""
    try:
        return REGISTRY.resolve(name)
    except UsageError:
        suggestions = close_metric_names(name)
        hint = f"did you mean {', '.join(suggestions)}?" if suggestions else "no close name"
        raise UsageError(f"unknown metric {name!r}; {hint} ('auditor metrics' lists every id)") from None


def resolve_task_metric(task: str, name: str, option: str = "-m") -> str:
    """The id in task ``task``'s ``METRIC_IDS`` that ``name`` spells: the id itself (case, spaces, '-' and
    '_' ignored), one of the task's ``METRIC_ALIASES`` (normalised spelling -> id), or a catalogue alias
    whose id the task has. Anything else is one usage error listing the task's ids and its ``METRIC_NOTE``
    (exit 2)."""
    module = task_module(task)
    ids = tuple(module.METRIC_IDS)
    key = normalise_name(name)
    spellings = {normalise_name(metric_id): metric_id for metric_id in ids}
    spellings.update(getattr(module, "METRIC_ALIASES", {}))
    if name in ids or key in spellings:
        return name if name in ids else spellings[key]
    try:
        metric_id = REGISTRY.resolve(name)
    except UsageError:
        metric_id = None
    if metric_id in ids:
        return metric_id
    note = getattr(module, "METRIC_NOTE", "")
    raise UsageError(f"unknown metric {name!r} for {option} with --task {task}; choose from {', '.join(ids)}"
                     + (f" {note}" if note else ""))


def close_metric_names(name: str, limit: int = 6) -> list[str]:
    """Metric ids whose id or an alias contains ``name`` (case, spaces, '-' and '_' ignored),
    then those difflib finds close, most similar first."""
    from difflib import SequenceMatcher, get_close_matches

    key = normalise_name(name)
    names = {normalise_name(metric_id): metric_id for metric_id in REGISTRY.metrics}
    names.update(REGISTRY.aliases)
    if not key:
        return []
    containing = [spelling for spelling in names if key in spelling]
    containing.sort(key=lambda spelling: -SequenceMatcher(None, key, spelling).ratio())
    close = get_close_matches(key, list(names), n=limit, cutoff=0.6)
    ids = dict.fromkeys(names[spelling] for spelling in containing + close)
    return list(ids)[:limit]


class AuditorGroup(click.Group):
    """The one place where failures become one ``auditor: error:`` line and an exit code.

    AuditorError -> its message and exit code; click's usage errors (an unknown option, a
    value of the wrong type) -> their message, exit 2; an interrupt or SIGTERM -> exit 130 /
    143; anything unexpected -> its type and message, exit 1 (``AUDITOR_DEBUG=1`` re-raises
    it with the traceback). Outputs are written as a set at the very end
    (:mod:`auditor.formats.output`), so no failure leaves partial output.
    """

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        set_up_process()
        try:
            previous = signal.signal(signal.SIGTERM, _terminate)
        except ValueError:  # not the main thread: leave SIGTERM alone
            previous = None
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except AuditorError as error:
            _fail(str(error), error.exit_code)
        except click.exceptions.UsageError as error:
            command = f" (see '{error.ctx.command_path} --help')" if error.ctx is not None else ""
            _fail(error.format_message() + command, 2)
        except click.ClickException as error:
            _fail(error.format_message(), error.exit_code)
        except (KeyboardInterrupt, click.exceptions.Abort):
            _fail("interrupted; nothing was written", 130)
        except Terminated:
            _fail("terminated; nothing was written", 143)
        except MemoryError:
            _fail("out of memory; nothing was written (fewer --bootstrap resamples or fewer systems need less)", 1)
        except BrokenPipeError:
            sys.stderr.close()
            sys.exit(1)
        except Exception as error:
            if os.environ.get("AUDITOR_DEBUG"):
                raise
            _fail(f"unexpected {type(error).__name__}: {error} (a bug in auditor: please report it with the command "
                  f"line; AUDITOR_DEBUG=1 shows the traceback); nothing was written", 1)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        sys.exit(code if isinstance(code, int) else 0)


class Terminated(BaseException):
    """SIGTERM, raised so that staging files are removed on the way out."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


def _fail(message: str, code: int) -> None:
    try:
        click.echo(error_line(message), err=True)
    except Exception:
        sys.stderr.write(error_line(repr(message)) + "\n")
    sys.exit(code)


@click.group(cls=AuditorGroup)
@click.version_option(__version__, prog_name="auditor")
def cli() -> None:
    """Audit how classification systems are evaluated."""


@cli.command()
@audit_options
@click.option("--json", "as_json", is_flag=True, help="Print the audit JSON instead of the table.")
@click.option("--metric", "-m", "columns", multiple=True, help="Metric ids or aliases to show (repeatable).")
@click.option("--sort", "sort_by", help="Order the systems by this metric (id or alias), best first.")
def score(as_json: bool, columns: tuple[str, ...], sort_by: str | None, **arguments: Any) -> None:
    """Score SYSTEMS (PATH or NAME=PATH) against GOLD, or --confusion matrices: every metric of the catalogue."""
    for module in arguments["plugins"]:  # before --metric is resolved: a plugin may register it
        load_plugin(module)
    task = arguments["task"]
    classification = task == CLASSIFICATION
    # Resolved before the audit runs: a misspelt -m or --sort fails at once, with nothing written.
    if classification:
        chosen = [resolve_metric(name) for name in columns] or list(DEFAULT_COLUMNS)
        sort_id = resolve_metric(sort_by) if sort_by else None
    else:
        chosen = [resolve_task_metric(task, name) for name in columns]
        sort_id = resolve_task_metric(task, sort_by, "--sort") if sort_by else None
    # The table shows metric values and their bootstrap intervals only: the other analyses
    # (baselines, properties, rankings, recommendation, verdict) run for --json and the report.
    result = run_audit(**arguments, analyses=None if as_json else TABLE_ANALYSES)
    if as_json:
        from auditor.formats.json import render_json

        click.echo(render_json(result.to_json()), nl=False)
        return
    if not classification or hasattr(result, "terminal_lines"):  # a task kind's own table, or --lm-eval outcomes
        click.echo("\n".join(result.terminal_lines(chosen, sort=sort_id)))
        return
    from auditor.terminal import print_score_table

    print_score_table(result, chosen, sort_by=sort_id)
    resampling = getattr(result.statistics, "resampling", None)
    if resampling is not None:  # --clusters: what the intervals drew, and the design effect
        import textwrap

        from auditor.analyses.units import resampling_text

        click.echo("\n".join(textwrap.wrap(resampling_text(resampling), 80)))
    if result.scores is not None:  # per-class scores, when given
        click.echo("\n".join(result.scores.summary_lines()))
    if result.slices is not None:  # --slices: the leaders under the first metric asked for
        metric_id = chosen[0] if columns else None
        click.echo("\n".join(result.slices.summary_lines(metric_id, REGISTRY.metrics[metric_id].name
                                                          if metric_id else None)))


@cli.command()
@audit_options
@click.option("--output", "-o", "outdir", required=True, type=click.Path(file_okay=False),
              help="Directory for report.html, report.pdf, audit.json, tables.tex, summary.md.")
@click.option("--format", "formats", default="html,pdf,json,tex,md", show_default=True,
              help="Comma-separated subset of html,pdf,json,tex,md.")
def report(outdir: str, formats: str, **arguments: Any) -> None:
    """Write the full audit of SYSTEMS (PATH or NAME=PATH) against GOLD, or of --confusion matrices, into OUTDIR."""
    from auditor.formats.output import check_writable
    from auditor.formats.pdf import renderer_started
    from auditor.formats.render import parse_formats, render
    from auditor.report.charts import converter_started

    chosen = parse_formats(formats)
    check_writable(outdir)
    # the chart converter (html and pdf draw charts) and the PDF renderer start beside the audit
    with converter_started() if {"html", "pdf"} & set(chosen) else contextlib.nullcontext(), \
            renderer_started() if "pdf" in chosen else contextlib.nullcontext():
        result = run_audit(**arguments)
        written = render(result, outdir, chosen, progress=Progress(enabled=None if not arguments["quiet"] else False))
    click.echo("wrote " + ", ".join(str(path) for path in written), err=True)


@cli.command()
@click.argument("metric", required=False)
def metrics(metric: str | None) -> None:
    """The metric catalogue: formulas, properties, references (one METRIC in detail)."""
    from auditor.terminal import print_catalogue, print_metric

    if metric:
        print_metric(REGISTRY.metrics[resolve_metric(metric)])
    else:
        print_catalogue()


@cli.command("plan")
@click.argument("gold", required=False)
@click.argument("systems", nargs=-1)
@click.option("--items", type=int, help="Planned test set size N (items).")
@click.option("--accuracy", type=float, help="System A's accuracy (mode 1).")
@click.option("--difference", type=float, help="B's accuracy minus A's, D > 0 (mode 1).")
@click.option("--agreement", type=float, help="Share of items both get right or both wrong (mode 1; default: the "
                                               "smallest the accuracies allow, the conservative case).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Level of the tests.")
@click.option("--target-power", type=float, default=0.8, show_default=True, help="Power to reach.")
@click.option("--predictive-power", is_flag=True, help="Mode 3: Vickers et al.'s predictive-power model.")
@click.option("--prevalence", help="Class shares for --predictive-power, e.g. a=0.7,b=0.2,c=0.1.")
@click.option("--prevalence-from", help="Gold file whose class shares --predictive-power uses.")
@click.option("--guess", type=click.Choice(("prevalence", "uniform", "majority")),
              help="What the model does when not right (default prevalence).")
@click.option("--simulate", type=int, help="Also simulate the model at this N (expected values at N).")
@click.option("--draws", type=int, help="Draws per x of --simulate (default 1000).")
@click.option("--simulations", type=int, help="Simulated test sets of N items (mode 2; default 200).")
@click.option("--sizes", help="More test-set sizes to simulate, e.g. 500,1000,4000 (mode 2): which metric needs the "
                              "fewest items.")
@click.option("--rounds", type=int, help="Approximate-randomisation rounds per simulated test (mode 2; default 1000).")
@click.option("--correction", type=click.Choice(CORRECTIONS), help="Correction over pairs (mode 2; default holm).")
@click.option("--labels", help="Comma-separated label set (mode 2).")
@click.option("--seed", type=int, default=DEFAULTS.seed, show_default=True, help="Seed of every random draw.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan JSON (schema auditor-plan/1).")
@click.option("--output", "-o", "outdir", type=click.Path(file_okay=False), help="Write the plan pages here.")
@click.option("--format", "formats", default="html,pdf,json", show_default=True, help="Subset of html,pdf,json.")
def plan(gold: str | None, systems: tuple[str, ...], as_json: bool, outdir: str | None, formats: str,
         **options: Any) -> None:
    """Plan a test set: power, detectable difference and items needed (--items --accuracy --difference), from a
    pilot (GOLD SYSTEM... --items N), or the predictive-power model (--predictive-power)."""
    from auditor.formats.output import check_writable
    from auditor.formats.render import parse_formats, render
    from auditor.plan.run import FILE_NAMES
    from auditor.plan.run import plan as run_plan

    chosen = parse_formats(formats, FILE_NAMES) if outdir else ()
    if outdir:
        check_writable(outdir)
    result = run_plan(gold, systems, **options)
    if as_json:
        from auditor.formats.json import render_json

        click.echo(render_json(result.to_json()), nl=False)
    else:
        click.echo("\n".join(result.terminal_lines()))
    if outdir:
        written = render(result, outdir, chosen, file_names=FILE_NAMES)
        click.echo("wrote " + ", ".join(str(path) for path in written), err=True)


@cli.command("check-claim")
@click.argument("claims", nargs=-1)
@click.option("--confusion", help="Confusion matrix file, as for `report --confusion` (CSV/TSV: a header row of "
                                  "predicted labels, then per gold label its label and counts).")
@click.option("--table", help="Per-class table (CSV/TSV with header: label precision recall support [f1]).")
@click.option("--gold", help="Gold labels file (with --system).")
@click.option("--system", help="One system's predictions file (with --gold).")
@click.option("--labels", help="Comma-separated label set and order (with --gold/--system).")
@click.option("--lm-eval-results", help="An lm-evaluation-harness results file: its every figure is a claim, "
                                       "checked against the samples of --lm-eval RUN (the first, or the run "
                                       "holding it).")
@click.option("--lm-eval", "lm_eval", multiple=True, metavar="[NAME=]RUN", help="With --lm-eval-results: runs.")
@click.option("--json", "as_json", is_flag=True, help="Print the check as JSON.")
def check_claim(claims: tuple[str, ...], confusion: str | None, table: str | None, gold: str | None,
                system: str | None, labels: str | None, lm_eval_results: str | None, lm_eval: tuple[str, ...],
                as_json: bool) -> int:
    """Which metric definitions reproduce CLAIMS (e.g. 'macro_f1=65.4 accuracy=66.1', as printed)?

    Exit status: 0 when every claim holds (the metric it names reproduces it, within the printed
    rounding, and the numbers hold together), 1 when any claim does not, 2 on bad input.
    """
    from auditor.formats.json import render_json

    if lm_eval_results or lm_eval:
        if claims or confusion or table or gold or system or labels or not lm_eval_results:
            raise UsageError("--lm-eval-results RESULTS --lm-eval RUN... checks the results file's own figures: no "
                             "CLAIMS, --confusion, --table, --gold, --system or --labels")
        from auditor.claims.lmeval import check_lm_eval, format_lm_eval_check

        found = check_lm_eval(lm_eval_results, lm_eval)
        click.echo(render_json(found.to_json()) if as_json else format_lm_eval_check(found), nl=not as_json)
        return 0 if found.holds else 1
    if not claims:
        raise UsageError("missing CLAIMS (e.g. 'macro_f1=65.4 accuracy=66.1'), or --lm-eval-results")
    from auditor.claims.check import check
    from auditor.claims.text import format_report

    result = check(claims, confusion=confusion, table=table, gold=gold, system=system,
                   labels=[label.strip() for label in labels.split(",")] if labels else None)
    click.echo(render_json(result.to_json()) if as_json else format_report(result), nl=not as_json)
    return 0 if result.holds else 1


cli.add_command(codabench_command)
cli.add_command(demo)
cli.add_command(example_command)


def set_up_process() -> None:
    """The program's process (standalone runs of the command group): the C library's allocator keeps freed
    memory (:func:`keep_freed_memory`) and arrow allocates through it (``ARROW_DEFAULT_MEMORY_POOL=system``
    unless set, before arrow is first imported: arrow's own mimalloc pool gives freed pages back at once, and
    a tagging score of 1M tokens × 10 systems spent 0.6 s of system time on it, 0.4 s without)."""
    keep_freed_memory()
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def keep_freed_memory() -> bool:
    """glibc only (a no-op returning False elsewhere): keep freed blocks under 32 MB in the heap for reuse
    (``M_MMAP_THRESHOLD``) and give the heap's free top back to the system only past 256 MB
    (``M_TRIM_THRESHOLD``). A command is one short process; by default every large numpy temporary is a
    fresh mapping whose pages the kernel zero-fills on first touch (about 100,000 page faults, 0.4-0.9 s of
    system time, for a tagging score of 1M tokens × 10 systems; a third of them with this)."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(-3, 32 * 2**20)) and bool(mallopt(-1, 256 * 2**20))


main = cli
