"""Which figures to report for levels, from this data's facts and the passages the rules follow.

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

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.formatting import format_value


@dataclass(frozen=True)
class Passage:
    """Words a rule follows, from a source read for it."""

    citation: str
    where: str
    quote: str
    key: str = ""
    url: str = ""

    def to_json(self) -> dict[str, Any]:
        """The record's passage shape: ``file`` (where it was read), ``section``, ``quote``, ``reference``."""
        return {"file": self.url, "section": self.where, "quote": self.quote,
                "reference": {"key": self.key, "citation": self.citation}}

    @property
    def text(self) -> str:
        return f"{self.citation} ({self.where}): \u201c{self.quote}\u201d"


BACCIANELLA = Passage(
    "Baccianella et al. 2009", "abstract",
    "when testing a system with an evaluation measure conceived for balanced datasets, a trivial system assigning "
    "all items to a single class (typically, the majority class) may even outperform genuinely engineered systems",
    "baccianella2009evaluation", "https://iris.cnr.it/handle/20.500.14243/62327")
SEMEVAL = Passage(
    "Rosenthal et al. 2017", "SemEval-2017 Task 4 Subtask C, evaluation criteria",
    "For Subtask C, we use macroaveraged mean absolute error as the main measure",
    "rosenthal2017semeval", "https://competitions.codalab.org/competitions/15937")
NAKOV = Passage(
    "Nakov et al. 2016", "abstract",
    "The first variant adopts a five-point scale, which confers an ordinal character to the classification task.",
    "nakov2016semeval", "https://arxiv.org/abs/1912.01973")
AMIGO = Passage(
    "Amigó et al. 2020", "abstract",
    "the most popular evaluation metrics for ordinal classification tasks either ignore relevant information (for "
    "instance, precision/recall on each of the classes ignores their relative ordering) or assume additional "
    "information (for instance, Mean Average Error assumes absolute distances between classes)",
    "amigo2020effectiveness", "https://aclanthology.org/2020.acl-main.363")

#: Every rule, as the rules appendix states it.
RULES = (
    "imbalance: the macroaveraged MAE is the primary figure: no constant level makes it small, and it is SemEval-2016/"
    "2017 Task 4 C's official measure (Baccianella et al. 2009; Rosenthal et al. 2017)",
    "chance: quadratic kappa complements it: every predictor that ignores its input scores 0 (Cohen 1968)",
    "no_interval: CEM-Ord complements it: no distances between levels assumed (Amigó et al. 2020)",
    "distance: accuracy and macro F1 ignore how far a miss is (Amigó et al. 2020)",
    "constant: Spearman's ρ and Kendall's τ-b are undefined for a constant prediction",
    "disagree: where MAE and MAE_M put different systems on top, both are named with the reason",
)


@dataclass(frozen=True)
class Advised:
    """A figure to report (``role``: primary or complement) or to avoid, with measured reasons and passages."""

    id: str
    role: str
    reasons: tuple[str, ...]
    passages: tuple[Passage, ...] = ()
    formula: str = ""

    def to_json(self) -> dict[str, Any]:
        entry = {"id": self.id, "role": self.role, "formula": self.formula, "reasons": list(self.reasons),
                 "sources": [p.to_json() for p in self.passages]}
        if self.role == "avoid":
            del entry["role"], entry["formula"]
        return entry


@dataclass(frozen=True)
class OrdinalRecommendation:
    metrics: tuple[Advised, ...]
    avoid: tuple[Advised, ...]
    rules_fired: tuple[str, ...]

    @property
    def primary(self) -> str:
        return self.metrics[0].id

    def to_json(self) -> dict[str, Any]:
        return {"metrics": [m.to_json() for m in self.metrics], "avoid": [a.to_json() for a in self.avoid],
                "rules_fired": list(self.rules_fired),
                "rules": [{"id": rule.split(":")[0], "text": rule} for rule in RULES]}


def _top(values: Mapping[str, float | None], higher: bool) -> list[str]:
    defined = {s: v for s, v in values.items() if v is not None}
    if not defined:
        return []
    best = (max if higher else min)(defined.values())
    return [s for s, v in defined.items() if abs(v - best) <= 1e-12]


def recommend(values: Mapping[str, Mapping[str, float | None]], constants: Any, properties: Any,
              agreement: Any | None, records: Mapping[str, Any]) -> OrdinalRecommendation:
    """The recommendation from the systems' values (system -> id -> value), the constant baselines
    (:mod:`.chance`), the property probes (:mod:`.probes`), the annotators' agreement (or None) and the metric
    records (id -> :class:`~auditor.metrics.registry.Metric`: short names and formulas)."""
    short = {metric_id: record.label for metric_id, record in records.items()}
    fired: list[str] = ["imbalance"]
    best_constant = constants.median
    floor = constants.value("mae", best_constant)
    worse = sorted(s for s, v in values.items() if v.get("mae") is not None and floor is not None
                   and v["mae"] >= floor - 1e-12)
    macro_floor = float(np.nanmin(constants.values["mae_macro"]))
    primary = [f"a constant level scores at best {macro_floor:.3f} under {short['mae_macro']} (levels "
               f"{', '.join(constants.best['mae_macro'])}), while the median level {best_constant}, predicted for "
               f"every item, scores {floor:.3f} under MAE"]
    if worse:
        primary.append(f"under MAE the constant {best_constant} scores as well as or better than {', '.join(worse)}")
    metrics = [Advised("mae_macro", "primary", tuple(primary), (BACCIANELLA, SEMEVAL, NAKOV))]
    kappa_reasons = ["every predictor that ignores its input scores 0 (probed on uniform and skewed gold)"]
    if agreement is not None and agreement.kappa("quadratic") is not None:
        kappa_reasons.append(f"the annotators reach {format_value(agreement.kappa('quadratic'), 'score')} (×100): a "
                             f"system near it levels items about as consistently as they do")
    fired.append("chance")
    metrics.append(Advised("quadratic_kappa", "complement", tuple(kappa_reasons)))
    fired.append("no_interval")
    metrics.append(Advised("cem_ord", "complement", (
        "it assumes no distance between levels: a miss costs by how many gold items lie between the two levels",),
        (AMIGO,)))
    avoid = []
    for metric_id in ("accuracy", "macro_f1"):
        answer, witness = properties.answers.get(metric_id, {}).get("nearer_miss", ("", None))
        if answer == "no":
            fired.append("distance") if "distance" not in fired else None
            avoid.append(Advised(metric_id, "avoid", (
                "it ignores how far a miss is"
                + (f" ({witness.text}: {_pair(witness, records[metric_id].kind)})" if witness else ""),),
                (AMIGO,)))
    constant = sorted(s for s, v in values.items() if v.get("spearman") is None)
    if constant:
        fired.append("constant")
        avoid.append(Advised("spearman", "avoid", (
            f"undefined for {', '.join(constant)} (a constant prediction has no ranks), as is Kendall's τ-b",)))
    mae_top, macro_top = _top({s: v.get("mae") for s, v in values.items()}, False), _top(
        {s: v.get("mae_macro") for s, v in values.items()}, False)
    if mae_top and macro_top and not set(mae_top) & set(macro_top):
        fired.append("disagree")
        avoid.append(Advised("mae", "avoid", (
            f"alone it puts {', '.join(mae_top)} on top where {short['mae_macro']} puts {', '.join(macro_top)}: MAE "
            f"rewards predicting the crowded levels (report it beside {short['mae_macro']}, not instead)",),
            (BACCIANELLA,)))
    metrics = [dataclasses.replace(m, formula=records[m.id].formula) for m in metrics]
    return OrdinalRecommendation(tuple(metrics), tuple(avoid), tuple(fired))


def _pair(witness: Any, kind: str) -> str:
    return " against ".join(format_value(v, kind) for v in witness.values if v is not None) + (
        " ×100" if kind == "score" else "")


def rule_lines() -> Sequence[str]:
    """The rules appendix."""
    return RULES
