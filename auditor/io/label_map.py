"""A label map (``--label-map FILE``): ``label<TAB>group`` lines, a header line allowed, ``#`` comments skipped.

Read stage. Auditing at the group level (GoEmotions' 28 emotions -> Ekman's six plus neutral, or a fine label
set -> a coarse one) replaces each label by its group before counting. Every label of the inputs needs a group;
the task that applies the map says which label lacks one.
"""
from __future__ import annotations

import os

from auditor.errors import InputError
from auditor.io.lines import decode_utf8, is_comment

__all__ = ["read_label_map"]

#: Header words: a first line whose first field is one of ``LABEL_WORDS`` or whose second is one of
#: ``GROUP_WORDS`` is a header.
LABEL_WORDS = ("label", "labels", "emotion", "class", "fine", "from", "name")
GROUP_WORDS = ("group", "groups", "coarse", "to", "category", "parent")


def read_label_map(path: str | os.PathLike) -> dict[str, str]:
    """label -> group, in file order."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as stream:
            text = decode_utf8(stream.read(), source)
    except OSError as error:
        raise InputError(f"{source}: cannot read the label map ({error.strerror or error})") from None
    found: dict[str, str] = {}
    first = True
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip(" \t\r")
        if not stripped or is_comment(stripped):
            continue
        fields = [field.strip(" ") for field in line.rstrip("\r").split("\t")]
        if len(fields) != 2 or not fields[0] or not fields[1]:
            raise InputError(f"{source} line {number}: {line!r}; expected `label<TAB>group`")
        if first and (fields[0].lower() in LABEL_WORDS or fields[1].lower() in GROUP_WORDS):
            first = False
            continue
        first = False
        if fields[0] in found and found[fields[0]] != fields[1]:
            raise InputError(f"{source} line {number}: label {fields[0]!r} mapped to {found[fields[0]]!r} and to "
                             f"{fields[1]!r}; expected one group per label")
        found[fields[0]] = fields[1]
    if not found:
        raise InputError(f"{source}: no lines `label<TAB>group`")
    return found
