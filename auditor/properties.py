"""Metric properties by probing: PI, PII, PIV and PV tested on confusion matrices.

Stage "analyse" of the pipeline. The five properties of Opitz (2024, §3 and Table 5) are
*declared* in every :class:`~auditor.registry.Metric` record; this module *tests* four of them
empirically for any registered scalar metric (a user's ``--plugin`` metric included) and
keeps a witness — the small matrix or matrices and the two scores — for every failure:

PI monotonicity
    Moving one item from an off-diagonal cell to the diagonal of its row (an error becomes
    correct) never lowers the score.
PII class sensitivity
    The score depends on *which* classes the correct items and the errors belong to, not only
    on how many items are correct: some move of one error to another off-diagonal cell, or of
    one correct item to another diagonal cell (N and the number correct unchanged), changes it.
    Accuracy is the metric that fails this (every item counts the same, whatever its class).
PIII class decomposability
    Structural (an unweighted generalised mean of per-class scores); shown as declared.
PIV prevalence invariance
    Rescaling gold rows (C'_ij = s_i C_ij, s_i > 0: the prevalence changes, each class's
    conditional prediction distribution does not) leaves the score unchanged.
PV chance correction
    The metric on predictors that ignore their input, C = N p qᵀ, for many gold prevalences p
    (uniform, skewed, random, a single gold class, the user's own) and predictor biases q
    (uniform, majority class, minority class, q = p, random, one class never predicted, the
    user's systems' own), k = 2..6, with the label set fixed at k. Levels, weakest first:

    ``none``      some chance predictor scores above ω(k) = 1/k, or its score depends on the
                  gold prevalence p (a chance predictor gains from the test set's skew);
    ``bounded``   every chance predictor scores at most ω(k) = 1/k and, for a fixed bias q, the
                  same on every prevalence p with all classes present (macro recall: exactly
                  1/k; GmacR, HmacR: at most 1/k);
    ``strict``    every chance predictor scores exactly 0 wherever the metric is defined, but it
                  is 0/0 for some of them (MCC for a constant predictor);
    ``complete``  every chance predictor scores exactly 0, none undefined.

The matrices are random (seeded numpy), adversarial (skewed prevalence, a near-empty class, a
class never predicted, a class absent from gold, constant predictors, near-perfect systems) and
the user's own. All probes for all metrics run as a few batched evaluations per k.

The literature column is our transcription of Opitz (2024), Table 5, for the nine metrics it
covers (not yet checked against the published table: see ``LITERATURE_SOURCE``); every
disagreement between a probe and the table carries an explanation in ``note``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from .registry import REGISTRY, ConfusionStats, Metric

PROBED = ("monotonicity", "class_sensitivity", "prevalence_invariance", "chance_correction")
PROPERTY_KEYS = ("monotonicity", "class_sensitivity", "decomposability", "prevalence_invariance", "chance_correction")
#: The literature column was transcribed without access to the published table (only the
#: paper's kappa/MCC monotonicity remarks, §4.7, were checked); say so wherever it is shown.
LITERATURE_SOURCE = "Opitz 2024, Table 5 (our transcription, not yet checked against the published table)"
NOT_IN_LITERATURE = "probed, not in the literature table (Opitz 2024, Table 5)"
K_VALUES = (2, 3, 4, 5, 6)
TOLERANCE = 1e-9


def _row(mon: bool, sens: bool, dec: bool, prev: bool, chance: str, row: str) -> dict[str, Any]:
    return {"monotonicity": mon, "class_sensitivity": sens, "decomposability": dec,
            "prevalence_invariance": prev, "chance_correction": chance, "row": row,
            "source": LITERATURE_SOURCE}


#: Opitz (2024), Table 5: PI, PII, PIII, PIV, PV per metric (the paper's row name in ``row``).
LITERATURE: dict[str, dict[str, Any]] = {
    "accuracy": _row(True, False, False, False, "none", "Acc"),
    "macro_recall": _row(True, True, True, True, "bounded", "macR"),
    "gmean_recall": _row(True, True, True, True, "bounded", "GmacR"),
    "hmean_recall": _row(True, True, True, True, "bounded", "HmacR"),
    "macro_precision": _row(True, True, True, False, "none", "macP"),
    "macro_f1": _row(True, True, True, False, "none", "macF1"),
    "macro_f1_hm": _row(True, True, False, False, "none", "macF1′"),
    "weighted_f1": _row(True, True, False, False, "none", "wF1"),
    "kappa": _row(False, True, False, False, "strict", "Kappa"),
    "mcc": _row(False, True, False, False, "strict", "MCC"),
}

#: Why a probe and the table may disagree, by (metric id, property): checked, not silenced.
#: Empty while every probe reproduces the table; a new disagreement shows as "UNEXPLAINED".
EXPLANATIONS: dict[tuple[str, str], str] = {}

#: What the probe's outcome rests on, where a boundary convention or the probe's definition
#: decides it (shown in the result's ``note``).
CONTEXT: dict[str, str] = {
    "macro_recall": "PV: every predictor that ignores its input scores exactly 1/k (R_i = q_i, mean of q = 1/k).",
    "gmean_recall": "PV: chance predictors score (Π q_i)^{1/k} ≤ 1/k, equality only for the uniform predictor.",
    "hmean_recall": "PV: chance predictors score k / Σ q_i⁻¹ ≤ 1/k (0 if some class is never predicted), "
                    "equality only for the uniform predictor.",
    "macro_precision": "PV: never above 1/k on exact chance matrices, but a constant predictor scores p_j/k, "
                       "so the chance value follows the gold prevalence (witness).",
    "macro_f1": "PV: never above 1/k on exact chance matrices, but the value follows the gold prevalence (witness).",
    "macro_f1_hm": "PV: never above 1/k on exact chance matrices, but the value follows the gold prevalence.",
    "kappa": "PI fails only below chance on skewed gold: correcting an error of a dominant gold class raises the "
             "chance agreement pᵀb by (p_i − p_j)/N, more than the observed agreement gains (witness; Opitz §4.7). "
             "PV 'strict', not 'complete': kappa is 0/0 when gold and predictions are one and the same class.",
    "mcc": "PI fails even above chance: correcting an error of a dominant gold class that flooded a class absent "
           "from gold spreads the predictions (1 − bᵀb grows) while the numerator gains only (1 − p_i + p_j)/N "
           "(witness; Opitz §4.7). PV 'strict': 0/0 for every constant "
           "predictor (1 − bᵀb = 0); scikit-learn's convention of 0 there would make it 'complete'.",
}


# ------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class Witness:
    """A counterexample: the matrix before and after one probe move, and the two scores."""

    description: str
    before: np.ndarray
    after: np.ndarray | None
    score_before: float | None
    score_after: float | None

    def to_json(self) -> dict[str, Any]:
        def number(x):
            return None if x is None or not np.isfinite(x) else float(x)
        return {
            "description": self.description,
            "before": _matrix_json(self.before),
            "after": None if self.after is None else _matrix_json(self.after),
            "score_before": number(self.score_before),
            "score_after": number(self.score_after),
        }


@dataclass
class PropertyResult:
    """Probed properties of one metric, with its declaration, the literature and witnesses."""

    metric_id: str
    name: str
    probed: dict[str, Any]
    declared: dict[str, Any]
    literature: dict[str, Any] | None
    witnesses: dict[str, Witness] = field(default_factory=dict)
    chance_value: float | None = None
    #: per k: min and max over the chance predictors on gold with every class present, the
    #: uniform predictor on uniform gold, the majority-class predictor on skewed gold (0.5^i).
    chance_baselines: dict[str, dict[str, float | None]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def disagreements(self) -> list[str]:
        """Probed properties that differ from the literature table."""
        if self.literature is None:
            return []
        return [key for key in PROBED if self.probed[key] != self.literature[key]]

    @property
    def agrees_with_literature(self) -> bool | None:
        return None if self.literature is None else not self.disagreements

    @property
    def declared_disagreements(self) -> list[str]:
        return [key for key in PROBED if self.probed[key] != self.declared[key]]

    @property
    def note(self) -> str | None:
        return " ".join(self.notes) if self.notes else None

    def to_json(self) -> dict[str, Any]:
        document = {key: self.probed[key] for key in PROPERTY_KEYS}
        document.update({
            "chance_value": self.chance_value,
            "chance_baselines": self.chance_baselines,
            "declared": self.declared,
            "literature": self.literature,
            "agrees_with_literature": self.agrees_with_literature,
            "witnesses": {key: witness.to_json() for key, witness in self.witnesses.items()},
            "note": self.note,
        })
        return document


@dataclass
class PropertyTable:
    """The property table of every probed metric (``result.analyses["properties"]``)."""

    results: dict[str, PropertyResult]
    seed: int
    k_values: tuple[int, ...]
    n_matrices: int
    n_user_matrices: int

    def __getitem__(self, metric_id: str) -> PropertyResult:
        return self.results[metric_id]

    def __iter__(self):
        return iter(self.results.values())

    def to_json(self) -> dict[str, Any]:
        return {metric_id: result.to_json() for metric_id, result in self.results.items()}

    def add_to_json(self, document: dict[str, Any]) -> None:
        """Write ``document["properties"]`` (DESIGN.md "Metric properties")."""
        document["properties"] = self.to_json()


# ------------------------------------------------------------------------------ matrices


def random_matrices(rng: np.random.Generator, k: int, n: int = 120) -> np.ndarray:
    """``n`` random k×k count matrices: small counts, some diagonal-heavy, some sparse."""
    counts = rng.integers(0, 8, size=(n, k, k)).astype(float)
    heavy = rng.random(n) < 0.5
    counts[heavy] += np.eye(k) * rng.integers(3, 20, size=(int(heavy.sum()), 1, 1))
    sparse = rng.random((n, k, k)) < 0.25
    counts[sparse] = 0
    counts[counts.sum(axis=(1, 2)) == 0, 0, 0] = 1
    return counts


def adversarial_matrices(rng: np.random.Generator, k: int) -> np.ndarray:
    """Skewed prevalence, near-empty classes, a class never predicted, a class absent from gold,
    constant predictors, near-perfect systems, worse-than-chance systems on skewed gold."""
    base = rng.integers(1, 6, size=(12, k, k)).astype(float) + np.eye(k) * 6
    out = []
    for index, matrix in enumerate(base):
        m = matrix.copy()
        kind = index % 6
        if kind == 0:      # skewed prevalence: class 0 fifty times as frequent
            m[0] *= 50
        elif kind == 1:    # near-empty class
            m[k - 1] = 0
            m[k - 1, rng.integers(0, k)] = 1
        elif kind == 2:    # one class never predicted
            m[:, k - 1] = 0
            m[k - 1, 0] = max(m[k - 1, 0], 1)
        elif kind == 3:    # a class absent from gold, still predicted
            m[k - 1] = 0
            m[0, k - 1] += 1
        elif kind == 4:    # constant predictor except one correct item of another class
            m[:] = 0
            m[:, 0] = rng.integers(1, 10, size=k)
            m[1, 1] = 1
        else:              # near-perfect: one error
            m[:] = np.diag(rng.integers(1, 30, size=k))
            m[0, 1] = 1
        out.append(m)
    # skewed gold rows, errors concentrated: worse-than-chance systems and a dominant class
    # confused with one other class (where kappa and MCC stop being monotone, Opitz §4.7)
    skewed = rng.integers(0, 30, size=(120, k, k)).astype(float)
    skewed = np.round(skewed * rng.random((120, k, 1)) ** 3 * 10)
    skewed[:60] *= 1 - np.eye(k)
    skewed = skewed[skewed.sum(axis=(1, 2)) > 0]
    # a dominant gold class whose errors flood a class absent from gold
    flooded = []
    for a in range(1, 7):
        for b in (10, 20, 40):
            m = np.zeros((k, k))
            m[0, 0] = m[1, 0] = 1
            m[1, 1], m[1, k - 1] = a, b
            flooded.append(m)
    parts = [np.stack(out), skewed] + ([np.stack(flooded)] if k > 2 else [])
    return np.concatenate(parts)


def _user_by_k(user_matrices: Iterable[np.ndarray] | np.ndarray | None) -> dict[int, np.ndarray]:
    grouped: dict[int, list[np.ndarray]] = {}
    if user_matrices is None:
        return {}
    stack = [np.asarray(m, dtype=float) for m in (user_matrices if not isinstance(user_matrices, np.ndarray)
                                                  or user_matrices.ndim == 3 else [user_matrices])]
    for matrix in stack:
        if matrix.sum() > 0:
            grouped.setdefault(matrix.shape[-1], []).append(matrix)
    return {k: np.stack(v) for k, v in grouped.items()}


# ---------------------------------------------------------------------------------- moves


def _monotonicity_pairs(matrices: np.ndarray, rng: np.random.Generator | None = None,
                        limit: int = 6000) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Every (matrix, off-diagonal cell with a count) -> the matrix with one error corrected
    (a seeded sample of ``limit`` of them when there are more, e.g. for large k)."""
    k = matrices.shape[-1]
    b, i, j = np.nonzero(matrices * (1 - np.eye(k)))
    if len(b) > limit:
        keep = np.sort((rng or np.random.default_rng(0)).choice(len(b), size=limit, replace=False))
        b, i, j = b[keep], i[keep], j[keep]
    before = matrices[b]
    after = before.copy()
    after[np.arange(len(b)), i, j] -= 1
    after[np.arange(len(b)), i, i] += 1
    labels = [f"one item of gold class {r} moved from predicted {c} to predicted {r} (an error corrected)"
              for r, c in zip(i, j)]
    return before, after, labels


def _sensitivity_pairs(matrices: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Moves that keep N and the number of correct items: an error to another off-diagonal cell,
    or a correct item to another diagonal cell."""
    k = matrices.shape[-1]
    off = [(r, c) for r in range(k) for c in range(k) if r != c]
    befores, afters, labels = [], [], []
    for matrix in matrices:
        errors = [cell for cell in off if matrix[cell] > 0]
        for _ in range(3):
            if errors:
                source = errors[rng.integers(len(errors))]
                target = off[rng.integers(len(off))]
                if target != source:
                    after = matrix.copy()
                    after[source] -= 1
                    after[target] += 1
                    befores.append(matrix), afters.append(after)
                    labels.append(f"one error moved from cell {source} to cell {target} (same N, same number correct)")
            correct = [r for r in range(k) if matrix[r, r] > 0]
            if correct:
                r = correct[rng.integers(len(correct))]
                s = int(rng.integers(k))
                if s != r:
                    after = matrix.copy()
                    after[r, r] -= 1
                    after[s, s] += 1
                    befores.append(matrix), afters.append(after)
                    labels.append(f"one correct item moved from class {r} to class {s} (same N, same number correct)")
    if not befores:
        empty = np.zeros((0, k, k))
        return empty, empty, []
    return np.stack(befores), np.stack(afters), labels


def _prevalence_pairs(matrices: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Each matrix with its gold rows rescaled by random factors in [1/8, 8]."""
    reps = 2
    before = np.repeat(matrices, reps, axis=0)
    scale = np.exp(rng.uniform(-np.log(8), np.log(8), size=before.shape[:2]))
    after = before * scale[..., None]
    labels = ["gold rows rescaled by " + ", ".join(f"{s:.3g}" for s in row)
              + " (prevalence changed, each class's prediction distribution kept)" for row in scale]
    return before, after, labels


def _chance_vectors(k: int, rng: np.random.Generator, user: np.ndarray | None):
    """Gold prevalences p (with a flag: all classes present) and predictor biases q."""
    uniform = np.full(k, 1 / k)
    geometric = 0.5 ** np.arange(k)
    geometric /= geometric.sum()
    dominant = np.full(k, 0.1 / (k - 1))
    dominant[0] = 0.9
    single = np.eye(k)[0]
    ps = [uniform, geometric, dominant, geometric[::-1].copy(), single] + list(rng.dirichlet(np.full(k, 0.7), size=6))
    qs_extra = [uniform, np.eye(k)[k - 1], geometric, rng.dirichlet(np.ones(k))]
    never = np.full(k, 1 / (k - 1))
    never[k - 1] = 0
    qs_extra.append(never)
    qs_extra += list(rng.dirichlet(np.full(k, 0.5), size=4))
    if user is not None:
        stats = ConfusionStats(user)
        ps.append(stats.prevalence[0])
        qs_extra += list(stats.bias)
    pairs = []
    for p_index, p in enumerate(ps):
        qs = [np.eye(k)[int(np.argmax(p))], np.eye(k)[int(np.argmin(np.where(p > 0, p, np.inf)))], p] + qs_extra
        for q_index, q in enumerate(qs):
            pairs.append((p_index, q_index, p, q))
    return pairs


# --------------------------------------------------------------------------------- probe


def _evaluate(metrics: Sequence[Metric], matrices: np.ndarray, all_labels_active: bool = False) -> dict[str, np.ndarray]:
    if len(matrices) == 0:
        return {metric.id: np.zeros(0) for metric in metrics}
    stats = ConfusionStats(matrices, all_labels_active)
    with np.errstate(all="ignore"):
        return {metric.id: np.asarray(metric.function(stats), dtype=float) for metric in metrics}


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b) <= TOLERANCE * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))


def _smallest(mask: np.ndarray, before: np.ndarray) -> int:
    """Index of the witness to keep: the smallest matrix (fewest items) among the failures."""
    candidates = np.flatnonzero(mask)
    sizes = before[candidates].sum(axis=(1, 2))
    return int(candidates[np.argmin(sizes)])


def probe_properties(
    metrics: Iterable[Metric] | None = None,
    user_matrices: Iterable[np.ndarray] | np.ndarray | None = None,
    seed: int = 12345,
    k_values: Sequence[int] = K_VALUES,
    n_random: int = 100,
) -> PropertyTable:
    """Probe PI, PII, PIV and PV of every scalar metric on random, adversarial and user matrices.

    Parameters
    ----------
    metrics : metrics to probe; default every registered scalar metric (plugins included).
    user_matrices : the audit's confusion matrices (S, k, k); probed alongside the others.
    seed : seed of the random matrices (numpy ``default_rng``).
    k_values : numbers of classes of the random and adversarial matrices.
    n_random : random matrices per k.
    """
    chosen = [metric for metric in (REGISTRY.scalar() if metrics is None else metrics) if not metric.per_class]
    rng = np.random.default_rng(seed)
    user = _user_by_k(user_matrices)
    ks = sorted(set(k_values) | set(user))
    state: dict[str, dict[str, Any]] = {
        metric.id: {"witness": {}, "failed": set(), "undefined_pairs": 0, "chance": {}} for metric in chosen
    }
    n_total = 0
    for k in ks:
        parts = [random_matrices(rng, k, n_random), adversarial_matrices(rng, k)] if k in k_values else []
        if k in user:
            parts.append(user[k])
        matrices = np.concatenate(parts)
        n_total += len(matrices)
        groups = {
            "monotonicity": _monotonicity_pairs(matrices, rng, limit=max(400, 250_000 // k**2)),
            "class_sensitivity": _sensitivity_pairs(matrices, rng),
            "prevalence_invariance": _prevalence_pairs(matrices, rng),
        }
        # one batched evaluation per k for the three pairwise probes
        befores = np.concatenate([g[0] for g in groups.values()])
        afters = np.concatenate([g[1] for g in groups.values()])
        values_before = _evaluate(chosen, befores)
        values_after = _evaluate(chosen, afters)
        offsets = np.cumsum([0] + [len(g[0]) for g in groups.values()])
        for metric in chosen:
            s = state[metric.id]
            for (prop, (before, after, labels)), start, stop in zip(groups.items(), offsets[:-1], offsets[1:]):
                x, y = values_before[metric.id][start:stop], values_after[metric.id][start:stop]
                defined = np.isfinite(x) & np.isfinite(y)
                s["undefined_pairs"] += int((~defined).sum())
                if prop == "monotonicity":
                    failed = defined & (y < x - TOLERANCE * np.maximum(1.0, np.abs(x)))
                    if s.get("witness_mon_undef") is None and (~np.isfinite(y) & np.isfinite(x)).any():
                        index = int(np.flatnonzero(~np.isfinite(y) & np.isfinite(x))[0])
                        s["witness_mon_undef"] = Witness(labels[index] + "; the score becomes undefined (0/0)",
                                                         before[index], after[index], float(x[index]), None)
                    if failed.any():
                        s["failed"].add(prop)
                        _keep(s["witness"], prop, failed, before, after, labels, x, y,
                              "the score drops")
                elif prop == "class_sensitivity":
                    changed = defined & ~_close(x, y)
                    if changed.any():
                        s["changed_sensitivity"] = True
                        _keep(s["witness"], "class_sensitivity", changed, before, after, labels, x, y,
                              "the score changes")
                else:
                    changed = defined & ~_close(x, y)
                    if changed.any():
                        s["failed"].add(prop)
                        _keep(s["witness"], prop, changed, before, after, labels, x, y, "the score changes")
        # chance predictors C = N p qᵀ, label set fixed at k
        pairs = _chance_vectors(k, rng, user.get(k))
        chance = np.stack([1000.0 * np.outer(p, q) for _, _, p, q in pairs])
        chance_values = _evaluate(chosen, chance, all_labels_active=True)
        same_q: dict[tuple, list[int]] = {}
        for i, (_, _, p, q) in enumerate(pairs):
            if np.all(p > 0):
                same_q.setdefault(tuple(np.round(q, 12)), []).append(i)
        groups_q = [np.array(v) for v in same_q.values() if len(v) > 1]
        for metric in chosen:
            state[metric.id]["chance"][k] = (pairs, chance, chance_values[metric.id], groups_q)

    results = {}
    for metric in chosen:
        results[metric.id] = _result(metric, state[metric.id])
    return PropertyTable(results, seed, tuple(ks), n_total, sum(len(v) for v in user.values()))


def _keep(witnesses, prop, mask, before, after, labels, x, y, verb):
    if prop in witnesses:
        old = witnesses[prop]
        if old.before.sum() <= before[mask].sum(axis=(1, 2)).min():
            return
    index = _smallest(mask, before)
    witnesses[prop] = Witness(f"{labels[index]}: {verb} from {x[index]:.6g} to {y[index]:.6g}",
                              before[index], after[index], float(x[index]), float(y[index]))


def _classify_chance(metric: Metric, chance: dict[int, tuple]) -> tuple[str, float | None, dict, Witness | None, list[str]]:
    baselines: dict[str, dict[str, float | None]] = {}
    all_zero, any_undefined, bounded, independent = True, False, True, True
    witness: Witness | None = None
    notes: list[str] = []
    constant_values = []
    for k, (pairs, matrices, values, groups_q) in sorted(chance.items()):
        finite = np.isfinite(values)
        any_undefined |= bool((~finite).any())
        defined = values[finite]
        full_support = np.array([bool(np.all(p > 0)) for _, _, p, _ in pairs])
        shown = values[finite & full_support]  # baselines shown for gold with every class present
        uniform_index = next(i for i, (pi, qi, p, q) in enumerate(pairs) if pi == 0 and qi == 3)
        majority_index = next(i for i, (pi, qi, p, q) in enumerate(pairs) if pi == 1 and qi == 0)
        baselines[str(k)] = {
            "min": float(shown.min()) if shown.size else None,
            "max": float(shown.max()) if shown.size else None,
            "uniform_predictor": _finite(values[uniform_index]),
            "majority_class_predictor_on_skewed_gold": _finite(values[majority_index]),
        }
        constant_values.append(defined)
        if defined.size and np.abs(defined).max() > 1e-9:
            all_zero = False
        over = finite & (values > 1 / k + 1e-9)
        if over.any() and bounded:
            bounded = False
            full = over & full_support
            pick = full if full.any() else over  # prefer a witness whose gold has every class
            i = int(np.flatnonzero(pick)[np.argmax(values[pick])])
            witness = Witness(f"k={k}: a predictor that ignores its input (C = N p qᵀ, p={_vec(pairs[i][2])}, "
                              f"q={_vec(pairs[i][3])}) scores {values[i]:.6g} > ω(k) = 1/{k}",
                              matrices[i], None, float(values[i]), None)
        # same q, different p with every class present: does the chance value follow prevalence?
        if independent:
            for indices in groups_q:
                vals = values[indices]
                if not np.isfinite(vals).all() or np.ptp(vals) <= 1e-9:
                    continue
                independent = False
                lo, hi = int(indices[np.argmin(vals)]), int(indices[np.argmax(vals)])
                if bounded:
                    witness = Witness(
                        f"k={k}: the same chance predictor q={_vec(pairs[lo][3])} scores {values[lo]:.6g} on gold "
                        f"prevalence p={_vec(pairs[lo][2])} and {values[hi]:.6g} on p={_vec(pairs[hi][2])}",
                        matrices[lo], matrices[hi], float(values[lo]), float(values[hi]))
                break
    constant_values = np.concatenate(constant_values) if constant_values else np.zeros(0)
    if all_zero and constant_values.size:
        level = "strict" if any_undefined else "complete"
        if any_undefined:
            notes.append("PV: 0 for every predictor that ignores its input where defined, 0/0 for some of them "
                         f"({metric.undefined_when or 'undefined'}).")
        return level, 0.0, baselines, None, notes
    if bounded and independent:
        level = "bounded"
    else:
        level = "none"
    chance_value = None
    if constant_values.size and np.ptp(constant_values) <= 1e-9:
        chance_value = float(constant_values[0])
    return level, chance_value, baselines, (witness if level == "none" else None), notes


def _result(metric: Metric, s: dict[str, Any]) -> PropertyResult:
    witnesses: dict[str, Witness] = dict(s["witness"])
    chance, chance_value, baselines, chance_witness, notes = _classify_chance(metric, s["chance"])
    if chance_witness is not None:
        witnesses["chance_correction"] = chance_witness
    probed = {
        "monotonicity": "monotonicity" not in s["failed"],
        "class_sensitivity": bool(s.get("changed_sensitivity")),
        "decomposability": metric.properties.decomposability,
        "prevalence_invariance": "prevalence_invariance" not in s["failed"],
        "chance_correction": chance,
    }
    if not probed["class_sensitivity"]:
        witnesses.pop("class_sensitivity", None)
    declared = {key: getattr(metric.properties, key) for key in PROPERTY_KEYS}
    declared["source"] = metric.properties.source
    literature = LITERATURE.get(metric.id)
    result = PropertyResult(metric.id, metric.name, probed, declared, literature, witnesses,
                            chance_value, baselines, notes)
    if literature is None:
        result.notes.insert(0, NOT_IN_LITERATURE + ".")
    if metric.id in CONTEXT:
        result.notes.append(CONTEXT[metric.id])
    if s.get("witness_mon_undef") is not None and probed["monotonicity"]:
        result.notes.append("PI: correcting an error never lowered a defined score; it can make the score "
                            "undefined (0/0), which the probe does not count as a drop.")
    for key in result.disagreements:
        explanation = EXPLANATIONS.get((metric.id, key))
        result.notes.append(f"Disagrees with {LITERATURE_SOURCE} on {key} (probe: {probed[key]}, table: "
                            f"{literature[key]}): " + (explanation or "UNEXPLAINED — investigate."))
    if result.declared_disagreements:
        result.notes.append("Probe differs from the declared " + ", ".join(
            f"{key} ({declared[key]} declared, {probed[key]} probed)" for key in result.declared_disagreements) + ".")
    return result


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _vec(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:.3g}" for x in v) + ")"


def _matrix_json(matrix: np.ndarray) -> list[list[float]]:
    return [[int(x) if float(x).is_integer() else round(float(x), 6) for x in row] for row in np.asarray(matrix)]


def property_analysis(result: Any) -> PropertyTable:
    """The property table of an :class:`~auditor.pipeline.Audit`: its metrics, its matrices, its seed."""
    return probe_properties(result.metrics, result.counts.confusion, seed=result.options.seed)


