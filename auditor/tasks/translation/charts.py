"""The translation report's own charts (Altair specs rendered by :mod:`auditor.report.charts`)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from auditor.report.charts import WIDTH, _svg, system_lines_spec

#: Points drawn in the Zipf plot at most (log-spaced ranks; the tail's plateaus keep their ends).
ZIPF_POINTS = 400


def zipf_spec(types: Any) -> dict[str, Any]:
    """log-log count against rank of the reference types, coloured by band."""
    counts = types.frequencies
    ranks = np.unique(np.geomspace(1, counts.size, num=min(ZIPF_POINTS, counts.size)).astype(int))
    bands = [(b.name, b.low, b.high) for b in types.bands]

    def band(count: int) -> str:
        return next(name for name, low, high in bands if count >= low and (high is None or count <= high))

    rows = [{"rank": int(r), "count": int(counts[r - 1]), "band": band(int(counts[r - 1]))} for r in ranks]
    return {"data": {"values": rows}, "width": WIDTH - 200, "height": 220, "mark": {"type": "point", "filled": True,
                                                                                   "size": 14},
            "encoding": {"x": {"field": "rank", "type": "quantitative", "scale": {"type": "log"},
                               "title": "frequency rank of the type"},
                         "y": {"field": "count", "type": "quantitative", "scale": {"type": "log"},
                               "title": "count in the references"},
                         "color": {"field": "band", "type": "nominal", "sort": [b[0] for b in bands],
                                   "title": "band"}}}


def zipf_chart(types: Any) -> str:
    return _svg(zipf_spec(types))


def band_spec(audit: Any, systems: Sequence[str]) -> dict[str, Any]:
    """MacroF (×100) per band (x) for every system (lines)."""
    rows = [{"band": b.name, "system": s, "F": round(100 * b.systems[s][0], 3)}
            for b in audit.types.bands for s in systems if b.systems[s][0] is not None]
    x = {"field": "band", "type": "nominal", "sort": [b.name for b in audit.types.bands],
         "title": "reference frequency band"}
    y = {"field": "F", "type": "quantitative", "title": "MacroF over the band's types (×100)"}
    return system_lines_spec(rows, x, y, systems, 220)


def band_chart(audit: Any, systems: Sequence[str]) -> str:
    return _svg(band_spec(audit, systems))
