"""The notebook view (``Audit._repr_html_``) is page 1's leaderboard, not a bare table: intervals, the best sets in
bold and above-chance, each matching the audit's own record (issue 36)."""
from __future__ import annotations

import re

import pytest

import auditor

GOLD = ["a", "b", "c"] * 40


@pytest.fixture(scope="module")
def small():
    # x is always right; y confuses b with a; z swaps a and b (macro recall 1/3, chance level for 3 classes)
    return auditor.audit(GOLD, {"x": GOLD, "y": ["a", "a", "c"] * 40, "z": ["b", "a", "c"] * 40},
                         bootstrap=200, seed=7)


def _rows(html: str) -> dict[str, list[str]]:
    return {m.group(1): re.findall(r"<td[^>]*>(.*?)</td>", m.group(2))
            for m in re.finditer(r"<tr><th>(.*?)</th>(.*?)</tr>", html.split("<tbody>")[1])}


def test_cells_show_value_interval_and_bold_for_the_best_set(small):
    html = small._repr_html_()
    heads = re.findall(r"<th>(.*?)</th>", html.split("<tbody>")[0])[1:]
    keys = list(small.verdict.key_metrics)
    assert heads[:len(keys)] == [small._label(k) for k in keys] and heads[-1] == "above chance"
    rows = _rows(html)
    assert list(rows) == list(small.verdict.order)
    for system, cells in rows.items():
        for metric, text in zip(keys, cells):
            value = small.systems[system].metrics[metric].value
            low, high = small.interval(system, metric)
            shown = f"{100 * value:.1f} <small>[{100 * low:.1f}, {100 * high:.1f}]</small>".replace("-", "\u2212")
            bold = system in small.verdict.leaders[metric]
            assert text == (shown.replace(f"{100 * value:.1f}", f"<b>{100 * value:.1f}</b>", 1) if bold else shown)
    # x is right on every item: it leads every metric's best set; z is never in the macro recall best set
    assert all(cell.startswith("<b>100.0</b>") for cell in rows["x"][:len(keys)])
    assert not rows["z"][0].startswith("<b>")


def test_above_chance_is_the_adjusted_shuffle_test_of_the_primary_metric(small):
    rows = _rows(small._repr_html_())
    primary = small.verdict.primary
    for system, cells in rows.items():
        p = small.baselines.chance[system][primary].p_shuffle_adjusted
        assert cells[-1] == ("yes" if p < 0.05 else "no")
    assert rows["x"][-1] == "yes" and rows["z"][-1] == "no"  # z's macro recall 1/3 is the chance level


def test_the_caption_says_how_each_mark_was_decided(small):
    caption = re.search(r"<caption[^>]*>(.*?)</caption>", small._repr_html_()).group(1)
    assert "95% bootstrap percentile interval (B = 200)" in caption
    assert "bold: the metric's best set" in caption and "Holm-adjusted" in caption
    assert "above chance:" in caption


def test_without_draws_only_accuracy_is_bold_and_the_caption_says_why():
    html = auditor.audit(GOLD, {"x": GOLD, "y": ["a", "a", "c"] * 40}, bootstrap=0)._repr_html_()
    assert "only accuracy's exact McNemar tests ran" in html
    header = re.findall(r"<th>([^<]*)</th>", re.search(r"<thead>(.*?)</thead>", html).group(1))
    for row in re.findall(r"<tr><th>[^<]*</th>(.*?)</tr>", re.search(r"<tbody>(.*?)</tbody>", html).group(1)):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert all(header[i + 1] == "Acc" for i, cell in enumerate(cells) if "<b>" in cell)
