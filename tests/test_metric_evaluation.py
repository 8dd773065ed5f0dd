"""The batched evaluation of the catalogue gives the same floats, bit for bit, as the plain formulas.

:func:`auditor.metrics.catalogue.compute` sums short rows slice by slice (:func:`~auditor.metrics.registry.sum_last`),
shares the margins between a matrix and its prevalence-calibrated matrix and skips masks that mask nothing
(issue 40). Summation order changes floats, so every value is compared bit for bit (NaN and -0.0 included) with
:class:`Plain`, the formulas as written before that work: numpy's own ``sum``, ``np.where`` masks, one division
per ratio, the calibrated matrix built and summed again. Dense and sparse stats, every label active or not, empty
rows, columns and matrices, counts and fractions.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from auditor.metrics import registry
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import REGISTRY, ConfusionStats, axis_order, sum_columns, sum_last


def _ratio(numerator, denominator):
    numerator, denominator = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    undefined = denominator == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        value = numerator / np.where(undefined, 1.0, denominator)
    return np.where(undefined, 0.0, value), undefined


class Plain:
    """Margins and per-class ratios of a confusion tensor, as plainly as numpy writes them."""

    def __init__(self, row, col, diag, row_xlogx, active):
        self.row, self.col, self.diag, self.row_xlogx = row, col, diag, row_xlogx
        self.n = row.sum(axis=-1)
        self.active = np.ones(row.shape, dtype=bool) if active else (row + col) > 0
        self.k_active = self.active.sum(axis=-1)
        n = self.n[..., None]
        self.prevalence, self.bias = _ratio(row, n)[0], _ratio(col, n)[0]
        self.recall, recall_undefined = _ratio(diag, row)
        self.precision, precision_undefined = _ratio(diag, col)
        self.f1 = _ratio(2 * diag, row + col)[0]
        fpr, fpr_undefined = _ratio(col - diag, n - row)
        npv, npv_undefined = _ratio(n - row - col + diag, n - col)
        self.informedness = np.where(recall_undefined | fpr_undefined, 0.0, self.recall - fpr)
        self.markedness = np.where(precision_undefined | npv_undefined, 0.0, self.precision + npv - 1)

    @classmethod
    def dense(cls, C, active):
        terms = np.log(C, out=np.zeros_like(C), where=C > 0)
        terms *= C
        return cls(C.sum(axis=-1), C.sum(axis=-2), np.diagonal(C, axis1=-2, axis2=-1), terms.sum(axis=-1), active)

    @classmethod
    def cells(cls, shape, flat, count, active):
        k, size = shape[-1], int(np.prod(shape[:-1]))
        gold_row, column = flat // k, (flat // (k * k)) * k + flat % k
        on_diagonal = (flat % k) == (gold_row % k)
        terms = count * np.log(np.where(count > 0, count, 1.0))
        row, col, diag, xlogx = (np.bincount(index, weights=weights, minlength=size).reshape(shape[:-1]) for
                                 index, weights in ((gold_row, count), (column, count),
                                                    (gold_row[on_diagonal], count[on_diagonal]), (gold_row, terms)))
        return cls(row, col, diag, xlogx, active)

    def macro(self, x):
        return np.where(self.active, x, 0.0).sum(axis=-1) / np.maximum(self.k_active, 1)


def _scale(row):
    present = row > 0
    target = np.where(present, np.broadcast_to(np.ones(row.shape[-1]), row.shape), 0.0)
    total = target.sum(axis=-1, keepdims=True)
    target = np.divide(target, total, out=np.zeros_like(target), where=total > 0)
    return _ratio(row.sum(axis=-1, keepdims=True) * target, row)[0]


def _entropy(x):
    safe = np.where(x > 0, x, 1.0)
    terms = np.log2(safe)
    terms *= safe
    return terms.sum(axis=-1)


def plain_metrics(s: Plain) -> dict[str, np.ndarray]:
    """The 13 base metrics of the catalogue, their formulas as written at bfa10b2 (NIT only with Σ C ln C)."""
    n = np.asarray(s.n, dtype=float)
    accuracy = np.divide(s.diag.sum(axis=-1), n, out=np.full(np.shape(n), np.nan), where=n > 0)
    macro_p, macro_r = s.macro(s.precision), s.macro(s.recall)
    value, undefined = _ratio(2 * macro_p * macro_r, macro_p + macro_r)
    has_zero = (s.active & (s.recall == 0)).any(axis=-1)
    logs = np.where(s.active, np.log(np.where(s.recall > 0, s.recall, 1.0)), 0.0).sum(axis=-1)
    inverse = np.where(s.active, 1.0 / np.where(s.recall > 0, s.recall, 1.0), 0.0).sum(axis=-1)
    expected = (s.prevalence * s.bias).sum(axis=-1)
    kappa, kappa_undefined = _ratio(accuracy - expected, 1 - expected)
    spread = np.sqrt(np.clip((1 - (s.prevalence**2).sum(axis=-1)) * (1 - (s.bias**2).sum(axis=-1)), 0.0, None))
    mcc, mcc_undefined = _ratio(accuracy - expected, spread)
    values = {
        "accuracy": accuracy, "macro_recall": macro_r, "macro_precision": macro_p, "macro_f1": s.macro(s.f1),
        "macro_f1_hm": np.where(undefined, np.nan, value), "weighted_f1": (s.prevalence * s.f1).sum(axis=-1),
        "gmean_recall": np.where(has_zero, 0.0, np.exp(logs / np.maximum(s.k_active, 1))),
        "hmean_recall": np.where(has_zero, 0.0, s.k_active / np.where(inverse > 0, inverse, 1.0)),
        "kappa": np.where(kappa_undefined, np.nan, kappa), "mcc": np.where(mcc_undefined, np.nan, mcc),
        "informedness": (s.bias * s.informedness).sum(axis=-1),
        "markedness": (s.prevalence * s.markedness).sum(axis=-1),
    }
    if s.row_xlogx is not None:
        safe_n = np.where(s.n > 0, s.n, 1.0)
        joint = (s.row_xlogx.sum(axis=-1) - s.n * np.log(safe_n)) / (safe_n * np.log(2))
        information = joint - _entropy(s.prevalence) - _entropy(s.bias)
        values["nit"] = np.exp2(np.maximum(information, 0.0)) / np.maximum((s.row > 0).sum(axis=-1), 1)
    return values


def plain_dense(C: np.ndarray, active: bool) -> dict[str, np.ndarray]:
    values = plain_metrics(Plain.dense(C, active))
    calibrated = plain_metrics(Plain.dense(C * _scale(C.sum(axis=-1))[..., :, None], active))
    return {**values, **{f"{key}_calibrated": value for key, value in calibrated.items()}}


def plain_sparse(shape, flat, count, active) -> dict[str, np.ndarray]:
    values = plain_metrics(Plain.cells(shape, flat, count, active))
    row = np.bincount(flat // shape[-1], weights=count, minlength=int(np.prod(shape[:-1]))).reshape(shape[:-1])
    scaled = count * _scale(row).ravel()[flat // shape[-1]]
    calibrated = plain_metrics(Plain.cells(shape, flat, scaled, active))
    return {**values, **{f"{key}_calibrated": value for key, value in calibrated.items()}}


def same_floats(a: np.ndarray, b: np.ndarray) -> bool:
    """The same shape, NaN in the same places and every other value the same bits (-0.0 is not 0.0). Which NaN
    an addition passes on depends on the order of its operands, which compilers may swap: NaNs are not told apart."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    nan = np.isnan(a)
    return a.shape == b.shape and np.array_equal(nan, np.isnan(b)) and a[~nan].tobytes() == b[~nan].tobytes()


def assert_same_bits(ours: dict[str, np.ndarray], plain: dict[str, np.ndarray]) -> None:
    for metric_id, expected in plain.items():
        assert same_floats(ours[metric_id], expected), (metric_id, ours[metric_id], expected)


SCALAR = [metric for metric in REGISTRY.scalar() if metric.family in ("base", "calibrated")]


@contextmanager
def sliced_from(rows: int):
    """Sums sliced from ``rows`` rows on (the small arrays of these tests reach the sliced sums)."""
    before = registry.SLICED_SUM_ROWS
    registry.SLICED_SUM_ROWS = rows
    try:
        yield
    finally:
        registry.SLICED_SUM_ROWS = before


@st.composite
def tables(draw):
    """A batch of confusion tensors (leading axes, k x k): counts with zeros, empty rows, columns and matrices,
    or fractions of mixed magnitudes; batches of 16+ matrices reach the sliced sums."""
    k = draw(st.sampled_from([1, 2, 3, 5, 7, 8, 9, 10, 12, 16, 17, 33]))
    lead = draw(st.sampled_from([(1,), (3,), (16,), (20,), (17, 2), (4, 5), (2, 9)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = (*lead, k, k)
    kind = draw(st.sampled_from(["counts", "sparse counts", "fractions", "empty parts"]))
    if kind == "fractions":
        C = rng.random(shape) * 10.0 ** rng.integers(-6, 7, shape)
    else:
        C = (rng.integers(0, 3 if kind == "empty parts" else 60, shape)
             * (rng.random(shape) < (0.3 if kind == "sparse counts" else 1.0))).astype(float)
    if kind == "empty parts":
        C[..., rng.integers(0, k), :] = 0.0
        C[..., :, rng.integers(0, k)] = 0.0
        C[rng.random(lead) < 0.3] = 0.0
    return laid_out(C, draw(st.sampled_from(LAYOUTS)))


#: Memory layouts of a batch: numpy's summation order follows them, so the same numbers laid out otherwise may sum
#: to other floats (the paired resamples come as a transposed product, batch axis innermost).
LAYOUTS = ("C", "batch innermost", "Fortran", "every other table")


def laid_out(C: np.ndarray, layout: str) -> np.ndarray:
    if layout == "batch innermost":  # as Resampler.confusion: (S k^2, B) product, transposed and reshaped
        return np.ascontiguousarray(C.reshape(C.shape[0], -1).T).T.reshape(C.shape)
    if layout == "Fortran":
        return np.asfortranarray(C)
    if layout == "every other table":
        wide = np.zeros((2 * C.shape[0], *C.shape[1:]))
        wide[::2] = C
        return wide[::2]
    return C


@settings(max_examples=80, deadline=None)
@given(tables(), st.booleans())
def test_catalogue_on_a_batch_equals_the_plain_formulas_bit_for_bit(C, active):
    with sliced_from(16):
        assert_same_bits(compute(ConfusionStats(C, active), SCALAR), plain_dense(C, active))
        flat = np.flatnonzero(C)
        stats = ConfusionStats.from_cells(C.shape, flat, C.ravel()[flat], active)
        assert_same_bits(compute(stats, SCALAR), plain_sparse(C.shape, flat, C.ravel()[flat], active))


def test_a_leaderboard_sized_batch_equals_the_plain_formulas():
    """2,000 ten-class tables in one batch, as the bootstrap passes them (100 systems x 20 resamples)."""
    rng = np.random.default_rng(40)
    C = rng.multinomial(10_000, rng.dirichlet(np.ones(100)), size=(20, 100)).reshape(20, 100, 10, 10).astype(float)
    C[3, 7] = 0.0
    C[5, :, 2, :] = 0.0
    for layout in LAYOUTS:  # 20,000 rows of 10: sliced at the default SLICED_SUM_ROWS
        for active in (False, True):
            tables_ = laid_out(C, layout)
            assert_same_bits(compute(ConfusionStats(tables_, active), SCALAR), plain_dense(tables_, active))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([2, 3, 10, 12]), st.integers(16, 40), st.integers(0, 2**32 - 1), st.booleans())
def test_margins_of_swapped_rounds_equal_the_plain_formulas(k, rounds, seed, as_rounds):
    """Stats of margins only, laid out as a pair test's swapped rounds are (auditor.analyses.randomisation): the
    pair's gold rows broadcast over the rounds; columns and diagonal per round, C-ordered or (``as_rounds``) the
    pair's plus a transposed product's shift, rounds innermost in memory; every metric that reads no matrix."""
    rng = np.random.default_rng(seed)
    pair = rng.integers(0, 30, (2, k, k)).astype(float)
    shift = rng.integers(-3, 4, (rounds, 2 * k)).astype(float)
    if as_rounds:
        shift = np.ascontiguousarray(shift.T).T
    sign = np.array([1.0, -1.0])[None, :, None]
    col = pair.sum(axis=-2)[None] + sign * shift[:, None, :k]
    diag = np.minimum(np.diagonal(pair, axis1=-2, axis2=-1)[None] + sign * shift[:, None, k:], col).clip(0)
    stats = ConfusionStats.__new__(ConfusionStats)
    stats.k, stats.all_labels_active = k, False
    stats.row, stats.col, stats.diag = np.broadcast_to(pair.sum(axis=-1), col.shape), col, diag
    stats.n = stats.row.sum(axis=-1)
    plain = plain_metrics(Plain(stats.row, col, diag, None, False))
    with sliced_from(16):
        assert_same_bits(compute(stats, [REGISTRY.metrics[metric_id] for metric_id in plain]), plain)


SPECIAL = st.sampled_from([0.0, -0.0, 1.0, 3.0, 1e-300, 1e300, 0.1, -2.5, np.inf, -np.inf, np.nan])


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40), st.integers(4, 12), st.integers(4, 12), st.permutations(range(3)), st.booleans(),
       st.integers(0, 2**32 - 1), st.booleans())
def test_sliced_sums_equal_numpy_sums(n, a, b, memory_order, every_other, seed, special):
    """sum_last and sum_columns equal numpy's sums over the last and second-last axis bit for bit, with the axes of
    the result in the same memory order, for arrays laid out in any order (every other entry of the first axis,
    or not)."""
    rng = np.random.default_rng(seed)
    shape = (2 * a if every_other else a, b, n)
    stored = tuple(shape[axis] for axis in memory_order)
    x = (rng.standard_normal(stored) * 10.0 ** rng.integers(-12, 13, stored)).transpose(np.argsort(memory_order))
    if special:
        mask = rng.random(x.shape) < 0.2
        x[mask] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308], int(mask.sum()))
    x = x[::2] if every_other else x
    with np.errstate(all="ignore"), sliced_from(16):
        for ours, theirs in ((sum_last(x), x.sum(axis=-1)), (sum_columns(x), x.sum(axis=-2))):
            assert same_floats(ours, theirs)
            assert axis_order(ours) == axis_order(theirs)


@given(hnp.arrays(np.float64, st.tuples(st.integers(16, 24), st.integers(1, 12)), elements=SPECIAL))
def test_sliced_sums_of_special_values(x):
    with np.errstate(all="ignore"), sliced_from(16):
        assert same_floats(sum_last(x), x.sum(axis=-1))
        assert same_floats(sum_columns(x), x.sum(axis=-2))
