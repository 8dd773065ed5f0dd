"""Read the small text files that options and pasted tables come in (a prevalence file, a
paper's per-class table): bounded in size, UTF-8, one clear error naming the file otherwise; and the SHA-256 of
a file as stored, the hash every ``sources`` entry carries whatever reads the file."""
from __future__ import annotations

import hashlib
import os

from auditor.errors import AuditorError, InputError


def read_small_text(path: str | os.PathLike[str], source: str, limit: int, expected: str,
                    error: type[AuditorError] = InputError) -> str:
    """The UTF-8 text of ``path`` (a byte-order mark dropped), at most ``limit`` bytes; otherwise
    one ``error`` that names ``source`` (and the line of the first byte that is not UTF-8) and says
    what was ``expected``."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(limit + 1)
    except OSError as problem:
        raise error(f"{source}: cannot read it ({problem.strerror or problem})") from None
    if len(data) > limit:
        raise error(f"{source}: larger than {limit // 1_000_000} MB; expected {expected}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        line = data[:problem.start].count(b"\n") + 1
        raise error(f"{source} line {line}: not UTF-8 text (byte 0x{data[problem.start]:02x}); "
                    f"expected {expected}") from None


def file_sha256(path: str | os.PathLike[str]) -> str | None:
    """The SHA-256 of the file's bytes as stored, read in 1 MiB blocks (None where ``path`` is not a local file,
    e.g. an ``hdfs://`` place Spark reads): the same hash the in-memory readers take of the bytes they read."""
    if not os.path.isfile(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
