"""The ordinal task's own options checked before any file is read (cheap to import: no numpy work)."""
from __future__ import annotations

from typing import Any

from auditor.errors import UsageError

#: Why an ordinal audit refuses a label map.
ORDINAL_MAP = (" (levels are scored as given, in their order; to merge levels, write the merged levels in the files "
               "and give them to --order)")


def check(options: Any, order: str | None = None, order_file: str | None = None, **_: Any) -> None:
    """``--labels`` is classification's (the order is the label set), and the order is given once."""
    if getattr(options, "labels", None) is not None:
        raise UsageError("--labels is for classification; give the levels lowest first with --order A,B,C "
                         "(or --order-file FILE)")
    if getattr(options, "label_map", None) is not None:
        raise UsageError("--label-map is for classification and multilabel; an ordinal audit needs none" + ORDINAL_MAP)
    if order is not None and order_file is not None:
        raise UsageError("--order and --order-file both give the order; give one of them")
