"""Ranks from each pair's own resample: the route when the pattern table is too large to resample jointly.

Part of the *analyse* stage, chosen by :func:`auditor.analyses.bootstrap.bootstrap`. The joint
(paired) resample draws, per resample, one count per distinct pattern ``(gold, pred_1, ...,
pred_S)``: ``U`` draws (a multinomial over the patterns) or ``N`` item draws, whichever is
cheaper. With 10⁸ items, 4 systems and 20 labels ``U`` is 1.4 million, and 1000 resamples take
over a minute. Comparing two systems needs only their pair's pattern table ``(gold, pred_a,
pred_b)``, of at most ``k³`` cells whatever ``N`` and ``U``:

* for each pair ``(a, b)`` the pair's table is resampled on its own, exactly as the joint route
  resamples the full table (:class:`~auditor.analyses.resample.Resampler`: ``Multinomial(N,
  n_p / N)`` over its cells, or N item draws when the cells are many), so the pair's two
  confusion matrices ``(C_a*, C_b*)`` have exactly the joint distribution they have in the joint
  resample (the pair table is a function of the full one; an item bootstrap of the full table is
  an item bootstrap of the pair table);
* ``P(a beats b) = P(m(C_a*) > m(C_b*)) + ½ P(m(C_a*) = m(C_b*))`` per metric (an undefined
  value ranks below every defined one: the joint route's rank rule);
* the rank summary is each system's **expected rank** ``E[rank_s] = 1 + Σ_{t ≠ s} P(t beats s)``,
  which by linearity of expectation equals the joint route's expected rank (ties sharing their
  ranks equally). The distribution ``P(rank = r)`` and ``P(rank = 1)`` need the joint draws and are
  not formed: they are not functions of the pairwise probabilities.

Route rule (:func:`route`): pairs when the test set has more than :data:`PAIRS_FROM` distinct
patterns and the pairs' tables (at most ``k³`` cells each) hold fewer cells in all than the full
table: then the joint resample costs more in time and memory (its incidence matrix holds S·U
entries) than every pair's resample together.
"""
from __future__ import annotations

import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from auditor.analyses.resample import Resampler
from auditor.io.counts import Counts
from auditor.metrics.catalogue import compute
from auditor.metrics.registry import Metric

JOINT = "joint"
PAIRS = "pairs"
#: Above this many distinct patterns the ranks come from the pairs (when their tables are smaller):
#: a joint resample costs about 30 ns per pattern per resample (the draws, the incidence product, the metrics):
#: at 1M items x 10 systems x 20 classes (570k patterns) 16.8 s of CPU per 1000 resamples, against 13.6 s for
#: the 45 pairs' tables (measured in one run, load 9).
PAIRS_FROM = 2**18
#: The route in words (JSON ``statistics.rank_route_rule``, the report's facts).
PAIRS_RULE = (f"ranks from the joint resample of all systems, unless the pattern table has more than {PAIRS_FROM:,} "
              "distinct (gold, pred_1, ..., pred_S) rows and the pairs' (gold, pred_a, pred_b) tables are smaller "
              "in all: then each pair is resampled on its own and the ranks are summarised by P(a beats b) and "
              "the expected rank")
#: One sentence for the report where ranks appear in the pairs route.
PAIRS_SENTENCE = ("The pattern table is too large to resample all systems jointly, so each pair of systems was "
                  "resampled on its own: P(a beats b) comes from that pair's resamples, and a system's expected "
                  "rank is 1 + Σ P(other beats it) (equal to the joint resample's); P(rank = 1) needs the joint "
                  "draws and is not shown.")


def pair_cells_bound(k: int, n_patterns: int, S: int) -> int:
    """Upper bound on the cells of all S(S − 1)/2 pair tables: each holds at most min(k³, U)."""
    return S * (S - 1) // 2 * min(k**3, n_patterns)


def route(counts: Counts) -> str:
    """:data:`PAIRS` when the pattern table has more than :data:`PAIRS_FROM` rows and the pairs'
    tables are smaller in all (:func:`pair_cells_bound`), else :data:`JOINT`."""
    if counts.given_pairs is not None:  # the engine formed only the pairs' tables
        return PAIRS
    if not counts.paired or len(counts.systems) < 2:
        return JOINT
    n_patterns = len(counts.patterns()[1])
    if n_patterns > PAIRS_FROM and pair_cells_bound(counts.k, n_patterns, len(counts.systems)) < n_patterns:
        return PAIRS
    return JOINT


@dataclass(frozen=True)
class PairwiseRanks:
    """P(a beats b) per metric from each pair's resamples, and the expected ranks they give.

    Attributes
    ----------
    systems, metric_ids : axis labels.
    p_beats : metric id -> (S, S) ``P[a, b] = P(a beats b)`` (ties count ½; NaN on the diagonal).
    n_patterns : distinct patterns of the test set (why this route was taken); None when the engine
        formed only the pairs' tables (the pattern table was too large for memory).
    """

    systems: tuple[str, ...]
    metric_ids: tuple[str, ...]
    p_beats: Mapping[str, np.ndarray]
    n_patterns: int | None

    def expected_rank(self, metric_id: str) -> np.ndarray:
        """``E[rank_s] = 1 + Σ_{t ≠ s} P(t beats s)`` for every system, shape (S,)."""
        return 1.0 + np.nansum(self.p_beats[metric_id], axis=0)

    def to_json(self) -> dict[str, Any]:
        """``{METRIC: {"p_beats": {A: {B: p}}, "expected_rank": {S: r}}}``."""
        return {metric_id: {
            "p_beats": {a: {b: float(self.p_beats[metric_id][i, j]) for j, b in enumerate(self.systems) if j != i}
                        for i, a in enumerate(self.systems)},
            "expected_rank": {s: float(r) for s, r in zip(self.systems, self.expected_rank(metric_id))}}
            for metric_id in self.metric_ids}


def pair_seed(seed: int, a: int, b: int) -> list[int]:
    """The entropy of pair (a, b)'s stream: one per pair, whatever the threads (never the
    randomisation's ``[seed, a, b]``)."""
    return [seed, zlib.crc32(b"pair-ranks"), a, b]


def pair_values(counts: Counts, a: int, b: int, metrics: Sequence[Metric], B: int, seed: int,
                all_labels_active: bool = False) -> dict[str, np.ndarray]:
    """Metric id -> (B, 2) values of systems a and b on ``B`` item resamples of their pair table, oriented (an
    error negated: higher is better, as P(a beats b) reads them)."""
    codes, n = counts.pair_patterns(a, b)
    pair = Counts.from_patterns(counts.labels, (counts.systems[a], counts.systems[b]), codes, n, counts.labels_given)
    resampler = Resampler(pair, B, pair_seed(seed, a, b))
    values = {metric.id: np.empty((B, 2)) for metric in metrics}
    by_id = {metric.id: metric for metric in metrics}
    for index in range(resampler.n_chunks):
        start = index * resampler.chunk
        for metric_id, array in compute(resampler.stats(index, all_labels_active), metrics, all_labels_active).items():
            values[metric_id][start:start + array.shape[0]] = by_id[metric_id].oriented(array)
    return values


def beats(values: np.ndarray) -> float:
    """P(first column beats second) over the rows of ``values`` (B, 2): ties ½, NaN below every number."""
    score = np.where(np.isnan(values), -np.inf, values)
    return float(np.mean((score[:, 0] > score[:, 1]) + 0.5 * (score[:, 0] == score[:, 1])))


def pairwise_ranks(counts: Counts, metrics: Sequence[Metric], B: int, seed: int, all_labels_active: bool = False,
                   threads: int = 1, advance: Callable[[int], Any] | None = None) -> PairwiseRanks:
    """Every pair's resample (:func:`pair_values`) reduced to P(a beats b) per metric.

    Each pair has its own stream (:func:`pair_seed`), so the result does not depend on the threads.
    ``advance`` gets B / (number of pairs) per pair, so a
    progress bar sized B reaches its end.
    """
    S = len(counts.systems)
    pairs = list(combinations(range(S), 2))
    p_beats = {metric.id: np.full((S, S), np.nan) for metric in metrics}
    counts.pair_patterns(0, 1)  # builds the cached pattern columns once, before the workers share them

    def work(pair: tuple[int, int]) -> dict[str, np.ndarray]:
        return pair_values(counts, *pair, metrics, B, seed, all_labels_active)

    done = 0
    with ThreadPoolExecutor(max(1, min(threads, len(pairs)))) as pool:
        for position, ((a, b), values) in enumerate(zip(pairs, pool.map(work, pairs)), start=1):
            for metric_id, array in values.items():
                p_beats[metric_id][a, b] = beats(array)
                p_beats[metric_id][b, a] = 1.0 - p_beats[metric_id][a, b]
            if advance is not None:
                step = B * position // len(pairs) - done
                done += step
                advance(step)
    return PairwiseRanks(tuple(counts.systems), tuple(metric.id for metric in metrics), p_beats,
                         None if counts.given_pairs is not None else len(counts.patterns()[1]))


def discordant_from_pairs(counts: Counts) -> np.ndarray:
    """``D[a, b]`` = items a gets right and b wrong (as :func:`~auditor.analyses.significance.discordant_counts`),
    summed from each pair's (gold, pred_a, pred_b) table."""
    S = len(counts.systems)
    discordant = np.zeros((S, S), dtype=np.int64)
    for a, b in combinations(range(S), 2):
        codes, n = counts.pair_patterns(a, b)
        right_a, right_b = codes[:, 1] == codes[:, 0], codes[:, 2] == codes[:, 0]
        discordant[a, b], discordant[b, a] = n[right_a & ~right_b].sum(), n[right_b & ~right_a].sum()
    return discordant


def identical_from_pairs(counts: Counts) -> tuple[tuple[str, ...], ...]:
    """Groups of systems that agree on every item (as :func:`~auditor.analyses.profile.identical_systems`):
    a and b agree everywhere iff their pair table has ``pred_a = pred_b`` on every row."""
    S = len(counts.systems)
    group_of = list(range(S))
    for a, b in combinations(range(S), 2):
        codes, _ = counts.pair_patterns(a, b)
        if group_of[a] == a and group_of[b] == b and np.array_equal(codes[:, 1], codes[:, 2]):
            group_of[b] = a
    groups = [tuple(counts.systems[i] for i, g in enumerate(group_of) if g == leader)
              for leader in sorted(set(group_of))]
    return tuple(group for group in groups if len(group) > 1)
