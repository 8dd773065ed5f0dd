"""Chunks of the tagging task (issue 22): conlleval's rules counted by hand, seqeval as the oracle
on random ill-formed sequences (default mode = conlleval on IOB/IOE, strict mode per scheme), and
the scheme-by-scheme edge cases."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.options import AuditOptions
from auditor.tasks.tagging.measures import active_types
from auditor.tasks.tagging.run import audit
from auditor.tasks.tagging.schemes import detect_scheme, parse_tags, spans

seqeval_scheme = pytest.importorskip("seqeval.scheme")
from seqeval.metrics import classification_report, f1_score  # noqa: E402
from seqeval.metrics.sequence_labeling import get_entities  # noqa: E402

SCHEMES = {name: getattr(seqeval_scheme, name) for name in ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")}
PREFIXES = {"IOB1": "BIO", "IOB2": "BIO", "IOE1": "EIO", "IOE2": "EIO", "IOBES": "BIESO", "BILOU": "BILUO"}


def flat(sentences: list[list[str]]):
    """Sentences of tags -> prefix codes, type codes, first-token mask, type names."""
    tags = [t for s in sentences for t in s]
    first = np.zeros(len(tags), bool)
    first[np.cumsum([0] + [len(s) for s in sentences[:-1]])] = True
    vocab = sorted(set(tags))
    codes = parse_tags(vocab)
    index = np.array([vocab.index(t) for t in tags])
    return codes.prefix[index], codes.type[index], first, codes.types


def chunks(sentences: list[list[str]], scheme: str, rule: str) -> list[tuple[int, str, int, int]]:
    """(sentence, type, first token, last token) of every chunk, sorted."""
    prefix, types, first, names = flat(sentences)
    found = spans(prefix, types, first, scheme, rule)
    starts = np.flatnonzero(first)
    sentence = np.searchsorted(starts, found.start, "right") - 1
    return sorted((int(s), names[t], int(a - starts[s]), int(b - starts[s]))
                  for s, t, a, b in zip(sentence, found.type, found.start, found.end))


def write(path, sentences: list[list[tuple[str, str]]]) -> str:
    path.write_text("\n\n".join("\n".join(f"{w}\t{t}" for w, t in s) for s in sentences) + "\n", encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------- worked example

WORDS = [["Ann", "Lee", "in", "Rome", "at", "Big", "Corp", "."], ["Paris"]]
GOLD = [["B-PER", "I-PER", "O", "B-LOC", "O", "B-ORG", "I-ORG", "O"], ["B-LOC"]]
PRED = [["I-PER", "I-PER", "O", "I-LOC", "I-ORG", "B-ORG", "I-ORG", "I-LOC"], ["I-LOC"]]


@pytest.fixture(scope="module")
def worked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("worked")
    gold = write(folder / "gold.txt", [list(zip(w, t)) for w, t in zip(WORDS, GOLD)])
    pred = write(folder / "pred.txt", [list(zip(w, t)) for w, t in zip(WORDS, PRED)])
    return gold, pred


def test_worked_example_counted_by_conllevals_rules(worked):
    """By hand, from conlleval's startOfChunk/endOfChunk (CoNLL-2000 script): I-PER after the sentence
    start opens PER [0,1] (O->I); I-LOC after O opens LOC [3]; I-ORG after I-LOC opens ORG [4] (type
    change); B-ORG after I-ORG opens ORG [5,6] (I->B); I-LOC after I-ORG opens LOC [7] (type change);
    sentence 2's I-LOC opens a new chunk (the boundary is an O). 6 predicted chunks, 4 gold, 4 exact
    matches (PER, LOC [3], ORG [5,6], LOC in sentence 2): P = 4/6, R = 4/4, F1 = 8/10. Per type:
    PER 1/1/1 -> F1 1; LOC m 2, p 3, g 2 -> F1 4/5; ORG m 1, p 2, g 1 -> 2/3; macro F1 = (1 + 4/5 + 2/3)/3,
    weighted by gold support (1, 2, 1): (1 + 2·4/5 + 2/3)/4."""
    gold, pred = worked
    result = audit(gold, {"pred": pred}, options=AuditOptions(bootstrap=0))
    assert result.scheme == "IOB2" and result.rule == "conlleval"
    value = {m: float(v[0]) for m, v in result.observed.items()}
    assert value["span_micro_precision"] == pytest.approx(4 / 6)
    assert value["span_micro_recall"] == pytest.approx(1.0)
    assert value["span_micro_f1"] == pytest.approx(0.8)
    assert value["span_macro_f1"] == pytest.approx((1 + 4 / 5 + 2 / 3) / 3)
    assert value["span_weighted_f1"] == pytest.approx((1 + 2 * 4 / 5 + 2 / 3) / 4)
    # tokens: 4 of 9 tags equal (conlleval's accuracy); 7 of 9 types equal once prefixes go
    assert value["accuracy"] == pytest.approx(4 / 9)
    assert value["type_accuracy"] == pytest.approx(7 / 9)
    spans_json = result.to_json()["systems"]["pred"]["spans"]
    assert spans_json["errors"] == {"correct": 4, "wrong_type": 0, "wrong_boundary": 0, "wrong_both": 0,
                                    "missed": 0, "spurious": 2}
    # ill-formed: PER [0,1], LOC [3], ORG [4], LOC [7] and sentence 2's LOC open with I- (IOB2 wants B-)
    assert spans_json["ill_formed"] == 5
    assert spans_json["ill_formed_examples"][0] == {"sentence": 1, "gold_line": 1, "tokens": [1, 2],
                                                    "tags": "I-PER I-PER"}
    assert spans_json["ill_formed_examples"][-1] == {"sentence": 2, "gold_line": 10, "tokens": [1, 1], "tags": "I-LOC"}
    assert spans_json["per_type"]["ORG"] == {"precision": 0.5, "recall": 1.0, "f1": pytest.approx(2 / 3),
                                             "support": 1, "predicted": 2, "matched": 1}


def test_worked_example_strict(worked):
    """seqeval strict IOB2: only B-ORG I-ORG [5,6] is a chunk; P = 1/1, R = 1/4, F1 = 2/5."""
    gold, pred = worked
    result = audit(gold, {"pred": pred}, options=AuditOptions(bootstrap=0), span_rule="strict")
    assert float(result.observed["span_micro_f1"][0]) == pytest.approx(0.4)
    assert float(result.observed["span_micro_precision"][0]) == 1.0
    assert f1_score(GOLD, PRED, mode="strict", scheme=SCHEMES["IOB2"]) == pytest.approx(0.4)
    assert f1_score(GOLD, PRED) == pytest.approx(0.8)  # seqeval's default mode = conlleval's count


# ----------------------------------------------------------------------------- the oracle


def _random(rng: random.Random, scheme: str) -> list[list[str]]:
    return [[("O" if (c := rng.choice(PREFIXES[scheme])) == "O" else f"{c}-{rng.choice('XYZ')}")
             for _ in range(rng.randint(1, 9))] for _ in range(rng.randint(1, 5))]


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_strict_chunks_equal_seqeval_strict(scheme):
    rng = random.Random(scheme)
    for _ in range(400):
        sentences = _random(rng, scheme)
        entities = seqeval_scheme.Entities(sentences, SCHEMES[scheme]).entities
        expected = sorted((e.sent_id, e.tag, e.start, e.end - 1) for sentence in entities for e in sentence)
        assert chunks(sentences, scheme, "strict") == expected, sentences


@pytest.mark.parametrize("scheme", ["IOB1", "IOB2", "IOE1", "IOE2"])
def test_conlleval_chunks_equal_seqeval_default(scheme):
    """seqeval's default mode follows conlleval on B/I/O and E/I/O tags (seqeval checks it against
    conlleval.pl in its own tests)."""
    rng = random.Random(scheme + "default")
    for _ in range(400):
        sentences = _random(rng, scheme)
        expected = sorted((i, t, a, b) for i, s in enumerate(sentences) for t, a, b in get_entities(s))
        assert chunks(sentences, scheme, "conlleval") == expected, sentences


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["IOB2", "IOBES", "BILOU", "IOE2"]), st.booleans())
def test_figures_equal_seqeval_classification_report(tmp_path_factory, seed, scheme, strict):
    """Micro, macro and weighted P/R/F1 and per type, as seqeval's classification_report prints them."""
    rng = random.Random(seed)
    gold_tags, pred_tags = _random(rng, scheme), []
    for sentence in gold_tags:
        pred_tags.append([t if rng.random() < 0.6 else ("O" if (c := rng.choice(PREFIXES[scheme])) == "O"
                                                         else f"{c}-{rng.choice('XYZ')}") for t in sentence])
    if not strict and scheme not in ("IOB2", "IOE2"):
        return
    folder = tmp_path_factory.mktemp("oracle")
    words = [[f"w{i}" for i in range(len(s))] for s in gold_tags]
    gold = write(folder / "g.txt", [list(zip(w, t)) for w, t in zip(words, gold_tags)])
    pred = write(folder / "p.txt", [list(zip(w, t)) for w, t in zip(words, pred_tags)])
    result = audit(gold, {"p": pred}, options=AuditOptions(bootstrap=0), scheme=scheme,
                   span_rule="strict" if strict else "conlleval")
    options = {"mode": "strict", "scheme": SCHEMES[scheme]} if strict else {}
    report = classification_report(gold_tags, pred_tags, output_dict=True, zero_division=0, **options)
    value = {m: float(v[0]) for m, v in result.observed.items()}
    if not active_types(result.parts).any():  # no chunk anywhere: seqeval's averages are NaN, ours undefined
        assert np.isnan(value["span_macro_f1"])
        return
    for average, key in (("micro", "micro avg"), ("macro", "macro avg"), ("weighted", "weighted avg")):
        for part, name in (("precision", "precision"), ("recall", "recall"), ("f1", "f1-score")):
            mine = value[f"span_{average}_{part}"]
            mine = 0.0 if np.isnan(mine) else mine  # seqeval shows 0/0 as 0 (zero_division=0)
            assert mine == pytest.approx(report[key][name]), (average, part, gold_tags, pred_tags)
    per_type = result.to_json()["systems"]["p"]["spans"]["per_type"]
    for kind, row in per_type.items():
        if kind in report:
            assert (row["f1"] or 0.0) == pytest.approx(report[kind]["f1-score"])
            assert row["support"] == report[kind]["support"]


# ----------------------------------------------------------------------------- edge cases


def test_s_after_s():
    """IOBES: S-X S-X is two chunks strictly; conlleval's script knows no S and merges them."""
    sentences = [["S-X", "S-X", "O"]]
    assert chunks(sentences, "IOBES", "strict") == [(0, "X", 0, 0), (0, "X", 1, 1)]
    assert chunks(sentences, "IOBES", "conlleval") == [(0, "X", 0, 1)]


def test_e_then_b():
    """IOBES: B-X E-X B-X E-X is two chunks strictly; in conlleval's rules E->B neither ends nor
    starts a chunk (only B->B, I->B, O->B start one), so the script sees one chunk of four tokens."""
    sentences = [["B-X", "E-X", "B-X", "E-X"]]
    assert chunks(sentences, "IOBES", "strict") == [(0, "X", 0, 1), (0, "X", 2, 3)]
    assert chunks(sentences, "IOBES", "conlleval") == [(0, "X", 0, 3)]


def test_bilou_unclosed_chunk_dropped_strictly():
    sentences = [["B-X", "I-X", "O", "U-Y", "B-Y", "L-Y"]]
    assert chunks(sentences, "BILOU", "strict") == [(0, "Y", 3, 3), (0, "Y", 4, 5)]


def test_prefix_less_tags():
    """A tag without a prefix among prefixed ones is refused; all prefix-less = plain labels (POS)."""
    with pytest.raises(InputError, match="'PER' has no prefix"):
        parse_tags(["B-LOC", "O", "PER"])
    codes = parse_tags(["NN", "VB", "DT"])
    assert codes.types == () and not codes.prefix.any()
    assert detect_scheme(codes.prefix, codes.type, np.ones(3, bool))[0] is None


@pytest.mark.parametrize("tags, scheme", [
    ([["B-X", "I-X", "O"]], "IOB2"), ([["I-X", "I-X", "B-X", "O"]], "IOB1"), ([["I-X", "E-X", "O"]], "IOE2"),
    ([["I-X", "E-X", "I-X", "O"]], "IOE1"), ([["S-X", "B-X", "E-X"]], "IOBES"), ([["U-X", "B-X", "L-X"]], "BILOU"),
])
def test_scheme_detection(tags, scheme):
    prefix, types, first, _ = flat(tags)
    assert detect_scheme(prefix, types, first)[0] == scheme


def test_tag_outside_the_scheme_is_refused_strictly(tmp_path):
    gold = write(tmp_path / "g.txt", [[("a", "B-X"), ("b", "I-X")]])
    pred = write(tmp_path / "p.txt", [[("a", "B-X"), ("b", "E-X")]])
    with pytest.raises(InputError, match=r"p.txt line 2: tag 'E-X' is not a IOB2 tag"):
        audit(gold, {"p": pred}, options=AuditOptions(bootstrap=0), span_rule="strict")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["IOB2", "IOBES", "BILOU", "IOE1"]))
def test_invariants(tmp_path_factory, seed, scheme):
    """Every figure lies in [0, 1]; the relaxed views never score below the strict one (same
    denominators, more credit); gold against itself scores 1 everywhere; on well-formed gold the two
    rules agree."""
    rng = random.Random(seed)
    gold_tags = _random(rng, scheme)
    pred_tags = [[t if rng.random() < 0.5 else ("O" if (c := rng.choice(PREFIXES[scheme])) == "O"
                                                else f"{c}-{rng.choice('XYZ')}") for t in s] for s in gold_tags]
    folder = tmp_path_factory.mktemp("invariants")
    words = [[f"w{i}" for i in range(len(s))] for s in gold_tags]
    gold = write(folder / "g.txt", [list(zip(w, t)) for w, t in zip(words, gold_tags)])
    pred = write(folder / "p.txt", [list(zip(w, t)) for w, t in zip(words, pred_tags)])
    result = audit(gold, {"p": pred, "self": gold}, options=AuditOptions(bootstrap=0), scheme=scheme,
                   span_rule="strict")
    values = {m: v for m, v in result.observed.items()}
    for metric, v in values.items():
        assert np.all(np.isnan(v) | ((v >= -1 - 1e-12) & (v <= 1 + 1e-12))), metric
    views = result.to_json()["systems"]["p"]["spans"]["views"]
    strict = views["strict"]["f1"] or 0.0
    for view in ("exact", "overlap", "partial"):
        assert (views[view]["f1"] or 0.0) >= strict - 1e-12
    if result.spans.gold.size:
        for metric in ("span_micro_f1", "span_macro_f1", "span_partial_f1", "accuracy"):
            assert values[metric][1] == pytest.approx(1.0)
    strict_gold = chunks(gold_tags, scheme, "strict")
    if chunks(gold_tags, scheme, "conlleval") == strict_gold and scheme in ("IOB2", "IOE1"):
        assert result.spans.gold_ill_formed == 0


def test_iob2_shortcut_equals_seqeval_strict():
    """IOB2's strict chunks are taken as conlleval's chunks that open with B- (counting.both_rules);
    seqeval's strict scan agrees on random ill-formed sequences."""
    from auditor.tasks.tagging.counting import both_rules

    rng = random.Random(5)
    for _ in range(300):
        sentences = _random(rng, "IOB2")
        prefix, types, first, names = flat(sentences)
        tags = tuple(sorted({t for s in sentences for t in s}))
        _, strict, ill = both_rules(prefix, types, first, "IOB2", "conlleval", "f", tags,
                                    np.zeros(prefix.size, np.int64), np.ones(prefix.size, np.int64))
        expected = spans(prefix, types, first, "IOB2", "strict")
        assert (strict.start.tolist(), strict.end.tolist(), strict.type.tolist()) == \
            (expected.start.tolist(), expected.end.tolist(), expected.type.tolist())
        assert ill.size == spans(prefix, types, first, "IOB2", "conlleval").size - expected.size
