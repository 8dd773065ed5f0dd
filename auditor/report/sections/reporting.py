"""The reporting statement beside page 1: the paragraph a paper can paste, and the checklist items it answers."""
from __future__ import annotations

from auditor.report.context import SECTION_TITLES, Context
from auditor.report.model import Facts, Paragraph, Section
from auditor.report.sections import section

#: What the statement says for each checklist item (ACL Responsible NLP checklist; NeurIPS paper checklist).
ANSWERS = (
    ("ACL B6 (number of examples; small differences on small test sets)",
     "the test set's items and class counts, and the smallest accuracy difference the audit's test detects at "
     "this size"),
    ("ACL C3 (descriptive statistics, error bars)", "each figure's interval: its method, B and seed"),
    ("NeurIPS 7 (the factors of variability the error bars capture)",
     "what the intervals vary (the test items) and what they hold fixed (the systems' outputs)"),
    ("ACL C4 (implementation and parameter settings)",
     "the version, the reproducibility signature (inputs' hashes, every option that changes a number) and the "
     "convention for undefined values"),
)


@section(12)
def reporting_section(ctx: Context) -> Section:
    """The statement (``audit.json`` ``reporting.statement``) and which checklist item each part answers."""
    statement = ctx.audit.reporting.statement
    return Section("reporting", SECTION_TITLES["reporting"], (
        Paragraph(statement),
        Facts(ANSWERS),
        Paragraph("Paste the paragraph unchanged into the paper (it is also the \\auditorreportingstatement macro of "
                  "tables.tex). The items are those of the Responsible NLP Research Checklist (ACL Rolling Review "
                  "2024) and the NeurIPS Paper Checklist (NeurIPS Program Chairs 2024)."),
    ), for_summary=True)
