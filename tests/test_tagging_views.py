"""The SemEval-2013 views of the tagging task (issue 36) against nervaluate 1.2.1 as the oracle: each gold
chunk counted once (POSSIBLE = gold chunks), strict = the micro span figures, and the strict, exact,
ent_type (our overlap) and partial counts equal nervaluate's, on split, merged and retyped chunks, on
random chunkings and on UNER with the systems made from it."""
from __future__ import annotations

import random

import numpy as np
import pytest

from auditor.options import AuditOptions
from auditor.tasks.tagging.counting import ERRORS, classify
from auditor.tasks.tagging.measures import view_counts
from auditor.tasks.tagging.result import TaggingAudit
from auditor.tasks.tagging.run import audit
from auditor.tasks.tagging.schemes import Spans

pytest.importorskip("nervaluate")
from nervaluate import Evaluator  # noqa: E402

#: Our view -> nervaluate's strategy.
STRATEGY = {"strict": "strict", "exact": "exact", "overlap": "ent_type", "partial": "partial"}
TYPES = ("PER", "LOC", "ORG")


def _dicts(doc: list[list[tuple[str, int, int]]]) -> list[list[dict]]:
    return [[{"label": t, "start": a, "end": b} for t, a, b in sentence] for sentence in doc]


def oracle(gold: list[list[tuple[str, int, int]]], pred: list[list[tuple[str, int, int]]]) -> dict[str, dict]:
    """nervaluate's overall counts per strategy for sentences of (type, start, end) chunks."""
    results = Evaluator(_dicts(gold), _dicts(pred), tags=list(TYPES), loader="dict").evaluate()["overall"]
    return {ours: {key: getattr(results[theirs], key) for key in ("correct", "incorrect", "partial", "missed",
                                                                   "spurious", "possible", "actual")}
            for ours, theirs in STRATEGY.items()}


def ours(gold: list[list[tuple[str, int, int]]], pred: list[list[tuple[str, int, int]]]) -> dict[str, dict]:
    """Our counts per view: sentences laid end to end (offset 100 tokens apart), one classify call."""
    def flat(doc):
        rows = [(100 * i + a, 100 * i + b, TYPES.index(t)) for i, sentence in enumerate(doc) for t, a, b in sentence]
        rows.sort()
        return Spans(*(np.array([r[j] for r in rows], np.int64) for j in range(3)))

    g, p = flat(gold), flat(pred)
    m = classify(g, p)
    errors = np.bincount(m.error, minlength=len(ERRORS)).astype(float)
    errors[ERRORS.index("missed")] = m.missed.sum()
    type_view = np.array([m.type_incorrect.sum(), m.type_missed.sum()], float)
    views = TaggingAudit._views(errors, type_view)
    return {view: {key: counts[key] for key in ("correct", "incorrect", "partial", "missed", "spurious", "possible",
                                                "actual")} for view, counts in views.items()}


CASES = {
    # one gold PER [0,3] split into two predicted PER chunks: the first takes it (wrong boundary), the second is
    # spurious; the gold chunk counts once (POSSIBLE 1, not 2)
    "split": ([[("PER", 0, 3)]], [[("PER", 0, 1), ("PER", 2, 3)]]),
    # two gold chunks merged into one predicted chunk: it takes the first, the second is missed
    "merged": ([[("PER", 0, 1), ("PER", 2, 3)]], [[("PER", 0, 3)]]),
    # same boundaries, other type
    "retyped": ([[("PER", 0, 1), ("LOC", 3, 3)]], [[("ORG", 0, 1), ("LOC", 3, 3)]]),
    # merged over two types: the first rule takes the first (LOC: wrong both), ent_type takes the PER one
    "merged across types": ([[("LOC", 0, 1), ("PER", 2, 3)]], [[("PER", 0, 3)]]),
    # a staircase: each predicted chunk straddles two gold chunks, so each finds its first one taken
    "staircase": ([[("PER", 0, 1), ("PER", 2, 3), ("LOC", 4, 5), ("PER", 6, 7)]],
                  [[("PER", 0, 0), ("PER", 1, 2), ("LOC", 3, 4), ("PER", 5, 6)]]),
    # several predicted chunks inside one gold chunk, then one reaching the next gold chunk
    "inside": ([[("PER", 0, 4), ("ORG", 5, 6)]], [[("ORG", 0, 0), ("PER", 2, 2), ("ORG", 4, 5)]]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_views_equal_nervaluate_on_constructed_cases(case):
    gold, pred = CASES[case]
    assert ours(gold, pred) == oracle(gold, pred)


def test_split_chunk_counts_the_gold_chunk_once():
    """By hand (MUC / SemEval-2013): one gold chunk, two predicted halves: COR 0, INC 1, SPU 1, MIS 0 under
    strict; POSSIBLE = 1 gold chunk, ACTUAL = 2; partial COR 0 + ½ PAR 1: P = 0.25, R = 0.5."""
    counts = ours(*CASES["split"])
    assert counts["strict"] == {"correct": 0, "incorrect": 1, "partial": 0, "missed": 0, "spurious": 1,
                                "possible": 1, "actual": 2}
    assert counts["partial"]["partial"] == 1 and counts["overlap"]["correct"] == 1


def _random_chunks(rng: random.Random, length: int) -> list[tuple[str, int, int]]:
    chunks, position = [], rng.randint(0, 2)
    while position < length:
        end = min(length - 1, position + rng.randint(0, 3))
        chunks.append((rng.choice(TYPES), position, end))
        position = end + 1 + rng.randint(0, 2)
    return chunks


def test_views_equal_nervaluate_on_random_chunkings():
    rng = random.Random(36)
    for _ in range(300):
        n = rng.randint(1, 4)
        lengths = [rng.randint(1, 14) for _ in range(n)]
        gold = [_random_chunks(rng, k) for k in lengths]
        pred = [_random_chunks(rng, k) for k in lengths]
        assert ours(gold, pred) == oracle(gold, pred), (gold, pred)


def _write(path, sentences: list[list[str]]) -> str:
    path.write_text("\n\n".join("\n".join(f"w{i}\t{t}" for i, t in enumerate(s)) for s in sentences) + "\n",
                    encoding="utf-8")
    return str(path)


def _tags(chunks: list[tuple[str, int, int]], length: int) -> list[str]:
    tags = ["O"] * length
    for t, a, b in chunks:
        tags[a:b + 1] = [f"B-{t}"] + [f"I-{t}"] * (b - a)
    return tags


def test_audit_views_equal_nervaluate_and_strict_equals_micro(tmp_path):
    """Through the whole audit (files, chunks, per-sentence statistics): every view's counts are nervaluate's,
    and the strict view's precision, recall and F1 are the micro span figures."""
    rng = random.Random(7)
    lengths = [rng.randint(3, 12) for _ in range(40)]
    gold = [_random_chunks(rng, k) for k in lengths]
    systems = {f"s{i}": [_random_chunks(rng, k) for k in lengths] for i in range(2)}
    files = {name: _write(tmp_path / f"{name}.txt", [_tags(c, k) for c, k in zip(doc, lengths)])
             for name, doc in {"gold": gold, **systems}.items()}
    result = audit(files["gold"], {name: files[name] for name in systems}, options=AuditOptions(bootstrap=0))
    document = result.to_json()
    for name, pred in systems.items():
        views = document["systems"][name]["spans"]["views"]
        expected = oracle(gold, pred)
        for view in STRATEGY:
            assert {key: views[view][key] for key in expected[view]} == expected[view], (name, view)
        metrics = document["systems"][name]["metrics"]
        for part in ("precision", "recall", "f1"):
            assert views["strict"][part] == pytest.approx(metrics[f"span_micro_{part}"]["value"])
        for view, metric in (("exact", "span_exact_f1"), ("overlap", "span_overlap_f1"),
                             ("partial", "span_partial_f1")):
            assert metrics[metric]["value"] == pytest.approx(views[view]["f1"])


def test_documented_scenarios_with_view_counts():
    """nervaluate's README scenarios (I–VI) through view_counts: ent_type COR 3, exact 3, strict 2, partial
    3 + ½·2 (P = R = 0.6667)."""
    gold = Spans(np.array([0, 10, 20, 30, 40, 50]), np.array([0, 10, 20, 30, 40, 50]), np.array([0, 1, 1, 1, 2, 1]))
    pred = Spans(np.array([5, 9, 20, 30, 39, 50]), np.array([5, 10, 20, 30, 40, 50]), np.array([0, 1, 0, 1, 1, 1]))
    m = classify(gold, pred)
    errors = np.bincount(m.error, minlength=6).astype(float)
    errors[4] = m.missed.sum()
    type_view = np.array([[m.type_incorrect.sum(), m.type_missed.sum()]], float)
    views = {name: (float(c[0]), float(a[0]), float(p[0]))
             for name, (c, a, p) in view_counts(errors[None], type_view).items()}
    assert views["overlap"] == (3, 6, 6) and views["exact"] == (3, 6, 6) and views["strict"] == (2, 6, 6)
    assert views["partial"] == (4, 6, 6)


@pytest.fixture(scope="module")
def uner(uner_dir):
    """UNER English-EWT's test split, audited with the gazetteer and capitalised taggers (many split and
    merged chunks)."""
    systems = {name: str(uner_dir / "systems" / f"{name}.iob2") for name in ("gazetteer", "capitalised")}
    return audit(str(uner_dir / "gold.iob2"), systems, options=AuditOptions(bootstrap=0))


def test_uner_views_equal_nervaluate(uner):
    """On UNER (gazetteer, capitalised: many split and merged chunks) nervaluate, given the same chunks
    sentence by sentence, counts what the audit reports; the strict view is the micro figures (gazetteer's
    strict recall was 25.6 beside a micro recall of 26.7 while a gold chunk counted once per overlap)."""
    starts = np.flatnonzero(uner.aligned.first)

    def sentences(found: Spans) -> list[list[tuple[str, int, int]]]:
        out = [[] for _ in starts]
        sentence = np.searchsorted(starts, found.start, side="right") - 1
        for s, a, b, t in zip(sentence.tolist(), found.start.tolist(), found.end.tolist(), found.type.tolist()):
            out[s].append((uner.spans.types[t], a - int(starts[s]), b - int(starts[s])))
        return out

    gold = sentences(uner.spans.gold)
    document = uner.to_json()
    for s, name in enumerate(uner.systems):
        pred = sentences(uner.spans.per_system[s].spans)
        results = Evaluator(_dicts(gold), _dicts(pred), tags=list(uner.spans.types), loader="dict").evaluate()
        views = document["systems"][name]["spans"]["views"]
        for view, strategy in STRATEGY.items():
            theirs = results["overall"][strategy]
            for key in ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual"):
                assert views[view][key] == getattr(theirs, key), (name, view, key)
            assert views[view]["f1"] == pytest.approx(theirs.f1)
        for part in ("precision", "recall", "f1"):
            metric = document["systems"][name]["metrics"][f"span_micro_{part}"]
            assert views["strict"][part] == pytest.approx(metric["value"])


def test_uner_capitalised_flags_only_the_part_that_is_0_0(uner):
    """The capitalisation rule never predicts LOC or ORG chunks (its predicted counts, checked here): their
    precision is 0/0, so macro precision carries the convention, naming them; recall and F1 of a type in gold or
    predictions are defined, so macro recall and F1 carry none."""
    s = uner.systems.index("capitalised")
    predicted = dict(zip(uner.spans.types, uner.parts["predicted"][s].tolist()))
    never = sorted(t for t, n in predicted.items() if n == 0)
    metrics = uner.to_json()["systems"]["capitalised"]["metrics"]
    assert never and metrics["span_macro_precision"]["convention"].startswith(f"precision of {', '.join(never)} is 0/0")
    assert metrics["span_macro_recall"]["convention"] is None and metrics["span_macro_f1"]["convention"] is None
