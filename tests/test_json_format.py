"""``render_json``: the same parsed object as ``json.dumps`` (the independent source), objects indented, a list of
scalars on one line, NaN refused."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.formats.json import render_json

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
DOCUMENTS = st.dictionaries(st.text(), st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=30))


@given(DOCUMENTS)
def test_same_object_as_json_dumps(document):
    text = render_json(document)
    assert json.loads(text) == json.loads(json.dumps(document, ensure_ascii=False))
    assert text.endswith("\n")


def test_layout_non_ascii_empty_and_nested():
    document = {"é": {"ü": [1, 2.5, "ß", None, True]}, "empty": {}, "none": [], "matrix": [[1, 2], [3]],
                "mixed": [{"a": []}, 1], "tuple": (0.1, -0.0, 1e300), 3: "int key", 2.5: "float key", None: False}
    text = render_json(document)
    assert json.loads(text) == json.loads(json.dumps(document, ensure_ascii=False))
    assert text == json.dumps(document, ensure_ascii=False, indent=1).replace(
        '[\n   1,\n   2.5,\n   "ß",\n   null,\n   true\n  ]', '[1, 2.5, "ß", null, true]').replace(
        '[\n   1,\n   2\n  ]', '[1, 2]').replace('[\n   3\n  ]', '[3]').replace('"a": []', '"a": []').replace(
        '[\n  0.1,\n  -0.0,\n  1e+300\n ]', '[0.1, -0.0, 1e+300]') + "\n"
    assert '"é": {\n  "ü": [1, 2.5, "ß", null, true]\n }' in text


@pytest.mark.parametrize("bad", [{"a": math.nan}, {"a": [1.0, math.inf]}, {"a": {"b": [[-math.inf]]}}, [math.nan]])
def test_nan_and_infinity_refused(bad):
    with pytest.raises(ValueError):
        render_json(bad)


def test_unknown_types_refused():
    with pytest.raises(TypeError):
        render_json({"a": object()})
    with pytest.raises(TypeError):
        render_json({"a": [object()]})
    with pytest.raises(TypeError):
        render_json({(1, 2): 1})
