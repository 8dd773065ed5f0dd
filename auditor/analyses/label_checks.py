"""Label checks before scoring: spellings that differ from gold, labels gold never uses.

Runs right after *count* (docs/architecture.md, "Data flow"), on the confusion tensor, before any metric:

* a system label that is not a gold label but equals one after case and whitespace folding
  (``offense`` against ``OFFENSE``, ``OTHER `` against ``OTHER``) is an error: scoring it
  would count every such prediction wrong and give 0.0 with no hint why;
* a system that shares no label with gold is an error (the wrong file, or another task's);
* any other label absent from gold (a typo such as ``INSLUT``) is scored as an error class,
  as docs/architecture.md ("Conventions") says, and gets a warning naming it. Labels the user declared with
  ``--labels`` are intended and get none.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from auditor.errors import InputError
from auditor.io.counts import Counts
from auditor.io.source import Source

#: Labels listed in one message at most.
_SHOW = 5


def fold(label: str) -> str:
    """Case- and whitespace-folded spelling: ``" ".join(label.split()).casefold()``."""
    return " ".join(label.split()).casefold()


def _where(sources: Mapping[str, Source], name: str) -> str:
    path = sources[name].path if name in sources else None
    return f"system {name!r}" + (f" ({path})" if path and path != f"<{name}>" else "")


def check(counts: Counts, sources: Mapping[str, Source], labels: Sequence[str] | None = None) -> tuple[str, ...]:
    """Check every system's labels against gold; return the warnings (at most one per system),
    which the pipeline stores as ``Audit.warnings``.

    Works on the confusion tensor: gold labels are the rows with items, a system's labels
    the columns it fills, so no per-item text is built.

    Raises
    ------
    InputError
        A system whose labels match gold only after folding (naming both spellings), or a
        system that predicts no gold label at all.
    """
    names = np.asarray(counts.labels, dtype=object)
    gold_labels = sorted(names[counts.support > 0].tolist())
    gold_set = set(gold_labels)
    by_fold: dict[str, list[str]] = {}
    for label in gold_labels:
        by_fold.setdefault(fold(label), []).append(label)
    declared = set(labels or ())
    gold_path = (sources["gold"].path if "gold" in sources else None) or "gold"
    warnings = []
    for name, matrix in zip(counts.systems, counts.confusion):
        column_sums = matrix.sum(axis=0)
        predicted = sorted(names[column_sums > 0].tolist())
        outside = [label for label in predicted if label not in gold_set]
        respelled = [(label, by_fold[fold(label)]) for label in outside if fold(label) in by_fold]
        if respelled:
            shown = "; ".join(f"{label!r} where gold has {' or '.join(map(repr, spellings))}"
                              for label, spellings in respelled[:_SHOW])
            more = f" (and {len(respelled) - _SHOW} more)" if len(respelled) > _SHOW else ""
            raise InputError(
                f"{_where(sources, name)}: labels match gold ({gold_path}) only after case or whitespace folding: "
                f"{shown}{more}; expected the gold spelling")
        if not set(predicted) & gold_set:
            raise InputError(
                f"{_where(sources, name)}: predicts no label that gold ({gold_path}) uses: system labels "
                f"{', '.join(map(repr, predicted[:_SHOW]))}{' …' if len(predicted) > _SHOW else ''}; gold labels "
                f"{', '.join(map(repr, gold_labels[:_SHOW]))}{' …' if len(gold_labels) > _SHOW else ''}; "
                "expected predictions in the gold label set")
        unknown = [label for label in outside if label not in declared]
        if unknown:
            index = {label: code for code, label in enumerate(counts.labels)}
            items = int(sum(column_sums[index[label]] for label in unknown))
            warnings.append(
                f"{_where(sources, name)} predicts {', '.join(map(repr, unknown))}, absent from gold "
                f"({items} item{'' if items == 1 else 's'}); scored as a wrong class — check the spelling")
    return tuple(warnings)
