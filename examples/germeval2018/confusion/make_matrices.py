"""Write the confusion matrices of two bundled GermEval-2018 systems (word-logreg and
char-svm-balanced) as TSV files for ``auditor score|report --confusion``.

Run from the repository root: ``python examples/germeval2018/confusion/make_matrices.py``.
Rows = gold label, columns = predicted label, in the sorted label order.
"""
from pathlib import Path

import auditor
from auditor.io.confusion import format_matrix

HERE = Path(__file__).parent
EXAMPLE = HERE.parent
SYSTEMS = ("word-logreg", "char-svm-balanced")

result = auditor.audit(EXAMPLE / "gold.tsv", {name: EXAMPLE / "systems" / f"{name}.tsv" for name in SYSTEMS},
                       bootstrap=0)
for name in SYSTEMS:
    (HERE / f"{name}.tsv").write_text(format_matrix(result.labels, result.systems[name].confusion))
