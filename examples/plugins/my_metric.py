"""An example ``--plugin`` module: worst-class recall, registered like the built-in metrics.

Use it with ``auditor score gold.tsv sys.tsv --plugin my_metric`` run from this directory (or
with it on ``PYTHONPATH``), or give the file's path: ``--plugin examples/plugins/my_metric.py``.
Importing the module registers the metric; auditor then computes it, shows its
formula, and probes its properties (monotonicity, class sensitivity, prevalence invariance,
chance correction) exactly as it does for the built-ins, witnesses included.

Worst-class recall is the smallest per-class recall, :math:`\\min_i R_i`: the limit of the power
mean of the class recalls as the exponent goes to −∞, so it sits at the far end of the family
macR (arithmetic) ≥ GmacR (geometric) ≥ HmacR (harmonic) of Opitz (2024, §5.1). A system scores
well only if it finds every class.

Declared properties (checked by the probes, not taken on trust):

- PI monotonicity (§3.1 and its footnote: one more item on the diagonal never lowers the score,
  one more item off it never raises it): one more correct item of class i raises R_i and leaves
  every other recall as it is, so the minimum cannot fall; one more error in row i lowers R_i
  and leaves the others, so the minimum cannot rise.
- PII class sensitivity: which class an error falls in decides whether the minimum moves.
- PIII class decomposability: a generalised (power) mean of per-class recalls, unweighted.
- PIV prevalence invariance: recalls are row-conditional, so rescaling gold rows changes none.
- PV chance correction "bounded": a predictor that ignores its input has R_i = q_i, so it scores
  min_i q_i ≤ 1/k whatever the gold prevalence; only the uniform predictor reaches 1/k.
"""
from __future__ import annotations

import numpy as np

from auditor import ConfusionStats, Metric, Properties, register


def worst_class_recall(stats: ConfusionStats) -> np.ndarray:
    r"""Worst-class recall :math:`\min_i R_i` over the labels in gold or predicted."""
    return np.where(stats.active, stats.recall, np.inf).min(axis=-1)


WORST_CLASS_RECALL = register(Metric(
    id="worst_class_recall",
    name="Worst-class recall",
    function=worst_class_recall,
    formula=r"\mathrm{minR} = \min_i R_i,\quad R_i = \frac{C_{ii}}{\sum_j C_{ij}}",
    chance=r"\min_i q_i \le 1/k for a predictor with bias q",
    references=("Opitz 2024 §5.1 (power means of class recall)",),
    uses=("recall",),
    convention="a label predicted but absent from gold has recall 0/0, counted as 0",
    properties=Properties(monotonicity=True, class_sensitivity=True, decomposability=True,
                          prevalence_invariance=True, chance_correction="bounded",
                          source="derived in examples/plugins/my_metric.py (not in Opitz 2024, Table 5)"),
    family="plugin",
    description="The recall of the class the system finds worst.",
), aliases=("min recall", "minimum recall", "worst class recall"))
