"""The data section of a tagging audit: type prevalence among gold chunks, chunk lengths, and each
system's share of predicted chunks per type (its bias)."""
from __future__ import annotations

from typing import Any

import numpy as np

#: Chunk lengths shown one by one; longer chunks share the last bin.
LENGTH_BINS = 5


def length_histogram(lengths: np.ndarray) -> list[int]:
    """Counts of chunk lengths 1, 2, ..., LENGTH_BINS-1 and ≥ LENGTH_BINS tokens."""
    return np.bincount(np.minimum(lengths, LENGTH_BINS) - 1, minlength=LENGTH_BINS)[:LENGTH_BINS].tolist() \
        if lengths.size else [0] * LENGTH_BINS


def data_profile(audit: Any) -> dict[str, Any]:
    """``tagging.data``: per type the gold chunks, their share, mean and longest length and length
    histogram; per system the predicted chunks per type and their share."""
    spans, types = audit.spans, audit.codes.types
    gold = spans.gold
    lengths = gold.end - gold.start + 1
    total = max(gold.size, 1)
    per_type = {}
    for t, kind in enumerate(types):
        mine = lengths[gold.type == t]
        per_type[kind] = {"chunks": int(mine.size), "share": mine.size / total if gold.size else None,
                          "mean_length": float(mine.mean()) if mine.size else None,
                          "max_length": int(mine.max()) if mine.size else None,
                          "length_histogram": length_histogram(mine)}
    systems = {}
    for s, name in enumerate(audit.systems):
        predicted = spans.per_system[s].spans
        counts = np.bincount(predicted.type, minlength=len(types))
        size = max(predicted.size, 1)
        systems[name] = {kind: {"chunks": int(counts[t]), "share": counts[t] / size if predicted.size else None}
                         for t, kind in enumerate(types)}
    return {"types": per_type, "length_bins": [str(i) for i in range(1, LENGTH_BINS)] + [f"≥{LENGTH_BINS}"],
            "length_histogram": length_histogram(lengths), "mean_length": float(lengths.mean()) if gold.size else None,
            "systems": systems}
