"""Chart conversion: one batch in a child process, the same SVG as one-by-one conversion, and one
clear error (nothing written) when an address-space limit stops the converter's JavaScript engine."""
from __future__ import annotations

import resource
import subprocess
import sys
from dataclasses import dataclass

import pytest

from auditor.report import charts
from auditor.report.model import Figure


def _bias_args():
    return ["x", "y", "z"], ["a", "b"], (0.2, 0.3, 0.5), {"a": (0.1, 0.4, 0.5), "b": (0.2, 0.2, 0.6)}


def test_batched_gives_the_svgs_of_direct_conversion(monkeypatch):
    @dataclass(frozen=True)
    class Holder:
        figures: tuple
        extra: dict

    conversions = []
    convert = charts.convert
    monkeypatch.setattr(charts, "convert", lambda specs: conversions.append(len(specs)) or convert(specs))

    def model():
        placeholder = charts.bias_chart(*_bias_args())
        other = charts.confusion_grid(["x", "y"], {"a": [[3, 1], [0, 2]]})
        assert "<svg" not in placeholder and "<svg" not in other
        return Holder((Figure("f1", "c", placeholder), Figure("f2", "c", other)), {"k": [other]})

    resolved = charts.batched(model)
    assert conversions == [2]  # both charts in one child process
    monkeypatch.setattr(charts, "convert", convert)
    assert resolved.figures[0].svg == charts.bias_chart(*_bias_args())
    assert resolved.figures[1].svg.startswith("<svg") and resolved.extra["k"][0] == resolved.figures[1].svg
    assert "\x00" not in resolved.figures[1].svg


def test_a_converter_started_ahead_draws_the_next_batch_and_an_unused_one_is_stopped():
    direct = charts.convert([charts.bias_spec(*_bias_args())])
    with charts.converter_started():
        child = charts._STARTED[0]
        assert charts.convert([charts.bias_spec(*_bias_args())]) == direct
        assert not charts._STARTED and child.returncode == 0  # the batch went to the started child
    with charts.converter_started():
        unused = charts._STARTED[0]
    assert not charts._STARTED and unused.returncode is not None


def test_a_converter_started_ahead_draws_each_chart_as_the_report_records_it(monkeypatch):
    """With a converter started beside the audit, a batch hands it each spec when recorded: the first chart is drawn
    while the model is still being built, and the SVGs are those of direct conversion; it typesets the formulas too
    (the same SVG as typesetting here, each copy with its own ids)."""
    import re
    import time

    direct, latex = charts.bias_chart(*_bias_args()), r"\frac{C_{ii}}{\sum_j C_{ij}}"
    here = charts.formula_svg(latex)
    monkeypatch.setattr(charts, "convert", lambda specs: pytest.fail("converted at the end, not as recorded"))

    def model():
        placeholder = charts.bias_chart(*_bias_args())
        stream, deadline = charts._RECORDING.get().stream, time.monotonic() + 60
        while not stream.out and time.monotonic() < deadline:
            time.sleep(0.02)
        assert stream.out  # drawn before the model is finished
        return (Figure("f1", "c", placeholder), charts.formula_svg(latex), charts.formula_svg(latex))

    with charts.converter_started():
        figure, *formulas = charts.batched(model)
    assert figure.svg == direct and not charts._STARTED
    ids = re.compile(r"c[0-9a-f]{8}-")
    assert formulas[0] != formulas[1] and {ids.sub("", f) for f in formulas} == {ids.sub("", here)}


def test_the_classification_report_converts_its_charts_in_one_batch(monkeypatch):
    import numpy as np

    import auditor
    from auditor.report.build import build

    conversions = []
    convert = charts.convert
    monkeypatch.setattr(charts, "convert", lambda specs: conversions.append(len(specs)) or convert(specs))
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 3, 120)
    model = build(auditor.audit(gold, {"a": gold, "b": rng.integers(0, 3, 120)}, bootstrap=20), figures=True)
    figures = [b for s in model.sections for b in s.blocks if getattr(b, "kind", "") == "figure"]
    assert len(conversions) == 1 and conversions[0] == len(figures) >= 3
    assert all(f.svg.startswith("<svg") and "\x00" not in f.svg for f in figures)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS semantics")
def test_report_under_an_address_space_limit_fails_clearly_and_writes_nothing(germeval_dir, tmp_path):
    root = germeval_dir
    out = tmp_path / "out"

    def limit():  # 8 GB: far above the report's real peak, far below what V8 reserves
        resource.setrlimit(resource.RLIMIT_AS, (8 * 10**9, 8 * 10**9))

    done = subprocess.run(
        [sys.executable, "-c", "from auditor.cli import main; main(prog_name='auditor')", "report",
         str(root / "gold.tsv"), str(root / "systems" / "char-svm.tsv"), "-o", str(out), "--format", "html",
         "--bootstrap", "0"],
        capture_output=True, text=True, preexec_fn=limit, timeout=600)
    assert done.returncode == 2, done.stderr
    assert "ulimit -v" in done.stderr and "--format json,tex,md" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


def test_line_and_paragraph_separators_in_labels_are_drawn_as_escapes():
    # Vega's expression parser refuses U+2028/U+2029 in the sort orders it compiles: drawn as "\u2028"
    labels, systems = ["a\u2028b", "c\u2029d"], ["s\u2028x"]
    svg = charts.bias_chart(labels, systems, (0.4, 0.6), {"s\u2028x": (0.5, 0.5)})
    assert "\\u2028" in svg and "\\u2029" in svg and "\u2028" not in svg
