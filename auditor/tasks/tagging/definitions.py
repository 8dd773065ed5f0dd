"""What the tagging report defines beside the span metrics: the token metrics (the classification catalogue's records,
read over tokens) and the abbreviations of page 1's headline columns."""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

from auditor.metrics.registry import REGISTRY

#: What C counts when a classification metric is read over tokens (the definitions' notation, said once).
OVER_TOKENS = ("Token metrics: the classification catalogue's formulas with C_ij the number of tokens of gold tag i "
               "tagged j, over full tags (B-PER ≠ I-PER, as conlleval's accuracy); their “type” forms count over "
               "entity types with the prefixes removed (O its own class). N tokens, k tags, p_i gold tag i's share "
               "of the tokens, b_j tag j's share of the predictions, R_i = C_ii / Σ_j C_ij.")


def token_definitions(metrics: Iterable[str]) -> list[tuple[str, str, str, list[tuple[str, str]]]]:
    """(id, name, LaTeX formula, facts) of each token metric, from its catalogue record: the formula and
    references are the record's (``auditor metrics ID`` prints the same), read over tokens as :data:`OVER_TOKENS`
    says."""
    out = []
    for metric_id in metrics:
        record = REGISTRY.metrics[metric_id]
        facts = [("id", f"{metric_id}; over types: type_{metric_id}"), ("range", record.range_label)]
        if record.undefined_when:
            facts.append(("undefined when", record.undefined_when))
        facts.append(("source", "; ".join(record.references)))
        out.append((metric_id, f"{record.name}, over tokens", record.formula, facts))
    return out


def abbreviations(metrics: Sequence[str], short: Callable[[str], str], name: Callable[[str], str]) -> str:
    """One sentence naming every column abbreviation of ``metrics``: "μF1 = Span micro F1; …"."""
    return "Columns: " + "; ".join(f"{short(m)} = {name(m)}" for m in metrics) + "."
