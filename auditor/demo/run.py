"""Write a demo's simulated files into ``DIR/data/``, audit them as ``auditor report`` would, render the report.

The audit reads the written files with the default audit options, through the same functions as ``auditor
report`` (:func:`auditor.pipeline.audit`, or the task's ``audit``), so that ``auditor report`` on ``DIR/data/``
gives the same figures; ``DIR/data/README.md`` says how the data was simulated and gives that command.
"""
from __future__ import annotations

import contextlib
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from auditor.demo import DEMO_SEED, demo_module
from auditor.errors import UsageError
from auditor.formats.output import check_writable, write_files
from auditor.formats.render import FORMATS, parse_formats, render
from auditor.options import AuditOptions
from auditor.progress import SILENT, Progress
from auditor.tasks import CLASSIFICATION, TASKS, task_module
from auditor.version import __version__

#: The folder of DIR that holds the simulated inputs.
DATA = "data"


@dataclass(frozen=True)
class Demo:
    """One simulated evaluation: ``files`` (path under ``data/`` -> text), the gold file's path, system name ->
    its file's path (in the order a shell's ``*`` lists them), the task's own file options (option name, as
    the task's ``audit`` takes it -> path under ``data/``), and ``about``: page 1's note on how it was simulated."""

    task: str
    files: Mapping[str, str]
    gold: str
    systems: Mapping[str, str]
    about: str
    inputs: Mapping[str, str] = field(default_factory=dict)
    #: The systems' files as a shell pattern under ``data/`` (README's rerun command).
    pattern: str = ""


def generate(task: str, seed: int = DEMO_SEED, size: int | None = None) -> Demo:
    """The demo of ``task`` simulated with ``seed`` (``size`` units; default: the generator's ``SIZE``)."""
    module = demo_module(task)
    if size is not None and size < module.MIN_SIZE:
        raise UsageError(f"--size: the {task} demo needs at least {module.MIN_SIZE} {module.UNIT}; found {size}")
    return module.generate(seed, module.SIZE if size is None else size)


def rerun_command(demo: Demo, outdir: str) -> str:
    """The ``auditor report`` command that audits the written files (the same figures as the demo's report)."""
    data = Path(outdir) / DATA
    words = ["auditor", "report"] + ([] if demo.task == CLASSIFICATION else ["--task", demo.task])
    words.append(shlex.quote(str(data / demo.gold)))
    words.append(shlex.quote(str(data)) + "/" + demo.pattern)
    for option, path in demo.inputs.items():
        words += [f"--{option.replace('_', '-')}", shlex.quote(str(data / path))]
    return " ".join(words + ["-o", shlex.quote(str(Path(outdir) / "rerun"))])


def readme(demo: Demo, outdir: str, seed: int, size: int | None) -> str:
    """``data/README.md``: what the files are, how they were made and how to audit them again."""
    command = ["auditor", "demo", "--task", demo.task, "--seed", str(seed)]
    command += ["--size", str(size)] if size is not None else []
    return (f"# Simulated data of `auditor demo`\n\n{demo.about}\n\n"
            f"Written by `{' '.join(command)} -o {shlex.quote(outdir)}` (auditor {__version__}). "
            f"The report beside this folder audits these files; this command gives the same figures:\n\n"
            f"```\n{rerun_command(demo, outdir)}\n```\n")


def audit_demo(demo: Demo, outdir: str, options: AuditOptions = AuditOptions(), progress: Progress = SILENT) -> Any:
    """The audit of the demo's files under ``outdir/data`` (read as ``auditor report`` reads them)."""
    data = Path(outdir) / DATA
    gold = str(data / demo.gold)
    systems = {name: str(data / path) for name, path in demo.systems.items()}
    inputs = {option: str(data / path) for option, path in demo.inputs.items()}
    if demo.task == CLASSIFICATION:
        from auditor.pipeline import audit

        return audit(gold, systems, options=options, progress=progress)
    if demo.task not in TASKS:
        raise UsageError(f"the {demo.task} demo has no task kind to audit it (--task {demo.task})")
    return task_module(demo.task).audit(gold, systems, options=options, progress=progress, **inputs)


def write_data(demo: Demo, outdir: str, seed: int, size: int | None) -> None:
    """The demo's files under ``outdir/data/``, each folder written as a set."""
    folders: dict[Path, dict[str, str]] = {}
    for name, text in {**demo.files, "README.md": readme(demo, outdir, seed, size)}.items():
        path = Path(outdir) / DATA / name
        folders.setdefault(path.parent, {})[path.name] = text
    for folder in sorted(folders, key=lambda p: len(p.parts)):  # data/ before data/systems/
        write_files(folder, folders[folder])


def run_demo(task: str, outdir: str, seed: int = DEMO_SEED, size: int | None = None,
             formats: str | tuple[str, ...] = FORMATS, progress: Progress = SILENT) -> tuple[Any, list[Path]]:
    """Simulate ``task``'s demo, write its files into ``outdir/data/`` and its report into ``outdir``; return
    the audit and the report's paths."""
    from auditor.report.charts import converter_started

    chosen = parse_formats(formats)
    check_writable(outdir)
    demo = generate(task, seed, size)
    write_data(demo, outdir, seed, size)
    # the chart converter starts beside the audit (html and pdf draw charts), as in 'auditor report'
    with converter_started() if {"html", "pdf"} & set(chosen) else contextlib.nullcontext():
        result = audit_demo(demo, outdir, progress=progress)
        about = (f"{demo.about} The simulated files are in {DATA}/ beside this report; {DATA}/README.md gives the "
                 "'auditor report' command that reproduces every figure.")
        written = render(result, outdir, chosen, progress=progress, about_data=about)
    return result, written
