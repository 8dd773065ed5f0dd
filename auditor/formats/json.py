"""``audit.json`` (and ``--json`` on the terminal): a document as indented UTF-8 JSON.

Objects, and lists holding objects or lists, are laid out one member per line, indented by one space a level (as
``json.dumps(indent=1)``); a list of scalars is written on one line by the standard library's C encoder. The text
parses to the same object as ``json.dumps`` gives (only whitespace differs) at a fraction of the cost: with an
indent, ``json.dumps`` runs its pure-Python encoder (about 1.3 s for a 100-system audit.json, where 2.6 of its 6.6
MB are the rank distributions, one number a line).

Free of jinja2 and the report model, so ``auditor score --json`` loads no rendering stack.
"""
from __future__ import annotations

from itertools import repeat
from json.encoder import JSONEncoder, c_make_encoder, encode_basestring
from typing import Any, Mapping

from auditor.formats.text import printable

_CONTAINERS = (dict, list, tuple)


def _unknown(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


#: The standard library's C encoder without an indent (``json.dumps``' own when no indent is asked), non-ASCII
#: kept, NaN refused: a list of scalars on one line (its pure-Python encoder where the C one is missing).
_one_line = (c_make_encoder(None, _unknown, encode_basestring, None, ": ", ", ", False, False, False)
             if c_make_encoder is not None else
             lambda value, _: JSONEncoder(ensure_ascii=False, allow_nan=False).iterencode(value))


def render_json(document: Mapping[str, Any]) -> str:
    """Indented JSON, non-ASCII kept, NaN refused (undefined values are ``null`` with a reason)."""
    parts: list[str] = []
    _write(document, "\n", parts, {})
    return printable("".join(parts)) + "\n"


def _flat(value: Any) -> str:
    """A scalar, or a list without containers, on one line."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is float and value - value == 0.0:  # finite (NaN and infinities go to the C encoder, which refuses them)
        return float.__repr__(value)
    if kind is int:
        return int.__repr__(value)
    return "".join(_one_line(value, 0))


def _key(key: Any, keys: dict[Any, str]) -> str:
    """A member name as ``json.dumps`` writes it (str; float, int, True, False, None as their JSON text)."""
    found = keys.get(key) if type(key) is str else None
    if found is None:
        if isinstance(key, str):
            found = encode_basestring(key)
        elif isinstance(key, (bool, float, int)) or key is None:
            found = encode_basestring(_flat(key))
        else:
            raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
        if type(key) is str:
            keys[key] = found
    return found


def _write(value: Any, newline: str, parts: list[str], keys: dict[Any, str]) -> None:
    """Append ``value``'s text to ``parts``; ``newline`` is a line break and the indent of ``value``'s own level."""
    if isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = newline + " "
        separator, following, append = "{" + inner, "," + inner, parts.append
        for key, member in value.items():
            name = keys.get(key) or _key(key, keys)
            if isinstance(member, _CONTAINERS):
                append(separator + name + ": ")
                _write(member, inner, parts, keys)
            else:
                append(separator + name + ": " + _flat(member))
            separator = following
        append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not any(map(isinstance, value, repeat(_CONTAINERS))):
            parts.append("".join(_one_line(value, 0)))
            return
        inner = newline + " "
        separator = "[" + inner
        for item in value:
            parts.append(separator)
            _write(item, inner, parts, keys)
            separator = "," + inner
        parts.append(newline + "]")
    else:
        parts.append(_flat(value))
