"""Characters every output format must show safely: control characters and lone surrogates."""
from __future__ import annotations


def is_control(ch: str) -> bool:
    """A C0/C1 control character, DEL, or a lone surrogate."""
    code = ord(ch)
    return code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF or 0x80 <= code < 0xA0


def printable(text: str) -> str:
    """``text`` with each lone surrogate written as its escape ``\\udcff``: valid UTF-8 in every
    output, and in JSON the very escape that stands for it. Labels and system names with lone
    surrogates are refused before scoring (:func:`auditor.options.check_names`); this covers
    file paths given as undecodable bytes, which the report prints."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
