"""The metric record, the registry, and the one path for division by zero.

Every metric is declared once as a frozen :class:`Metric` (id, name, LaTeX formula, range,
chance value, references, declared properties, vectorised function of counts) and
registered here. The CLI's ``auditor metrics``, the report's definitions, the JSON and the
property probes all read these records.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterator, Literal, Mapping, get_args

import numpy as np

from auditor.errors import UsageError

#: PV levels (Opitz 2024 §3.5), weakest first.
ChanceCorrection = Literal["none", "bounded", "strict", "complete"]
CHANCE_CORRECTION_LEVELS: tuple[str, ...] = get_args(ChanceCorrection)
#: What a metric is: a built-in (``base``), a prevalence-calibrated variant of one, a metric with a
#: parameter of the audit (``informedness_train``), or a user's ``--plugin`` metric.
MetricFamily = Literal["base", "calibrated", "parameterised", "plugin"]

#: Why a per-class ratio is 0/0, by the name of the :class:`ConfusionStats` attribute.
UNDEFINED_REASONS = {
    "recall": "recall of {label} undefined: no gold item has this class (0/0)",
    "precision": "precision of {label} undefined: never predicted (0/0)",
    "f1": "F1 of {label} undefined: neither in gold nor predicted (0/0)",
    "fpr": "false-positive rate of {label} undefined: every gold item has this class (0/0)",
    "npv": "negative predictive value of {label} undefined: every item was predicted as it (0/0)",
    "informedness": "informedness of {label} undefined: recall or false-positive rate is 0/0",
    "markedness": "markedness of {label} undefined: precision or negative predictive value is 0/0",
}


def ratio(numerator: np.ndarray, denominator: np.ndarray, fill: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``numerator / denominator`` with every 0-denominator entry set to ``fill``.

    The single place where auditor divides by a count that can be zero (docs/architecture.md, "Metrics").
    Returns ``(value, undefined)`` where ``undefined`` marks the entries that were 0/0 (or
    x/0), so that callers record *why* a value is undefined instead of hiding it.
    """
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    undefined = denominator == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        shape = (denominator.shape if numerator.shape == denominator.shape
                 else np.broadcast_shapes(numerator.shape, denominator.shape))
        # the two np.where steps below give a C-ordered result when the denominator is C-ordered and either has the
        # whole shape (its mask then decides the order: numpy's K order keeps C order where operands disagree) or
        # the numerator is C-ordered too; and the operands' own order when they share one
        in_c_order = c_ordered(denominator) and (denominator.shape == shape or c_ordered(numerator))
        if in_c_order or same_layout(numerator, denominator):
            value = np.empty(shape) if in_c_order else np.empty_like(denominator)
            if not undefined.any():
                return np.divide(numerator, denominator, out=value), undefined
            value.fill(fill)
            np.divide(numerator, denominator, out=value, where=~undefined)
            return value, undefined
        value = numerator / np.where(undefined, 1.0, denominator)
    return np.where(undefined, fill, value), undefined


def axis_order(x: np.ndarray) -> tuple[int, ...] | None:
    """The axes of ``x`` longer than 1 from the innermost in memory out (by stride), None if one of them has a
    stride <= 0 (broadcast or reversed): numpy's loops and the memory order of its results follow this order."""
    strides = {axis: stride for axis, (size, stride) in enumerate(zip(x.shape, x.strides)) if size > 1}
    if any(stride <= 0 for stride in strides.values()):
        return None
    return tuple(sorted(strides, key=strides.__getitem__))


def c_ordered(x: np.ndarray) -> bool:
    """Whether the axes of ``x`` that are longer than 1 and not broadcast lie in C order (C-contiguous arrays, their
    slices, a batch of rows broadcast along the batch axes): numpy lays the results of such arrays out in C order."""
    if x.flags.c_contiguous:
        return True
    strides = [stride for size, stride in zip(x.shape, x.strides) if size > 1 and stride != 0]
    return all(stride > 0 for stride in strides) and all(a > b for a, b in zip(strides, strides[1:]))


def same_layout(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` have one shape and their axes in one memory order (so an element-wise result of the
    two, or of either, is laid out alike)."""
    return a.shape == b.shape and axis_order(a) is not None and axis_order(a) == axis_order(b)


#: Longest last axis :func:`sum_last` adds slice by slice; past it numpy's own loop over a row is as fast.
SLICED_SUM_MAX = 32
#: Fewest rows :func:`sum_last` and :func:`sum_columns` slice: numpy's one call runs without the GIL, the slices'
#: dozen calls hold it a little each, so two threads evaluating metrics (the audit's workers) gain from slicing only
#: the matrices of a batch (2,000 tables x 10 rows), not its per-class vectors (2,000 rows).
SLICED_SUM_ROWS = 8192


def sum_last(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=-1)``, the same floats laid out the same way, faster on many short rows.

    numpy's order follows the memory layout. When the last axis is innermost (a C-contiguous array) numpy sums
    each row of n pairwise: into 0, eight running sums over the blocks of 8, combined as
    ((r₀+r₁)+(r₂+r₃))+((r₄+r₅)+(r₆+r₇)), then the remaining entries in turn (n < 8: every entry in turn), one call
    of its inner loop per row, which dominates for many rows of 10. When another axis is innermost (the paired
    resamples come batch axis innermost) it adds the entries of every row in turn. Here the same additions run
    over every row at once, one slice at a time. numpy sums the rest itself: rows past :data:`SLICED_SUM_MAX`,
    fewer rows than :data:`SLICED_SUM_ROWS`, other dtypes, broadcast or reversed axes. Checked bit for bit, and for
    the memory order of the result, against numpy in tests/test_metric_evaluation.py (summation order changes
    floats).
    """
    n = x.shape[-1] if x.ndim else 0
    usable = 0 < n <= SLICED_SUM_MAX and x.size >= SLICED_SUM_ROWS * n and x.dtype == np.float64
    order = axis_order(x) if usable else None
    if order is None or n == 1:
        return x.sum(axis=-1)
    if n < 8 or order[0] != x.ndim - 1:
        total = x[..., 0] + 0.0
        for i in range(1, n):
            total += x[..., i]
        return total
    blocks = n - n % 8
    running = [x[..., j] for j in range(8)]  # one strided slice per accumulator: one loop each over every row
    if blocks > 8:
        running = [part.copy(order="K") for part in running]
        for start in range(8, blocks, 8):
            for j in range(8):
                running[j] += x[..., start + j]
    total = running[0] + running[1]
    total += running[2] + running[3]
    half = running[4] + running[5]
    half += running[6] + running[7]
    total += half
    for i in range(blocks, n):
        total += x[..., i]
    total += 0.0
    return total


def sum_columns(matrix: np.ndarray) -> np.ndarray:
    """``matrix.sum(axis=-2)``, the same floats laid out the same way, faster on many small matrices: unless the
    second-last axis is innermost in memory numpy adds the rows of each matrix in turn into 0, as this does one
    row slice at a time (:func:`sum_last` for the rules)."""
    k = matrix.shape[-2] if matrix.ndim > 1 else 0
    usable = (0 < k <= SLICED_SUM_MAX and matrix.size >= SLICED_SUM_ROWS * matrix.shape[-1]
              and matrix.dtype == np.float64)
    order = axis_order(matrix) if usable else None
    if order is None or k == 1 or order[0] == matrix.ndim - 2:
        return matrix.sum(axis=-2)
    total = matrix[..., 0, :] + 0.0
    for i in range(1, k):
        total += matrix[..., i, :]
    return total


class ConfusionStats:
    """Per-class quantities of a confusion tensor ``C[..., i, j]``, computed once and shared.

    Any leading batch axes are allowed (systems, bootstrap resamples). Rows are gold,
    columns predicted. For every ratio ``x`` there is ``x_undefined``, a boolean mask of the
    entries that were 0/0 and hold 0 by convention (scikit-learn's ``zero_division=0``).

    ``active`` marks the labels that enter macro averages: those with gold support or
    predicted by the system (scikit-learn's default label set, ``unique(y_true ∪ y_pred)``),
    or every label when the user fixed the label set.
    """

    def __init__(self, confusion: np.ndarray, all_labels_active: bool = False):
        self.C = np.asarray(confusion, dtype=float)
        self.k = self.C.shape[-1]
        self.row = sum_last(self.C)
        self.col = sum_columns(self.C)
        self.diag = np.diagonal(self.C, axis1=-2, axis2=-1)
        self.n = sum_last(self.row)
        self.all_labels_active = all_labels_active
        self._margins_from_C = True

    @classmethod
    def from_cells(cls, shape: tuple[int, ...], flat: np.ndarray, count: np.ndarray,
                   all_labels_active: bool = False) -> "ConfusionStats":
        """Stats of a batch of confusion tensors of ``shape`` (..., k, k) given only their non-zero
        cells: ``flat`` indices into the C-ordered tensor (repeats are summed) and their counts.

        Work and memory are O(cells + batch·k), never O(batch·k²): what a batch of sparse matrices
        (many classes, few items) needs. Every built-in metric reads the margins, the diagonal
        and :attr:`row_xlogx`; ``C`` itself is built (densely) only if a plug-in metric reads it.
        """
        flat = np.asarray(flat, dtype=np.int64)
        count = np.asarray(count, dtype=float)
        if flat.size and np.any(np.diff(flat) <= 0):  # sum repeated cells, sorted
            flat, inverse = np.unique(flat, return_inverse=True)
            count = np.bincount(inverse.ravel(), weights=count, minlength=flat.size)
        stats = cls.__new__(cls)
        stats.k = k = int(shape[-1])
        batch = tuple(shape[:-2])
        size = int(np.prod(batch, dtype=np.int64)) * k
        gold_row = flat // k  # (batch, i) flattened
        column = (flat // (k * k)) * k + flat % k  # (batch, j) flattened
        stats.row = np.bincount(gold_row, weights=count, minlength=size).reshape(*batch, k)
        stats.col = np.bincount(column, weights=count, minlength=size).reshape(*batch, k)
        on_diagonal = (flat % k) == (gold_row % k)
        stats.diag = np.bincount(gold_row[on_diagonal], weights=count[on_diagonal], minlength=size).reshape(*batch, k)
        stats.n = stats.row.sum(axis=-1)
        stats.all_labels_active = all_labels_active
        stats.cells = (tuple(shape), flat, count)
        return stats

    def __getattr__(self, name: str):
        if name == "C" and "cells" in self.__dict__:  # built on demand (plug-in metrics) from the cells
            shape, flat, count = self.__dict__["cells"]
            dense = np.zeros(int(np.prod(shape, dtype=np.int64)))
            dense[flat] = count
            self.__dict__["C"] = dense.reshape(shape)
            return self.__dict__["C"]
        raise AttributeError(name)

    @cached_property
    def row_xlogx(self) -> np.ndarray:
        """Σ_j C_ij ln C_ij per gold row (0 ln 0 = 0): the joint-entropy part NIT needs, O(cells)."""
        if "cells" in self.__dict__:
            shape, flat, count = self.cells
            terms = count * np.log(np.where(count > 0, count, 1.0))
            size = int(np.prod(shape[:-1], dtype=np.int64))
            return np.bincount(flat // self.k, weights=terms, minlength=size).reshape(shape[:-1])
        if self.C is None:
            raise ValueError("Σ C ln C needs the confusion matrix; only its margins are known")
        terms = np.where(self.C > 0, self.C, 1.0)  # ln 1 = 0 where C_ij = 0 (or NaN: 0·NaN stays NaN)
        np.log(terms, out=terms)
        terms *= self.C
        return sum_last(terms)

    @cached_property
    def active(self) -> np.ndarray:
        if self.all_labels_active:
            return np.ones(self.row.shape, dtype=bool)
        return self._gold_plus_predicted > 0

    @cached_property
    def _gold_plus_predicted(self) -> np.ndarray:
        """row_i + col_i (F1's denominator; 0 for a label neither in gold nor predicted)."""
        return self.row + self.col

    @cached_property
    def _not_gold(self) -> np.ndarray:
        """N − row_i, the items of other gold classes (FPR's denominator)."""
        return self.n[..., None] - self.row

    @cached_property
    def k_active(self) -> np.ndarray:
        return self.active.sum(axis=-1)

    @cached_property
    def every_label_active(self) -> bool:
        """Whether every label of every matrix enters the macro averages (then they need not mask)."""
        return self.all_labels_active or bool(self.active.all())

    @cached_property
    def _macro_divisor(self) -> np.ndarray:
        return np.maximum(self.k_active, 1)

    @cached_property
    def _prevalence(self) -> tuple[np.ndarray, np.ndarray]:
        return ratio(self.row, self.n[..., None])

    @property
    def prevalence(self) -> np.ndarray:
        """p_i = row_i / N."""
        return self._prevalence[0]

    @cached_property
    def bias(self) -> np.ndarray:
        """b_j = col_j / N."""
        return ratio(self.col, self.n[..., None])[0]

    @cached_property
    def _recall(self):
        return ratio(self.diag, self.row)

    @property
    def recall(self) -> np.ndarray:
        return self._recall[0]

    @property
    def recall_undefined(self) -> np.ndarray:
        return self._recall[1]

    @cached_property
    def _precision(self):
        return ratio(self.diag, self.col)

    @property
    def precision(self) -> np.ndarray:
        return self._precision[0]

    @property
    def precision_undefined(self) -> np.ndarray:
        return self._precision[1]

    @cached_property
    def _f1(self):
        return ratio(2 * self.diag, self._gold_plus_predicted)

    @property
    def f1(self) -> np.ndarray:
        return self._f1[0]

    @property
    def f1_undefined(self) -> np.ndarray:
        return self._f1[1]

    @cached_property
    def _fpr(self):
        return ratio(self.col - self.diag, self._not_gold)

    @property
    def fpr(self) -> np.ndarray:
        return self._fpr[0]

    @property
    def fpr_undefined(self) -> np.ndarray:
        return self._fpr[1]

    @cached_property
    def _npv(self):
        return ratio(self._not_gold - self.col + self.diag, self.n[..., None] - self.col)

    @property
    def npv(self) -> np.ndarray:
        return self._npv[0]

    @property
    def npv_undefined(self) -> np.ndarray:
        return self._npv[1]

    @property
    def informedness_undefined(self) -> np.ndarray:
        return self.recall_undefined | self.fpr_undefined

    @cached_property
    def informedness(self) -> np.ndarray:
        """Per-class informedness R_i − FPR_i; 0 where either part is 0/0."""
        return np.where(self.informedness_undefined, 0.0, self.recall - self.fpr)

    @property
    def markedness_undefined(self) -> np.ndarray:
        return self.precision_undefined | self.npv_undefined

    @cached_property
    def markedness(self) -> np.ndarray:
        """Per-class markedness PPV_i + NPV_i − 1; 0 where either part is 0/0."""
        return np.where(self.markedness_undefined, 0.0, self.precision + self.npv - 1)

    def macro(self, per_class: np.ndarray) -> np.ndarray:
        """Unweighted mean over the active labels: (1/k) Σ_i x_i."""
        return sum_last(self.only_active(per_class)) / self._macro_divisor

    def only_active(self, per_class: np.ndarray) -> np.ndarray:
        """``per_class`` with 0 for the labels that are not active, as ``np.where`` gives it (the same memory order)."""
        if (self.every_label_active and per_class.dtype == np.float64
                and ((per_class.flags.c_contiguous and self.active.flags.c_contiguous and
                      per_class.shape == self.active.shape) or same_layout(per_class, self.active))):
            return per_class  # what np.where would copy, in the memory order it would give
        return np.where(self.active, per_class, 0.0)


@dataclass(frozen=True)
class Properties:
    """Declared properties of a metric (Opitz 2024, §3; its §6.1 Table 5 for the metrics it covers).

    ``monotonicity`` PI (one more correct item never lowers the score, one more error never
    raises it), ``class_sensitivity`` PII, ``decomposability`` PIII (unweighted generalised mean
    over classes), ``prevalence_invariance`` PIV, ``chance_correction`` PV, as §3.5 defines it:
    ``bounded`` (every classifier that ignores its input scores at most ω(k), a bound depending on
    the number of classes k only), ``strict`` (all exactly ω(k)), ``complete`` (one constant Ω
    for every k) or ``none``. ``source`` says where the declaration comes from (the paper's
    table, or a derivation). :mod:`auditor.analyses.properties` probes every declaration.
    """

    monotonicity: bool
    class_sensitivity: bool
    decomposability: bool
    prevalence_invariance: bool
    chance_correction: ChanceCorrection
    source: str = "declared by the metric's author"

    def __post_init__(self):
        if self.chance_correction not in CHANCE_CORRECTION_LEVELS:
            raise ValueError(f"chance_correction must be one of {CHANCE_CORRECTION_LEVELS}")


@dataclass(frozen=True)
class Metric:
    """One metric, declared once.

    ``function`` maps :class:`ConfusionStats` (any batch shape ``B``) to an array of shape
    ``B`` (or ``B + (k,)`` when ``per_class``) holding NaN wherever the metric as a whole is
    undefined; ``undefined_when`` says in words when that happens. ``uses`` names the
    per-class ratios (attributes of ``ConfusionStats``) whose 0/0 entries the metric counts
    by convention, and ``convention`` says what the convention is.
    """

    id: str
    name: str
    formula: str
    function: Callable[[ConfusionStats], np.ndarray]
    properties: Properties
    range: tuple[float, float] = (0.0, 1.0)
    chance: str = ""
    references: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    convention: str = "counted as 0, as scikit-learn's zero_division=0 does"
    undefined_when: str | None = None
    per_class: bool = False
    family: MetricFamily = "base"
    #: The metric this one is a variant of (the base of ``X_calibrated``), None for a metric of its own.
    base: str | None = None
    description: str = ""
    short: str = ""
    #: The one number of classes the metric is defined for (a parameterised metric such as
    #: ``informedness_train``, whose training prevalence has one share per label); None = any k.
    classes: int | None = None
    #: False for an error (MAE, MSE): lower is better, so rankings, best sets and baselines read its negation.
    higher_is_better: bool = True
    #: The range in words where it depends on the data (NIT: [1/k, 1]); ``range`` is then the bounds over every k.
    range_text: str = ""

    @property
    def label(self) -> str:
        """Short column header (``short`` or the id)."""
        return self.short or self.id

    @property
    def range_label(self) -> str:
        """The range as shown: ``range_text``, else ``[lo, hi]``."""
        return self.range_text or f"[{self.range[0]:g}, {self.range[1]:g}]"

    @property
    def kind(self) -> str:
        """How tables show a value: ``score`` (×100) on a scale up to 1, ``number`` (as it is) past it (an error
        in steps of an order)."""
        return "score" if self.range[1] <= 1 else "number"

    def oriented(self, values: np.ndarray) -> np.ndarray:
        """``values`` with higher = better: negated for an error (``higher_is_better`` False)."""
        return values if self.higher_is_better else -np.asarray(values, dtype=float)

    def __call__(self, confusion: np.ndarray | ConfusionStats, all_labels_active: bool = False) -> np.ndarray:
        stats = confusion if isinstance(confusion, ConfusionStats) else ConfusionStats(confusion, all_labels_active)
        return self.function(stats)


@dataclass
class Registry:
    """Metrics by id, plus the alias table that resolves common names to one id."""

    metrics: dict[str, Metric] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    #: Normalised name -> why that name is ambiguous in the literature (the mapping is kept;
    #: the report shows the note next to the resolved id).
    alias_notes: dict[str, str] = field(default_factory=dict)

    def register(
        self, metric: Metric, aliases: tuple[str, ...] = (), notes: Mapping[str, str] | None = None
    ) -> Metric:
        if metric.id in self.metrics:
            raise ValueError(f"metric id {metric.id!r} is already registered")
        self.metrics[metric.id] = metric
        for alias in aliases:
            self.aliases[normalise_name(alias)] = metric.id
        for name, note in (notes or {}).items():
            self.alias_notes[normalise_name(name)] = note
        return metric

    def alias_note(self, name: str) -> str | None:
        """Why ``name`` is ambiguous in the literature, or None if it names one metric only."""
        return self.alias_notes.get(normalise_name(name))

    def resolve(self, name: str) -> str:
        """The metric id for ``name``: an id or an alias (case, spaces, '-' and '_' ignored)."""
        if name in self.metrics:
            return name
        key = normalise_name(name)
        for metric_id in self.metrics:
            if normalise_name(metric_id) == key:
                return metric_id
        if key in self.aliases:
            return self.aliases[key]
        raise UsageError(f"unknown metric {name!r}; known ids: {', '.join(self.metrics)}")

    def get(self, name: str) -> Metric:
        return self.metrics[self.resolve(name)]

    def __iter__(self) -> Iterator[Metric]:
        return iter(self.metrics.values())

    def __len__(self) -> int:
        return len(self.metrics)

    def scalar(self) -> list[Metric]:
        return [metric for metric in self if not metric.per_class]

    def per_class(self) -> list[Metric]:
        return [metric for metric in self if metric.per_class]


def normalise_name(name: str) -> str:
    """Lower case, only letters, digits and apostrophes; typographic apostrophes and the prime
    (’ ‘ ′) count as ``'`` so that "Youden’s J" and "macro F1′" resolve like their ASCII spellings."""
    name = name.lower().translate({0x2019: "'", 0x2018: "'", 0x2032: "'"})
    return "".join(ch for ch in name if ch.isalnum() or ch == "'")


REGISTRY = Registry()


def register(metric: Metric, aliases: tuple[str, ...] = (), notes: Mapping[str, str] | None = None) -> Metric:
    """Add ``metric`` to the global registry (used by the catalogue and by plugins).

    ``notes`` maps a name (alias or id) to why it is ambiguous in the literature."""
    return REGISTRY.register(metric, aliases, notes)


def load_plugin(module: str) -> None:
    """Import a user's module (a dotted name, or the path of a ``.py`` file); it registers its
    metrics with :func:`register` when imported. A module is imported once per process.

    A dotted name is looked up on ``sys.path`` and then in the working directory (so that
    ``--plugin my_metric`` finds ``./my_metric.py`` as ``python -m`` would). Whatever the
    plugin raises while importing (a syntax error, an exception, ``sys.exit``) becomes one
    :class:`UsageError` naming the plugin, the line in its file and its own message.
    """
    if module.endswith(".py"):
        path = Path(module)
        if not path.is_file():
            raise UsageError(f"--plugin {module}: cannot import it (no file {path})")
        name = f"auditor_plugin_{path.stem}"
        if name in sys.modules:
            return
        spec = importlib.util.spec_from_file_location(name, path)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        try:
            _run_plugin(module, lambda: spec.loader.exec_module(loaded))
        except BaseException:
            del sys.modules[name]
            raise
        return
    if not module.replace(".", "").replace("_", "").isalnum() or module.startswith(".") or ".." in module:
        raise UsageError(f"--plugin {module}: expected a module name (my_metric, package.module) or the path "
                         f"of a .py file")
    working_directory = os.getcwd()
    added = working_directory not in sys.path
    if added:
        sys.path.append(working_directory)  # last: an installed module of the same name wins
    try:
        _run_plugin(module, lambda: importlib.import_module(module))
    finally:
        if added and working_directory in sys.path:
            sys.path.remove(working_directory)


def _run_plugin(module: str, run: Callable[[], object]) -> None:
    """Run a plugin's import; turn its failures into one UsageError that says they are its own."""
    try:
        run()
    except KeyboardInterrupt:
        raise
    except ModuleNotFoundError as error:
        if error.name and (module == error.name or module.startswith(error.name + ".")):
            raise UsageError(f"--plugin {module}: cannot import it (no module named {error.name!r} on the Python "
                             f"path or in the working directory {os.getcwd()})") from None
        raise UsageError(f"--plugin {module}: the plugin failed while importing: {_where(error)}"
                         f"ModuleNotFoundError: {error}") from None
    except SyntaxError as error:
        raise UsageError(f"--plugin {module}: syntax error in the plugin, {error.filename} line {error.lineno}: "
                         f"{error.msg}") from None
    except SystemExit as error:
        raise UsageError(f"--plugin {module}: the plugin called sys.exit({error.code!r}) while importing "
                         f"({_where(error)[:-2] or 'no line known'}); a plugin must only register metrics") from None
    except ValueError as error:
        if "is already registered" in str(error):  # Registry.register refuses an id that is taken
            raise UsageError(f"--plugin {module}: {error}") from None
        raise UsageError(f"--plugin {module}: the plugin failed while importing: {_where(error)}"
                         f"ValueError: {error}") from None
    except BaseException as error:
        raise UsageError(f"--plugin {module}: the plugin failed while importing: {_where(error)}"
                         f"{type(error).__name__}: {error}") from None


def _where(error: BaseException) -> str:
    """``file line N: `` of the innermost traceback frame outside importlib, or ''."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if "importlib" not in frame.filename and not frame.filename.startswith("<frozen")
              and Path(frame.filename).resolve() != Path(__file__).resolve()]
    return f"{frames[-1].filename} line {frames[-1].lineno}: " if frames else ""
