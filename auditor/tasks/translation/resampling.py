"""Resampling segments: bootstrap intervals and paired tests, on per-segment sufficient statistics.

Segments are the resampled unit (Koehn 2004; sacrebleu's significance module). A
resample is a weight vector over segments, never a re-read of text: every metric's summed
statistics are ``W @ X`` — BLEU's and chrF's statistic rows, and the sparse per-type match,
predicted and reference counts — and each metric is evaluated on the whole batch at once
(:mod:`~auditor.tasks.translation.measures`).

* **Bootstrap** (paired: one set of weights shared by all systems): ``B`` resamples drawn by the spine's
  resampler over units (:class:`auditor.analyses.units.UnitResampler`, seeded with the audit's seed), which
  draws as sacrebleu draws, ``rng.choice(N, size=(B, N))`` with ``numpy.random.default_rng(seed)``
  (chunked draws give the same stream), so with the same seed and B the resamples are sacrebleu's.
  Intervals: BCa or the jackknife (:mod:`.intervals`), from these resamples and the jackknife.
* **Approximate randomisation**, as sacrebleu's ``paired_ar`` (Riezler & Maxwell 2005): each
  segment's two outputs swapped with probability ½ (the spine's :func:`auditor.analyses.units.swap_masks`,
  one mask for every pair, sacrebleu's); the shuffled metrics from counts (:func:`_pair_metrics`), the test the
  spine's (:func:`auditor.analyses.units.pair_tests`), with sacrebleu's ``paired_bs`` p beside it for parity
  (:func:`auditor.analyses.units.paired_bootstrap_p`, Koehn 2004; never a best set).

sacrebleu counts ``>`` where this module counts ``≥`` (within 1e-12 relative): a shuffle that
reproduces the observed difference exactly (e.g. two identical systems) then counts against the
null, as Noreen (1989) defines the test, instead of making every such difference significant.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse

from auditor.analyses.families import PairTest
from auditor.analyses.units import Clusters, UnitResampler, block_rows, pair_tests, swap_masks
from auditor.progress import SILENT, Progress
from auditor.tasks.translation.counting import Corpus, flat_sum
from auditor.tasks.translation.measures import bleu_from_statistics, chrf_from_statistics, f_terms, from_terms
from auditor.tasks.translation.names import METRICS

#: Largest (resamples x types) dense block evaluated at once (a few MB: stays in cache).
DENSE = 2**20


def _sum(weights: np.ndarray, matrix: scipy.sparse.csr_matrix | np.ndarray) -> np.ndarray:
    """``weights @ matrix`` (resamples x columns), sparse matrices through their transpose."""
    if scipy.sparse.issparse(matrix):
        return np.asarray((matrix.T @ weights.T).T)
    return weights @ matrix


def _single_segment(matrix: scipy.sparse.csc_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Columns of ``matrix`` with exactly one non-zero row, and that row."""
    matrix = matrix.tocsc()
    matrix.eliminate_zeros()
    single = np.flatnonzero(np.diff(matrix.indptr) == 1)
    return single, matrix.indices[matrix.indptr[single]]


@dataclass(frozen=True)
class SystemTypes:
    """One system's types that can enter V (produced or in the references; a resample only sums
    segments), split in two. A type seen in one segment only (on either side) has the same F_c in
    every resample that keeps that segment (F = (1+β²)wM/(w(β²R + P))) and is out of V otherwise, so its
    terms are ``[w_i > 0]·(1, F_c)`` and ``w_i·R_c F_c``: per segment sums ``single`` (N x 3). The
    other types (``match``, ``predicted``, ``reference``: CSC, segments x types) are summed per resample."""

    single: np.ndarray
    match: scipy.sparse.csc_matrix
    predicted: scipy.sparse.csc_matrix
    reference: scipy.sparse.csc_matrix


@dataclass(frozen=True)
class Prepared:
    """Per system its :class:`SystemTypes`; every system's per-segment columns that resampling sums,
    side by side so that one matrix product per block sums them all: ``weighted`` (N x S·(1 + d_BLEU +
    d_chrF): Σ Refs·F of single-segment types, BLEU's and chrF's statistics) and ``kept`` (N x 2S: |V| and
    Σ F of single-segment types, counted once if the segment is drawn at all)."""

    types: Mapping[str, SystemTypes]
    weighted: np.ndarray
    kept: np.ndarray


def prepare(corpus: Corpus, beta: float) -> Prepared:
    reference = corpus.reference.tocsc()
    in_reference = flat_sum(reference, 0) > 0
    prepared = {}
    for name in corpus.systems:
        counts = corpus.counts[name]
        cols = np.flatnonzero(in_reference | (flat_sum(counts.predicted, 0) > 0))
        match, predicted, ref = (x[:, cols].tocsc() for x in (counts.match, counts.predicted, reference))
        single, rows = _single_segment(predicted + ref)
        _, f, weighted = f_terms(flat_sum(match[:, single], 0), flat_sum(predicted[:, single], 0),
                                 flat_sum(ref[:, single], 0), beta)
        n = corpus.n_segments
        table = np.stack([np.bincount(rows, minlength=n), np.bincount(rows, f, n), np.bincount(rows, weighted, n)], 1)
        multi = np.setdiff1d(np.arange(cols.size), single)
        prepared[name] = SystemTypes(table.astype(np.float64), match[:, multi], predicted[:, multi], ref[:, multi])
    weighted = np.hstack([np.column_stack([prepared[name].single[:, 2], corpus.bleu[name], corpus.chrf[name]])
                          for name in corpus.systems])
    kept = np.hstack([prepared[name].single[:, :2] for name in corpus.systems])
    return Prepared(prepared, weighted, kept)


def grouped(corpus: Corpus, clusters: Clusters) -> Corpus:
    """The corpus with each cluster's segments summed into one row (types' counts, BLEU's and chrF's statistics):
    every figure is a function of these sums, so resampling, leaving out or swapping a row of it resamples, leaves
    out or swaps a whole cluster (the spine's clusters, docs/architecture.md "Resampling units")."""
    from dataclasses import replace

    from auditor.tasks.translation.counting import TypeCounts

    G = clusters.indicator()
    return replace(corpus, n_segments=clusters.n_clusters, reference=(G @ corpus.reference).tocsr(),
                   counts={name: TypeCounts((G @ c.match).tocsr(), (G @ c.predicted).tocsr())
                           for name, c in corpus.counts.items()},
                   bleu={name: np.asarray(G @ x) for name, x in corpus.bleu.items()},
                   chrf={name: np.asarray(G @ x) for name, x in corpus.chrf.items()})


def grouped_human(segments: np.ndarray, clusters: Clusters) -> tuple[np.ndarray, np.ndarray]:
    """Each cluster's (sum of rated human scores, number rated) per system: (C, S) each."""
    rated = ~np.isnan(segments)
    G = clusters.indicator()
    return np.asarray(G @ np.where(rated, segments, 0.0)), np.asarray(G @ rated.astype(np.float64))


def scores(corpus: Corpus, weights: np.ndarray, beta: float, k: float,
           prepared: Prepared | None = None) -> dict[str, np.ndarray]:
    """Every metric of every system under segment ``weights`` (resamples x N) -> metric -> (resamples, S)."""
    prepared = prepared or prepare(corpus, beta)
    summed = weights @ prepared.weighted
    counted = (weights > 0).astype(np.float64) @ prepared.kept
    reference_total = weights @ flat_sum(corpus.reference, 1)
    out = {metric: np.empty((weights.shape[0], len(corpus.systems))) for metric in METRICS}
    width = prepared.weighted.shape[1] // max(1, len(corpus.systems))
    d_bleu = corpus.bleu[corpus.systems[0]].shape[1] if corpus.systems else 0
    for s, name in enumerate(corpus.systems):
        types = prepared.types[name]
        in_v, f, weighted = f_terms(_sum(weights, types.match), _sum(weights, types.predicted),
                                    _sum(weights, types.reference), beta)
        block = summed[:, s * width:(s + 1) * width]
        size = in_v.sum(axis=1) + counted[:, 2 * s]
        f_total = f.sum(axis=1) + counted[:, 2 * s + 1]
        weighted_total = weighted.sum(axis=1) + block[:, 0]
        out["macrof"][:, s], out["microf"][:, s] = from_terms(size, f_total, weighted_total, reference_total, k)
        out["bleu"][:, s] = bleu_from_statistics(block[:, 1:1 + d_bleu])
        out["chrf"][:, s] = chrf_from_statistics(block[:, 1 + d_bleu:])
    return out


def point_scores(corpus: Corpus, beta: float, k: float, prepared: Prepared | None = None) -> dict[str, np.ndarray]:
    """The test set's own metric values: metric -> (S,)."""
    ones = np.ones((1, corpus.n_segments))
    return {metric: values[0] for metric, values in scores(corpus, ones, beta, k, prepared).items()}


@dataclass(frozen=True)
class Bootstrap:
    """Resampled values (metric -> (B, S)) and, with segment-level human scores, their resampled
    system means (B, S)."""

    values: Mapping[str, np.ndarray]
    human: np.ndarray | None


def bootstrap(corpus: Corpus, resamples: int, seed: int, beta: float, k: float,
              human: np.ndarray | tuple[np.ndarray, np.ndarray] | None = None, progress: Progress = SILENT,
              prepared: Prepared | None = None) -> Bootstrap:
    """``resamples`` paired bootstrap resamples of every metric (and of the human means), drawn by the spine's
    :class:`~auditor.analyses.units.UnitResampler` over the corpus's rows (segments, or clusters: :func:`grouped`)."""
    n = corpus.n_segments
    prepared = prepared or prepare(corpus, beta)
    widest = max((t.match.shape[1] for t in prepared.types.values()), default=1)
    rows = max(1, min(block_rows(n), DENSE // max(widest, 1)))

    def evaluate(weights: np.ndarray) -> dict[str, np.ndarray]:
        values = scores(corpus, weights, beta, k, prepared)
        return values if human is None else {**values, "human": resampled_means(weights, human)}

    with progress.task("bootstrap over segments", total=resamples) as advance:
        values = UnitResampler(n, resamples, seed, rows=rows).values(lambda weights: weights, evaluate, advance=advance)
    return Bootstrap({metric: values[metric] for metric in METRICS}, values.get("human"))


def resampled_means(weights: np.ndarray, segments: np.ndarray | tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Mean rated score per system under each weight row; NaN (unrated) segments left out. ``segments``: (N, S)
    scores, or per unit (sums, numbers rated) (:func:`grouped_human`)."""
    if isinstance(segments, tuple):
        sums, rated = segments
    else:
        rated = (~np.isnan(segments)).astype(np.float64)
        sums = np.where(rated > 0, segments, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ sums) / (weights @ rated)


def _pair_metrics(corpus: Corpus, a: str, b: str, mask: np.ndarray, beta: float,
                  k: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every metric of the shuffled pseudo-systems a*, b* (each row of ``mask`` takes a's output
    where True, b's where False, for a*; b* gets the rest).

    Types whose counts are the same in a and b in every segment add the same terms
    (:func:`~.measures.f_terms`) to every round; a type that differs in one segment i only takes one
    of two values, b's totals or a's, as ``mask[:, i]`` says (linear in the mask); the other types are
    summed per round.
    """
    ca, cb = corpus.counts[a], corpus.counts[b]
    reference = flat_sum(corpus.reference, 0)
    dm, dp = (ca.match - cb.match).tocsc(), (ca.predicted - cb.predicted).tocsc()
    dp.eliminate_zeros()
    varying = np.flatnonzero(np.diff(dp.indptr) > 0)  # Preds equal in a segment -> Match equal there
    single, rows = _single_segment(dp[:, varying])
    single, multi = varying[single], np.setdiff1d(varying, varying[single])
    same = np.ones(reference.size, dtype=bool)
    same[varying] = False
    totals = [flat_sum(x, 0) for x in (ca.match, cb.match, ca.predicted, cb.predicted)]
    constant = np.array([t.sum() for t in f_terms(totals[0][same], totals[2][same], reference[same], beta)])
    with_b = np.array(f_terms(totals[1][single], totals[3][single], reference[single], beta), dtype=np.float64)
    with_a = np.array(f_terms(totals[0][single], totals[2][single], reference[single], beta), dtype=np.float64)
    n = corpus.n_segments
    step = np.stack([np.bincount(rows, d, n) for d in with_a - with_b], axis=1)  # per segment: a's minus b's
    parts: dict[str, list[np.ndarray]] = {"a": [], "b": [], "bleu_a": [], "bleu_b": [], "chrf_a": [], "chrf_b": []}
    for start in range(0, mask.shape[0], block_rows(n)):
        weights = mask[start:start + block_rows(n)].astype(np.float64)
        swapped = weights @ step
        dense_a, dense_b = _multi_terms(totals, dm[:, multi], dp[:, multi], reference[multi], multi, weights, beta)
        parts["a"].append(constant + with_b.sum(axis=1) + swapped + dense_a)
        parts["b"].append(constant + with_a.sum(axis=1) - swapped + dense_b)
        for metric, stats in (("bleu", corpus.bleu), ("chrf", corpus.chrf)):
            sa = stats[b].sum(axis=0) + weights @ (stats[a] - stats[b])
            parts[f"{metric}_a"].append(sa)
            parts[f"{metric}_b"].append(stats[a].sum(axis=0) + stats[b].sum(axis=0) - sa)
    total = reference.sum()
    (macro_a, micro_a), (macro_b, micro_b) = (from_terms(*np.concatenate(parts[side]).T, total, k) for side in "ab")
    shuffled = {"macrof": (macro_a, macro_b), "microf": (micro_a, micro_b)}
    for metric, score in (("bleu", bleu_from_statistics), ("chrf", chrf_from_statistics)):
        shuffled[metric] = (score(np.concatenate(parts[f"{metric}_a"])), score(np.concatenate(parts[f"{metric}_b"])))
    return shuffled


def _multi_terms(totals, dm, dp, reference, multi, mask, beta) -> tuple[np.ndarray, np.ndarray]:
    """Σ terms per round of a* and b* over the types that differ in several segments (rounds x 3)."""
    both_m, both_p = totals[0][multi] + totals[1][multi], totals[2][multi] + totals[3][multi]
    parts_a, parts_b = [], []
    rows = max(1, DENSE // max(multi.size, 1))
    for start in range(0, mask.shape[0], rows):
        block = mask[start:start + rows]
        match_a = totals[1][multi] + _sum(block, dm)
        pred_a = totals[3][multi] + _sum(block, dp)
        parts_a.append(np.stack([t.sum(axis=1) for t in f_terms(match_a, pred_a, reference, beta)], axis=1))
        parts_b.append(np.stack([t.sum(axis=1) for t in f_terms(both_m - match_a, both_p - pred_a, reference, beta)],
                                axis=1))
    return np.concatenate(parts_a), np.concatenate(parts_b)


def paired_tests(corpus: Corpus, observed: Mapping[str, np.ndarray], resampled: Bootstrap | None, rounds: int,
                 seed: int, beta: float, k: float, pairs: Sequence[tuple[int, int]], correction: str,
                 progress: Progress = SILENT) -> list[PairTest]:
    """The spine's pair tests (:func:`~auditor.analyses.units.pair_tests`) over the corpus's rows (segments, or
    clusters: :func:`grouped`): approximate randomisation with the spine's swap masks in one block of ``rounds`` rows
    (as sacrebleu draws them) and, with the bootstrap, sacrebleu's paired bootstrap p."""
    names = corpus.systems
    mask = next(swap_masks(seed, rounds, corpus.n_segments, rows=rounds), np.zeros((0, corpus.n_segments)))

    def null_of(a: int, b: int) -> dict[str, np.ndarray]:
        shuffled = _pair_metrics(corpus, names[a], names[b], mask, beta, k)
        return {metric: first - second for metric, (first, second) in shuffled.items()}

    return pair_tests(names, METRICS, observed, pairs, null_of, rounds, correction,
                      None if resampled is None else resampled.values, progress)
