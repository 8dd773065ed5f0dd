"""Outputs written as a set: all the new files appear in OUTDIR at once, or none of them does.

:func:`write_files` writes every file into a staging directory ``OUTDIR.auditor-tmp-PID-XXXX``
beside OUTDIR. When all are written:

- a new OUTDIR is the staging directory renamed (one rename);
- an existing OUTDIR is swapped with the staging directory in one atomic exchange
  (Linux ``renameat2(RENAME_EXCHANGE)``), the files of OUTDIR that this run does not write
  being hard-linked into the staging directory first; the old directory is then removed.
  Where the exchange is not available, OUTDIR is renamed to ``OUTDIR.auditor-old-PID-XXXX``
  and the staging directory renamed into place; a kill between those two renames leaves
  the complete old directory, which the next run puts back before it starts.

A failure part-way (disk full, permission, a signal) removes the staging directory and
leaves OUTDIR exactly as it was; a new OUTDIR is not created. Staging directories left by a
SIGKILL are removed by the next run into the same OUTDIR (only those whose process is gone).

When OUTDIR cannot be swapped as a whole (it is the working directory or a mount point, it
holds subdirectories, or its parent is not writable), the staging directory is made inside
OUTDIR and the files are renamed one by one: each file is then replaced atomically, the set
only up to a kill between renames.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Mapping

from auditor.errors import OutputError

STAGING_TAG = "auditor-tmp"
OLD_TAG = "auditor-old"


def _file_mode() -> int:
    """rw for everyone the umask allows, like a plain ``open(path, "w")`` (mkstemp gives 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE = _file_mode()


def _directory_mode() -> int:
    """The mode ``os.mkdir`` would give (mkdtemp gives 0700)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o777 & ~umask


def write_files(outdir: str | os.PathLike, files: Mapping[str, bytes | str]) -> list[Path]:
    """Write ``{file name: content}`` into ``outdir`` as one set (see the module docstring).

    Returns the final paths. On any error nothing changes in ``outdir`` (a new ``outdir`` is
    not created) and an :class:`OutputError` names the directory and the reason.
    """
    directory = Path(outdir)
    for name in files:
        if not name or os.sep in name or name in (".", ".."):
            raise ValueError(f"not a plain file name: {name!r}")
    target = directory.resolve() if directory.exists() else directory.absolute()
    if target.exists() and not target.is_dir():
        raise OutputError(f"{directory}: exists and is not a directory; nothing was written")
    parent = target.parent
    created_parents = _missing_ancestors(parent)
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _remove_empty(created_parents)
        raise OutputError(f"{directory}: cannot create the output directory ({error.strerror or error}); "
                          f"nothing was written") from None
    recover_stale(target)
    whole = not target.exists() or _swappable(target)
    staging: Path | None = None
    finished = False
    try:
        staging = Path(tempfile.mkdtemp(prefix=f"{target.name}.{STAGING_TAG}-{os.getpid()}-",
                                        dir=parent if whole else target))
        for name, content in files.items():
            _write(staging / name, content.encode("utf-8") if isinstance(content, str) else content)
        if not whole:
            for name in files:
                os.replace(staging / name, target / name)
            staging.rmdir()
        elif not target.exists():
            os.chmod(staging, _directory_mode())
            os.rename(staging, target)
        else:
            os.chmod(staging, os.stat(target).st_mode & 0o7777)
            for entry in os.scandir(target):
                if entry.name not in files:
                    _carry_over(entry, staging / entry.name)
            _exchange(staging, target)
            shutil.rmtree(staging, ignore_errors=True)
        finished = True
    except OSError as error:
        raise OutputError(f"{directory}: cannot write the outputs ({error.strerror or error}); "
                          f"nothing was written") from None
    finally:
        if not finished:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            _remove_empty(created_parents)
    return [directory / name for name in files]


def _write(path: Path, data: bytes) -> None:
    with open(path, "xb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    os.chmod(path, FILE_MODE)


def _carry_over(entry: os.DirEntry, destination: Path) -> None:
    """Bring a file of OUTDIR that this run does not write into the staging directory: a hard
    link (no copy), or a copy where linking is refused (another owner, protected_hardlinks)."""
    try:
        os.link(entry.path, destination, follow_symlinks=False)
    except OSError:
        shutil.copy2(entry.path, destination, follow_symlinks=False)


def _swappable(target: Path) -> bool:
    """True when ``target`` can be exchanged as a whole directory without moving anything
    the user may be standing in or a subdirectory we would have to copy."""
    try:
        if target == Path.cwd().resolve() or Path.cwd().resolve().is_relative_to(target):
            return False
        if os.path.ismount(target) or not os.access(target.parent, os.W_OK | os.X_OK):
            return False
        return all(not entry.is_dir(follow_symlinks=False) for entry in os.scandir(target))
    except OSError:
        return False


_RENAME_EXCHANGE = 2


def _exchange(new: Path, old: Path) -> None:
    """Swap two directories: one atomic ``renameat2`` on Linux, else two renames (recoverable)."""
    renameat2 = _renameat2()
    if renameat2 is not None:
        at_fdcwd = -100
        if renameat2(at_fdcwd, os.fsencode(new), at_fdcwd, os.fsencode(old), _RENAME_EXCHANGE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise OSError(code, os.strerror(code), str(old))
    aside = Path(tempfile.mkdtemp(prefix=f"{old.name}.{OLD_TAG}-{os.getpid()}-", dir=old.parent))
    aside.rmdir()
    os.rename(old, aside)
    try:
        os.rename(new, old)
    except OSError:
        os.rename(aside, old)
        raise
    os.rename(aside, new)  # the caller removes ``new``, which now holds the old files


def _renameat2():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def recover_stale(target: Path) -> None:
    """Remove staging directories of ``target`` left by dead auditor processes; if ``target``
    is missing and a dead run left the previous directory aside, put it back."""
    pattern = re.compile(re.escape(target.name) + rf"\.({STAGING_TAG}|{OLD_TAG})-(\d+)-")
    places = [(target.parent, True)] + ([(target, False)] if target.is_dir() else [])
    for place, beside in places:
        try:
            entries = list(os.scandir(place))
        except OSError:
            continue
        for entry in entries:
            match = pattern.match(entry.name)
            if not match or not entry.is_dir(follow_symlinks=False) or _alive(int(match.group(2))):
                continue
            if beside and match.group(1) == OLD_TAG and not target.exists():
                os.rename(entry.path, target)
            else:
                shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def check_writable(outdir: str | os.PathLike) -> None:
    """Fail early, before any work, if ``outdir`` cannot be created or written.

    Checks the directory or its nearest existing ancestor; creates nothing.
    """
    directory = Path(outdir).absolute()
    existing = directory
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        what = "exists and is not a directory" if existing == directory else f"{existing} is a file"
        raise OutputError(f"{directory}: cannot create the output directory ({what}); nothing was written")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{directory}: cannot write there ({existing} is not writable); nothing was written")


def _missing_ancestors(path: Path) -> list[Path]:
    """The directories ``mkdir(parents=True)`` would create for ``path``, deepest first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def _remove_empty(directories: list[Path]) -> None:
    for directory in directories:
        try:
            directory.rmdir()
        except OSError:
            return


def write_file(path: str | os.PathLike, content: bytes | str) -> Path:
    """Write one file atomically (temporary file in the same directory + rename)."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    created = _missing_ancestors(directory.absolute())
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        _remove_empty(created)
        raise OutputError(f"{path}: cannot write it ({error.strerror or error}); nothing was written") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except OSError as error:
        raise OutputError(f"{path}: cannot write it ({error.strerror or error}); nothing was written") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return path
