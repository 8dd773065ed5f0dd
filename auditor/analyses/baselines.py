"""Chance baselines: what every metric scores for predictors that ignore their input.

Stage "analyse" (read -> align -> count -> score -> **analyse** -> record -> build -> render).
Reads only the counts. For a test set with gold support ``row`` (prevalence p = row/N,
k labels) it considers

``uniform``
    random labels, q_j = 1/k over the gold classes (over every label when the label set
    was fixed with ``--labels``);
``prevalence``
    random labels drawn with the gold prevalence, q = p;
``majority``
    always the most frequent gold class (first in label order on ties), q = one-hot;
``shuffle`` (one per system)
    the system's own predictions permuted over the items: a predictor with exactly the
    system's bias but no information. Its confusion matrix has row sums = gold support and
    column sums = the system's predicted counts.

For each baseline and every scalar metric: the **expected value** f(E[C]), E[C]_ij = row_i q_j
(row_i col_j / N for the shuffle), flagged ``exact`` when it equals E[f(C)], and the **Monte Carlo
distribution** of R draws at this N (mean, standard error, α/2 and 1 − α/2 quantiles). Per system:
the margin over the strongest baseline and the one-sided permutation p-value against its own
shuffle, p = (1 + #{shuffle score ≥ observed}) / (R + 1) (exact where settled, below).

Sampling is on counts, never on items (:mod:`auditor.analyses.sampling`: multinomial rows for a
random predictor, multivariate hypergeometric rows for a shuffle; item by item, as non-zero cells,
when k² > 4N), made and scored in chunks of at most :data:`CHUNK_ELEMENTS` numbers; the systems'
shuffles on worker threads (each system has its own stream, so the draws do not depend on them).

The audit (:func:`analyse`) takes R = :data:`~auditor.options.CHANCE_DRAWS` draws per baseline, however many
systems there are, and adjusts each metric's shuffle p-values over the S systems (Holm or Benjamini–Hochberg).
The p-values of every metric with a bound found without draws (:data:`SETTLED`, the key metrics among them) are
settled (:mod:`auditor.analyses.shuffle_test`): exact for two classes, else by the bound where it settles the
corrected answer, else by more draws for the systems whose answer Monte Carlo error could still change. The other
metrics' p-values are Monte Carlo over the R draws, with their Clopper–Pearson intervals and whether the corrected
answer is settled: the smallest adjusted p is S/(R + 1) (above α/2 beyond 25 systems at α = 0.05), so those
answers can stay open where drawing ⌈2S/α⌉ tables per system would have cost S² (issue 40). From S ≥ α(R + 1)
systems under Holm no Monte Carlo p can pass the correction, so a system's shuffles are drawn only when the bound
leaves one of its settled answers open (:data:`UNDRAWN`, :func:`_needless_shuffles`).

When is the expected value exact? f(E[C]) = E[f(C)] whenever f is affine on the convex hull of
the matrices the baseline can produce; :func:`~auditor.analyses.affine_check.affine_on_draws_and_points` checks it
on the draws (f at random convex combinations of pairs of draws), plugin metrics included: accuracy and macro recall for
every baseline; for the shuffle (both margins fixed) every metric whose only random part is the
diagonal (kappa, MCC, informedness, markedness, macro P / F1, weighted F1), so the chance-corrected
ones are exactly 0. One case is exact without being affine and is
declared by proof: informedness of a random predictor with fixed gold rows. With
C_i· ~ Multinomial(row_i, q), its class-i term is (col_i/N)(N C_ii − row_i col_i) /
(row_i (N − row_i)), and E[C_ii col_i] = row_i q_i (1 − q_i) + row_i q_i · N q_i,
E[col_i²] = N q_i (1 − q_i) + N² q_i², so E[N C_ii col_i − row_i col_i²] = 0 for every i.
Kappa and MCC of random predictors are ratios with random denominators: their expectation
is not exactly 0 at finite N, so their plug-in value is reported as approximate. The
majority predictor is deterministic, so every value of it is exact.

References
----------
Powers (2011) "Evaluation: from precision, recall and F-measure to ROC, informedness,
markedness and correlation", J. Mach. Learn. Technol. 2(1) (informedness 0 for chance).
Phipson & Smyth (2010) "Permutation p-values should never be zero", SAGMB 9(1) (the +1).
"""
from __future__ import annotations

import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Hashable, Iterable, Mapping, Sequence

import numpy as np

from auditor.analyses import shuffle_bound, shuffle_test
from auditor.analyses.affine_check import (
    AFFINE_PAIRS,
    AffinePairs,
    affine_of_baselines,
    affine_on_draws_and_points,
    affine_on_points,
    affine_on_points_of,
    affine_pairs,
    mixtures,
)
from auditor.analyses.sampling import (
    fixed_margin_tables,
    random_row_cells,
    random_row_tables,
    shuffled_cells,
    sparse_draws,
)
from auditor.formatting import nan_to_none
from auditor.io.counts import Counts
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY, ConfusionStats, Metric
from auditor.options import CHANCE_DRAWS, THREADS
from auditor.progress import SILENT, Progress

#: How the draws are made, in words (JSON ``chance.method.sampling``).
SAMPLING = ("on counts, never by re-indexing items: a random predictor's gold row i ~ Multinomial(row_i, q); a "
            "shuffle's table has the system's row and column sums, drawn row by row as a multivariate "
            "hypergeometric (numpy's sampler below 10^9 per colour, Stadlober's HRUA above); when k² > 4N both "
            "are drawn item by item (a categorical label per item; a permutation of the predictions) as "
            "non-zero cells, the same distributions")
RANDOM_BASELINES = ("uniform", "prevalence")
FIXED_BASELINES = RANDOM_BASELINES + ("majority",)
SHUFFLE = "shuffle"
#: Metrics whose shuffle p-values the audit settles: those with a bound found without draws
#: (:data:`~auditor.analyses.shuffle_bound.BOUNDED`: page 1's primary, the report's key metrics, the
#: recommendation's near-chance test), drawn further only where the bound leaves the answer open.
SETTLED = shuffle_bound.BOUNDED

#: What ``--bootstrap 0`` leaves out of the chance baselines, and what stays (JSON ``chance.method.not_run``).
NO_DRAWS = ("--bootstrap 0: no draws, so no Monte Carlo ranges or means (mc_* null) and no Monte Carlo shuffle "
            "p-values. Kept: every expectation f(E[C]), exact where the metric is affine between tables built "
            "without draws inside the baseline's hull; the shuffle p-values that need no draw: exact for two "
            "classes, else for the metrics affine in the diagonal once the margins are fixed, or at most such a "
            "metric (auditor.analyses.shuffle_bound), an upper bound where it settles the corrected answer (the "
            "other systems counted at p = 1); every other p_shuffle is null with p_shuffle_method 'not tested'")
DESCRIPTIONS = {
    "uniform": "random labels, equally likely over the gold classes",
    "prevalence": "random labels drawn with the gold prevalence",
    "majority": "always the most frequent gold class",
    SHUFFLE: "the system's own predictions shuffled over the items (same bias, no information)",
}
#: When a system's shuffles are not drawn, in words (JSON ``chance.method.shuffles_not_drawn_rule``).
UNDRAWN = ("a system's shuffles are not drawn when no answer depends on them: no Monte Carlo p over R draws can pass "
           "the correction (Holm over S systems: its adjusted p is at least S/(R + 1), not below alpha from "
           "S >= alpha (R + 1) systems on), and every p of the system's that the audit settles "
           "(p_shuffle_resolution) is exact (two classes) or an upper bound found without draws that settles the "
           "corrected answer with every other system at p = 1. Such a system's shuffle has its exact expectations "
           "(exactness checked on the hull's points, as with --bootstrap 0) but no Monte Carlo range or mean (mc_* "
           "null), so its margins count the shuffle only where its expectation is exact, and the p-values that "
           "would be Monte Carlo are not tested (p_shuffle null)")

#: Metrics whose expectation equals the plug-in value for random predictors with fixed gold
#: rows although they are not affine in C (derivation in the module docstring).
EXACT_FOR_RANDOM_ROWS = frozenset({"informedness"})



@dataclass(frozen=True)
class ChanceDistribution:
    """One metric under one baseline.

    ``expected`` is f(E[C]) (None when the metric is 0/0 there, ``undefined`` says why);
    ``exact`` says whether it equals E[f(C)] exactly. ``mc_*`` summarise the R draws at this
    test set's N over the draws where the metric is defined (``undefined_share`` of them is
    not); ``mc_se`` is the standard error of ``mc_mean``; ``mc_low`` and ``mc_high`` are the
    α/2 and 1 − α/2 quantiles (α of :func:`chance_baselines`).
    """

    expected: float | None
    exact: bool
    mc_mean: float | None
    mc_se: float | None
    mc_low: float | None
    mc_high: float | None
    undefined: str | None = None
    undefined_share: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "expected": self.expected, "exact": self.exact, "mc_mean": self.mc_mean, "mc_se": self.mc_se,
            "mc_low": self.mc_low, "mc_high": self.mc_high, "undefined": self.undefined,
            "undefined_share": self.undefined_share,
        }

    @property
    def reference(self) -> float | None:
        """The baseline's score used for margins: the exact expectation, else the MC mean."""
        if self.exact and self.expected is not None:
            return self.expected
        return self.mc_mean


@dataclass(frozen=True)
class ChanceComparison:
    """One system against chance on one metric.

    ``margin`` = observed value − the strongest baseline's score (for an error, the reverse; expected value where exact,
    else MC mean if 3 standard errors above every exact one) over uniform, prevalence, majority and shuffle;
    ``p_shuffle`` the one-sided permutation p-value against its shuffle;
    ``p_shuffle_adjusted`` that p-value adjusted over the systems (one family per metric, the
    audit's correction: "is system s above chance?" asked once per system). All are None when
    the system's value is undefined (``undefined`` says why).
    """

    margin: float | None
    strongest_baseline: str | None
    p_shuffle: float | None
    undefined: str | None = None
    p_shuffle_adjusted: float | None = None
    #: How ``p_shuffle`` was found (exact or Monte Carlo, draws, interval; :mod:`~auditor.analyses.shuffle_test`).
    shuffle_p: shuffle_test.ShuffleP | None = None


@dataclass(frozen=True)
class ChanceBaselines:
    """Result of :func:`chance_baselines` (its JSON: ``baselines`` and ``chance``, :meth:`to_json`).

    ``predictors`` maps each fixed baseline to its label distribution q; ``baselines`` and
    ``shuffle`` map baseline (or system) -> metric id -> :class:`ChanceDistribution`;
    ``chance`` maps system -> metric id -> :class:`ChanceComparison`.
    """

    labels: tuple[str, ...]
    draws: int
    seed: int
    alpha: float
    predictors: Mapping[str, np.ndarray]
    baselines: Mapping[str, Mapping[str, ChanceDistribution]]
    shuffle: Mapping[str, Mapping[str, ChanceDistribution]]
    chance: Mapping[str, Mapping[str, ChanceComparison]]
    majority_label: str
    shuffle_scores: Mapping[str, Mapping[str, np.ndarray]] = field(default_factory=dict, repr=False)
    #: Correction of ``p_shuffle_adjusted`` over the systems (``holm`` or ``bh``).
    correction: str = "holm"
    #: Metrics whose shuffle p-values were settled (:mod:`~auditor.analyses.shuffle_test`).
    settled: tuple[str, ...] = ()
    #: Systems whose shuffles were not drawn, as no answer depended on them (:data:`UNDRAWN`).
    undrawn: tuple[str, ...] = ()

    def undrawn_because(self) -> str:
        """Why no Monte Carlo p could decide an answer when shuffles were left undrawn (:data:`UNDRAWN`), in words."""
        systems = len(self.chance)
        return (f"with Holm over {systems} systems no Monte Carlo p over {self.draws:,} draws can pass α (its adjusted "
                f"p is at least {systems}/{self.draws + 1:,})")

    def p_method(self, metric_id: str) -> str:
        """How ``metric_id``'s shuffle p-values were found, in words (:func:`shuffle_test.describe`)."""
        return shuffle_test.describe([c[metric_id].shuffle_p for c in self.chance.values() if metric_id in c],
                                     self.draws)

    def to_json(self) -> dict[str, Any]:
        """``baselines`` and ``chance``: how the draws were made and each system's
        margin over chance and shuffle p-value (``chance.systems.NAME.ID``)."""
        def distributions(metrics: Mapping[str, ChanceDistribution]) -> dict[str, Any]:
            return {metric_id: value.to_json() for metric_id, value in metrics.items()}

        section: dict[str, Any] = {
            name: {"description": DESCRIPTIONS[name],
                   "predictor": dict(zip(self.labels, (float(x) for x in self.predictors[name]))),
                   "metrics": distributions(metrics)}
            for name, metrics in self.baselines.items()}
        section[SHUFFLE] = {system: {"description": DESCRIPTIONS[SHUFFLE], "metrics": distributions(metrics)}
                            for system, metrics in self.shuffle.items()}
        alpha = self.alpha
        method = {
            "draws": self.draws, "seed": self.seed, "majority_label": self.majority_label, "alpha": alpha,
            "range": f"mc_low, mc_high: the {100 * alpha / 2:g}% and {100 * (1 - alpha / 2):g}% quantiles "
                     f"of the draws (a {100 * (1 - alpha):g}% Monte Carlo range at this test set's size)",
            "sampling": SAMPLING,
            "p_value": "one-sided, (1 + #{shuffle >= observed}) / (R + 1)",
            "p_shuffle_correction": (f"p_shuffle_adjusted: each metric's p_shuffle adjusted over the "
                                     f"{len(self.chance)} systems with {self.correction}; draws per baseline R = "
                                     f"{self.draws} whatever the number of systems S: a Monte Carlo p is at least "
                                     "1/(R + 1), so its adjusted p at least S/(R + 1) for Holm; the metrics with a "
                                     "bound (p_shuffle_resolution) are drawn further where their answer is open, the "
                                     "others' p_shuffle_resolved says whether more draws could change it"),
        }
        if self.settled:
            method["p_shuffle_resolution"] = shuffle_test.RESOLUTION
        if not self.draws:
            method["not_run"] = NO_DRAWS
        else:
            method["shuffles_not_drawn"] = list(self.undrawn)
            method["shuffles_not_drawn_rule"] = UNDRAWN
        systems = {system: {metric_id: {"margin": c.margin, "strongest_baseline": c.strongest_baseline,
                                        "p_shuffle": c.p_shuffle, "p_shuffle_adjusted": c.p_shuffle_adjusted,
                                        "undefined": c.undefined,
                                        **(c.shuffle_p.to_json() if c.shuffle_p is not None else
                                           self._plain_shuffle(c.p_shuffle))}
                            for metric_id, c in comparisons.items()}
                   for system, comparisons in self.chance.items()}
        return {"baselines": section, "chance": {"method": method, "systems": systems}}

    def _plain_shuffle(self, p: float | None) -> dict[str, Any]:
        """How an unsettled metric's p_shuffle was found: Monte Carlo over the audit's draws (its interval is not
        computed, nor whether the corrected answer is settled)."""
        if p is None:
            return {}
        return {"p_shuffle_method": "monte carlo", "p_shuffle_draws": self.draws, "p_shuffle_interval": None,
                "p_shuffle_resolved": None}


# ------------------------------------------------------------------------------ sampling


def _rng(seed: int, tag: str) -> np.random.Generator:
    """An independent stream per baseline (and per system), stable under adding systems."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(tag.encode())]))


sample_random = random_row_tables  # a random predictor's tables, gold row i ~ Multinomial(row_i, q)
sample_shuffle = fixed_margin_tables  # a shuffle's tables: fixed row and column sums
#: Most numbers (table cells or item cells) one chunk of draws holds: 64 MB of float64.
CHUNK_ELEMENTS = 2**23


def _draw_stats(kind: str, rng: np.random.Generator, row: np.ndarray, other: np.ndarray, size: int,
                sparse: bool, active: bool) -> ConfusionStats:
    """``size`` draws of a random predictor (``kind`` "random", ``other`` = q) or of a shuffle
    (``kind`` "shuffle", ``other`` = column sums), as one batch of stats."""
    k = row.shape[0]
    if sparse:
        cells = random_row_cells if kind == "random" else shuffled_cells
        flat = cells(rng, row, other, size).ravel()
        return ConfusionStats.from_cells((size, k, k), flat, np.ones(flat.size), active)
    tables = random_row_tables if kind == "random" else fixed_margin_tables
    return ConfusionStats(tables(rng, row, other, size), active)


def _chunk(draws: int, k: int, n: int) -> int:
    """Draws per chunk (the first holds this many of ``draws``): at most CHUNK_ELEMENTS numbers (O(k² or N)
    per draw), never fewer than the affine check's pairs need."""
    per_draw = (n if sparse_draws(k, n) else k * k) + 40 * k
    return max(1, min(draws, max(AFFINE_PAIRS, CHUNK_ELEMENTS // per_draw)))


def _draw_values(
    kind: str, rng: np.random.Generator, row: np.ndarray, other: np.ndarray, draws: int,
    metrics: Sequence[Metric], active: bool, pairs: AffinePairs | None = None,
) -> tuple[dict[str, np.ndarray], ConfusionStats | None]:
    """Every metric on ``draws`` draws, made and scored in chunks of :func:`_chunk` draws (memory O(k² or
    N) per draw, never O(draws · k²)); also, with ``pairs`` (indices into the first chunk), the
    mixtures of those pairs of draws that the affine check scores (:func:`~auditor.analyses.affine_check.mixtures`), so
    that no chunk outlives its scoring."""
    k, n = row.shape[0], int(row.sum())
    sparse = sparse_draws(k, n)
    chunk = _chunk(draws, k, n)
    parts: dict[str, list[np.ndarray]] = {metric.id: [] for metric in metrics}
    mixed = None
    for start in range(0, draws, chunk):
        stats = _draw_stats(kind, rng, row, other, min(chunk, draws - start), sparse, active)
        if start == 0 and pairs is not None:
            mixed = mixtures(stats, *pairs, active)
        for metric_id, value in _scores(stats, metrics, active).items():
            parts[metric_id].append(np.asarray(value, dtype=float))
    return {metric_id: np.concatenate(value) for metric_id, value in parts.items()}, mixed


# ----------------------------------------------------------------------------- summaries


def _scores(confusion: np.ndarray | ConfusionStats, metrics: Sequence[Metric],
            all_labels_active: bool) -> dict[str, np.ndarray]:
    return compute(confusion, metrics, all_labels_active)


def _summary(
    expected: float, exact: bool, drawn: np.ndarray, undefined_reason: str | None, alpha: float,
    moments: tuple[float, float, float, float] | None = None,
) -> ChanceDistribution:
    """One metric's summary of its draws; ``moments`` (mean, standard error, low, high) when already found for
    draws all defined (:func:`_moments`)."""
    expected_value = nan_to_none(expected)
    reason = (undefined_reason or "0/0") if expected_value is None else None
    if moments is not None:
        return ChanceDistribution(expected_value, exact, *moments, reason, 0.0)
    defined = drawn[~np.isnan(drawn)]
    share = float(1 - defined.size / drawn.size) if drawn.size else 0.0
    if defined.size == 0:
        return ChanceDistribution(expected_value, exact, None, None, None, None, reason, share)
    se = float(defined.std(ddof=1) / np.sqrt(defined.size)) if defined.size > 1 else 0.0
    low, high = np.quantile(defined, [alpha / 2, 1 - alpha / 2])
    return ChanceDistribution(
        expected_value, exact, float(defined.mean()), se, float(low), float(high), reason, share,
    )


def _moments(values: Mapping[Hashable, np.ndarray], alpha: float) -> dict[Hashable, tuple[float, float, float, float]]:
    """Mean, standard error and the α/2, 1 − α/2 quantiles of every array of draws all defined, the arrays
    with as many draws taken together (one ``np.quantile`` call each, not one per metric and baseline): the
    same floats as :func:`_summary` finds array by array (each row is reduced on its own)."""
    groups: dict[int, list[Hashable]] = {}
    for key, drawn in values.items():
        if drawn.size and not np.isnan(drawn).any():
            groups.setdefault(drawn.size, []).append(key)
    found = {}
    for size, keys in groups.items():
        stacked = np.stack([values[key] for key in keys])
        means = stacked.mean(axis=1)
        spread = stacked.std(axis=1, ddof=1) / np.sqrt(size) if size > 1 else np.zeros(len(keys))
        low, high = np.quantile(stacked, [alpha / 2, 1 - alpha / 2], axis=1)
        found.update({key: (float(means[row]), float(spread[row]), float(low[row]), float(high[row]))
                      for row, key in enumerate(keys)})
    return found


def _distributions(
    expected_matrix: np.ndarray, affine: Mapping[str, bool] | None, values: dict[str, np.ndarray],
    metrics: Sequence[Metric], all_labels_active: bool, *, alpha: float, proven_exact: Iterable[str] = (),
) -> dict[str, ChanceDistribution]:
    """Summaries of every metric's draws (``values``); ``affine``: the answer of
    :func:`~auditor.analyses.affine_check.affine_on_draws_and_points` (None: a deterministic baseline, every
    expectation exact)."""
    return _distributions_of(np.asarray(expected_matrix)[None], [affine], [values], metrics, all_labels_active,
                             alpha=alpha, proven_exact=proven_exact)[0]


def _distributions_of(
    expected_matrices: np.ndarray, affine: Sequence[Mapping[str, bool] | None], values: Sequence[dict[str, np.ndarray]],
    metrics: Sequence[Metric], all_labels_active: bool, *, alpha: float, proven_exact: Iterable[str] = (),
) -> list[dict[str, ChanceDistribution]]:
    """:func:`_distributions` of several baselines (each system's shuffle), their expected tables
    ``expected_matrices`` (B, k, k) scored at once and their draws summarised together (:func:`_moments`)."""
    expected = _scores(expected_matrices, metrics, all_labels_active)
    proven = set(proven_exact)
    moments = _moments({(index, metric.id): drawn[metric.id] for index, drawn in enumerate(values)
                        for metric in metrics}, alpha)
    return [{metric.id: _summary(float(expected[metric.id][index]),
                                 True if exact is None else exact[metric.id] or metric.id in proven,
                                 drawn[metric.id], metric.undefined_when, alpha, moments.get((index, metric.id)))
             for metric in metrics}
            for index, (exact, drawn) in enumerate(zip(affine, values))]


def permutation_p_value(observed: float, null: np.ndarray) -> float | None:
    """One-sided p = (1 + #{null ≥ observed}) / (R + 1) over the defined null scores.

    Ties within a relative tolerance count as ≥ (as scipy.stats.permutation_test does), so a
    shuffle that reproduces the observed matrix counts against the system.
    """
    if np.isnan(observed):
        return None
    null = null[~np.isnan(null)]
    tolerance = shuffle_test.TIE_TOLERANCE * max(1.0, abs(observed))
    return float((1 + np.count_nonzero(null >= observed - tolerance)) / (null.size + 1))


# ---------------------------------------------------------------------------------- main


def predictor_distributions(counts: Counts) -> tuple[dict[str, np.ndarray], int]:
    """q for uniform, prevalence and majority, and the majority class's code."""
    support = counts.support
    present = support > 0
    candidates = np.ones(counts.k, dtype=bool) if counts.labels_given else present
    majority = int(np.argmax(support))
    return {
        "uniform": candidates / candidates.sum(),
        "prevalence": support / support.sum(),
        "majority": np.eye(counts.k)[majority],
    }, majority


def analyse(counts: Counts, metrics: Sequence[Metric], seed: int, alpha: float, correction: str = "holm",
            progress: Progress = SILENT, bootstrap: int = 1) -> ChanceBaselines:
    """The chance baselines of the audit: :func:`chance_baselines` with :data:`~auditor.options.CHANCE_DRAWS`
    draws per baseline, shuffle p-values adjusted over the systems with ``correction``, those of :data:`SETTLED`
    settled (exact for two classes, else bounded or drawn until Monte Carlo error cannot change the answer), the
    others Monte Carlo with their intervals. ``bootstrap`` 0 (``--bootstrap 0``): no draw at all (:data:`NO_DRAWS`)."""
    draws = CHANCE_DRAWS if bootstrap > 0 else 0
    return chance_baselines(counts, metrics, draws=draws, seed=seed, alpha=alpha, progress=progress,
                            correction=correction, settle=SETTLED)


def chance_baselines(
    counts: Counts,
    metrics: Sequence[Metric] | None = None,
    *,
    draws: int,
    seed: int,
    alpha: float,
    progress: Progress = SILENT,
    threads: int = THREADS,
    correction: str = "holm",
    settle: Sequence[str] = (),
) -> ChanceBaselines:
    """Chance baselines of every scalar metric and each system's standing against them.

    Parameters
    ----------
    counts : the test set's :class:`~auditor.io.counts.Counts`.
    metrics : scalar metrics to evaluate (default ``REGISTRY.scalar()``).
    draws : Monte Carlo draws R per baseline (:func:`analyse`: :data:`~auditor.options.CHANCE_DRAWS`); 0: none at all
        (:data:`NO_DRAWS`: exact expectations, exact or bounded p-values, nothing else).
    seed : every draw derives from it; each baseline and each system has its own stream.
    alpha : the Monte Carlo ranges (``mc_low``, ``mc_high``) cover 1 − alpha of the draws.
    threads : worker threads drawing the systems' shuffles (the draws do not depend on it).
    correction : ``holm`` or ``bh``: each metric's shuffle p-values adjusted over the systems.
    settle : metric ids whose shuffle p-values are settled (:mod:`~auditor.analyses.shuffle_test`;
        with two classes every metric's p is then exact).

    Examples
    --------
    >>> from auditor.io.counts import count
    >>> c = count(["a", "a", "a", "b"], {"s": ["a", "b", "a", "b"]})
    >>> result = chance_baselines(c, draws=200, seed=1, alpha=0.05)
    >>> result.baselines["prevalence"]["accuracy"].expected  # p·p = 0.75² + 0.25²
    0.625
    """
    if draws < 0:
        raise ValueError(f"draws must be at least 0, got {draws}")
    metrics = [m for m in (REGISTRY.scalar() if metrics is None else metrics) if not m.per_class]
    check_rng = _rng(seed, "affine-check") if draws else None
    with progress.task("chance baselines", total=len(FIXED_BASELINES) + len(counts.systems)) as advance:
        baselines, predictors, majority = _fixed_baselines(counts, metrics, draws, seed, alpha, check_rng, advance)
        observed = _scores(counts.confusion, metrics, counts.labels_given)
        settle = tuple(m for m in settle if m in observed)
        shuffle, shuffle_scores, settled, undrawn = _shuffles(counts, metrics, draws, seed, alpha, check_rng, advance,
                                                              threads, (observed, settle, correction))
    chance = {
        system: {
            metric.id: _compare(
                float(observed[metric.id][index]), metric,
                {**{name: baselines[name][metric.id] for name in FIXED_BASELINES}, SHUFFLE: shuffle[system][metric.id]},
                shuffle_scores[system][metric.id],
                settled[metric.id][index] if metric.id in settled else shuffle_test.NO_DRAW_P if not draws else None,
            )
            for metric in metrics
        }
        for index, system in enumerate(counts.systems)
    }
    return ChanceBaselines(
        labels=counts.labels, draws=draws, seed=seed, alpha=alpha, predictors=predictors, baselines=baselines,
        shuffle=shuffle, chance=adjust_shuffle_p(chance, correction), majority_label=counts.labels[majority],
        shuffle_scores=shuffle_scores, correction=correction, settled=tuple(settled), undrawn=undrawn,
    )


def _fixed_baselines(
    counts: Counts, metrics: Sequence[Metric], draws: int, seed: int, alpha: float, check_rng: np.random.Generator,
    advance,
) -> tuple[dict[str, dict[str, ChanceDistribution]], dict[str, np.ndarray], int]:
    """The uniform, prevalence and majority baselines: summaries, q of each, the majority code."""
    active = counts.labels_given
    support = counts.support.astype(np.int64)
    predictors, majority = predictor_distributions(counts)
    baselines: dict[str, dict[str, ChanceDistribution]] = {}
    first_chunk = _chunk(draws, counts.k, int(support.sum()))
    for name in RANDOM_BASELINES:
        q = predictors[name]
        if draws:
            pairs = affine_pairs(check_rng, first_chunk)
            values, mixed = _draw_values("random", _rng(seed, name), support, q, draws, metrics, active, pairs)
            affine = affine_on_draws_and_points(pairs, mixed, values, "random", support, q, metrics, active)
        else:
            values, affine = _no_draws(metrics), affine_on_points("random", support, q, metrics, active)
        baselines[name] = _distributions(support[:, None] * q[None, :], affine, values, metrics,
                                         active, alpha=alpha, proven_exact=EXACT_FOR_RANDOM_ROWS)
        advance(1)
    majority_matrix = support[:, None] * predictors["majority"][None, :]
    baselines["majority"] = _distributions(majority_matrix, None, _scores(majority_matrix[None], metrics, active),
                                           metrics, active, alpha=alpha)
    advance(1)
    return baselines, predictors, majority


def _shuffles(
    counts: Counts, metrics: Sequence[Metric], draws: int, seed: int, alpha: float, check_rng: np.random.Generator,
    advance, threads: int, settling: tuple[Mapping[str, np.ndarray], Sequence[str], str],
) -> tuple[dict[str, dict[str, ChanceDistribution]], dict[str, dict[str, np.ndarray]],
           dict[str, list[shuffle_test.ShuffleP]], tuple[str, ...]]:
    """Each system's shuffle: summaries, the drawn scores, the settled p-values (metric -> one per system) of
    ``settling`` = (observed values, metric ids, correction), and the systems whose shuffles were not drawn
    (:func:`_needless_shuffles`: their summaries hold no Monte Carlo range, exactness is checked on points)."""
    active = counts.labels_given
    support = counts.support.astype(np.int64)
    n = int(support.sum())
    columns = counts.confusion.sum(axis=1).astype(np.int64)
    if not draws:
        return _exact_shuffles(counts, metrics, alpha, advance, settling)
    rngs = [_rng(seed, f"{SHUFFLE}:{system}") for system in counts.systems]
    # the affine checks' pairs, drawn in system order on this thread (the workers keep only their mixtures)
    pairs = [affine_pairs(check_rng, _chunk(draws, counts.k, n)) for _ in counts.systems]

    observed, settle, _ = settling
    undrawn, bounds = _needless_shuffles(counts, metrics, draws, alpha, settling)
    bounded = {m: observed[m] for m in settle} if counts.k != 2 and bounds is None else {}  # two classes: exact first

    def draw(index: int) -> tuple[dict[str, np.ndarray], ConfusionStats | None, dict[str, np.ndarray]]:
        """The system's draws, and its bounds: found beside another system's draws (which hold no lock)."""
        values, mixed = _draw_values("shuffle", rngs[index], support, columns[index], draws, metrics, active,
                                     pairs[index])
        return values, mixed, shuffle_bound.bounds(support, columns[index:index + 1], {
            m: value[index:index + 1] for m, value in bounded.items()}, active, shuffle_test.TIE_TOLERANCE)

    chosen = [index for index in range(len(counts.systems)) if not undrawn[index]]
    with ThreadPoolExecutor(max(1, threads)) as pool:
        found = dict(zip(chosen, pool.map(draw, chosen)))
    drawn = [found[index][:2] if index in found else (_no_draws(metrics), None) for index in range(len(undrawn))]
    if bounded and found:
        bounds = {m: np.concatenate([system_bounds[m] for *_, system_bounds in found.values()])
                  for m in found[chosen[0]][2]}
    settled = _settle(counts, metrics, drawn, rngs, draws, alpha, settling, bounds)
    for metric_id in set(settled) - set(settle):  # an undrawn system's Monte Carlo p: not tested
        settled[metric_id] = [shuffle_test.NO_DRAW_P if skipped and test.method == "monte carlo" else test
                              for skipped, test in zip(undrawn, settled[metric_id])]
    values = [values for values, _ in drawn]
    affine = affine_of_baselines([None if undrawn[index] else pair for index, pair in enumerate(pairs)],
                                 [mixed for _, mixed in drawn], values, "shuffle", support, columns, metrics, active)
    summaries = _distributions_of(support[None, :, None] * columns[:, None, :] / max(n, 1), affine, values, metrics,
                                  active, alpha=alpha)
    advance(len(counts.systems))
    undrawn_names = tuple(system for system, skipped in zip(counts.systems, undrawn) if skipped)
    return (dict(zip(counts.systems, summaries)), dict(zip(counts.systems, values)), settled, undrawn_names)


def _needless_shuffles(counts: Counts, metrics: Sequence[Metric], draws: int, alpha: float,
                       settling: tuple[Mapping[str, np.ndarray], Sequence[str], str]
                       ) -> tuple[np.ndarray, dict[str, np.ndarray] | None]:
    """Which systems' shuffles no answer depends on (:data:`UNDRAWN`), and the settling metrics' bounds when found
    for that (else None). None is needless unless no Monte Carlo p over ``draws`` can pass the correction
    (:func:`~auditor.analyses.shuffle_test.can_reject`: with Holm, from S ≥ α(R + 1) systems); then a system's
    shuffles are needless when every p of its that the audit settles is exact (two classes) or bounded without
    draws (:func:`~auditor.analyses.shuffle_test.settle_without_draws`, every other system at p = 1)."""
    observed, settle, correction = settling
    none = np.zeros(len(counts.systems), dtype=bool)
    if not counts.systems or not settle or any(shuffle_test.can_reject(
            int(np.count_nonzero(~np.isnan(values))), draws, alpha, correction) for values in observed.values()):
        return none, None
    support = counts.support.astype(np.int64)
    if counts.k == 2 and all(high - low < shuffle_test.EXACT_SUPPORT for low, high in (
            shuffle_test.binary_support(support, column) for column in counts.confusion.sum(axis=1))):
        return ~none, None  # every p exact
    bounds, found = _bounded_without_draws(counts, _oriented(observed, metrics), settle, alpha, correction)
    return np.array([all(tests[s].method == "bound" or np.isnan(observed[m][s]) for m, tests in found.items())
                     for s in range(len(counts.systems))]), bounds


def _no_draws(metrics: Sequence[Metric]) -> dict[str, np.ndarray]:
    """Every metric with no drawn value (``--bootstrap 0``)."""
    return {metric.id: np.empty(0) for metric in metrics}


def _exact_shuffles(counts: Counts, metrics: Sequence[Metric], alpha: float, advance,
                    settling: tuple[Mapping[str, np.ndarray], Sequence[str], str]) -> tuple[
        dict[str, dict[str, ChanceDistribution]], dict[str, dict[str, np.ndarray]],
        dict[str, list[shuffle_test.ShuffleP]], tuple[str, ...]]:
    """:func:`_shuffles` without a draw (:data:`NO_DRAWS`): each system's exact expectations (exactness from
    :func:`~auditor.analyses.affine_check.affine_on_points`), every p exact for two classes, else bounded where
    the bound settles the corrected answer (:func:`~auditor.analyses.shuffle_test.settle_without_draws`)."""
    observed, _, correction = settling
    active = counts.labels_given
    support = counts.support.astype(np.int64)
    n = int(support.sum())
    columns = counts.confusion.sum(axis=1).astype(np.int64)
    none = [_no_draws(metrics) for _ in counts.systems]
    affine = affine_on_points_of("shuffle", support, columns, metrics, active) if counts.systems else []
    summaries = _distributions_of(support[None, :, None] * columns[:, None, :] / max(n, 1), affine, none, metrics,
                                  active, alpha=alpha) if counts.systems else []
    shuffle, shuffle_scores = dict(zip(counts.systems, summaries)), dict(zip(counts.systems, none))
    advance(len(counts.systems))
    if not counts.systems:
        return shuffle, shuffle_scores, {}, ()
    observed = _oriented(observed, metrics)
    if exact := counts.k == 2 and shuffle_test.exact_binary(
            support, columns, observed, lambda tables: _oriented(_scores(tables, metrics, active), metrics)):
        return shuffle, shuffle_scores, exact, ()
    return shuffle, shuffle_scores, _bounded_without_draws(counts, observed, shuffle_bound.BOUNDED, alpha,
                                                           correction)[1], ()


def _bounded_without_draws(counts: Counts, oriented: Mapping[str, np.ndarray], settle: Sequence[str], alpha: float,
                           correction: str) -> tuple[dict[str, np.ndarray], dict[str, list[shuffle_test.ShuffleP]]]:
    """The bounds of the ``settle`` metrics (scores ``oriented``: higher is better) and the p-values they settle
    without a draw, every other system at p = 1 (:func:`~auditor.analyses.shuffle_test.settle_without_draws`)."""
    wanted = {m: oriented[m] for m in settle if m in oriented}
    bounds = shuffle_bound.bounds(counts.support.astype(np.int64), counts.confusion.sum(axis=1).astype(np.int64),
                                  wanted, counts.labels_given, shuffle_test.TIE_TOLERANCE)
    return bounds, shuffle_test.settle_without_draws(wanted, bounds, alpha, correction)


def _settle(counts: Counts, metrics: Sequence[Metric],
            drawn: list[tuple[dict[str, np.ndarray], ConfusionStats | None]],
            rngs: list[np.random.Generator], draws: int, alpha: float,
            settling: tuple[Mapping[str, np.ndarray], Sequence[str], str],
            bounds: Mapping[str, np.ndarray] | None = None) -> dict[str, list[shuffle_test.ShuffleP]]:
    """Settled shuffle p-values (:mod:`~auditor.analyses.shuffle_test`): every metric's exact p with
    two classes; else the ``settling`` metrics' p bounded without draws where the bound settles the answer
    (:mod:`~auditor.analyses.shuffle_bound`), the other systems drawn again (``drawn`` extended in place), and
    every other metric's Monte Carlo p over its draws with its interval and whether its answer is settled.
    ``bounds``: the settling metrics' bounds when already found (:func:`_shuffles`: each system's beside its draws,
    or all of them by :func:`_needless_shuffles`)."""
    (observed, settle, correction) = settling
    if not settle or not counts.systems:
        return {}
    support = counts.support.astype(np.int64)
    columns = counts.confusion.sum(axis=1).astype(np.int64)
    observed = _oriented(observed, metrics)
    if exact := counts.k == 2 and shuffle_test.exact_binary(
            support, columns, observed,
            lambda tables: _oriented(_scores(tables, metrics, counts.labels_given), metrics)):
        return exact
    null = {m: [_oriented(values, metrics, m) for values, _ in drawn] for m in settle}

    def more(system: int, extra: int) -> None:  # only the settled metrics are scored on the extra draws
        values, _ = _draw_values("shuffle", rngs[system], support, columns[system], extra,
                                 [m for m in metrics if m.id in null], counts.labels_given)
        for metric_id, array in values.items():
            drawn[system][0][metric_id] = np.concatenate([drawn[system][0][metric_id], array])
            if metric_id in null:
                null[metric_id][system] = _oriented(drawn[system][0], metrics, metric_id)

    per_draw = counts.n_items if sparse_draws(counts.k, counts.n_items) else counts.k ** 2
    wanted = {m: observed[m] for m in settle}
    if bounds is None:
        bounds = shuffle_bound.bounds(support, columns, wanted, counts.labels_given, shuffle_test.TIE_TOLERANCE)
    settled = shuffle_test.settle(wanted, null, alpha, correction, shuffle_test.draw_cap(draws, per_draw), more,
                                  bounds)
    others = {m: values for m, values in observed.items() if m not in settled}
    return {**settled, **shuffle_test.monte_carlo(
        others, {m: [_oriented(values, metrics, m) for values, _ in drawn] for m in others}, alpha, correction)}


def _oriented(values: Mapping[str, np.ndarray], metrics: Sequence[Metric], only: str | None = None) -> Any:
    """Scores read so that higher is better (an error's negation), as every shuffle p counts the shuffles at
    or above the observed value: metric -> values, or the one metric ``only``'s values."""
    lower = {m.id for m in metrics if not m.higher_is_better}
    if only is not None:
        return -values[only] if only in lower else values[only]
    return {m: -v if m in lower else v for m, v in values.items()}


def adjust_shuffle_p(chance: Mapping[str, Mapping[str, ChanceComparison]],
                     correction: str) -> dict[str, dict[str, ChanceComparison]]:
    """``chance`` with ``p_shuffle_adjusted`` set: per metric, the systems' shuffle p-values
    adjusted with ``correction`` (undefined ones are left out of the family)."""
    from auditor.analyses.significance import adjust  # the pairwise tests' Holm / BH

    systems = list(chance)
    metric_ids = list(chance[systems[0]]) if systems else []
    out = {system: dict(chance[system]) for system in systems}
    for metric_id in metric_ids:
        p = [1.0 if _untested(chance[s][metric_id]) else np.nan if chance[s][metric_id].p_shuffle is None
             else chance[s][metric_id].p_shuffle for s in systems]
        for system, value in zip(systems, adjust(p, correction)):
            untested = _untested(chance[system][metric_id])
            out[system][metric_id] = replace(chance[system][metric_id],
                                             p_shuffle_adjusted=None if untested or np.isnan(value) else float(value))
    return out


def _untested(comparison: ChanceComparison) -> bool:
    """Whether a defined value's shuffle test did not run (no draws and no exact test or settling bound): it
    stays in its metric's family at p = 1, the upper end of what it could be, so that the adjusted p-values of
    the others are upper bounds (Holm's and BH's adjusted p never decrease when one input increases)."""
    return comparison.undefined is None and comparison.shuffle_p is not None and comparison.shuffle_p.p is None \
        and comparison.shuffle_p.method == shuffle_test.NOT_TESTED


def _compare(
    value: float, metric: Metric, references: Mapping[str, ChanceDistribution], null: np.ndarray,
    settled: shuffle_test.ShuffleP | None = None,
) -> ChanceComparison:
    """Margin over the strongest baseline and the shuffle p (the settled one when given); for an error (lower is
    better) both read its negation: margin = baseline − observed, p counts shuffles at or below it."""
    if np.isnan(value):
        return ChanceComparison(None, None, None, metric.undefined_when or "0/0")
    sign = 1.0 if metric.higher_is_better else -1.0
    floor = max((sign * r.reference for r in references.values() if r.exact and r.reference is not None),
                default=-np.inf)
    scored = {name: sign * r.reference for name, r in references.items()  # a MC mean must clear every exact value
              if r.reference is not None and (r.exact or sign * r.reference > floor + 3 * (r.mc_se or 0))}  # by 3 SE
    strongest = max(scored, key=scored.get) if scored else None
    return ChanceComparison(sign * value - scored[strongest] if strongest is not None else None, strongest,
                            settled.p if settled else permutation_p_value(sign * value, sign * null), shuffle_p=settled)
