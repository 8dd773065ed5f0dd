"""The ordinal task's own options checked before any file is read (cheap to import: no numpy work)."""
from __future__ import annotations

from typing import Any

from auditor.errors import UsageError


def check(options: Any, order: str | None = None, order_file: str | None = None, **_: Any) -> None:
    """``--labels`` is classification's (the order is the label set), and the order is given once."""
    if getattr(options, "labels", None) is not None:
        raise UsageError("--labels is for classification; give the levels lowest first with --order A,B,C "
                         "(or --order-file FILE)")
    if order is not None and order_file is not None:
        raise UsageError("--order and --order-file both give the order; give one of them")
