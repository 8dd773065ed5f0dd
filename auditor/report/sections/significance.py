"""Pairwise tests, corrected p-values and the best sets."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.analyses.significance import Statistics

from auditor.formatting import nan_to_none
from auditor.report.context import Context, SECTION_TITLES
from auditor.report.model import Bullets, Cell, Column, Facts, Paragraph, Row, Section, Table
from auditor.report.tables import _density


#: Up to this many systems the significance section shows a full pairwise p-value matrix per
#: tested metric; beyond it, each system against the top one (every test is in audit.json).
MATRIX_MAX_SYSTEMS = 12


def significance_section(ctx: Context) -> Section | None:
    """From the typed :class:`~auditor.analyses.significance.Statistics` (None: section absent)."""
    stats = ctx.audit.statistics
    if stats is None:
        return None
    from auditor.analyses.significance import METHOD_DESCRIPTIONS, MCNEMAR, RANDOMISATION, RANK_RULE
    from auditor.analyses.significance import best_set_rule, interval_rule

    boot = stats.bootstrap
    blocks: list[Any] = []
    pairs = [("B", str(boot.B)), ("seed", str(boot.seed)), ("alpha", str(stats.alpha)), ("method", boot.method),
             ("interval", interval_rule(stats.alpha)), ("ranks", RANK_RULE)]
    if stats.pairwise_unavailable:
        pairs.append(("pairwise tests unavailable", stats.pairwise_unavailable))
    else:
        pairs += [("correction", stats.correction), ("randomisation rounds", str(stats.rounds)),
                  ("best set", best_set_rule(stats.alpha, stats.correction))]
        pairs += [(method.replace("_", " "), METHOD_DESCRIPTIONS[method]) for method in (MCNEMAR, RANDOMISATION)
                  if any(test.method == method for test in stats.tests)]
    blocks.append(Facts(tuple(pairs)))
    best_set = stats.best_set
    if best_set:
        metric_ids = list(best_set)
        rows = tuple(Row(s, tuple(Cell(nan_to_none(best_set[m].p_adjusted.get(s)), "p")
                                  if s != best_set[m].top else Cell("top") for m in metric_ids))
                     for s in ctx.systems)
        blocks.append(Table("table-best", "Adjusted p-value of each system against the top system of each metric "
                            "(the best set is the top system and every system with p ≥ α).", "System",
                            tuple(Column(ctx.short(m), ctx.name(m)) for m in metric_ids), rows,
                            _density(len(metric_ids))))
        blocks.append(Bullets(tuple(f"{ctx.name(m)}: {', '.join(v.systems)} ({v.test})"
                                    for m, v in best_set.items()), "Best set per metric"))
    ranks = boot.rank_probabilities
    if ranks:
        keys = [m for m in ctx.key_metrics() if m in ranks] or list(ranks)[:6]
        rows = tuple(Row(s, tuple(Cell(float(ranks[m][boot.systems.index(s), 0]), "share") for m in keys))
                     for s in ctx.systems)
        blocks.append(Table("table-pbest", "Bootstrap probability that each system ranks first (%).", "System",
                            tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys))))
    tests = stats.tests
    if tests and len(ctx.systems) <= MATRIX_MAX_SYSTEMS:
        blocks += [_pairwise_matrix(ctx, metric_id, entry.test, stats) for metric_id, entry in best_set.items()]
    if tests:
        blocks.append(Paragraph(_tests_text(stats)))
    return Section("significance", SECTION_TITLES["significance"], tuple(blocks))


def _tests_text(stats: Statistics) -> str:
    """What was tested, once: one p-value per pair and metric, which test, the family, the rounds."""
    from auditor.analyses.significance import rounds_rule

    tests = stats.tests
    methods = {t.method for t in tests}
    metrics = sorted({t.metric for t in tests})
    parts = [f"{len(tests)} pairwise tests, one per pair of systems and metric ({', '.join(metrics)})"]
    if "mcnemar_exact" in methods:
        parts.append("accuracy uses the exact McNemar test, whose p-value has no Monte Carlo floor")
    if "approximate_randomisation" in methods:
        rule = rounds_rule(stats.rounds, max(stats.family_sizes().values(), default=0), stats.alpha)
        parts.append("the other metrics, which have no exact test, use approximate randomisation with "
                     f"{stats.rounds} rounds ({rule})")
    text = "; ".join(parts) + "."
    if stats.family:
        text += f" Family: {stats.family}."
    return text + " Every pair with its p-value and adjusted p-value is listed in audit.json under “tests”."


def _pairwise_matrix(ctx: Context, metric_id: str, method: str, stats: Statistics) -> Table:
    """Adjusted p-value of every pair of systems under one metric and its primary test.

    A Monte Carlo p-value at its floor 1/(R + 1) (no round as extreme as the observed
    difference) is an upper bound, shown as "≤ bound".
    """
    from auditor.analyses.significance import RANDOMISATION

    floor = 1 / (stats.rounds + 1) if stats.rounds and method == RANDOMISATION else None
    cells: dict[tuple[str, str], Cell] = {}
    bounded = False
    for test in stats.tests:
        if test.metric == metric_id and test.method == method:
            value, raw = nan_to_none(test.p_adjusted), nan_to_none(test.p)
            at_floor = floor is not None and value is not None and raw is not None and raw <= floor * (1 + 1e-9)
            cell = Cell(_p_bound(value), "text") if at_floor and value >= 0.001 else Cell(value, "p")
            bounded |= at_floor
            cells[(test.a, test.b)] = cells[(test.b, test.a)] = cell
    rows = tuple(Row(a, tuple(Cell("·") if a == b else cells.get((a, b), Cell(None, "p")) for b in ctx.systems))
                 for a in ctx.systems)
    note = (" ≤: no randomisation round was as extreme as the observed difference, so the p-value is at most "
            "this bound (the floor 1/(R + 1), adjusted)." if bounded else "")
    return Table(f"table-pairs-{metric_id}",
                 f"{ctx.name(metric_id)}: adjusted p-value of each pair of systems ({method.replace('_', ' ')}; "
                 f"{stats.correction} over the family in the statistics above)."
                 + note,
                 "System", tuple(Column(s, s, rotate=True) for s in ctx.systems), rows, _density(len(ctx.systems)))


def _p_bound(value: float) -> str:
    """An upper bound on a p-value, in the report's p format (three decimals)."""
    return f"≤{value:.3f}"
