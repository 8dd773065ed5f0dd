"""The property probes (auditor.analyses.properties) against Opitz (2024), §6.1 Table 5, and against toys.

Source: Opitz (2024) "A Closer Look at Classification Evaluation Metrics and a Critical Reflection
of Common Evaluation Practice", TACL 12 — sources/opitz-2024-closer-look-classification-metrics.md,
§6.1 Table 5 (PI monotonicity, PII class sensitivity, PIII class decomposability, PIV prevalence
invariance, PV chance correction). The table as printed is pinned here cell by cell; the probes
follow the paper's definitions (§3.1–§3.5) and must agree with it, or the disagreement must carry
an explanation and a witness whose scores we recompute here.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from auditor import REGISTRY, ConfusionStats, Metric, Properties
from auditor.analyses.properties import PROPERTY_KEYS, PropertyTable, Witness, property_analysis
from auditor.metrics.catalogue import CALIBRATED
from auditor.metrics.literature import EXPLANATIONS, LITERATURE
from auditor.metrics.registry import load_plugin

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "examples" / "plugins"


def probe(metrics=None, user_matrices=None, seed=12345, **options) -> PropertyTable:
    """The analysis on ``metrics`` (default: every registered scalar metric) and optional user
    matrices (systems named s0, s1, ...)."""
    metrics = tuple(REGISTRY.scalar()) if metrics is None else tuple(metrics)
    user = np.zeros((0, 2, 2)) if user_matrices is None else np.asarray(user_matrices, dtype=float)
    return property_analysis(metrics, user, tuple(f"s{i}" for i in range(len(user))), seed=seed, **options)


def properties_json(table: PropertyTable) -> dict:
    return table.to_json()


@pytest.fixture(scope="module")
def table() -> PropertyTable:
    return probe(seed=12345)


# ------------------------------------------------------- Opitz (2024), §6.1 Table 5

# Table 5 as printed (✓ True, ✗ False; PV "✗" none, "✓: 1/n" bounded, "✓: 1/n, strict" strict,
# "✓: 0, complete" complete); "(✓)" after a ✗ = "obtained through prevalence calibration".
#
#   metric               | PI | PII   | PIII  | PIV   | PV
#   Accuracy (=Micro F1) | ✓  | ✗(✓)  | ✗(✓)  | ✗(✓)  | ✗(✓)
#   macro Recall (macR)  | ✓  | ✓     | ✓     | ✓     | ✓: 1/n, strict
#   as GmacR or HmacR    | ✓  | ✓     | ✓     | ✓     | ✓: 1/n
#   macro Precision      | ✓  | ✓     | ✓     | ✗(✓)  | ✓: 1/n, strict
#   macro F1 (macF1)     | ✓  | ✓     | ✓     | ✗(✓)  | ✓: 1/n
#   macro F1’ (macF1′)   | ✓  | ✓     | ✗     | ✗(✓)  | ✓: 1/n, strict
#   weighted F1          | ✗  | ✓     | ✗(✓)  | ✗(✓)  | ✗(✓)
#   Kappa                | ✗  | ✓     | ✗     | ✗(✓)  | ✓: 0, complete
#   MCC                  | ✗  | ✓     | ✗     | ✗(✓)  | ✓: 0, complete
ALL = ("class_sensitivity", "decomposability", "prevalence_invariance", "chance_correction")
#            id                 PI     PII    PIII   PIV    PV          (✓) marks                           ω(n)/Ω
TABLE_5 = [
    ("accuracy",        True,  False, False, False, "none",     ALL,                                   None),
    ("macro_recall",    True,  True,  True,  True,  "strict",   (),                                    "1/n"),
    ("gmean_recall",    True,  True,  True,  True,  "bounded",  (),                                    "1/n"),
    ("hmean_recall",    True,  True,  True,  True,  "bounded",  (),                                    "1/n"),
    ("macro_precision", True,  True,  True,  False, "strict",   ("prevalence_invariance",),            "1/n"),
    ("macro_f1",        True,  True,  True,  False, "bounded",  ("prevalence_invariance",),            "1/n"),
    ("macro_f1_hm",     True,  True,  False, False, "strict",   ("prevalence_invariance",),            "1/n"),
    ("weighted_f1",     False, True,  False, False, "none",     ALL[1:],                               None),
    ("kappa",           False, True,  False, False, "complete", ("prevalence_invariance",),            "0"),
    ("mcc",             False, True,  False, False, "complete", ("prevalence_invariance",),            "0"),
]
#: The probe reaches only bounded where the paper prints strict: the chance classifiers that never
#: predict a class have a 0/0 precision, counted as 0 (see EXPLANATIONS and the witness test).
EXPECTED_DISAGREEMENTS = {("macro_precision", "chance_correction"): "bounded",
                          ("macro_f1_hm", "chance_correction"): "bounded"}


@pytest.mark.parametrize("metric_id, mon, sens, dec, prev, chance, marks, omega", TABLE_5,
                         ids=[row[0] for row in TABLE_5])
def test_literature_is_table_5_as_printed(metric_id, mon, sens, dec, prev, chance, marks, omega):
    printed = {"monotonicity": mon, "class_sensitivity": sens, "decomposability": dec,
               "prevalence_invariance": prev, "chance_correction": chance}
    row = LITERATURE[metric_id]
    assert {key: row[key] for key in PROPERTY_KEYS} == printed
    assert row["by_calibration"] == list(marks)
    assert row["chance_value"] == omega
    assert "§6.1 Table 5" in row["source"] and "opitz-2024" in row["source"]
    for key in PROPERTY_KEYS:  # every cell cites the section that states it
        assert "§" in row["sections"][key] or "App." in row["sections"][key], (metric_id, key)
    for key in marks:
        assert "(✓)" in row["sections"][key]


def test_literature_has_exactly_the_rows_of_table_5():
    assert set(LITERATURE) == {row[0] for row in TABLE_5}
    assert "not yet checked" not in json.dumps(LITERATURE)


@pytest.mark.parametrize("metric_id, mon, sens, dec, prev, chance, marks, omega", TABLE_5,
                         ids=[row[0] for row in TABLE_5])
def test_probes_agree_with_table_5_or_explain_why_not(table, metric_id, mon, sens, dec, prev, chance, marks, omega):
    printed = {"monotonicity": mon, "class_sensitivity": sens, "decomposability": dec,
               "prevalence_invariance": prev, "chance_correction": chance}
    result = table[metric_id]
    expected = {key: EXPECTED_DISAGREEMENTS.get((metric_id, key), printed[key]) for key in PROPERTY_KEYS}
    assert {key: result.probed[key] for key in PROPERTY_KEYS} == expected
    assert {key: getattr(result.declared, key) for key in PROPERTY_KEYS} == printed  # the record declares the table
    assert "§6.1 Table 5" in result.declared.source
    for record in result.disagreement_records():
        assert record.explanation == EXPLANATIONS[(metric_id, record.property)]
        assert record.witness == record.property and record.property in result.witnesses
    for key in ("monotonicity", "prevalence_invariance"):
        if not expected[key]:
            assert key in result.witnesses, f"{metric_id} fails {key} without a witness"
    if sens:
        assert "class_sensitivity" in result.witnesses
    if omega == "1/n":
        assert result.chance_formula == "1/k"
    if omega == "0":
        assert result.chance_value == 0.0 and result.chance_formula == "0"


@pytest.mark.parametrize("seed", [0, 1, 2024])
def test_probes_do_not_depend_on_the_seed(seed):
    metrics = [REGISTRY.get(row[0]) for row in TABLE_5]
    other = probe(metrics, seed=seed)
    for metric_id, *printed in TABLE_5:
        expected = [EXPECTED_DISAGREEMENTS.get((metric_id, key), value) for key, value in zip(PROPERTY_KEYS, printed)]
        assert [other[metric_id].probed[key] for key in PROPERTY_KEYS] == expected, metric_id


def test_macro_precision_strictness_fails_only_through_the_zero_division_convention():
    """Opitz §4.3: macP is strictly chance corrected, ω(n) = 1/n. By hand, k = 3, uniform gold:
    the uniform classifier has P_j = 1/3, macP = 1/3; the constant classifier (always class 0) has
    P_0 = 1/3 and P_1, P_2 = 0/0, counted 0, so macP = 1/9. Every chance classifier that predicts
    every class scores exactly 1/3."""
    macp = REGISTRY.get("macro_precision")
    uniform_gold = np.full(3, 1 / 3)
    assert float(macp(300 * np.outer(uniform_gold, uniform_gold), True)) == pytest.approx(1 / 3)
    assert float(macp(300 * np.outer(uniform_gold, [1, 0, 0]), True)) == pytest.approx(1 / 9)
    rng = np.random.default_rng(5)
    for _ in range(50):
        p, q = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
        assert float(macp(1000 * np.outer(p, q), True)) == pytest.approx(1 / 3)


def test_pv_levels_follow_section_3_5(table):
    # strict: the same ω(k) for every chance classifier; complete: one Ω whatever k
    assert table["macro_recall"].chance_bound == {str(k): pytest.approx(1 / k) for k in (2, 3, 4, 5, 6)}
    assert table["nit"].probed["chance_correction"] == "strict" and table["nit"].chance_formula == "1/k"
    for metric_id in ("kappa", "mcc", "informedness", "markedness"):
        assert table[metric_id].probed["chance_correction"] == "complete" and table[metric_id].chance_value == 0.0
    # accuracy: a majority-class classifier on 1 − 10⁻⁷ skewed gold scores ≈ 1, the maximum
    assert table["accuracy"].chance_bound["2"] > 0.99
    # macro F1: bounded by 1/k, reached only when the bias equals the prevalence (§4.4)
    assert table["macro_f1"].chance_baselines["3"].max == pytest.approx(1 / 3)
    assert table["macro_f1"].chance_baselines["3"].min < 1 / 3


def test_chance_baselines_match_closed_forms(table):
    for k in (2, 3, 4, 5, 6):
        assert table["macro_recall"].chance_baselines[str(k)].min == pytest.approx(1 / k)
        assert table["macro_recall"].chance_baselines[str(k)].max == pytest.approx(1 / k)
        assert table["gmean_recall"].chance_baselines[str(k)].max == pytest.approx(1 / k)
        assert table["nit"].chance_baselines[str(k)].uniform_predictor == pytest.approx(1 / k)
    # MCC is 0/0 for a constant predictor: the majority-class baseline is undefined, not 0
    assert table["mcc"].chance_baselines["3"].majority_class_predictor_on_skewed_gold is None
    assert table["kappa"].chance_baselines["3"].majority_class_predictor_on_skewed_gold == pytest.approx(0.0)
    assert "left out" in table["mcc"].note


def test_kappa_and_mcc_monotonicity_witnesses_by_hand():
    """Opitz §4.7 / App. G.1: for kappa and MCC one more correct item can lower the score. Hand
    check of MCC: C = [[1,0,0],[1,1,10],[0,0,0]] plus one correct item of class 1, N = 13 → 14."""
    before = np.array([[1, 0, 0], [1, 1, 10], [0, 0, 0]], dtype=float)
    after = np.array([[1, 0, 0], [1, 2, 10], [0, 0, 0]], dtype=float)

    def mcc(c):
        n = c.sum()
        p, b = c.sum(1) / n, c.sum(0) / n
        return (np.trace(c) / n - p @ b) / np.sqrt((1 - p @ p) * (1 - b @ b))

    # before: p = (1, 12, 0)/13, b = (2, 1, 10)/13, Acc = 2/13; after: p = (1, 13, 0)/14, b = (2, 2, 10)/14
    assert mcc(after) < mcc(before)
    assert REGISTRY.get("mcc")(before) == pytest.approx(mcc(before))
    assert REGISTRY.get("mcc")(after) == pytest.approx(mcc(after))


def test_weighted_f1_gains_from_an_error_as_appendix_f1_says():
    """Opitz App. F.1: 'weightF1 increases even though a classifier made an error'. By hand:
    C = [[0, 2], [0, 1]]: F1 = (0, 2·1/(1 + 3)) = (0, 1/2), p = (2/3, 1/3), wF1 = 1/6. One more
    error (gold 1 predicted as 0): C = [[0, 2], [1, 1]]: F1 = (0, 2/(2 + 3)) = (0, 2/5),
    p = (1/2, 1/2), wF1 = 1/5 > 1/6."""
    wf1 = REGISTRY.get("weighted_f1")
    assert float(wf1(np.array([[0, 2], [0, 1]]))) == pytest.approx(1 / 6)
    assert float(wf1(np.array([[0, 2], [1, 1]]))) == pytest.approx(1 / 5)
    # the probe's own (smallest) witness: here one more *correct* item lowers the score
    witness = probe([wf1], seed=12345)["weighted_f1"].witnesses["monotonicity"]
    _check_witness(wf1, "monotonicity", witness)


def test_metrics_outside_the_table_are_marked_and_probed(table):
    for metric_id in ("informedness", "markedness", "nit"):
        result = table[metric_id]
        assert result.literature is None and result.agrees_with_literature is None
        assert "probed, not in the literature table" in result.note
        assert "not in Opitz 2024, Table 5" in result.declared.source
        assert not result.declared_differs, result.note
    assert table["informedness"].probed["monotonicity"] is False and "monotonicity" in table["informedness"].witnesses
    assert table["nit"].probed["monotonicity"] is False


def test_a_disagreement_with_the_table_is_reported_not_silenced(monkeypatch):
    wrong = dict(LITERATURE["accuracy"], prevalence_invariance=True)
    monkeypatch.setitem(LITERATURE, "accuracy", wrong)
    result = probe([REGISTRY.get("accuracy")])["accuracy"]
    assert result.agrees_with_literature is False
    assert result.disagreements == ["prevalence_invariance"]
    assert "UNEXPLAINED" in result.note


# ------------------------------------------------------------ prevalence-calibrated variants


def test_calibrated_variants_are_probed_not_copied(table):
    """Opitz §5.2: calibrated accuracy = macR (all five properties), calibrated weighted F1 =
    macF1 of the calibrated matrix; Table 5's (✓) marks of each base row must show in the probe of
    its calibrated variant."""
    for metric in REGISTRY.scalar():
        if metric.family != "calibrated":
            continue
        result = table[metric.id]
        base = REGISTRY.get(metric.id[: -len("_calibrated")])
        assert not result.declared_differs, (metric.id, result.note)
        assert result.probed["prevalence_invariance"] is True
        assert "derived for the variant" in metric.properties.source
        assert metric.chance == CALIBRATED[base.id][1] and metric.properties == CALIBRATED[base.id][0]
        if result.calibration_marks is not None:
            assert all(result.calibration_marks.shown_by_probe.values()), (metric.id, result.calibration_marks)
    assert {key: table["accuracy_calibrated"].probed[key] for key in PROPERTY_KEYS} == {
        key: table["macro_recall"].probed[key] for key in PROPERTY_KEYS}
    assert table["accuracy_calibrated"].chance_formula == "1/k"
    assert table["weighted_f1_calibrated"].probed["chance_correction"] == "bounded"
    assert table["kappa_calibrated"].chance_value == 0.0


# ------------------------------------------------------------------------- witnesses


def _score(metric: Metric, matrix) -> float:
    return float(metric.function(ConfusionStats(np.asarray(matrix, dtype=float)[None]))[0])


def _chance_score(metric: Metric, matrix) -> float:
    return float(metric.function(ConfusionStats(np.asarray(matrix, dtype=float)[None], True))[0])


def _check_witness(metric: Metric, prop: str, witness: Witness) -> None:
    """The witness demonstrates the failure: recompute both scores from its matrices."""
    before = np.asarray(witness.before, dtype=float)
    if prop == "chance_correction":
        # C = N p qᵀ (ignores its input) on gold with every class present; label set fixed at k
        assert np.linalg.matrix_rank(before) == 1 and (before.sum(1) > 0).all()
        x = _chance_score(metric, before)
        assert x == pytest.approx(witness.score_before, abs=1e-7)
        if witness.after is None:  # not bounded: a chance classifier reaches the metric's maximum
            assert x > metric.range[1] - 0.01
            return
        after = np.asarray(witness.after, dtype=float)
        assert np.linalg.matrix_rank(after) == 1 and (after.sum(1) > 0).all()
        y = _chance_score(metric, after)
        assert y == pytest.approx(witness.score_after, abs=1e-7)
        assert y != pytest.approx(x)  # two chance scores differ (same k: not strict; two k: not complete)
        return
    after = np.asarray(witness.after, dtype=float)
    x, y = _score(metric, before), _score(metric, after)
    assert (x, y) == pytest.approx((witness.score_before, witness.score_after))
    diff = after - before
    if prop == "monotonicity":  # one item added (§3.1 footnote)
        (i, j), = np.argwhere(diff != 0)
        assert diff[i, j] == 1
        assert (y < x) if i == j else (y > x)
    elif prop == "prevalence_invariance":
        rows = before.sum(1) > 0
        ratios = after[rows].sum(1) / before[rows].sum(1)
        assert np.allclose(after[rows], before[rows] * ratios[:, None])
        assert y != pytest.approx(x)
    elif prop == "class_sensitivity":  # one item added in one cell, or instead in another of its kind
        cells = np.argwhere(diff != 0)
        assert len(cells) == 2 and sorted(diff[tuple(c)] for c in cells) == [-1, 1]
        assert (cells[0][0] == cells[0][1]) == (cells[1][0] == cells[1][1])
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
           properties=Properties(monotonicity=True, class_sensitivity=True, decomposability=False,
                                 prevalence_invariance=True, chance_correction="complete",
                                 source="deliberately wrong")),
    Metric(id="toy_leaky_recall", name="toy", formula="macR + (p_0 - 1/k)/2", function=leaky_recall,
           properties=Properties(monotonicity=True, class_sensitivity=True, decomposability=True,
                                 prevalence_invariance=True, chance_correction="strict",
                                 source="deliberately wrong"), range=(-1.0, 1.5)),
]


def test_broken_toy_metrics_fail_the_right_probes_with_witnesses():
    toys = probe(TOYS, seed=7)
    blind = toys["toy_ignores_diagonal"]
    assert blind.probed["monotonicity"] is False
    assert blind.probed["prevalence_invariance"] is False
    assert blind.probed["chance_correction"] == "none"
    assert blind.probed["class_sensitivity"] is True
    assert blind.declared_differs == ("monotonicity", "prevalence_invariance", "chance_correction")
    assert blind.literature is None and "monotonicity (True declared, False probed)" in blind.note

    leaky = toys["toy_leaky_recall"]
    # one more error of gold class 0 raises p_0 and with it the score (§3.1's gradient fails)
    assert leaky.probed["monotonicity"] is False and "monotonicity" in leaky.witnesses
    assert leaky.probed["prevalence_invariance"] is False
    # chance scores 1/k + (p_0 − 1/k)/2 ≤ 1/2 + 1/(2k): bounded by a function of k (§3.5), not strict
    assert leaky.probed["chance_correction"] == "bounded"
    assert leaky.chance_bound["2"] == pytest.approx(0.75, abs=1e-6)
    assert set(leaky.declared_differs) == {"monotonicity", "prevalence_invariance", "chance_correction"}

    for toy, result in ((TOYS[0], blind), (TOYS[1], leaky)):
        for prop in ("monotonicity", "prevalence_invariance", "chance_correction"):
            if prop in result.witnesses:
                _check_witness(toy, prop, result.witnesses[prop])


def test_user_matrices_are_probed_and_can_supply_the_witness():
    """Only the user's matrix, no random ones: MCC's non-monotonicity is found on it."""
    user = np.array([[[1, 0, 0], [1, 1, 10], [0, 0, 0]]], dtype=float)
    result = probe([REGISTRY.get("mcc")], user_matrices=user, k_values=())["mcc"]
    assert result.probed["monotonicity"] is False
    assert result.witnesses["monotonicity"].before.tolist() == user[0].tolist()


# ------------------------------------------------------------------------ JSON, speed


def test_json_has_the_design_keys(table):
    document = properties_json(table)
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
    table = probe(seed=11)
    result = table["worst_class_recall"]
    assert result.probed == {"monotonicity": True, "class_sensitivity": True, "decomposability": True,
                             "prevalence_invariance": True, "chance_correction": "bounded"}
    assert not result.declared_differs
    assert result.literature is None and "not in the literature table" in result.note
    document = properties_json(table)
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
    assert result.properties["worst_class_recall"].probed["prevalence_invariance"] is True


def test_report_shows_declared_literature_and_probed_side_by_side(table):
    """The report's property section: each cell probed / Table 5 / declared, (✓) marks kept, and
    every disagreement with Table 5 explained, with its witness matrix."""
    from auditor.report.sections.properties import properties_section

    class Audit:
        properties = table

    class Context:
        audit = Audit()
        labels: list = []

        def short(self, metric_id):
            return REGISTRY.get(metric_id).label

        def name(self, metric_id):
            return REGISTRY.get(metric_id).name

        def family(self, metric_id):
            return REGISTRY.get(metric_id).family

    ctx = Context()
    section = properties_section(ctx)
    properties_table = next(b for b in section.blocks if getattr(b, "id", "") == "table-properties")
    rows = {row.header: [cell.value for cell in row.cells] for row in properties_table.rows}
    assert rows["Acc"][:5] == ["✓ / ✓ / ✓", "✗ / ✗(✓) / ✗", "✗ / ✗(✓) / ✗", "✗ / ✗(✓) / ✗", "none / none(✓) / none"]
    assert rows["macP"][4] == "bounded / strict / strict" and rows["macP"][-1] == "DIFFERS"
    assert rows["κ"][4:7] == ["complete / complete / complete", "Ω = 0", "0"]
    explained = next(b for b in section.blocks if getattr(b, "title", "").startswith("Where the probes and Table 5 "
                                                                                     "differ, and why"))
    assert "rows = gold class" in explained.title  # the orientation once, in the title
    assert len(explained.items) == 2
    for item in explained.items:
        assert "Table 5 strict" in item and "zero_division=0" in item or "0/0 precision" in item
        assert "Witness:" in item and "; C = [" in item and "rows gold" not in item


def test_opitz_appendix_g_matrix_is_a_monotonicity_witness_for_kappa_and_mcc():
    """Opitz App. G.1 prints the matrix (rows predicted x, y, z; columns true x, y, z)
    [[10, 43, 0], [1, 1, 0], [0, 0, 1]], on which kappa and MCC are 0 (up to rounding: Acc = 12/56 =
    pᵀb). In our orientation (rows gold) it is the transpose. One more error — a true y predicted
    as z — raises both: kappa to 1/286 = 0.0034965, MCC to 0.0130440. The probe finds the same
    failure when given this matrix alone."""
    printed = np.array([[10, 43, 0], [1, 1, 0], [0, 0, 1]], dtype=float)
    matrix = printed.T
    after = matrix.copy()
    after[1, 2] += 1
    for metric_id, raised in (("kappa", 1 / 286), ("mcc", 0.013043971426)):
        metric = REGISTRY.get(metric_id)
        assert float(metric(matrix)) == pytest.approx(0.0, abs=1e-12)
        assert float(metric(after)) == pytest.approx(raised, rel=1e-9)
        result = probe([metric], user_matrices=matrix[None], k_values=())[metric_id]
        assert result.probed["monotonicity"] is False


# ------------------------------------------------------------- typed inputs, provenance


def test_the_seed_comes_from_the_caller():
    import inspect

    assert inspect.signature(property_analysis).parameters["seed"].default is inspect.Parameter.empty


def test_a_witness_on_a_systems_own_matrix_names_the_system():
    user = np.array([[[1, 0, 0], [1, 1, 10], [0, 0, 0]]], dtype=float)
    result = property_analysis([REGISTRY.get("mcc")], user, ("tagger",), seed=1, k_values=())["mcc"]
    assert result.witnesses["monotonicity"].system == "tagger"
    generated = probe([REGISTRY.get("mcc")], seed=1)["mcc"].witnesses["monotonicity"]
    assert generated.system is None


def test_reference_chance_classifiers_are_scored_even_when_sampled_away():
    """Many systems at k = 2 make more chance classifiers than the probe keeps (400); the uniform
    classifier on uniform gold and the majority-class one on skewed gold (p = (2/3, 1/3)) are scored
    on their own matrices all the same: accuracy 1/2 and 2/3, kappa 0 (by hand: Acc = pᵀb)."""
    rng = np.random.default_rng(0)
    user = rng.integers(1, 30, size=(40, 2, 2)).astype(float)
    table = probe([REGISTRY.get("accuracy"), REGISTRY.get("kappa")], user, seed=3, k_values=())
    accuracy, kappa = table["accuracy"].chance_baselines["2"], table["kappa"].chance_baselines["2"]
    assert accuracy.uniform_predictor == pytest.approx(0.5)
    assert accuracy.majority_class_predictor_on_skewed_gold == pytest.approx(2 / 3)
    assert kappa.uniform_predictor == pytest.approx(0.0, abs=1e-12)


def test_germeval_properties_equal_the_kept_figures(germeval_counts):
    """The property table of GermEval-2018 (seed 12345) has the figures kept in tests/expectations/germeval.json
    (every number and identifier under ``/properties``; prose is not a figure): the probes' values and witnesses do
    not change when the code around them does. (The declaration's ``source`` names modules; it is left out.)"""
    from figures import differences, flatten

    kept = json.loads((Path(__file__).resolve().parent / "expectations" / "germeval.json").read_text(encoding="utf-8"))
    kept = {key: value for key, value in kept.items()
            if key.startswith("/properties/") and not key.endswith("/declared/source")}
    metric_ids = sorted({key.split("/")[2] for key in kept})
    table = property_analysis([REGISTRY.get(m) for m in metric_ids], germeval_counts.confusion,
                              germeval_counts.systems, seed=12345)
    found = flatten({"properties": json.loads(json.dumps(properties_json(table)["properties"]))})
    found = {key: value for key, value in found.items() if not key.endswith("/declared/source")}
    assert not differences(kept, found)  # at the kept-figures test's tolerance (rel 1e-9): a rounding is no change


def test_chance_classifiers_hold_k_shares_not_k_by_k_matrices():
    """Each classifier's p and q are vectors of k shares that own their memory or view a few rows of
    k (the Dirichlet draws share one small array): a row of ``np.eye(k)`` kept its whole k × k matrix alive, and
    with the extreme gold of every class (k golds) the probes of a 1,000-class audit held ~14 GB (measured:
    14.4 GB peak before, 0.95 GB after)."""
    from auditor.analyses.probe_matrices import chance_classifiers

    k = 40
    classifiers = chance_classifiers(k, np.random.default_rng(0), None, 10**6)
    for vector in [c.p for c in classifiers] + [c.q for c in classifiers]:
        assert vector.shape == (k,)
        assert vector.base is None or vector.base.size <= 10 * k  # np.eye(k): k * k = 1,600


def test_chance_witnesses_show_scores_x100_and_shares_as_fractions():
    """PV witnesses read as the rest of the report (whose witness table says "scores ×100"): scores ×100 with
    one decimal (macro recall of the uniform classifier on uniform gold is 1/k: 50.0 at k = 2, 33.3 at k = 3),
    shares as exact fractions; never a 6-digit float such as 0.333333."""
    import re

    from auditor.analyses.probe_matrices import share_text

    table = probe([REGISTRY.get(m) for m in ("macro_recall", "macro_f1", "accuracy")])
    texts = {entry.metric_id: entry.witnesses["chance_correction"].description for entry in table}
    assert "scores 50.0 at k=2 and 33.3 at k=3 (shown" in texts["macro_recall"]
    assert "p=(1/2, 1/2)" in texts["macro_f1"]
    for text in texts.values():
        assert not re.search(r"\d\.\d{4,}", text), text
    assert [share_text(x) for x in (1 / 3, 4 / 7, 1 - 1e-7, 1e-7, 0.123456)] == ["1/3", "4/7", "1 − 10⁻⁷", "10⁻⁷",
                                                                               "0.123"]
