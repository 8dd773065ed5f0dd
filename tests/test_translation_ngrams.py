"""BLEU's and chrF's per-segment statistics (auditor.tasks.translation.ngrams) equal sacrebleu's own
``_compute_segment_statistics``, number for number: every offline tokeniser, lowercase, several
references, empty and whitespace-only lines, repeated n-grams, non-Latin scripts."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF

from auditor.tasks.translation import ngrams
from auditor.tasks.translation.counting import count_corpus

PIECES = ("the a cat Cat dog sat on mat . , ; ! ? Haus über ÜBER straße 中文 猫 在 垫子 上 。 ， 1,000 3.5 "
          "don't (x) \"q\" a-b é ü ß ﬁ").split() + ["aaaa", "ab" * 3, "\u3000", "\t", "\xa0"]


def _line(rng: random.Random) -> str:
    if rng.random() < 0.08:
        return rng.choice(["", " ", "  \t "])
    return rng.choice([" ", "  ", ""]).join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))


def _sacrebleu_stats(references, hypotheses, tokenize, lowercase):
    """sacrebleu's own per-segment statistics, segment by segment (its corpus_score path)."""
    bleu, chrf = BLEU(tokenize=tokenize, lowercase=lowercase), CHRF(lowercase=lowercase)
    bleu_rows = bleu._extract_corpus_statistics(hypotheses, references)
    chrf_rows = chrf._extract_corpus_statistics(hypotheses, references)
    return np.array(bleu_rows, dtype=np.float64), np.array(chrf_rows, dtype=np.float64)


@pytest.mark.parametrize("tokenize", ["13a", "intl", "zh", "char", "none"])
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("n_refs", [1, 3])
def test_statistics_equal_sacrebleus_on_random_text(tokenize, lowercase, n_refs):
    rng = random.Random(hash((tokenize, lowercase, n_refs)) % 1000)
    n = 120
    references = [[_line(rng) for _ in range(n)] for _ in range(n_refs)]
    systems = {f"s{i}": [_line(rng) if rng.random() < 0.6 else references[0][j] for j in range(n)] for i in range(3)}
    corpus = count_corpus(references, systems, tokenize, lowercase)
    for name, lines in systems.items():
        bleu, chrf = _sacrebleu_stats(references, lines, tokenize, lowercase)
        np.testing.assert_array_equal(corpus.bleu[name], bleu)
        np.testing.assert_array_equal(corpus.chrf[name], chrf)


def test_the_first_of_equally_good_references_is_chosen_for_chrf():
    """Two references with the same sentence chrF: sacrebleu keeps the first (strict '>')."""
    references = [["ab cd"], ["cd ab"], ["xyz"]]
    systems = {"s": ["ab"]}
    corpus = count_corpus(references, systems, "13a", False)
    np.testing.assert_array_equal(corpus.chrf["s"], _sacrebleu_stats(references, ["ab"], "13a", False)[1])


def test_blocks_split_segments_without_changing_the_statistics(monkeypatch):
    """Counting in blocks of a few segments gives the statistics of one block."""
    rng = random.Random(7)
    references = [[_line(rng) for _ in range(60)] for _ in range(2)]
    systems = {"a": [_line(rng) for _ in range(60)], "b": [_line(rng) for _ in range(60)]}
    whole = count_corpus(references, systems, "13a", False)
    monkeypatch.setattr(ngrams, "BLOCK", 50)
    split = count_corpus(references, systems, "13a", False)
    assert len(ngrams._blocks([ngrams.characters(r) for r in references])) > 5
    for name in systems:
        np.testing.assert_array_equal(whole.bleu[name], split.bleu[name])
        np.testing.assert_array_equal(whole.chrf[name], split.chrf[name])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ab c\u00e9\u4e2d.", max_size=12),
                          st.text(alphabet="ab c\u00e9\u4e2d.", max_size=12),
                          st.text(alphabet="ab c\u00e9\u4e2d.", max_size=12)), min_size=1, max_size=8))
def test_statistics_equal_sacrebleus_on_generated_text(rows):
    """Property: any short text over a small alphabet (many repeated n-grams), two references."""
    references = [[r[0] for r in rows], [r[1] for r in rows]]
    hypothesis = [r[2] for r in rows]
    corpus = count_corpus(references, {"s": hypothesis}, "13a", False)
    bleu, chrf = _sacrebleu_stats(references, hypothesis, "13a", False)
    np.testing.assert_array_equal(corpus.bleu["s"], bleu)
    np.testing.assert_array_equal(corpus.chrf["s"], chrf)


def test_closest_reference_length_prefers_the_shorter_on_a_tie():
    """sacrebleu's _get_closest_ref_len: hyp 5 against 3 and 7 -> 3; against 6 and 4 -> 4; 5 -> 5."""
    refs = np.array([[3, 7], [6, 4], [9, 5]])
    assert ngrams.closest_length(np.array([5, 5, 5]), refs).tolist() == [3, 4, 5]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(list("&;<>-.,0123456789 \t\n") + ["&quot;", "&amp;", "&lt;", "&gt;",
                                                                            "<skipped>", "-\n"]),
                          st.characters(max_codepoint=0x7F), st.characters()), max_size=40).map("".join))
def test_13a_tokenisation_equals_sacrebleus(text):
    """The translation table of the first rule gives sacrebleu's Tokenizer13a output exactly."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from auditor.tasks.translation.counting import tokenise

    for lowercase in (False, True):
        bleu = BLEU(lowercase=lowercase)
        assert type(bleu.tokenizer) is Tokenizer13a
        assert tokenise([text, text + " x"], bleu) == [bleu._preprocess_segment(text),
                                                       bleu._preprocess_segment(text + " x")]


def test_sentence_chrf_that_picks_the_reference_is_sacrebleus_to_the_last_digit():
    """The reference chosen per segment is the one of highest sentence chrF, compared as sacrebleu compares them: the
    corpus formula (:func:`~auditor.tasks.translation.measures.chrf_from_statistics`) ×100 on one segment's row gives
    sacrebleu's ``CHRF._compute_f_score`` exactly, so equal and unequal scores tie and order as they do there."""
    from sacrebleu.metrics import CHRF

    from auditor.tasks.translation.measures import chrf_from_statistics

    rng = np.random.default_rng(7)
    hyp, ref = rng.integers(0, 12, size=(400, 6)), rng.integers(0, 12, size=(400, 6))
    hyp[rng.random(hyp.shape) < 0.2] = 0
    match = np.minimum(hyp, ref) * (rng.random(hyp.shape) < 0.7)
    rows = np.stack([hyp, ref, match], axis=2).reshape(400, 18)
    expected = [CHRF()._compute_f_score(row.tolist()) for row in rows]
    np.testing.assert_array_equal(100 * chrf_from_statistics(rows.astype(np.float64)), expected)
