"""Ordinal figures (issue 34) against independent sources: scikit-learn's weighted kappas and MAE, scipy's
rank correlations, CEM-Ord written here from its definition, hand computations; and their invariants."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, mean_absolute_error, mean_squared_error

from auditor.metrics.registry import ConfusionStats
from auditor.tasks.ordinal.measures import ORDINAL_METRICS, cem_ord, kendall_tau_b, mae, mae_macro, proximity

BY_ID = {metric.id: metric for metric in ORDINAL_METRICS}
#: The oracles warn where a figure is undefined (a constant input); the tests check the undefined value instead.
pytestmark = [pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning"),
              pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")]


def confusion(gold, predicted, k):
    matrix = np.zeros((k, k))
    np.add.at(matrix, (np.asarray(gold), np.asarray(predicted)), 1)
    return matrix


def figure(metric_id, matrix):
    return float(BY_ID[metric_id].function(ConfusionStats(np.asarray(matrix, dtype=float)[None], True))[0])


def cem_from_definition(gold, predicted, k):
    """CEM-Ord as Amigó et al. (ACL 2020) define it, item by item: CEM = Σ_d prox(s_d, g_d) / Σ_d prox(g_d, g_d),
    prox(a, b) = −log2((n_a/2 + Σ_{k between a (excluded) and b (included)} n_k) / N), n the gold counts."""
    n = np.bincount(gold, minlength=k)
    total = len(gold)

    def prox(a, b):
        between = n[a + 1:b + 1].sum() if a < b else n[b:a].sum()
        return -math.log2((n[a] / 2 + between) / total)

    return sum(prox(s, g) for s, g in zip(predicted, gold)) / sum(prox(g, g) for g in gold)


def oracles(gold, predicted, k):
    """Each figure from an independent implementation (None where it is undefined)."""
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    levels = list(range(k))
    present = np.unique(gold)
    with np.errstate(all="ignore"):
        rho = scipy.stats.spearmanr(gold, predicted).statistic
        tau = scipy.stats.kendalltau(gold, predicted).statistic  # variant b, scipy's default
    return {
        "mae": mean_absolute_error(gold, predicted),
        "mse": mean_squared_error(gold, predicted),
        "mae_macro": np.mean([np.abs(predicted[gold == i] - i).mean() for i in present]),
        "mse_macro": np.mean([((predicted[gold == i] - i) ** 2).mean() for i in present]),
        "within_one": np.mean(np.abs(gold - predicted) <= 1),
        "linear_kappa": cohen_kappa_score(gold, predicted, labels=levels, weights="linear"),
        "quadratic_kappa": cohen_kappa_score(gold, predicted, labels=levels, weights="quadratic"),
        "spearman": None if np.isnan(rho) else rho,
        "kendall_tau_b": None if np.isnan(tau) else tau,
        "cem_ord": cem_from_definition(gold, predicted, k),
    }


def test_a_hand_computed_example():
    # gold 0 0 1 2, predicted 0 1 1 0 over three levels: distances 0 1 0 2
    gold, predicted = [0, 0, 1, 2], [0, 1, 1, 0]
    matrix = confusion(gold, predicted, 3)
    assert figure("mae", matrix) == pytest.approx(3 / 4)
    assert figure("mse", matrix) == pytest.approx(5 / 4)
    assert figure("mae_macro", matrix) == pytest.approx((1 / 2 + 0 + 2) / 3)  # per gold level: 0.5, 0, 2
    assert figure("within_one", matrix) == pytest.approx(3 / 4)
    # n = (2, 1, 1), N = 4: prox(0,0) = −log2(1/4) = 2, prox(1,1) = prox(2,2) = −log2(1/8) = 3;
    # item 2: prox(1, 0) = −log2((1/2 + 2)/4); item 4: prox(0, 2) = −log2((1 + 1 + 1)/4)
    numerator = 2 + -math.log2(2.5 / 4) + 3 + -math.log2(3 / 4)
    assert figure("cem_ord", matrix) == pytest.approx(numerator / (2 + 2 + 3 + 3))


def test_cefr_sp_every_figure_equals_the_oracles_and_figures_md(shared_data):
    """The six CEFR-SP systems and annotator B: every ordinal figure against scikit-learn, scipy and CEM-Ord from
    its definition, and the figures the data's figures.md states (4 decimals)."""
    import pandas as pd

    from auditor.tasks.ordinal.run import audit

    folder = shared_data / "cefr-sp-wikiauto" / "audit"
    levels = (folder / "order.txt").read_text().strip().split(",")
    position = {level: i for i, level in enumerate(levels)}
    gold = pd.read_csv(folder / "gold.tsv", sep="\t")
    files = {path.stem: str(path) for path in sorted((folder / "systems").glob("*.tsv"))}
    files["annotator-b"] = str(folder / "annotator-b.tsv")
    from auditor.options import AuditOptions

    result = audit(str(folder / "gold.tsv"), files, order_file=str(folder / "order.txt"),
                   options=AuditOptions(bootstrap=0), analyses=())
    stated = {  # figures.md: MAE, MAE^M, linear kappa, quadratic kappa, Spearman rho
        "ridge-rounded": (0.4764, 0.8236, 0.4854, 0.6448, 0.6623),
        "ridge-cutpoints": (0.5591, 0.6493, 0.5115, 0.6983, 0.6946),
        "lr-nominal": (0.5157, 0.8264, 0.4573, 0.5988, 0.6224),
        "length-only": (0.8504, 1.0248, 0.1889, 0.2743, 0.2728),
        "majority": (0.8780, 1.5000, 0.0, 0.0, None),
        "second-class": (0.7598, 1.5000, 0.0, 0.0, None),
        "annotator-b": (0.6352, 0.6190, 0.4059, 0.6751, 0.7077),
    }
    catalogue = {  # figures.md: accuracy_score, f1_score(labels=1..6, average='macro', zero_division=0)
        "ridge-rounded": (0.5577, 0.3419), "ridge-cutpoints": (0.5000, 0.4058), "lr-nominal": (0.5446, 0.3359),
        "length-only": (0.3675, 0.2711), "majority": (0.3570, 0.0877), "second-class": (0.3753, 0.0910),
        "annotator-b": (0.3648, 0.3955),
    }
    worst = {}
    for name, path in files.items():
        system = pd.read_csv(path, sep="\t").set_index("id").loc[gold["id"]]
        expected = oracles(gold["level"].map(position), system["level"].map(position), len(levels))
        metrics = result.audit.systems[name].metrics
        for metric_id, value in expected.items():
            got = metrics[metric_id].value
            if value is None:
                assert got is None and "single level" in metrics[metric_id].undefined
                continue
            worst[metric_id] = max(worst.get(metric_id, 0.0), abs(got - value))
        for metric_id, value in zip(("mae", "mae_macro", "linear_kappa", "quadratic_kappa", "spearman"), stated[name]):
            assert (metrics[metric_id].value is None) if value is None else round(metrics[metric_id].value, 4) == value
        assert (round(metrics["accuracy"].value, 4), round(metrics["macro_f1"].value, 4)) == catalogue[name]
    assert set(worst) == set(BY_ID) and max(worst.values()) < 1e-12, worst


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6).flatmap(lambda k: st.tuples(
    st.just(k), st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=2, max_size=40))))
def test_random_data_against_the_oracles(case):
    k, pairs = case
    gold, predicted = (np.array(x) for x in zip(*pairs))
    if len(np.unique(gold)) < 2:
        return  # an audit refuses a single gold level
    matrix = confusion(gold, predicted, k)
    for metric_id, value in oracles(gold, predicted, k).items():
        got = figure(metric_id, matrix)
        if value is None or (isinstance(value, float) and np.isnan(value)):
            assert np.isnan(got), metric_id
        else:
            assert got == pytest.approx(value, abs=1e-9), metric_id


matrices = st.integers(2, 6).flatmap(lambda k: st.lists(st.integers(0, 9), min_size=k * k, max_size=k * k).map(
    lambda cells: np.array(cells, dtype=float).reshape(k, k)))


@settings(max_examples=80, deadline=None)
@given(matrices)
def test_a_perfect_system_has_no_error(matrix):
    perfect = np.diag(matrix.sum(axis=1))
    if perfect.sum() == 0:
        return
    for metric_id in ("mae", "mse", "mae_macro", "mse_macro"):
        assert figure(metric_id, perfect) == 0
    assert figure("within_one", perfect) == 1 and figure("cem_ord", perfect) == pytest.approx(1)


@settings(max_examples=80, deadline=None)
@given(matrices, st.data())
def test_a_nearer_miss_never_raises_mae_nor_lowers_cem(matrix, data):
    """One item moved one step towards its gold level: MAE, MAE^M, MSE never rise; CEM-Ord never falls (Amigó et
    al.'s ordinal monotonicity: the gold counts, and so the proximities, stay as they are)."""
    k = matrix.shape[0]
    cells = [(i, j) for i in range(k) for j in range(k) if i != j and matrix[i, j] > 0]
    if not cells:
        return
    i, j = data.draw(st.sampled_from(cells))
    nearer = matrix.copy()
    nearer[i, j] -= 1
    nearer[i, j + (1 if i > j else -1)] += 1
    for metric_id in ("mae", "mae_macro", "mse", "mse_macro"):
        assert figure(metric_id, nearer) <= figure(metric_id, matrix) + 1e-12
    assert figure("cem_ord", nearer) >= figure("cem_ord", matrix) - 1e-12


@settings(max_examples=80, deadline=None)
@given(matrices)
def test_reversing_the_order_changes_no_symmetric_figure(matrix):
    """Reading the levels the other way round (C with both axes reversed) leaves every distance and every rank
    comparison as it was."""
    reversed_matrix = matrix[::-1, ::-1]
    for metric_id in ("mae", "mse", "mae_macro", "mse_macro", "within_one", "linear_kappa", "quadratic_kappa",
                      "spearman", "kendall_tau_b"):
        a, b = figure(metric_id, matrix), figure(metric_id, reversed_matrix)
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, abs=1e-12), metric_id


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=3, max_size=30), st.data())
def test_quadratic_kappa_is_the_same_under_a_relabelling_that_keeps_the_order(pairs, data):
    """Levels renamed by any increasing map (spread over a longer scale, as scikit-learn sees label values) keep
    their order; weighted kappa on the levels' ranks is the same (scikit-learn's cohen_kappa_score, which
    weighs by label index, agrees)."""
    gold, predicted = (np.array(x) for x in zip(*pairs))
    steps = data.draw(st.lists(st.integers(1, 5), min_size=5, max_size=5))
    renamed = np.cumsum(steps)  # an increasing map of 0..4
    ours = figure("quadratic_kappa", confusion(gold, predicted, 5))
    theirs = cohen_kappa_score(renamed[gold], renamed[predicted], labels=list(renamed), weights="quadratic")
    assert (np.isnan(ours) and np.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-9)


def test_every_figure_takes_batch_axes():
    rng = np.random.default_rng(4)
    stack = rng.integers(0, 7, size=(3, 2, 5, 5)).astype(float)
    stats = ConfusionStats(stack, True)
    for metric in ORDINAL_METRICS:
        batch = metric.function(stats)
        assert batch.shape == (3, 2)
        for b in range(3):
            for s in range(2):
                one = metric.function(ConfusionStats(stack[b, s][None], True))[0]
                assert (np.isnan(one) and np.isnan(batch[b, s])) or one == pytest.approx(batch[b, s]), metric.id


def test_proximity_is_not_symmetric_and_a_crowded_level_costs_more():
    n = np.array([10.0, 80.0, 10.0])
    prox = proximity(n)
    assert prox[0, 1] != prox[1, 0]
    # from level 0 to 2 the 80 items of level 1 lie between: less close than from 1 to 2
    assert prox[0, 2] < prox[1, 2]


def test_constant_prediction_leaves_the_rank_correlations_undefined():
    matrix = confusion([0, 1, 2, 1], [1, 1, 1, 1], 3)
    assert np.isnan(figure("spearman", matrix)) and np.isnan(figure("kendall_tau_b", matrix))
    assert figure("mae", matrix) == pytest.approx(0.5)
    assert mae(ConfusionStats(matrix[None], True))[0] == pytest.approx(0.5)
    assert mae_macro(ConfusionStats(matrix[None], True))[0] == pytest.approx(2 / 3)
    assert not np.isnan(cem_ord(ConfusionStats(matrix[None], True))[0])
    assert np.isnan(kendall_tau_b(ConfusionStats(np.zeros((1, 3, 3)), True))[0])
