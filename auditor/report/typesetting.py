"""A formula's LaTeX typeset to SVG by ziamath. A module of its own, importing nothing from auditor, so that the chart
converter (:mod:`auditor.report.charts`) loads it by its path, without importing the package (0.3 s of CPU)."""
from __future__ import annotations

import re


def typeset(latex: str) -> str:
    """ziamath's SVG of ``latex`` without the XML declaration; empty when ziamath cannot parse it."""
    import ziamath

    ziamath.config.precision = 1
    try:
        svg = ziamath.Latex(latex, size=15).svg()
    except Exception:  # a plugin's formula ziamath cannot parse: the LaTeX source is shown instead
        return ""
    return re.sub(r"^<\?xml[^>]*>\s*", "", svg)
