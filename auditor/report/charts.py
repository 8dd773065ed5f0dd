"""Charts and formulas as inline SVG: Altair specs rendered by vl-convert, LaTeX by ziamath.

The same SVG goes into the HTML and (through weasyprint) the PDF: no JavaScript, no
network. Values arrive as numbers from the report builder; this module only draws.

Conversion runs in one child process per batch (:func:`batched`: while a report model is built,
every chart function records its spec and returns a placeholder; all specs are converted at once, or, by a
converter started beside the audit (:func:`converter_started`), each as it is recorded, while the rest of the
report is built). vl-convert's
JavaScript engine (V8) reserves tens of GB of virtual address space when it starts; under an address-space limit
(``ulimit -v``, common on shared clusters) it dies with SIGTRAP. In a child process that death is contained and
reported as one clear error naming the limit and the workarounds, and nothing is written.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import queue
import re
import subprocess
import sys
import threading
from contextlib import suppress
from contextvars import ContextVar
from dataclasses import fields, is_dataclass, replace
from functools import lru_cache
from typing import Any, Callable, ContextManager, Mapping, Sequence

from auditor.children import child_started
from auditor.errors import UsageError
from auditor.report import typesetting
from auditor.report.typesetting import typeset

FONT = "DejaVu Sans"
WIDTH = 600  # px; the CSS scales every chart to the page width
#: Height of one system's row (and its name's font size) in a chart of many systems, in px (1 px = 0.75 pt: 6 pt).
ROW_PX = 8
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
#: The converter run in the child: jobs (one JSON line each on stdin: ``["chart", Vega-Lite spec]`` or ``["formula",
#: LaTeX]``) -> SVGs (one JSON line each on stdout, written as each job arrives); with ``--warm``, it first draws one
#: point, which starts V8 (about 1 s), and typesets one formula (importing ziamath: 0.4 s) before it reads its jobs.
#: It loads :mod:`auditor.report.typesetting` by its path (its first argument), not the auditor package.
_CHILD = ("import importlib.util, json, sys\nimport vl_convert\n"
          "spec = importlib.util.spec_from_file_location('typeset', sys.argv[1])\n"
          "module = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(module)\ntypeset = module.typeset\n"
          "if sys.argv[2:] == ['--warm']:\n"
          "    vl_convert.vegalite_to_svg({'mark': 'point', 'data': {'values': [{}]}})\n    typeset('x')\n"
          "for line in sys.stdin:\n    kind, job = json.loads(line)\n"
          "    svg = vl_convert.vegalite_to_svg(job) if kind == 'chart' else typeset(job)\n"
          "    sys.stdout.write(json.dumps(svg) + '\\n')\n    sys.stdout.flush()\n")
#: A converter started ahead of its batch by :func:`converter_started`, waiting for its specs.
_STARTED: list[subprocess.Popen] = []


#: Characters no chart may hold as they are: line breaks and U+2028/U+2029 (Vega-Lite compiles a
#: sort order's strings into Vega expressions, whose parser, as JavaScript before ES2019, refuses
#: them inside a string literal: "Unexpected token ILLEGAL"), and the control characters XML 1.0
#: forbids (vl-convert's SVG text parser panics on them and aborts the process).
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\n\r\u2028\u2029\ufffe\uffff]")


def _expression_safe(value: Any) -> Any:
    """``value`` with every :data:`_UNSAFE` character in every string shown as its escape
    (``\\u2028``, ``\\u001c``): the same text in the data and the sort order, so labels still match."""
    if isinstance(value, str):
        return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", value) if _UNSAFE.search(value) else value
    if isinstance(value, Mapping):
        return {_expression_safe(k): _expression_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_expression_safe(v) for v in value]
    return value


def _svg(spec: Mapping[str, Any]) -> str:
    spec = _expression_safe(dict(spec))
    spec.setdefault("config", CONFIG)
    spec.setdefault("$schema", "https://vega.github.io/schema/vega-lite/v5.json")
    batch = _RECORDING.get()
    if batch is not None:
        return batch.add(spec)
    return convert([spec])[0]


def vega_svg(spec: Mapping[str, Any]) -> str:
    """A task's own Vega-Lite chart as SVG (within :func:`batched`: a placeholder converted with the batch)."""
    return _svg(spec)


def convert(specs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Vega-Lite specs -> inline SVGs, all in one child process (see the module docstring).

    Raises :class:`~auditor.errors.UsageError` naming the address-space limit when the
    converter dies under one; RuntimeError with the child's message otherwise.
    """
    if not specs:
        return []
    payload = "".join(json.dumps(["chart", spec]) + "\n" for spec in specs).encode()
    if _STARTED:
        child = _STARTED.pop()
        stdout, stderr = child.communicate(payload)
        returncode = child.returncode
    else:
        done = subprocess.run([sys.executable, "-c", _CHILD, typesetting.__file__], input=payload,
                              capture_output=True)
        stdout, stderr, returncode = done.stdout, done.stderr, done.returncode
    if returncode != 0:
        raise _conversion_error(returncode, stderr.decode(errors="replace"))
    return [_inline(json.loads(line)) for line in stdout.splitlines()]


def _inline(svg: str) -> str:
    """A chart's SVG as the converter wrote it -> the inline ``<svg>`` element (no XML prolog), one decimal in its
    coordinates (plenty, and it keeps the HTML small and the PDF quick to lay out), ids unique to it."""
    return unique_ids(_NUMBER.sub(_round, svg[svg.find("<svg"):]))



class _Stream:
    """A converter started ahead (:func:`converter_started`) fed each spec as the report records it, so that the
    charts are drawn while the rest of the report is built: one thread writes the specs to the child, two read its
    SVGs and its error output (no pipe ever fills while the other end waits)."""

    def __init__(self, child: subprocess.Popen) -> None:
        self.child, self.specs = child, queue.SimpleQueue()
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.threads = [threading.Thread(target=target, daemon=True) for target in (
            self._write, lambda: self.out.extend(child.stdout), lambda: self.err.append(child.stderr.read()))]
        for thread in self.threads:
            thread.start()

    def _write(self) -> None:
        try:
            for spec in iter(self.specs.get, None):
                self.child.stdin.write(json.dumps(spec).encode() + b"\n")
                self.child.stdin.flush()
        except OSError:
            pass  # the converter stopped: its exit status says why
        finally:
            with suppress(OSError):
                self.child.stdin.close()

    def svgs(self) -> list[str]:
        """Every job's SVG as the converter wrote it, in order, once it has drawn them all."""
        self.specs.put(None)
        for thread in self.threads:
            thread.join()
        if self.child.wait() != 0:
            raise _conversion_error(self.child.returncode, b"".join(self.err).decode(errors="replace"))
        return [json.loads(line) for line in self.out]

    def stop(self) -> None:
        self.child.kill()
        self.specs.put(None)


def converter_started() -> ContextManager[None]:
    """Start the chart converter now, so that its JavaScript engine starts (about 1 s of its own
    CPU) while the audit runs; the next :func:`convert` hands it its specs. Stopped on leaving
    when no batch used it."""
    return child_started([sys.executable, "-c", _CHILD, typesetting.__file__, "--warm"], _STARTED)


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
    """The specs of the charts drawn while :func:`batched` runs: each chart function returns a
    placeholder, and :meth:`resolve` converts every recorded spec in one child process and puts
    the SVGs in."""

    def __init__(self) -> None:
        self.jobs: list[tuple[str, Any]] = []  # ("chart", spec) or ("formula", LaTeX)
        self._token = f"\x00auditor-chart-{id(self):x}-"
        #: a converter started ahead draws each spec as it is recorded
        self.stream = _Stream(_STARTED.pop()) if _STARTED else None

    def add(self, spec: dict[str, Any], kind: str = "chart") -> str:
        """A placeholder for the SVG of ``spec`` (a chart's Vega-Lite spec, or with ``kind="formula"`` a formula's
        LaTeX: only for a started converter)."""
        self.jobs.append((kind, spec))
        if self.stream:
            self.stream.specs.put([kind, spec])
        return f"{self._token}{len(self.jobs) - 1}\x00"

    def resolve(self, model: Any) -> Any:
        """``model`` (any tree of dataclasses, tuples, lists and strings) with every placeholder
        replaced by its SVG; the specs are converted in one batch (as they were recorded, by a converter started
        ahead)."""
        if self.stream:
            svgs = [_inline(svg) if kind == "chart" else _formula_copy(svg)
                    for (kind, _), svg in zip(self.jobs, self.stream.svgs())]
        else:
            svgs = convert([spec for _, spec in self.jobs])
        pattern = re.compile(re.escape(self._token) + r"(\d+)\x00")
        self.jobs = []
        return _substitute(model, lambda text: pattern.sub(lambda m: svgs[int(m.group(1))], text))


def batched(build: Callable[[], Any]) -> Any:
    """``build()`` (a report model, or any tree :meth:`Batch.resolve` walks) with every chart drawn
    while it runs converted in one batch: one child process instead of one per chart."""
    batch = Batch()
    token = _RECORDING.set(batch)
    try:
        model = build()
    except BaseException:
        if batch.stream:
            batch.stream.stop()
        raise
    finally:
        _RECORDING.reset(token)
    return batch.resolve(model)


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


#: A coordinate with more than one decimal; not a number the chart prints (text between ">" and "<").
_NUMBER = re.compile(r"(?<![\w#>])(?<!>-)(?<!>−)(?<!offset=\")(-?\d+\.\d{2,})(?![^<>]*</text>)")
spec_svg = _svg  # public: the SVG of any Vega-Lite spec, styled as the report's charts (used by auditor.plan)


def unique_ids(svg: str, salt: str = "") -> str:
    """Prefix every id (and its url(#id) / href="#id" references) so that inline SVGs never collide.

    The prefix hashes the SVG and ``salt``; give a different salt to each copy of the same SVG.
    """
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    if not ids:
        return svg
    prefix = "c" + hashlib.sha1((salt + svg).encode()).hexdigest()[:8] + "-"
    longest_first = sorted(ids, key=len, reverse=True)
    pattern = re.compile(r'(\sid="|url\(#|href="#)(' + "|".join(re.escape(i) for i in longest_first)
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
    # 11 px a system down to ROW_PX (names at ROW_PX) beyond 60 systems, with lower bars and the legend at the
    # side: at 100 systems 1,100 px ran past the page; now the chart, its caption and the section's lead fit one
    many = len(systems) > 60
    band = max(ROW_PX if many else 11, min(24, 300 // max(1, len(systems))))
    x = {"field": "label", "type": "nominal", "sort": list(labels), "title": None,
         "axis": {"labelAngle": -45 if len(labels) > 6 else 0, "grid": False}}
    spec = {
        "vconcat": [
            {"data": {"values": shares}, "width": WIDTH - 160, "height": 50 if many else 90,
             "mark": {"type": "bar", "color": "#888"},
             "encoding": {"x": {**x, "axis": None},
                          "y": {"field": "share", "type": "quantitative", "title": "prevalence %"}}},
            {"data": {"values": cells}, "width": WIDTH - 160, "height": band * len(systems),
             "layer": [
                 {"mark": "rect", "encoding": {
                     "x": x, "y": {"field": "system", "type": "nominal", "sort": list(systems), "title": None,
                                         "axis": {"grid": False, **({"labelFontSize": band} if band < 10 else {})}},
                     "color": {"field": "diff", "type": "quantitative", "title": "bias − prev. (pp)",
                               "scale": {"scheme": "redblue", "domain": [-extent, extent]},
                               "legend": {**SYMBOL_LEGEND, "orient": "right", "direction": "vertical"} if many
                               else SYMBOL_LEGEND}}},
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
    # 12 px a system up to 20 systems; beyond 30, 8 px a system with names at 8 px (6 pt on the page, issue 40), so
    # that 100 systems take 800 px (600 pt: one A4 page with its caption) and every name is legible
    height = max(60, min(12 * len(systems), max(240, ROW_PX * len(systems))))
    y = {"field": "system", "type": "nominal", "sort": list(systems), "title": None,
         **({"axis": {"labelFontSize": ROW_PX}} if height < 10 * len(systems) else {})}
    layers = [{"mark": {"type": "point", "filled": True, "size": 30 if height >= 10 * len(systems) else 16,
                        "color": "#1f4e79"},
               "encoding": {"x": {"field": "value", "type": "quantitative", "title": "×100",
                                  "scale": {"zero": False}}, "y": y}}]
    if any(r["low"] is not None for r in rows):
        layers.insert(0, {"mark": {"type": "rule", "color": "#7a9cc6"},
                          "encoding": {"x": {"field": "low", "type": "quantitative"}, "x2": {"field": "high"}, "y": y}})
    if any(r["chance"] is not None for r in rows):
        layers.insert(0, {"mark": {"type": "rule", "color": "#b2182b", "strokeDash": [4, 3], "strokeWidth": 1.2},
                          "encoding": {"x": {"field": "chance", "type": "quantitative", "aggregate": "min"}}})
    # many systems: one row of panels sharing the system axis (names once, at 7.5 pt on the page)
    columns = len(metric_ids) if len(systems) > 12 else 3 if len(metric_ids) > 2 else len(metric_ids)
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


#: Bins of a cell's share of its gold row in the confusion small multiples, read from the counts: (label, upper
#: edge in percent, colour; a bin holds shares below its edge); an empty cell is "0" whatever its row holds. A few
#: named steps are read off a page more surely than a continuous ramp (a 4 % cell and an empty one look alike there),
#: and the PDF draws each step of a matrix as one path (:func:`auditor.formats.pdf.merge_rect_cells`).
SHARE_BINS = (("0", 0, "#ffffff"), ("under 5%", 5, "#eff3ff"), ("5–20%", 20, "#c6dbef"), ("20–40%", 40, "#9ecae1"),
              ("40–60%", 60, "#6baed6"), ("60–80%", 80, "#3182bd"), ("80–100%", 101, "#08519c"))
#: The bins whose colour is dark enough for a count printed in white.
DARK_BINS = ("60–80%", "80–100%")


def share_bin(count: int, total: int) -> str:
    """The :data:`SHARE_BINS` label of a cell of ``count`` items in a gold row of ``total``: 100 count < edge total,
    in integers (no rounding decides a bin)."""
    if count == 0:
        return SHARE_BINS[0][0]
    return next(label for label, edge, _ in SHARE_BINS[1:] if 100 * count < edge * total)


def confusion_cells(labels: Sequence[str], matrices: Mapping[str, Sequence[Sequence[int]]]) -> list[dict[str, Any]]:
    """One record per system and cell (gold rows, predicted columns): its count, its share of the gold row
    (0 in an empty row) and that share's bin (:func:`share_bin`), the data of the confusion small multiples."""
    cells = []
    for system, matrix in matrices.items():
        for i, gold in enumerate(labels):
            total = sum(matrix[i])
            for j, predicted in enumerate(labels):
                count = int(matrix[i][j])
                cells.append({"system": system, "gold": gold, "predicted": predicted, "count": count,
                              "share": round(count / total, 4) if total else 0.0, "bin": share_bin(count, total)})
    return cells


#: Font size (px; 7.5 pt at the 1:1 scale of the PDF) of the counts in the confusion small multiples.
GRID_COUNT_FONT = 10
#: The page the confusion small multiples must fit, in px (1 px = 0.75 pt): A4's text width (188 mm) and the height
#: left under a section heading and its lead paragraph (247 of 275 mm), less the caption.
PAGE_PX = (700, 900)
#: Gap between two small multiples and the height of a system's name above its matrix, in px.
SPACING, TITLE_PX = 8, 16


def _grid_layout(k: int) -> tuple[int, int]:
    """(columns, cell size in px) of the confusion small multiples at ``k`` classes: up to 15 classes, cells as
    large as 3 matrices a row (2 above 6 classes) allow; above, cells of 8 px (their class names at 6 pt, as a chart's
    system names at :data:`ROW_PX`) and as many matrices a row as fit the page (3 at 20 classes)."""
    if k <= 6:
        columns = 6 if k <= 2 else 4 if k <= 3 else 3
        return columns, (WIDTH - 160) // columns // max(k, 1) - 4
    if (WIDTH - 160) // 2 // k - 4 >= 10:
        return 2, (WIDTH - 160) // 2 // k - 4
    return max(1, (PAGE_PX[0] - 60) // (ROW_PX * k + SPACING)), ROW_PX


def confusion_pages(labels: Sequence[str], systems: Sequence[str]) -> list[list[str]]:
    """The systems in groups of as many small multiples as fit one page (:data:`PAGE_PX`): one chart each, so that
    no chart is taller than a page (a taller SVG is cut at the page's foot)."""
    k = len(labels)
    columns, size = _grid_layout(k)
    label_px = min(100, 0.6 * max((len(str(label)) for label in labels), default=1) * min(size, 10))
    rows = max(1, int((PAGE_PX[1] - label_px - 70) // (size * k + TITLE_PX + SPACING)))
    per_page = rows * columns
    return [list(systems[start:start + per_page]) for start in range(0, len(systems), per_page)]


def confusion_counts_fit(labels: Sequence[str], matrices: Mapping[str, Sequence[Sequence[int]]]) -> bool:
    """Whether :func:`confusion_grid` prints every count whole inside its cell (digits about
    0.64 em wide in DejaVu Sans), so that the chart alone carries the numbers."""
    _, size = _grid_layout(len(labels))
    largest = max((int(v) for m in matrices.values() for row in m for v in row), default=0)
    return size >= 14 and len(str(largest)) * 0.64 * GRID_COUNT_FONT <= size - 2


def confusion_grid_spec(labels: Sequence[str], matrices: Mapping[str, Sequence[Sequence[int]]],
                        counts: bool = True) -> dict[str, Any]:
    """Small multiples: one confusion matrix per system (k up to :data:`MAX_MATRIX_CLASSES`), each cell coloured by
    the bin of its share of the gold row (:data:`SHARE_BINS`); with ``counts``, counts printed in the cells while
    they have room. The class names are written once per row of matrices (gold, at the left) and once per column
    (predicted, under its lowest matrix), at the cells' own height: at 20 classes a name on every matrix was 400
    labels, 7 px apart."""
    k, systems = len(labels), list(matrices)
    columns, size = _grid_layout(k)
    font = min(10, size)
    text = {"labelFontSize": font, "labelLimit": 100, "grid": False}
    scale = {"domain": [label for label, _, _ in SHARE_BINS], "range": [colour for _, _, colour in SHARE_BINS]}
    legend = {**SYMBOL_LEGEND, "title": "share of the gold row", "format": None, "columns": len(SHARE_BINS),
              "symbolStrokeColor": "#999999", "symbolStrokeWidth": 0.5}
    charts = []
    for index, system in enumerate(systems):
        left, lowest = index % columns == 0, index + columns >= len(systems)
        x = {"field": "predicted", "type": "nominal", "sort": list(labels), "title": "predicted" if lowest else None,
             "axis": {**text, "labels": lowest, "ticks": lowest, "labelAngle": -45 if k <= 6 else -90}}
        y = {"field": "gold", "type": "nominal", "sort": list(labels), "title": "gold" if left else None,
             "axis": {**text, "labels": left, "ticks": left}}
        layers = [{"mark": "rect", "encoding": {"x": x, "y": y, "color": {
            "field": "bin", "type": "ordinal", "title": "share of the gold row", "scale": scale,
            "legend": {k: v for k, v in legend.items() if v is not None}}}}]
        if counts and size >= 14:  # counts printed where a cell has room for them
            layers.append({"mark": {"type": "text", "fontSize": GRID_COUNT_FONT}, "encoding": {
                "x": x, "y": y, "text": {"field": "count", "type": "quantitative"},
                "color": {"condition": {"test": f"indexof({list(DARK_BINS)}, datum.bin) >= 0", "value": "white"},
                          "value": "black"}}})
        charts.append({"title": {"text": system, "fontSize": 9, "fontWeight": "normal", "limit": size * k},
                       "transform": [{"filter": {"field": "system", "equal": system}}],
                       "width": size * k, "height": size * k, "view": {"stroke": "#bbbbbb"}, "layer": layers})
    return {"data": {"values": confusion_cells(labels, matrices)}, "concat": charts, "columns": columns,
            "spacing": SPACING, "resolve": {"scale": {"color": "shared"}}}


def confusion_grid(labels: Sequence[str], matrices: Mapping[str, Sequence[Sequence[int]]], counts: bool = True) -> str:
    """SVG of :func:`confusion_grid_spec`."""
    return _svg(confusion_grid_spec(labels, matrices, counts))


def tau_heatmap(kendall: Mapping[str, Mapping[str, float]], short: Callable[[str], str]) -> str:
    """Kendall τ between every pair of metric rankings."""
    ids = list(kendall)
    names = [short(m) for m in ids]
    cells = [{"m1": short(a), "m2": short(b), "tau": kendall[a].get(b)} for a in ids for b in ids
             if kendall[a].get(b) is not None]
    size = max(14, min(22, 330 // max(len(ids), 1)))  # 13 metrics: 100 mm high at print size
    axis = {"labelAngle": -45, "grid": False}
    spec = {"data": {"values": cells}, "width": size * len(ids), "height": size * len(ids), "layer": [
        {"mark": "rect", "encoding": {
            "x": {"field": "m1", "type": "nominal", "sort": names, "title": None, "axis": axis},
            "y": {"field": "m2", "type": "nominal", "sort": names, "title": None, "axis": {"grid": False}},
            "color": {"field": "tau", "type": "quantitative", "title": "τ",
                      "scale": {"scheme": "redblue", "domain": [-1, 1]},
                      "legend": SYMBOL_LEGEND}}},
        {"mark": {"type": "text", "fontSize": 8}, "encoding": {  # 6 pt on the page
            "x": {"field": "m1", "type": "nominal", "sort": names},
            "y": {"field": "m2", "type": "nominal", "sort": names},
            "text": {"field": "tau", "type": "quantitative", "format": ".2f"},
            "color": {"condition": {"test": "abs(datum.tau) > 0.6", "value": "white"}, "value": "black"}}},
    ]}
    return _svg(spec)


#: Ten colours (Tableau 10) times four point shapes: 40 systems with distinct marks.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#79706e")
SHAPES = ("circle", "square", "triangle-up", "diamond")
DASHES = ((1, 0), (5, 2), (2, 2), (6, 2, 1, 2))


def _shape(i: int) -> str:
    """Shape i + ⌊i/10⌋ mod 4: neighbours differ in shape, and the systems sharing a colour
    (i, i + 10, i + 20, i + 30) all differ in shape."""
    return SHAPES[(i + i // len(PALETTE)) % len(SHAPES)]


def system_marks(systems: Sequence[str]) -> dict[str, list[Any]]:
    """Colour, shape and dash scales giving every system its own combination (colour i mod 10,
    shape :func:`_shape`, dash i div 10): 40 systems are told apart, and even 4 systems differ in
    shape as well as colour."""
    n = len(systems)
    return {
        "color": {"domain": list(systems), "range": [PALETTE[i % len(PALETTE)] for i in range(n)]},
        "shape": {"domain": list(systems), "range": [_shape(i) for i in range(n)]},
        "strokeDash": {"domain": list(systems),
                       "range": [list(DASHES[(i // len(PALETTE)) % len(DASHES)]) for i in range(n)]},
    }


def bump_spec(ranks: Mapping[str, Mapping[str, float]], metric_ids: Sequence[str], systems: Sequence[str],
               short: Callable[[str], str]) -> dict[str, Any]:
    """Rank of every system (lines) across the metrics (x axis); ``ranks[system][metric]`` is the
    rank table's rank (tied systems share the mean rank). Tied systems are drawn side by side around
    their shared rank (``shown``, at most ±0.3 apart), so no point hides another; ``rank`` keeps the rank."""
    rows = []
    for m in metric_ids:
        present = [s for s in systems if ranks.get(s, {}).get(m) is not None]
        tied: dict[float, list[str]] = {}
        for s in present:
            tied.setdefault(float(ranks[s][m]), []).append(s)
        for rank, group in tied.items():
            step = 0.6 / max(len(group) - 1, 1) if len(group) > 1 else 0.0
            for j, s in enumerate(group):
                rows.append({"metric": short(m), "system": s, "rank": rank,
                             "shown": rank + (j * step - 0.3 if len(group) > 1 else 0.0)})
    x = {"field": "metric", "type": "nominal", "sort": [short(m) for m in metric_ids], "title": None,
         "axis": {"labelAngle": -45}}
    y = {"field": "shown", "type": "quantitative", "scale": {"reverse": True, "domainMin": 0.5, "nice": False},
         "title": "rank (1 = best; ties side by side around their mean rank)", "axis": {"tickMinStep": 1}}
    return system_lines_spec(rows, x, y, systems, max(140, 14 * len(systems)))


def system_lines_spec(rows: Sequence[Mapping[str, Any]], x: Mapping[str, Any], y: Mapping[str, Any],
                      systems: Sequence[str], height: int) -> dict[str, Any]:
    """One line per system through ``rows`` (each with a ``system`` field) across the ordered categories of ``x``,
    a point at each, every system told apart by colour, dash and shape (:func:`system_marks`): the rank bump chart
    across metrics, and any figure of every system across ordered groups (translation's frequency bands)."""
    scales = system_marks(systems)
    legend = {"title": None, "symbolStrokeWidth": 1.5, "labelLimit": 160,
              "columns": 1 if len(systems) <= 24 else 2}
    color = {"field": "system", "type": "nominal", "scale": scales["color"], "legend": legend}
    return {"data": {"values": list(rows)}, "width": WIDTH - 240, "height": height,
            "layer": [
                {"mark": {"type": "line", "strokeWidth": 1.4},
                 "encoding": {"x": x, "y": y, "color": color,
                              "strokeDash": {"field": "system", "type": "nominal", "scale": scales["strokeDash"],
                                             "legend": None}}},
                {"mark": {"type": "point", "filled": True, "size": 40, "opacity": 1},
                 "encoding": {"x": x, "y": y, "color": color,
                              "shape": {"field": "system", "type": "nominal", "scale": scales["shape"],
                                        "legend": legend}}},
            ]}


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
        {"data": {"values": rows}, "mark": {"type": "line", "strokeWidth": 1.2},
         "encoding": {"x": x, "y": y, "color": color}},
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
    drawn twice: in the definitions and in the recommendation); empty when it cannot be typeset. Within a batch
    drawn by a converter started beside the audit, a placeholder: the converter typesets it while the report is
    built."""
    batch = _RECORDING.get()
    if batch is not None and batch.stream:
        return batch.add(latex, kind="formula")
    return _formula_copy(_typeset(latex))


def _formula_copy(svg: str) -> str:
    return unique_ids(svg, salt=str(next(_FORMULA_COPIES))) if svg else ""


_FORMULA_COPIES = itertools.count()


@lru_cache(maxsize=512)
def _typeset(latex: str) -> str:
    """:func:`typeset`, cached per formula."""
    return typeset(latex)


#: p-value bins of the pairwise heat-map, strongest evidence first, and their colours.
P_BINS = ("p < .001", "p < .01", "p < α", "p ≥ α", "not tested")
P_COLOURS = ("#08306b", "#2171b5", "#9ecae1", "#f0f0f0", "#ffffff")


def p_bin(p: float | None, alpha: float) -> str:
    """The heat-map bin of an adjusted p-value (None: the pair was not tested)."""
    if p is None:
        return P_BINS[4]
    return P_BINS[0] if p < 0.001 else P_BINS[1] if p < 0.01 else P_BINS[2] if p < alpha else P_BINS[3]


def pairwise_spec(systems: Sequence[str], p_adjusted: Mapping[tuple[str, str], float | None],
                  alpha: float) -> dict[str, Any]:
    """Systems × systems (in the given order, best first), the lower triangle, coloured by the bin of each
    pair's adjusted p-value; ``p_adjusted[(a, b)]`` for the tested pairs, both orders. A colour scale, no
    numbers: at 23 systems numbers would be unreadable (their values are in audit.json)."""
    names = [str(s) for s in systems]
    # one triangle (row below column: the better system of each pair is the column), the other is its mirror
    cells = [{"a": a, "b": b, "bin": p_bin(p_adjusted.get((a, b)), alpha)}
             for i, a in enumerate(names) for b in names[:i]]
    size = max(12, min(22, 260 // max(len(names), 1)))  # cells at least as tall as the 10 px names (23 systems)
    axis = {"grid": False, "labelFontSize": 10, "labelLimit": 160}
    scale = {"domain": list(P_BINS), "range": list(P_COLOURS)}
    legend = {**SYMBOL_LEGEND, "title": "adjusted p", "format": None, "labelFontSize": 10, "columns": 3}
    legend = {k: v for k, v in legend.items() if v is not None}
    return {"data": {"values": cells}, "width": size * len(names), "height": size * len(names),
            "mark": {"type": "rect", "stroke": "#bbbbbb", "strokeWidth": 0.5},
            "encoding": {
                "x": {"field": "b", "type": "nominal", "sort": names, "title": None,
                      "axis": {**axis, "labelAngle": -60, "orient": "top"}},
                "y": {"field": "a", "type": "nominal", "sort": names, "title": None, "axis": axis},
                "color": {"field": "bin", "type": "nominal", "scale": scale, "legend": legend}}}


def pairwise_heatmap(systems: Sequence[str], p_adjusted: Mapping[tuple[str, str], float | None],
                     alpha: float) -> str:
    """SVG of :func:`pairwise_spec`."""
    return _svg(pairwise_spec(systems, p_adjusted, alpha))
