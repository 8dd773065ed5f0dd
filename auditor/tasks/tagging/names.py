"""Names of the tagging task's span figures (ids, display names, short column heads, formulas):
light, so that the command line lists them without loading the counting code."""
from __future__ import annotations

#: Token metrics over types (prefix removed): the catalogue ids with this prefix.
TYPE_PREFIX = "type_"
#: Span metric ids (values per system; rankings, intervals and tests cover them).
SPAN_METRICS = ("span_micro_f1", "span_micro_precision", "span_micro_recall", "span_macro_f1",
                "span_macro_precision", "span_macro_recall", "span_weighted_f1", "span_weighted_precision",
                "span_weighted_recall", "span_exact_f1", "span_overlap_f1", "span_partial_f1")
VIEWS = ("strict", "exact", "overlap", "partial")
NAMES = {
    "span_micro_f1": "Span micro F1", "span_micro_precision": "Span micro precision",
    "span_micro_recall": "Span micro recall", "span_macro_f1": "Span macro F1",
    "span_macro_precision": "Span macro precision", "span_macro_recall": "Span macro recall",
    "span_weighted_f1": "Span weighted F1", "span_weighted_precision": "Span weighted precision",
    "span_weighted_recall": "Span weighted recall", "span_exact_f1": "Span F1, exact boundaries (type ignored)",
    "span_overlap_f1": "Span F1, overlap with the right type", "span_partial_f1": "Span F1, partial (half credit)",
}
SHORT = {"span_micro_f1": "μF1", "span_micro_precision": "μP", "span_micro_recall": "μR", "span_macro_f1": "MF1",
         "span_macro_precision": "MP", "span_macro_recall": "MR", "span_weighted_f1": "wF1",
         "span_weighted_precision": "wP", "span_weighted_recall": "wR", "span_exact_f1": "exF1",
         "span_overlap_f1": "ovF1", "span_partial_f1": "paF1"}
FORMULAS = {
    "span_micro_f1": r"F_1^{\mu} = \frac{2\sum_t m_t}{\sum_t p_t + \sum_t g_t}",
    "span_micro_precision": r"P^{\mu} = \frac{\sum_t m_t}{\sum_t p_t}",
    "span_micro_recall": r"R^{\mu} = \frac{\sum_t m_t}{\sum_t g_t}",
    "span_macro_f1": r"F_1^{M} = \frac{1}{T}\sum_t \frac{2 m_t}{p_t + g_t}",
    "span_macro_precision": r"P^{M} = \frac{1}{T}\sum_t \frac{m_t}{p_t}",
    "span_macro_recall": r"R^{M} = \frac{1}{T}\sum_t \frac{m_t}{g_t}",
    "span_weighted_f1": r"F_1^{w} = \sum_t \frac{g_t}{\sum_u g_u}\,\frac{2 m_t}{p_t + g_t}",
    "span_weighted_precision": r"P^{w} = \sum_t \frac{g_t}{\sum_u g_u}\,\frac{m_t}{p_t}",
    "span_weighted_recall": r"R^{w} = \sum_t \frac{g_t}{\sum_u g_u}\,\frac{m_t}{g_t}",
    "span_exact_f1": r"F_1^{\mathrm{exact}} = "
                     r"\frac{2\,(\mathrm{correct} + \mathrm{wrong\ type})}{\mathrm{ACT} + \mathrm{POS}}",
    "span_overlap_f1": r"F_1^{\mathrm{overlap}} = \frac{2\,\mathrm{COR}_{\mathrm{type}}}{\mathrm{ACT} + \mathrm{POS}}",
    "span_partial_f1": r"F_1^{\mathrm{partial}} = "
                       r"\frac{2\,(\mathrm{COR} + \frac{1}{2}\mathrm{PAR})}{\mathrm{ACT} + \mathrm{POS}}",
}
#: When each span figure is undefined (shown as —); the macro and weighted means also take a type's 0/0 as 0.
UNDEFINED = {
    **{metric: "its denominator is 0" for metric in SPAN_METRICS},
    **{f"span_macro_{m}": "no type has a gold or predicted chunk" for m in ("f1", "precision", "recall")},
    **{f"span_weighted_{m}": "there is no gold chunk" for m in ("f1", "precision", "recall")},
}
#: Ill-formed chunks named per file (JSON and report); the count covers them all.
ILL_FORMED_SHOWN = 5
PER_TYPE_ZERO = "counted as 0 (seqeval's zero_division=0)"
