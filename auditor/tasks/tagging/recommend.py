"""The tagging recommendation: which figures to report for a tagger, each with the measured facts that argue for
it and the passage it follows: tagging's rule table, applied by the one recommendation module
(:func:`auditor.analyses.recommend.apply_rules`, whose :class:`~auditor.analyses.recommend.Recommendation` record
and JSON every task kind writes).

1. **Primary: span micro F1** (chunks matched exactly, span and type), the figure tagging papers compare: "…
   exact match F1 is still the most common metric in use for NER" (Palen-Michel, Holley & Lignos 2021, §1, note 1).
   Its facts: the scheme and the span rule, and how far each system's figure moves under the other rule where a
   system has ill-formed chunks, since "unreported differences in the scoring procedure can result in changes to
   scores that are both of noticeable magnitude and statistically significant" (Palen-Michel et al. 2021,
   Abstract) and Lignos & Kamyab (2020, Abstract) ask for "transparency regarding the handling of improper label
   sequences".
2. **Complement: span macro F1** where the rarest type holds less than :data:`RARE_TYPE` of the gold chunks or
   the two averages order a pair of systems differently ("focusing on rarer entities (Derczynski et al., 2017)",
   the same note).
3. **Complement: partial-match F1** where boundary errors (a predicted chunk overlapping a gold chunk with other
   bounds) are at least :data:`BOUNDARY_SHARE` of some system's chunk errors ("efforts to promote partial matching
   (Chinchor, 1998; Segura-Bedmar et al., 2013)", the same note).
4. **Avoid: token accuracy** where most gold tokens are ``O``: a tagger that tags every token ``O`` scores their
   share and finds no chunk (a count of this test set, no passage needed).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from auditor.analyses.recommend import Firing, Recommendation, Rule, Source, apply_rules
from auditor.formatting import plural
from auditor.metrics.registry import REGISTRY
from auditor.tasks.tagging.counting import ERRORS
from auditor.tasks.tagging.names import FORMULAS, NAMES

#: The rarest type's share of the gold chunks below which macro F1 is recommended beside micro F1.
RARE_TYPE = 0.10
#: The share of a system's chunk errors that are boundary errors from which partial-match F1 is recommended.
BOUNDARY_SHARE = 0.25
#: The share of O among the gold tokens from which token accuracy is to be avoided as a headline.
MOSTLY_O = 0.5

_SEQSCORE = ("https://aclanthology.org/2021.eval4nlp-1.5", "palenmichel2021seqscore", "Palen-Michel et al. 2021")
EXACT = Source(_SEQSCORE[0], "§1, note 1", "exact match F1 is still the most common metric in use for NER",
               *_SEQSCORE[1:])
RARER = Source(_SEQSCORE[0], "§1, note 1", "focusing on rarer entities (Derczynski et al., 2017)", *_SEQSCORE[1:])
PARTIAL = Source(_SEQSCORE[0], "§1, note 1", "efforts to promote partial matching (Chinchor, 1998; Segura-Bedmar "
                 "et al., 2013)", *_SEQSCORE[1:])
PROCEDURE = Source(_SEQSCORE[0], "Abstract", "unreported differences in the scoring procedure can result in changes "
                   "to scores that are both of noticeable magnitude and statistically significant", *_SEQSCORE[1:])
IMPROPER = Source("https://aclanthology.org/2020.insights-1.15", "Abstract", "We propose best practices to increase "
                  "the replicability of NER evaluations by increasing transparency regarding the handling of improper "
                  "label sequences", "lignos2020build", "Lignos & Kamyab 2020")


def _exact(audit: Any) -> Firing:
    return Firing((f"chunks read as {audit.scheme} by the {audit.rule} rule; a chunk counts only with its span "
                   f"and type both right",), primary="span_micro_f1")


def _rule(audit: Any) -> Firing:
    """The largest move of a system's span micro F1 under the other rule (the ill-formed chunks it reads)."""
    moves = [(abs(other - audit.metrics[s]["span_micro_f1"].value), s, counts.ill_formed)
             for s, other, counts in zip(audit.systems, audit.spans.other_rule_f1, audit.spans.per_system)
             if other is not None and audit.metrics[s]["span_micro_f1"].value is not None]
    change, system, ill = max(moves, default=(0.0, "", 0))
    if change == 0:
        return Firing(("the other span rule gives every system the same span micro F1; say which rule was used",),
                      complements=("span_micro_f1",))
    return Firing((f"under the other span rule {system}'s span micro F1 moves by {100 * change:.1f} points "
                   f"({plural(ill, 'ill-formed chunk')}): report the rule with the figure",),
                  complements=("span_micro_f1",))


def _rare(audit: Any) -> Firing | None:
    """A rare type, and pairs of systems the two averages order differently."""
    reasons = []
    gold = np.asarray(audit.parts["gold"], dtype=float)
    if gold.size > 1 and gold.sum() > 0:
        rarest = int(np.argmin(gold))
        share = gold[rarest] / gold.sum()
        if share < RARE_TYPE:
            reasons.append(f"the rarest type, {audit.spans.types[rarest]}, is {100 * share:.1f}% of the gold chunks "
                           f"({int(gold[rarest])} of {int(gold.sum())}): micro F1 weighs each chunk, macro F1 each "
                           f"type")
    flips = audit.rankings.flips_between("span_micro_f1", "span_macro_f1") if audit.rankings is not None else []
    if flips:
        reasons.append(f"it orders {plural(len(flips), 'pair')} of systems differently from span micro F1 (e.g. "
                       f"{flips[0].a} vs {flips[0].b})")
    return Firing(tuple(reasons), complements=("span_macro_f1",)) if reasons else None


def _boundaries(audit: Any) -> Firing | None:
    """The system whose chunk errors are most often boundary errors, when that share reaches BOUNDARY_SHARE."""
    errors = np.asarray(audit.parts["errors"], dtype=float)  # (S, len(ERRORS))
    wrong = errors[:, [ERRORS.index(e) for e in ERRORS if e != "correct"]].sum(axis=1)
    boundary = errors[:, [ERRORS.index("wrong_boundary"), ERRORS.index("wrong_both")]].sum(axis=1)
    share = np.where(wrong > 0, boundary / np.maximum(wrong, 1), 0.0)
    s = int(np.argmax(share))
    if share[s] < BOUNDARY_SHARE:
        return None
    return Firing((f"{100 * share[s]:.0f}% of {audit.systems[s]}'s chunk errors are boundary errors "
                   f"({int(boundary[s])} of {int(wrong[s])}: a predicted chunk overlapping a gold chunk with other "
                   f"bounds), which exact match counts as a miss and a false chunk; partial match counts each as "
                   f"half right",), complements=("span_partial_f1",))


def _mostly_o(audit: Any) -> Firing | None:
    """Token accuracy where most gold tokens are O: their share is an all-O tagger's accuracy."""
    tags = list(audit.aligned.tags)
    share = float(np.mean(audit.aligned.gold == tags.index("O"))) if "O" in tags else 0.0
    if share < MOSTLY_O:
        return None
    return Firing((f"{100 * share:.1f}% of the gold tokens are O: a tagger that tags every token O scores "
                   f"{100 * share:.1f}% token accuracy and finds no chunk",), avoid=("accuracy",))


#: Tagging's rules, in order (the first primary wins).
RULES = (
    Rule("exact", "the primary figure is span micro F1, chunks matched exactly (span and type)", (EXACT,), _exact),
    Rule("rule", "report the span rule with the figure, and how far the other rule moves it", (PROCEDURE, IMPROPER),
         _rule),
    Rule("rare_types", f"span macro F1 complements it where the rarest type holds under {RARE_TYPE:.0%} of the gold "
                       f"chunks or the two averages order systems differently", (RARER,), _rare),
    Rule("boundaries", f"partial-match F1 complements it where boundary errors are {BOUNDARY_SHARE:.0%} or more of a "
                       f"system's chunk errors", (PARTIAL,), _boundaries),
    Rule("mostly_o", f"token accuracy is not a headline where {MOSTLY_O:.0%} or more of the gold tokens are O", (),
         _mostly_o),
)


def recommend(audit: Any) -> Recommendation | None:
    """Tagging's recommendation for a :class:`~auditor.tasks.tagging.result.TaggingAudit`: :data:`RULES` applied
    in order; None where the tags have no chunks (no prefixes)."""
    if audit.spans is None:
        return None

    def describe(metric_id: str) -> tuple[str, str]:
        if metric_id in FORMULAS:
            return NAMES[metric_id], FORMULAS[metric_id]
        record = REGISTRY.get(metric_id)
        return f"Token {record.name.lower()}", record.formula

    return apply_rules(audit, RULES, describe)
