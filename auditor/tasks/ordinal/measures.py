"""Ordinal figures as vectorised functions of the confusion tensor ``C[..., i, j]`` (rows gold, columns predicted).

The labels are the levels in their order, so a level's index is its rank and the distance between
levels i and j is |i − j| steps of the order (a level given in the order but never seen still counts as
a step). Every function takes :class:`~auditor.metrics.registry.ConfusionStats` of any batch shape
(systems, resamples × systems) and returns one value per matrix, NaN where the figure is 0/0.

Notation: N items, row_i gold items of level i, col_j items predicted as level j, d_ij = |i − j|.

References
----------
Baccianella, Esuli & Sebastiani (2009) "Evaluation Measures for Ordinal Regression", ISDA: the
macroaveraged MAE and MSE, one mean per gold level, then the unweighted mean over the levels.
Amigó, Gonzalo, Mizzaro & Carrillo-de-Albornoz (2020) "An Effectiveness Metric for Ordinal
Classification: Formal Properties and Experimental Results", ACL: CEM-Ord, as its authors' released
implementation computes it (prox of the prediction to the gold, from the gold level counts, log base 2).
Cohen (1968) weighted kappa, as scikit-learn's ``cohen_kappa_score(weights='linear'|'quadratic')``.
Spearman's ρ with average ranks for ties and Kendall's τ-b, as scipy's ``spearmanr`` and ``kendalltau``.
"""
from __future__ import annotations

import numpy as np

from auditor.metrics.registry import ConfusionStats, Metric, Properties, ratio

BACCIANELLA = "Baccianella et al. 2009"
AMIGO = "Amigó et al. 2020"
CONSTANT_RANKS = ("gold or the prediction has a single level (a constant prediction), so there are no ranks to "
                  "correlate: 0/0; scipy returns nan")


def steps(k: int, power: int = 1) -> np.ndarray:
    """The (k, k) distances |i − j|^power between levels, in steps of the order."""
    index = np.arange(k, dtype=float)
    return np.abs(index[:, None] - index[None, :]) ** power


def _mean_distance(s: ConfusionStats, power: int) -> np.ndarray:
    value, undefined = ratio((s.C * steps(s.k, power)).sum(axis=(-2, -1)), s.n)
    return np.where(undefined, np.nan, value)


def _macro_distance(s: ConfusionStats, power: int) -> np.ndarray:
    per_level, absent = ratio((s.C * steps(s.k, power)).sum(axis=-1), s.row)
    present = ~absent
    value, undefined = ratio(np.where(present, per_level, 0.0).sum(axis=-1), present.sum(axis=-1))
    return np.where(undefined, np.nan, value)


def mae(s: ConfusionStats) -> np.ndarray:
    r"""Mean absolute error in steps: :math:`\frac{1}{N}\sum_{ij} C_{ij}\,|i - j|`."""
    return _mean_distance(s, 1)


def mse(s: ConfusionStats) -> np.ndarray:
    r"""Mean squared error in steps: :math:`\frac{1}{N}\sum_{ij} C_{ij}\,(i - j)^2`."""
    return _mean_distance(s, 2)


def mae_macro(s: ConfusionStats) -> np.ndarray:
    r"""Macroaveraged MAE (Baccianella et al. 2009): :math:`\frac{1}{|G|}\sum_{i \in G}\frac{1}{\mathrm{row}_i}
    \sum_j C_{ij}|i - j|`, G = the gold levels present (a level without gold items has no mean)."""
    return _macro_distance(s, 1)


def mse_macro(s: ConfusionStats) -> np.ndarray:
    r"""Macroaveraged MSE (Baccianella et al. 2009): as :func:`mae_macro` with (i − j)²."""
    return _macro_distance(s, 2)


def within_one(s: ConfusionStats) -> np.ndarray:
    r"""Share of items off by at most one level: :math:`\frac{1}{N}\sum_{|i - j| \le 1} C_{ij}`."""
    value, undefined = ratio((s.C * (steps(s.k) <= 1)).sum(axis=(-2, -1)), s.n)
    return np.where(undefined, np.nan, value)


def _weighted_kappa(s: ConfusionStats, power: int) -> np.ndarray:
    weights = steps(s.k, power)
    n = np.where(s.n > 0, s.n, 1.0)
    observed = (s.C * weights).sum(axis=(-2, -1)) / n
    expected = np.einsum("...i,ij,...j->...", s.row, weights, s.col) / (n * n)
    value, undefined = ratio(observed, expected)
    return np.where(undefined, np.nan, 1.0 - value)


def linear_kappa(s: ConfusionStats) -> np.ndarray:
    r"""Linearly weighted kappa: :math:`1 - \frac{\sum_{ij} w_{ij} C_{ij}/N}{\sum_{ij} w_{ij} p_i b_j}`, w = |i − j|."""
    return _weighted_kappa(s, 1)


def quadratic_kappa(s: ConfusionStats) -> np.ndarray:
    r"""Quadratically weighted kappa: as :func:`linear_kappa` with w = (i − j)²."""
    return _weighted_kappa(s, 2)


def _midranks(margin: np.ndarray) -> np.ndarray:
    """Average rank (1-based) of the items at each level, from the level counts (ties share their ranks)."""
    return np.cumsum(margin, axis=-1) - margin + (margin + 1) / 2


def spearman(s: ConfusionStats) -> np.ndarray:
    r"""Spearman's ρ with average ranks for ties: the correlation of the gold items' and the predictions' midranks
    a_i, b_j weighted by C: :math:`\frac{\sum C_{ij}(a_i - \bar a)(b_j - \bar b)}{\sqrt{\sum_i \mathrm{row}_i
    (a_i - \bar a)^2 \sum_j \mathrm{col}_j (b_j - \bar b)^2}}` (scipy's ``spearmanr``)."""
    n = np.where(s.n > 0, s.n, 1.0)[..., None]
    a, b = _midranks(s.row), _midranks(s.col)
    a = a - (s.row * a).sum(axis=-1, keepdims=True) / n
    b = b - (s.col * b).sum(axis=-1, keepdims=True) / n
    covariance = np.einsum("...ij,...i,...j->...", s.C, a, b)
    spread = (s.row * a * a).sum(axis=-1) * (s.col * b * b).sum(axis=-1)
    value, undefined = ratio(covariance, np.sqrt(np.clip(spread, 0.0, None)))
    return np.where(undefined | (spread <= 0), np.nan, value)


def kendall_tau_b(s: ConfusionStats) -> np.ndarray:
    r"""Kendall's τ-b: :math:`\frac{P - Q}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}`, P (Q) the pairs of items ordered the
    same (the opposite) way by gold and prediction, n_0 = N(N − 1)/2, n_1 = Σ row_i(row_i − 1)/2,
    n_2 = Σ col_j(col_j − 1)/2 (scipy's ``kendalltau``, variant b). P and Q from cumulative sums of C."""
    C = s.C
    above_right = np.cumsum(np.cumsum(C[..., ::-1, ::-1], axis=-2), axis=-1)[..., ::-1, ::-1]  # Σ i' ≥ i, j' ≥ j
    above_left = np.cumsum(np.cumsum(C[..., ::-1, :], axis=-2)[..., ::-1, :], axis=-1)  # Σ i' ≥ i, j' ≤ j
    later = np.zeros_like(C)
    later[..., :-1, :-1] = above_right[..., 1:, 1:]  # i' > i, j' > j: concordant partners
    crossed = np.zeros_like(C)
    crossed[..., :-1, 1:] = above_left[..., 1:, :-1]  # i' > i, j' < j: discordant partners
    difference = (C * (later - crossed)).sum(axis=(-2, -1))
    pairs = s.n * (s.n - 1) / 2
    gold_ties = (s.row * (s.row - 1) / 2).sum(axis=-1)
    predicted_ties = (s.col * (s.col - 1) / 2).sum(axis=-1)
    spread = (pairs - gold_ties) * (pairs - predicted_ties)
    value, undefined = ratio(difference, np.sqrt(np.clip(spread, 0.0, None)))
    return np.where(undefined | (spread <= 0), np.nan, value)


def proximity(row: np.ndarray) -> np.ndarray:
    r"""CEM-Ord's proximity of level a to level b from the gold level counts n (Amigó et al. 2020):
    :math:`\mathrm{prox}(a, b) = -\log_2\big((n_a/2 + \sum_{k \in (a, b]} n_k)/N\big)`, the sum over the levels
    from a (excluded) to b (included) in either direction, empty when a = b. Shape (..., k, k), [a, b];
    0 where the share is 0 (a level pair no item can take: b has no gold item)."""
    n = np.asarray(row, dtype=float)
    total = n.sum(axis=-1)[..., None, None]
    cumulative = np.cumsum(n, axis=-1)
    a_cum, b_cum = cumulative[..., :, None], cumulative[..., None, :]
    a_n, b_n = n[..., :, None], n[..., None, :]
    k = n.shape[-1]
    upward = np.arange(k)[:, None] < np.arange(k)[None, :]
    downward = np.arange(k)[:, None] > np.arange(k)[None, :]
    between = np.where(upward, b_cum - a_cum, np.where(downward, (a_cum - a_n) - (b_cum - b_n), 0.0))
    share = (a_n / 2 + between) / np.where(total > 0, total, 1.0)
    return np.where(share > 0, -np.log2(np.where(share > 0, share, 1.0)), 0.0)


def cem_ord(s: ConfusionStats) -> np.ndarray:
    r"""CEM-Ord (Amigó et al. 2020): :math:`\frac{\sum_d \mathrm{prox}(s_d, g_d)}{\sum_d \mathrm{prox}(g_d, g_d)}
    = \frac{\sum_{ij} C_{ij}\,\mathrm{prox}(j, i)}{\sum_i \mathrm{row}_i\,\mathrm{prox}(i, i)}` (prediction s_d
    first, gold g_d second; :func:`proximity` from the gold level counts)."""
    prox = proximity(s.row)
    numerator = (s.C * np.swapaxes(prox, -1, -2)).sum(axis=(-2, -1))
    denominator = (s.row * np.diagonal(prox, axis1=-2, axis2=-1)).sum(axis=-1)
    value, undefined = ratio(numerator, denominator)
    return np.where(undefined, np.nan, value)


P = Properties
DERIVED = "derived for this audit (not in Opitz 2024, Table 5); probed by auditor.analyses.properties"
#: The ordinal figures, in the order tables show them (each a :class:`Metric` record, not in the global registry:
#: a classification audit's labels have no order).
ORDINAL_METRICS: tuple[Metric, ...] = (
    Metric(id="mae_macro", short="MAE_M", name="Macroaveraged MAE", function=mae_macro, range=(0.0, float("inf")),
           higher_is_better=False,
           formula=r"\mathrm{MAE}^M = \frac{1}{|G|}\sum_{i \in G} \frac{1}{n_i}\sum_j C_{ij}\,|i - j|",
           chance="the middle level scores the least any constant can: a mean of distances that depends on k only",
           references=(f"{BACCIANELLA} §3", "Nakov et al. 2016 §4"),
           undefined_when="no gold item (0/0)",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=True,
                        prevalence_invariance=True, chance_correction="bounded", source=DERIVED),
           description="Mean over the gold levels present of each level's mean distance in steps (the official "
                       "measure of SemEval-2016/2017 Task 4 C); lower is better."),
    Metric(id="mae", short="MAE", name="Mean absolute error", function=mae, range=(0.0, float("inf")),
           higher_is_better=False, formula=r"\mathrm{MAE} = \frac{1}{N}\sum_{ij} C_{ij}\,|i - j|",
           chance="Σ p_i q_j |i − j| for a predictor with bias q; the median gold level is the best constant",
           references=(f"{BACCIANELLA} §2",), undefined_when="no item (0/0)",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="none", source=DERIVED),
           description="Mean distance in steps of the order between prediction and gold; lower is better."),
    Metric(id="mse_macro", short="MSE_M", name="Macroaveraged MSE", function=mse_macro, range=(0.0, float("inf")),
           higher_is_better=False,
           formula=r"\mathrm{MSE}^M = \frac{1}{|G|}\sum_{i \in G} \frac{1}{n_i}\sum_j C_{ij}\,(i - j)^2",
           chance="depends on k only for a constant prediction", references=(f"{BACCIANELLA} §3",),
           undefined_when="no gold item (0/0)",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=True,
                        prevalence_invariance=True, chance_correction="bounded", source=DERIVED),
           description="Mean over the gold levels present of each level's mean squared distance; lower is better."),
    Metric(id="mse", short="MSE", name="Mean squared error", function=mse, range=(0.0, float("inf")),
           higher_is_better=False, formula=r"\mathrm{MSE} = \frac{1}{N}\sum_{ij} C_{ij}\,(i - j)^2",
           chance="Σ p_i q_j (i − j)² for a predictor with bias q; the gold mean level is the best constant",
           references=(f"{BACCIANELLA} §2",), undefined_when="no item (0/0)",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="none", source=DERIVED),
           description="Mean squared distance in steps; lower is better."),
    Metric(id="within_one", short="±1", name="Within one level", function=within_one,
           formula=r"\mathrm{Acc}_{\pm 1} = \frac{1}{N}\sum_{|i - j| \le 1} C_{ij}",
           chance="Σ_{|i − j| ≤ 1} p_i q_j for a predictor with bias q", references=(),
           undefined_when="no item (0/0)",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="none", source=DERIVED),
           description="Share of items predicted at most one level away from gold (adjacent accuracy)."),
    Metric(id="linear_kappa", short="κ_lin", name="Linearly weighted kappa", function=linear_kappa,
           range=(-1.0, 1.0),
           formula=r"\kappa_w = 1 - \frac{\sum_{ij} w_{ij} C_{ij}/N}{\sum_{ij} w_{ij}\,p_i b_j},\quad w_{ij} = |i - j|",
           chance="0 on the expected matrix N p qᵀ of any predictor that ignores its input",
           references=("Cohen 1968",),
           undefined_when="the expected weighted disagreement Σ w_ij p_i b_j is 0 (gold and prediction on one "
                          "level): 0/0",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="complete", source=DERIVED),
           description="Cohen's weighted kappa with linear weights (scikit-learn weights='linear')."),
    Metric(id="quadratic_kappa", short="κ_quad", name="Quadratically weighted kappa", function=quadratic_kappa,
           range=(-1.0, 1.0),
           formula=r"\kappa_{w^2} = 1 - \frac{\sum_{ij} w_{ij} C_{ij}/N}{\sum_{ij} w_{ij}\,p_i b_j},"
                   r"\quad w_{ij} = (i - j)^2",
           chance="0 on the expected matrix N p qᵀ of any predictor that ignores its input",
           references=("Cohen 1968",),
           undefined_when="the expected weighted disagreement Σ w_ij p_i b_j is 0 (gold and prediction on one "
                          "level): 0/0",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="complete", source=DERIVED),
           description="Cohen's weighted kappa with quadratic weights (QWK; scikit-learn weights='quadratic')."),
    Metric(id="spearman", short="ρ", name="Spearman's rank correlation", function=spearman, range=(-1.0, 1.0),
           formula=r"\rho = \frac{\sum_{ij} C_{ij}(a_i - \bar a)(b_j - \bar b)}"
                   r"{\sqrt{\sum_i n_i (a_i - \bar a)^2\,\sum_j m_j (b_j - \bar b)^2}}",
           chance="0 on the expected matrix N p qᵀ of any predictor that ignores its input",
           references=("Spearman 1904",), undefined_when=CONSTANT_RANKS,
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="complete", source=DERIVED),
           description="Pearson correlation of the average ranks (midranks a_i of gold, b_j of predictions)."),
    Metric(id="kendall_tau_b", short="τ_b", name="Kendall's τ-b", function=kendall_tau_b, range=(-1.0, 1.0),
           formula=r"\tau_b = \frac{P - Q}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}",
           chance="0 on the expected matrix N p qᵀ of any predictor that ignores its input",
           references=("Kendall 1945",), undefined_when=CONSTANT_RANKS,
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="complete", source=DERIVED),
           description="Concordant minus discordant pairs of items, corrected for ties on either side."),
    Metric(id="cem_ord", short="CEM", name="CEM-Ord (closeness evaluation measure)", function=cem_ord,
           formula=r"\mathrm{CEM} = \frac{\sum_d \mathrm{prox}(s_d, g_d)}{\sum_d \mathrm{prox}(g_d, g_d)},\quad"
                   r"\mathrm{prox}(a, b) = -\log_2 \frac{n_a/2 + \sum_{k \in (a, b]} n_k}{N}",
           chance="depends on the gold level counts", references=(f"{AMIGO} §4",),
           undefined_when="no gold item (0/0)",
           properties=P(monotonicity=False, class_sensitivity=True, decomposability=False,
                        prevalence_invariance=False, chance_correction="none", source=DERIVED),
           description="A miss weighed by how many gold items lie between the two levels: a miss across a crowded "
                       "level costs more than one across a rare level."),
)

#: The ordinal figures' ids, in table order.
ORDINAL_IDS: tuple[str, ...] = tuple(metric.id for metric in ORDINAL_METRICS)
