"""Which translation metrics to report on this data, with the measured reasons and the poster's
passages (Gowda, You, Lignos & May 2021, NAACL; poster "Macro-average: Rare Types Are Important Too"): translation's
rule table, applied by the one recommendation module (:func:`auditor.analyses.recommend.apply_rules`, whose
:class:`~auditor.analyses.recommend.Recommendation` record and JSON every task kind writes).

Rules, in order:

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

from typing import Any, Callable, Mapping

import numpy as np

from auditor.analyses.recommend import Firing, Recommendation, Rule, Source, apply_rules
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
#: The poster's passages the rules follow (the poster's section; sources/poster-macro-average-rare-types-mt.md).
POSTER = ("poster-macro-average-rare-types-mt.md", "gowda2021macro", "Gowda et al. 2021")
IMBALANCE = Source(POSTER[0], "poster, Introduction", "Natural language types are imbalanced … Most types are rare ⇒ "
                   "more information content", *POSTER[1:])
NOT_ADDRESSED = Source(POSTER[0], "poster, Introduction", "Current eval metrics do not address imbalance", *POSTER[1:])
SEMANTICS = Source(POSTER[0], "poster, Justification", "MacroF1 is a poor indicator of fluency and grammar; but a "
                   "strong indicator of semantics; These results are based on English only.", *POSTER[1:])
UNTRANSLATION = Source(POSTER[0], "poster, Manual Analysis", "Untranslation and truncation are heavily penalized by "
                       "MacroF1 than BLEU", *POSTER[1:])
LONG_TAIL = Source(POSTER[0], "poster, Conclusion", "Macro-averaged evaluation is a useful technique for addressing "
                   "the importance of long tail of language", *POSTER[1:])
#: The data section's words on the vocabulary (the same two passages as the tail rule).
IMBALANCE_TEXT = f"“{IMBALANCE.quote}” and “{NOT_ADDRESSED.quote}” (Gowda et al. 2021, poster, Introduction)"


def _primary(types, human, level: str) -> tuple[str, list[str]]:
    once = types.bands[0].types / types.types if types.types else 0.0
    rare = f"{types.bands[0].types} of the {types.types} reference types ({100 * once:.0f}%) occur once"
    fallback: list[str] = []
    if human is not None:
        best = human.leader
        tau = human.correlations[best]["kendall_tau"]
        if human.separated():
            reasons = [f"its system ranking agrees best with the human scores (Kendall τ-b = {tau.value:.2f}), and "
                       f"the paired {level} interval of its τ minus each other metric's excludes 0"]
            if best == "macrof":
                reasons += [rare]
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
        return "macrof", fallback + [rare]
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


class _Facts:
    """What the rules read: the primary metric the human scores or the vocabulary's tail pick (with its measured
    reasons), the human agreement, the rank flips and every system's values."""

    def __init__(self, types, disagreement, human, values, level: str):
        self.primary, self.reasons = _primary(types, human, level)
        if human is not None and not human.separated():
            self.reasons = self.reasons[:1] + against_human(self.primary, human, values) + self.reasons[1:]
        self.types, self.disagreement, self.human = types, disagreement, human
        self.once = types.bands[0].types / types.types if types.types else 0.0

    def flips(self, metric: str) -> list[Any]:
        """The pairs of systems ``metric`` orders differently from the primary metric."""
        return self.disagreement.flips_between(self.primary, metric)


def _by_humans(facts: _Facts) -> Firing | None:
    return Firing(tuple(facts.reasons), primary=facts.primary) \
        if facts.human is not None and facts.human.separated() else None


def _by_tail(metric: str) -> Callable[[_Facts], Firing | None]:
    """The rule without human scores (or when they pick none) that makes ``metric`` primary."""
    def check(facts: _Facts) -> Firing | None:
        if facts.primary != metric or (facts.human is not None and facts.human.separated()):
            return None
        return Firing(tuple(facts.reasons), primary=metric)

    return check


def _macrof_beside(facts: _Facts) -> Firing | None:
    """MacroF as a complement (it orders a pair differently): the passages on what it weighs that BLEU does not."""
    return Firing((), complements=("macrof",)) if facts.primary != "macrof" and facts.flips("macrof") else None


def _flips(facts: _Facts) -> list[Firing]:
    """Each other metric that orders a pair of systems differently from the primary metric is a complement."""
    firings = []
    for metric in ("macrof", "chrf", "bleu", "microf"):
        flips = facts.flips(metric)
        if metric != facts.primary and flips:
            firings.append(Firing((f"it orders {plural(len(flips), 'pair')} of systems differently from "
                                   f"{NAMES[facts.primary]} (e.g. {flips[0].a} vs {flips[0].b})",),
                                  complements=(metric,)))
    return firings


def _bleu(facts: _Facts) -> Firing | None:
    return None if facts.primary == "bleu" else Firing(
        ("the figure readers compare across papers (sacrebleu signature in this audit's signature)",),
        complements=("bleu",))


def _against_humans(facts: _Facts) -> Firing | None:
    """A metric whose ranking goes against the human scores' (τ < 0) is to be avoided."""
    if facts.human is None:
        return None
    found = []
    for metric, row in facts.human.correlations.items():
        tau = row["kendall_tau"].value
        if not np.isnan(tau) and tau < 0:
            found.append(Firing((f"ranks the systems against the human scores (Kendall τ-b = {tau:.2f})",),
                                avoid=(metric,)))
    return found or None


#: Translation's rules, in order (the first primary wins).
RULES = (
    Rule("human_scores", "with human scores, the metric whose system ranking agrees best with them (Kendall τ-b) "
                         "is primary when its paired τ lead over every other metric excludes 0", (), _by_humans),
    Rule("long_tail", f"otherwise MacroF is primary when types seen once are at least {RARE_SHARE:.0%} of the "
                      f"reference types", (IMBALANCE, NOT_ADDRESSED, LONG_TAIL, SEMANTICS), _by_tail("macrof")),
    Rule("short_tail", "otherwise chrF is primary", (), _by_tail("chrf")),
    Rule("flips", "every other metric that orders a pair of systems differently from the primary is a complement",
         (), _flips),
    Rule("macrof_beside", "MacroF beside another primary weighs what BLEU does not", (UNTRANSLATION, LONG_TAIL),
         _macrof_beside),
    Rule("bleu", "BLEU is always a complement: the figure readers compare across papers", (), _bleu),
    Rule("against_humans", "a metric whose ranking goes against the human scores' (τ < 0) is avoided", (),
         _against_humans),
)


def recommend(corpus, types, disagreement, human, values: Mapping[str, Mapping[str, float | None]],
              alpha: float = 0.05) -> Recommendation:
    """The recommended metric set (primary then complements) and the metrics to avoid: :data:`RULES` applied in
    order; ``alpha``: the intervals' level is 1 − alpha."""
    facts = _Facts(types, disagreement, human, values, f"{100 * (1 - alpha):g}%")
    return apply_rules(facts, RULES, lambda metric: (NAMES[metric], FORMULAS[metric]))
