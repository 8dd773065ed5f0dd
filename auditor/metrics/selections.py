"""The lists of metric ids that choose what each output shows, in one place.

Stage "score" (metric catalogue companions). Each list names metrics of the catalogue
(:mod:`auditor.metrics.catalogue`) by id; a test checks that every id is registered.
"""
from __future__ import annotations

#: Columns of ``auditor score``'s terminal table when no ``--metric`` is given.
TERMINAL_COLUMNS: tuple[str, ...] = (
    "accuracy", "macro_recall", "macro_precision", "macro_f1", "macro_f1_hm", "weighted_f1",
    "kappa", "mcc", "informedness", "markedness", "nit",
)

#: The verdict's key metrics (leaders per metric; the report's summary shows the same ones).
KEY_METRICS: tuple[str, ...] = ("accuracy", "macro_f1", "macro_f1_hm", "macro_recall", "mcc", "informedness")

#: The metrics whose pairs of systems are tested (exact McNemar for accuracy, approximate
#: randomisation for the others), each its own family for the correction.
TEST_METRICS: tuple[str, ...] = ("accuracy", "macro_f1", "macro_recall", "mcc", "informedness")

#: The rows of Opitz (2024), §6.1 Table 5 (:data:`auditor.metrics.literature.LITERATURE`); the
#: row "as GmacR or HmacR" covers two metrics. The table is silent on informedness, markedness, NIT.
TABLE_5_METRICS: tuple[str, ...] = (
    "accuracy", "macro_recall", "macro_precision", "macro_f1", "macro_f1_hm", "weighted_f1", "kappa", "mcc",
    "gmean_recall", "hmean_recall",
)
