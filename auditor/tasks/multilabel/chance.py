"""Chance baselines for label sets: what each metric gives a predictor that knows nothing about the items.

* **empty set** (predict no label) and **most frequent set** (gold's modal set for every item): deterministic,
  so every figure is exact (counted as a system is).
* **label-wise prevalence sampler**: label l predicted independently with probability ``p_l = G_l / N`` (its gold
  prevalence). Exact expectations where a figure's denominator is fixed: ``E[TP_l] = G_l p_l``,
  ``E[FP_l] = (N − G_l) p_l``, so Hamming loss ``Σ_l (G_l(1 − p_l) + (N − G_l)p_l) / (NL)``, micro recall
  ``Σ G_l p_l / Σ G_l``, macro recall (mean of ``p_l`` over labels with gold support), samples recall (mean
  over items of the mean ``p_l`` over the item's gold labels) and subset accuracy
  ``(1/N) Σ_i Π_{l∈Y_i} p_l Π_{l∉Y_i} (1 − p_l)``.
* **each system's own sets shuffled over items** (a permutation: the system's label counts ``P_l`` and sets are
  kept): ``E[TP_l] = G_l P_l / N`` (hypergeometric mean), and every figure whose denominator the shuffle keeps
  (micro P/R/F1, macro P/R/F1, weighted F1, Hamming loss) is exact; subset accuracy and the samples figures are
  exact averages over every (gold item, system set) pair, ``Σ_{A,B} n(A) m(B) f(A, B) / N²``, when the distinct
  sets are few enough (:data:`CROSS_PAIRS`).

Every baseline also gets a Monte Carlo distribution at this test-set size (mean and the range holding 1 − alpha
of the ``draws`` draws, as ``--alpha`` sets the intervals); a figure without an exact expectation shows the Monte
Carlo mean, marked as such. With ``--bootstrap 0`` nothing is drawn (``draws`` 0): only the exact expectations are
given, a figure without one has none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from auditor.metrics.registry import ratio
from auditor.tasks.multilabel.align import Aligned
from auditor.tasks.multilabel.counting import item_fields, pair_table
from auditor.tasks.multilabel.measures import ITEM_FIELDS, METRIC_IDS, evaluate
from auditor.tasks.multilabel.sets import encode_rows

#: Monte Carlo draws per random baseline.
DRAWS = 200
#: Largest number of (gold set, system set) cells for the exact shuffle expectation of the samples figures.
CROSS_PAIRS = 2**20
#: Largest items × labels × draws drawn for the prevalence sampler's Monte Carlo (else fewer draws).
SAMPLER_BUDGET = 2**27


@dataclass(frozen=True)
class Baseline:
    """One chance predictor: id -> exact expectation (None: none known), Monte Carlo mean and the range between the
    alpha/2 and 1 − alpha/2 quantiles of the draws."""

    name: str
    description: str
    exact: Mapping[str, float | None]
    mean: Mapping[str, float]
    low: Mapping[str, float]
    high: Mapping[str, float]
    draws: int
    alpha: float

    def expected(self, metric: str) -> tuple[float | None, bool]:
        """(the figure to show, whether it is exact); None when there is neither an exact expectation nor a draw."""
        value = self.exact.get(metric)
        return (value, True) if value is not None else (self.mean.get(metric), False)

    def to_json(self) -> dict[str, Any]:
        return {"description": self.description, "draws": self.draws, "alpha": self.alpha, "metrics": {
            m: {"expected": self.exact.get(m), "exact": self.exact.get(m) is not None,
                "mc_mean": _number(self.mean.get(m)), "mc_range": [_number(self.low.get(m)), _number(self.high.get(m))]}
            for m in METRIC_IDS}}


def _number(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def _sums(aligned: Aligned, codes: np.ndarray, sets: np.ndarray) -> dict[str, np.ndarray]:
    """Summed statistics of one predicted system (codes into ``sets``), shaped for :func:`evaluate` (S = 1)."""
    table = pair_table(aligned.gold_codes, aligned.gold_sets, codes, sets)
    gold_counts = np.bincount(aligned.gold_codes, minlength=aligned.gold_sets.shape[0]).astype(float)
    return {"n": np.array(float(aligned.n_items)), "gold": gold_counts @ aligned.gold_sets,
            "tp": (table.count @ table.tp)[None], "fp": (table.count @ table.fp)[None],
            "items": (table.count @ table.fields)[None]}


def _values(sums: Mapping[str, np.ndarray]) -> dict[str, float]:
    return {m: float(v[0]) for m, v in evaluate(sums).items()}


def constant(aligned: Aligned, set_bits: np.ndarray, name: str, description: str, alpha: float) -> Baseline:
    """The same set for every item: every figure exact."""
    values = _values(_sums(aligned, np.zeros(aligned.n_items, dtype=np.int64), set_bits[None]))
    return Baseline(name, description, values, values, values, values, 0, alpha)


def _monte_carlo(draw: Any, draws: int, alpha: float) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Mean and the alpha/2, 1 − alpha/2 quantiles (numpy's linear interpolation) of each metric over the draws."""
    samples = [draw() for _ in range(draws)]
    mean: dict[str, float] = {}
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    if not samples:  # --bootstrap 0: nothing drawn
        return mean, low, high
    for metric in METRIC_IDS:
        values = np.array([sample[metric] for sample in samples])
        mean[metric] = float(values.mean())
        low[metric], high[metric] = (float(x) for x in np.quantile(values, [alpha / 2, 1 - alpha / 2]))
    return mean, low, high


def prevalence_sampler(aligned: Aligned, rng: np.random.Generator, draws: int = DRAWS, alpha: float = 0.05
                       ) -> Baseline:
    """Each label drawn independently at its gold prevalence (module docstring for the exact figures)."""
    N, L = aligned.n_items, len(aligned.labels)
    gold_counts = np.bincount(aligned.gold_codes, minlength=aligned.gold_sets.shape[0]).astype(float)
    G = gold_counts @ aligned.gold_sets
    p = G / N
    supported = G > 0
    exact: dict[str, float | None] = {
        "hamming_loss": float(((G * (1 - p) + (N - G) * p).sum()) / (N * L)),
        "micro_recall": float(ratio((G * p).sum(), G.sum())[0]),
        "macro_recall": float(np.where(supported, p, 0).mean()),
    }
    sets = aligned.gold_sets
    log_hit = np.where(sets, np.log(np.where(p > 0, p, 1)), np.log(np.where(p < 1, 1 - p, 1)))
    impossible = (sets & (p == 0)) | (~sets & (p == 1))
    match = np.where(impossible.any(axis=1), 0.0, np.exp(log_hit.sum(axis=1)))
    exact["subset_accuracy"] = float(gold_counts @ match / N)
    recall = ratio(sets @ p, sets.sum(axis=1))[0]
    exact["samples_recall"] = float(gold_counts @ recall / N)
    budget = max(1, min(draws, SAMPLER_BUDGET // max(N * L, 1))) if draws else 0

    def draw() -> dict[str, float]:
        codes, drawn = encode_rows(rng.random((N, L)) < p)
        return _values(_sums(aligned, codes, drawn))

    mean, low, high = _monte_carlo(draw, budget, alpha)
    return Baseline("prevalence", "each label predicted independently with its gold prevalence", exact, mean, low,
                    high, budget, alpha)


def shuffled(aligned: Aligned, s: int, rng: np.random.Generator, draws: int = DRAWS, alpha: float = 0.05
             ) -> Baseline:
    """System s's own sets shuffled over the items (module docstring for the exact figures)."""
    N = aligned.n_items
    gold_counts = np.bincount(aligned.gold_codes, minlength=aligned.gold_sets.shape[0]).astype(float)
    codes, sets = aligned.codes[s], aligned.sets[s]
    system_counts = np.bincount(codes, minlength=sets.shape[0]).astype(float)
    G, P = gold_counts @ aligned.gold_sets, system_counts @ sets
    tp = G * P / N
    sums = {"n": np.array(float(N)), "gold": G, "tp": tp[None], "fp": (P - tp)[None],
            "items": np.full((1, len(ITEM_FIELDS)), np.nan)}
    linear = evaluate(sums)
    exact: dict[str, float | None] = {m: float(linear[m][0]) for m in (
        "micro_precision", "micro_recall", "micro_f1", "macro_precision", "macro_recall", "macro_f1", "weighted_f1",
        "hamming_loss")}
    if aligned.gold_sets.shape[0] * sets.shape[0] <= CROSS_PAIRS:
        u, v = np.divmod(np.arange(aligned.gold_sets.shape[0] * sets.shape[0]), sets.shape[0])
        fields = item_fields(aligned.gold_sets[u], sets[v])
        weights = gold_counts[u] * system_counts[v] / N ** 2
        averaged = weights @ fields
        for metric, field in (("subset_accuracy", 0), ("samples_precision", 1), ("samples_recall", 2),
                              ("samples_f1", 3), ("jaccard_samples", 4)):
            exact[metric] = float(averaged[field])

    def draw() -> dict[str, float]:
        return _values(_sums(aligned, codes[rng.permutation(N)], sets))

    mean, low, high = _monte_carlo(draw, draws, alpha)
    name = aligned.names[s]
    return Baseline(f"shuffle:{name}", f"{name}'s own sets shuffled over the items", exact, mean, low, high, draws,
                    alpha)


def baselines(aligned: Aligned, seed: int, draws: int = DRAWS, alpha: float = 0.05) -> tuple[Baseline, ...]:
    """Empty set, most frequent gold set, prevalence sampler, and each system's sets shuffled (``draws`` 0: no
    Monte Carlo, no random generator); the Monte Carlo ranges hold 1 − ``alpha`` of the draws."""
    rng = np.random.default_rng([seed, 35]) if draws else None
    gold_counts = np.bincount(aligned.gold_codes, minlength=aligned.gold_sets.shape[0])
    modal = aligned.gold_sets[int(np.argmax(gold_counts))]
    shown = ", ".join(label for label, on in zip(aligned.labels, modal) if on) or "the empty set"
    out = [constant(aligned, np.zeros(len(aligned.labels), dtype=bool), "empty", "the empty set for every item", alpha),
           constant(aligned, modal, "most_frequent", f"gold's most frequent set ({shown}) for every item", alpha),
           prevalence_sampler(aligned, rng, draws, alpha)]
    out += [shuffled(aligned, s, rng, draws, alpha) for s in range(len(aligned.names))]
    return tuple(out)
