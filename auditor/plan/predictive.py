"""Mode 3 of the planner: the predictive-power model of Vickers et al. (2023, §3, Figure 1).

A classifier is right with probability x; otherwise it guesses a label from ``q`` — the gold
prevalence (their model), uniformly, or always the majority class (the audit's ``prevalence``,
``uniform`` and ``majority`` baselines, q as
:func:`auditor.analyses.baselines.predictor_distributions` defines it). Item by item, with prevalence p,

    E[C] / N = x · diag(p) + (1 − x) · p qᵀ,

and every scalar metric of the catalogue is evaluated on that expected matrix, x from 0 to 1:
the values **of the expected matrix**, f(E[C]), exact for metrics affine in C (accuracy, macro
recall) and a plug-in value otherwise. At x = 0 the matrix is N p qᵀ, the audit's own expected
baseline matrix, so each value there is the baseline's ``expected`` score. Two identities hold
for every p (checked by the tests): accuracy = x + (1 − x) Σ pᵢ qᵢ (= x + (1 − x) Σ pᵢ² for q = p),
and informedness = x (Vickers et al. §2: "the expected value of a model which predicts correctly
x% of the time, and guesses from the prevalence 100-x% of the time is x"; here, for every q:
Rᵢ = x + (1 − x) qᵢ and FPRᵢ = (1 − x) qᵢ, so Σ bᵢ (Rᵢ − FPRᵢ) = x).

On request a simulation at a finite N gives E[f(C)] instead (gold rows fixed at N p, rounded by
largest remainder; row i of C ~ Multinomial(N pᵢ, x eᵢ + (1 − x) q)): mean and the 95 % range of
the draws. For non-linear metrics the two differ at small N; the output says which is shown.

References
----------
Vickers, Barrault, Monti & Aletras (2023) "We Need to Talk About Classification Evaluation
Metrics in NLP", IJCNLP-AACL, §2 (informedness) and §3 (the model, Figure 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import UsageError
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY, Metric

GUESSES = ("prevalence", "uniform", "majority")
GUESS_TEXT = {
    "prevalence": "a label drawn from the gold prevalence (Vickers et al.'s model)",
    "uniform": "a label drawn uniformly over the classes",
    "majority": "always the majority class",
}
#: Points of x from 0 to 1 (step 0.01).
POINTS = 101
#: Shares must sum to 1 within this.
SUM_TOLERANCE = 1e-3
#: Most items and draws a simulation accepts (memory: draws · x points · k² floats).
MAX_SIMULATED_CELLS = 10_000_000
SHOWN = "values of the expected confusion matrix, f(E[C]) with E[C]/N = x·diag(p) + (1 − x)·p·qᵀ"
SIMULATED = ("expected values at N, E[f(C)], from draws with gold rows fixed at N·p and row i ~ "
             "Multinomial(N·pᵢ, x·eᵢ + (1 − x)·q); mean and the 2.5 % and 97.5 % quantiles of the defined draws")


def check_prevalence(prevalence: Mapping[str, Any], option: str = "--prevalence") -> dict[str, float]:
    """Shares in [0, 1] summing to 1 (within 1e-3, then rescaled), at least two classes with a
    positive share: one :class:`UsageError` otherwise."""
    shares = {}
    for label, share in prevalence.items():
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not math.isfinite(share) \
                or not 0 <= share <= 1:
            raise UsageError(f"{option}: the share of {label!r} must be in [0, 1], found {share!r}")
        shares[str(label)] = float(share)
    total = math.fsum(shares.values())
    if abs(total - 1) > SUM_TOLERANCE:
        raise UsageError(f"{option}: the shares must sum to 1, found {total:g} "
                         f"({', '.join(f'{label}={share:g}' for label, share in shares.items())})")
    if sum(share > 0 for share in shares.values()) < 2:
        raise UsageError(f"{option}: at least two classes need a positive share, found "
                         f"{', '.join(f'{label}={share:g}' for label, share in shares.items()) or 'none'}")
    return {label: share / total for label, share in shares.items()}


def prevalence_from_gold(path: str) -> dict[str, float]:
    """The class shares of a gold file (any format the audit reads), in sorted label order."""
    from auditor.io.load import read_labels

    column = read_labels(path)
    counts = np.bincount(column.codes, minlength=len(column.categories))
    order = sorted(range(len(column.categories)), key=lambda i: column.categories[i])
    total = counts.sum()
    return check_prevalence({column.categories[i]: counts[i] / total for i in order}, f"--prevalence-from {path}")


def guess_distribution(prevalence: np.ndarray, guess: str) -> np.ndarray:
    """q of a guess, as the audit's baselines define it (:func:`predictor_distributions`, which
    reads whole counts; the tests check the two agree): ``prevalence`` q = p, ``uniform`` 1/k over
    the classes with a positive share, ``majority`` one-hot at the largest share (first on ties)."""
    if guess == "prevalence":
        return prevalence.copy()
    if guess == "uniform":
        present = (prevalence > 0).astype(float)
        return present / present.sum()
    if guess == "majority":
        return np.eye(prevalence.size)[int(np.argmax(prevalence))]
    raise UsageError(f"--guess: expected one of {', '.join(GUESSES)}, found {guess!r}")


def expected_matrices(prevalence: np.ndarray, q: np.ndarray, x: np.ndarray) -> np.ndarray:
    """E[C]/N for every x: (X, k, k) = x·diag(p) + (1 − x)·p qᵀ."""
    x = np.asarray(x, dtype=float)[:, None, None]
    return x * np.diag(prevalence)[None] + (1 - x) * np.outer(prevalence, q)[None]


def _rows(prevalence: np.ndarray, items: int) -> np.ndarray:
    """N·p rounded to whole items by largest remainder (the rows sum to N)."""
    raw = prevalence * items
    rows = np.floor(raw).astype(np.int64)
    rows[np.argsort(-(raw - rows), kind="stable")[: items - rows.sum()]] += 1
    return rows


def simulate(prevalence: np.ndarray, q: np.ndarray, x: np.ndarray, metrics: Sequence[Metric], *, items: int,
             draws: int, seed: int) -> dict[str, dict[str, list[float | None]]]:
    """E[f(C)] at ``items`` by Monte Carlo: per metric, lists over x of mean, low, high, undefined share."""
    k = prevalence.size
    rows = _rows(prevalence, items)
    rng = np.random.default_rng(np.random.SeedSequence([seed, items]))
    batch = np.empty((x.size, draws, k, k))
    for i in range(k):  # one vectorised multinomial per gold class, every x and draw at once
        p_row = x[:, None] * np.eye(k)[i][None] + (1 - x[:, None]) * q[None]
        batch[:, :, i, :] = rng.multinomial(rows[i], p_row[:, None, :].repeat(draws, axis=1))
    values = compute(batch, metrics)
    result = {}
    for metric in metrics:
        drawn = values[metric.id]
        defined = ~np.isnan(drawn)
        share = 1 - defined.mean(axis=1)
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(np.where(defined, drawn, np.nan), axis=1) if defined.any() else np.full(x.size, np.nan)
            low, high = np.nanquantile(np.where(defined, drawn, np.nan), [0.025, 0.975], axis=1) \
                if defined.any() else (np.full(x.size, np.nan),) * 2
        result[metric.id] = {"mean": _nullable(mean), "low": _nullable(low), "high": _nullable(high),
                             "undefined_share": [float(s) for s in share]}
    return result


def _nullable(values: np.ndarray) -> list[float | None]:
    return [None if np.isnan(v) else float(v) for v in values]


@dataclass(frozen=True)
class PredictiveResult:
    """The model's curves: per metric, x and f(E[C]); ``simulation`` when asked for."""

    labels: tuple[str, ...]
    prevalence: tuple[float, ...]
    guess: str
    q: tuple[float, ...]
    x: tuple[float, ...]
    values: Mapping[str, list[float | None]]
    undefined: Mapping[str, str | None]
    linear: Mapping[str, bool]
    simulation: Mapping[str, Any] | None = None
    metrics: tuple[str, ...] = field(default=())
    #: The same curves with every class at share 1/k (same guess rule): what the prevalence changes.
    balanced: Mapping[str, list[float | None]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "labels": list(self.labels), "prevalence": dict(zip(self.labels, self.prevalence)),
            "guess": self.guess, "guess_description": GUESS_TEXT[self.guess], "guess_distribution":
            dict(zip(self.labels, self.q)), "shown": SHOWN,
            "predictive_power": {
                metric_id: {"x": list(self.x), "value": self.values[metric_id], "linear": self.linear[metric_id],
                            "at_chance": self.values[metric_id][0], "undefined": self.undefined[metric_id],
                            "value_at_uniform_prevalence": self.balanced.get(metric_id)}
                for metric_id in self.metrics},
        }
        if self.simulation is not None:
            out["simulation"] = dict(self.simulation)
        return out


def model(prevalence: Mapping[str, float], *, guess: str = "prevalence", points: int = POINTS,
          items: int | None = None, draws: int = 1000, seed: int = 12345) -> PredictiveResult:
    """Every scalar catalogue metric of the model at ``points`` values of x in [0, 1]; with
    ``items`` also the simulation at that N (``draws`` draws per x, seeded)."""
    shares = check_prevalence(prevalence)
    labels = tuple(shares)
    p = np.array([shares[label] for label in labels])
    q = guess_distribution(p, guess)
    x = np.linspace(0.0, 1.0, points)
    metrics = [metric for metric in REGISTRY.scalar() if not metric.per_class]
    values = compute(expected_matrices(p, q, x), metrics)
    curves, undefined, linear = {}, {}, {}
    for metric in metrics:
        value = values[metric.id]
        curves[metric.id] = _nullable(value)
        missing = np.isnan(value)
        undefined[metric.id] = (f"undefined (0/0) at x = {', '.join(f'{v:g}' for v in x[missing][:5])}"
                                f"{' …' if missing.sum() > 5 else ''}: {metric.undefined_when or '0/0'}"
                                if missing.any() else None)
        line = value[0] + (value[-1] - value[0]) * x
        linear[metric.id] = bool(not missing.any() and np.allclose(value, line, rtol=0, atol=1e-9))
    simulation = None
    if items is not None:
        simulation = _simulation(p, q, metrics, items, draws, seed)
    uniform = np.full(p.size, 1.0 / p.size)  # the same model on balanced classes: how prevalence bends each curve
    balanced = compute(expected_matrices(uniform, guess_distribution(uniform, guess), x), metrics)
    return PredictiveResult(labels, tuple(p), guess, tuple(float(v) for v in q), tuple(float(v) for v in x),
                            curves, undefined, linear, simulation, tuple(m.id for m in metrics),
                            {m.id: _nullable(balanced[m.id]) for m in metrics})


def _simulation(p: np.ndarray, q: np.ndarray, metrics: Sequence[Metric], items: Any, draws: Any,
                seed: int) -> dict[str, Any]:
    for name, value in (("--simulate", items), ("--draws", draws)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise UsageError(f"{name}: expected a whole number >= 1, found {value!r}")
    x = np.linspace(0.0, 1.0, 11)
    if draws * x.size * p.size ** 2 > MAX_SIMULATED_CELLS:
        raise UsageError(f"--draws: {draws} draws of {p.size}x{p.size} matrices at {x.size} values of x exceed "
                         f"{MAX_SIMULATED_CELLS:,} cells; use fewer draws")
    return {"items": int(items), "draws": int(draws), "seed": int(seed), "x": [float(v) for v in x],
            "shown": SIMULATED, "metrics": simulate(p, q, x, metrics, items=int(items), draws=int(draws), seed=seed)}
