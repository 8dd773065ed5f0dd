"""Pairwise tests, corrected p-values and the best sets."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Bullets, Cell, Column, Facts, Paragraph, Row, Section, Table
from auditor.report.tables import _density


#: Up to this many systems the significance section shows a full pairwise p-value matrix per
#: tested metric; beyond it, each system against the top one (every test is in audit.json).
MATRIX_MAX_SYSTEMS = 12


def significance_section(ctx: Context) -> Section | None:
    doc = ctx.document
    if not any(doc.get(key) for key in ("tests", "ranks", "best_set")):
        return None
    blocks: list[Any] = []
    stats = doc.get("statistics") or {}
    pairs = [(str(k).replace("_", " "), str(v)) for k, v in stats.items()
             if isinstance(v, (str, int, float)) and k not in ("tests", "family", "rounds_rule")]
    pairs += [(k.replace("_", " "), str(v)) for k, v in (stats.get("tests") or {}).items()]
    if pairs:
        blocks.append(Facts(tuple(pairs)))
    best_set = doc.get("best_set") or {}
    if best_set:
        metric_ids = list(best_set)
        rows = tuple(Row(s, tuple(Cell((best_set[m].get("p_adjusted") or {}).get(s), "p")
                                  if s != best_set[m].get("top") else Cell("top") for m in metric_ids))
                     for s in ctx.systems)
        blocks.append(Table("table-best", "Adjusted p-value of each system against the top system of each metric "
                            "(the best set is the top system and every system with p ≥ α).", "System",
                            tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), rows,
                            _density(len(metric_ids))))
        blocks.append(Bullets(tuple(f"{ctx.name(m)}: {', '.join(v.get('systems', []))} ({v.get('test', '')})"
                                    for m, v in best_set.items()), "Best set per metric"))
    ranks = doc.get("ranks")
    if ranks:
        keys = [m for m in ctx.key_metrics() if m in ranks] or list(ranks)[:6]
        rows = tuple(Row(s, tuple(Cell((ranks[m].get(s) or {}).get("p_best"), "share") for m in keys))
                     for s in ctx.systems)
        blocks.append(Table("table-pbest", "Bootstrap probability that each system ranks first (%).", "System",
                            tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys))))
    tests = doc.get("tests") or []
    if tests and len(ctx.systems) <= MATRIX_MAX_SYSTEMS:
        blocks += [_pairwise_matrix(ctx, metric_id, entry.get("test", ""), tests) for metric_id, entry in best_set.items()]
    if tests:
        blocks.append(Paragraph(_tests_text(tests, stats)))
    return Section("significance", SECTION_TITLES["significance"], tuple(blocks))


def _tests_text(tests: Sequence[Mapping[str, Any]], stats: Mapping[str, Any]) -> str:
    """What was tested, once: one p-value per pair and metric, which test, the family, the rounds."""
    methods = {t.get("method") for t in tests}
    metrics = sorted({str(t.get("metric")) for t in tests})
    parts = [f"{len(tests)} pairwise tests, one per pair of systems and metric ({', '.join(metrics)})"]
    if "mcnemar_exact" in methods:
        parts.append("accuracy uses the exact McNemar test, whose p-value has no Monte Carlo floor")
    if "approximate_randomisation" in methods:
        parts.append("the other metrics, which have no exact test, use approximate randomisation with "
                     f"{stats.get('randomisation_rounds')} rounds ({stats.get('rounds_rule', '')})")
    text = "; ".join(parts) + "."
    if stats.get("family"):
        text += f" Family: {stats['family']}."
    return text + " Every pair with its p-value and adjusted p-value is listed in audit.json under “tests”."


def _pairwise_matrix(ctx: Context, metric_id: str, method: str, tests: Sequence[Mapping[str, Any]]) -> Table:
    """Adjusted p-value of every pair of systems under one metric and its primary test.

    A Monte Carlo p-value at its floor 1/(R + 1) (no round as extreme as the observed
    difference) is an upper bound, shown as "≤ bound".
    """
    floor = ((ctx.document.get("statistics") or {}).get("p_floor") or {}).get(method)
    cells: dict[tuple[str, str], Cell] = {}
    bounded = False
    for test in tests:
        if test.get("metric") == metric_id and test.get("method") == method:
            value, raw = test.get("p_adjusted"), test.get("p")
            at_floor = floor is not None and value is not None and raw is not None and raw <= floor * (1 + 1e-9)
            cell = Cell(_p_bound(value), "text") if at_floor and value >= 0.001 else Cell(value, "p")
            bounded |= at_floor
            cells[(test["a"], test["b"])] = cells[(test["b"], test["a"])] = cell
    rows = tuple(Row(a, tuple(Cell("·") if a == b else cells.get((a, b), Cell(None, "p")) for b in ctx.systems))
                 for a in ctx.systems)
    note = (" ≤: no randomisation round was as extreme as the observed difference, so the p-value is at most "
            "this bound (the floor 1/(R + 1), adjusted)." if bounded else "")
    return Table(f"table-pairs-{metric_id}",
                 f"{ctx.name(metric_id)}: adjusted p-value of each pair of systems ({method.replace('_', ' ')}; "
                 f"{ctx.document.get('statistics', {}).get('correction', '')} over the family in the statistics above)."
                 + note,
                 "System", tuple(Column(s, s, rotate=True) for s in ctx.systems), rows, _density(len(ctx.systems)))


def _p_bound(value: float) -> str:
    """An upper bound on a p-value, in the report's p format (three decimals)."""
    return f"≤{value:.3f}"
