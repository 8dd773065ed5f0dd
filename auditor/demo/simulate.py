"""Draws the demo generators share: exact class counts in a random order, and predictions from per-gold-class
prediction distributions whose errors are shared between systems.

A system is a confusion model: for each gold class g a distribution ``M[g]`` over the predicted labels (a row of
its expected confusion matrix divided by the row's total). Item i of gold class g gets the label at the quantile
``u_i`` of ``M[g]``, its categories taken in one order per gold class (g first, then the classes most often
confused with g). Every system reads its quantiles from one latent Gaussian per item (the item's difficulty,
shared by all systems), one per family of systems (shared by similar models) and its own noise,
``u = Φ(a z_item + b z_family + c e)`` with ``a² + b² + c² = 1``: each system's rows are exactly its ``M`` in
expectation, and a hard item (large ``u``) is wrong for most systems, and wrong the same way — the correlated
errors of real evaluations, which make paired tests more powerful than unpaired ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy.special import ndtr


def shuffled_counts(rng: np.random.Generator, counts: Sequence[int]) -> np.ndarray:
    """Codes 0..k-1, ``counts[j]`` of code j, in a random order (exact class totals)."""
    codes = np.repeat(np.arange(len(counts)), counts)
    rng.shuffle(codes)
    return codes


def class_counts(total: int, shares: Sequence[float], smallest: int = 2) -> list[int]:
    """``total`` split by ``shares`` (largest remainders), each class at least ``smallest``."""
    raw = np.asarray(shares, dtype=float) * total / float(np.sum(shares))
    counts = np.maximum(np.floor(raw).astype(int), smallest)
    order = np.argsort(-(raw - np.floor(raw)), kind="stable")
    for j in order[:max(0, total - int(counts.sum()))]:
        counts[j] += 1
    return [int(c) for c in counts]


@dataclass(frozen=True)
class Coupling:
    """Weights of a system's latent draw: ``shared`` on the item's difficulty, ``family`` on its family's, the
    rest (``1 - shared² - family²`` under the root) on its own noise."""

    shared: float = 0.0
    family: float = 0.0
    family_name: str = ""


def latent_quantiles(rng: np.random.Generator, n: int, couplings: Mapping[str, Coupling]) -> dict[str, np.ndarray]:
    """System -> n uniform quantiles ``Φ(a z + b z_family + c e)``: marginally U(0, 1), correlated as the
    couplings say."""
    difficulty = rng.standard_normal(n)
    families = {name: rng.standard_normal(n) for name in sorted({c.family_name for c in couplings.values()} - {""})}
    out = {}
    for system, c in couplings.items():
        own = np.sqrt(max(0.0, 1.0 - c.shared ** 2 - c.family ** 2))
        z = c.shared * difficulty + own * rng.standard_normal(n)
        if c.family_name:
            z += c.family * families[c.family_name]
        out[system] = ndtr(z)
    return out


def predict(gold: np.ndarray, quantiles: np.ndarray, rows: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Predicted codes: item i of gold class g takes the category of ``rows[g]`` (a distribution over the k labels)
    at quantile ``quantiles[i]``, the categories taken in the order ``orders[g]``. A label of probability 0 in a
    row is never drawn for that row (a zero-width interval is never the first above the quantile)."""
    predicted = np.empty_like(gold)
    for g in range(rows.shape[0]):
        members = np.flatnonzero(gold == g)
        ordered = rows[g, orders[g]]
        cumulative = np.cumsum(ordered)
        # below 1 - 1e-12: a quantile of 1.0 (z > 7) would pass the last positive category
        position = np.searchsorted(cumulative, np.minimum(quantiles[members], 1 - 1e-12) * cumulative[-1],
                                   side="right")
        predicted[members] = orders[g][position]
    return predicted
