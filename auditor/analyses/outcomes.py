"""Per-item outcomes (a generation task's per-item metric, e.g. lm-eval's ``exact_match``): each system's mean with
a bootstrap interval, paired tests between systems and the best set.

Statistics of systems s = 1..S over items i = 1..N with values x_si: the mean m_s = (1/N) Σ_i x_si; the percentile
interval of m_s over B resamples of the items with replacement (one resample shared by every system, so that the
systems stay paired); between two systems, the exact McNemar test when both are 0/1 (n01, n10 = the items only one
of them gets right), else approximate randomisation over items (each item's two values swapped with probability ½;
p = (1 + #{|Σ_i ±d_i| ≥ |Σ_i d_i|}) / (R + 1), d_i = x_ai − x_bi); p-values adjusted over the pairs (Holm or
Benjamini–Hochberg). The best set: the top system by mean and every system whose adjusted p against it is ≥ α.
The class-based analyses (prevalence, bias, chance baselines, confusion matrices) do not apply to outcomes.
With ``--bootstrap 0`` nothing is drawn: no intervals, and no randomisation, so values that are not all 0/1 get no
test and no best set (:data:`NOT_RUN`); 0/1 values keep their exact McNemar tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.analyses.significance import adjust, mcnemar_exact
from auditor.options import correction_name

#: Randomisation rounds of a pair test whose values are not all 0/1.
ROUNDS = 9999
#: Resamples at a time in the bootstrap (bounds the (chunk, N) weight matrix).
CHUNK = 64
#: What ``--bootstrap 0`` leaves out, and why (JSON ``statistics.not_run``).
NOT_RUN = {"intervals": "not run: --bootstrap 0 (no resamples)",
           "randomisation": "not run: --bootstrap 0 (no randomisation rounds); values that are not all 0/1 have no "
                            "exact test, so no pair is tested and no best set is formed"}


@dataclass(frozen=True)
class OutcomePair:
    a: str
    b: str
    difference: float
    method: str
    p: float
    p_adjusted: float


@dataclass(frozen=True)
class Outcomes:
    """The audit of per-item outcomes: ``metric`` (its name), ``systems``, ``means``, intervals (None with B = 0),
    the pair tests, the best set and the options they used."""

    metric: str
    systems: tuple[str, ...]
    n_items: int
    means: np.ndarray
    intervals: np.ndarray | None
    pairs: tuple[OutcomePair, ...]
    best_set: tuple[str, ...]
    binary: bool
    bootstrap: int
    seed: int
    alpha: float
    correction: str
    #: Input name -> {path, sha256, n_items} (the samples files read).
    sources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Said on standard error (``auditor score`` prints a result's warnings); outcomes have none of their own.
    warnings: tuple[str, ...] = ()

    @property
    def not_run(self) -> dict[str, str]:
        """What did not run, and why (``--bootstrap 0``: no intervals; no randomisation unless the values are 0/1)."""
        if self.bootstrap > 0:
            return {}
        untested = {} if self.binary else {"randomisation": NOT_RUN["randomisation"]}
        return {"intervals": NOT_RUN["intervals"], **untested}

    def to_json(self) -> dict[str, Any]:
        return {
            "task": "outcomes", "sources": {name: dict(source) for name, source in self.sources.items()},
            "metric": self.metric, "n_items": self.n_items, "binary": self.binary,
            "systems": {name: {"metrics": {self.metric: {
                "value": float(self.means[s]),
                "ci": None if self.intervals is None else [float(x) for x in self.intervals[s]],
                "undefined": None}}} for s, name in enumerate(self.systems)},
            "statistics": {"B": self.bootstrap, "seed": self.seed, "alpha": self.alpha, "interval": "percentile",
                           "correction": self.correction,
            "best_set": {self.metric: list(self.best_set)} if self.pairs or len(self.systems) < 2 else {},
                           "tests": [vars(pair) for pair in self.pairs],
                           **({"not_run": self.not_run} if self.not_run else {})},
            "not_applicable": "prevalence, bias, chance baselines and confusion matrices need a gold class per item",
        }

    def report_model(self, figures: bool = True) -> Any:
        """No report page is written for outcomes yet: refused, so that no partial report is written."""
        from auditor.errors import UsageError

        raise UsageError("the report of per-item outcomes (a generation task) is not written yet; "
                         "'auditor score --lm-eval ... --json' gives every figure")

    def terminal_lines(self, columns: Sequence[str] = (), sort: str | None = None) -> list[str]:
        """``auditor score``'s table (one metric: ``columns`` and ``sort`` have nothing to choose)."""
        width = max(len(name) for name in self.systems) + 2
        lines = [f"{len(self.systems)} systems, {self.n_items:,} items; mean {self.metric} ×100"
                 + ("" if self.intervals is None else f" [{int(100 * (1 - self.alpha))}% interval]"), ""]
        for s in np.argsort(-self.means, kind="stable"):
            interval = "" if self.intervals is None else \
                f" [{100 * self.intervals[s, 0]:.1f}, {100 * self.intervals[s, 1]:.1f}]"
            best = "  best set" if self.systems[s] in self.best_set and len(self.systems) > 1 else ""
            lines.append(f"{self.systems[s]:<{width}}{100 * self.means[s]:5.1f}{interval}{best}")
        for reason in self.not_run.values():
            lines.append(reason)
        if len(self.systems) > 1 and self.pairs:
            method = "exact McNemar" if self.binary else f"approximate randomisation ({ROUNDS:,} rounds)"
            lines += ["", f"best set: the top system and those not significantly below it ({method}, "
                          f"{correction_name(self.correction)} over {len(self.pairs)} pairs, α = {self.alpha:g})"]
        return lines


def bootstrap_intervals(values: np.ndarray, B: int, seed: int, alpha: float) -> np.ndarray:
    """(S, 2) percentile intervals of each row's mean over B shared resamples of the N items."""
    S, N = values.shape
    columns, inverse = np.unique(values, axis=1, return_inverse=True)  # distinct per-item patterns over systems
    counts = np.bincount(inverse.reshape(-1), minlength=columns.shape[1])
    rng = np.random.default_rng(seed)
    means = np.empty((B, S))
    for start in range(0, B, CHUNK):
        draws = rng.multinomial(N, counts / N, size=min(CHUNK, B - start))  # (chunk, patterns)
        means[start:start + draws.shape[0]] = draws @ columns.T / N
    return np.quantile(means, [alpha / 2, 1 - alpha / 2], axis=0).T


def randomisation_p(d: np.ndarray, rounds: int, rng: np.random.Generator) -> float:
    """Two-sided approximate-randomisation p of Σ d_i, each d_i's sign flipped with probability ½."""
    observed = abs(d.sum())
    hits = 0
    for start in range(0, rounds, CHUNK):
        signs = rng.integers(0, 2, size=(min(CHUNK, rounds - start), d.shape[0]), dtype=np.int8) * 2 - 1
        hits += int((np.abs(signs @ d) >= observed - 1e-12 * max(1.0, observed)).sum())
    return (1 + hits) / (rounds + 1)


def analyse(metric: str, systems: Sequence[str], values: np.ndarray, bootstrap: int, seed: int, alpha: float,
            correction: str, sources: Mapping[str, Mapping[str, Any]] | None = None) -> Outcomes:
    """The audit of ``values`` (S, N): means, intervals, pair tests and the best set (see the module docstring)."""
    values = np.asarray(values, dtype=float)
    means = values.mean(axis=1)
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    intervals = bootstrap_intervals(values, bootstrap, seed, alpha) if bootstrap > 0 else None
    rng = np.random.default_rng([seed, 1]) if bootstrap > 0 and not binary else None
    raw = []
    for a in range(len(systems)):
        for b in range(a + 1, len(systems)):
            if rng is None and not binary:  # --bootstrap 0: no randomisation rounds (NOT_RUN)
                continue
            if binary:
                n01 = int(((values[a] == 1) & (values[b] == 0)).sum())
                n10 = int(((values[a] == 0) & (values[b] == 1)).sum())
                raw.append((a, b, "mcnemar_exact", mcnemar_exact(n01, n10)))
            else:
                raw.append((a, b, "randomisation", randomisation_p(values[a] - values[b], ROUNDS, rng)))
    adjusted = adjust([p for *_, p in raw], correction) if raw else np.array([])
    pairs = tuple(OutcomePair(systems[a], systems[b], float(means[a] - means[b]), method, float(p), float(q))
                  for (a, b, method, p), q in zip(raw, adjusted))
    top = int(np.argmax(means))
    worse = {pair.a if pair.b == systems[top] else pair.b for pair in pairs
             if systems[top] in (pair.a, pair.b) and pair.p_adjusted < alpha}
    best = tuple(name for name in systems if name not in worse) if raw or len(systems) < 2 else ()
    return Outcomes(metric, tuple(systems), values.shape[1], means, intervals, pairs, best, binary, bootstrap, seed,
                    alpha, correction, dict(sources or {}))
