"""The audit record's JSON plumbing (auditor.results): the signature record, the merge of each
analysis's keys, and the one NaN -> null rule (auditor.formatting.nan_to_none)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auditor import audit
from auditor.formatting import nan_to_none
from auditor.results import Signature, merge_json


@pytest.mark.parametrize("value, expected", [
    (None, None), (float("nan"), None), (math.inf, None), (-math.inf, None), (np.nan, None),
    (0.0, 0.0), (-0.25, -0.25), (np.float64(0.5), 0.5), (np.int64(3), 3.0),
])
def test_nan_to_none(value, expected):
    found = nan_to_none(value)
    assert found == expected and (found is None or type(found) is float)


def test_merge_adds_inside_mappings_and_keeps_key_order():
    document = {"systems": {"A": {"metrics": {"accuracy": {"value": 0.5, "ci": None, "undefined": None}}}},
                "tests": []}
    merge_json(document, {"systems": {"A": {"metrics": {"accuracy": {"ci": [0.4, 0.6]}}, "scores": {}}},
                          "tests": [1], "statistics": {"B": 10}})
    assert document == {"systems": {"A": {"metrics": {"accuracy": {"value": 0.5, "ci": [0.4, 0.6], "undefined": None}},
                                          "scores": {}}},
                        "tests": [1], "statistics": {"B": 10}}
    assert list(document["systems"]["A"]["metrics"]["accuracy"]) == ["value", "ci", "undefined"]
    assert list(document) == ["systems", "tests", "statistics"]


def test_signature_is_a_record_whose_string_the_json_carries():
    result = audit(["a", "b", "b", "a"], {"s": ["a", "b", "a", "a"], "t": ["b", "b", "b", "a"]},
                   bootstrap=0, seed=7, analyses=())
    signature = result.signature
    assert isinstance(signature, Signature)
    assert result.to_json()["signature"] == str(signature) == signature.format()
    keys = [key for key, _ in signature.fields]
    assert keys == ["auditor", "gold", "systems", "labels", "boot", "seed", "ci", "alpha", "correction"]
    assert (signature["boot"], signature["seed"], signature["labels"], signature["correction"]) == ("0", "7", "2", "holm")
    assert signature["systems"].startswith("2:")
    assert str(signature).startswith("auditor:") and "|boot:0|seed:7|ci:percentile|alpha:0.05|" in str(signature)
