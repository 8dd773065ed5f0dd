"""Pairwise tests, corrected p-values and the best sets."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.analyses.significance import Statistics

from auditor.formatting import nan_to_none
from auditor.options import correction_name
from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Cell, Column, Facts, Figure, Paragraph, Row, Section, Table
from auditor.report.sections import section
from auditor.report.skeleton import TEST_NAMES, best_set_blocks
from auditor.report.tables import _density

#: Up to this many systems the significance section shows a full pairwise p-value matrix per
#: tested metric; beyond it, each system against the top one (every test is in audit.json).
MATRIX_MAX_SYSTEMS = 12
#: Why no pairwise heat-map is drawn when only the comparisons with each metric's top system were tested
#: (more systems than the all-pairs limit): it would hold one filled row and column in S² cells.
ONLY_AGAINST_THE_TOP = (" Only the comparisons with each metric's top system were tested, so their adjusted p-values "
                        "are the table against the top system above, and no pairwise matrix is drawn.")


@section(120)
def significance_section(ctx: Context) -> Section | None:
    """From the typed :class:`~auditor.analyses.significance.Statistics` (None: section absent)."""
    stats = ctx.audit.statistics
    if stats is None:
        return None
    boot = stats.bootstrap
    blocks: list[Any] = [Facts(_facts(stats))]
    best_set = stats.best_set
    blocks += best_set_blocks(ctx)
    ranks = boot.rank_probabilities
    if ranks:
        keys = [m for m in ctx.key_metrics() if m in ranks] or list(ranks)[:6]
        rows = tuple(Row(s, tuple(Cell(float(ranks[m][boot.systems.index(s), 0]), "share") for m in keys))
                     for s in ctx.systems)
        blocks.append(Table("table-pbest", f"Bootstrap probability that each system ranks first (%; over the B = "
                            f"{boot.B:,} paired resamples of the items, seed {boot.seed}).", "System",
                            tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys)),
                            for_paper=True))
    elif boot.pairwise is not None:  # pattern table too large to resample jointly: ranks from the pairs
        blocks.append(_expected_ranks(ctx, boot.pairwise))
    tests = stats.tests
    every_pair = tests and _every_pair(stats, len(ctx.systems))
    if tests and len(ctx.systems) <= MATRIX_MAX_SYSTEMS:
        blocks.append(_pairwise_table(ctx, {metric_id: entry.test for metric_id, entry in best_set.items()}, stats))
    elif every_pair and ctx.figures:
        blocks += [_pairwise_figure(ctx, metric_id, entry.test, stats) for metric_id, entry in best_set.items()]
    if tests:
        blocks.append(Paragraph(_tests_text(stats, ctx) + ("" if every_pair else ONLY_AGAINST_THE_TOP)))
    return Section("significance", SECTION_TITLES["significance"], tuple(blocks))


def _facts(stats: Statistics) -> tuple[tuple[str, str], ...]:
    """The method's facts: B, seed, α, method, interval, ranks, the resampling unit with clusters, the tests."""
    from auditor.analyses.significance import (
        CLUSTER_TEST,
        MCNEMAR,
        METHOD_DESCRIPTIONS,
        RANDOMISATION,
        best_set_rule,
        interval_rule,
    )
    from auditor.analyses.units import resampling_text

    boot = stats.bootstrap
    pairs = ([("B", str(boot.B)), ("seed", str(boot.seed)), ("alpha", str(stats.alpha)), ("method", boot.method),
              ("interval", interval_rule(stats.alpha)), ("ranks", stats.rank_rule)] if boot.B else
             [("B", "0"), ("alpha", str(stats.alpha)), ("method", boot.method),
              *((what.replace("_", " ") if what != "untested_metrics" else "metrics not tested", why)
                for what, why in stats.not_run.items())])
    if stats.resampling is not None:  # --clusters: what a resample draws, and the design effect
        pairs.append(("resampling unit", resampling_text(stats.resampling)))
    if stats.pairwise_unavailable:
        pairs.append(("pairwise tests unavailable", stats.pairwise_unavailable))
    else:
        pairs += [("correction", correction_name(stats.correction)),
                  *([("randomisation rounds", f"{stats.rounds:,}")] if boot.B else []),
                  ("best set", best_set_rule(stats.alpha, correction_name(stats.correction),
                                             stats.resampling is not None))]
        descriptions = METHOD_DESCRIPTIONS if stats.resampling is None else {RANDOMISATION: CLUSTER_TEST}
        pairs += [(TEST_NAMES[method], descriptions[method]) for method in (MCNEMAR, RANDOMISATION)
                  if any(test.method == method for test in stats.tests)]
    pairs.append(("literature", _literature(stats)))
    return tuple(pairs)


def _every_pair(stats: Statistics, systems: int) -> bool:
    """Whether every pair of systems was tested under every tested metric (not only the comparisons with the top)."""
    return all(size == systems * (systems - 1) // 2 for size in stats.pairs_run().values())


def _expected_ranks(ctx: Context, pairwise: Any) -> Table:
    """Each system's expected rank from the pairs' resamples, with the one sentence that says so."""
    from auditor.analyses.pairwise_resample import PAIRS_SENTENCE

    keys = [m for m in ctx.key_metrics() if m in pairwise.p_beats] or list(pairwise.p_beats)[:6]
    ranks = {m: pairwise.expected_rank(m) for m in keys}
    rows = tuple(Row(s, tuple(Cell(float(ranks[m][pairwise.systems.index(s)]), "number") for m in keys))
                 for s in ctx.systems)
    return Table("table-expected-rank", f"Expected rank of each system (1 = best). {PAIRS_SENTENCE}", "System",
                 tuple(Column(ctx.short(m), ctx.name(m)) for m in keys), rows, _density(len(keys)), for_paper=True)


def _literature(stats: Statistics) -> str:
    """The works the statistics follow, cited by author and year (full entries in References)."""
    from auditor.analyses.significance import MCNEMAR, RANDOMISATION

    parts = ["paired bootstrap percentile intervals: Efron & Tibshirani 1993"] if stats.bootstrap.B else []
    methods = {test.method for test in stats.tests}
    if MCNEMAR in methods:
        parts.append("exact McNemar test: McNemar 1947")
    if RANDOMISATION in methods:
        parts.append("approximate randomisation: Noreen 1989")
    if stats.tests:
        parts.append("Holm 1979" if stats.correction == "holm" else "Benjamini & Hochberg 1995")
        parts.append("choosing and reporting tests in NLP: Dror et al. 2018")
    return "; ".join(parts)




def _family(ctx: Context, metric_id: str, stats: Statistics) -> str:
    """The family a pairwise adjusted p-value was adjusted over, in words."""
    size = stats.family_sizes().get(metric_id, 0)
    run = stats.pairs_run().get(metric_id, 0)
    S = len(ctx.systems)
    left_out = (f"; {run - size} of the {run} with an undefined value have no p and are left out"
                if run > size else "")
    if run == S * (S - 1) // 2:
        return (f"family: the {size} pairs of systems under {ctx.short(metric_id)} whose p is defined{left_out}, "
                f"{correction_name(stats.correction)}" if left_out else
                f"family: all {size} pairs of systems under {ctx.short(metric_id)}, "
                f"{correction_name(stats.correction)}")
    return (f"family: the {size} comparisons with the top system under {ctx.short(metric_id)} (more systems than "
            f"the all-pairs limit){left_out}, {correction_name(stats.correction)}")


def _ordered(ctx: Context, metric_id: str, stats: Statistics) -> list[str]:
    """Systems by their value under ``metric_id``, best first (undefined last)."""
    observed = stats.bootstrap.observed[metric_id]
    index = {s: i for i, s in enumerate(stats.bootstrap.systems)}
    return sorted(ctx.systems, key=lambda s: -observed[index[s]] if not math.isnan(observed[index[s]]) else math.inf)


def _pairwise_figure(ctx: Context, metric_id: str, method: str, stats: Statistics) -> Figure:
    """Heat-map of the adjusted p-values of the tested pairs, systems sorted by the metric."""
    p = {}
    for test in stats.tests_for(metric_id, method):
        p[(test.a, test.b)] = p[(test.b, test.a)] = _number(test.p_adjusted)
    systems = _ordered(ctx, metric_id, stats)
    caption = (f"{ctx.name(metric_id)}: adjusted p-value of each pair of systems ({TEST_NAMES[method]}; "
               f"{_family(ctx, metric_id, stats)}); systems sorted by {ctx.short(metric_id)}, best first; "
               "every pair was tested. The best-set table above adjusts the comparisons with the top system over "
               "their own family, so the same pair's adjusted p-value differs there. Each pair's p-value is also in "
               "audit.json.")
    return Figure(f"fig-pairs-{metric_id}", caption, ctx.charts.pairwise_heatmap(systems, p, ctx.alpha))


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _tests_text(stats: Statistics, ctx: Context | None = None) -> str:
    """What was tested, once: one p-value per pair and metric, which test, the family, the rounds."""
    from auditor.analyses.significance import rounds_rule

    tests = stats.tests
    methods = {t.method for t in tests}
    metrics = [ctx.short(m) if ctx is not None else m for m in sorted({t.metric for t in tests})]
    parts = [f"{len(tests)} pairwise tests, one per pair of systems and metric ({', '.join(metrics)})"]
    if "mcnemar_exact" in methods:
        parts.append("accuracy uses the exact McNemar test, whose p-value has no Monte Carlo floor")
    if "approximate_randomisation" in methods:
        rule = rounds_rule(stats.rounds, max(stats.pairs_run().values(), default=0), stats.alpha)
        which = ("every metric, accuracy included (the items come in clusters, which McNemar's test does not allow), "
                 "uses approximate randomisation over clusters" if stats.resampling is not None else
                 "the other metrics, which have no exact test, use approximate randomisation")
        parts.append(f"{which} with {stats.rounds:,} rounds ({rule})")
    text = "; ".join(parts) + "."
    if stats.family:
        text += f" Family: {stats.family}."
    return text + " Every pair's p-value and adjusted p-value are also in audit.json, one record per pair and metric."


def _pairwise_table(ctx: Context, methods: dict[str, str], stats: Statistics) -> Table:
    """Adjusted p-value of every pair of systems (one row per pair, the better-ranked system
    first) under each tested metric (one column per metric, ``methods``: metric id -> its test).

    A Monte Carlo p-value at its floor 1/(R + 1) (no round as extreme as the observed
    difference) is an upper bound, shown as "≤ bound".
    """
    columns: dict[str, dict[tuple[str, str], Cell]] = {}
    bounded = False
    for metric_id, method in methods.items():
        columns[metric_id], at_floor = _pair_cells(stats, metric_id, method)
        bounded |= at_floor
    systems = list(ctx.systems)
    rows = tuple(Row(a, (Cell(b),) + tuple(columns[m].get((a, b), Cell(None, "p")) for m in methods))
                 for i, a in enumerate(systems) for b in systems[i + 1:])
    tests = "; ".join(f"{ctx.short(m)}: {TEST_NAMES.get(method, method.replace('_', ' '))}, "
                      f"{_family(ctx, m, stats).removesuffix(f', {correction_name(stats.correction)}')}"
                      for m, method in methods.items())
    note = (" ≤: no randomisation round was as extreme as the observed difference, so the p-value is at most "
            "this bound (the floor 1/(R + 1), adjusted)." if bounded else "")
    return Table("table-pairs",
                 f"Adjusted p-value of each pair of systems under each tested metric, "
                 f"{correction_name(stats.correction)}-adjusted within each metric ({tests}). The best-set table "
                 "above adjusts the comparisons with the top system over their own family, so the same pair's "
                 "adjusted p-value differs there." + note,
                 "System", (Column("versus"),) + tuple(Column(ctx.short(m), ctx.name(m)) for m in methods), rows,
                 "small")


def _pair_cells(stats: Statistics, metric_id: str, method: str) -> tuple[dict[tuple[str, str], Cell], bool]:
    """(pair -> adjusted p-value cell, both orders; whether any is an upper bound at the Monte Carlo floor)."""
    from auditor.analyses.significance import RANDOMISATION

    floor = 1 / (stats.rounds + 1) if stats.rounds and method == RANDOMISATION else None
    cells: dict[tuple[str, str], Cell] = {}
    bounded = False
    for test in stats.tests_for(metric_id, method):
        value, raw = nan_to_none(test.p_adjusted), nan_to_none(test.p)
        at_floor = floor is not None and value is not None and raw is not None and raw <= floor * (1 + 1e-9)
        cell = Cell(_p_bound(value), "text") if at_floor and value >= 0.001 else Cell(value, "p")
        bounded |= at_floor
        cells[(test.a, test.b)] = cells[(test.b, test.a)] = cell
    return cells, bounded


def _p_bound(value: float) -> str:
    """An upper bound on a p-value, in the report's p format (three decimals)."""
    return f"≤{value:.3f}"
