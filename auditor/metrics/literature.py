"""The literature on metric properties, as data: Opitz (2024), §6.1 Table 5, cell by cell.

Stage "score" (the metric catalogue's companions). :data:`LITERATURE` is the table as printed,
each cell with the section that states it; :data:`EXPLANATIONS` says why a probe
(:mod:`auditor.analyses.properties`) and the table disagree, by (metric id, property);
:data:`CONTEXT` says what a probe's outcome rests on where a boundary convention decides it.
The source is the file ``opitz-2024-closer-look-classification-metrics.md`` of the project's
sources (Opitz 2024, "A Closer Look at Classification Evaluation Metrics and a Critical
Reflection of Common Evaluation Practice", TACL 12).
"""
from __future__ import annotations

from typing import Any, Sequence

SOURCE_FILE = "opitz-2024-closer-look-classification-metrics.md"
LITERATURE_SOURCE = "Opitz 2024, §6.1 Table 5"
NOT_IN_LITERATURE = "probed, not in the literature table (Opitz 2024, §6.1 Table 5)"


def _row(printed: str, cells: dict[str, tuple[Any, str]], by_calibration: Sequence[str] = (),
         chance_value: str | None = None) -> dict[str, Any]:
    """One row of Table 5: each cell's value and the section that states it."""
    row: dict[str, Any] = {key: value for key, (value, _) in cells.items()}
    row.update({
        "by_calibration": list(by_calibration), "chance_value": chance_value, "row": printed,
        "source": f"{LITERATURE_SOURCE} ({SOURCE_FILE})",
        "sections": {key: section for key, (_, section) in cells.items()},
    })
    return row


_CAL = "(✓): obtained through prevalence calibration, §5.2"
#: Opitz (2024), §6.1 Table 5, as printed: PI, PII, PIII, PIV as ✓/✗, PV as none (✗),
#: bounded (✓: 1/n), strict (✓: 1/n, strict) or complete (✓: 0, complete); the (✓) marks
#: ("obtained through prevalence calibration") in ``by_calibration``; ω(n) or Ω in
#: ``chance_value``. The row "as GmacR or HmacR" applies to both metrics.
LITERATURE: dict[str, dict[str, Any]] = {
    "accuracy": _row("Accuracy (=Micro F1)", {
        "monotonicity": (True, "§4.1 ('Accuracy has only PI'); App. A.1"),
        "class_sensitivity": (False, f"§4.1; App. A.2; {_CAL}, §4.2 (macR = prevalence-calibrated Accuracy)"),
        "decomposability": (False, f"§4.1; App. A.2; {_CAL}, §4.2"),
        "prevalence_invariance": (False, f"§4.1; App. A.2; {_CAL}, §4.2"),
        "chance_correction": ("none", f"§4.1; App. A.2; §6.1 iii); {_CAL}, §4.2"),
    }, ("class_sensitivity", "decomposability", "prevalence_invariance", "chance_correction")),
    "macro_recall": _row("macro Recall (macR)", {
        "monotonicity": (True, "§4.2; App. B.1"),
        "class_sensitivity": (True, "§4.2; App. B.2"),
        "decomposability": (True, "§4.2; App. B.3"),
        "prevalence_invariance": (True, "§4.2; App. B.4"),
        "chance_correction": ("strict", "§4.2 ('strictly chance corrected with ω(n) = 1/n'); App. B.5"),
    }, chance_value="1/n"),
    "macro_precision": _row("macro Precision", {
        "monotonicity": (True, "§4.3; App. C.1"),
        "class_sensitivity": (True, "§4.3; App. C.2"),
        "decomposability": (True, "§4.3; App. C.3"),
        "prevalence_invariance": (False, f"§4.3; App. C.4; {_CAL}, §4.3 (macP∼)"),
        "chance_correction": ("strict", "§4.3 ('strictly chance corrected (ω(n) = 1/n)'); App. C.5"),
    }, ("prevalence_invariance",), "1/n"),
    "macro_f1": _row("macro F1 (macF1)", {
        "monotonicity": (True, "§4.4; App. D.1"),
        "class_sensitivity": (True, "§4.4; App. D.2"),
        "decomposability": (True, "§4.4; App. D.3"),
        "prevalence_invariance": (False, f"§4.4; App. D.4; {_CAL}, §4.4"),
        "chance_correction": ("bounded", "§4.4 ('the chance correction isn't strict'; ω(n) = 1/n reached only "
                                         "if P(f→i) = P(c=i)); App. D.5; §6.2"),
    }, ("prevalence_invariance",), "1/n"),
    "macro_f1_hm": _row("macro F1’ (macF1′)", {
        "monotonicity": (True, "§4.5; App. E.1"),
        "class_sensitivity": (True, "§4.5; App. E.2"),
        "decomposability": (False, "§4.5 ('cannot be decomposed over classes'); App. E.3"),
        "prevalence_invariance": (False, f"§4.5; App. E.4; {_CAL}"),
        "chance_correction": ("strict", "§4.5 ('strictly chance corrected with ω(n) = 1/n'); App. E.5"),
    }, ("prevalence_invariance",), "1/n"),
    "weighted_f1": _row("weighted F1", {
        "monotonicity": (False, "§4.6 ('non-monotonic'); App. F.1; §6.1 ii)"),
        "class_sensitivity": (True, "§4.6; App. F.2"),
        "decomposability": (False, f"§4.6; App. F.3; {_CAL}, §4.6 (weightF1(mλ∼) = macF1(mλ∼))"),
        "prevalence_invariance": (False, f"§4.6; App. F.4; {_CAL}, §4.6"),
        "chance_correction": ("none", f"§4.6; App. F.5; §6.1 iii); {_CAL}, §4.6"),
    }, ("decomposability", "prevalence_invariance", "chance_correction")),
    "kappa": _row("Kappa", {
        "monotonicity": (False, "§4.7 ('non-monotonic'); App. G.1; §6.1 ii)"),
        "class_sensitivity": (True, "§4.7; App. G.2"),
        "decomposability": (False, "§4.7; App. G.3"),
        "prevalence_invariance": (False, f"§4.7; App. G.4; {_CAL}, §4.7 (calibrated Kappa affine in macR)"),
        "chance_correction": ("complete", "§4.7 ('complete chance correction: Ω = 0'); App. G.5; §6.1 iii)"),
    }, ("prevalence_invariance",), "0"),
    "mcc": _row("MCC", {
        "monotonicity": (False, "§4.7 ('non-monotonic'); App. G.1; §6.1 ii)"),
        "class_sensitivity": (True, "§4.7; App. G.2"),
        "decomposability": (False, "§4.7; App. G.3"),
        "prevalence_invariance": (False, f"§4.7; App. G.4; {_CAL}"),
        "chance_correction": ("complete", "§4.7 ('complete chance correction: Ω = 0'); App. G.5; §6.1 iii)"),
    }, ("prevalence_invariance",), "0"),
}
for _metric_id in ("gmean_recall", "hmean_recall"):
    LITERATURE[_metric_id] = _row("as GmacR or HmacR", {
        "monotonicity": (True, "§5.1 ('Like macR, it has all five properties'); App. B.6"),
        "class_sensitivity": (True, "§5.1; App. B.6"),
        "decomposability": (True, "§5.1 (Eq. 4 with p → 0, p = −1)"),
        "prevalence_invariance": (True, "§5.1"),
        "chance_correction": ("bounded", "§6.2 ('1/n as the upper bound only achieved by the uniform random "
                                         "baseline')"),
    }, chance_value="1/n")

#: Why a probe and Table 5 disagree, by (metric id, property), each backed by the probe's witness.
EXPLANATIONS: dict[tuple[str, str], str] = {
    ("macro_precision", "chance_correction"): (
        "The paper's strict 1/n holds for every chance classifier that predicts every class (P_j = p_j, mean 1/n); "
        "a chance classifier that never predicts class j has P_j = 0/0, which this tool counts as 0 (scikit-learn's "
        "zero_division=0), so it scores below 1/n and the scores are no longer all equal (witness)."),
    ("macro_f1_hm", "chance_correction"): (
        "As for macro precision: HM(macP, macR) = 1/n for chance classifiers that predict every class, lower for "
        "one that never predicts a class, whose 0/0 precision is counted as 0 (witness)."),
}

#: What the probe's outcome rests on, where a boundary convention or the definition decides it.
CONTEXT: dict[str, str] = {
    "mcc": "PV: MCC is 0/0 for a constant prediction (1 − bᵀb = 0); those chance classifiers have no score and "
           "are left out (scikit-learn shows 0 there).",
    "kappa_calibrated": "PI: calibrated kappa is (macR − 1/k)/(1 − 1/k) when every class has gold items (Opitz §4.7, "
                        "§5.2), so it is monotone there; it fails only when a class is predicted but absent from gold "
                        "(calibration spreads gold over the k_gold classes present, macR over every active label).",
    "kappa": "PV: kappa is 0/0 only when gold and predictions are one and the same class, which no data set "
             "with k ≥ 2 classes present allows.",
}
