"""Read tagged files: one token per line (blank lines between sentences), CoNLL-U-like numbered
files, conlleval's own layout, JSON Lines; then align gold and systems one to one.

Layouts (detected from the first line neither blank nor starting with ``#``; ``--tag-column N`` overrides,
1-based):

* ``token<TAB or space>tag`` (more columns: the tag is the last one, as in CoNLL-2003);
* numbered, ``index token tag ...`` (UNER, CoNLL-U-like; the index counts 1, 2, 3, ... in every
  sentence): the tag column is the first after the token whose every value is ``O`` or ``PREFIX-TYPE``;
* ``tag`` alone (a system file aligned to gold by position);
* conlleval's layout (:func:`read_conlleval`): ``token ... gold prediction``;
* JSON Lines ``{"tokens": [...], "tags": [...]}``, one sentence a line.

Comment lines (a rule read from the line itself): in a numbered file a line starting with ``#`` before a
sentence's first token (token lines start with their index; CoNLL-U's rule); in a TAB-separated file a line
starting with ``#`` that holds no TAB (a token line holds one). In a space-separated or one-column file every
line is a token line, as conlleval.pl reads it: ``#FollowFriday B-MISC`` is a token. ``-DOCSTART-`` lines are
token lines in every layout, as in conlleval.pl (its boundary is a first field ``-X-``, which ``-DOCSTART-``
is not). Columns are split at TABs, else at runs of ASCII spaces (a no-break space is part of a token);
spaces and TABs that end a line are not a column (Perl's ``split`` drops trailing empty fields). Lines of
only spaces and tabs are blank. The body is parsed by pyarrow (a Python reader takes over where pyarrow
refuses, to name the exact line).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace

import numpy as np

from auditor.errors import InputError
from auditor.files import read_input, text_bytes
from auditor.io.column import numpy_values
from auditor.io.jsonl import json_lines

_TAG = re.compile(r"^(O|[BIESLU]-\S+)$")


@dataclass(frozen=True)
class TagFile:
    """One file's tokens (arrow binary, UTF-8 bytes; None when it has no token column), its tags
    (``lookup[indices]`` are codes into ``vocab``: the arrow dictionary's indices, kept as read), the
    first token of every sentence, and each token's line number; ``digest``, the SHA-256 of the file as
    stored (gold's, for the signature: hashed from the one read, not read again)."""

    source: str
    tokens: object | None
    indices: np.ndarray
    lookup: np.ndarray
    vocab: tuple[str, ...]
    first: np.ndarray
    lines: np.ndarray
    digest: str | None = None

    @property
    def codes(self) -> np.ndarray:
        return np.take(self.lookup, self.indices)

    @property
    def n_tokens(self) -> int:
        return int(self.indices.size)


_TAGGED_FILE = "a tagged file (`token<TAB>tag` lines, blank lines between sentences)"
_JSONL_EXAMPLE = '{"tokens": ["EU", "rejects"], "tags": ["B-ORG", "O"]}'


def _read_bytes(path: str) -> tuple[bytes, str]:
    """The file's UTF-8 text as bytes (read, checked and normalised as every reader does:
    :func:`auditor.files.text_bytes`) and the SHA-256 of the file as stored."""
    raw = read_input(path, _TAGGED_FILE)
    return text_bytes(raw, path, _TAGGED_FILE), hashlib.sha256(raw).hexdigest()


def _line_table(raw: bytes, robust: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Start and end byte of every line, whether it is blank, whether it starts with ``#`` (a comment or
    not: :func:`_comments` decides). Blank = empty; ``robust`` also counts lines of only spaces and tabs
    as blank (one more pass over the bytes, taken when the fast reading meets such a line)."""
    buffer = np.frombuffer(raw, dtype=np.uint8)
    breaks = np.flatnonzero(buffer == 10)
    starts = np.r_[0, breaks + 1]
    ends = np.r_[breaks, buffer.size]
    if starts[-1] == buffer.size:
        starts, ends = starts[:-1], ends[:-1]
    if robust:
        solid = np.r_[0, np.cumsum((buffer != 32) & (buffer != 9) & (buffer != 10))]
        blank = solid[ends] == solid[starts]
    else:
        blank = ends == starts
    hashed = ~blank & (buffer[np.minimum(starts, max(buffer.size - 1, 0))] == 35) if buffer.size else blank
    return starts, ends, blank, hashed


@dataclass(frozen=True)
class Layout:
    """Where the columns are: the token's (None: tags alone), the tag's, how many, the delimiter, and
    whether the file is numbered (CoNLL-U-like: ``#`` lines are comments, the index column is checked)."""

    token: int | None
    tag: int
    width: int
    delimiter: str
    numbered: bool = False


def _comments(raw: bytes, table: tuple, layout: Layout) -> np.ndarray:
    """Comment lines (module docstring): a ``#`` line before a sentence's first token in a numbered file; a
    ``#`` line without a TAB in a TAB-separated file; none in a space-separated or one-column file."""
    starts, ends, blank, hashed = table
    if not hashed.any():
        return hashed
    if layout.numbered:  # before a sentence's first token: no token line since the last blank line
        index = np.arange(blank.size)
        last_blank = np.maximum.accumulate(np.where(blank, index, -1))
        last_token = np.maximum.accumulate(np.where(~blank & ~hashed, index, -1))
        return hashed & (last_token <= last_blank)
    if layout.delimiter != "\t":
        return np.zeros_like(hashed)
    tabs = np.r_[0, np.cumsum(np.frombuffer(raw, dtype=np.uint8) == 9)]
    return hashed & (tabs[ends] == tabs[starts])


def _probe(raw: bytes, table: tuple, path: str) -> int:
    """The line the layout is read from: the first neither blank nor starting with ``#``; in a file of ``#``
    lines only, the first holding a TAB (a token line of a TAB-separated file), else the first non-blank."""
    starts, ends, blank, hashed = table
    plain = np.flatnonzero(~blank & ~hashed)
    if plain.size:
        return int(plain[0])
    lines = np.flatnonzero(~blank)
    _no_token_line(lines, path)
    tabbed = [line for line in lines.tolist() if b"\t" in raw[starts[line]:ends[line]].rstrip(b" \t")]
    return tabbed[0] if tabbed else int(lines[0])


def _sentence_starts(token_lines: np.ndarray, blank: np.ndarray, comment: np.ndarray) -> np.ndarray:
    """Whether each token line opens a sentence: the line before it, comment lines skipped, is blank or
    there is none (a comment line never splits a sentence)."""
    index = np.arange(blank.size)
    kept = np.maximum.accumulate(np.where(comment, -1, index))  # the last line at or before each that is no comment
    before = np.r_[-1, kept[:-1]][token_lines]
    return (before < 0) | blank[np.maximum(before, 0)]


def read_tagged(path: str, tag_column: int | None = None, role: str = "system") -> TagFile:
    """Read one tagged file (module docstring), JSON Lines when its first character is ``{``."""
    raw, digest = _read_bytes(path)
    if raw.lstrip()[:1] == b"{":
        return replace(_read_jsonl(raw, path), digest=digest)
    parsed = _read_lines(raw, path, tag_column, role, robust=False)
    if parsed is None:  # pyarrow refused, or a line of only spaces: the careful reader names the line
        parsed = _read_lines(raw, path, tag_column, role, robust=True)
    tokens, tags, first, token_lines = parsed
    return TagFile(path, tokens, *_dictionary(tags), first, token_lines + 1, digest)


def _read_lines(raw: bytes, path: str, tag_column: int | None, role: str, robust: bool):
    """(tokens, tags, first, token line indices), or None when the fast reader cannot decide. A file whose
    first column looks like an index but does not count 1, 2, 3, ... in every sentence is read again with
    the tag in the last column (a CoNLL-2003 line ``3 CD B-NP O`` is not numbered)."""
    hashes = b"#" in raw and (raw.startswith(b"#") or b"\n#" in raw)  # one memchr when no "#" at all
    plain = None if robust or hashes else _plain_lines(raw, path)
    table = None if plain is not None else _line_table(raw, robust)
    probe = int(plain[0][0]) if plain is not None else _probe(raw, table, path)
    line = plain[2] if plain is not None else raw[table[0][probe]:table[1][probe]].decode()
    layout = _choose(line, tag_column, path, probe + 1, role)
    parsed = _read_layout(raw, path, layout, plain, table, robust)
    if parsed is not None and layout.numbered and not _counts_up(parsed[2], parsed[3]):
        layout = _choose(line, tag_column, path, probe + 1, role, numbered=False)
        parsed = _read_layout(raw, path, layout, plain, table, robust)
    return None if parsed is None else (parsed[0], parsed[1], parsed[3], parsed[4])


def _read_layout(raw: bytes, path: str, layout: Layout, plain, table, robust: bool):
    """(tokens, tags, index column or None, first, token line indices) of ``layout``, or None."""
    if plain is not None:
        token_lines, first, _ = plain
        body = raw
    else:
        comment = _comments(raw, table, layout)
        token_lines = np.flatnonzero(~table[2] & ~comment)
        _no_token_line(token_lines, path)
        first = _sentence_starts(token_lines, table[2], comment)
        body = raw if not comment.any() else _keep_lines(raw, table[0], table[1], token_lines)
    if robust:
        return (*_parse_python(raw, token_lines, layout, path), first, token_lines)
    parsed = _parse(body, layout, token_lines.size)
    return None if parsed is None else (*parsed, first, token_lines)


def _counts_up(index: np.ndarray | None, first: np.ndarray) -> bool:
    """Whether the index column is 1, 2, 3, ... from every sentence's first token."""
    if index is None:
        return True
    position = np.arange(first.size)
    opened = np.maximum.accumulate(np.where(first, position, 0))
    return bool(np.array_equal(index, position - opened + 1))


def _no_token_line(token_lines: np.ndarray, path: str) -> None:
    if token_lines.size == 0:
        raise InputError(f"{path}: no token line; expected `token<TAB>tag` lines with a blank line between "
                         f"sentences (or JSON Lines {{\"tokens\": [...], \"tags\": [...]}})")


def _plain_lines(raw: bytes, path: str) -> tuple[np.ndarray, np.ndarray, str]:
    """A file without ``#`` lines, from its newlines alone: (token line indices, first token of every
    sentence, the first token line's text). Line i ends at newline i; it is blank when that newline
    follows the previous one at once (or opens the file)."""
    breaks = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == 10)
    n_lines = breaks.size + (len(raw) > 0 and raw[-1:] != b"\n")
    blank = np.flatnonzero(np.diff(breaks, prepend=-1) == 1)
    token = np.ones(n_lines, dtype=bool)
    token[blank] = False
    token_lines = np.flatnonzero(token)
    _no_token_line(token_lines, path)
    first = np.zeros(token_lines.size, dtype=bool)
    after = blank - np.arange(blank.size)  # the token after each blank line: blank lines before it are skipped
    first[after[after < first.size]] = True
    first[:1] = True
    start = int(breaks[token_lines[0] - 1]) + 1 if token_lines[0] else 0
    end = int(breaks[token_lines[0]]) if token_lines[0] < breaks.size else len(raw)
    return token_lines, first, raw[start:end].decode()


def _fields(line: str) -> list[str]:
    """The columns of a line: split at TABs when it holds one, else at runs of ASCII spaces (never at a
    no-break space); spaces and TABs ending the line are no column."""
    line = line.rstrip(" \t")
    return line.split("\t") if "\t" in line else [field for field in line.split(" ") if field]


def _is_index(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _choose(text: str, tag_column: int | None, path: str, line: int, role: str, numbered: bool = True) -> Layout:
    """The layout from the first token line: TAB-separated when it holds a TAB, else separated by spaces;
    ``numbered=False`` when the index column was found not to count up."""
    fields = _fields(text)
    width = len(fields)
    delimiter = "\t" if "\t" in text.rstrip(" \t") else " "
    numbered = numbered and width > 2 and _is_index(fields[0])
    if tag_column is not None and width > 1:  # a file of tags alone has its tag wherever --tag-column points
        if not 1 <= tag_column <= width:
            raise InputError(f"{path} line {line}: --tag-column {tag_column} but the line has {width} columns")
        return Layout((1 if numbered else 0) if width > 1 else None, tag_column - 1, width, delimiter, numbered)
    if width == 1:
        return Layout(None, 0, 1, delimiter)
    if numbered:
        for candidate in range(2, width):
            if _TAG.match(fields[candidate]):
                return Layout(1, candidate, width, delimiter, True)
        return Layout(0, width - 1, width, delimiter)  # no tag after the token: not an index, the tag is last
    return Layout(0, width - 1, width, delimiter)


def _keep_lines(raw: bytes, starts: np.ndarray, ends: np.ndarray, keep: np.ndarray) -> bytes:
    """The bytes of lines ``keep``, each ending with a newline (one vectorised gather)."""
    buffer = np.frombuffer(raw + b"\n", dtype=np.uint8)
    lengths = ends[keep] - starts[keep] + 1
    offsets = np.repeat(starts[keep] - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
    gather = np.arange(int(lengths.sum())) + offsets
    out = buffer[gather]
    out[np.cumsum(lengths) - 1] = 10
    return out.tobytes()


def _parse(body: bytes, layout: Layout, rows: int):
    """Token, tag and (numbered files) index columns of the token lines through pyarrow (blank lines
    skipped), or None where it refuses (a wrong column count, an empty tag, runs of spaces, a line ending
    with a separator): the careful reader decides. Tokens and tags are read as bytes (the file is UTF-8
    already; no second check), the tags dictionary-encoded, on one thread (files are read in parallel)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(layout.width)]
    types = {names[layout.tag]: pa.dictionary(pa.int32(), pa.binary())}
    if layout.token is not None:
        types[names[layout.token]] = pa.binary()
    if layout.numbered:
        types[names[0]] = pa.int64()
    if layout.delimiter == " " and (b"  " in body or b" \n" in body):  # a TAB file's trailing TAB: a column more
        return None
    try:
        table = pacsv.read_csv(
            pa.py_buffer(body), read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=layout.delimiter, quote_char=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    tags = table.column(names[layout.tag]).combine_chunks()
    if table.num_rows != rows or not _nonempty(tags):
        return None
    tokens = table.column(names[layout.token]).combine_chunks() if layout.token is not None else None
    index = _int64(table.column(names[0]).combine_chunks()) if layout.numbered else None
    return tokens, tags, index


def _nonempty(tags) -> bool:
    return all(text.strip(" \t") == text and text for text in _texts(tags))


def _texts(tags) -> list[str]:
    """The values of dictionary-encoded tags (UTF-8 bytes) as text. Not through ``pa.array`` or
    ``pyarrow.compute``, which import pandas and the compute module (tenths of a second)."""
    return [value.decode() for value in tags.dictionary.to_pylist()]


def _encoded(tags: list[str]):
    """Tags read line by line (or from JSON), dictionary-encoded as the fast reader encodes them."""
    import pyarrow as pa

    return pa.array([tag.encode() for tag in tags], pa.binary()).dictionary_encode()


def _parse_python(raw: bytes, token_lines: np.ndarray, layout: Layout, path: str):
    """Line by line: the same columns, with the exact line of a wrong column count."""
    import pyarrow as pa

    text_lines = raw.decode().split("\n")
    tokens, tags, index = [], [], []
    for number in token_lines.tolist():
        text = text_lines[number]
        fields = _fields(text.strip(" \t") if "\t" not in text else text)
        if len(fields) != layout.width:
            hint = ("; a line starting with # is a comment in a numbered file, or in a TAB-separated file when it "
                    "holds no TAB" if text.startswith("#") else "")
            raise InputError(f"{path} line {number + 1}: {len(fields)} columns; expected {layout.width} like the "
                             f"first token line (token and tag columns separated by a TAB or spaces){hint}")
        tag = fields[layout.tag].strip(" \t")
        if not tag:
            raise InputError(f"{path} line {number + 1}: empty tag; expected O or PREFIX-TYPE")
        tags.append(tag)
        if layout.token is not None:
            tokens.append(fields[layout.token].strip(" \t"))
        if layout.numbered:
            index.append(int(fields[0]) if _is_index(fields[0].strip(" \t")) else -1)
    return (pa.array(tokens, pa.string()).cast(pa.binary()) if layout.token is not None else None,
            _encoded(tags), np.array(index, dtype=np.int64) if layout.numbered else None)


def _dictionary(tags) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Dictionary-encoded arrow tags -> (indices, lookup, vocabulary): the vocabulary stripped, unique
    and sorted; ``lookup`` maps a dictionary index to its place in it."""
    vocab = [text.strip(" \t") for text in _texts(tags)]
    indices = numpy_values(tags.indices)
    unique = sorted(set(vocab))
    lookup = np.array([unique.index(text) for text in vocab], dtype=np.int64) if vocab else np.zeros(0, np.int64)
    return indices, lookup, tuple(unique)


def _int64(array) -> np.ndarray:
    """An arrow int64 column (the index of a numbered file) as numpy; -1 where a value is null."""
    values = numpy_values(array.fill_null(-1) if array.null_count else array)
    return values.astype(np.int64, copy=False)


def _read_jsonl(raw: bytes, path: str) -> TagFile:
    """JSON Lines, ``{"tokens": [...], "tags": [...]}`` per sentence (``tokens`` optional), parsed as every JSON
    Lines reader parses them (:func:`auditor.io.jsonl.json_lines`)."""
    import pyarrow as pa

    records, keep, _ = json_lines(raw.decode(), path, _JSONL_EXAMPLE)
    tokens: list[str] = []
    tags: list[str] = []
    lines: list[int] = []
    first: list[bool] = []
    has_tokens = None
    for number, record in zip((i + 1 for i in keep), records):
        sentence_tags = record.get("tags") if isinstance(record, dict) else None
        if not isinstance(sentence_tags, list) or not sentence_tags or \
                not all(isinstance(t, str) and t.strip() for t in sentence_tags):
            raise InputError(f"{path} line {number}: expected a non-empty list of tag strings under \"tags\", "
                             f"e.g. {_JSONL_EXAMPLE}")
        words = record.get("tokens")
        if has_tokens is None:
            has_tokens = words is not None
        if has_tokens and (not isinstance(words, list) or len(words) != len(sentence_tags)):
            raise InputError(f"{path} line {number}: \"tokens\" must be a list as long as \"tags\" "
                             f"({len(sentence_tags)})")
        tags += [t.strip() for t in sentence_tags]
        if has_tokens:
            tokens += [str(w) for w in words]
        lines += [number] * len(sentence_tags)
        first += [True] + [False] * (len(sentence_tags) - 1)
    if not tags:
        raise InputError(f"{path}: no sentence; expected JSON Lines, e.g. {_JSONL_EXAMPLE}")
    return TagFile(path, pa.array(tokens, pa.string()).cast(pa.binary()) if has_tokens else None,
                   *_dictionary(_encoded(tags)), np.array(first),
                   np.array(lines, dtype=np.int64))


def read_conlleval(path: str) -> tuple[TagFile, TagFile]:
    """conlleval's input: ``token ... gold prediction`` per line, blank lines between sentences, read with
    :func:`read_tagged`'s rules (``-DOCSTART-`` lines are tokens, as conlleval.pl counts them; comments as in
    a TAB-separated or space-separated file). Returns (gold, prediction)."""
    raw, digest = _read_bytes(path)
    table = _line_table(raw, robust=True)
    starts, ends, blank, _ = table
    probe = _probe(raw, table, path)
    fields = _fields(raw[starts[probe]:ends[probe]].decode())
    width = len(fields)
    if width < 3:
        raise InputError(f"{path} line {probe + 1}: {width} columns; conlleval's layout is `token ... "
                         f"gold prediction` (at least 3 columns)")
    delimiter = "\t" if "\t" in raw[starts[probe]:ends[probe]].decode().rstrip(" \t") else " "
    gold_layout, predicted_layout = Layout(0, width - 2, width, delimiter), Layout(None, width - 1, width, delimiter)
    comment = _comments(raw, table, gold_layout)
    token_lines = np.flatnonzero(~blank & ~comment)
    if token_lines.size == 0:
        raise InputError(f"{path}: no token line; expected `token ... gold prediction` lines")
    first = _sentence_starts(token_lines, blank, comment)
    body = _keep_lines(raw, starts, ends, token_lines)
    lines = token_lines.astype(np.int64) + 1
    both = _parse(body, gold_layout, token_lines.size)
    predicted = _parse(body, predicted_layout, token_lines.size) if both else None
    if both is None or predicted is None:
        tokens, gold, _ = _parse_python(raw, token_lines, gold_layout, path)
        _, predicted, _ = _parse_python(raw, token_lines, predicted_layout, path)
    else:
        (tokens, gold, _), predicted = both, predicted[1]
    return (TagFile(path, tokens, *_dictionary(gold), first, lines, digest),
            TagFile(path, tokens, *_dictionary(predicted), first, lines))
