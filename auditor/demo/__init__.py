"""The built-in demo (``auditor demo``): a realistic evaluation simulated by the project's own code with a fixed
seed, written as input files (``DIR/data/``) and reported (``DIR/``), so that every section of the report has
something true to say without any downloaded data.

One generator per task kind, registered by one line in :data:`DEMOS` (task name -> module). A generator module
exposes ``SIZE`` (units of the default demo), ``MIN_SIZE`` (the fewest ``--size`` allows), ``UNIT`` (what a
unit is, plural) and ``generate(seed, size) -> Demo`` (:class:`auditor.demo.run.Demo`: the files, which of them
are gold and systems, the task's own file options, and page 1's note on how the data was simulated).
:func:`auditor.demo.run.run_demo` writes the files, audits them exactly as ``auditor report`` would, and renders
the report.
"""
from __future__ import annotations

import importlib
from types import ModuleType

#: Task name -> module of its demo generator (one line per task).
DEMOS: dict[str, str] = {
    "classification": "auditor.demo.classification",
    "tagging": "auditor.demo.tagging",
    "translation": "auditor.demo.translation",
    "multilabel": "auditor.demo.multilabel",
    "ordinal": "auditor.demo.ordinal",
}

#: The seed of the demo's simulation unless ``--seed`` says otherwise (the audit keeps its own default seed, so
#: that ``auditor report`` on the written files gives the same figures).
DEMO_SEED = 2026


def demo_names() -> tuple[str, ...]:
    """Every task ``auditor demo --task`` accepts, classification first."""
    return tuple(DEMOS)


def demo_module(task: str) -> ModuleType:
    """The generator module of ``task``'s demo."""
    return importlib.import_module(DEMOS[task])
