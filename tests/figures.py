"""The figures of an audit as numbers: the flat form the kept-figures test and its capture script share.

An audit.json is flattened to ``{"/key/key/...": value}`` for every number, boolean, null and identifier-like string
(no whitespace: system names, metric ids, methods, hashes); prose (sentences, reasons, formulas with spaces) and file
paths (a key ``path``, or a string naming a file that exists) are left out, since neither is a figure. A list of
records is keyed by the fields that name a record (``a``, ``b``, ``metric``, ``id``, ...) rather than by position,
so that a reordering is not reported as a change. The three audits are run through the command line (``auditor
score --json``), as a user would run them.
"""
from __future__ import annotations

import json
import math
import os
from typing import Any

#: Fields that name one record of a list, in the order they are joined into its key.
NAMING_FIELDS = ("task", "metric", "a", "b", "system", "id", "name", "method", "family", "view", "type", "band")

#: Keys whose values are not figures: file places change with the checkout, never with the audit.
NOT_FIGURES = frozenset({"path", "paths"})

#: The audits whose figures are kept: name -> (command-line arguments with {dir} for the data folder).
AUDITS: dict[str, tuple[str, ...]] = {
    "germeval": ("score", "--json", "{dir}/gold.tsv", "{dir}/systems/*.tsv"),
    "uner": ("score", "--json", "--task", "tagging", "{dir}/gold.iob2", "{dir}/systems/*.iob2"),
    "wmt21": ("score", "--json", "--task", "translation", "{dir}/ref.txt", "{dir}/systems/*.txt",
              "--human", "{dir}/human.tsv"),
}


def _record_key(record: dict, index: int) -> str:
    named = [f"{field}={record[field]}" for field in NAMING_FIELDS
             if isinstance(record.get(field), (str, int)) and not isinstance(record.get(field), bool)]
    return "[" + ",".join(named) + "]" if named else str(index)


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    """Every figure of ``value`` (parsed audit.json) by its path."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in NOT_FIGURES:
                out.update(flatten(item, f"{path}/{key}"))
    elif isinstance(value, list):
        keys = [_record_key(item, i) if isinstance(item, dict) else str(i) for i, item in enumerate(value)]
        if len(set(keys)) < len(keys):
            keys = [str(i) for i in range(len(value))]
        for key, item in zip(keys, value):
            out.update(flatten(item, f"{path}/{key}"))
    elif isinstance(value, str):
        if value and not any(c.isspace() for c in value) and not os.path.isfile(value):
            out[path] = value
    elif isinstance(value, float) and not math.isfinite(value):
        out[path] = repr(value)
    else:
        out[path] = value
    return out


def arguments(name: str, folder: str) -> list[str]:
    """The command line of audit ``name`` over the data in ``folder`` (globs expanded, sorted)."""
    import glob

    out: list[str] = []
    for argument in AUDITS[name]:
        argument = argument.replace("{dir}", folder)
        out.extend(sorted(glob.glob(argument)) if "*" in argument else [argument])
    return out


def figures(name: str, folder: str) -> dict[str, Any]:
    """Run audit ``name`` over ``folder`` through the command line and flatten its JSON."""
    from click.testing import CliRunner

    from auditor.cli import cli

    result = CliRunner().invoke(cli, arguments(name, folder), catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"{name}: exit {result.exit_code}: {result.output}")
    return flatten(json.loads(result.stdout))


def differences(expected: dict[str, Any], found: dict[str, Any], rel: float = 1e-9) -> list[str]:
    """The figures that differ, are missing or are new, one line each."""
    lines = []
    for key in sorted(expected.keys() | found.keys()):
        if key not in found:
            lines.append(f"missing {key} (was {expected[key]!r})")
        elif key not in expected:
            lines.append(f"new     {key} = {found[key]!r}")
        else:
            a, b = expected[key], found[key]
            same = (math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)
                    if isinstance(a, (int, float)) and isinstance(b, (int, float))
                    and not isinstance(a, bool) and not isinstance(b, bool) else a == b)
            if not same:
                lines.append(f"changed {key}: {a!r} -> {b!r}")
    return lines
