"""The confusion small multiples (auditor.report.charts): each cell coloured by the bin of its share of the gold row,
read from the counts in integers; a page of matrices a chart, each chart within the page."""
from __future__ import annotations

import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from auditor.report import charts


def test_share_bins_by_hand():
    """Hand-computed shares: 1 of 1,000 is 0.1 %; 5 of 100 is exactly 5 % (the 5–20 % bin: a bin holds shares below
    its upper edge); 1 of 3 is 33.3 %; 4 of 5 is exactly 80 %; an empty cell is "0", in an empty row too."""
    cases = {(0, 10): "0", (0, 0): "0", (1, 1000): "under 5%", (4, 100): "under 5%", (5, 100): "5–20%",
             (19, 100): "5–20%", (1, 3): "20–40%", (2, 5): "40–60%", (3, 5): "60–80%", (4, 5): "80–100%",
             (7, 7): "80–100%"}
    assert {case: charts.share_bin(*case) for case in cases} == cases


@given(st.integers(1, 10_000), st.data())
def test_share_bins_follow_the_share(total, data):
    """More items in a row never fall in a lower bin, and the bin's edges bracket count / total."""
    a, b = sorted(data.draw(st.lists(st.integers(0, total), min_size=2, max_size=2)))
    order = [label for label, _, _ in charts.SHARE_BINS]
    assert order.index(charts.share_bin(a, total)) <= order.index(charts.share_bin(b, total))
    if b:
        index = order.index(charts.share_bin(b, total))
        assert charts.SHARE_BINS[index - 1][1] / 100 <= b / total < charts.SHARE_BINS[index][1] / 100


def test_each_cell_carries_its_count_share_and_bin():
    cells = charts.confusion_cells(["a", "b"], {"s": [[19, 1], [0, 0]]})
    assert [(c["gold"], c["predicted"], c["count"], c["share"], c["bin"]) for c in cells] == [
        ("a", "a", 19, 0.95, "80–100%"), ("a", "b", 1, 0.05, "5–20%"), ("b", "a", 0, 0.0, "0"),
        ("b", "b", 0, 0.0, "0")]


def test_a_page_of_matrices_a_chart_and_each_chart_within_the_page():
    """20 classes x 10 systems (the speed benchmark's shape) on one page; 30 classes x 10 systems on three; the SVG of
    each first chart no larger than the page (:data:`PAGE_PX`), its class names at the cells' own height."""
    rng = np.random.default_rng(3)
    shapes = {20: [10], 30: [4, 4, 2]}
    specs = []
    for k, sizes in shapes.items():
        labels = [f"label-{i:02d}" for i in range(k)]
        systems = [f"sys{s:02d}" for s in range(10)]
        pages = charts.confusion_pages(labels, systems)
        assert [len(page) for page in pages] == sizes and sum(pages, []) == systems
        specs.append(charts.confusion_grid_spec(labels, {s: rng.integers(0, 9, (k, k)).tolist() for s in pages[0]},
                                                counts=False))
    for svg in charts.convert([{**spec, "config": charts.CONFIG} for spec in specs]):
        width, height = (float(v) for v in re.search(r'width="([\d.]+)" height="([\d.]+)"', svg).groups())
        assert width <= charts.PAGE_PX[0] and height <= charts.PAGE_PX[1], (width, height)
