"""With per-label scores: every metric against one threshold shared by all labels, and the threshold each prefers.

For each score file and each threshold t of :data:`GRID` (0.05 to 0.95 by 0.05), the sets ``{l : score_l ≥ t}``
are counted against gold as any system is (:mod:`.counting`) and every metric evaluated (:mod:`.measures`). The
threshold a metric prefers is the grid point of its best value (the lowest such t on ties); how far the metrics'
preferred thresholds lie apart is the threshold question's answer on this data. Not run with a label map (the
scores are per label, the audit per group).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.chance import _sums, _values
from auditor.tasks.multilabel.measures import BY_ID, METRIC_IDS
from auditor.tasks.multilabel.sets import SetFile, encode_rows

GRID = tuple(round(0.05 * k, 2) for k in range(1, 20))


def curves(aligned: Aligned, files: Mapping[str, SetFile], positions: Mapping[str, np.ndarray | None],
           used: Mapping[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    """name -> grid, values per metric along it, each metric's preferred threshold and value, the threshold used."""
    out = {}
    for name, file in files.items():
        at = positions.get(name)
        scores = file.scores if at is None else file.scores[at]
        columns = [file.labels.index(label) if label in file.labels else -1 for label in aligned.labels]
        matrix = np.where(np.array(columns) >= 0, scores[:, np.maximum(columns, 0)], 0.0)
        values: dict[str, list[float]] = {metric: [] for metric in METRIC_IDS}
        for threshold in GRID:
            codes, sets = encode_rows(matrix >= threshold)
            for metric, value in _values(_sums(aligned, codes, sets)).items():
                values[metric].append(value)
        best = {}
        for metric, series in values.items():
            oriented = np.array(series) * (1 if BY_ID[metric].higher_is_better else -1)
            k = int(np.argmax(oriented))
            best[metric] = {"threshold": GRID[k], "value": series[k]}
        thresholds = {float(t) for t in used[name]}
        out[name] = {"grid": list(GRID), "values": values, "best": best,
                     "used": thresholds.pop() if len(thresholds) == 1 else "per label"}
    return out
