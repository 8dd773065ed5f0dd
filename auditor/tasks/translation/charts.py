"""The translation report's own charts (Altair specs rendered by :mod:`auditor.report.charts`)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from auditor.report.charts import WIDTH, _svg, system_marks

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
    names = [b.name for b in audit.types.bands]
    rows = [{"band": b.name, "system": s, "F": round(100 * b.systems[s][0], 3)}
            for b in audit.types.bands for s in systems if b.systems[s][0] is not None]
    scales = system_marks(systems)
    x = {"field": "band", "type": "nominal", "sort": names, "title": "reference frequency band"}
    y = {"field": "F", "type": "quantitative", "title": "MacroF over the band's types (×100)"}
    color = {"field": "system", "type": "nominal", "scale": scales["color"], "legend": {"title": None}}
    return {"data": {"values": rows}, "width": WIDTH - 240, "height": 220, "layer": [
        {"mark": {"type": "line", "strokeWidth": 1.3}, "encoding": {"x": x, "y": y, "color": color}},
        {"mark": {"type": "point", "filled": True, "opacity": 1},
         "encoding": {"x": x, "y": y, "color": color,
                      "shape": {"field": "system", "type": "nominal", "scale": scales["shape"],
                                "legend": {"title": None}}}}]}


def band_chart(audit: Any, systems: Sequence[str]) -> str:
    return _svg(band_spec(audit, systems))
