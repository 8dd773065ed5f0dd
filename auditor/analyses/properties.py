"""Metric properties by probing: PI, PII, PIV and PV tested on confusion matrices.

Stage "analyse" of the pipeline. The five properties of Opitz (2024, §3) are *declared* in every
:class:`~auditor.metrics.registry.Metric` record, *printed* in the paper's Table 5 (§6.1;
:data:`auditor.metrics.literature.LITERATURE`, cell by cell) and *probed* here for any registered scalar metric (a
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

The matrices (:mod:`auditor.analyses.probe_matrices`) are random, adversarial and the user's own, probed
in a few batched evaluations per k (memory moves × k², kept under :data:`ELEMENT_BUDGET`).

Where a probe and Table 5 disagree, :data:`~auditor.metrics.literature.EXPLANATIONS` says why, and the probe's witness
shows it; a disagreement without an explanation is reported as "UNEXPLAINED".
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from auditor.analyses import probe_matrices as synthetic
from auditor.analyses.probe_matrices import Batch, ChanceClassifier, Pairs, score_text
from auditor.formatting import nan_to_none
from auditor.io.counts import Counts
from auditor.metrics.literature import CONTEXT, EXPLANATIONS, LITERATURE, LITERATURE_SOURCE, NOT_IN_LITERATURE
from auditor.metrics.registry import ConfusionStats, Metric, Properties

PROBED = ("monotonicity", "class_sensitivity", "prevalence_invariance", "chance_correction")
PROPERTY_KEYS = ("monotonicity", "class_sensitivity", "decomposability", "prevalence_invariance", "chance_correction")
K_VALUES = (2, 3, 4, 5, 6)
TOLERANCE = 1e-9
#: How close to the metric's maximum a chance score may come before no bound ω(k) is said to hold.
CHANCE_GAP = 0.01
#: Most matrix entries (moves × k²) one probe batch may hold: keeps a 1,000-class matrix at O(k²).
ELEMENT_BUDGET = 2_000_000
#: Random matrices per k.
N_RANDOM = 100


# ------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class Witness:
    """A counterexample: two matrices and their scores (``after`` None: one matrix suffices).

    ``system`` names the audited system when ``before`` is that system's own confusion matrix.
    """

    description: str
    before: np.ndarray
    after: np.ndarray | None
    score_before: float | None
    score_after: float | None
    system: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "before": _count_matrix_json(self.before),
            "after": None if self.after is None else _count_matrix_json(self.after),
            "score_before": nan_to_none(self.score_before),
            "score_after": nan_to_none(self.score_after),
        }


@dataclass(frozen=True)
class Disagreement:
    """A probed property that differs from Table 5: both values, the section, why, the witness key."""

    property: str
    probed: bool | str
    literature: bool | str
    section: str
    explanation: str
    witness: str | None


@dataclass(frozen=True)
class CalibrationMarks:
    """For ``X_calibrated``: the properties Table 5 marks (✓) for X (obtained through prevalence
    calibration, §5.2) and whether the probe of the variant shows each of them."""

    base: str
    row: str
    by_calibration: tuple[str, ...]
    shown_by_probe: Mapping[str, bool]
    source: str


@dataclass(frozen=True)
class ChanceBaseline:
    """Chance scores at one k: min and max over the probed chance classifiers, the uniform
    classifier on uniform gold, the majority-class classifier on skewed gold (p_i ∝ 0.5^i);
    None where undefined (0/0) or where no probed chance classifier has a score."""

    min: float | None
    max: float | None
    uniform_predictor: float | None
    majority_class_predictor_on_skewed_gold: float | None


@dataclass(frozen=True)
class PropertyResult:
    """Probed properties of one metric, with its declaration, the literature and witnesses."""

    metric_id: str
    name: str
    #: property key (:data:`PROPERTY_KEYS`) -> probed value (PIII: the declared one, structural).
    probed: Mapping[str, bool | str]
    #: the metric record's own declaration.
    declared: Properties
    #: the metric's row of Table 5 (:data:`LITERATURE`), or None when the table is silent on it.
    literature: Mapping[str, Any] | None
    witnesses: Mapping[str, Witness]
    #: Ω when the probe finds complete chance correction, else None.
    chance_value: float | None
    #: ω(k) per k: the largest score of a chance classifier found (the bound when PV holds).
    chance_bound: Mapping[str, float | None]
    #: "1/k", "0" or another constant when ω(k) follows it at every probed k, else None.
    chance_formula: str | None
    chance_baselines: Mapping[str, ChanceBaseline]
    calibration_marks: CalibrationMarks | None
    notes: tuple[str, ...]
    #: The probed properties that differ from the metric record's own declaration.
    declared_differs: tuple[str, ...] = ()

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
    def note(self) -> str | None:
        return " ".join(self.notes) if self.notes else None

    def disagreement_records(self) -> tuple[Disagreement, ...]:
        """Each disagreement with Table 5: the two values, the explanation, the witness key."""
        return tuple(_disagreements(self.metric_id, self.probed, self.literature, self.witnesses))

    def to_json(self) -> dict[str, Any]:
        """The probed properties (docs/architecture.md, "Metric properties"), the chance scores found, the
        declaration, Table 5's row, the disagreements and the witnesses."""
        marks = self.calibration_marks
        return {
            **{key: self.probed[key] for key in PROPERTY_KEYS},
            "chance_value": self.chance_value,
            "chance_bound": dict(self.chance_bound),
            "chance_formula": self.chance_formula,
            "chance_baselines": {k: vars(b).copy() for k, b in self.chance_baselines.items()},
            "declared": {**{key: getattr(self.declared, key) for key in PROPERTY_KEYS},
                         "source": self.declared.source},
            "literature": None if self.literature is None else dict(self.literature),
            "agrees_with_literature": self.agrees_with_literature,
            "disagreements": [vars(d).copy() for d in self.disagreement_records()],
            "calibration_marks": None if marks is None else {
                "base": marks.base, "row": marks.row, "by_calibration": list(marks.by_calibration),
                "shown_by_probe": dict(marks.shown_by_probe), "source": marks.source},
            "witnesses": {key: witness.to_json() for key, witness in self.witnesses.items()},
            "note": self.note,
        }


@dataclass(frozen=True)
class PropertyTable:
    """The property table of every probed metric (``Audit.properties``)."""

    results: Mapping[str, PropertyResult]
    seed: int
    k_values: tuple[int, ...]
    n_matrices: int
    n_user_matrices: int

    def __getitem__(self, metric_id: str) -> PropertyResult:
        return self.results[metric_id]

    def __iter__(self) -> Iterator[PropertyResult]:
        return iter(self.results.values())

    def to_json(self) -> dict[str, Any]:
        """``properties``: per metric its :meth:`PropertyResult.to_json`."""
        return {"properties": {entry.metric_id: entry.to_json() for entry in self}}


def _count_matrix_json(matrix: np.ndarray) -> list[list[float]]:
    """Whole counts as integers, fractional ones (re-weighted, chance matrices) to 6 decimals."""
    matrix = np.asarray(matrix)
    if matrix.dtype.kind in "iu":
        return matrix.tolist()
    if np.isfinite(matrix).all() and (matrix == np.round(matrix)).all() and (
            matrix.size == 0 or np.abs(matrix).max() < 2.0**62):
        return matrix.astype(np.int64).tolist()  # all whole: one vectorised pass (k = 1,000 is 10^6 cells)
    return [[int(x) if float(x).is_integer() else round(float(x), 6) for x in row] for row in matrix]


def _disagreements(metric_id: str, probed: Mapping[str, Any], literature: Mapping[str, Any] | None,
                   witnesses: Mapping[str, Witness]) -> list[Disagreement]:
    if literature is None:
        return []
    return [Disagreement(key, probed[key], literature[key], literature["sections"][key],
                         EXPLANATIONS.get((metric_id, key), "UNEXPLAINED — investigate."),
                         key if key in witnesses else None)
            for key in PROBED if probed[key] != literature[key]]


# --------------------------------------------------------------------------------- probe


def _evaluate(metrics: Sequence[Metric], matrices: np.ndarray,
              all_labels_active: bool = False) -> dict[str, np.ndarray]:
    """Every metric on every matrix, in chunks of at most :data:`ELEMENT_BUDGET` matrix entries."""
    if len(matrices) == 0 or not metrics:
        return {metric.id: np.zeros(len(matrices)) for metric in metrics}
    step = max(1, ELEMENT_BUDGET // int(np.prod(matrices.shape[1:])))
    parts: dict[str, list[np.ndarray]] = {metric.id: [] for metric in metrics}
    for start in range(0, len(matrices), step):
        stats = ConfusionStats(matrices[start:start + step], all_labels_active)
        with np.errstate(all="ignore"):
            for metric in metrics:
                parts[metric.id].append(np.asarray(metric.function(stats), dtype=float))
    return {metric_id: np.concatenate(values) for metric_id, values in parts.items()}


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b) <= TOLERANCE * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))


def _applies(metric: Metric, k: int) -> bool:
    return metric.classes is None or metric.classes == k


@dataclass(frozen=True)
class ProbeOutcome:
    """One probe of one metric over one set of pairs: whether a pair showed the effect (a failure
    for PI and PIV, a difference for PII), the smallest such pair as the witness, and (PI) whether
    one more item turned a defined score into 0/0."""

    shown: bool
    witness: Witness | None = None
    undefined_after: bool = False


def _every_class(matrices: np.ndarray) -> np.ndarray:
    """Whether every class occurs in gold (every row sum > 0) and every count is whole, per matrix."""
    return (matrices.sum(axis=-1) > 0).all(axis=-1) & (matrices == np.round(matrices)).all(axis=(-2, -1))


def _witness(batch: Batch, pairs: Pairs, mask: np.ndarray, x: np.ndarray, y: np.ndarray, verb: str) -> Witness:
    """The witness among the pairs in ``mask``: one whose matrices have every class in gold and whole
    counts where there is one (a reader's data set has every class), then the smallest (fewest items)."""
    candidates = np.flatnonzero(mask)
    complete = batch.complete[pairs.before[candidates]] & batch.complete[pairs.after[candidates]]
    order = np.lexsort((batch.sizes[pairs.before[candidates]], ~complete))
    index = int(candidates[order[0]])
    row = int(pairs.before[index])
    return Witness(f"{pairs.describe(index)}: {verb} from {x[index]:.6g} to {y[index]:.6g}", batch.matrices[row],
                   batch.matrices[int(pairs.after[index])], float(x[index]), float(y[index]), batch.systems[row])


def probe_monotonicity(metric_id: str, batch: Batch, pairs: Pairs) -> ProbeOutcome:
    """PI (Opitz §3.1 and its footnote): one more correct item never lowers the score, one more
    error never raises it (within :data:`TOLERANCE`); pairs where the score turns 0/0 do not count."""
    x, y = batch.values[metric_id][pairs.before], batch.values[metric_id][pairs.after]
    defined = np.isfinite(x) & np.isfinite(y)
    slack = TOLERANCE * np.maximum(1.0, np.abs(x))
    failed = defined & np.where(pairs.correct, y < x - slack, y > x + slack)
    witness = _witness(batch, pairs, failed, x, y, "the score moves") if failed.any() else None
    return ProbeOutcome(bool(failed.any()), witness, bool((np.isfinite(x) & ~np.isfinite(y)).any()))


def probe_class_sensitivity(metric_id: str, batch: Batch, pairs: Pairs) -> ProbeOutcome:
    """PII (Opitz §3.2 and its footnote): shown when one item added in one cell, or instead in
    another cell of its kind (both on the diagonal or both off it), gives a different score."""
    return _differs(metric_id, batch, pairs)


def probe_prevalence_invariance(metric_id: str, batch: Batch, pairs: Pairs) -> ProbeOutcome:
    """PIV (Opitz §3.4): fails when rescaling the gold rows changes the score."""
    return _differs(metric_id, batch, pairs)


def _differs(metric_id: str, batch: Batch, pairs: Pairs) -> ProbeOutcome:
    x, y = batch.values[metric_id][pairs.before], batch.values[metric_id][pairs.after]
    changed = np.isfinite(x) & np.isfinite(y) & ~_close(x, y)
    return ProbeOutcome(bool(changed.any()), _witness(batch, pairs, changed, x, y, "the score differs")
                        if changed.any() else None)


def _combine(outcomes: Sequence[ProbeOutcome]) -> tuple[ProbeOutcome, int]:
    """One probe's outcomes over every k: shown at any k; the smallest witness (the first on
    ties); and the position of the first k with a witness (witnesses are listed in that order)."""
    witness: Witness | None = None
    first = len(outcomes)
    def key(w: Witness) -> tuple[bool, int, float]:  # every class present, then fewest classes, then items
        every = bool(_every_class(w.before)) and (w.after is None or bool(_every_class(w.after)))
        return (not every, w.before.shape[-1], float(w.before.sum()))

    for position, outcome in enumerate(outcomes):
        if outcome.witness is not None and (witness is None or key(outcome.witness) < key(witness)):
            witness = outcome.witness
            first = min(first, position)
    return ProbeOutcome(any(o.shown for o in outcomes), witness, any(o.undefined_after for o in outcomes)), first


@dataclass(frozen=True)
class ChanceBatch:
    """The chance classifiers probed at one k with every metric's scores, and the scores of the
    two reference classifiers (uniform on uniform gold, majority class on skewed gold)."""

    k: int
    classifiers: tuple[ChanceClassifier, ...]
    matrices: np.ndarray
    values: Mapping[str, np.ndarray]
    uniform: Mapping[str, float]
    majority: Mapping[str, float]


@dataclass(frozen=True)
class ChanceCorrection:
    """PV as probed: the level, Ω (complete only), ω(k) per k, its formula, the baselines per k,
    the witness of the level not reached, notes."""

    level: str
    chance_value: float | None
    bound: Mapping[str, float | None]
    formula: str | None
    baselines: Mapping[str, ChanceBaseline]
    witness: Witness | None
    notes: tuple[str, ...]


def _unbounded_witness(batch: ChanceBatch, values: np.ndarray, top: int, metric: Metric) -> Witness:
    """PV not bounded: the chance classifier ``top`` comes within :data:`CHANCE_GAP` of the maximum
    (shown in whole counts when those still come that close)."""
    matrix, value = batch.matrices[top], float(values[top])
    shown = batch.classifiers[top].describe(batch.k, values[top])
    whole = synthetic.whole_counts(matrix, batch.classifiers[top].q,
                                   lambda m: float(metric.function(ConfusionStats(m[None], True))[0]))
    if whole is not None and whole[1] > metric.range[1] - CHANCE_GAP:
        matrix, value, shown = whole
    return Witness(
        f"a classifier that ignores its input ({shown}) comes within {score_text(CHANCE_GAP)} of the metric's maximum "
        f"{score_text(metric.range[1])}: no bound ω(k) below the maximum holds for every data set with "
        "k classes (Opitz §3.5)", matrix, None, value, None)


def _not_strict_witness(batch: ChanceBatch, values: np.ndarray, finite: np.ndarray, low: int, top: int) -> Witness:
    """PV not strict: two chance classifiers at one k scoring differently (two on uniform gold where they differ)."""
    k, classifiers = batch.k, batch.classifiers
    on_uniform = np.flatnonzero(finite & np.array([c.gold == "uniform" for c in classifiers]))
    if on_uniform.size and not _close(values[on_uniform].max(), values[on_uniform].min()):
        # a clearer witness: two chance classifiers on the same uniform gold
        low = int(on_uniform[np.argmin(values[on_uniform])])
        top = int(on_uniform[np.argmax(values[on_uniform])])
    return Witness(
        f"two classifiers that ignore their input score differently, "
        f"{classifiers[low].describe(k, values[low])} and {classifiers[top].describe(k, values[top])}: PV "
        f"holds at most as a bound, not strictly (Opitz §3.5)", batch.matrices[low], batch.matrices[top],
        float(values[low]), float(values[top]))


def probe_chance_correction(metric: Metric, batches: Sequence[ChanceBatch]) -> ChanceCorrection:
    """PV (Opitz §3.5): none, bounded, strict or complete, on classifiers C = N p qᵀ."""
    maximum = metric.range[1]
    baselines: dict[str, ChanceBaseline] = {}
    bound: dict[str, float | None] = {}
    bounded, strict, any_undefined = True, True, False
    witness: Witness | None = None
    strict_witness: Witness | None = None
    extremes: list[tuple[int, float]] = []
    for batch in batches:
        k, values = batch.k, batch.values[metric.id]
        finite = np.isfinite(values)
        any_undefined |= bool((~finite).any())
        defined = values[finite]
        baselines[str(k)] = ChanceBaseline(
            float(defined.min()) if defined.size else None, float(defined.max()) if defined.size else None,
            nan_to_none(batch.uniform[metric.id]), nan_to_none(batch.majority[metric.id]))
        if not defined.size:
            bound[str(k)] = None
            continue
        top, low = int(np.flatnonzero(finite)[np.argmax(defined)]), int(np.flatnonzero(finite)[np.argmin(defined)])
        bound[str(k)] = float(values[top])
        extremes.append((k, float(values[top])))
        if values[top] > maximum - CHANCE_GAP and bounded:
            bounded = False
            witness = _unbounded_witness(batch, values, top, metric)
        if not _close(values[top], values[low]) and strict:
            strict = False
            strict_witness = _not_strict_witness(batch, values, finite, low, top)
    notes = ()
    if any_undefined:
        notes = ("PV: the metric is 0/0 on some classifiers that ignore their input "
                 f"({metric.undefined_when or 'undefined'}); they have no score and are left out.",)
    if not extremes:
        return ChanceCorrection("none", None, bound, None, baselines, None, notes)
    omegas = np.round(np.array([value for _, value in extremes]), 9) + 0.0  # + 0.0: no "-0"
    ks = np.array([k for k, _ in extremes])
    formula = None
    if np.allclose(omegas, 1 / ks, rtol=0, atol=1e-9):
        formula = "1/k"
    elif np.ptp(omegas) <= TOLERANCE:
        formula = f"{omegas[0]:g}"
    bound = {str(k): float(v) for k, v in zip(ks, omegas)}
    if not bounded:
        return ChanceCorrection("none", None, bound, formula, baselines, witness, notes)
    if not strict:
        return ChanceCorrection("bounded", None, bound, formula, baselines, strict_witness, notes)
    if len(omegas) == 1:
        return ChanceCorrection("strict", None, bound, formula, baselines, None, notes + (
            f"PV: probed at k = {ks[0]} only, so complete (one Ω for every k) cannot be told from strict.",))
    if np.ptp(omegas) <= TOLERANCE:
        return ChanceCorrection("complete", float(omegas[0]), bound, formula, baselines, None, notes)
    first, second = batches[0], batches[1]
    v1, v2 = float(first.uniform[metric.id]), float(second.uniform[metric.id])
    return ChanceCorrection("strict", None, bound, formula, baselines, Witness(
        f"every classifier that ignores its input scores {score_text(v1)} at k={first.k} and {score_text(v2)} at "
        f"k={second.k} (shown: "
        f"the uniform classifier on uniform gold): the chance score depends on the number of classes, so PV is "
        f"strict, not complete (Opitz §3.5)", synthetic.uniform_classifier(first.k).matrix,
        synthetic.uniform_classifier(second.k).matrix, v1, v2), notes)


def analyse(counts: Counts, metrics: Sequence[Metric], seed: int) -> PropertyTable:
    """The property table of the audit: :func:`property_analysis` of every scalar metric, the systems'
    own confusion matrices probed alongside the random and adversarial ones."""
    return property_analysis(metrics, counts.confusion, counts.systems, seed=seed)


def property_analysis(metrics: Sequence[Metric], confusion: np.ndarray, systems: Sequence[str], *, seed: int,
                      k_values: Sequence[int] = K_VALUES, n_random: int = N_RANDOM) -> PropertyTable:
    """Probe PI, PII, PIV and PV of every scalar metric on random, adversarial and the systems' matrices.

    Parameters
    ----------
    metrics : the metrics to probe (per-class metrics are skipped); plugins and variants included.
    confusion : the systems' confusion matrices ``C[s, i, j]`` (S, k, k), probed alongside the others.
    systems : their names, in the same order (a witness found on a system's own matrix names it).
    seed : seed of the random matrices (numpy ``default_rng``); the audit's ``--seed``.
    k_values : numbers of classes of the random and adversarial matrices (a metric defined for
        one number of classes only, ``Metric.classes``, is probed at that k).
    n_random : random matrices per k.
    """
    chosen = [metric for metric in metrics if not metric.per_class and metric.higher_is_better]  # probes: higher=better
    rng = np.random.default_rng(seed)
    user = synthetic.user_by_k(confusion, systems)
    fixed = {metric.classes for metric in chosen if metric.classes is not None}
    generated = set(k_values) | fixed
    ks = sorted(generated | set(user))
    outcomes: dict[str, dict[str, list[ProbeOutcome]]] = {
        metric.id: {"monotonicity": [], "class_sensitivity": [], "prevalence_invariance": []} for metric in chosen}
    chance: dict[str, list[ChanceBatch]] = {metric.id: [] for metric in chosen}
    n_total = 0
    for k in ks:
        here = [metric for metric in chosen if _applies(metric, k)]
        if not here:
            continue
        parts = ([synthetic.random_matrices(rng, k, n_random), synthetic.adversarial_matrices(rng, k)]
                 if k in generated else [])
        own_matrices, own_names = user.get(k, (np.zeros((0, k, k)), ()))
        matrices = np.concatenate(parts + [own_matrices])
        names = (None,) * (len(matrices) - len(own_names)) + own_names
        n_total += len(matrices)
        batch, monotonicity, sensitivity, prevalence = _probe_batch(here, matrices, names, rng)
        for metric in here:
            found = outcomes[metric.id]
            found["monotonicity"].append(probe_monotonicity(metric.id, batch, monotonicity))
            found["class_sensitivity"].append(probe_class_sensitivity(metric.id, batch, sensitivity))
            found["prevalence_invariance"].append(probe_prevalence_invariance(metric.id, batch, prevalence))
        for metric_id, chance_batch in _chance_batches(here, k, rng, own_matrices).items():
            chance[metric_id].append(chance_batch)
    results = {}
    for metric in chosen:
        combined = {prop: _combine(found) for prop, found in outcomes[metric.id].items()}
        order = sorted(combined, key=lambda prop: combined[prop][1])  # stable: PI, PII, PIV within one k
        results[metric.id] = _result(metric, {prop: combined[prop][0] for prop in order},
                                     probe_chance_correction(metric, chance[metric.id]))
    return PropertyTable(MappingProxyType(results), seed, tuple(ks), n_total,
                         sum(len(matrices) for matrices, _ in user.values()))


def _probe_batch(metrics: Sequence[Metric], matrices: np.ndarray, names: tuple[str | None, ...],
                 rng: np.random.Generator) -> tuple[Batch, Pairs, Pairs, Pairs]:
    """The PI, PII and PIV moves of ``matrices`` (k×k) and one evaluated batch holding the matrices
    themselves, then every changed matrix; the three :class:`Pairs` index into it."""
    k = matrices.shape[-1]
    limit = max(4, ELEMENT_BUDGET // (k * k))
    mon_source, mon_after, correct, mon_text = synthetic.monotonicity_moves(matrices, rng, min(limit, 6000))
    sens_before, sens_after, sens_text = synthetic.sensitivity_moves(matrices, rng, min(limit, 1200))
    prev_source, prev_after, prev_text = synthetic.prevalence_moves(matrices, rng, min(limit, 1200))
    stack = np.concatenate([matrices, mon_after, sens_before, sens_after, prev_after])
    offsets = np.cumsum([0, len(matrices), len(mon_after), len(sens_before), len(sens_after)])
    batch = Batch(stack, stack.sum(axis=(1, 2)), names + (None,) * (len(stack) - len(matrices)),
                  _evaluate(metrics, stack), _every_class(stack))
    monotonicity = Pairs(mon_source, offsets[1] + np.arange(len(mon_after)), mon_text, correct)
    sensitivity = Pairs(offsets[2] + np.arange(len(sens_before)), offsets[3] + np.arange(len(sens_after)), sens_text)
    prevalence = Pairs(prev_source, offsets[4] + np.arange(len(prev_after)), prev_text)
    return batch, monotonicity, sensitivity, prevalence


def _chance_batches(metrics: Sequence[Metric], k: int, rng: np.random.Generator,
                    own_matrices: np.ndarray) -> dict[str, ChanceBatch]:
    """Every metric on the chance classifiers C = N p qᵀ on data sets with k classes (label set fixed
    at k) and on the two reference classifiers, one :class:`ChanceBatch` per metric id."""
    classifiers = synthetic.chance_classifiers(k, rng, own_matrices if len(own_matrices) else None,
                                     max(4, min(400, ELEMENT_BUDGET // (k * k))))
    references = (synthetic.uniform_classifier(k), synthetic.majority_classifier(k))
    chance_matrices = np.stack([c.matrix for c in classifiers + references])
    values = _evaluate(metrics, chance_matrices, all_labels_active=True)
    return {metric.id: ChanceBatch(k, classifiers, chance_matrices[:-2], {metric.id: values[metric.id][:-2]},
                                   {metric.id: float(values[metric.id][-2])},
                                   {metric.id: float(values[metric.id][-1])}) for metric in metrics}


def _calibration_marks(metric: Metric, probed: Mapping[str, Any]) -> CalibrationMarks | None:
    """For ``X_calibrated``: the properties Table 5 marks (✓) for X, and whether the probe shows them."""
    if metric.family != "calibrated" or metric.base is None:
        return None
    base = metric.base
    row = LITERATURE.get(base)
    if row is None:
        return None
    marks = {key: probed[key] not in (False, "none") for key in row["by_calibration"] if key in PROBED}
    return CalibrationMarks(base, row["row"], tuple(row["by_calibration"]), MappingProxyType(marks), row["source"])


def _result(metric: Metric, found: Mapping[str, ProbeOutcome], chance: ChanceCorrection) -> PropertyResult:
    witnesses = {prop: outcome.witness for prop, outcome in found.items() if outcome.witness is not None}
    if chance.witness is not None:
        witnesses["chance_correction"] = chance.witness
    probed = MappingProxyType({
        "monotonicity": not found["monotonicity"].shown,
        "class_sensitivity": found["class_sensitivity"].shown,
        "decomposability": metric.properties.decomposability,
        "prevalence_invariance": not found["prevalence_invariance"].shown,
        "chance_correction": chance.level,
    })
    declared = metric.properties
    literature = LITERATURE.get(metric.id)
    marks = _calibration_marks(metric, probed)
    notes = ([NOT_IN_LITERATURE + "."] if literature is None else []) + list(chance.notes)
    if metric.id in CONTEXT:
        notes.append(CONTEXT[metric.id])
    if found["monotonicity"].undefined_after and probed["monotonicity"]:
        notes.append("PI: one more item never moved a defined score the wrong way; it can make the score "
                     "undefined (0/0), which the probe does not count.")
    for record in _disagreements(metric.id, probed, literature, witnesses):
        notes.append(f"Disagrees with {LITERATURE_SOURCE} on {record.property} (probe: {record.probed}, "
                     f"table: {record.literature}, {record.section}): {record.explanation}")
    if marks is not None:
        missing = [key for key, shown in marks.shown_by_probe.items() if not shown]
        declared_only = [key for key in marks.by_calibration if key not in PROBED]
        notes.append(
            f"Table 5 marks (✓) for {marks.row}, obtained through prevalence calibration: "
            f"{', '.join(marks.by_calibration) or 'none'}"
            + (f"; the probe does not show {', '.join(missing)}" if missing else
               f"; the probe shows {', '.join(marks.shown_by_probe)}" if marks.shown_by_probe else "")
            + (f"; {', '.join(declared_only)} is declared, not probed (structural)" if declared_only else "") + ".")
    differing = [key for key in PROBED if probed[key] != getattr(declared, key)]
    if differing:
        notes.append("Probe differs from the declared " + ", ".join(
            f"{key} ({getattr(declared, key)} declared, {probed[key]} probed)" for key in differing) + ".")
    return PropertyResult(metric.id, metric.name, probed, declared, literature, MappingProxyType(witnesses),
                          chance.chance_value, MappingProxyType(chance.bound), chance.formula,
                          MappingProxyType(chance.baselines), marks, tuple(notes), tuple(differing))
