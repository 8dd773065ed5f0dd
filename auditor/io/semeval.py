"""SemEval/CodaLab submission metadata: display names of systems whose file stem is a submission ID."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from auditor.errors import InputError

__all__ = ["semeval_names"]


def semeval_names(directory: str | os.PathLike) -> dict[str, str]:
    """Display names of SemEval/CodaLab submissions from ``metadata-public.xml``.

    Maps each ``submissionID`` to its ``shownName``, else ``systemName``, else
    ``username``; a withdrawn submission is named ``"NAME (withdrawn)"``. Returns ``{}``
    when the directory has no such file. Used to name systems whose file stem is a
    submission ID (SemEval-2018 Task 12's ``submissions/``).

    Raises
    ------
    InputError
        If the file is not well-formed XML or declares entities (which are not expanded).
    """
    place = Path(directory)
    file = place if place.is_file() else place / "metadata-public.xml"
    if not file.is_file():
        return {}
    raw = file.read_bytes()
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise InputError(f"{file}: declares a DOCTYPE or entities; refusing to expand them")
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError as error:
        raise InputError(f"{file}: not well-formed XML ({error})") from None
    names: dict[str, str] = {}
    for element in root.iter("participant"):
        submission = (element.get("submissionID") or "").strip()
        if not submission:
            continue
        name = next((v.strip() for v in (element.get("shownName"), element.get("systemName"),
                                          element.get("username")) if v and v.strip()),
                    submission)
        if (element.get("withdrawn") or "").lower() == "true":
            name = f"{name} (withdrawn)"
        names[submission] = name
    return names

