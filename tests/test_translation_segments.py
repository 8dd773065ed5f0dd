"""Segment-level agreement with human scores, as the WMT metrics task computes it (issue 36): every metric scores each
segment on its own (sentence BLEU and chrF equal sacrebleu's sentence_bleu and sentence_chrf), and the agreement is
Kendall's τ-b over every rated (system, segment) pair at once (mt-metrics-eval's Correlation.Kendall with
average_by='none'), checked by hand and against scipy."""
from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
import scipy.sparse
import scipy.stats

from auditor.tasks.translation import segments
from auditor.tasks.translation.counting import count_corpus
from auditor.tasks.translation.measures import bleu_from_statistics
from auditor.tasks.translation.segments import segment_agreement, segment_f, segment_scores

REFERENCE = ["the cat sat on the mat .", "a dog barked at the old postman today", "yes", "it rained all day long",
             "we met in Paris"]
SYSTEMS = {
    "good": ["the cat sat on the mat .", "a dog barked at the postman today", "yes", "it rained all day",
             "we met in Paris"],
    "short": ["the cat", "dog barked", "no", "rain", "we met"],  # orders 3 and 4 empty: effective order matters
    "odd": ["mat the on sat cat the .", "", "yes yes", "all day long it rained", "Paris we met in"],
}


@pytest.fixture(scope="module")
def corpus():
    return count_corpus([REFERENCE], SYSTEMS, "13a", False)


def test_segment_bleu_and_chrf_equal_sacrebleus_sentence_scores(corpus):
    scores = segment_scores(corpus, 1.0, 1.0)
    for s, (name, lines) in enumerate(SYSTEMS.items()):
        bleu = [sacrebleu.sentence_bleu(h, [r]).score / 100 for h, r in zip(lines, REFERENCE)]
        chrf = [sacrebleu.sentence_chrf(h, [r]).score / 100 for h, r in zip(lines, REFERENCE)]
        np.testing.assert_allclose(scores["bleu"][:, s], bleu, atol=1e-12)
        np.testing.assert_allclose(scores["chrf"][:, s], chrf, atol=1e-12)


def test_sentence_bleu_uses_the_effective_order_by_hand():
    # hyp "the cat" against "the cat sat": 1-grams 2/2, 2-grams 1/1, no 3- or 4-grams; BP = exp(1 - 3/2)
    stats = np.array([2, 3, 2, 1, 0, 0, 2, 1, 0, 0])
    expected = np.exp(1 - 3 / 2) * np.exp((np.log(1.0) + np.log(1.0)) / 2)
    assert bleu_from_statistics(stats, effective_order=True) == pytest.approx(expected)
    # the corpus form (no effective order) counts the empty 3- and 4-gram orders in the mean: sacrebleu's corpus_bleu
    assert bleu_from_statistics(stats) == pytest.approx(sacrebleu.corpus_bleu(["the cat"], [["the cat sat"]]).score
                                                        / 100)


def test_segment_macro_and_micro_f_by_hand():
    # one segment, types (a, b, c): output "a a b", reference "a b b c": Match (2, 1, 0), Preds (2, 1, 0),
    # Refs (1, 2, 1) -> per type Match = min: (1, 1, 0); F_c = 2M/(Refs + Preds) = 2/3, 2/3, 0
    match = np.array([[1.0, 1.0, 0.0]])
    predicted = np.array([[2.0, 1.0, 0.0]])
    reference = np.array([[1.0, 2.0, 1.0]])
    macro, micro = segment_f(*(scipy.sparse.csr_matrix(x) for x in (match, predicted, reference)), 1.0, 1.0)
    assert macro[0] == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    # MicroF: weights Refs + 1 = (2, 3, 2): (2·2/3 + 3·2/3 + 0)/7
    assert micro[0] == pytest.approx((2 * 2 / 3 + 3 * 2 / 3) / 7)


def test_the_agreement_is_tau_b_over_all_rated_pairs_without_grouping(corpus):
    human = np.array([[0.0, -5.0, -1.0], [-1.0, -10.0, np.nan], [0.0, -5.0, -5.0], [-1.0, -9.0, -2.0],
                      [0.0, -3.0, -1.0]])
    result = segment_agreement(corpus, human, 1.0, 1.0)
    rated = ~np.isnan(human)
    assert result.rated == 14
    scores = segment_scores(corpus, 1.0, 1.0)
    for metric, tau in result.taus.items():
        expected = scipy.stats.kendalltau(scores[metric][rated], human[rated]).statistic
        assert tau.value == pytest.approx(expected) and tau.scores == 14


def test_tau_b_counts_ties_as_kendall_1945_by_hand(corpus, monkeypatch):
    # 4 scores, metric (1, 2, 2, 3), human (1, 1, 2, 3): of the 6 pairs, 4 concordant, 0 discordant, one tied in
    # the metric only (2, 2), one in the human scores only (1, 1): τ-b = (4 - 0)/√((6 - 1)(6 - 1)) = 0.8
    fixed = {m: np.array([[1.0], [2.0], [2.0], [3.0]]) for m in ("macrof", "microf", "bleu", "chrf")}
    monkeypatch.setattr(segments, "segment_scores", lambda corpus, beta, k: fixed)
    result = segments.segment_agreement(corpus, np.array([[1.0], [1.0], [2.0], [3.0]]), 1.0, 1.0)
    assert result.taus["bleu"].value == pytest.approx(0.8)


def test_system_level_human_scores_give_no_segment_agreement(corpus):
    assert segment_agreement(corpus, None, 1.0, 1.0) is None


def test_segment_scores_with_two_references_equal_sacrebleus():
    second = ["a cat sat on a mat .", "the dog barked at the postman", "yes indeed", "it rained the whole day",
              "we met in Paris ."]
    corpus = count_corpus([REFERENCE, second], SYSTEMS, "13a", False)
    scores = segment_scores(corpus, 1.0, 1.0)
    for s, lines in enumerate(SYSTEMS.values()):
        bleu = [sacrebleu.sentence_bleu(h, [r, t]).score / 100 for h, r, t in zip(lines, REFERENCE, second)]
        chrf = [sacrebleu.sentence_chrf(h, [r, t]).score / 100 for h, r, t in zip(lines, REFERENCE, second)]
        np.testing.assert_allclose(scores["bleu"][:, s], bleu, atol=1e-12)
        np.testing.assert_allclose(scores["chrf"][:, s], chrf, atol=1e-12)
