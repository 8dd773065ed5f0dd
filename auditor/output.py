"""Atomic outputs: write every file to a temporary name, rename only when all succeeded.

A failure part-way leaves the output directory exactly as it was (DESIGN.md "Bad input").
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Mapping

from .errors import OutputError


def _file_mode() -> int:
    """rw for everyone the umask allows, like a plain ``open(path, "w")`` (mkstemp gives 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE = _file_mode()


def write_files(outdir: str | os.PathLike, files: Mapping[str, bytes | str]) -> list[Path]:
    """Write ``{file name: content}`` into ``outdir`` atomically as a set.

    Every file is first written to a temporary file in ``outdir``; only when all of them
    are written are they renamed into place. On any error the temporaries are removed and
    an :class:`OutputError` names the path that could not be written.
    """
    directory = Path(outdir)
    created = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{directory}: cannot create the output directory ({error.strerror or error})") from None
    staged: list[tuple[Path, Path]] = []
    try:
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, FILE_MODE)
            staged.append((Path(temporary), directory / name))
        for temporary, final in staged:
            os.replace(temporary, final)
    except OSError as error:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        if created:
            _remove_if_empty(directory)
        raise OutputError(f"{directory}: cannot write the outputs ({error.strerror or error}); nothing was written") from None
    return [final for _, final in staged]


def check_writable(outdir: str | os.PathLike) -> None:
    """Fail early, before any work, if ``outdir`` cannot be created or written.

    Checks the directory or its nearest existing ancestor; creates nothing.
    """
    directory = Path(outdir).absolute()
    existing = directory
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"{directory}: cannot create the output directory ({existing} is a file); nothing was written")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{directory}: cannot write there ({existing} is not writable); nothing was written")


def _remove_if_empty(directory: Path) -> None:
    try:
        directory.rmdir()
    except OSError:
        pass


def write_file(path: str | os.PathLike, content: bytes | str) -> Path:
    """Write one file atomically (temporary file in the same directory + rename)."""
    path = Path(path)
    return write_files(path.parent if str(path.parent) else ".", {path.name: content})[0]
