"""Reading translation files: plain UTF-8 text, one segment per line, and human judgements.

A text file is split at ``\\n`` (a trailing ``\\r`` is dropped, so CRLF files read the same); the
last line's newline is optional. Every file of one audit must have the same number of lines
(segments are aligned by line). A human-score file has ``system<TAB>score`` (system level) or
``system<TAB>line<TAB>score`` (segment level, ``line`` the 1-based line of the text files) lines, or is WMT's
direct-assessment system ranking as its organisers publish it (``humaneval/DA/*/ad-sys-ranking-*.csv``: per line,
space-separated, the raw mean, the z mean, two counts, the system's id and, in the ``-names`` files, its name; the
score is the z mean, "the basis of overall scores for systems": scores standardised by each judge's mean and
standard deviation, WMT22 ``humaneval/DA/README.txt``, Kocmi et al. 2022).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from auditor.errors import InputError
from auditor.files import read_input, text_bytes

#: Human scores whose text is one of these are missing (the WMT MQM files write ``None``).
MISSING = frozenset({"", "None", "NA", "N/A", "nan", "NaN", "null", "-"})
#: A score: a decimal number in ASCII digits (``float`` alone would also take ``1_0``, ``٣`` and ``nAn``).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def read_lines(path: str | Path) -> list[str]:
    """The segments of ``path``: one per line, UTF-8, ``\\r\\n`` or ``\\n`` line ends (read and checked as every
    reader does: :func:`auditor.files.text_bytes`)."""
    expected = "UTF-8 text, one segment per line"
    lines = text_bytes(read_input(path, expected), str(path), expected).decode().split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def read_aligned(files: Mapping[str, str | Path]) -> dict[str, list[str]]:
    """Every file's segments, checked to have the same line count as the first file."""
    read = {name: read_lines(path) for name, path in files.items()}
    first_name = next(iter(files))
    expected = len(read[first_name])
    for name, lines in read.items():
        if len(lines) != expected:
            raise InputError(f"{files[name]} has {len(lines)} lines but {files[first_name]} has {expected}; "
                             f"translation files are aligned by line: one segment per line in every file")
    return read


@dataclass(frozen=True)
class HumanScores:
    """Human judgements: ``segments`` (N, S) with NaN where a segment is unrated (segment level),
    or ``system`` (S,) only (system level). ``lower_better`` scores are negated on reading."""

    level: str  # "segment" | "system"
    system: np.ndarray
    segments: np.ndarray | None
    missing: Mapping[str, int]
    source: str
    skipped: tuple[str, ...] = ()


def _score(text: str, where: str) -> float:
    if not _NUMBER.fullmatch(text):
        raise InputError(f"{where}: score {text!r} is not a number (ASCII digits, e.g. -1.5 or 2e-3); expected "
                         f"system<TAB>score or system<TAB>line<TAB>score")
    value = float(text)
    if math.isinf(value):
        raise InputError(f"{where}: score {text!r} is infinite")
    return value


def read_human(path: str | Path, systems: Sequence[str], n_segments: int, lower_better: bool) -> HumanScores:
    """Human scores of ``systems`` from ``path`` (system or segment level, as its first line says)."""
    rows = [(number, line.split("\t")) for number, line in enumerate(read_lines(path), 1)
            if line.strip() and not line.startswith("#")]
    if not rows:
        raise InputError(f"{path}: no scores; expected system<TAB>score or system<TAB>line<TAB>score lines")
    if len(rows[0][1]) == 1 and _is_wmt_ranking(rows[0][1][0]):
        rows = [(number, _wmt_ranking_row(fields, systems, f"{path} line {number}")) for number, fields in rows]
    width = len(rows[0][1])
    if width not in (2, 3):
        raise InputError(f"{path} line {rows[0][0]}: {width} tab-separated fields; expected system<TAB>score "
                         f"or system<TAB>line<TAB>score")
    sign = -1.0 if lower_better else 1.0
    index = {name: i for i, name in enumerate(systems)}
    segments = np.full((n_segments, len(systems)), np.nan) if width == 3 else None
    system = np.full(len(systems), np.nan)
    skipped: dict[str, None] = {}
    seen: dict[tuple[str, int], int] = {}  # (system, line or 0) -> the file line that scored it first
    for number, fields in rows:
        where = f"{path} line {number}"
        if len(fields) != width:
            raise InputError(f"{where}: {len(fields)} fields where line {rows[0][0]} has {width}")
        name = fields[0].strip()
        if name not in index:
            skipped[name] = None  # a system not audited (e.g. a second reference): left out, and said so
            continue
        value = np.nan if fields[-1].strip() in MISSING else sign * _score(fields[-1].strip(), where)
        line = 0 if segments is None else _line_number(fields[1], n_segments, where)
        if (name, line) in seen:
            of = f"system {name!r}" + (f" at line {line}" if line else "")
            raise InputError(f"{where}: a second score for {of} (the first on line {seen[name, line]}); expected "
                             f"one score per {'system and line' if line else 'system'}")
        seen[name, line] = number
        if segments is None:
            system[index[name]] = value
        else:
            segments[line - 1, index[name]] = value
    return _finish(path, systems, system, segments, tuple(skipped))


def _is_wmt_ranking(line: str) -> bool:
    """Whether ``line`` is a line of WMT's DA system ranking: four numbers, the system's id, maybe its name."""
    fields = line.split()
    return len(fields) in (5, 6) and all(_NUMBER.fullmatch(field) for field in fields[:4])


def _wmt_ranking_row(fields: list[str], systems: Sequence[str], where: str) -> list[str]:
    """``[system, z mean]`` of one ranking line. The system is the name column, else the id (``Online-W.2``)
    when an audited system has that name, else the id without its ``.N`` suffix."""
    if len(fields) != 1 or not _is_wmt_ranking(fields[0]):
        raise InputError(f"{where}: expected a line of WMT's DA system ranking like the first (raw mean, z mean, "
                         f"two counts, system id, optional name; separated by spaces)")
    values = fields[0].split()
    name = values[5] if len(values) == 6 else values[4]
    if len(values) == 5 and name not in systems:
        name = re.sub(r"\.[0-9]+$", "", name)
    return [name, values[1]]


def _line_number(text: str, n_segments: int, where: str) -> int:
    """The 1-based line a segment-level score is for: ASCII digits from 1 to ``n_segments``."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= n_segments:
        raise InputError(f"{where}: line {text!r} is not a line number from 1 to {n_segments} (ASCII digits)")
    return int(text)


def _finish(path: str | Path, systems: Sequence[str], system: np.ndarray, segments: np.ndarray | None,
            skipped: tuple[str, ...]) -> HumanScores:
    if segments is not None:
        rated = ~np.isnan(segments)
        with np.errstate(invalid="ignore"):
            system = np.where(rated.any(axis=0), np.nansum(segments, axis=0) / rated.sum(axis=0), np.nan)
        missing = {name: int((~rated[:, i]).sum()) for i, name in enumerate(systems)}
    else:
        missing = {name: int(np.isnan(system[i])) for i, name in enumerate(systems)}
    unscored = [name for i, name in enumerate(systems) if np.isnan(system[i])]
    if unscored:
        raise InputError(f"{path}: no human score for {'system' if len(unscored) == 1 else 'systems'} "
                         f"{', '.join(map(repr, unscored))}; every audited "
                         f"system needs one (names as the command line gives them)")
    return HumanScores("segment" if segments is not None else "system", system, segments, missing, str(path),
                       skipped)
