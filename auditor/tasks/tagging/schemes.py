"""Tagging schemes and span rules: tags -> prefix and type codes -> chunks, vectorised over tokens.

A tag is ``O`` or ``PREFIX-TYPE`` (the prefix before the first ``-``). Prefix codes: O 0, B 1,
I 2, E 3, S 4, L 5, U 6; the type code of ``O`` is -1. Tokens of all sentences sit in one
flat array; ``first`` marks each sentence's first token, where the previous tag is taken to be
``O`` (as both conlleval's sentence boundary and seqeval's outside token are).

Two span rules:

* ``conlleval``: the Perl script's ``startOfChunk``/``endOfChunk`` (Tjong Kim Sang & Buchholz
  2000, the CoNLL-2000 evaluation script): a chunk starts at ``B`` after ``B``, ``I`` or ``O``;
  at ``I`` or ``E`` after ``O``; at ``E`` or ``I`` after ``E``; and wherever the type changes on a
  tag other than ``O``. Every non-``O`` token belongs to the chunk opened last; ``O`` closes it.
  Prefixes the script does not know (``S``, ``L``, ``U``) start chunks only through a type change,
  as the script does (so ``S-X S-X`` is one chunk there).
* ``strict``: seqeval's strict mode (its ``scheme`` module): a chunk starts where the scheme's
  start patterns match, continues while its inside patterns match, and counts only when its
  last token matches an end pattern; other chunks are dropped. seqeval scans greedily; the
  tokens a scan consumes are found here from runs of inside matches (:func:`strict_spans`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from auditor.errors import InputError, UsageError

PREFIXES = ("O", "B", "I", "E", "S", "L", "U")
O, B, I, E, S, L, U = range(7)
SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")
RULES = ("conlleval", "strict")
#: Prefixes each scheme allows (seqeval's ``allowed_prefix``).
ALLOWED = {"IOB1": {O, B, I}, "IOB2": {O, B, I}, "IOE1": {O, I, E}, "IOE2": {O, I, E},
           "IOBES": {O, B, I, E, S}, "BILOU": {O, B, I, L, U}}
ANY = tuple(range(7))
SAME, DIFF, EITHER = "same", "diff", "either"

#: seqeval's strict patterns per scheme: (previous prefixes, prefixes, type condition).
_PATTERNS: dict[str, dict[str, tuple[tuple[tuple[int, ...], tuple[int, ...], str], ...]]] = {
    "IOB1": {"start": (((O,), (I,), EITHER), ((I,), (I,), DIFF), ((B,), (I,), EITHER), ((I,), (B,), SAME),
                       ((B,), (B,), SAME)),
             "inside": (((B,), (I,), SAME), ((I,), (I,), SAME)),
             "end": (((I,), (I,), DIFF), ((I,), (O,), EITHER), ((I,), (B,), EITHER), ((B,), (O,), EITHER),
                     ((B,), (I,), DIFF), ((B,), (B,), SAME))},
    "IOE1": {"start": (((O,), (I,), EITHER), ((I,), (I,), DIFF), ((E,), (I,), EITHER), ((E,), (E,), SAME)),
             "inside": (((I,), (I,), SAME), ((I,), (E,), SAME)),
             "end": (((I,), (I,), DIFF), ((I,), (O,), EITHER), ((I,), (E,), DIFF), ((E,), (I,), SAME),
                     ((E,), (E,), SAME))},
    "IOB2": {"start": ((ANY, (B,), EITHER),),
             "inside": (((B,), (I,), SAME), ((I,), (I,), SAME)),
             "end": (((I,), (O,), EITHER), ((I,), (I,), DIFF), ((I,), (B,), EITHER), ((B,), (O,), EITHER),
                     ((B,), (I,), DIFF), ((B,), (B,), EITHER))},
    "IOE2": {"start": (((O,), (I,), EITHER), ((O,), (E,), EITHER), ((E,), (I,), EITHER), ((E,), (E,), EITHER),
                       ((I,), (I,), DIFF), ((I,), (E,), DIFF)),
             "inside": (((I,), (E,), SAME), ((I,), (I,), SAME)),
             "end": (((E,), ANY, EITHER),)},
    "IOBES": {"start": ((ANY, (B,), EITHER), (ANY, (S,), EITHER)),
              "inside": (((B,), (I,), SAME), ((B,), (E,), SAME), ((I,), (I,), SAME), ((I,), (E,), SAME)),
              "end": (((S,), ANY, EITHER), ((E,), ANY, EITHER))},
    "BILOU": {"start": ((ANY, (B,), EITHER), (ANY, (U,), EITHER)),
              "inside": (((B,), (I,), SAME), ((B,), (L,), SAME), ((I,), (I,), SAME), ((I,), (L,), SAME)),
              "end": (((U,), ANY, EITHER), ((L,), ANY, EITHER))},
}


def _table(patterns: tuple[tuple[tuple[int, ...], tuple[int, ...], str], ...]) -> np.ndarray:
    """Patterns -> boolean table ``[previous prefix, prefix, same type]`` (7 x 7 x 2)."""
    table = np.zeros((7, 7, 2), dtype=bool)
    for previous, current, condition in patterns:
        for p in previous:
            for c in current:
                if condition in (SAME, EITHER):
                    table[p, c, 1] = True
                if condition in (DIFF, EITHER):
                    table[p, c, 0] = True
    return table


TABLES = {scheme: {kind: _table(patterns) for kind, patterns in kinds.items()} for scheme, kinds in _PATTERNS.items()}


@dataclass(frozen=True)
class TagCodes:
    """Prefix and type code of every tag of a tag vocabulary (``tags[i]`` -> ``prefix[i]``, ``type[i]``)."""

    tags: tuple[str, ...]
    prefix: np.ndarray
    type: np.ndarray
    types: tuple[str, ...]


def parse_tags(tags: Sequence[str], where: Sequence[str] | None = None) -> TagCodes:
    """Split each distinct tag into prefix and type. A tag without ``-`` other than ``O`` is
    refused unless no tag has a prefix (then the tags are plain labels, e.g. parts of speech,
    and no span exists); so are unknown prefixes and empty types. ``where`` names each tag's
    first occurrence (for messages)."""
    prefix = np.zeros(len(tags), dtype=np.int8)
    types: dict[str, int] = {}
    type_of = np.full(len(tags), -1, dtype=np.int64)
    split = [tag.split("-", 1) if tag != "O" else ["O"] for tag in tags]
    bare = [i for i, parts in enumerate(split) if len(parts) == 1 and tags[i] != "O"]
    if bare and len(bare) < len(tags) - ("O" in tags):
        i = bare[0]
        raise InputError(f"{_at(where, i)}tag {tags[i]!r} has no prefix while others do (B-, I-, E-, S-, L-, U-); "
                         f"every tag but O must be PREFIX-TYPE, or none has a prefix")
    if bare:
        return TagCodes(tuple(tags), np.zeros(len(tags), dtype=np.int8), type_of, ())
    for i, parts in enumerate(split):
        if len(parts) == 1:
            continue
        head, kind = parts
        if head not in PREFIXES[1:]:
            raise InputError(f"{_at(where, i)}tag {tags[i]!r}: unknown prefix {head!r}; expected one of "
                             f"B, I, E, S, L, U (or the tag O)")
        if not kind:
            raise InputError(f"{_at(where, i)}tag {tags[i]!r} has an empty type; expected PREFIX-TYPE")
        prefix[i] = PREFIXES.index(head)
        types.setdefault(kind, 0)
    ordered = tuple(sorted(types))
    index = {kind: position for position, kind in enumerate(ordered)}
    for i, parts in enumerate(split):
        if len(parts) == 2:
            type_of[i] = index[parts[1]]
    return TagCodes(tuple(tags), prefix, type_of, ordered)


def _at(where: Sequence[str] | None, i: int) -> str:
    return f"{where[i]}: " if where is not None else ""


def detect_scheme(prefix: np.ndarray, types: np.ndarray, first: np.ndarray) -> tuple[str | None, str]:
    """The scheme of gold prefix codes (one per token) and why: IOBES (``S`` or ``E`` with ``B``),
    BILOU (``L``/``U``), IOE1/IOE2 (``E`` without ``B``), IOB1/IOB2 (``B``/``I`` only). IOB1 when a
    chunk opens with ``I`` (after ``O``, a sentence start or another type), IOB2 otherwise; IOE1
    when a chunk closes with ``I``, IOE2 otherwise. None when no tag has a prefix."""
    present = set(np.flatnonzero(np.bincount(prefix, minlength=len(PREFIXES))).tolist()) - {O}
    if not present:
        return None, "no tag has a prefix: no spans (token metrics only)"
    names = ", ".join(PREFIXES[p] for p in sorted(present))
    if present & {L, U}:
        if present & {E, S}:
            raise InputError(f"the tags mix BILOU prefixes (L, U) with IOBES ones (E, S): prefixes {names}")
        return "BILOU", f"prefixes {names}"
    if S in present or (E in present and B in present):
        return "IOBES", f"prefixes {names}"
    previous_prefix, previous_type = _previous(prefix, types, first)
    if E in present:
        last = np.r_[first[1:], True]
        next_prefix = np.where(last, O, np.r_[prefix[1:], O])
        next_type = np.where(last, -1, np.r_[types[1:], -1])
        closes_with_i = (prefix == I) & ((next_prefix == O) | (next_type != types))
        if closes_with_i.any():
            return "IOE1", f"prefixes {names}; a chunk closes with I- (IOE1 marks E- only before a same-type chunk)"
        return "IOE2", f"prefixes {names}; every chunk closes with E-"
    opens_with_i = (prefix == I) & ((previous_prefix == O) | (previous_type != types))
    if opens_with_i.any():
        return "IOB1", f"prefixes {names}; a chunk opens with I- (IOB1 marks B- only after a same-type chunk)"
    return "IOB2", f"prefixes {names}; every chunk opens with B-"


def default_rule(scheme: str) -> str:
    """``conlleval`` for IOB1/IOB2/IOE1/IOE2 (the script's own schemes), ``strict`` otherwise."""
    return "conlleval" if scheme in ("IOB1", "IOB2", "IOE1", "IOE2") else "strict"


def check_choice(scheme: str | None, rule: str | None) -> None:
    if scheme is not None and scheme not in SCHEMES:
        raise UsageError(f"--scheme: expected one of {', '.join(SCHEMES)}; found {scheme!r}")
    if rule is not None and rule not in RULES:
        raise UsageError(f"--span-rule: expected one of {', '.join(RULES)}; found {rule!r}")


def _shift(values: np.ndarray, first: np.ndarray, fill: int) -> np.ndarray:
    """The previous token's value (``fill`` at a sentence's first token)."""
    out = np.empty_like(values)
    out[0] = fill
    out[1:] = values[:-1]
    out[first] = fill
    return out


def _previous(prefix: np.ndarray, types: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Previous token's prefix and type codes (O and -1 at a sentence's first token)."""
    return _shift(prefix, first, O), _shift(types, first, -1)


def _next_differs(mask: np.ndarray, last: np.ndarray) -> np.ndarray:
    """True where the next token of the sentence is not in ``mask`` (or there is none)."""
    out = np.ones_like(mask)
    out[:-1] = ~mask[1:]
    return out | last


@dataclass(frozen=True)
class Spans:
    """Chunks as token index ranges ``[start, end]`` (inclusive, global token indices) and type
    codes, sorted by start; ``dropped`` counts chunks seen and not counted (strict rule only)."""

    start: np.ndarray
    end: np.ndarray
    type: np.ndarray
    dropped: int = 0

    @property
    def size(self) -> int:
        return int(self.start.size)


def conlleval_spans(prefix: np.ndarray, types: np.ndarray, first: np.ndarray,
                    previous: tuple[np.ndarray, np.ndarray] | None = None) -> Spans:
    """Chunks by conlleval's ``startOfChunk``/``endOfChunk`` (module docstring): a chunk opens at
    every token where the start rule holds and runs over the following non-``O`` tokens up to the
    next start, ``O`` or sentence end."""
    pp, pt = previous or _previous(prefix, types, first)
    key = pp.astype(np.int16) * 7 + prefix
    start = np.take(_CONLLEVAL_START, key) | ((prefix != O) & (pt != types))
    inside = prefix != O
    last = _last(first)
    closes = inside & _next_differs(~start & inside, last)
    starts = np.flatnonzero(start)
    return Spans(starts, np.flatnonzero(closes), types[starts])


def _conlleval_start_table() -> np.ndarray:
    """(previous prefix, prefix) -> the script's prefix rules for a chunk start (type change aside)."""
    table = np.zeros(49, dtype=bool)
    for previous, current in ((B, B), (I, B), (O, B), (O, I), (E, E), (E, I), (O, E)):
        table[previous * 7 + current] = True
    return table


_CONLLEVAL_START = _conlleval_start_table()


def _last(first: np.ndarray) -> np.ndarray:
    last = np.empty_like(first)
    last[:-1] = first[1:]
    last[-1] = True
    return last


def strict_spans(prefix: np.ndarray, types: np.ndarray, first: np.ndarray, scheme: str,
                 previous: tuple[np.ndarray, np.ndarray] | None = None) -> Spans:
    """Chunks by seqeval's strict mode for ``scheme`` (module docstring).

    ``S[t]``/``IN[t]`` = start/inside pattern of (previous, current). seqeval's scan consumes a
    token when it is inside and a start lies in the run of inside tokens before it (including the
    token before the run), so a start that is not consumed opens a chunk, which runs to the end
    of the run of inside tokens after it and counts when (last, next) matches an end pattern.
    """
    tables = TABLES[scheme]
    pp, pt = previous or _previous(prefix, types, first)
    key = (pp.astype(np.int16) * 7 + prefix) * 2 + (pt == types)
    start = np.take(tables["start"].ravel(), key)
    inside = np.take(tables["inside"].ravel(), key)
    if (start & inside).any():  # only IOB1/IOE1 patterns overlap: then seqeval's scan skips consumed starts
        n = prefix.size
        index = np.arange(n)
        run_start = np.maximum.accumulate(np.where(inside, 0, index + 1))  # first index of t's inside run
        starts_before = np.concatenate([[0], np.cumsum(start)])  # starts in [0, t)
        consumed = inside & (starts_before[index] - starts_before[np.maximum(run_start - 1, 0)] > 0)
        start = start & ~consumed
    opens = np.flatnonzero(start)
    last = _last(first)
    stops = np.flatnonzero(_next_differs(inside, last) & (start | inside))  # in a chunk, next token not inside
    ends = stops[np.searchsorted(stops, opens)]
    following = np.minimum(ends + 1, prefix.size - 1)
    at_end = last[ends]
    next_prefix = np.where(at_end, O, prefix[following])
    next_type = np.where(at_end, -1, types[following])
    valid = np.take(tables["end"].ravel(), (prefix[ends].astype(np.int16) * 7 + next_prefix) * 2
                    + (next_type == types[ends]))
    return Spans(opens[valid], ends[valid], types[opens[valid]], int((~valid).sum()))


def check_allowed(prefix: np.ndarray, scheme: str, tags: Sequence[str], codes: np.ndarray, source: str,
                  lines: np.ndarray) -> None:
    """Refuse a tag whose prefix the scheme does not allow (as seqeval's strict mode does)."""
    allowed = np.zeros(7, dtype=bool)
    allowed[list(ALLOWED[scheme])] = True
    bad = np.flatnonzero(~allowed[prefix])
    if bad.size:
        t = bad[0]
        raise InputError(f"{source} line {lines[t]}: tag {tags[codes[t]]!r} is not a {scheme} tag (prefixes "
                         f"{', '.join(PREFIXES[p] for p in sorted(ALLOWED[scheme]))}); give --scheme or "
                         f"--span-rule conlleval")


def spans(prefix: np.ndarray, types: np.ndarray, first: np.ndarray, scheme: str, rule: str,
          previous: tuple[np.ndarray, np.ndarray] | None = None) -> Spans:
    """Chunks of one tag sequence by ``rule`` (``conlleval`` or ``strict``) under ``scheme``."""
    if rule == "conlleval":
        return conlleval_spans(prefix, types, first, previous)
    return strict_spans(prefix, types, first, scheme, previous)
