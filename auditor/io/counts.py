"""Count once: label codes and the confusion tensor ``C[s, i, j]`` for all systems.

Count stage (read -> align -> **count** -> score -> analyse -> record -> build -> render).
Everything downstream is a function of these counts and of the item patterns
(:meth:`Counts.patterns`): the bootstrap and the pairwise tests re-sum pattern counts, never
re-reading labels.

Orientation: rows = gold class ``i``, columns = predicted class ``j`` (scikit-learn's).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping, Sequence

import numpy as np

from auditor.errors import InputError


def code_dtype(k: int) -> type[np.signedinteger]:
    """The narrowest signed integer type holding the codes -1 .. k - 1 (int8 up to 127 labels, int16
    up to 32,767): 1 or 2 bytes per item and system instead of 8, for every pass over the codes."""
    for dtype in (np.int8, np.int16, np.int32):
        if k <= np.iinfo(dtype).max:
            return dtype
    return np.int64


@dataclass(frozen=True)
class Counts:
    """Label codes and confusion counts of every system on one test set.

    Attributes
    ----------
    labels : class names in code order (the matrix's row and column order).
    systems : system names in the order of the first axis of ``confusion``.
    gold : int array (N,) of gold codes (:func:`code_dtype`: int8 for up to 127 labels); None when only confusion
        matrices are known (:mod:`auditor.io.confusion`): then no item is paired across systems.
    predictions : int array (S, N) of predicted codes; None with ``gold``.
    confusion : int64 array (S, k, k); ``confusion[s, i, j]`` counts items of gold
        class i that system s predicted as class j.
    labels_given : True when the label set was fixed by the user (``--labels``), so every
        label counts in macro averages even if no item and no prediction has it.
    given_patterns : ``(codes, counts)`` of the pattern table when the items themselves were
        never loaded (an engine's GROUP BY, :mod:`auditor.engines`; see :meth:`from_patterns`):
        then ``gold`` and ``predictions`` are None but the systems are still paired.
    """

    labels: tuple[str, ...]
    systems: tuple[str, ...]
    gold: np.ndarray | None
    predictions: np.ndarray | None
    confusion: np.ndarray
    labels_given: bool = False
    given_patterns: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)
    #: ``(a, b) -> (codes (P, 3), counts)`` of every pair's (gold, pred_a, pred_b) table when the
    #: pattern table was too large to form (:meth:`from_pairs`): the systems are paired through them.
    given_pairs: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]] | None = field(default=None, compare=False,
                                                                                       repr=False)

    @classmethod
    def from_patterns(cls, labels: Sequence[str], systems: Sequence[str], codes: np.ndarray,
                      pattern_counts: np.ndarray, labels_given: bool = False) -> Counts:
        """Counts from a pattern table alone: rows ``(gold, pred_1, ..., pred_S)`` of codes
        (U, 1 + S), in any order and possibly repeated, and the items of each row.

        The rows are merged and sorted as :meth:`patterns` sorts them, so the same table gives
        the same counts (and the same bootstrap draws) whatever engine or row order produced it;
        ``C[s, i, j] = sum_u n_u [gold_u = i][pred_{s,u} = j]``.
        """
        codes = np.asarray(codes).reshape(-1, 1 + len(systems))  # any integer dtype: widened column by column
        weights = np.asarray(pattern_counts, dtype=np.int64)
        k = max(len(labels), 1)
        if codes.shape[1] * np.log2(k + 1) < 62:  # as in _pattern_table: one int64 key per row, sorted
            key = np.zeros(codes.shape[0], dtype=np.int64)
            for column in codes.T:
                key *= k
                key += column
            order = np.argsort(key)
            key, weights = key[order], weights[order]
            del order
            starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
            if starts.size < key.size:  # rows written alike: merged, their counts summed
                key, weights = key[starts], np.add.reduceat(weights, starts)
            merged = np.empty((key.size, codes.shape[1]), dtype=code_dtype(k))  # 1 byte a code up to 127 labels
            for position in range(codes.shape[1] - 1, -1, -1):
                key, merged[:, position] = np.divmod(key, k)
            merged_counts = weights
        else:
            merged, inverse = np.unique(codes.astype(np.int64), axis=0, return_inverse=True)
            merged_counts = np.rint(np.bincount(inverse.ravel(), weights=weights, minlength=merged.shape[0]))
            merged, merged_counts = merged.astype(code_dtype(k)), merged_counts.astype(np.int64)
        keep = merged_counts > 0
        if not keep.all():
            merged, merged_counts = merged[keep], merged_counts[keep]
        merged = np.ascontiguousarray(merged)
        base = merged[:, 0].astype(np.int64) * k
        confusion = np.stack([np.bincount(base + merged[:, 1 + s], weights=merged_counts, minlength=k * k)
                              .round().astype(np.int64).reshape(k, k) for s in range(len(systems))])
        return cls(tuple(labels), tuple(systems), None, None, confusion, labels_given, (merged, merged_counts))

    @classmethod
    def from_pairs(cls, labels: Sequence[str], systems: Sequence[str],
                   pairs: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]],
                   labels_given: bool = False) -> Counts:
        """Counts from every pair's (gold, pred_a, pred_b) table alone (``pairs[(a, b)]``, a < b, rows
        of codes (P, 3) and their counts): what an engine computes when the pattern table is too large.

        ``C[s, i, j]`` sums any table holding s over its other system. Every statistic that compares
        systems reads :meth:`pair_patterns`; :meth:`patterns` is refused.
        """
        k, S = max(len(labels), 1), len(systems)
        tables = {}
        for (a, b), (codes, n) in pairs.items():
            merged = cls.from_patterns(labels, (systems[a], systems[b]), codes, n, labels_given)
            tables[(a, b)] = merged.given_patterns
        confusion = np.zeros((S, k, k), dtype=np.int64)
        for s in range(S):
            a, b = (s, s + 1) if s + 1 < S else (s - 1, s)
            codes, n = tables[(a, b)]
            confusion[s] = np.bincount(codes[:, 0].astype(np.int64) * k + codes[:, 1 if s == a else 2], weights=n,
                                       minlength=k * k).round().astype(np.int64).reshape(k, k)
        return cls(tuple(labels), tuple(systems), None, None, confusion, labels_given, given_pairs=tables)

    @property
    def paired(self) -> bool:
        """True when per-item codes (or the pattern table, or every pair's table) are known, so
        systems can be compared item by item."""
        return self.gold is not None or self.given_patterns is not None or self.given_pairs is not None

    @property
    def n_items(self) -> int:
        if self.gold is None:
            return int(self.confusion[0].sum())
        return int(self.gold.shape[0])

    @cached_property
    def support(self) -> np.ndarray:
        """Gold items per class, shape (k,): ``bincount(gold)``, or the matrices' shared row sums."""
        if self.gold is None:
            return self.confusion[0].sum(axis=1).astype(np.int64)
        return np.bincount(self.gold, minlength=self.k)

    @property
    def k(self) -> int:
        return len(self.labels)

    def _item_keys(self) -> np.ndarray | None:
        """One int64 key per item, (gold, pred_1, ...) as base-k digits, when they fit in 62 bits; else None."""
        k = max(self.k, 1)
        if (1 + self.predictions.shape[0]) * np.log2(k + 1) >= 62:
            return None
        key = self.gold.astype(np.int64)
        for row in self.predictions:
            key *= k
            key += row
        return key

    @cached_property
    def _pattern_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Computed once per test set: see :meth:`patterns` and :meth:`item_patterns` (with one key
        per item, a sort and no inverse: :meth:`item_patterns` finds it when asked)."""
        if self.given_patterns is not None:  # no items: they are listed in pattern order
            codes, pattern_counts = self.given_patterns
            return codes, pattern_counts, None
        if self.given_pairs is not None:
            raise ValueError("the pattern table of every system was too large to form: only each pair's (gold, "
                             "pred_a, pred_b) table is known (pair_patterns)")
        if self.gold is None or self.predictions is None:
            raise ValueError("item patterns need per-item codes; these counts hold confusion matrices only")
        k = max(self.k, 1)
        n_rows = 1 + self.predictions.shape[0]
        key = self._item_keys()
        if key is not None:  # a 1-D unique of the keys
            unique, pattern_counts = np.unique(key, return_counts=True)
            codes = np.empty((unique.size, n_rows), dtype=np.int64)
            for position in range(n_rows - 1, -1, -1):  # the key's base-k digits, last system first
                unique, codes[:, position] = np.divmod(unique, k)
            inverse = None
        else:
            stacked = np.concatenate([self.gold[None, :], self.predictions], axis=0)
            codes, inverse, pattern_counts = np.unique(stacked.T, axis=0, return_inverse=True, return_counts=True)
            inverse = inverse.ravel().astype(np.int64, copy=False)
        return np.ascontiguousarray(codes, dtype=code_dtype(k)), pattern_counts.astype(np.int64, copy=False), inverse

    @cached_property
    def _pattern_columns(self) -> np.ndarray:
        """The pattern codes transposed, (1 + S, U): one contiguous row per column of codes."""
        return np.ascontiguousarray(self._pattern_table[0].T)

    def patterns(self) -> tuple[np.ndarray, np.ndarray]:
        """Unique (gold, prediction of every system) rows and the item count of each.

        Every statistic after counting reads these instead of the items: the bootstrap
        resamples pattern counts, ``C_b[s, i, j] = sum_u w_b[u] [gold_u = i][pred_{s,u} = j]``,
        and a pair's tests use :meth:`pair_patterns`. Returns ``(codes, counts)`` with
        ``codes`` of shape (U, 1 + S), U ≤ min(N, k^(1+S)); computed once and cached.
        """
        codes, pattern_counts, _ = self._pattern_table
        return codes, pattern_counts

    def item_patterns(self) -> np.ndarray:
        """Pattern index (into :meth:`patterns`) of every item, shape (N,); items known only
        by their pattern table (:meth:`from_patterns`) are listed pattern by pattern."""
        codes, pattern_counts, inverse = self._pattern_table
        if inverse is not None:
            return inverse
        if self.given_patterns is None:  # one key per item: its pattern is where its key sorts
            k = max(self.k, 1)
            unique = np.zeros(codes.shape[0], dtype=np.int64)
            for position in range(codes.shape[1]):
                unique *= k
                unique += codes[:, position]
            return np.searchsorted(unique, self._item_keys())
        return np.repeat(np.arange(codes.shape[0], dtype=np.int64), pattern_counts)

    def pair_patterns(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """Counts of the (gold, pred_a, pred_b) patterns of systems ``a`` and ``b`` (indices).

        Summed from :meth:`patterns` in O(U). Returns ``(codes, counts)`` with ``codes`` of
        shape (P, 3), P ≤ k³, sorted by ``(gold·k + pred_a)·k + pred_b``.
        """
        if self.given_pairs is not None:
            codes, n = self.given_pairs[(min(a, b), max(a, b))]
            if a > b:  # the same table seen from b: columns swapped, sorted again
                codes = codes[:, [0, 2, 1]]
                order = np.lexsort(codes.T[::-1])
                codes, n = codes[order], n[order]
            return codes, n
        columns, pattern_counts = self._pattern_columns, self._pattern_table[1]
        k = max(self.k, 1)
        key = (columns[0].astype(np.int64) * k + columns[1 + a]) * k + columns[1 + b]  # narrow codes: widen first
        if k**3 <= 4_000_000:
            tally = np.bincount(key, weights=pattern_counts, minlength=k**3)
            unique = np.flatnonzero(tally)
            n = np.rint(tally[unique]).astype(np.int64)
        else:
            unique, inverse = np.unique(key, return_inverse=True)
            n = np.bincount(inverse.ravel(), weights=pattern_counts).astype(np.int64)
        return np.stack([unique // (k * k), (unique // k) % k, unique % k], axis=1), n


def encode(values: np.ndarray, labels: Sequence[str] | None = None) -> tuple[np.ndarray, list[str]]:
    """Map labels (any shape) to integer codes in one vectorised pass.

    Without ``labels`` the codes follow the sorted set of labels seen (numerically sorted
    for integer labels). Labels outside a given ``labels`` get code -1 (the caller reports
    them).
    """
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        lo, hi = int(values.min()), int(values.max())
        present = np.flatnonzero(np.bincount((values - lo).ravel(), minlength=hi - lo + 1)) + lo
        order = [str(v) for v in present] if labels is None else list(labels)
        lookup = np.full(hi - lo + 1, -1, dtype=np.int64)
        for code, name in enumerate(order):
            if name.lstrip("-").isdigit() and lo <= int(name) <= hi:
                lookup[int(name) - lo] = code
        return lookup[values - lo], order
    uniques, inverse = np.unique(values.astype(str), return_inverse=True)
    order = [str(u) for u in uniques] if labels is None else list(labels)
    position = {name: code for code, name in enumerate(order)}
    lookup = np.array([position.get(str(u), -1) for u in uniques], dtype=np.int64)
    return lookup[inverse.reshape(values.shape)], order


def confusion_tensor(gold: np.ndarray, predictions: Sequence[np.ndarray], k: int) -> np.ndarray:
    """``C[s, i, j]`` for all systems: one ``np.bincount`` of ``gold·k + prediction`` per system.

    ``gold`` has shape (N,), ``predictions`` is (S, N) or a sequence of S arrays (N,),
    codes in ``0..k-1``. The loop runs over systems, never over items.
    """
    scaled_gold = np.asarray(gold, dtype=np.int64) * k
    return np.stack([np.bincount(scaled_gold + p, minlength=k * k).reshape(k, k) for p in predictions])


#: Widest integer label range counted directly, before dropping the values that never occur.
MAX_DIRECT_RANGE = 1024


def _count_integers(gold: np.ndarray, predictions: list[np.ndarray]
                    ) -> tuple[np.ndarray, list[np.ndarray], list[str], np.ndarray] | None:
    """Fast path for integer labels without ``--labels``: count on ``value − min`` directly.

    Saves the encoding pass: values that occur nowhere are dropped from the counted matrix
    afterwards (and the codes remapped only then). Returns None when the range is too wide.
    """
    lo = min(int(gold.min()), *(int(p.min()) for p in predictions))
    hi = max(int(gold.max()), *(int(p.max()) for p in predictions))
    width = hi - lo + 1
    if width > MAX_DIRECT_RANGE:
        return None
    if lo:
        gold, predictions = gold - lo, [p - lo for p in predictions]
    confusion = confusion_tensor(gold, predictions, width)
    present = (confusion[0].sum(axis=1) + confusion.sum(axis=(0, 1))) > 0
    if not present.all():
        confusion = confusion[:, present][:, :, present]
        lookup = np.cumsum(present) - 1
        gold, predictions = lookup[gold], [lookup[p] for p in predictions]
    labels = [str(value + lo) for value in np.flatnonzero(present)]
    return gold, predictions, labels, confusion


def count(
    gold: np.ndarray,
    systems: Mapping[str, np.ndarray],
    labels: Sequence[str] | None = None,
) -> Counts:
    """Encode gold and system labels with one shared label set and count them.

    Parameters
    ----------
    gold : array (N,) of gold labels (strings or integers).
    systems : system name -> array (N,) of predicted labels, aligned with ``gold``.
    labels : fixed label order; default is the sorted union of gold and predicted labels.

    Raises
    ------
    InputError
        If ``labels`` is given and a gold or predicted label is not in it.
    """
    names = tuple(systems)
    gold = np.asarray(gold)
    arrays = [np.asarray(systems[name]) for name in names]
    fast = None
    if labels is None and gold.dtype.kind in "iu" and all(a.dtype.kind in "iu" for a in arrays):
        fast = _count_integers(gold, arrays)
    if fast is not None:
        gold_codes, prediction_codes, order, confusion = fast
        dtype = code_dtype(len(order))
        return Counts(tuple(order), names, gold_codes.astype(dtype), np.stack(prediction_codes).astype(dtype),
                      confusion, False)
    stacked = np.stack([gold] + arrays)
    if stacked.dtype.kind not in "iu":
        stacked = stacked.astype(str)
    codes, order = encode(stacked, labels)
    if labels is not None and (codes < 0).any():
        row, item = np.argwhere(codes < 0)[0]
        where = "gold" if row == 0 else f"system {names[row - 1]!r}"
        raise InputError(
            f"{where}, item {item + 1}: label {str(stacked[row, item])!r} is not in --labels "
            f"({', '.join(order)})"
        )
    codes = codes.astype(code_dtype(len(order)))
    gold_codes, prediction_codes = codes[0], codes[1:]
    return Counts(
        labels=tuple(order),
        systems=names,
        gold=gold_codes,
        predictions=prediction_codes,
        confusion=confusion_tensor(gold_codes, prediction_codes, len(order)),
        labels_given=labels is not None,
    )
