"""Charts and formulas as inline SVG: Altair specs rendered by vl-convert, LaTeX by ziamath.

The same SVG goes into the HTML and (through weasyprint) the PDF: no JavaScript, no
network. Values arrive as numbers from the report builder; this module only draws.

Conversion runs in one child process per batch (:class:`Batch`: the report builder collects
every chart's spec and converts them all at once). vl-convert's JavaScript engine (V8) reserves
tens of GB of virtual address space when it starts; under an address-space limit (``ulimit -v``,
common on shared clusters) it dies with SIGTRAP. In a child process that death is contained and
reported as one clear error naming the limit and the workarounds, and nothing is written.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import re
import subprocess
import sys
from contextvars import ContextVar
from dataclasses import fields, is_dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

from auditor.errors import UsageError

FONT = "DejaVu Sans"
WIDTH = 600  # px; the CSS scales every chart to the page width
CONFIG = {
    "font": FONT,
    "view": {"stroke": None},
    "axis": {"labelFontSize": 10, "titleFontSize": 10, "labelLimit": 180, "grid": True, "gridColor": "#e6e6e6"},
    "legend": {"labelFontSize": 10, "titleFontSize": 10, "labelLimit": 200},
    "header": {"labelFontSize": 10, "titleFontSize": 10},
    "title": {"fontSize": 11},
}
#: Above this many classes no chart draws the k × k cells of a confusion matrix (a 1,000-class
#: matrix is 10^6 marks per system); the report shows a table of the largest confusions instead.
MAX_MATRIX_CLASSES = 30
#: Address space vl-convert's V8 needs (measured with vl-convert 1.9: fails at 40 GB, works at 80 GB).
CONVERTER_ADDRESS_SPACE = "more than 40 GB"


#: Colour legends as discrete swatches: weasyprint does not paint SVG gradients, so a gradient
#: legend would be blank in the PDF.
SYMBOL_LEGEND = {"orient": "bottom", "direction": "horizontal", "type": "symbol", "symbolType": "square",
                 "symbolSize": 120, "format": ".1~f"}

#: The batch collecting specs while a report is built (None: each chart is converted at once).
_RECORDING: ContextVar["Batch | None"] = ContextVar("auditor_chart_batch", default=None)
#: The converter run in the child: Vega-Lite specs (a JSON list on stdin) -> SVGs (a JSON list).
_CHILD = ("import json, sys\nimport vl_convert\nspecs = json.loads(sys.stdin.buffer.read())\n"
          "sys.stdout.write(json.dumps([vl_convert.vegalite_to_svg(spec) for spec in specs]))\n")


def _svg(spec: Mapping[str, Any]) -> str:
    spec = dict(spec)
    spec.setdefault("config", CONFIG)
    spec.setdefault("$schema", "https://vega.github.io/schema/vega-lite/v5.json")
    batch = _RECORDING.get()
    if batch is not None:
        return batch.add(spec)
    return convert([spec])[0]


def convert(specs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Vega-Lite specs -> inline SVGs, all in one child process (see the module docstring).

    Raises :class:`~auditor.errors.UsageError` naming the address-space limit when the
    converter dies under one; RuntimeError with the child's message otherwise.
    """
    if not specs:
        return []
    payload = json.dumps([_js_safe(spec) for spec in specs])
    done = subprocess.run([sys.executable, "-c", _CHILD], input=payload.encode(), capture_output=True)
    if done.returncode != 0:
        raise _conversion_error(done.returncode, done.stderr.decode(errors="replace"))
    # Keep the <svg> element only (inline SVG in HTML); one decimal is plenty for coordinates
    # and keeps the HTML small and the PDF quick to lay out.
    return [unique_ids(_NUMBER.sub(_round, svg[svg.find("<svg"):])) for svg in json.loads(done.stdout)]


#: Line and paragraph separators: Vega's expression parser refuses them inside the string literals
#: it compiles a spec's sort orders into, so they are drawn as the text "\\u2028" / "\\u2029".
_SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029"}


def _js_safe(value: Any) -> Any:
    """``value`` with U+2028 and U+2029 in every string replaced by their visible escapes."""
    if isinstance(value, str):
        return value.replace("\u2028", _SEPARATORS["\u2028"]).replace("\u2029", _SEPARATORS["\u2029"]) \
            if ("\u2028" in value or "\u2029" in value) else value
    if isinstance(value, dict):
        return {_js_safe(key): _js_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_js_safe(item) for item in value]
    return value


def _conversion_error(returncode: int, stderr: str) -> Exception:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if returncode < 0 and soft != resource.RLIM_INFINITY:
        return UsageError(
            f"the charts could not be drawn: the chart converter (vl-convert's JavaScript engine, V8) reserves "
            f"{CONVERTER_ADDRESS_SPACE} of virtual address space when it starts, and this process may use "
            f"{soft / 2**30:.1f} GB (ulimit -v); it stopped with signal {-returncode}. Raise the limit "
            f"(ulimit -v unlimited: the memory actually used stays far below it) or write the formats without "
            f"charts (--format json,tex,md). Nothing was written.")
    return RuntimeError(f"chart conversion failed (exit {returncode}): {stderr.strip()[-2000:]}")


class Batch:
    """The chart functions of this module, deferred: each returns a placeholder, and
    :meth:`resolve` converts every recorded spec in one child process and puts the SVGs in.

    ``Batch().bias_chart(...)`` takes the arguments of :func:`bias_chart`, and so on.
    """

    def __init__(self) -> None:
        self.specs: list[dict[str, Any]] = []
        self._token = f"\x00auditor-chart-{id(self):x}-"

    def add(self, spec: dict[str, Any]) -> str:
        self.specs.append(spec)
        return f"{self._token}{len(self.specs) - 1}\x00"

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or name not in globals():
            raise AttributeError(name)
        function = globals()[name]
        if not callable(function):  # a constant (MAX_MATRIX_CLASSES, ...)
            return function

        def deferred(*args: Any, **kwargs: Any) -> Any:
            token = _RECORDING.set(self)
            try:
                return function(*args, **kwargs)
            finally:
                _RECORDING.reset(token)

        return deferred

    def resolve(self, model: Any) -> Any:
        """``model`` (any tree of dataclasses, tuples, lists and strings) with every placeholder
        replaced by its SVG; the specs are converted in one batch."""
        svgs = convert(self.specs)
        pattern = re.compile(re.escape(self._token) + r"(\d+)\x00")
        self.specs = []
        return _substitute(model, lambda text: pattern.sub(lambda m: svgs[int(m.group(1))], text))


def _substitute(value: Any, fill: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fill(value) if "\x00" in value else value
    if isinstance(value, (tuple, list)):
        return type(value)(_substitute(item, fill) for item in value)
    if isinstance(value, dict):
        return {key: _substitute(item, fill) for key, item in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: _substitute(getattr(value, f.name), fill) for f in fields(value) if f.init}
        return replace(value, **changed)
    return value


_NUMBER = re.compile(r"(?<![\w#])(?<!offset=\")(-?\d+\.\d{2,})")


def unique_ids(svg: str, salt: str = "") -> str:
    """Prefix every id (and its url(#id) / href="#id" references) so that inline SVGs never collide.

    The prefix hashes the SVG and ``salt``; give a different salt to each copy of the same SVG.
    """
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    if not ids:
        return svg
    prefix = "c" + hashlib.sha1((salt + svg).encode()).hexdigest()[:8] + "-"
    pattern = re.compile(r'(\sid="|url\(#|href="#)(' + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
                         + r')(?=["\)])')
    return pattern.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", svg)


def _round(match: re.Match) -> str:
    return f"{float(match.group(1)):.1f}"


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100 * x, 3)


def bias_spec(labels: Sequence[str], systems: Sequence[str], prevalence: Sequence[float],
              bias: Mapping[str, Sequence[float]]) -> dict[str, Any]:
    """Prevalence per class (bars) above a heatmap of bias − prevalence per system and class;
    ``prevalence`` and each system's ``bias`` are shares in ``labels`` order.

    Colour and printed number show the same quantity: bias − prevalence in percentage points
    (the shares themselves are in the table that follows the chart)."""
    shares = [{"label": label, "share": _pct(share)} for label, share in zip(labels, prevalence)]
    cells = [
        {"label": label, "system": s, "bias": _pct(bias[s][i]), "diff": round(100 * (bias[s][i] - prevalence[i]), 3)}
        for s in systems for i, label in enumerate(labels)
    ]
    extent = max([abs(c["diff"]) for c in cells] + [1.0])
    band = max(11, min(24, 300 // max(1, len(systems))))
    x = {"field": "label", "type": "nominal", "sort": list(labels), "title": None,
         "axis": {"labelAngle": -45 if len(labels) > 6 else 0, "grid": False}}
    spec = {
        "vconcat": [
            {"data": {"values": shares}, "width": WIDTH - 160, "height": 90, "mark": {"type": "bar", "color": "#888"},
             "encoding": {"x": {**x, "axis": None}, "y": {"field": "share", "type": "quantitative", "title": "prevalence %"}}},
            {"data": {"values": cells}, "width": WIDTH - 160, "height": band * len(systems),
             "layer": [
                 {"mark": "rect", "encoding": {
                     "x": x, "y": {"field": "system", "type": "nominal", "sort": list(systems), "title": None,
                                         "axis": {"grid": False}},
                     "color": {"field": "diff", "type": "quantitative", "title": "bias − prev. (pp)",
                               "scale": {"scheme": "redblue", "domain": [-extent, extent]},
                               "legend": SYMBOL_LEGEND}}},
                 *([{"mark": {"type": "text", "fontSize": 9 if band >= 16 else 7}, "encoding": {
                     "x": x, "y": {"field": "system", "type": "nominal", "sort": list(systems)},
                     "text": {"field": "diff", "type": "quantitative", "format": "+.1f"},
                     "color": {"condition": {"test": f"abs(datum.diff) > {0.6 * extent}", "value": "white"},
                               "value": "black"}}}]
                   if len(labels) <= 12 and len(systems) <= 40 else []),
             ]},
        ],
        "spacing": 4,
    }
    return spec


def bias_chart(labels: Sequence[str], systems: Sequence[str], prevalence: Sequence[float],
               bias: Mapping[str, Sequence[float]]) -> str:
    """SVG of :func:`bias_spec`."""
    return _svg(bias_spec(labels, systems, prevalence, bias))


def metric_spec(systems: Sequence[str], metric_ids: Sequence[str], short: Sequence[str],
                values: Mapping[str, Mapping[str, tuple[float | None, float | None, float | None]]],
                chance: Mapping[str, float | None] | None = None) -> dict[str, Any]:
    """Dot per system and metric (×100), with interval bars where ``values[system][metric_id]``
    = (value, low, high) has them, and a dashed reference line at ``chance[metric_id]`` (the
    strongest chance baseline's expected score). Undefined values (None) are not drawn."""
    rows = []
    chance = chance or {}
    for s in systems:
        for metric_id, name in zip(metric_ids, short):
            value, low, high = values[s][metric_id]
            if value is None:
                continue
            rows.append({"system": s, "metric": name, "value": _pct(value),
                         "low": _pct(low), "high": _pct(high), "chance": _pct(chance.get(metric_id))})
    height = max(60, min(12 * len(systems), 240))
    y = {"field": "system", "type": "nominal", "sort": list(systems), "title": None}
    layers = [{"mark": {"type": "point", "filled": True, "size": 30, "color": "#1f4e79"},
               "encoding": {"x": {"field": "value", "type": "quantitative", "title": "×100",
                                  "scale": {"zero": False}}, "y": y}}]
    if any(r["low"] is not None for r in rows):
        layers.insert(0, {"mark": {"type": "rule", "color": "#7a9cc6"},
                          "encoding": {"x": {"field": "low", "type": "quantitative"}, "x2": {"field": "high"}, "y": y}})
    if any(r["chance"] is not None for r in rows):
        layers.insert(0, {"mark": {"type": "rule", "color": "#b2182b", "strokeDash": [4, 3], "strokeWidth": 1.2},
                          "encoding": {"x": {"field": "chance", "type": "quantitative", "aggregate": "min"}}})
    columns = 3 if len(metric_ids) > 2 else len(metric_ids)
    spec = {
        "data": {"values": rows},
        "facet": {"field": "metric", "type": "nominal", "sort": list(short), "title": None},
        "columns": columns,
        "spec": {"width": (WIDTH - 200) // max(columns, 1), "height": height, "layer": layers},
        "resolve": {"scale": {"x": "independent"}},
    }
    return spec


def metric_chart(systems: Sequence[str], metric_ids: Sequence[str], short: Sequence[str],
                 values: Mapping[str, Mapping[str, tuple[float | None, float | None, float | None]]],
                 chance: Mapping[str, float | None] | None = None) -> str:
    """SVG of :func:`metric_spec`."""
    return _svg(metric_spec(systems, metric_ids, short, values, chance))


def confusion_heatmap(labels: Sequence[str], matrix: Sequence[Sequence[int]], system: str) -> str:
    """Row-normalised confusion heatmap (rows gold, columns predicted), counts as text for small k."""
    cells = []
    for i, gold in enumerate(labels):
        total = sum(matrix[i])
        for j, predicted in enumerate(labels):
            cells.append({"gold": gold, "predicted": predicted, "count": int(matrix[i][j]),
                          "share": round(matrix[i][j] / total, 4) if total else 0.0})
    k = len(labels)
    size = max(9, min(40, 300 // max(k, 1)))
    axis = {"labelAngle": -45 if k > 4 else 0, "grid": False}
    x = {"field": "predicted", "type": "nominal", "sort": list(labels), "title": "predicted", "axis": axis}
    y = {"field": "gold", "type": "nominal", "sort": list(labels), "title": "gold", "axis": {"grid": False}}
    layers = [{"mark": "rect", "encoding": {
        "x": x, "y": y, "color": {"field": "share", "type": "quantitative", "title": "row share",
                                  "scale": {"scheme": "blues", "domain": [0, 1]}, "legend": SYMBOL_LEGEND}}}]
    if k <= 15:
        layers.append({"mark": {"type": "text", "fontSize": 9 if k <= 8 else 7}, "encoding": {
            "x": x, "y": y, "text": {"field": "count", "type": "quantitative"},
            "color": {"condition": {"test": "datum.share > 0.5", "value": "white"}, "value": "black"}}})
    spec = {"data": {"values": cells}, "width": size * k, "height": size * k, "layer": layers,
            "title": {"text": system, "anchor": "start"}}
    return _svg(spec)


def confusion_grid_spec(labels: Sequence[str], matrices: Mapping[str, Sequence[Sequence[int]]]) -> dict[str, Any]:
    """Small multiples: one row-normalised confusion heatmap per system, in one chart (k up to
    :data:`MAX_MATRIX_CLASSES`; counts printed in the cells while they fit)."""
    cells = []
    for system, matrix in matrices.items():
        for i, gold in enumerate(labels):
            total = sum(matrix[i])
            for j, predicted in enumerate(labels):
                cells.append({"system": system, "gold": gold, "predicted": predicted, "count": int(matrix[i][j]),
                              "share": round(matrix[i][j] / total, 4) if total else 0.0})
    k = len(labels)
    columns = 6 if k <= 2 else 4 if k <= 3 else 3 if k <= 6 else 2
    size = max(3, (WIDTH - 120) // columns // max(k, 1) - 4)
    x = {"field": "predicted", "type": "nominal", "sort": list(labels), "title": "predicted",
         "axis": {"labelAngle": -45 if k > 2 else 0, "grid": False}}
    y = {"field": "gold", "type": "nominal", "sort": list(labels), "title": "gold", "axis": {"grid": False}}
    spec = {
        "data": {"values": cells}, "columns": columns,
        "facet": {"field": "system", "type": "nominal", "sort": list(matrices), "title": None,
                  "header": {"labelLimit": 150, "labelFontSize": 9}},
        "spec": {"width": size * k, "height": size * k, "layer": [
            {"mark": "rect", "encoding": {"x": x, "y": y, "color": {
                "field": "share", "type": "quantitative", "title": "row share",
                "scale": {"scheme": "blues", "domain": [0, 1]},
                "legend": SYMBOL_LEGEND}}},
            *([{"mark": {"type": "text", "fontSize": 8}, "encoding": {
                "x": x, "y": y, "text": {"field": "count", "type": "quantitative"},
                "color": {"condition": {"test": "datum.share > 0.5", "value": "white"}, "value": "black"}}}]
              if size >= 14 else []),  # counts printed where a cell has room for them
        ]},
        # Each facet draws its own axes, so an empty slot of the last row draws none.
        "resolve": {"axis": {"x": "independent", "y": "independent"}},
    }
    return spec


def confusion_grid(labels: Sequence[str], matrices: Mapping[str, Sequence[Sequence[int]]]) -> str:
    """SVG of :func:`confusion_grid_spec`."""
    return _svg(confusion_grid_spec(labels, matrices))


def tau_heatmap(kendall: Mapping[str, Mapping[str, float]], short: Callable[[str], str]) -> str:
    """Kendall τ between every pair of metric rankings."""
    ids = list(kendall)
    names = [short(m) for m in ids]
    cells = [{"m1": short(a), "m2": short(b), "tau": kendall[a].get(b)} for a in ids for b in ids
             if kendall[a].get(b) is not None]
    size = max(14, min(26, 330 // max(len(ids), 1)))
    axis = {"labelAngle": -45, "grid": False}
    spec = {"data": {"values": cells}, "width": size * len(ids), "height": size * len(ids), "layer": [
        {"mark": "rect", "encoding": {
            "x": {"field": "m1", "type": "nominal", "sort": names, "title": None, "axis": axis},
            "y": {"field": "m2", "type": "nominal", "sort": names, "title": None, "axis": {"grid": False}},
            "color": {"field": "tau", "type": "quantitative", "title": "τ", "scale": {"scheme": "redblue", "domain": [-1, 1]},
                      "legend": SYMBOL_LEGEND}}},
        {"mark": {"type": "text", "fontSize": 7}, "encoding": {
            "x": {"field": "m1", "type": "nominal", "sort": names}, "y": {"field": "m2", "type": "nominal", "sort": names},
            "text": {"field": "tau", "type": "quantitative", "format": ".2f"},
            "color": {"condition": {"test": "abs(datum.tau) > 0.6", "value": "white"}, "value": "black"}}},
    ]}
    return _svg(spec)


#: Ten colours (Tableau 10) times four point shapes: 40 systems with distinct marks.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#79706e")
SHAPES = ("circle", "square", "triangle-up", "diamond")
DASHES = ((1, 0), (5, 2), (2, 2), (6, 2, 1, 2))


def system_marks(systems: Sequence[str]) -> dict[str, list[Any]]:
    """Colour, shape and dash scales giving every system its own combination (colour i mod 10,
    shape and dash i div 10): 40 systems are told apart, where a 20-colour palette repeats."""
    n = len(systems)
    return {
        "color": {"domain": list(systems), "range": [PALETTE[i % len(PALETTE)] for i in range(n)]},
        "shape": {"domain": list(systems), "range": [SHAPES[(i // len(PALETTE)) % len(SHAPES)] for i in range(n)]},
        "strokeDash": {"domain": list(systems),
                       "range": [list(DASHES[(i // len(PALETTE)) % len(DASHES)]) for i in range(n)]},
    }


def bump_spec(ranks: Mapping[str, Mapping[str, float]], metric_ids: Sequence[str], systems: Sequence[str],
               short: Callable[[str], str]) -> dict[str, Any]:
    """Rank of every system (lines) across the metrics (x axis); ``ranks[system][metric]`` is the
    rank table's rank, so tied systems share a (mean) rank and are drawn at the same height."""
    rows = [{"metric": short(m), "system": s, "rank": ranks[s][m]} for m in metric_ids for s in systems
            if ranks.get(s, {}).get(m) is not None]
    scales = system_marks(systems)
    legend = {"title": None, "symbolStrokeWidth": 1.5, "labelLimit": 160,
              "columns": 1 if len(systems) <= 24 else 2}
    x = {"field": "metric", "type": "nominal", "sort": [short(m) for m in metric_ids], "title": None,
         "axis": {"labelAngle": -45}}
    y = {"field": "rank", "type": "quantitative", "scale": {"reverse": True, "domainMin": 1, "nice": False},
         "title": "rank (1 = best; ties share the mean rank)", "axis": {"tickMinStep": 1}}
    spec = {"data": {"values": rows}, "width": WIDTH - 240, "height": max(140, 14 * len(systems)),
            "layer": [
                {"mark": {"type": "line", "strokeWidth": 1.4},
                 "encoding": {"x": x, "y": y,
                              "color": {"field": "system", "type": "nominal", "scale": scales["color"],
                                        "legend": legend},
                              "strokeDash": {"field": "system", "type": "nominal", "scale": scales["strokeDash"],
                                             "legend": None}}},
                {"mark": {"type": "point", "filled": True, "size": 40, "opacity": 1},
                 "encoding": {"x": x, "y": y,
                              "color": {"field": "system", "type": "nominal", "scale": scales["color"],
                                        "legend": legend},
                              "shape": {"field": "system", "type": "nominal", "scale": scales["shape"],
                                        "legend": legend}}},
            ]}
    return spec


def bump_chart(ranks: Mapping[str, Mapping[str, float]], metric_ids: Sequence[str], systems: Sequence[str],
               short: Callable[[str], str]) -> str:
    """SVG of :func:`bump_spec`."""
    return _svg(bump_spec(ranks, metric_ids, systems, short))


def reliability_spec(reliability: Mapping[str, Mapping[str, Sequence[Any]]]) -> dict[str, Any]:
    """Reliability diagram: per system, mean confidence (x) against accuracy (y) of each non-empty
    confidence bin (point area ~ items in the bin), with the diagonal of perfect calibration."""
    systems = list(reliability)
    rows = [{"system": s, "confidence": conf, "accuracy": acc, "items": n}
            for s in systems for conf, acc, n in zip(reliability[s]["confidence"], reliability[s]["accuracy"],
                                                       reliability[s]["count"]) if n]
    scales = system_marks(systems)
    unit = {"type": "quantitative", "scale": {"domain": [0, 1]}}
    x = {"field": "confidence", **unit, "title": "Confidence (mean top-label probability in the bin)"}
    y = {"field": "accuracy", **unit, "title": "Accuracy in the bin"}
    color = {"field": "system", "type": "nominal", "scale": scales["color"], "legend": {"title": None}}
    return {"width": 260, "height": 220, "layer": [
        {"data": {"values": [{"confidence": 0, "accuracy": 0}, {"confidence": 1, "accuracy": 1}]},
         "mark": {"type": "line", "color": "#999999", "strokeDash": [4, 3]}, "encoding": {"x": x, "y": y}},
        {"data": {"values": rows}, "mark": {"type": "line", "strokeWidth": 1.2}, "encoding": {"x": x, "y": y, "color": color}},
        {"data": {"values": rows}, "mark": {"type": "point", "filled": True, "opacity": 1},
         "encoding": {"x": x, "y": y, "color": color, "shape": {"field": "system", "type": "nominal",
                                                                "scale": scales["shape"], "legend": {"title": None}},
                      "size": {"field": "items", "type": "quantitative", "title": "items in the bin",
                               "legend": {"orient": "bottom", "direction": "horizontal", "format": "d",
                                          "symbolType": "circle", "symbolFillColor": "#777777"}}}},
    ]}


def reliability_chart(reliability: Mapping[str, Mapping[str, Sequence[Any]]]) -> str:
    """SVG of :func:`reliability_spec`."""
    return _svg(reliability_spec(reliability))


def formula_svg(latex: str) -> str:
    """The formula typeset to SVG by ziamath, with ids unique to this copy (a formula may be
    drawn twice: in the definitions and in the recommendation); empty when it cannot be typeset."""
    svg = _typeset(latex)
    return unique_ids(svg, salt=str(next(_FORMULA_COPIES))) if svg else ""


_FORMULA_COPIES = itertools.count()


@lru_cache(maxsize=512)
def _typeset(latex: str) -> str:
    """ziamath's SVG of ``latex`` without the XML declaration (cached per formula)."""
    import ziamath

    ziamath.config.precision = 1
    try:
        svg = ziamath.Latex(latex, size=15).svg()
    except Exception:  # a plugin's formula ziamath cannot parse: the LaTeX source is shown instead
        return ""
    return re.sub(r"^<\?xml[^>]*>\s*", "", svg)
