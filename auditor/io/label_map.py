"""A label map (``--label-map FILE``): ``label<TAB>group`` lines, a header line allowed, ``#`` comments skipped.

Read stage. Auditing at the group level (GoEmotions' 28 emotions -> Ekman's six plus neutral, or a fine label
set -> a coarse one, GermEval-2018's ABUSE, INSULT, PROFANITY -> OFFENSE) replaces each label by its group before
counting. Every label of the inputs needs a group: the multi-label task maps its sets (:mod:`auditor.tasks.multilabel.
align`), classification its label columns (:func:`group_labels`), and a label without a group is one error naming
the map and the label.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Mapping

import numpy as np

from auditor.errors import InputError
from auditor.io.column import LabelColumn, merge_codes
from auditor.io.lines import decode_utf8, is_comment
from auditor.io.validate import is_missing

__all__ = ["read_label_map", "group_labels"]

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


def group_labels(column: LabelColumn, groups: Mapping[str, str], source: str) -> LabelColumn:
    """``column`` with each label replaced by its group (labels of one group become one label); a missing-value
    marker is left for :func:`auditor.io.validate.check_labels` to refuse.

    Raises
    ------
    InputError
        A label of ``column`` without a group, naming the map (``source``), the label and its first item.
    """
    missing = [code for code, text in enumerate(column.categories) if text not in groups and not is_missing(text)]
    if missing:
        label = column.categories[missing[0]]
        first = int(np.flatnonzero(column.codes == missing[0])[0])
        more = f" (and {len(missing) - 1} more: {', '.join(repr(column.categories[c]) for c in missing[1:4])})" \
            if len(missing) > 1 else ""
        raise InputError(f"{source}: no group for label {label!r} (first at {column.where(first)}){more}; expected a "
                         f"line `label<TAB>group` for every label of the files")
    codes, categories = merge_codes(column.codes, [groups.get(text, text) for text in column.categories])
    return replace(column, codes=codes, categories=categories)
