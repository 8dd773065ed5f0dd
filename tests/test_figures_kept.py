"""The figures of the three task kinds' audits stay as they were (issue 32's keep rule).

``tests/expectations/NAME.json`` holds every figure (numbers and identifiers, never data) of the GermEval-2018
classification audit, the UNER English-EWT tagging audit with the five illustrative taggers, and the WMT21 TED
translation audit (data from the ``germeval_dir``, ``uner_dir`` and ``wmt21_dir`` fixtures), as
``tests/expectations/capture.py`` wrote them; this test recomputes each audit through the command line and diffs.
A figure may change only by a named unification; :data:`MOVED` lists the keys that moved (old prefix -> new
prefix), and the commit that rewrites an expectation names each change.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from figures import differences, figures

EXPECTATIONS = Path(__file__).resolve().parent / "expectations"

#: Keys that moved since the figures were captured: audit -> [(old prefix, new prefix)].
MOVED: dict[str, list[tuple[str, str]]] = {"germeval": [], "uner": [], "wmt21": []}


def moved(expected: dict, moves: list[tuple[str, str]]) -> dict:
    """``expected`` with each old key prefix replaced by its new one."""
    out = {}
    for key, value in expected.items():
        for old, new in moves:
            if key == old or key.startswith(old + "/"):
                key = new + key[len(old):]
                break
        out[key] = value
    return out


@pytest.mark.parametrize("name", ["germeval", "uner", "wmt21"])
def test_every_figure_is_kept(name, request):
    folder = request.getfixturevalue(f"{name}_dir")
    expected = moved(json.loads((EXPECTATIONS / f"{name}.json").read_text(encoding="utf-8")), MOVED[name])
    changes = differences(expected, figures(name, str(folder)))
    assert not changes, f"{len(changes)} figures of {name} changed:\n" + "\n".join(changes[:60])
