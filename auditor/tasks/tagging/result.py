"""The tagging audit's result: audit.json (``task: "tagging"``), ``auditor score``'s lines, the report model."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.metrics.catalogue import MetricValue, per_class_table
from auditor.results import UnitAudit
from auditor.tasks.tagging.align import Aligned
from auditor.tasks.tagging.counting import ERRORS, SpanCounts
from auditor.tasks.tagging.measures import SPAN_METRICS, fractions, per_type, view_counts
from auditor.tasks.tagging.names import ILL_FORMED_SHOWN
from auditor.tasks.tagging.schemes import TagCodes

#: How the strict, exact and partial views count the error classes (COR, INC, PAR); the overlap view
#: (nervaluate's ent_type) matches on its own and has its own incorrect and missed counts.
VIEW_CLASSES = {
    "strict": (("correct",), ("wrong_type", "wrong_boundary", "wrong_both"), ()),
    "exact": (("correct", "wrong_type"), ("wrong_boundary", "wrong_both"), ()),
    "partial": (("correct", "wrong_type"), (), ("wrong_boundary", "wrong_both")),
}


@dataclass(frozen=True)
class TokenView:
    """Token-level counts over one label set (full tags, or types with the prefix removed)."""

    labels: tuple[str, ...]
    confusion: np.ndarray
    values: Sequence[Mapping[str, MetricValue]]


@dataclass(frozen=True, eq=False, kw_only=True)
class TaggingAudit(UnitAudit):
    """Everything a tagging audit found (see :func:`auditor.tasks.tagging.run.audit`): the one record
    (:class:`~auditor.results.UnitAudit`; ``n_items`` counts tokens) and the tagging's own parts."""

    task = "tagging"
    unit = "sentence"
    default_columns = ("span_micro_f1", "span_macro_f1", "span_partial_f1", "accuracy", "macro_f1", "type_macro_f1")

    aligned: Aligned
    codes: TagCodes
    scheme: str | None
    scheme_detected: bool
    scheme_reason: str
    rule: str | None
    spans: SpanCounts | None
    tokens: TokenView
    types: TokenView
    parts: Mapping[str, np.ndarray] | None = None

    # ------------------------------------------------------------------ spans

    def span_tables(self, s: int) -> dict[str, Any]:
        """``systems.NAME.spans``: micro/macro/weighted P/R/F1, per type, errors, SemEval views."""
        counts, parts = self.spans, self.parts
        gold, predicted, matched, errors = parts["gold"], parts["predicted"][s], parts["matched"][s], parts["errors"][s]
        type_view = parts["type_view"][s]
        observed = {m: self.metrics[self.systems[s]][m].value for m in SPAN_METRICS}
        table: dict[str, Any] = {
            average: {part: observed[f"span_{average}_{part}"] for part in ("precision", "recall", "f1")}
            for average in ("micro", "macro", "weighted")}
        by_type = per_type(gold, predicted[None], matched[None])
        table["per_type"] = {
            kind: {**{name: None if undefined[0, t] else float(value[0, t])
                      for name, (value, undefined) in by_type.items()},
                   "support": int(gold[t]), "predicted": int(predicted[t]), "matched": int(matched[t])}
            for t, kind in enumerate(counts.types)}
        table["errors"] = {name: int(errors[i]) for i, name in enumerate(ERRORS)}
        table["views"] = self._views(errors, type_view)
        table["ill_formed"] = counts.per_system[s].ill_formed
        table["ill_formed_examples"] = self.ill_formed_examples(counts.per_system[s].ill, self.aligned.systems[s])
        table["other_rule_micro_f1"] = counts.other_rule_f1[s]
        return table

    def ill_formed_examples(self, ill: Any, codes: np.ndarray, limit: int = ILL_FORMED_SHOWN) -> list[dict[str, Any]]:
        """The first ``limit`` chunks the two rules see differently: sentence, its first token's line in
        the gold file, token positions in the sentence, tags."""
        starts = np.flatnonzero(self.aligned.first)
        examples = []
        for start, end in zip(ill.start[:limit].tolist(), ill.end[:limit].tolist()):
            sentence = int(np.searchsorted(starts, start, side="right")) - 1
            examples.append({"sentence": sentence + 1, "gold_line": int(self.aligned.lines[start]),
                             "tokens": [start - int(starts[sentence]) + 1, end - int(starts[sentence]) + 1],
                             "tags": " ".join(self.aligned.tags[c] for c in codes[start:end + 1].tolist())})
        return examples

    @staticmethod
    def _views(errors: np.ndarray, type_view: np.ndarray) -> dict[str, Any]:
        e = dict(zip(ERRORS, errors.tolist()))
        views = {}
        for view, (cor, act, pos) in view_counts(errors[None], type_view[None]).items():
            if view == "overlap":
                incorrect, missed = (int(x) for x in type_view)
                correct, partial = int(pos[0]) - incorrect - missed, 0
                spurious = int(act[0]) - correct - incorrect
            else:
                correct, incorrect, partial = (sum(int(e[name]) for name in group) for group in VIEW_CLASSES[view])
                missed, spurious = int(e["missed"]), int(e["spurious"])
            views[view] = {"correct": correct, "incorrect": incorrect, "partial": partial, "missed": missed,
                           "spurious": spurious, "possible": int(pos[0]), "actual": int(act[0]),
                           **{name: None if undefined[0] else float(value[0])
                              for name, (value, undefined) in fractions(cor, act, pos).items()}}
        return views

    # ------------------------------------------------------------------ JSON

    def own_json(self) -> dict[str, Any]:
        """The token labels, the sentences (``n_units``) and the reading of the tags (``tagging``)."""
        return {"labels": list(self.tokens.labels), "n_units": self.aligned.n_sentences,
                "tagging": self._tagging_json()}

    def system_json(self, s: int) -> dict[str, Any]:
        """``systems.NAME``'s token tables (full tags, and types) and, with a scheme, its span tables."""
        entry: dict[str, Any] = {
            "per_class": per_class_table(self.tokens.confusion[s], self.tokens.labels),
            "confusion": self.tokens.confusion[s].tolist(),
            "token_types": {"labels": list(self.types.labels), "confusion": self.types.confusion[s].tolist(),
                            "per_class": per_class_table(self.types.confusion[s], self.types.labels)}}
        if self.spans is not None:
            entry["spans"] = self.span_tables(s)
        return entry

    def _tagging_json(self) -> dict[str, Any]:
        from auditor.tasks.tagging.profile import data_profile

        result: dict[str, Any] = {
            "scheme": self.scheme, "scheme_detected": self.scheme_detected, "scheme_reason": self.scheme_reason,
            "span_rule": self.rule, "types": list(self.codes.types), "tags": list(self.aligned.tags),
            "type_labels": list(self.types.labels)}
        if self.spans is not None:
            result["gold_chunks"] = self.spans.gold.size
            result["gold_ill_formed"] = self.spans.gold_ill_formed
            result["gold_ill_formed_examples"] = self.ill_formed_examples(self.spans.gold_ill, self.aligned.gold)
            result["ill_formed"] = {name: self.spans.per_system[s].ill_formed for s, name in enumerate(self.systems)}
            result["data"] = data_profile(self)
        return result

    # --------------------------------------------------------------- terminal

    def summary_line(self) -> str:
        scheme = "no scheme (tags without prefixes: token metrics only)" if self.scheme is None else \
            f"scheme {self.scheme} ({'detected: ' + self.scheme_reason if self.scheme_detected else 'given'}), " \
            f"span rule {self.rule}"
        return (f"{self.aligned.n_tokens:,} tokens in {self.aligned.n_sentences:,} sentences; {scheme}; "
                f"intervals resample sentences")

    def notes(self) -> list[str]:
        if self.spans is None:
            return []
        repaired = "repaired (counted as conlleval opens them)" if self.rule == "conlleval" else \
            "dropped (strict counts only well-formed chunks)"
        counts = ", ".join(f"{name}:\u00a0{self.spans.per_system[s].ill_formed}"  # no break inside "name: n"
                           for s, name in enumerate(self.systems))
        return [f"ill-formed chunks {repaired} — gold: {self.spans.gold_ill_formed}, {counts}"]

    def report_model(self, figures: bool = True) -> Any:
        from auditor.tasks.tagging.report import build_report

        return build_report(self, figures)

