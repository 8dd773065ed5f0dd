"""The planner's tests and references, named once: what :mod:`auditor.plan.documents` writes into the JSON and
:mod:`auditor.plan.pages` prints on the pages."""
from __future__ import annotations

from auditor.analyses.power import MAX_ITEMS

CARD = "Card et al. 2020"
GELMAN = "Gelman & Carlin 2014"
VICKERS = "Vickers et al. 2023"
REFERENCES = {
    CARD: "Card, Henderson, Khandelwal, Jia, Mahowald & Jurafsky (2020). With Little Power Comes Great "
          "Responsibility. Proceedings of EMNLP 2020, 9263–9274.",
    GELMAN: "Gelman & Carlin (2014). Beyond Power Calculations: Assessing Type S (Sign) and Type M (Magnitude) "
            "Errors. Perspectives on Psychological Science 9(6), 641–651.",
    VICKERS: "Vickers, Barrault, Monti & Aletras (2023). We Need to Talk About Classification Evaluation Metrics "
             "in NLP. Proceedings of IJCNLP-AACL 2023.",
}
TEST = "exact McNemar, two-sided, significant when p < α (the test the audit runs on accuracy)"
METHODS = {
    "power": "P(the test rejects and B wins), summed exactly: d ~ Binomial(N, 1 − G) discordant items, "
             "B's wins W ~ Binomial(d, π), π = ½ + D/(2(1 − G))",
    "type_s": "P(A wins | the test rejects): a significant result of the wrong sign (Gelman & Carlin 2014)",
    "type_m": "E[|observed difference| | the test rejects] / D: the exaggeration ratio (Gelman & Carlin 2014)",
    "detectable_difference": "smallest D with power ≥ target at N",
    "items_needed": f"smallest N ≤ {MAX_ITEMS:,} with power ≥ target at every larger N: every N below the point "
                    "where a nondecreasing lower bound of the power reaches the target is computed exactly, and the "
                    "bound covers every N beyond it",
}
