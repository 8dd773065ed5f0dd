"""``audit.json`` (and ``--json`` on the terminal): a document as indented UTF-8 JSON.

Free of jinja2 and the report model, so ``auditor score --json`` loads no rendering stack.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from auditor.formats.text import printable


def render_json(document: Mapping[str, Any]) -> str:
    """Indented JSON, non-ASCII kept, NaN refused (undefined values are ``null`` with a reason)."""
    return printable(json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False)) + "\n"
