"""Helpers the dataset builders share: optional dependencies and plain file writing."""
from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from auditor.errors import UsageError


def require(module: str, package: str) -> ModuleType:
    """Import an optional dependency of the example builders, or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(f"building this example needs {package}: pip install 'auditor[examples]'") from None


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 text with ``\\n`` line ends, making the parent folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
