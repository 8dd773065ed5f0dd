"""Translation task (issue 23): MacroF/MicroF by hand and against a Counter implementation,
BLEU/chrF against sacrebleu's own calls, p-values against sacrebleu's significance module."""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF

from auditor.tasks.translation.counting import count_corpus
from auditor.tasks.translation.measures import bleu_from_statistics, chrf_from_statistics, macro_micro_f
from auditor.tasks.translation.resampling import bootstrap, paired_tests, point_scores

WORDS = "the a cat dog sat on mat . , house big small runs Haus über".split()


def _sentences(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 10))) for _ in range(n)]


def _scores(refs, hyps, beta=1.0, k=1.0, tokenize="13a", lowercase=False):
    corpus = count_corpus(refs, hyps, tokenize, lowercase)
    return corpus, point_scores(corpus, beta, k)


def test_hand_worked_example_from_the_poster_formulas():
    """ref "the cat sat on the mat", hyp "the cat the cat" (Gowda et al. 2021, poster "Methods").
    Match: the 2, cat 1; Preds: the 2, cat 2; Refs: the 2, cat 1, sat 1, on 1, mat 1; V = 5 types.
    F: the 1; cat P = 1/2, R = 1 -> 2/3; sat, on, mat P = 1 (never predicted), R = 0 -> 0.
    MacroF1 = (1 + 2/3) / 5 = 1/3. MicroF1: f = Refs + 1 = 3, 2, 2, 2, 2 (sum 11):
    (3·1 + 2·2/3) / 11 = 13/33. β = 2: F_cat = 5·(1/2)/(4·(1/2) + 1) = 5/6; MacroF2 = (1 + 5/6)/5 = 11/30."""
    _, values = _scores([["the cat sat on the mat"]], {"S": ["the cat the cat"]})
    assert values["macrof"][0] == pytest.approx(1 / 3)
    assert values["microf"][0] == pytest.approx(13 / 33)
    _, values = _scores([["the cat sat on the mat"]], {"S": ["the cat the cat"]}, beta=2.0)
    assert values["macrof"][0] == pytest.approx(11 / 30)


def test_hand_worked_example_with_two_references():
    """refs "a b" and "a a c", hyp "a a a d": per segment the largest reference count (a 2, b 1, c 1).
    Match a = min(3, 2) = 2; F_a: P = 2/3, R = 1 -> 4/5; b, c: R = 0 -> 0; d: P = 0 (R = 1, Refs = 0) -> 0.
    MacroF1 = (4/5) / 4 = 1/5; MicroF1 with f = 3, 2, 2, 1: 3·(4/5) / 8 = 0.3; with k = 2: f = 4, 3, 3, 2:
    4·(4/5)/12 = 4/15."""
    _, values = _scores([["a b"], ["a a c"]], {"S": ["a a a d"]})
    assert values["macrof"][0] == pytest.approx(0.2)
    assert values["microf"][0] == pytest.approx(0.3)
    _, values = _scores([["a b"], ["a a c"]], {"S": ["a a a d"]}, k=2.0)
    assert values["microf"][0] == pytest.approx(4 / 15)


def counter_macro_micro(refs, hyp, tokenizer, beta=1.0, k=1.0):
    """An independent implementation with collections.Counter, segment by segment."""
    match, preds, ref_counts = Counter(), Counter(), Counter()
    for i, h in enumerate(hyp):
        hc = Counter(tokenizer(h).split())
        rc = Counter()
        for ref in refs:
            for token, count in Counter(tokenizer(ref[i]).split()).items():
                rc[token] = max(rc[token], count)
        preds.update(hc)
        ref_counts.update(rc)
        match.update({t: min(c, rc[t]) for t, c in hc.items() if rc[t]})
    vocabulary = set(preds) | set(ref_counts)
    if not vocabulary:
        return float("nan"), float("nan")
    fs, weights = {}, {}
    for c in vocabulary:
        p = match[c] / preds[c] if preds[c] else 1.0
        r = match[c] / ref_counts[c] if ref_counts[c] else 1.0
        fs[c] = (1 + beta**2) * p * r / (beta**2 * p + r) if p + r else 0.0
        weights[c] = ref_counts[c] + k
    macro = sum(fs.values()) / len(vocabulary)
    micro = sum(weights[c] * fs[c] for c in vocabulary) / sum(weights.values())
    return macro, micro


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n_refs=st.integers(1, 3), n=st.integers(1, 30),
       beta=st.sampled_from([0.5, 1.0, 2.0]), k=st.sampled_from([1.0, 3.0]))
def test_macro_and_micro_f_equal_a_counter_implementation(seed, n_refs, n, beta, k):
    rng = random.Random(seed)
    refs = [_sentences(rng, n) for _ in range(n_refs)]
    hyp = _sentences(rng, n)
    _, values = _scores(refs, {"S": hyp}, beta, k)
    tokenizer = BLEU(tokenize="13a").tokenizer
    macro, micro = counter_macro_micro(refs, hyp, tokenizer, beta, k)
    np.testing.assert_allclose([values["macrof"][0], values["microf"][0]], [macro, micro], rtol=1e-12)


@pytest.mark.parametrize("tokenize,lowercase", [("13a", False), ("intl", True), ("char", False), ("none", False),
                                                ("zh", False)])
def test_bleu_and_chrf_equal_sacrebleus_own_calls(tokenize, lowercase):
    rng = random.Random(7)
    refs = [_sentences(rng, 80) for _ in range(2)]
    hyps = {"A": _sentences(rng, 80), "B": refs[0][:40] + _sentences(rng, 40)}
    _, values = _scores(refs, hyps, tokenize=tokenize, lowercase=lowercase)
    for s, name in enumerate(hyps):
        bleu = sacrebleu.corpus_bleu(hyps[name], refs, tokenize=tokenize, lowercase=lowercase).score
        chrf = CHRF(lowercase=lowercase).corpus_score(hyps[name], refs).score
        assert 100 * values["bleu"][s] == pytest.approx(bleu, rel=1e-12, abs=1e-12)
        assert 100 * values["chrf"][s] == pytest.approx(chrf, rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=10, max_size=10), st.lists(st.integers(0, 6), min_size=18, max_size=18))
def test_vectorised_bleu_and_chrf_equal_sacrebleu_on_any_statistics(bleu_stats, chrf_stats):
    """Every branch of compute_bleu (no match, zero totals, 'exp' smoothing) and of chrF's F."""
    bleu_stats[2:6] = [min(c, t) for c, t in zip(bleu_stats[2:6], bleu_stats[6:10])]
    expected = BLEU()._compute_score_from_stats(list(bleu_stats)).score
    assert 100 * bleu_from_statistics(np.array(bleu_stats)) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    chrf_stats[2::3] = [min(m, h, r) for m, h, r in zip(chrf_stats[2::3], chrf_stats[0::3], chrf_stats[1::3])]
    expected = CHRF()._compute_score_from_stats(list(chrf_stats)).score
    assert 100 * chrf_from_statistics(np.array(chrf_stats)) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_undefined_when_neither_side_has_a_token():
    _, values = _scores([["", ""]], {"S": ["", ""]})
    assert np.isnan(values["macrof"][0]) and np.isnan(values["microf"][0])
    macro, micro = macro_micro_f(np.zeros(3), np.zeros(3), np.zeros(3))
    assert np.isnan(macro) and np.isnan(micro)


def test_an_empty_hypothesis_scores_zero_not_undefined():
    """Every reference type never predicted: P = 1 by convention, R = 0, F = 0."""
    _, values = _scores([["a b c"]], {"S": [""]})
    assert values["macrof"][0] == 0.0 and values["bleu"][0] == 0.0


def test_p_values_equal_sacrebleus_paired_tests():
    """sacrebleu's PairedTest (bs and ar) with the same seed and resamples gives the same p-values."""
    from sacrebleu.significance import PairedTest

    rng = random.Random(1)
    refs = [_sentences(rng, 60)]
    hyps = {"A": _sentences(rng, 60), "B": _sentences(rng, 60), "C": refs[0][:30] + _sentences(rng, 30)}
    corpus, observed = _scores(refs, hyps)
    resampled = bootstrap(corpus, 1000, 12345, 1.0, 1.0)
    tests = paired_tests(corpus, observed, resampled, 1000, 12345, 1.0, 1.0, [(0, 1), (0, 2)], "holm")
    ours = {(t.b, t.metric, t.method): t.p for t in tests}
    for test_type, method in (("bs", "paired_bootstrap"), ("ar", "approximate_randomisation")):
        _, results = PairedTest(list(hyps.items()), {"bleu": BLEU(), "chrf": CHRF()}, refs, test_type=test_type,
                                n_samples=1000)()
        for metric, key in (("bleu", "BLEU"), ("chrf", "chrF2")):
            for index, system in ((1, "B"), (2, "C")):
                assert ours[(system, metric, method)] == pytest.approx(results[key][index].p_value, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=30),
       beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_the_one_type_f_is_the_posters_p_r_formula(counts, beta):
    """Every figure's F_β;c (f_terms: (1+β²)·Match/(β²·Refs + Preds) on V) is the poster's (1+β²)PR/(β²P + R) with
    P = 1 at Preds = 0, R = 1 at Refs = 0 and F = 0 at P = R = 0, written out here type by type."""
    from auditor.tasks.translation.measures import f_terms

    rows = [(min(m, p, r), p, r) for m, p, r in counts]  # Match ≤ Preds, Refs
    in_v, f, weighted = f_terms(*(np.array(column, dtype=float) for column in zip(*rows)), beta)
    for i, (m, p, r) in enumerate(rows):
        precision, recall = m / p if p else 1.0, m / r if r else 1.0
        expected = (1 + beta**2) * precision * recall / (beta**2 * precision + recall) if precision + recall else 0.0
        assert in_v[i] == (p + r > 0)
        if in_v[i]:
            assert f[i] == pytest.approx(expected, rel=1e-14, abs=1e-15) and weighted[i] == pytest.approx(r * f[i])


def test_frequency_bands_by_hand():
    """Reference "a a b c" + "a d": Refs a 3 (band 2-4), b, c, d 1 (once). Output "a b x" + "a":
    Match a 2, b 1; Preds a 2, b 1, x 1. Band once: F_b = 1, F_c = F_d = 0 (never produced) -> MacroF 1/3,
    2 types never produced; band 2-4: F_a = 2·1·(2/3)/(1 + 2/3) = 4/5. x (output only) has no band."""
    from auditor.tasks.translation.bands import profile

    corpus, _ = _scores([["a a b c", "a d"]], {"S": ["a b x", "a"]})
    types = profile(corpus, 1.0)
    bands = {b.name: b for b in types.bands}
    assert (types.types, types.tokens) == (4, 6)
    assert bands["once"].types == 3 and bands["once"].systems["S"] == (pytest.approx(1 / 3), 2)
    assert bands["2-4"].types == 1 and bands["2-4"].systems["S"] == (pytest.approx(0.8), 0)
    assert bands["5-16"].systems["S"] == (None, 0)
    assert list(types.frequencies) == [3, 1, 1, 1]


def test_randomisation_of_macro_and_micro_f_equals_swapping_the_texts():
    """Approximate randomisation on counts = re-scoring the swapped texts round by round (R = 40)."""
    from auditor.tasks.translation.resampling import _pair_metrics

    rng = random.Random(5)
    refs = [_sentences(rng, 30)]
    hyps = {"A": _sentences(rng, 30), "B": refs[0][:15] + _sentences(rng, 15)}
    corpus, _ = _scores(refs, hyps)
    mask = np.random.default_rng(9).integers(2, size=(40, 30), dtype=bool)
    shuffled = _pair_metrics(corpus, "A", "B", mask, 1.0, 1.0)
    for r, row in enumerate(mask):
        a = [x if m else y for x, y, m in zip(hyps["A"], hyps["B"], row)]
        b = [y if m else x for x, y, m in zip(hyps["A"], hyps["B"], row)]
        _, values = _scores(refs, {"a": a, "b": b})
        for metric in ("macrof", "microf", "bleu", "chrf"):
            assert shuffled[metric][0][r] == pytest.approx(values[metric][0], rel=1e-12)
            assert shuffled[metric][1][r] == pytest.approx(values[metric][1], rel=1e-12)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), n_refs=st.integers(1, 2))
def test_bootstrap_on_counts_equals_rescoring_the_resampled_texts(seed, n_refs):
    """A resample's MacroF/MicroF/BLEU/chrF from weighted counts = the metrics of the texts drawn."""
    from auditor.tasks.translation.resampling import scores

    rng = random.Random(seed)
    refs = [_sentences(rng, 25) for _ in range(n_refs)]
    hyps = {"A": _sentences(rng, 25), "B": refs[0][:10] + _sentences(rng, 15)}
    corpus, _ = _scores(refs, hyps)
    index = np.random.default_rng(seed).choice(25, size=(6, 25))
    weights = np.stack([np.bincount(row, minlength=25) for row in index]).astype(float)
    resampled = scores(corpus, weights, 1.0, 1.0)
    for r, row in enumerate(index):
        _, values = _scores([[ref[i] for i in row] for ref in refs], {s: [h[i] for i in row] for s, h in hyps.items()})
        for metric in ("macrof", "microf", "bleu", "chrf"):
            np.testing.assert_allclose(resampled[metric][r], values[metric], rtol=1e-12)
