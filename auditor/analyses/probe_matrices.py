"""The synthetic matrices the property probes score: random and adversarial confusion matrices,
the moves that change one matrix into another (PI, PII, PIV), and the chance classifiers C = N p qᵀ (PV).

Used by :mod:`auditor.analyses.properties` (stage "analyse"); the definitions are Opitz (2024, §3.1–§3.5).
Every construction draws from the seeded numpy generator it is given, in a fixed order: the probe's
results depend on that order.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping, Sequence

import numpy as np

from auditor.formatting import format_value
from auditor.metrics.registry import ConfusionStats

#: Items of a chance matrix C = N p qᵀ (real-valued counts, as Opitz §2, footnote 1 allows); 3600 = 60²
#: makes the uniform classifier's matrix whole at every k ≤ 6 (every metric is scale-free, so the scores
#: do not depend on N).
CHANCE_N = 3600.0


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


def user_by_k(confusion: np.ndarray, systems: Sequence[str]) -> dict[int, tuple[np.ndarray, tuple[str, ...]]]:
    """The systems' matrices with at least one item and at least two classes, grouped by k:
    (matrices, system names). A 1×1 matrix has no second class to move an item to or rescale
    against, so none of PI, PII, PIV, PV can be probed on it; the generated matrices still are."""
    grouped: dict[int, list[tuple[np.ndarray, str]]] = {}
    for matrix, name in zip(np.asarray(confusion, dtype=float), systems):
        if matrix.sum() > 0 and matrix.shape[-1] >= 2:
            grouped.setdefault(matrix.shape[-1], []).append((matrix, name))
    return {k: (np.stack([m for m, _ in pairs]), tuple(name for _, name in pairs)) for k, pairs in grouped.items()}


# ---------------------------------------------------------------------------------- moves


@dataclass(frozen=True)
class Pairs:
    """The matrix pairs of one probe at one k, as row indices into that k's evaluated batch:
    the score moves from row ``before[i]`` to row ``after[i]``; ``describe(i)`` says how the two
    matrices differ (called only for a witness); ``correct[i]`` (PI) marks an added correct item."""

    before: np.ndarray
    after: np.ndarray
    describe: Callable[[int], str]
    correct: np.ndarray | None = None


@dataclass(frozen=True)
class Batch:
    """Every matrix probed at one k, evaluated once: the matrices, their sizes (items), the
    audited system each is the own matrix of (None: generated or changed), every metric's scores,
    and whether each matrix has every class in gold and whole counts (``complete``: a witness's first choice)."""

    matrices: np.ndarray
    sizes: np.ndarray
    systems: tuple[str | None, ...]
    values: Mapping[str, np.ndarray]
    complete: np.ndarray


def _sample(rng: np.random.Generator, n: int, limit: int) -> np.ndarray:
    """All of ``range(n)`` or a seeded sorted sample of ``limit`` of them."""
    if n <= limit:
        return np.arange(n)
    return np.sort(rng.choice(n, size=limit, replace=False))


def monotonicity_moves(matrices: np.ndarray, rng: np.random.Generator,
                        limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, Callable[[int], str]]:
    """(M, M + one item in cell (i, j)) for every matrix and cell (a sample of ``limit``).

    Opitz §3.1, footnote: one more correct item must not lower the score, one more error must
    not raise it. Returns the index of M in ``matrices``, the matrices after, the mask of the
    moves that add a correct item, and their descriptions.
    """
    k = matrices.shape[-1]
    keep = _sample(rng, len(matrices) * k * k, limit)
    b, cell = np.divmod(keep, k * k)
    i, j = np.divmod(cell, k)
    after = matrices[b]
    after[np.arange(len(b)), i, j] += 1

    def describe(n: int) -> str:
        return (f"one correct item of class {i[n]} added" if i[n] == j[n] else
                f"one error added (gold class {i[n]} predicted as {j[n]})")
    return b, after, i == j, describe


def sensitivity_moves(matrices: np.ndarray, rng: np.random.Generator,
                       limit: int) -> tuple[np.ndarray, np.ndarray, Callable[[int], str]]:
    """(M + one item in cell a, M + one item in cell b), a and b both on the diagonal or both off it.

    Opitz §3.2, footnote: a metric is not 'micro' if adding a correct item of one class and a
    correct item of another (or an error in one cell and an error in another) can score
    differently. Two draws per sampled matrix, each a diagonal pair then an off-diagonal pair.
    """
    k = matrices.shape[-1]
    n = min(len(matrices), max(1, limit // 4))
    chosen = _sample(rng, len(matrices), n)
    off = np.array([(r, c) for r in range(k) for c in range(k) if r != c])
    draws = np.empty((2 * len(chosen), 4), dtype=np.int64)  # r, s (classes), a, c (off-diagonal cells)
    for row in range(len(draws)):  # the draws stay sequential: the seeded stream defines the probe
        draws[row, :2] = rng.choice(k, size=2, replace=False)
        draws[row, 2:] = rng.choice(len(off), size=2, replace=False)
    r, s, a, c = draws[:, 0], draws[:, 1], off[draws[:, 2]], off[draws[:, 3]]
    # per draw: the diagonal pair, then the off-diagonal pair
    first = np.stack([np.stack([r, r], 1), a], 1).reshape(-1, 2)
    second = np.stack([np.stack([s, s], 1), c], 1).reshape(-1, 2)
    source = np.repeat(chosen, 4)
    rows = np.arange(len(source))
    before, after = matrices[source], matrices[source]
    before[rows, first[:, 0], first[:, 1]] += 1
    after[rows, second[:, 0], second[:, 1]] += 1

    def describe(m: int) -> str:
        if m % 2 == 0:
            return f"one correct item added to class {first[m, 0]}, or instead to class {second[m, 0]}"
        return (f"one error added in cell {tuple(int(x) for x in first[m])}, or instead in cell "
                f"{tuple(int(x) for x in second[m])}")
    return before, after, describe


def prevalence_moves(matrices: np.ndarray, rng: np.random.Generator,
                      limit: int) -> tuple[np.ndarray, np.ndarray, Callable[[int], str]]:
    """Each matrix with its gold rows rescaled by random factors in [1/8, 8] (prevalence scaling,
    §3.4). Returns the index of each matrix in ``matrices``, the rescaled matrices, descriptions."""
    source = np.repeat(_sample(rng, len(matrices), max(1, limit // 2)), 2)
    scale = np.exp(rng.uniform(-np.log(8), np.log(8), size=(len(source), matrices.shape[-1])))
    # every other move by whole factors 1..8, so that a witness can be a matrix of whole counts
    scale[::2] = np.maximum(1.0, np.rint(scale[::2]))
    after = matrices[source] * scale[..., None]

    def describe(n: int) -> str:
        return "gold rows rescaled by " + ", ".join(f"{x:.3g}" for x in scale[n])
    return source, after, describe


@dataclass(frozen=True)
class ChanceClassifier:
    """A classifier that ignores its input: gold prevalence ``p`` and prediction shares ``q``,
    each named by what it is; its expected matrix is C = N p qᵀ (N = :data:`CHANCE_N`)."""

    gold: str
    prediction: str
    p: np.ndarray
    q: np.ndarray

    @property
    def matrix(self) -> np.ndarray:
        return CHANCE_N * np.outer(self.p, self.q)

    def describe(self, k: int, value: float) -> str:
        return f"k={k}, p={_vec(self.p)}, q={_vec(self.q)}: {score_text(value)}"


def whole_counts(matrix: np.ndarray, q: np.ndarray,
                 value: Callable[[np.ndarray], float]) -> tuple[np.ndarray, float, str] | None:
    """A chance matrix N p qᵀ with every non-zero cell rounded to a whole count ≥ 1, its score
    (``value``) and its description, when the rounded matrix is still an outer product (a
    classifier that ignores its input); else None. Witnesses read better in whole counts."""
    whole = np.where(matrix > 0, np.maximum(1.0, np.rint(matrix)), 0.0)
    rows, n = whole.sum(axis=1), whole.sum()
    if n <= 0 or not np.allclose(whole * n, np.outer(rows, whole.sum(axis=0))):
        return None
    score = value(whole)
    counts = ", ".join(str(int(x)) for x in rows)
    return whole, score, f"k={len(rows)}, gold counts ({counts}), q={_vec(q)}: {100 * score:.2f}"


def _one_hot(k: int, c: int) -> np.ndarray:
    """The share vector that puts everything on class ``c`` (its own array: a row of ``np.eye(k)``
    would keep the whole k × k matrix alive, k² per classifier)."""
    vector = np.zeros(k)
    vector[c] = 1.0
    return vector


def _geometric(k: int) -> np.ndarray:
    """Skewed gold: p_i ∝ 0.5^i."""
    shares = 0.5 ** np.arange(k)
    return shares / shares.sum()


def uniform_classifier(k: int) -> ChanceClassifier:
    """The uniform classifier on uniform gold."""
    uniform = np.full(k, 1 / k)
    return ChanceClassifier("uniform", "uniform", uniform, uniform)


def majority_classifier(k: int) -> ChanceClassifier:
    """The majority-class classifier on skewed gold (p_i ∝ 0.5^i)."""
    return ChanceClassifier("geometric", "majority class", _geometric(k), _one_hot(k, 0))


def chance_classifiers(k: int, rng: np.random.Generator, user: np.ndarray | None,
                        limit: int) -> tuple[ChanceClassifier, ...]:
    """Gold prevalences p (every class present, §3.5: data sets with k classes) and biases q."""
    uniform = np.full(k, 1 / k)
    geometric = _geometric(k)
    dominant = np.full(k, 0.1 / (k - 1))
    dominant[0] = 0.9
    # extreme gold for every class: one class holds all but 1e-7 of each other class's share
    extremes = [(f"extreme (class {c})", np.where(np.arange(k) == c, 1 - (k - 1) * 1e-7, 1e-7)) for c in range(k)]
    golds = [("uniform", uniform), ("geometric", geometric), ("dominant", dominant), *extremes,
             ("reversed geometric", geometric[::-1].copy())] + [("Dirichlet(0.7)", p) for p in
                                                                rng.dirichlet(np.full(k, 0.7), size=6)]
    never = np.full(k, 1 / (k - 1))
    never[k - 1] = 0
    predictions = [("uniform", uniform), ("always the last class", _one_hot(k, k - 1)), ("geometric", geometric),
                   ("never the last class", never)] + [("Dirichlet(0.5)", q) for q in
                                                       rng.dirichlet(np.full(k, 0.5), size=5)]
    if user is not None:
        stats = ConfusionStats(user)
        golds += [("a system's gold", p) for p in stats.prevalence if np.all(p > 0)]
        predictions += [("a system's predictions", q) for q in stats.bias]
    classifiers = []
    for gold, p in golds:
        matched = [("majority class", _one_hot(k, int(np.argmax(p)))),
                   ("minority class", _one_hot(k, int(np.argmin(p)))), ("the gold prevalence", p)]
        classifiers += [ChanceClassifier(gold, prediction, p, q) for prediction, q in matched + predictions]
    if len(classifiers) > limit:
        return tuple(classifiers[i] for i in _sample(rng, len(classifiers), limit))
    return tuple(classifiers)


def _vec(v: np.ndarray) -> str:
    """Shares as exact fractions where they are simple ones (1/3, 4/7), else to 3 significant digits."""
    return "(" + ", ".join(share_text(x) for x in v) + ")"


def share_text(x: float) -> str:
    """A share as an exact fraction with a denominator up to 100 when it is one (``1/3``, ``0``, ``1``)."""
    x = float(x)
    fraction = Fraction(x).limit_denominator(100)
    if abs(float(fraction) - x) < 1e-12:
        return str(fraction)
    if x > 0.5 and f"{x:.3g}" == "1":  # 1 − 10⁻⁷ is not 1
        return f"1 − {share_text(1 - x)}"
    mantissa, exponent = f"{x:.2e}".split("e")
    if x < 1e-3 and float(mantissa) == 1.0:
        return "10" + str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{x:.3g}"


def score_text(x: float) -> str:
    """A score ×100 with one decimal, as the report shows it (floating-point dust, |x| < 1e-9, is 0)."""
    return format_value(0.0 if abs(x) < 1e-9 else float(x), "score")
