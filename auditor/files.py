"""Read the small text files that options and pasted tables come in (a prevalence file, a
paper's per-class table): bounded in size, UTF-8, one clear error naming the file otherwise."""
from __future__ import annotations

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
