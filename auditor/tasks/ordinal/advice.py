"""Which figures to report for levels, from this data's facts and the passages the rules follow: ordinal's rule
table, applied by the one recommendation module (:func:`auditor.analyses.recommend.apply_rules`, whose
:class:`~auditor.analyses.recommend.Recommendation` record and JSON every task kind writes).

Rules (each cites a passage read in its source):

``imbalance`` — the primary figure is the macroaveraged MAE: a constant level cannot make it small, whatever the
    gold's shares, and it is the official measure of the ordinal subtask of SemEval-2016/2017 Task 4. The fact
    measured here: the best constant level's MAE against the systems' (a system no better than a constant under MAE
    is named).
``chance`` — quadratic kappa complements it: every predictor that ignores its input scores 0 (the property probe),
    so it reads against the annotators' agreement (with ``--annotators``).
``no_interval`` — CEM-Ord complements it: it assumes no distances between levels and weighs a miss by the gold items
    between the two levels.
``distance`` — accuracy and macro F1 are not headline figures for levels: a nearer miss scores the same (the probe's
    witness).
``constant`` — Spearman's ρ and Kendall's τ-b are undefined for a constant prediction (named when a system is one).
``disagree`` — where MAE and the macroaveraged MAE put different systems on top, both are reported with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.recommend import Firing, Recommendation, Rule, Source, apply_rules, rule_lines
from auditor.formatting import format_value

BACCIANELLA = Source(
    "https://iris.cnr.it/handle/20.500.14243/62327", "abstract",
    "when testing a system with an evaluation measure conceived for balanced datasets, a trivial system assigning "
    "all items to a single class (typically, the majority class) may even outperform genuinely engineered systems",
    "baccianella2009evaluation", "Baccianella et al. 2009")
SEMEVAL = Source(
    "https://competitions.codalab.org/competitions/15937", "SemEval-2017 Task 4 Subtask C, evaluation criteria",
    "For Subtask C, we use macroaveraged mean absolute error as the main measure",
    "rosenthal2017semeval", "Rosenthal et al. 2017")
NAKOV = Source(
    "https://arxiv.org/abs/1912.01973", "abstract",
    "The first variant adopts a five-point scale, which confers an ordinal character to the classification task.",
    "nakov2016semeval", "Nakov et al. 2016")
AMIGO = Source(
    "https://aclanthology.org/2020.acl-main.363", "abstract",
    "the most popular evaluation metrics for ordinal classification tasks either ignore relevant information (for "
    "instance, precision/recall on each of the classes ignores their relative ordering) or assume additional "
    "information (for instance, Mean Average Error assumes absolute distances between classes)",
    "amigo2020effectiveness", "Amigó et al. 2020")


@dataclass(frozen=True)
class LevelFacts:
    """What the ordinal rules read: the systems' values (system -> id -> value), the constant baselines
    (:mod:`.chance`), the property probes (:mod:`.probes`), the annotators' agreement (or None) and the metric
    records (id -> :class:`~auditor.metrics.registry.Metric`: short names, kinds and formulas)."""

    values: Mapping[str, Mapping[str, float | None]]
    constants: Any
    properties: Any
    agreement: Any | None
    records: Mapping[str, Any]


def _top(values: Mapping[str, float | None], higher: bool) -> list[str]:
    defined = {s: v for s, v in values.items() if v is not None}
    if not defined:
        return []
    best = (max if higher else min)(defined.values())
    return [s for s, v in defined.items() if abs(v - best) <= 1e-12]


def _imbalance(facts: LevelFacts) -> Firing:
    constants, short = facts.constants, facts.records["mae_macro"].label
    best_constant = constants.median
    floor = constants.value("mae", best_constant)
    worse = sorted(s for s, v in facts.values.items() if v.get("mae") is not None and floor is not None
                   and v["mae"] >= floor - 1e-12)
    macro_floor = float(np.nanmin(constants.values["mae_macro"]))
    reasons = [f"a constant level scores at best {macro_floor:.3f} under {short} (levels "
               f"{', '.join(constants.best['mae_macro'])}), while the median level {best_constant}, predicted for "
               f"every item, scores {floor:.3f} under MAE"]
    if worse:
        reasons.append(f"under MAE the constant {best_constant} scores as well as or better than {', '.join(worse)}")
    return Firing(tuple(reasons), primary="mae_macro")


def _chance(facts: LevelFacts) -> Firing:
    reasons = ["every predictor that ignores its input scores 0 (probed on uniform and skewed gold)"]
    agreement = facts.agreement
    if agreement is not None and agreement.kappa("quadratic") is not None:
        reasons.append(f"the annotators reach {format_value(agreement.kappa('quadratic'), 'score')} (×100): a "
                       f"system near it levels items about as consistently as they do")
    return Firing(tuple(reasons), complements=("quadratic_kappa",))


def _no_interval(facts: LevelFacts) -> Firing:
    return Firing(("it assumes no distance between levels: a miss costs by how many gold items lie between the two "
                   "levels",), complements=("cem_ord",))


def _distance(facts: LevelFacts) -> tuple[Firing, ...]:
    found = []
    for metric_id in ("accuracy", "macro_f1"):
        answer, witness = facts.properties.answers.get(metric_id, {}).get("nearer_miss", ("", None))
        if answer == "no":
            found.append(Firing(("it ignores how far a miss is" + (
                f" ({witness.text}: {_pair(witness, facts.records[metric_id].kind)})" if witness else ""),),
                avoid=(metric_id,)))
    return tuple(found)


def _constant(facts: LevelFacts) -> Firing | None:
    constant = sorted(s for s, v in facts.values.items() if v.get("spearman") is None)
    if not constant:
        return None
    return Firing((f"undefined for {', '.join(constant)} (a constant prediction has no ranks), as is Kendall's τ-b",),
                  avoid=("spearman",))


def _disagree(facts: LevelFacts) -> Firing | None:
    values, short = facts.values, facts.records["mae_macro"].label
    mae_top = _top({s: v.get("mae") for s, v in values.items()}, False)
    macro_top = _top({s: v.get("mae_macro") for s, v in values.items()}, False)
    if not (mae_top and macro_top) or set(mae_top) & set(macro_top):
        return None
    return Firing((f"alone it puts {', '.join(mae_top)} on top where {short} puts {', '.join(macro_top)}: MAE "
                   f"rewards predicting the crowded levels (report it beside {short}, not instead)",), avoid=("mae",))


#: Every rule, in the order applied, with the passages it follows.
RULES = (
    Rule("imbalance", "the macroaveraged MAE is the primary figure: no constant level makes it small, and it is "
         "SemEval-2016/2017 Task 4 C's official measure", (BACCIANELLA, SEMEVAL, NAKOV), _imbalance),
    Rule("chance", "quadratic kappa complements it: every predictor that ignores its input scores 0 (Cohen 1968)", (),
         _chance),
    Rule("no_interval", "CEM-Ord complements it: no distances between levels assumed", (AMIGO,), _no_interval),
    Rule("distance", "accuracy and macro F1 ignore how far a miss is", (AMIGO,), _distance),
    Rule("constant", "Spearman's ρ and Kendall's τ-b are undefined for a constant prediction", (), _constant),
    Rule("disagree", "where MAE and MAE_M put different systems on top, both are named with the reason",
         (BACCIANELLA,), _disagree),
)


def recommend(values: Mapping[str, Mapping[str, float | None]], constants: Any, properties: Any,
              agreement: Any | None, records: Mapping[str, Any]) -> Recommendation:
    """The recommendation from the systems' values (system -> id -> value), the constant baselines, the property
    probes, the annotators' agreement (or None) and the metric records (:class:`LevelFacts`): :data:`RULES`
    applied in order."""
    facts = LevelFacts(values, constants, properties, agreement, records)
    return apply_rules(facts, RULES, lambda metric_id: (records[metric_id].name, records[metric_id].formula))


def _pair(witness: Any, kind: str) -> str:
    return " against ".join(format_value(v, kind) for v in witness.values if v is not None) + (
        " ×100" if kind == "score" else "")


def rules_appendix() -> Sequence[str]:
    """The rules appendix: one line per rule with the passages it follows."""
    return rule_lines(RULES)
