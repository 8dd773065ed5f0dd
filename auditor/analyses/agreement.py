"""Reliability of the gold: agreement between annotators of the same items, from counts.

Stage "analyse" (``--annotators FILE``, repeatable). The slides' protocol asks
first how reliable the gold is: "'Inter annotator agreement' (IAA) is considered a measure of
the quality of gold standards; it is also a measure of the subjectivity of a task; it must be
objectively measured and reported" (slides-nlp-evaluation-protocol.md, "Measuring inter
annotator agreement"). Every coefficient here is a function of two count tables, never of
items in a Python loop:

* the pairwise confusion ``C_ab`` (k x k) of annotators ``a`` and ``b``: one ``bincount`` of
  ``code_a · k + code_b`` per pair;
* the category counts per item ``n[u, c]`` (N x k, the number of annotators who gave item
  ``u`` label ``c``): one ``bincount`` over all (item, label) cells.

Definitions (m annotators, N items, every annotator labels every item):

* raw agreement of a pair = ``tr(C_ab) / N`` ("nb items agreed / total nb of items", slides,
  "Raw agreement"); for m > 2 the mean over the m(m−1)/2 pairs, which equals Fleiss'
  observed agreement ``P̄``;
* Cohen's kappa of a pair ``(p_o − p_e) / (1 − p_e)``, ``p_e = Σ_c p_a(c) p_b(c)`` with each
  annotator's own label shares (slides, "Cohen's kappa" and its example: −0.15);
  ``cohen_kappa`` = the mean over pairs;
* Fleiss' kappa ``(P̄ − P_e) / (1 − P_e)``, ``P̄ = mean_u (Σ_c n_uc² − m) / (m(m − 1))``,
  ``P_e = Σ_c p_c²`` with pooled label shares ``p_c`` (Fleiss 1971; the slides name it as
  Cohen's generalisation to more annotators);
* Krippendorff's alpha (nominal) from the coincidence matrix
  ``o = (nᵀn − diag(Σ_u n_u)) / (m − 1)``: ``α = 1 − (n.. − 1) Σ_{c≠d} o_cd / Σ_{c≠d} n_c n_d``
  (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", nominal data, no missing
  values). Implemented here rather than by the ``krippendorff`` package: with aligned files
  nothing is missing and the formula is three lines on the count table the other
  coefficients use; the package is the tests' independent reference.

A 0/0 (every annotator used one and the same label, so chance agreement is 1) is undefined,
recorded with its reason, never 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import combinations
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import InputError
from auditor.formatting import nan_to_none
from auditor.io.validate import LabelTable
from auditor.metrics.catalogue import MetricValue

UNDEFINED_CHANCE = "undefined: chance agreement is 1 (every annotation has one and the same label)"


@dataclass(frozen=True)
class Ceiling:
    """The practical ceiling agreement puts on the systems' scores (:data:`CEILING_MEANING`)."""

    #: Raw agreement: the ceiling of accuracy.
    accuracy: float
    #: Mean Cohen's kappa: the ceiling of kappa (None when undefined).
    kappa: float | None
    #: System -> the metrics ("accuracy", "kappa") in which it scores above the ceiling.
    systems_above: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class GoldReliability:
    """Agreement between the annotators of the gold items (``gold_reliability`` in the JSON)."""

    annotators: tuple[str, ...]
    labels: tuple[str, ...]
    n_items: int
    raw_agreement: float
    #: (m, m) raw agreement of every pair of annotators (read-only).
    raw_agreement_pairs: np.ndarray
    unanimous: float
    cohen_kappa: float | None
    #: (m, m) Cohen's kappa of every pair (NaN = undefined; read-only).
    cohen_kappa_pairs: np.ndarray
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    #: Coefficient -> why it is undefined (or how it was taken).
    undefined: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The systems against the ceiling agreement sets (:func:`ceiling`; None: no system read).
    ceiling: Ceiling | None = None

    def to_json(self) -> dict[str, Any]:
        """``gold_reliability``: every coefficient, the pairs' tables, the definitions, the ceiling."""
        bound = self.ceiling or ceiling(self, {})
        return {"gold_reliability": {
            "annotators": list(self.annotators), "labels": list(self.labels), "n_items": self.n_items,
            "raw_agreement": self.raw_agreement, "raw_agreement_pairs": _matrix_json(self.raw_agreement_pairs),
            "unanimous": self.unanimous,
            "cohen_kappa": self.cohen_kappa, "cohen_kappa_pairs": _matrix_json(self.cohen_kappa_pairs),
            "fleiss_kappa": self.fleiss_kappa, "krippendorff_alpha": self.krippendorff_alpha,
            "undefined": dict(self.undefined), "definitions": DEFINITIONS,
            "ceiling": {"accuracy": bound.accuracy, "kappa": bound.kappa, "meaning": CEILING_MEANING,
                        "systems_above": {name: list(metrics) for name, metrics in bound.systems_above.items()}},
        }}


def _matrix_json(matrix: np.ndarray) -> list[list[float | None]]:
    return [[nan_to_none(x) for x in row] for row in matrix]


def ceiling(reliability: GoldReliability, systems: Mapping[str, Mapping[str, MetricValue]]) -> Ceiling:
    """The systems against the ceiling set by agreement: ``systems`` maps a system to its metric
    values against the gold (metric id -> value); its ``accuracy`` is compared with the raw
    agreement and its ``kappa`` with the mean Cohen's kappa (a missing or undefined one is not)."""
    bounds = (("accuracy", reliability.raw_agreement), ("kappa", reliability.cohen_kappa))
    above = {name: tuple(metric for metric, bound in bounds
                         if bound is not None and metric in values and values[metric].value is not None
                         and values[metric].value > bound)
             for name, values in systems.items()}
    return Ceiling(reliability.raw_agreement, reliability.cohen_kappa,
                   MappingProxyType({name: metrics for name, metrics in above.items() if metrics}))


DEFINITIONS = {
    "raw_agreement": "share of items two annotators label alike, mean over annotator pairs (= Fleiss' observed "
                     "agreement P̄)",
    "unanimous": "share of items every annotator labels alike",
    "cohen_kappa": "(p_o − p_e) / (1 − p_e) per pair, p_e from each annotator's own label shares; mean over pairs",
    "fleiss_kappa": "(P̄ − P_e) / (1 − P_e), P_e = Σ_c p_c² with pooled label shares (Fleiss 1971)",
    "krippendorff_alpha": "nominal, 1 − (n − 1) Σ_{c≠d} o_cd / Σ_{c≠d} n_c n_d from the coincidence matrix o "
                          "(Krippendorff 2004)",
}

CEILING_MEANING = (
    "Annotators of the same items agree on a share of them equal to the raw agreement (chance-corrected: Cohen's "
    "kappa). The gold is one such annotation, so a system that labels as well as a trained annotator is expected to "
    "score about the raw agreement in accuracy (and a kappa about the annotators' mean Cohen's kappa) against it. It "
    "is a practical ceiling, not a bound: a system can exceed it by learning the habits of the annotators who made the "
    "gold, and differences between systems above it say more about those habits than about the task."
)


def _chance_corrected(observed: np.ndarray, chance: np.ndarray) -> np.ndarray:
    """``(observed − chance) / (1 − chance)``; NaN where ``chance = 1`` (0/0 or x/0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isclose(chance, 1.0), np.nan, (observed - chance) / (1.0 - chance))


def pairwise_confusion(codes: np.ndarray, k: int) -> np.ndarray:
    """``C[a, b, i, j]``: items annotator a labels i and annotator b labels j (a bincount per pair)."""
    m = codes.shape[0]
    confusion = np.zeros((m, m, k, k), dtype=np.int64)
    for a, b in combinations(range(m), 2):
        confusion[a, b] = np.bincount(codes[a] * k + codes[b], minlength=k * k).reshape(k, k)
        confusion[b, a] = confusion[a, b].T
    for a in range(m):
        confusion[a, a] = np.diag(np.bincount(codes[a], minlength=k))
    return confusion


def category_counts(codes: np.ndarray, k: int) -> np.ndarray:
    """``n[u, c]``: annotators who gave item u label c, shape (N, k), one bincount."""
    m, n_items = codes.shape
    cells = (np.arange(n_items, dtype=np.int64)[None, :] * k + codes).ravel()
    return np.bincount(cells, minlength=n_items * k).reshape(n_items, k)


def cohen_kappa_matrix(confusion: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Raw agreement and Cohen's kappa of every pair from ``C[a, b, i, j]``: two (m, m) arrays."""
    n = confusion.sum(axis=(2, 3)).astype(float)
    observed = np.trace(confusion, axis1=2, axis2=3) / n
    rows = confusion.sum(axis=3) / n[..., None]
    columns = confusion.sum(axis=2) / n[..., None]
    chance = (rows * columns).sum(axis=2)
    return observed, _chance_corrected(observed, chance)


def fleiss_kappa(table: np.ndarray) -> tuple[float, float]:
    """Fleiss' kappa and its observed agreement P̄ from the (N, k) category counts per item."""
    table = np.asarray(table, dtype=float)
    m = table[0].sum()
    per_item = ((table ** 2).sum(axis=1) - m) / (m * (m - 1))
    observed = float(per_item.mean())
    shares = table.sum(axis=0) / table.sum()
    chance = float((shares ** 2).sum())
    return float(_chance_corrected(np.array(observed), np.array(chance))), observed


def krippendorff_alpha_nominal(table: np.ndarray) -> float:
    """Krippendorff's alpha (nominal, no missing values) from the (N, k) category counts per item."""
    table = np.asarray(table, dtype=float)
    m = table[0].sum()
    coincidence = (table.T @ table - np.diag(table.sum(axis=0))) / (m - 1)
    marginals = coincidence.sum(axis=1)
    total = marginals.sum()
    disagree_observed = coincidence.sum() - np.trace(coincidence)
    disagree_expected = marginals.sum() ** 2 - (marginals ** 2).sum()
    if disagree_expected == 0:
        return float("nan")
    return float(1.0 - (total - 1) * disagree_observed / disagree_expected)


def analyse(annotators: LabelTable, metric_values: Mapping[str, Mapping[str, MetricValue]]) -> GoldReliability:
    """The reliability of the gold from the annotators' labels of its items (aligned to the gold like
    systems, :func:`auditor.io.validate.align`), with the systems (``metric_values``: system -> metric
    id -> value) set against the ceiling it puts on their scores."""
    codes = np.stack(list(annotators.system_codes.values()))
    reliability = gold_reliability(codes, annotators.labels, tuple(annotators.system_codes))
    return replace(reliability, ceiling=ceiling(reliability, metric_values))


def gold_reliability(codes: np.ndarray, labels: Sequence[str], annotators: Sequence[str]) -> GoldReliability:
    """Every agreement coefficient of annotators' codes (m, N) into ``labels`` (m ≥ 2)."""
    codes = np.asarray(codes, dtype=np.int64)
    m, n_items = codes.shape
    if m < 2:
        raise InputError(f"--annotators: {m} annotator given; agreement needs at least two annotators' labels of "
                         "the gold items (include the gold's own annotator as a file if it is one of them)")
    k = len(labels)
    confusion = pairwise_confusion(codes, k)
    raw_pairs, kappa_pairs = cohen_kappa_matrix(confusion)
    upper = np.triu_indices(m, 1)
    table = category_counts(codes, k)
    fleiss, observed = fleiss_kappa(table)
    alpha = krippendorff_alpha_nominal(table)
    undefined = {}
    pair_kappas = kappa_pairs[upper]
    if np.isnan(pair_kappas).any():
        undefined["cohen_kappa_pairs"] = UNDEFINED_CHANCE + " for at least one pair"
    cohen = float(np.nanmean(pair_kappas)) if not np.isnan(pair_kappas).all() else None
    if cohen is not None and np.isnan(pair_kappas).any():
        undefined["cohen_kappa"] = "mean over the pairs whose kappa is defined"
    elif cohen is None:
        undefined["cohen_kappa"] = UNDEFINED_CHANCE
    if np.isnan(fleiss):
        undefined["fleiss_kappa"] = UNDEFINED_CHANCE
    if np.isnan(alpha):
        undefined["krippendorff_alpha"] = "undefined: no disagreement is expected by chance (one label only)"
    raw_pairs.setflags(write=False)
    kappa_pairs.setflags(write=False)
    return GoldReliability(
        annotators=tuple(annotators), labels=tuple(labels), n_items=n_items,
        raw_agreement=float(raw_pairs[upper].mean()), raw_agreement_pairs=raw_pairs,
        unanimous=float((table.max(axis=1) == m).mean()),
        cohen_kappa=cohen, cohen_kappa_pairs=kappa_pairs,
        fleiss_kappa=nan_to_none(fleiss), krippendorff_alpha=nan_to_none(alpha), undefined=MappingProxyType(undefined),
    )
