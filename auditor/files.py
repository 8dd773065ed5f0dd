"""Reading a file's bytes, the one way every reader does it: an input file (labels, scores, tags, segments,
label sets, clusters) is a regular, non-empty file, and a text input is UTF-8 text, not a compressed or binary
file, each refused otherwise with one error naming the file (and the line of the first byte that is not UTF-8);
the small text files that options and pasted tables come in (a prevalence file, a paper's per-class table), bounded
in size; and the SHA-256 of a file as stored, the hash every ``sources`` entry carries whatever reads the file."""
from __future__ import annotations

import hashlib
import os
import stat

from auditor.errors import AuditorError, InputError

#: Leading bytes of the binary files people pass by mistake -> what the file is.
MAGIC = {
    b"\x1f\x8b": "a gzip-compressed file", b"PK\x03\x04": "a zip archive (or Excel workbook)",
    b"BZh": "a bzip2-compressed file", b"\xfd7zXZ\x00": "an xz-compressed file",
    b"\x93NUMPY": "a NumPy array file", b"%PDF": "a PDF",
}
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
_UTF16 = (b"\xff\xfe", b"\xfe\xff")


def read_input(source: str | os.PathLike[str], expected: str) -> bytes:
    """The bytes of a regular, non-empty file, or one InputError naming ``source``, saying what it is instead
    (missing, a directory, a FIFO or device, unreadable, empty) and what was ``expected``."""
    try:
        info = os.stat(source)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{source}: is a directory; expected {expected}")
        if not stat.S_ISREG(info.st_mode):
            what = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise InputError(f"{source}: is {what}, not a regular file; expected {expected}")
        with open(source, "rb") as stream:
            raw = stream.read()
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except PermissionError:
        raise InputError(f"{source}: cannot read the file (permission denied)") from None
    except (OSError, ValueError) as error:
        raise InputError(f"{source}: cannot read the file ({getattr(error, 'strerror', None) or error})") from None
    if not raw:
        raise InputError(f"{source}: the file is empty; expected {expected}")
    return raw


def text_bytes(raw: bytes, source: str, expected: str) -> bytes:
    """The bytes of a UTF-8 text file with a byte-order mark dropped and line ends made ``\\n``; a compressed or
    binary file, UTF-16 text or a byte that is not UTF-8 is one InputError naming ``source`` (and the line)."""
    for magic, what in MAGIC.items():
        if raw.startswith(magic):
            raise InputError(f"{source}: unknown format, looks like {what}; expected {expected}")
    if b"\x00" in raw[:8192] and not raw.startswith(_UTF16):
        raise InputError(f"{source}: unknown format (binary data); expected {expected}")
    if raw.startswith(_UTF16) or not (raw.isascii() or _is_utf8(raw)):
        decode_utf8(raw, source)  # the message: UTF-16, or the line and byte of the first that is not UTF-8
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return raw


def decode_utf8(raw: bytes, source: str) -> str:
    """``raw`` as text (a UTF-8 byte-order mark dropped), or an error naming the line of the first bad byte."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{source}: UTF-16 text; expected UTF-8 (save the file as UTF-8)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        start = error.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
        line = raw.count(b"\n", 0, start) + 1
        raise InputError(
            f"{source} line {line} (byte {start}): not UTF-8 text (found byte "
            f"0x{raw[start]:02x}); expected UTF-8, save the file as UTF-8"
        ) from None


def _is_utf8(raw: bytes) -> bool:
    """Whether ``raw`` is UTF-8, checked by arrow's validator in place (``bytes.decode`` would build the text)."""
    import numpy as np
    import pyarrow as pa

    offsets = pa.py_buffer(np.array([0, len(raw)], np.int64))
    try:
        pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, pa.py_buffer(raw)]).validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


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
