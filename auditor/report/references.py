"""The report's References: full entries, read from the BibTeX file shipped in the package
(``auditor/references.bib``), for every work the report's text cites by author and year.

A work is cited as "Opitz 2024 §4.5", "Vickers et al. (2023)", "Cohen 1960": the first
author's surname, then (within a few words) the year. :func:`cited` finds them in the text and
:func:`entry_text` writes each as "Authors (year). Title. Venue, volume(number), pages."
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Iterable

#: LaTeX accent commands of the bib file -> the combining character they stand for.
_ACCENTS = {"'": "\u0301", '"': "\u0308", "`": "\u0300", "^": "\u0302", "~": "\u0303", "v": "\u030c", "=": "\u0304"}
_ACCENT = re.compile(r"\{?\\([\"'`^~=v])\{?\\?([A-Za-z])\}?\}?")
_FIELD = re.compile(r"(\w+)\s*=\s*")


@dataclass(frozen=True)
class Reference:
    """One bib entry: its key, type and fields (LaTeX already turned into text)."""

    key: str
    kind: str
    fields: tuple[tuple[str, str], ...]

    def get(self, name: str) -> str:
        return dict(self.fields).get(name, "")

    @property
    def surnames(self) -> list[str]:
        return [name.split(",")[0].strip() for name in self.get("author").split(" and ")]

    @property
    def cite(self) -> str:
        """How the report cites it: "Cohen 1960", "Opitz & Burst 2019", "Vickers et al. 2023"."""
        names = self.surnames
        who = names[0] if len(names) == 1 else " & ".join(names) if len(names) == 2 else f"{names[0]} et al."
        return f"{who} {self.get('year')}"


def _text(latex: str) -> str:
    """A bib field as plain text: accents as characters, ``\\&`` and ``\\%`` as themselves, no braces."""
    import unicodedata

    text = _ACCENT.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + _ACCENTS[m.group(1)]), latex)
    text = text.replace(r"\&", "&").replace(r"\%", "%").replace("--", "–")
    return re.sub(r"\s+", " ", text.replace("{", "").replace("}", "")).strip()


def _braced(text: str, start: int) -> tuple[str, int]:
    """The content of the brace group opening at ``text[start]`` and the index after it."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start + 1:index], index + 1
    raise ValueError(f"unbalanced braces in references.bib from character {start}")


def parse_bib(text: str) -> dict[str, Reference]:
    """Entries of a BibTeX file (``%`` comment lines skipped; values in braces or bare numbers)."""
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("%"))
    out = {}
    for match in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", text):
        body, _ = _braced(text, match.start() + match.group(0).index("{"))
        fields, position = [], body.index(",") + 1
        while (found := _FIELD.search(body, position)) is not None:
            start = found.end()
            if body[start] == "{":
                value, position = _braced(body, start)
            else:
                value = re.match(r"[^,}\s]*", body[start:]).group(0)
                position = start + len(value)
            fields.append((found.group(1).lower(), _text(value)))
        out[match.group(2)] = Reference(match.group(2), match.group(1).lower(), tuple(fields))
    return out


@lru_cache(maxsize=1)
def references() -> dict[str, Reference]:
    """The package's bib entries (``auditor/references.bib``)."""
    return parse_bib((resources.files("auditor") / "references.bib").read_text(encoding="utf-8"))


def cited(texts: Iterable[str]) -> list[Reference]:
    """The entries the texts cite (first author's surname, then the year within 40 characters),
    ordered by first author and year."""
    text = "\n".join(texts)
    found = []
    for entry in references().values():
        surname, year = entry.surnames[0], entry.get("year")
        if surname and year and re.search(rf"\b{re.escape(surname)}\b[^\n]{{0,40}}?\b{year}\b", text):
            found.append(entry)
    return sorted(found, key=lambda e: (e.surnames[0], e.get("year"), e.key))


def _authors(entry: Reference) -> str:
    names = []
    for name in entry.get("author").split(" and "):
        surname, _, given = (part.strip() for part in name.partition(","))
        initials = " ".join(f"{part[0]}." for part in re.split(r"[\s.]+", given) if part)
        names.append(f"{surname}, {initials}" if initials else surname)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " & " + names[-1]


def entry_text(entry: Reference) -> str:
    """One reference: "Authors (year). Title. Venue, volume(number), pages." (APA-like)."""
    venue = entry.get("journal") or entry.get("booktitle") or entry.get("publisher")
    if entry.get("booktitle"):
        venue = f"In {venue}"
    volume = entry.get("volume") + (f"({entry.get('number')})" if entry.get("number") else "")
    tail = ", ".join(part for part in (venue, volume, entry.get("pages")) if part)
    edition = f" ({entry.get('edition')} ed.)" if entry.get("edition") else ""
    head = f"{_authors(entry)} ({entry.get('year')}). {entry.get('title')}{edition}."
    url = re.sub(r"^\\url", "", entry.get("howpublished"))  # a web page: its address, as APA gives it
    return (f"{head} {tail}.".replace("..", ".") if tail else head) + (f" {url}" if url.startswith("http") else "")
