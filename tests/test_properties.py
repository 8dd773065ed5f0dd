"""The property probes (auditor.properties) against Opitz (2024), Table 5, and against toys.

Each expected row below is Opitz (2024) "A Closer Look at Classification Evaluation Metrics and
a Critical Reflection of Common Evaluation Practice", TACL 12, Table 5 (PI monotonicity, PII
class sensitivity, PIII class decomposability, PIV prevalence invariance, PV chance
correction). The probes must find them on random, adversarial and user matrices, and every
failed property must carry a witness whose two scores we recompute here.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from auditor import REGISTRY, ConfusionStats, Metric, Properties
from auditor.properties import (
    LITERATURE, PROPERTY_KEYS, PropertyTable, Witness, probe_properties,
)
from auditor.registry import load_plugin

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "examples" / "plugins"


@pytest.fixture(scope="module")
def table() -> PropertyTable:
    return probe_properties(seed=12345)


# --------------------------------------------------------------- Opitz (2024), Table 5

#            id                 PI     PII    PIII   PIV    PV          row of Table 5
TABLE_5 = [
    ("accuracy",        True,  False, False, False, "none"),      # Acc
    ("macro_recall",    True,  True,  True,  True,  "bounded"),   # macR: chance value ω(k) = 1/k
    ("gmean_recall",    True,  True,  True,  True,  "bounded"),   # GmacR
    ("hmean_recall",    True,  True,  True,  True,  "bounded"),   # HmacR
    ("macro_precision", True,  True,  True,  False, "none"),      # macP
    ("macro_f1",        True,  True,  True,  False, "none"),      # macF1 (mean of class F1)
    ("macro_f1_hm",     True,  True,  False, False, "none"),      # macF1′ (F1 of macP, macR)
    ("weighted_f1",     True,  True,  False, False, "none"),      # weighted F1
    ("kappa",           False, True,  False, False, "strict"),    # Kappa: not monotone (§4.7)
    ("mcc",             False, True,  False, False, "strict"),    # MCC: not monotone (§4.7)
]


@pytest.mark.parametrize("metric_id, mon, sens, dec, prev, chance", TABLE_5, ids=[row[0] for row in TABLE_5])
def test_probes_reproduce_opitz_table_5(table, metric_id, mon, sens, dec, prev, chance):
    expected = {"monotonicity": mon, "class_sensitivity": sens, "decomposability": dec,
                "prevalence_invariance": prev, "chance_correction": chance}
    result = table[metric_id]
    assert {key: LITERATURE[metric_id][key] for key in PROPERTY_KEYS} == expected  # the table as transcribed
    assert {key: result.probed[key] for key in PROPERTY_KEYS} == expected          # what the probes find
    assert {key: result.declared[key] for key in PROPERTY_KEYS} == expected        # what the record declares
    assert result.declared["source"] == "Opitz 2024, Table 5"
    assert result.agrees_with_literature is True and not result.disagreements
    for key in ("monotonicity", "prevalence_invariance"):
        if not expected[key]:
            assert key in result.witnesses, f"{metric_id} fails {key} without a witness"
    if sens:  # a witness of sensitivity: one move that keeps N and the number correct
        assert "class_sensitivity" in result.witnesses


@pytest.mark.parametrize("seed", [0, 1, 2024])
def test_table_5_does_not_depend_on_the_seed(seed):
    metrics = [REGISTRY.get(row[0]) for row in TABLE_5]
    other = probe_properties(metrics, seed=seed)
    for metric_id, *expected in TABLE_5:
        assert [other[metric_id].probed[key] for key in PROPERTY_KEYS] == expected, metric_id


def test_kappa_and_mcc_monotonicity_witnesses_by_hand():
    """Opitz §4.7: for kappa and MCC a correct prediction can lower the score. Hand check of MCC
    on the probe's witness family: C = [[1,0,0],[1,1,10],[0,0,0]], N = 13."""
    before = np.array([[1, 0, 0], [1, 1, 10], [0, 0, 0]], dtype=float)
    after = np.array([[1, 0, 0], [1, 2, 9], [0, 0, 0]], dtype=float)
    # p = (1, 12, 0)/13, b = (2, 1, 10)/13 -> (2, 2, 9)/13; Acc = 2/13 -> 3/13
    p = np.array([1, 12, 0]) / 13

    def mcc(acc, b):
        return (acc - p @ b) / np.sqrt((1 - p @ p) * (1 - b @ b))

    by_hand_before = mcc(2 / 13, np.array([2, 1, 10]) / 13)
    by_hand_after = mcc(3 / 13, np.array([2, 2, 9]) / 13)
    assert by_hand_after < by_hand_before
    assert REGISTRY.get("mcc")(before) == pytest.approx(by_hand_before)
    assert REGISTRY.get("mcc")(after) == pytest.approx(by_hand_after)


def test_chance_baselines_match_closed_forms(table):
    for k in (2, 3, 4, 5, 6):
        assert table["macro_recall"].chance_baselines[str(k)]["min"] == pytest.approx(1 / k)
        assert table["macro_recall"].chance_baselines[str(k)]["max"] == pytest.approx(1 / k)
        assert table["gmean_recall"].chance_baselines[str(k)]["max"] == pytest.approx(1 / k)
        assert table["nit"].chance_baselines[str(k)]["uniform_predictor"] == pytest.approx(1 / k)
    for metric_id in ("kappa", "mcc", "informedness", "markedness"):
        assert table[metric_id].chance_value == 0.0
    # MCC is 0/0 for a constant predictor: the majority-class baseline is undefined, not 0
    assert table["mcc"].chance_baselines["3"]["majority_class_predictor_on_skewed_gold"] is None
    assert table["kappa"].chance_baselines["3"]["majority_class_predictor_on_skewed_gold"] == pytest.approx(0.0)


def test_metrics_outside_the_table_are_marked_and_probed(table):
    for metric_id in ("informedness", "markedness", "nit"):
        result = table[metric_id]
        assert result.literature is None and result.agrees_with_literature is None
        assert "probed, not in the literature table" in result.note
        assert "not in Opitz 2024, Table 5" in result.declared["source"]
        assert not result.declared_disagreements, result.note
    # what the probes found, each with a witness
    assert table["informedness"].probed["monotonicity"] is False and "monotonicity" in table["informedness"].witnesses
    assert table["nit"].probed["monotonicity"] is False
    assert table["informedness"].probed["chance_correction"] == "complete"
    assert table["nit"].probed["chance_correction"] == "bounded"


def test_a_disagreement_with_the_table_is_reported_not_silenced(monkeypatch):
    wrong = dict(LITERATURE["accuracy"], prevalence_invariance=True)
    monkeypatch.setitem(LITERATURE, "accuracy", wrong)
    result = probe_properties([REGISTRY.get("accuracy")])["accuracy"]
    assert result.agrees_with_literature is False
    assert result.disagreements == ["prevalence_invariance"]
    assert "UNEXPLAINED" in result.note


# ------------------------------------------------------------------------- witnesses


def _score(metric: Metric, matrix) -> float:
    return float(metric.function(ConfusionStats(np.asarray(matrix, dtype=float)[None]))[0])


def _check_witness(metric: Metric, prop: str, witness: Witness) -> None:
    """The witness demonstrates the failure: recompute both scores from its matrices."""
    before = np.asarray(witness.before, dtype=float)
    if prop == "chance_correction":
        assert np.linalg.matrix_rank(before) == 1  # C = N p qᵀ: ignores its input
        if witness.after is None:
            assert _score(metric, before) > 1 / before.shape[0]
        else:
            after = np.asarray(witness.after, dtype=float)
            q_before, q_after = before.sum(0) / before.sum(), after.sum(0) / after.sum()
            assert np.allclose(q_before, q_after)  # same predictor, different gold prevalence
            # the chance probe fixes the label set at k
            s = [float(metric.function(ConfusionStats(m[None], True))[0]) for m in (before, after)]
            assert s == pytest.approx([witness.score_before, witness.score_after]) and s[0] != pytest.approx(s[1])
        return
    after = np.asarray(witness.after, dtype=float)
    x, y = _score(metric, before), _score(metric, after)
    assert (x, y) == pytest.approx((witness.score_before, witness.score_after))
    diff = after - before
    if prop == "monotonicity":
        (i, j), = np.argwhere(diff < 0)
        assert diff[i, j] == -1 and diff[i, i] == 1 and i != j and np.count_nonzero(diff) == 2
        assert y < x
    elif prop == "prevalence_invariance":
        rows = before.sum(1) > 0
        ratios = after[rows].sum(1) / before[rows].sum(1)
        assert np.allclose(after[rows], before[rows] * ratios[:, None])
        assert y != pytest.approx(x)
    elif prop == "class_sensitivity":
        assert after.sum() == before.sum() and np.trace(after) == np.trace(before)
        assert y != pytest.approx(x)


def test_every_witness_demonstrates_its_failure(table):
    checked = 0
    for result in table:
        metric = REGISTRY.get(result.metric_id)
        for prop, witness in result.witnesses.items():
            _check_witness(metric, prop, witness)
            checked += 1
    assert checked > 40


def ignores_diagonal(s: ConfusionStats) -> np.ndarray:
    """Share of items predicted as class 0: never looks at whether a prediction is right."""
    return s.bias[..., 0]


def leaky_recall(s: ConfusionStats) -> np.ndarray:
    """Macro recall plus half the excess prevalence of class 0: leaks the test set's skew."""
    return s.macro(s.recall) + 0.5 * (s.prevalence[..., 0] - 1 / s.k)


TOYS = [
    Metric(id="toy_ignores_diagonal", name="toy", formula="b_0", function=ignores_diagonal,
           properties=Properties(True, True, False, True, "complete", source="deliberately wrong")),
    Metric(id="toy_leaky_recall", name="toy", formula="macR + (p_0 - 1/k)/2", function=leaky_recall,
           properties=Properties(True, True, True, True, "bounded", source="deliberately wrong")),
]


def test_broken_toy_metrics_fail_the_right_probes_with_witnesses():
    toys = probe_properties(TOYS, seed=7)
    blind = toys["toy_ignores_diagonal"]
    assert blind.probed["monotonicity"] is False
    assert blind.probed["prevalence_invariance"] is False
    assert blind.probed["chance_correction"] == "none"
    assert blind.probed["class_sensitivity"] is True
    assert set(blind.declared_disagreements) == {"monotonicity", "prevalence_invariance", "chance_correction"}
    assert blind.literature is None and "monotonicity (True declared, False probed)" in blind.note

    leaky = toys["toy_leaky_recall"]
    assert leaky.probed["monotonicity"] is True and "monotonicity" not in leaky.witnesses
    assert leaky.probed["prevalence_invariance"] is False
    assert leaky.probed["chance_correction"] == "none"
    assert set(leaky.declared_disagreements) == {"prevalence_invariance", "chance_correction"}

    for toy, result in ((TOYS[0], blind), (TOYS[1], leaky)):
        for prop in ("monotonicity", "prevalence_invariance", "chance_correction"):
            if result.probed[prop] in (False, "none"):
                _check_witness(toy, prop, result.witnesses[prop])


def test_user_matrices_are_probed_and_can_supply_the_witness():
    """Only the user's matrix, no random ones: MCC's non-monotonicity is found on it."""
    user = np.array([[[1, 0, 0], [1, 1, 10], [0, 0, 0]]], dtype=float)
    result = probe_properties([REGISTRY.get("mcc")], user_matrices=user, k_values=())["mcc"]
    assert result.probed["monotonicity"] is False
    assert result.witnesses["monotonicity"].before.tolist() == user[0].tolist()


# ------------------------------------------------------------------------ JSON, speed


def test_json_has_the_design_keys(table):
    document: dict = {}
    table.add_to_json(document)
    json.dumps(document, allow_nan=False)
    assert set(document["properties"]) == {metric.id for metric in REGISTRY.scalar()}
    for metric_id, entry in document["properties"].items():
        assert isinstance(entry["monotonicity"], bool) and isinstance(entry["class_sensitivity"], bool)
        assert isinstance(entry["decomposability"], bool) and isinstance(entry["prevalence_invariance"], bool)
        assert entry["chance_correction"] in ("none", "bounded", "strict", "complete")
        for key in ("chance_value", "declared", "literature", "agrees_with_literature", "witnesses", "note"):
            assert key in entry
        for witness in entry["witnesses"].values():
            assert {"description", "before", "after", "score_before", "score_after"} <= set(witness)


def test_all_probes_for_all_metrics_are_fast():
    start = time.perf_counter()
    probe_properties(seed=3)
    assert time.perf_counter() - start < 2.0


# --------------------------------------------------------------------------- plugin


@pytest.fixture
def plugin(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    load_plugin("my_metric")
    yield REGISTRY.get("worst_class_recall")
    REGISTRY.metrics.pop("worst_class_recall", None)
    for alias in [a for a, target in REGISTRY.aliases.items() if target == "worst_class_recall"]:
        del REGISTRY.aliases[alias]
    sys.modules.pop("my_metric", None)


def test_example_plugin_is_probed_like_the_built_ins(plugin):
    assert REGISTRY.resolve("min recall") == "worst_class_recall"
    table = probe_properties(seed=11)
    result = table["worst_class_recall"]
    assert result.probed == {"monotonicity": True, "class_sensitivity": True, "decomposability": True,
                             "prevalence_invariance": True, "chance_correction": "bounded"}
    assert not result.declared_disagreements
    assert result.literature is None and "not in the literature table" in result.note
    document: dict = {}
    table.add_to_json(document)
    assert document["properties"]["worst_class_recall"]["chance_correction"] == "bounded"


def test_example_plugin_reaches_the_audit_json(plugin):
    audit_module = pytest.importorskip("auditor.pipeline")
    gold = ["a", "b", "b", "c", "a", "c", "b", "a"]
    result = audit_module.audit(gold, {"s1": ["a", "b", "a", "c", "a", "b", "b", "a"],
                                       "s2": ["b", "b", "b", "c", "a", "c", "c", "a"]},
                                bootstrap=0, plugins=("my_metric",))
    document = result.to_json()
    assert "worst_class_recall" in document["properties"]
    assert document["properties"]["kappa"]["monotonicity"] is False
    assert result.analyses["properties"]["worst_class_recall"].probed["prevalence_invariance"] is True
