"""The planner's pages: report models (:mod:`auditor.report.model`) that the audit's renderers
(:mod:`auditor.formats.html`, :mod:`auditor.formats.pdf`) write; charts are Vega-Lite specs drawn
by :func:`auditor.report.charts.spec_svg` (inline SVG, the same in the HTML and the PDF).
Numbers stay numbers here: each is a :class:`Cell` whose kind the renderers format."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from auditor.report.model import Bullets, Cell, Column, Facts, Figure, Paragraph, Report, Row, Section, Table

#: Metrics drawn against x in the predictive-power chart (Vickers et al.'s Figure 1 and the audit's key metrics).
CURVE_METRICS = ("accuracy", "macro_recall", "macro_f1", "weighted_f1", "kappa", "mcc", "informedness", "nit")
#: The plan pages' own legends (not the audit's: no ledger, no best sets).
LEGEND_ACCURACY = "Power, P(reject), Type S and the detectable difference are percentages; Type M is a ratio."
LEGEND_PREDICTIVE = "Metric values are ×100 (a percentage for a share, a hundredth for κ, MCC and the like)."
LEGEND_PILOT = "Power is a percentage; bold: at least the target power."
#: The accuracy page's figures by name (the JSON's keys stay in the JSON).
METHOD_NAMES = {"power": "Power", "type_s": "Type S", "type_m": "Type M",
                "detectable_difference": "Detectable difference", "items_needed": "Items needed"}


def _references(keys: Sequence[str]) -> Section:
    from auditor.plan.methods import REFERENCES

    return Section("references", "References", (Bullets(tuple(REFERENCES[key] for key in keys)),))


def _line_chart(rows: list[dict[str, Any]], x: dict[str, Any], y: dict[str, Any], colour: str | None,
                rule: float | None = None, points: list[dict[str, Any]] | None = None) -> str:
    from auditor.report.charts import WIDTH, spec_svg

    encoding: dict[str, Any] = {"x": x, "y": y}
    if colour:
        encoding["color"] = {"field": colour, "type": "nominal", "title": None, "sort": None,
                             "legend": {"orient": "right"}}
    layers: list[dict[str, Any]] = [{"mark": {"type": "line", "strokeWidth": 1.4}, "encoding": encoding}]
    if rule is not None:
        layers.append({"data": {"values": [{"target": rule}]}, "mark": {"type": "rule", "strokeDash": [4, 3],
                                                                         "color": "#b2182b"},
                       "encoding": {"y": {"field": "target", "type": "quantitative"}}})
    if points:
        layers.append({"data": {"values": points}, "mark": {"type": "point", "filled": True, "size": 22},
                       "encoding": encoding})
    return spec_svg({"data": {"values": rows}, "width": WIDTH - 200, "height": 240, "layer": layers})


# ------------------------------------------------------------------ mode 1


def _agreement(h: Any) -> str:
    """Which agreement the detectable difference assumes."""
    if h.agreement_given:
        return f"at the given agreement G = {h.agreement:.4g}, held fixed as D varies"
    return "at the smallest agreement each D allows, |2A + D − 1| (it changes with D)"


def power_curve(plan: Any) -> tuple[np.ndarray, np.ndarray]:
    """Exact power at up to 300 sizes from N/10 to 1.5·max(N, items needed)."""
    from auditor.analyses.power import power

    h = plan.hypothesis
    top = int(1.5 * max(h.items, plan.needed.items or h.items))
    sizes = np.unique(np.linspace(max(1, h.items // 10), top, 300).astype(int))
    return sizes, np.array([power(h, int(n)).power for n in sizes])


def accuracy_page(plan: Any, figures: bool) -> Report:
    from auditor.plan.methods import CARD, GELMAN, METHODS, TEST

    h, f = plan.hypothesis, plan.figures
    document = plan.to_json()
    inputs = Facts((
        ("Test", TEST),
        ("Items N", f"{h.items:,}"),
        ("Accuracies", f"A = {h.accuracy:g}, B = A + D = {h.accuracy + h.difference:g}"),
        ("Agreement G", f"{h.agreement:.4g}"
         + ("" if h.agreement_given else f" — {document['inputs']['agreement_note']}")),
        ("Level and target", f"α = {h.alpha:g}, target power {h.target_power:g}"),
    ))
    rows = (
        Row("Power", (Cell(f.power, "share"), Cell(METHODS["power"]))),
        Row("P(the test rejects)", (Cell(f.p_reject, "share"), Cell("either sign"))),
        Row("Type S", (Cell(f.type_s, "share"), Cell(METHODS["type_s"]))),
        Row("Type M", (Cell(f.type_m, "number"), Cell(METHODS["type_m"]))),
        Row("Detectable difference", (Cell(plan.detectable.difference, "share"),
                                      Cell(plan.detectable.undefined or f"{plan.detectable.method}; {_agreement(h)}"))),
        Row("Items needed", (Cell(plan.needed.items, "count"), Cell(plan.needed.undefined or METHODS["items_needed"]))),
    )
    blocks: list[Any] = [inputs, Table("table-power", "What this test set can show.", "Figure",
                                       (Column("Value"), Column("What it is")), rows, "small")]
    if figures:
        sizes, values = power_curve(plan)
        svg = _line_chart([{"N": int(n), "power": round(100 * v, 3)} for n, v in zip(sizes, values)],
                          {"field": "N", "type": "quantitative", "title": "items N"},
                          {"field": "power", "type": "quantitative", "title": "power (%)",
                           "scale": {"domain": [0, 100]}}, None, 100 * h.target_power)
        blocks.append(Figure("figure-power", "Exact power against the number of items (dashed: the target). Given "
                                             "the number of discordant items the exact test's critical values jump; "
                                             "averaged over that number the curve rises smoothly, unless nearly "
                                             "every item is discordant. Items needed is the smallest N from which on "
                                             "it stays above the target.", svg))
    sections = (Section("plan", "Power of the accuracy comparison", tuple(blocks)),
                Section("method", "How it is computed",
                        (Paragraph("Card et al. (2020) showed that many NLP comparisons are underpowered; this page "
                                   "computes the power of the very test the audit runs, exactly rather than by "
                                   "simulation. Type S and Type M errors follow Gelman & Carlin (2014)."),
                         Facts(tuple((METHOD_NAMES[key], text) for key, text in METHODS.items())))),
                _references([CARD, GELMAN]))
    return Report("Test-set plan: accuracy", f"N = {h.items:,} items, A = {h.accuracy:g}, D = {h.difference:g}",
                  plan.signature, LEGEND_ACCURACY, sections, (), legend=LEGEND_ACCURACY)


# ------------------------------------------------------------------ mode 3


def predictive_page(plan: Any, figures: bool) -> Report:
    from auditor.plan.methods import VICKERS

    r = plan.result
    document = plan.to_json()
    every_tenth = list(range(0, len(r.x), max(1, (len(r.x) - 1) // 10)))
    columns = tuple(Column(f"x={r.x[i]:g}") for i in every_tenth) + (Column("linear"),)
    rows = tuple(Row(metric, tuple(Cell(r.values[metric][i], "score") for i in every_tenth)
                     + (Cell("yes" if r.linear[metric] else "no"),)) for metric in r.metrics)
    facts = Facts((("Prevalence", ", ".join(f"{label} = {share:.3g}" for label, share in zip(r.labels, r.prevalence))),
                   ("Prevalence from", document["inputs"]["prevalence_source"]),
                   ("Otherwise", document["inputs"]["guess_description"]),
                   ("Shown", document["shown"])))
    blocks: list[Any] = [facts]
    if figures:
        data = [{"x": r.x[i], "metric": metric, "value": round(100 * r.values[metric][i], 3)}
                for metric in CURVE_METRICS if metric in r.values for i in range(len(r.x))
                if r.values[metric][i] is not None]
        points = None
        if r.simulation is not None:
            points = [{"x": x, "metric": metric, "value": round(100 * value, 3)}
                      for metric in CURVE_METRICS if metric in r.simulation["metrics"]
                      for x, value in zip(r.simulation["x"], r.simulation["metrics"][metric]["mean"])
                      if value is not None]
        svg = _line_chart(data, {"field": "x", "type": "quantitative", "title": "x (share of items the model gets "
                                                                              "right by knowing)"},
                          {"field": "value", "type": "quantitative", "title": "value ×100"}, "metric", points=points)
        blocks.append(Figure("figure-predictive", "Each metric of the expected confusion matrix against the model's "
                                                  "predictive power x (Vickers et al. 2023, Figure 1). Informedness "
                                                  "is the diagonal: it equals x." + _coinciding(r)
                             + (f" Dots: the mean of {r.simulation['draws']} simulated test sets of "
                                f"{r.simulation['items']:,} items (expected values at N)." if points else ""), svg))
    blocks.append(Table("table-predictive", "Every catalogue metric against x (values of the expected matrix); "
                                            "x = 0 is the chance value.", "metric", columns, rows, "tiny"))
    blocks.append(_bending_table(r))
    if r.simulation is not None:
        blocks += _simulation_blocks(r)
    sections = (Section("model", "The predictive-power model", tuple(blocks)), _references([VICKERS]))
    return Report("Test-set plan: predictive-power model", f"{len(r.labels)} classes, guessing: {r.guess}",
                  plan.signature, LEGEND_PREDICTIVE, sections, (), legend=LEGEND_PREDICTIVE)


def _bending_table(r: Any) -> Table:
    """Each metric at chance (x = 0) and at x = ½ under this prevalence and with balanced classes."""
    middle = len(r.x) // 2
    columns = (Column("x=0"), Column("x=0 balanced"), Column(f"x={r.x[middle]:g}"),
               Column(f"x={r.x[middle]:g} balanced"))
    rows = tuple(Row(metric, (Cell(r.values[metric][0], "score"), Cell(r.balanced[metric][0], "score"),
                              Cell(r.values[metric][middle], "score"), Cell(r.balanced[metric][middle], "score")))
                 for metric in r.metrics if metric in r.balanced)
    return Table("table-bending", "How the prevalence bends each metric: the same model with every class at share "
                                  "1/k (balanced) beside this prevalence.", "metric", columns, rows, "tiny")


def _coinciding(r: Any) -> str:
    """Which drawn curves lie on top of each other (equal at every x), in words."""
    drawn = [m for m in CURVE_METRICS if m in r.values and None not in r.values[m]]
    groups: list[list[str]] = []
    for metric in drawn:
        for group in groups:
            if np.allclose(r.values[group[0]], r.values[metric], rtol=0, atol=1e-9):
                group.append(metric)
                break
        else:
            groups.append([metric])
    same = ["; ".join(", ".join(group) for group in groups if len(group) > 1)]
    return f" Equal at every x here, so drawn as one line: {same[0]}." if same[0] else ""


def _simulation_blocks(r: Any) -> list[Any]:
    simulation = r.simulation
    xs = simulation["x"]
    columns = tuple(Column(f"x={x:g}") for x in xs)
    rows = tuple(Row(metric, tuple(Cell(value, "score") for value in simulation["metrics"][metric]["mean"]))
                 for metric in r.metrics)
    return [Paragraph(f"Simulation at N = {simulation['items']:,} ({simulation['draws']} draws per x, seed "
                      f"{simulation['seed']}): each metric's mean over the draws where it is defined (its 2.5% and "
                      "97.5% quantiles are in the plan's JSON)."),
            Table("table-simulation", f"Mean of each metric at N = {simulation['items']:,} (expected values at N; "
                                      "they differ from the table above for metrics that are not linear in C).",
                  "metric", columns, rows, "tiny")]


# ------------------------------------------------------------------ mode 2


def pilot_page(plan: Any, figures: bool) -> Report:
    from auditor.plan.methods import CARD

    r = plan.result
    document = plan.to_json()
    columns = tuple(Column(metric) for metric in r.metrics)
    rows = tuple(Row(f"{pair['a']} vs {pair['b']}",
                     tuple(Cell(pair["metrics"][m]["power"], "share", strong=(pair["metrics"][m]["power"] or 0)
                                >= r.target_power) for m in r.metrics)) for pair in document["pairs"])
    stability = (Row("P(top system stays on top)", tuple(Cell(r.p_top_stays[m], "share") for m in r.metrics)),
                 Row("E[Kendall τ-b] with the pilot", tuple(Cell(r.expected_kendall_tau[m], "tau") for m in r.metrics)))
    facts = Facts((("Pilot", f"{r.pilot_items:,} items, {len(r.systems)} systems"),
                   ("Planned test set", f"N = {r.items:,} items, {r.simulations} simulations"),
                   ("Tests", f"the audit's own, α = {r.alpha:g}, {r.correction} over the pairs of each metric"),
                   ("Method", document["method"]),
                   ("Separates the systems with the fewest items", r.separation_sentence()),
                   ("Rule", document["separates_best"]["rule"])))
    blocks = (facts,
              Table("table-pilot-power", f"Power per pair and metric at N = {r.items:,} (bold: at least the target "
                                         f"{r.target_power:g}; Monte Carlo standard error ≤ "
                                         f"{50 / np.sqrt(r.simulations):.1f} points).", "pair", columns, rows, "small"),
              Table("table-pilot-ranks", "Rank stability at N.", "", columns, stability, "small"))
    sizes = sorted({n for by_size in r.mean_power_by_size.values() for n in by_size})
    if figures and len(sizes) > 1:
        data = [{"N": n, "metric": metric, "power": round(100 * value, 3)}
                for metric, by_size in r.mean_power_by_size.items() for n, value in sorted(by_size.items())
                if value is not None]
        svg = _line_chart(data, {"field": "N", "type": "quantitative", "title": "items N", "scale": {"type": "log"}},
                          {"field": "power", "type": "quantitative", "title": "mean power over the pairs (%)",
                           "scale": {"domain": [0, 100]}}, "metric", 100 * r.target_power, points=data)
        blocks += (Figure("figure-pilot-sizes", "Mean power over the pairs against the test-set size (simulated at "
                                                "the sizes asked for; dashed: the target).", svg),)
    sections = (Section("pilot", "Power from a pilot", blocks), _references([CARD]))
    return Report("Test-set plan: from a pilot", f"{len(r.systems)} systems, N = {r.items:,}", plan.signature,
                  LEGEND_PILOT, sections, (), legend=LEGEND_PILOT)
