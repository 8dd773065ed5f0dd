"""Read tagged files: one token per line (blank lines between sentences), CoNLL-U-like numbered
files, conlleval's own layout, JSON Lines; then align gold and systems one to one.

Layouts (detected from the first token line; ``--tag-column N`` overrides, 1-based):

* ``token<TAB or space>tag`` (more columns: the tag is the last one, as in CoNLL-2003);
* numbered, ``index token tag ...`` (UNER, CoNLL-U-like): the tag column is the first after the
  token whose every value is ``O`` or ``PREFIX-TYPE``;
* ``tag`` alone (a system file aligned to gold by position);
* conlleval's layout (:func:`read_conlleval`): ``token ... gold prediction``;
* JSON Lines ``{"tokens": [...], "tags": [...]}``, one sentence a line.

``#`` lines before a sentence's first token are comments (CoNLL-U's ``# sent_id``, ``# text``);
lines of only spaces and tabs are blank. The body is parsed by pyarrow (a Python reader takes over
where pyarrow refuses, to name the exact line).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from auditor.errors import InputError

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


def _read_bytes(path: str, with_digest: bool = False) -> tuple[bytes, str | None]:
    """The file's UTF-8 text as bytes (a BOM dropped, CR LF and CR made LF) and, if ``with_digest``, the
    SHA-256 of the file as stored."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a directory; expected a tagged file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from None
    digest = hashlib.sha256(raw).hexdigest() if with_digest else None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not _is_utf8(raw):
        _bad_byte(raw, path)
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return raw, digest


def _is_utf8(raw: bytes) -> bool:
    """Whether ``raw`` is UTF-8, checked by arrow's validator in place (``bytes.decode`` would build the text)."""
    import pyarrow as pa

    text = pa.Array.from_buffers(pa.large_string(), 1, [None, pa.py_buffer(np.array([0, len(raw)], np.int64)),
                                                         pa.py_buffer(raw)])
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _bad_byte(raw: bytes, path: str) -> None:
    """The line of the first byte that is not UTF-8 (decoding builds the text: only once the check failed)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise InputError(f"{path} line {line}: not UTF-8 text (byte 0x{raw[error.start]:02x}); save the file as "
                         f"UTF-8") from None


def _line_table(raw: bytes, robust: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Start and end byte of every line, whether it is blank, whether it is a preamble comment.
    Blank = empty; ``robust`` also counts lines of only spaces and tabs as blank (one more pass
    over the bytes, taken when the fast reading meets such a line)."""
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
    if not hashed.any():
        return starts, ends, blank, hashed
    token = ~blank & ~hashed
    index = np.arange(starts.size)
    last_blank = np.maximum.accumulate(np.where(blank, index, -1))
    last_token = np.maximum.accumulate(np.where(token, index, -1))
    comment = hashed & (last_token < last_blank) | hashed & (last_token < 0)
    return starts, ends, blank, comment


def read_tagged(path: str, tag_column: int | None = None, role: str = "system") -> TagFile:
    """Read one tagged file (module docstring), JSON Lines when its first character is ``{``."""
    raw, digest = _read_bytes(path, with_digest=True)
    if raw.lstrip()[:1] == b"{":
        return replace(_read_jsonl(raw, path), digest=digest)
    parsed = _read_lines(raw, path, tag_column, role, robust=False)
    if parsed is None:  # pyarrow refused, or a line of only spaces: the careful reader names the line
        parsed = _read_lines(raw, path, tag_column, role, robust=True)
    tokens, tags, first, token_lines = parsed
    return TagFile(path, tokens, *_dictionary(tags), first, token_lines + 1, digest)


def _read_lines(raw: bytes, path: str, tag_column: int | None, role: str, robust: bool):
    """(tokens, tags, first, token line indices), or None when the fast reader cannot decide."""
    commented = b"#" in raw and (raw.startswith(b"#") or b"\n#" in raw)  # one memchr when no "#" at all
    plain = None if robust or commented else _plain_lines(raw, path)
    if plain is None:
        starts, ends, blank, comment = _line_table(raw, robust)
        token_lines = np.flatnonzero(~blank & ~comment)
        _no_token_line(token_lines, path)
        before = np.maximum(token_lines - 1, 0)
        first = blank[before] | comment[before]
        first[0] = True
        line = raw[starts[token_lines[0]]:ends[token_lines[0]]].decode()
    else:
        token_lines, first, line = plain
    token_column, tag_index, width, delimiter = _choose(line, tag_column, path, int(token_lines[0]) + 1, role)
    if robust:
        return (*_parse_python(raw, token_lines, width, path, token_column, tag_index), first, token_lines)
    body = raw if plain is not None or not comment.any() else _keep_lines(raw, starts, ends, token_lines)
    parsed = _parse(body, width, delimiter, token_lines.size, token_column, tag_index)
    return None if parsed is None else (*parsed, first, token_lines)


def _no_token_line(token_lines: np.ndarray, path: str) -> None:
    if token_lines.size == 0:
        raise InputError(f"{path}: no token line; expected `token<TAB>tag` lines with a blank line between "
                         f"sentences (or JSON Lines {{\"tokens\": [...], \"tags\": [...]}})")


def _plain_lines(raw: bytes, path: str) -> tuple[np.ndarray, np.ndarray, str]:
    """A file without comment lines, from its newlines alone: (token line indices, first token of every
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
    return line.split("\t") if "\t" in line else line.split()


def _choose(text: str, tag_column: int | None, path: str, line: int, role: str
            ) -> tuple[int | None, int, int, str]:
    """(token column, tag column, width, delimiter) from the first token line: TAB-separated when it holds a
    TAB, else separated by spaces."""
    fields = _fields(text)
    width = len(fields)
    delimiter = "\t" if "\t" in text else " "
    if tag_column is not None:
        if not 1 <= tag_column <= width:
            raise InputError(f"{path} line {line}: --tag-column {tag_column} but the line has {width} columns")
        numbered = width > 2 and fields[0].isdigit()
        return (1 if numbered else 0) if width > 1 else None, tag_column - 1, width, delimiter
    if width == 1:
        return None, 0, 1, delimiter
    if width > 2 and fields[0].isdigit():
        for candidate in range(2, width):
            if _TAG.match(fields[candidate]):
                return 1, candidate, width, delimiter
        raise InputError(f"{path} line {line}: a numbered line with no tag column (O or PREFIX-TYPE) after the "
                         f"token; give --tag-column N")
    return 0, width - 1, width, delimiter


def _keep_lines(raw: bytes, starts: np.ndarray, ends: np.ndarray, keep: np.ndarray) -> bytes:
    """The bytes of lines ``keep``, each ending with a newline (one vectorised gather)."""
    buffer = np.frombuffer(raw + b"\n", dtype=np.uint8)
    lengths = ends[keep] - starts[keep] + 1
    offsets = np.repeat(starts[keep] - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
    gather = np.arange(int(lengths.sum())) + offsets
    out = buffer[gather]
    out[np.cumsum(lengths) - 1] = 10
    return out.tobytes()


def _parse(body: bytes, width: int, delimiter: str, rows: int, token_column: int | None, tag_column: int):
    """Token and tag columns of the token lines through pyarrow (blank lines skipped), or None where
    it refuses (a wrong column count, an empty tag, runs of spaces): the careful reader decides.
    Both columns are read as bytes (the file is UTF-8 already; no second check), the tags
    dictionary-encoded, on one thread (files are read in parallel instead)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(width)]
    wanted = [names[tag_column]] + ([names[token_column]] if token_column is not None else [])
    if delimiter == " " and (b"  " in body or b" \n" in body):
        return None
    try:
        table = pacsv.read_csv(
            pa.py_buffer(body), read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types={names[tag_column]: pa.dictionary(pa.int32(), pa.binary()),
                              **({names[token_column]: pa.binary()} if token_column is not None else {})},
                include_columns=wanted, strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    tags = table.column(names[tag_column]).combine_chunks()
    if table.num_rows != rows or not _nonempty(tags):
        return None
    tokens = table.column(names[token_column]).combine_chunks() if token_column is not None else None
    return tokens, tags


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


def _parse_python(raw: bytes, token_lines: np.ndarray, width: int, path: str, token_column: int | None,
                  tag_column: int):
    """Line by line: the same columns, with the exact line of a wrong column count."""
    import pyarrow as pa

    text_lines = raw.decode().split("\n")
    tokens, tags = [], []
    for number in token_lines.tolist():
        fields = _fields(text_lines[number].strip(" \t") if "\t" not in text_lines[number]
                         else text_lines[number])
        if len(fields) != width:
            raise InputError(f"{path} line {number + 1}: {len(fields)} columns; expected {width} like the first "
                             f"token line (token and tag columns separated by a TAB or spaces)")
        tag = fields[tag_column].strip(" \t")
        if not tag:
            raise InputError(f"{path} line {number + 1}: empty tag; expected O or PREFIX-TYPE")
        tags.append(tag)
        if token_column is not None:
            tokens.append(fields[token_column].strip(" \t"))
    return (pa.array(tokens, pa.string()).cast(pa.binary()) if token_column is not None else None,
            _encoded(tags))


def _dictionary(tags) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Dictionary-encoded arrow tags -> (indices, lookup, vocabulary): the vocabulary stripped, unique
    and sorted; ``lookup`` maps a dictionary index to its place in it."""
    vocab = [text.strip(" \t") for text in _texts(tags)]
    indices = _int32(tags.indices)
    unique = sorted(set(vocab))
    lookup = np.array([unique.index(text) for text in vocab], dtype=np.int64) if vocab else np.zeros(0, np.int64)
    return indices, lookup, tuple(unique)


def _int32(array) -> np.ndarray:
    """An arrow integer array without nulls (dictionary indices: int32) as numpy, zero copy (``to_numpy``
    would import pandas)."""
    dtype = np.dtype(f"int{array.type.bit_width}")
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=dtype.itemsize * array.offset)


def _read_jsonl(raw: bytes, path: str) -> TagFile:
    """JSON Lines, ``{"tokens": [...], "tags": [...]}`` per sentence (``tokens`` optional)."""
    import pyarrow as pa

    tokens: list[str] = []
    tags: list[str] = []
    lines: list[int] = []
    first: list[bool] = []
    has_tokens = None
    for number, line in enumerate(raw.decode().split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as error:
            raise InputError(f"{path} line {number}: not JSON ({error.msg}); expected "
                             f"{{\"tokens\": [...], \"tags\": [...]}}") from None
        sentence_tags = record.get("tags") if isinstance(record, dict) else None
        if not isinstance(sentence_tags, list) or not sentence_tags or \
                not all(isinstance(t, str) and t.strip() for t in sentence_tags):
            raise InputError(f"{path} line {number}: expected a non-empty list of tag strings under \"tags\"")
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
        raise InputError(f"{path}: no sentence; expected JSON Lines {{\"tokens\": [...], \"tags\": [...]}}")
    return TagFile(path, pa.array(tokens, pa.string()).cast(pa.binary()) if has_tokens else None,
                   *_dictionary(_encoded(tags)), np.array(first),
                   np.array(lines, dtype=np.int64))


def read_conlleval(path: str) -> tuple[TagFile, TagFile]:
    """conlleval's input: ``token ... gold prediction`` per line, blank lines between sentences
    (``-DOCSTART-`` lines are boundaries, as in the script). Returns (gold, prediction)."""
    raw, digest = _read_bytes(path, with_digest=True)
    starts, ends, blank, comment = _line_table(raw, robust=True)
    docstart = np.zeros_like(blank)
    for number in np.flatnonzero(~blank).tolist():
        if raw[starts[number]:starts[number] + 10] == b"-DOCSTART-":
            docstart[number] = True
    blank = blank | docstart
    comment = comment & ~docstart
    token_lines = np.flatnonzero(~blank & ~comment)
    if token_lines.size == 0:
        raise InputError(f"{path}: no token line; expected `token ... gold prediction` lines")
    first = np.r_[True, (blank | comment)[np.maximum(token_lines[1:] - 1, 0)]]
    fields = _fields(raw[starts[token_lines[0]]:ends[token_lines[0]]].decode())
    width = len(fields)
    if width < 3:
        raise InputError(f"{path} line {token_lines[0] + 1}: {width} columns; conlleval's layout is `token ... "
                         f"gold prediction` (at least 3 columns)")
    delimiter = "\t" if "\t" in raw[starts[token_lines[0]]:ends[token_lines[0]]].decode() else " "
    body = _keep_lines(raw, starts, ends, token_lines)
    lines = token_lines.astype(np.int64) + 1
    both = _parse(body, width, delimiter, token_lines.size, 0, width - 2)
    predicted = _parse(body, width, delimiter, token_lines.size, None, width - 1) if both else None
    if both is None or predicted is None:
        tokens, gold = _parse_python(raw, token_lines, width, path, 0, width - 2)
        _, predicted = _parse_python(raw, token_lines, width, path, None, width - 1)
    else:
        (tokens, gold), predicted = both, predicted[1]
    return (TagFile(path, tokens, *_dictionary(gold), first, lines, digest),
            TagFile(path, tokens, *_dictionary(predicted), first, lines))
