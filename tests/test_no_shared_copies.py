"""No tracked file equals or largely repeats a file of the shared evaluation data (issue 31): public data is
fetched by ``auditor example`` or read from ``../shared/data`` in tests, never committed, whole or edited.

Every tracked file (``git ls-files``) is hashed against every shared file; and a tracked text file is flagged when
it shares many distinct lines (of at least :data:`MIN_CHARS` characters, stripped) with one shared file: at least
:data:`MANY_LINES`, or at least half of a shared file's such lines (when it has :data:`FEW_LINES` or more). Today's
largest overlap is 5 lines (a demo audit.json and UNER's .stats file share count captions).
"""
from __future__ import annotations

import collections
import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MIN_CHARS = 8
MANY_LINES = 20
FEW_LINES = 5


def distinct_lines(data: bytes) -> set[str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return set()
    return {line.strip() for line in text.splitlines() if len(line.strip()) >= MIN_CHARS}


def tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: the tracked files cannot be listed")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def test_no_tracked_file_equals_or_largely_repeats_a_shared_file(shared_data):
    hashes: dict[str, Path] = {}
    holders: dict[str, set[Path]] = collections.defaultdict(set)
    sizes: dict[Path, int] = {}
    for path in sorted(p for p in shared_data.rglob("*") if p.is_file()):
        data = path.read_bytes()
        hashes[hashlib.sha256(data).hexdigest()] = path
        lines = distinct_lines(data)
        sizes[path] = len(lines)
        for line in lines:
            holders[line].add(path)
    found = []
    for path in tracked_files():
        data = path.read_bytes()
        same = hashes.get(hashlib.sha256(data).hexdigest())
        if same is not None:
            found.append(f"{path.relative_to(ROOT)} equals {same}")
        shared = collections.Counter(holder for line in distinct_lines(data) for holder in holders.get(line, ()))
        for holder, count in shared.items():
            if count >= MANY_LINES or (sizes[holder] >= FEW_LINES and 2 * count >= sizes[holder]):
                found.append(f"{path.relative_to(ROOT)} repeats {count} of the {sizes[holder]} lines of {holder}")
    assert not found, "\n".join(found)
