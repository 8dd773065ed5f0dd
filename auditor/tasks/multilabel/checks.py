"""The multi-label task's own options, checked before any file is read (docs/architecture.md, "Adding a task
kind")."""
from __future__ import annotations

import os
from typing import Any


def check(options: Any = None, label_separator: str | None = None, threshold: float | None = None,
          thresholds: str | None = None, label_map: str | None = None) -> None:
    """Every own option checked before any file is read (docs/architecture.md, "Adding a task kind"): a bad one is
    one :class:`~auditor.errors.UsageError`."""
    from auditor.errors import UsageError

    if label_separator is not None and (not label_separator or label_separator in "\t\n\r"):
        raise UsageError(f"--label-separator {label_separator!r}: expected a character that is not a tab or a newline")
    if threshold is not None and not 0 <= threshold <= 1:
        raise UsageError(f"--threshold {threshold:g}: expected a number in [0, 1]")
    if threshold is not None and thresholds:
        raise UsageError("--threshold and --thresholds both given: one threshold for every label, or one per label")
    for option, path in (("--thresholds", thresholds), ("--label-map", label_map)):
        if path is not None and not os.path.isfile(path):
            raise UsageError(f"{option} {path}: no such file")
    if options is not None:
        for name, value in (("--training-prevalence", options.training_prevalence),
                            ("--deployment-prevalence", options.deployment_prevalence),
                            ("--rare-classes-matter", options.rare_classes_matter), ("--plugin", options.plugins)):
            if value:
                raise UsageError(f"{name} is for classification; it cannot be used with --task multilabel")
