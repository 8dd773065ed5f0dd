"""Which translation metrics to report on this data, with the measured reasons and the poster's
passages (Gowda, You, Lignos & May 2021, NAACL; poster "Macro-average: Rare Types Are Important Too").

Rules, in order (each written into the reasons):

1. With human scores: the primary metric is the one whose system ranking agrees best with them
   (Kendall τ-b, then Pearson r) when the paired bootstrap interval of its τ minus each other metric's
   excludes 0; otherwise the human scores pick no metric and rule 2 decides. A metric with τ < 0 is to
   be avoided.
2. Without them (or when they pick none): MacroF is primary when types seen once are at least :data:`RARE_SHARE` of the
   reference vocabulary (the long tail the poster says current metrics do not address), else chrF.
3. Every other metric whose ranking differs from the primary's (a flipped pair) is a complement;
   BLEU is always one (the figure readers compare across papers).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from auditor.formatting import plural
from auditor.tasks.translation.names import NAMES

FORMULAS = {
    "macrof": r"\mathrm{MacroF}_\beta = \frac{1}{|V|}\sum_{c\in V} F_{\beta;c}",
    "microf": r"\mathrm{MicroF}_\beta = "
              r"\frac{\sum_{c\in V} (\mathrm{Refs}(c)+k)\,F_{\beta;c}}{\sum_{c\in V} (\mathrm{Refs}(c)+k)}",
    "bleu": r"\mathrm{BLEU} = \mathrm{BP}\cdot\exp\big(\tfrac14\sum_{n=1}^{4}\log p_n\big)",
    "chrf": r"\mathrm{chrF}_\beta = (1+\beta^2)\,"
            r"\frac{\mathrm{chrP}\cdot\mathrm{chrR}}{\beta^2\,\mathrm{chrP}+\mathrm{chrR}},\ \beta = 2",
}
#: How the reason that warns against a primary metric the human scores do not favour begins.
WARNING = "a warning from the human scores, though they pick no metric"
#: Share of reference types seen once above which the long tail is called large.
RARE_SHARE = 0.4
#: The poster's passages the recommendation cites (section of the poster in brackets).
PASSAGES = {
    "imbalance": "“Natural language types are imbalanced … Most types are rare ⇒ more information content” and "
                 "“Current eval metrics do not address imbalance” (Gowda et al. 2021, poster, Introduction)",
    "semantics": "“MacroF1 is a poor indicator of fluency and grammar; but a strong indicator of semantics; These "
                 "results are based on English only.” (Gowda et al. 2021, poster, Justification)",
    "untranslation": "“Untranslation and truncation are heavily penalized by MacroF1 than BLEU” (Gowda et al. 2021, "
                     "poster, Manual Analysis)",
    "long_tail": "“Macro-averaged evaluation is a useful technique for addressing the importance of long tail of "
                 "language” (Gowda et al. 2021, poster, Conclusion)",
}


def _primary(types, human, level: str) -> tuple[str, list[str]]:
    once = types.bands[0].types / types.types if types.types else 0.0
    rare = (f"{types.bands[0].types} of the {types.types} reference types ({100 * once:.0f}%) occur once; "
            f"{PASSAGES['imbalance']}")
    fallback: list[str] = []
    if human is not None:
        best = human.leader
        tau = human.correlations[best]["kendall_tau"]
        if human.separated():
            reasons = [f"its system ranking agrees best with the human scores (Kendall τ-b = {tau.value:.2f}), and "
                       f"the paired {level} interval of its τ minus each other metric's excludes 0"]
            if best == "macrof":
                reasons += [rare, PASSAGES["semantics"]]
            return best, reasons
        lead = f"the human scores pick no metric: {NAMES[best]} has the highest Kendall τ-b ({tau.value:.2f})"
        if untested_lead(human):
            differences = "; ".join(f"τ({NAMES[best]}) − τ({NAMES[m]}) = {d.value:.2f}"
                                    for m, d in human.leader_differences.items())
            fallback = [f"{lead}, but without intervals (--bootstrap 0) its lead is not tested ({differences}), "
                        f"so the rule without human scores decides"]
        else:
            ties = [f"τ({NAMES[best]}) − τ({NAMES[m]}) = {d.value:.2f}, paired {level} interval "
                    f"[{d.ci[0]:.2f}, {d.ci[1]:.2f}]" for m, d in human.leader_differences.items() if d.ci[0] <= 0]
            fallback = [f"{lead}, but its lead is not significant ({'; '.join(ties)} "
                        f"contain{'s' if len(ties) == 1 else ''} 0), so the rule without human scores decides"]
    if once >= RARE_SHARE:
        return "macrof", fallback + [rare, PASSAGES["long_tail"], PASSAGES["semantics"]]
    return "chrf", fallback + [f"{rare}; the tail is short here, so a character-level F (chrF) covers it"]


def untested_lead(human) -> bool:
    """Whether no difference of τ with the leader has an interval (``--bootstrap 0``): no lead can be tested."""
    return all(d.ci is None for d in human.leader_differences.values())


def against_human(primary: str, human, values: Mapping[str, Mapping[str, float | None]]) -> list[str]:
    """What the human scores say against a primary metric the rule without them chose: its τ and place when
    another metric's τ is higher, and the system it ranks first when the human scores rank another first."""
    if human is None or not human.correlations:
        return []
    taus = {m: row["kendall_tau"].value for m, row in human.correlations.items()}
    said = []
    if primary != human.leader and not np.isnan(taus[primary]):
        above = sum(t > taus[primary] for t in taus.values() if not np.isnan(t))
        others = ", ".join(f"{NAMES[m]} {t:.2f}" for m, t in sorted(taus.items(), key=lambda mt: -mt[1])
                           if m != primary and not np.isnan(t))
        place = (f"the lowest of the {len(taus)} metrics" if above == len(taus) - 1 else
                 f"below {above} of the other {len(taus) - 1} metrics")
        said.append(f"{NAMES[primary]}'s Kendall τ-b with the human scores is {taus[primary]:.2f}, {place} ({others})")
    rated = {s: v for s, v in human.human.items() if not np.isnan(v)}
    scored = {s: row[primary] for s, row in values.items() if row.get(primary) is not None}
    if rated and scored:
        human_first = (min if human.lower_better else max)(rated, key=rated.__getitem__)
        metric_first = max(scored, key=scored.__getitem__)
        if metric_first != human_first:
            said.append(f"{NAMES[primary]} ranks {metric_first} first, the human scores rank {human_first} first")
    if not said:
        return []
    leader = NAMES[human.leader] if human.leader and human.leader != primary else None
    how = "its lead not tested (--bootstrap 0)" if untested_lead(human) else "though not significantly"
    beside = f", so report {leader} (the highest τ, {how}) beside it" if leader else ""
    return [f"{WARNING}: {'; '.join(said)}; the choice rests on the rule without human scores alone{beside}"]


def recommend(corpus, types, disagreement, human, values: Mapping[str, Mapping[str, float | None]],
              alpha: float = 0.05) -> dict[str, Any]:
    """The recommended metric set (``metrics``: primary then complements) and ``avoid``; ``alpha``: the intervals'
    level is 1 − alpha."""
    primary, reasons = _primary(types, human, f"{100 * (1 - alpha):g}%")
    if human is not None and not human.separated():
        reasons = reasons[:1] + against_human(primary, human, values) + reasons[1:]
    chosen = [{"id": primary, "role": "primary", "formula": FORMULAS[primary], "reasons": reasons}]
    for metric in ("macrof", "chrf", "bleu", "microf"):
        if metric == primary:
            continue
        flips = [f for f in disagreement.flips
                 if (primary in f.a_better_under and metric in f.b_better_under)
                 or (primary in f.b_better_under and metric in f.a_better_under)]
        why = []
        if flips:
            why.append(f"it orders {plural(len(flips), 'pair')} of systems differently from {NAMES[primary]} "
                       f"(e.g. {flips[0].a} vs {flips[0].b})")
        if metric == "bleu":
            why.append("the figure readers compare across papers (sacrebleu signature in this audit's signature)")
        if metric == "macrof":
            why += [PASSAGES["untranslation"], PASSAGES["long_tail"]]
        if why and (flips or metric == "bleu"):
            chosen.append({"id": metric, "role": "complement", "formula": FORMULAS[metric], "reasons": why})
    avoid = []
    if human is not None:
        for metric, row in human.correlations.items():
            tau = row["kendall_tau"].value
            if not np.isnan(tau) and tau < 0:
                avoid.append({"id": metric, "reasons": [f"ranks the systems against the human scores "
                                                        f"(Kendall τ-b = {tau:.2f})"]})
    return {"metrics": chosen, "avoid": avoid}
