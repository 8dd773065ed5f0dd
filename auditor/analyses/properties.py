"""Metric properties by probing: PI, PII, PIV and PV tested on confusion matrices.

Stage "analyse" of the pipeline. The five properties of Opitz (2024, §3; the file
``opitz-2024-closer-look-classification-metrics.md`` of the project's sources) are *declared*
in every :class:`~auditor.metrics.registry.Metric` record, *printed* in the paper's Table 5 (§6.1;
:data:`LITERATURE`, cell by cell) and *probed* here for any registered scalar metric (a
user's ``--plugin`` metric and the prevalence-calibrated variants included). Every failed
probe keeps a witness — the matrices and the two scores. The definitions are the paper's:

PI monotonicity (§3.1 and its footnote)
    A gradient property: adding one item on the diagonal (a correct prediction) never lowers
    the score, adding one item off the diagonal (an error) never raises it.
PII class sensitivity (§3.2 and its footnote)
    Not a 'micro' metric: for some matrix, adding one correct item of class i and adding one
    correct item of class j (or one error in cell (i, j) and one in cell (k, l)) give
    different scores.
PIII class decomposability (§3.3)
    Structural (an unweighted generalised mean of per-class scores); shown as declared.
PIV prevalence invariance (§3.4)
    Prevalence scaling: rescaling gold rows (C'_ij = λ_i C_ij, λ_i > 0) leaves the score
    unchanged (the paper scales its columns; its matrices are the transpose of ours).
PV chance correction (§3.5)
    On classifiers that ignore their input, C = N p qᵀ, over data sets with k classes (every
    p_i > 0, many p from uniform to 1 − 10⁻⁷ for one class) and biases q:

    ``bounded``   (the paper's plain ✓) every chance classifier scores at most a bound ω(k)
                  that depends on k alone; the probe takes ω(k) = the largest chance score
                  found and requires it to stay below the metric's maximum (range[1] − 0.01),
                  since a 'bound' the metric reaches by chance alone bounds nothing;
    ``strict``    every chance classifier scores exactly ω(k);
    ``complete``  every chance classifier scores one constant Ω, whatever k;
    ``none``      otherwise.

    A chance classifier on which the metric is 0/0 (MCC of a constant prediction) has no
    score; it is left out and said so in the note.

The matrices are random (seeded numpy), adversarial (skewed prevalence, a near-empty class, a
class never predicted, a class absent from gold, constant predictors, near-perfect systems) and
the user's own. All probes for all metrics run as a few batched evaluations per k; a user
matrix with many classes gets few probe moves (memory grows as moves × k², kept under
:data:`ELEMENT_BUDGET`).

Where a probe and Table 5 disagree, :data:`EXPLANATIONS` says why, and the probe's witness
shows it; a disagreement without an explanation is reported as "UNEXPLAINED".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from auditor.metrics.registry import REGISTRY, ConfusionStats, Metric

PROBED = ("monotonicity", "class_sensitivity", "prevalence_invariance", "chance_correction")
PROPERTY_KEYS = ("monotonicity", "class_sensitivity", "decomposability", "prevalence_invariance", "chance_correction")
SOURCE_FILE = "opitz-2024-closer-look-classification-metrics.md"
LITERATURE_SOURCE = "Opitz 2024, §6.1 Table 5"
NOT_IN_LITERATURE = "probed, not in the literature table (Opitz 2024, §6.1 Table 5)"
K_VALUES = (2, 3, 4, 5, 6)
TOLERANCE = 1e-9
#: How close to the metric's maximum a chance score may come before no bound ω(k) is said to hold.
CHANCE_GAP = 0.01
#: Most matrix entries (moves × k²) one probe batch may hold: keeps a 1,000-class matrix at O(k²).
ELEMENT_BUDGET = 2_000_000
#: Items of a chance matrix C = N p qᵀ (real-valued counts, as Opitz §2, footnote 1 allows).
CHANCE_N = 1000.0


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


# ------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class Witness:
    """A counterexample: two matrices and their scores (``after`` None: one matrix suffices)."""

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
    #: Ω when the probe finds complete chance correction, else None.
    chance_value: float | None = None
    #: ω(k) per k: the largest score of a chance classifier found (the bound when PV holds).
    chance_bound: dict[str, float | None] = field(default_factory=dict)
    #: "1/k", "0" or another constant when ω(k) follows it at every probed k, else None.
    chance_formula: str | None = None
    #: per k: min and max over the chance classifiers, the uniform classifier on uniform gold,
    #: the majority-class classifier on skewed gold (0.5^i).
    chance_baselines: dict[str, dict[str, float | None]] = field(default_factory=dict)
    #: for a prevalence-calibrated variant: the base metric's Table 5 (✓) marks it should show.
    calibration_marks: dict[str, Any] | None = None
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

    def disagreement_records(self) -> list[dict[str, Any]]:
        """Each disagreement with Table 5: the two values, the explanation, the witness key."""
        return [{"property": key, "probed": self.probed[key], "literature": self.literature[key],
                 "section": self.literature["sections"][key],
                 "explanation": EXPLANATIONS.get((self.metric_id, key), "UNEXPLAINED — investigate."),
                 "witness": key if key in self.witnesses else None}
                for key in self.disagreements]

    def to_json(self) -> dict[str, Any]:
        document = {key: self.probed[key] for key in PROPERTY_KEYS}
        document.update({
            "chance_value": self.chance_value,
            "chance_bound": self.chance_bound,
            "chance_formula": self.chance_formula,
            "chance_baselines": self.chance_baselines,
            "declared": self.declared,
            "literature": self.literature,
            "agrees_with_literature": self.agrees_with_literature,
            "disagreements": self.disagreement_records(),
            "calibration_marks": self.calibration_marks,
            "witnesses": {key: witness.to_json() for key, witness in self.witnesses.items()},
            "note": self.note,
        })
        return document


@dataclass
class PropertyTable:
    """The property table of every probed metric (``Audit.properties``)."""

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


def _sample(rng: np.random.Generator, n: int, limit: int) -> np.ndarray:
    """All of ``range(n)`` or a seeded sorted sample of ``limit`` of them."""
    if n <= limit:
        return np.arange(n)
    return np.sort(rng.choice(n, size=limit, replace=False))


def _monotonicity_pairs(matrices: np.ndarray, rng: np.random.Generator,
                        limit: int) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """(M, M + one item in cell (i, j)) for every matrix and cell (a sample of ``limit``).

    Opitz §3.1, footnote: one more correct item must not lower the score, one more error must
    not raise it. Returns before, after, labels and a mask of the pairs that add a correct item.
    """
    k = matrices.shape[-1]
    keep = _sample(rng, len(matrices) * k * k, limit)
    b, cell = np.divmod(keep, k * k)
    i, j = np.divmod(cell, k)
    before = matrices[b]
    after = before.copy()
    after[np.arange(len(b)), i, j] += 1
    correct = i == j
    labels = [f"one correct item of class {r} added" if r == c else
              f"one error added (gold class {r} predicted as {c})" for r, c in zip(i, j)]
    return before, after, labels, correct


def _sensitivity_pairs(matrices: np.ndarray, rng: np.random.Generator,
                       limit: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(M + one item in cell a, M + one item in cell b), a and b both on the diagonal or both off it.

    Opitz §3.2, footnote: a metric is not 'micro' if adding a correct item of one class and a
    correct item of another (or an error in one cell and an error in another) can score
    differently.
    """
    k = matrices.shape[-1]
    n = min(len(matrices), max(1, limit // 4))
    chosen = _sample(rng, len(matrices), n)
    off = np.array([(r, c) for r in range(k) for c in range(k) if r != c])
    befores, afters, labels = [], [], []
    for index in chosen:
        for _ in range(2):
            r, s = rng.choice(k, size=2, replace=False)
            first, second = matrices[index].copy(), matrices[index].copy()
            first[r, r] += 1
            second[s, s] += 1
            befores.append(first), afters.append(second)
            labels.append(f"one correct item added to class {r}, or instead to class {s}")
            a, c = off[rng.choice(len(off), size=2, replace=False)]
            first, second = matrices[index].copy(), matrices[index].copy()
            first[tuple(a)] += 1
            second[tuple(c)] += 1
            befores.append(first), afters.append(second)
            labels.append(f"one error added in cell {tuple(int(x) for x in a)}, or instead in cell "
                          f"{tuple(int(x) for x in c)}")
    return np.stack(befores), np.stack(afters), labels


def _prevalence_pairs(matrices: np.ndarray, rng: np.random.Generator,
                      limit: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Each matrix with its gold rows rescaled by random factors in [1/8, 8] (prevalence scaling, §3.4)."""
    before = np.repeat(matrices[_sample(rng, len(matrices), max(1, limit // 2))], 2, axis=0)
    scale = np.exp(rng.uniform(-np.log(8), np.log(8), size=before.shape[:2]))
    after = before * scale[..., None]
    labels = ["gold rows rescaled by " + ", ".join(f"{s:.3g}" for s in row)
              + " (prevalence changed, each class's prediction distribution kept)" for row in scale]
    return before, after, labels


def _chance_vectors(k: int, rng: np.random.Generator, user: np.ndarray | None, limit: int):
    """Gold prevalences p (every class present, §3.5: data sets with k classes) and biases q."""
    uniform = np.full(k, 1 / k)
    geometric = 0.5 ** np.arange(k)
    geometric /= geometric.sum()
    dominant = np.full(k, 0.1 / (k - 1))
    dominant[0] = 0.9
    extreme = np.full(k, 1e-7)
    extreme[0] = 1 - (k - 1) * 1e-7
    ps = [uniform, geometric, dominant, extreme, geometric[::-1].copy()] + list(rng.dirichlet(np.full(k, 0.7), size=6))
    never = np.full(k, 1 / (k - 1))
    never[k - 1] = 0
    qs_extra = [uniform, np.eye(k)[k - 1], geometric, never] + list(rng.dirichlet(np.full(k, 0.5), size=5))
    if user is not None:
        stats = ConfusionStats(user)
        ps += [p for p in stats.prevalence if np.all(p > 0)]
        qs_extra += list(stats.bias)
    pairs = []
    for p_index, p in enumerate(ps):
        qs = [np.eye(k)[int(np.argmax(p))], np.eye(k)[int(np.argmin(p))], p] + qs_extra
        for q_index, q in enumerate(qs):
            pairs.append((p_index, q_index, p, q))
    return [pairs[i] for i in _sample(rng, len(pairs), limit)] if len(pairs) > limit else pairs


# --------------------------------------------------------------------------------- probe


def _evaluate(metrics: Sequence[Metric], matrices: np.ndarray, all_labels_active: bool = False) -> dict[str, np.ndarray]:
    if len(matrices) == 0 or not metrics:
        return {metric.id: np.zeros(len(matrices)) for metric in metrics}
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


def _applies(metric: Metric, k: int) -> bool:
    return metric.classes is None or metric.classes == k


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
    k_values : numbers of classes of the random and adversarial matrices (a metric defined for
        one number of classes only, ``Metric.classes``, is probed at that k).
    n_random : random matrices per k.
    """
    chosen = [metric for metric in (REGISTRY.scalar() if metrics is None else metrics) if not metric.per_class]
    rng = np.random.default_rng(seed)
    user = _user_by_k(user_matrices)
    fixed = {metric.classes for metric in chosen if metric.classes is not None}
    generated = set(k_values) | fixed
    ks = sorted(generated | set(user))
    state: dict[str, dict[str, Any]] = {
        metric.id: {"witness": {}, "failed": set(), "changed": False, "chance": {}} for metric in chosen
    }
    n_total = 0
    for k in ks:
        here = [metric for metric in chosen if _applies(metric, k)]
        if not here:
            continue
        parts = [random_matrices(rng, k, n_random), adversarial_matrices(rng, k)] if k in generated else []
        if k in user:
            parts.append(user[k])
        matrices = np.concatenate(parts)
        n_total += len(matrices)
        limit = max(4, ELEMENT_BUDGET // (k * k))
        mon_before, mon_after, mon_labels, correct = _monotonicity_pairs(matrices, rng, min(limit, 6000))
        groups = {
            "monotonicity": (mon_before, mon_after, mon_labels),
            "class_sensitivity": _sensitivity_pairs(matrices, rng, min(limit, 1200)),
            "prevalence_invariance": _prevalence_pairs(matrices, rng, min(limit, 1200)),
        }
        values_before, values_after = {}, {}
        for prop, (before, after, _) in groups.items():
            values_before[prop] = _evaluate(here, before)
            values_after[prop] = _evaluate(here, after)
        for metric in here:
            s = state[metric.id]
            for prop, (before, after, labels) in groups.items():
                x, y = values_before[prop][metric.id], values_after[prop][metric.id]
                defined = np.isfinite(x) & np.isfinite(y)
                if prop == "monotonicity":
                    slack = TOLERANCE * np.maximum(1.0, np.abs(x))
                    failed = defined & np.where(correct, y < x - slack, y > x + slack)
                    if failed.any():
                        s["failed"].add(prop)
                        _keep(s["witness"], prop, failed, before, after, labels, x, y, "the score moves")
                    undefined_after = np.isfinite(x) & ~np.isfinite(y)
                    if "mon_undefined" not in s and undefined_after.any():
                        s["mon_undefined"] = True
                else:
                    changed = defined & ~_close(x, y)
                    if changed.any():
                        if prop == "class_sensitivity":
                            s["changed"] = True
                        else:
                            s["failed"].add(prop)
                        _keep(s["witness"], prop, changed, before, after, labels, x, y, "the score differs")
        # chance classifiers C = N p qᵀ on data sets with k classes, label set fixed at k
        pairs = _chance_vectors(k, rng, user.get(k), max(4, min(400, ELEMENT_BUDGET // (k * k))))
        chance = np.stack([CHANCE_N * np.outer(p, q) for _, _, p, q in pairs])
        chance_values = _evaluate(here, chance, all_labels_active=True)
        for metric in here:
            state[metric.id]["chance"][k] = (pairs, chance, chance_values[metric.id])

    results = {metric.id: _result(metric, state[metric.id]) for metric in chosen}
    return PropertyTable(results, seed, tuple(ks), n_total, sum(len(v) for v in user.values()))


def _keep(witnesses, prop, mask, before, after, labels, x, y, verb):
    if prop in witnesses:
        old = witnesses[prop]
        if old.before.sum() <= before[mask].sum(axis=(1, 2)).min():
            return
    index = _smallest(mask, before)
    witnesses[prop] = Witness(f"{labels[index]}: {verb} from {x[index]:.6g} to {y[index]:.6g}",
                              before[index], after[index], float(x[index]), float(y[index]))


def _describe_chance(k: int, pair: tuple, value: float) -> str:
    return f"k={k}, p={_vec(pair[2])}, q={_vec(pair[3])}: {value:.6g}"


def _classify_chance(metric: Metric, chance: dict[int, tuple]) -> dict[str, Any]:
    """PV level, ω(k), Ω, baselines and the witness of the level not reached (Opitz §3.5)."""
    maximum = metric.range[1]
    baselines: dict[str, dict[str, float | None]] = {}
    bound: dict[str, float | None] = {}
    bounded, strict, any_undefined = True, True, False
    witness: Witness | None = None
    strict_witness: Witness | None = None
    extremes: list[tuple[int, int, float]] = []
    for k, (pairs, matrices, values) in sorted(chance.items()):
        finite = np.isfinite(values)
        any_undefined |= bool((~finite).any())
        uniform_index = _uniform_index(pairs)
        majority_index = next((i for i, (pi, qi, _, _) in enumerate(pairs) if pi == 1 and qi == 0), None)
        defined = values[finite]
        baselines[str(k)] = {
            "min": float(defined.min()) if defined.size else None,
            "max": float(defined.max()) if defined.size else None,
            "uniform_predictor": _finite(values[uniform_index]),
            "majority_class_predictor_on_skewed_gold": None if majority_index is None else _finite(values[majority_index]),
        }
        if not defined.size:
            bound[str(k)] = None
            continue
        top, low = int(np.flatnonzero(finite)[np.argmax(defined)]), int(np.flatnonzero(finite)[np.argmin(defined)])
        bound[str(k)] = float(values[top])
        extremes.append((k, top, float(values[top])))
        if values[top] > maximum - CHANCE_GAP and bounded:
            bounded = False
            witness = Witness(
                f"a classifier that ignores its input ({_describe_chance(k, pairs[top], values[top])}) comes within "
                f"{CHANCE_GAP} of the metric's maximum {maximum:g}: no bound ω(k) below the maximum holds for every "
                f"data set with k classes (Opitz §3.5)", matrices[top], None, float(values[top]), None)
        if not _close(values[top], values[low]) and strict:
            strict = False
            on_uniform = np.flatnonzero(finite & np.array([pi == 0 for pi, _, _, _ in pairs]))
            if on_uniform.size and not _close(values[on_uniform].max(), values[on_uniform].min()):
                # a clearer witness: two chance classifiers on the same uniform gold
                low = int(on_uniform[np.argmin(values[on_uniform])])
                top = int(on_uniform[np.argmax(values[on_uniform])])
            strict_witness = Witness(
                f"two classifiers that ignore their input score differently, {_describe_chance(k, pairs[low], values[low])} "
                f"and {_describe_chance(k, pairs[top], values[top])}: PV holds at most as a bound, not strictly "
                f"(Opitz §3.5)", matrices[low], matrices[top], float(values[low]), float(values[top]))
    result: dict[str, Any] = {"baselines": baselines, "bound": bound, "chance_value": None, "formula": None,
                              "witness": None, "notes": []}
    if any_undefined:
        result["notes"].append("PV: the metric is 0/0 on some classifiers that ignore their input "
                               f"({metric.undefined_when or 'undefined'}); they have no score and are left out.")
    if not extremes:
        result["level"] = "none"
        return result
    omegas = np.round(np.array([value for _, _, value in extremes]), 9) + 0.0  # + 0.0: no "-0"
    ks = np.array([k for k, _, _ in extremes])
    if np.allclose(omegas, 1 / ks, rtol=0, atol=1e-9):
        result["formula"] = "1/k"
    elif np.ptp(omegas) <= TOLERANCE:
        result["formula"] = f"{omegas[0]:g}"
    result["bound"] = {str(k): float(v) for k, v in zip(ks, omegas)}
    if not bounded:
        result["level"], result["witness"] = "none", witness
    elif not strict:
        result["level"], result["witness"] = "bounded", strict_witness
    elif len(omegas) == 1:
        result["level"] = "strict"
        result["notes"].append(f"PV: probed at k = {ks[0]} only, so complete (one Ω for every k) cannot be told "
                               "from strict.")
    elif np.ptp(omegas) <= TOLERANCE:
        result["level"], result["chance_value"] = "complete", float(omegas[0])
    else:
        result["level"] = "strict"
        first, last = sorted(chance)[:2]
        (i1, i2) = (_uniform_index(chance[first][0]), _uniform_index(chance[last][0]))
        v1, v2 = float(chance[first][2][i1]), float(chance[last][2][i2])
        result["witness"] = Witness(
            f"every classifier that ignores its input scores {v1:.6g} at k={first} and {v2:.6g} at k={last} (shown: the "
            f"uniform classifier on uniform gold): the chance score depends on the number of classes, so PV is strict, "
            f"not complete (Opitz §3.5)", chance[first][1][i1], chance[last][1][i2], v1, v2)
    return result


def _uniform_index(pairs: list) -> int:
    """The pair (uniform p, uniform q) of :func:`_chance_vectors`, or the first pair if sampled away."""
    return next((i for i, (pi, qi, _, _) in enumerate(pairs) if pi == 0 and qi == 3), 0)


def _calibration_marks(metric: Metric, probed: dict[str, Any]) -> dict[str, Any] | None:
    """For ``X_calibrated``: the properties Table 5 marks (✓) for X, and whether the probe shows them."""
    if metric.family != "calibrated" or not metric.id.endswith("_calibrated"):
        return None
    base = metric.id[: -len("_calibrated")]
    row = LITERATURE.get(base)
    if row is None:
        return None
    marks = {key: probed[key] not in (False, "none") for key in row["by_calibration"]}
    return {"base": base, "row": row["row"], "by_calibration": row["by_calibration"], "shown_by_probe": marks,
            "source": row["source"]}


def _result(metric: Metric, s: dict[str, Any]) -> PropertyResult:
    witnesses: dict[str, Witness] = dict(s["witness"])
    chance = _classify_chance(metric, s["chance"])
    if chance["witness"] is not None:
        witnesses["chance_correction"] = chance["witness"]
    probed = {
        "monotonicity": "monotonicity" not in s["failed"],
        "class_sensitivity": bool(s["changed"]),
        "decomposability": metric.properties.decomposability,
        "prevalence_invariance": "prevalence_invariance" not in s["failed"],
        "chance_correction": chance["level"],
    }
    declared = {key: getattr(metric.properties, key) for key in PROPERTY_KEYS}
    declared["source"] = metric.properties.source
    literature = LITERATURE.get(metric.id)
    result = PropertyResult(metric.id, metric.name, probed, declared, literature, witnesses,
                            chance["chance_value"], chance["bound"], chance["formula"], chance["baselines"],
                            _calibration_marks(metric, probed), list(chance["notes"]))
    if literature is None:
        result.notes.insert(0, NOT_IN_LITERATURE + ".")
    if metric.id in CONTEXT:
        result.notes.append(CONTEXT[metric.id])
    if s.get("mon_undefined") and probed["monotonicity"]:
        result.notes.append("PI: one more item never moved a defined score the wrong way; it can make the score "
                            "undefined (0/0), which the probe does not count.")
    for record in result.disagreement_records():
        result.notes.append(f"Disagrees with {LITERATURE_SOURCE} on {record['property']} (probe: {record['probed']}, "
                            f"table: {record['literature']}, {record['section']}): {record['explanation']}")
    marks = result.calibration_marks
    if marks is not None:
        missing = [key for key, shown in marks["shown_by_probe"].items() if not shown]
        result.notes.append(
            f"Table 5 marks (✓) for {marks['row']}, obtained through prevalence calibration: "
            f"{', '.join(marks['by_calibration']) or 'none'}"
            + (f"; the probe does not show {', '.join(missing)}." if missing else "; the probe shows them all."))
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
