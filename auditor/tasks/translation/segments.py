r"""Segment-level agreement with human scores, as the WMT metrics task computes it.

Each metric scores every segment of every system from that segment's own statistics: sentence BLEU as
``sacrebleu.sentence_bleu`` (corpus BLEU's function, :func:`~.measures.bleu_from_statistics`, on one segment's
statistics with ``exp`` smoothing and the effective order: the mean of the log precisions runs over the orders the
hypothesis has n-grams of), chrF as ``sacrebleu.sentence_chrf``, and MacroF/MicroF as their corpus
formulas on one segment's type counts. The agreement of a metric is Kendall's τ-b (Kendall 1945) between its
segment scores and the human segment scores over every rated (system, segment) pair at once ("no grouping"):
:math:`\tau_b = (n_c - n_d)/\sqrt{(n_0 - n_1)(n_0 - n_2)}` with :math:`n_c, n_d` the concordant and discordant
pairs of pairs, :math:`n_0` all pairs and :math:`n_1, n_2` the pairs tied in the metric and in the human scores.
This is what the WMT metrics task's toolkit mt-metrics-eval computes (``stats.Correlation.Kendall`` with
``average_by='none'``, which flattens the system × segment matrices, through ``scipy.stats.kendalltau``); a user
reproducing WMT21's segment-level results (Freitag et al. 2021) found them to be this statistic rather than the
older "Kendall-like" count over pairs of translations (mt-metrics-eval issue #1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import scipy.sparse
import scipy.stats

from auditor.formatting import nan_to_none
from auditor.tasks.translation.counting import Corpus, flat_sum
from auditor.tasks.translation.measures import bleu_from_statistics, chrf_from_statistics, from_terms

#: How the statistic is computed (the JSON's ``human.segment_level.method`` and the report's caption).
METHOD = ("Kendall's tau-b between the metric's and the human segment scores over every rated (system, segment) "
          "pair, no grouping (mt-metrics-eval: Correlation.Kendall(average_by='none'))")


def segment_f(match: scipy.sparse.csr_matrix, predicted: scipy.sparse.csr_matrix,
              reference: scipy.sparse.csr_matrix, beta: float, k: float) -> tuple[np.ndarray, np.ndarray]:
    """(MacroF, MicroF) of each segment (row) from its own type counts: V = the types the segment's output or
    reference holds, F_c = (1+β²)·Match/(β²·Refs + Preds) on V (:func:`~.measures.f_terms`); NaN for a segment
    with no token on either side."""
    b2 = beta * beta
    denominator = (b2 * reference + predicted).tocsr()
    denominator.eliminate_zeros()
    inverse = denominator.copy()
    inverse.data = 1.0 / inverse.data
    f = match.multiply(inverse).tocsr() * (1 + b2)
    size, f_total = np.diff(denominator.indptr).astype(np.float64), flat_sum(f, 1)
    weighted_total, reference_total = flat_sum(reference.multiply(f), 1), flat_sum(reference, 1)
    return from_terms(size, f_total, weighted_total, reference_total, k)


def segment_scores(corpus: Corpus, beta: float, k: float) -> dict[str, np.ndarray]:
    """metric -> (N segments, S systems) scores, each segment scored on its own."""
    shape = (corpus.n_segments, len(corpus.systems))
    out = {metric: np.empty(shape) for metric in ("macrof", "microf", "bleu", "chrf")}
    for s, name in enumerate(corpus.systems):
        counts = corpus.counts[name]
        out["macrof"][:, s], out["microf"][:, s] = segment_f(counts.match, counts.predicted, corpus.reference,
                                                             beta, k)
        out["bleu"][:, s] = bleu_from_statistics(corpus.bleu[name], effective_order=True)
        out["chrf"][:, s] = chrf_from_statistics(corpus.chrf[name])
    return out


@dataclass(frozen=True)
class SegmentTau:
    """One metric's segment-level τ-b and how many (system, segment) scores it was computed over."""

    value: float
    scores: int


@dataclass(frozen=True)
class SegmentAgreement:
    """metric -> :class:`SegmentTau`; ``rated``: the (system, segment) scores with a human score."""

    taus: Mapping[str, SegmentTau]
    rated: int
    method: str = METHOD

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "rated_scores": self.rated,
                "kendall_tau_b": {m: {"value": nan_to_none(t.value), "scores": t.scores} for m, t in self.taus.items()}}


def segment_agreement(corpus: Corpus, human_segments: np.ndarray | None, beta: float,
                      k: float) -> SegmentAgreement | None:
    """τ-b of every metric's segment scores with ``human_segments`` ((N, S), higher = better, NaN where unrated;
    None for system-level human scores: no segment-level agreement)."""
    if human_segments is None:
        return None
    rated = ~np.isnan(human_segments)
    human = human_segments[rated]
    taus = {}
    for metric, scores in segment_scores(corpus, beta, k).items():
        keep = ~np.isnan(scores[rated])
        value = (scipy.stats.kendalltau(scores[rated][keep], human[keep]).statistic if keep.sum() > 1 else np.nan)
        taus[metric] = SegmentTau(float(value), int(keep.sum()))
    return SegmentAgreement(taus, int(rated.sum()))
