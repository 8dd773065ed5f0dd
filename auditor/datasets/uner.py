"""UNER English-EWT (Universal NER v1): gold test tags and five illustrative taggers trained on the dev split.

Mayhew et al. (2024), "Universal NER: A Gold-Standard Multilingual Named Entity Recognition Benchmark", NAACL 2024;
CC BY-SA 4.0. The source files (``en_ewt-ud-{dev,test}.iob2``) are CoNLL-U-like: ``# ...`` comment lines, then
``index<TAB>token<TAB>tag<TAB>-<TAB>annotator`` per token, a blank line between sentences, IOB2 over PER/ORG/LOC.

:func:`lay_out` writes ``gold.iob2`` (the test file unchanged) and ``systems/NAME.iob2`` (``token<TAB>tag``, a
blank line between sentences, aligned one to one with the gold file) for ``auditor report --task tagging``:

* ``gazetteer``: each token's most frequent dev tag, as memorised (unseen tokens O); it emits ill-formed IOB2
  (``I-X`` after ``O``) wherever a multi-token name is only partly known;
* ``capitalised``: every run of capitalised tokens not opening the sentence is a PER chunk;
* ``crf-rich``: a CRF (sklearn-crfsuite, the ``examples`` extra) with word shape, affixes and a ±2 token window;
* ``crf-few``: a CRF with the lower-cased word and its capitalisation only;
* ``crf-rich-iob1``: crf-rich's output with every chunk opened by ``I-`` (IOB1-like, ill-formed in IOB2):
  conlleval's rules count the same chunks as for crf-rich; seqeval's strict mode drops them.
"""
from __future__ import annotations

import collections
import shutil
from pathlib import Path
from typing import Callable

from auditor.datasets.building import require, write_text
from auditor.errors import InputError

#: The source files: the test split is the gold, the dev split trains the taggers.
TEST, DEV = "en_ewt-ud-test.iob2", "en_ewt-ud-dev.iob2"

Sentence = list[tuple[str, str]]
Features = Callable[[list[str], int], dict[str, object]]


def read(path: Path) -> list[Sentence]:
    """The (token, tag) pairs of each sentence of a UNER ``.iob2`` file (comment lines skipped)."""
    sentences: list[Sentence] = []
    current: Sentence = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line:
                if current:
                    sentences.append(current)
                current = []
            elif not line.startswith("#"):
                fields = line.split("\t")
                if len(fields) < 3:
                    raise InputError(f"{path} line {number}: expected `index<TAB>token<TAB>tag...`, found {line!r}")
                current.append((fields[1], fields[2]))
    if current:
        sentences.append(current)
    return sentences


def shape(word: str) -> str:
    """The first six characters of a word's shape: X upper, x lower, d digit, others as they are."""
    return "".join("X" if c.isupper() else "x" if c.islower() else "d" if c.isdigit() else c for c in word)[:6]


def rich(sentence: list[str], i: int) -> dict[str, object]:
    """crf-rich's features of token i: word, shape, affixes, case, and a ±2 token window."""
    word = sentence[i]
    features: dict[str, object] = {"bias": 1.0, "lower": word.lower(), "shape": shape(word),
                                   "suffix3": word[-3:].lower(), "prefix3": word[:3].lower(), "title": word.istitle(),
                                   "upper": word.isupper(), "digit": word.isdigit(), "first": i == 0}
    for offset in (-2, -1, 1, 2):
        j = i + offset
        if 0 <= j < len(sentence):
            features[f"{offset}:lower"] = sentence[j].lower()
            features[f"{offset}:title"] = sentence[j].istitle()
        else:
            features[f"{offset}:pad"] = True
    return features


def few(sentence: list[str], i: int) -> dict[str, object]:
    """crf-few's features of token i: the lower-cased word and whether it is title-cased."""
    return {"bias": 1.0, "lower": sentence[i].lower(), "title": sentence[i].istitle()}


def crf(train: list[Sentence], test: list[list[str]], featurise: Features) -> list[list[str]]:
    """Tags of a linear-chain CRF (L-BFGS, c1 = c2 = 0.1, 100 iterations) trained on ``train``."""
    sklearn_crfsuite = require("sklearn_crfsuite", "sklearn-crfsuite")
    model = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100)
    model.fit([[featurise([w for w, _ in s], i) for i in range(len(s))] for s in train],
              [[t for _, t in s] for s in train])
    return model.predict([[featurise(s, i) for i in range(len(s))] for s in test])


def gazetteer(train: list[Sentence], test: list[list[str]]) -> list[list[str]]:
    """Each token's most frequent training tag (first seen wins a tie); O for unseen tokens."""
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for sentence in train:
        for word, tag in sentence:
            counts[word][tag] += 1
    return [[counts[w].most_common(1)[0][0] if w in counts else "O" for w in s] for s in test]


def capitalised(test: list[list[str]]) -> list[list[str]]:
    """A PER chunk over every run of alphabetic capitalised tokens that does not open the sentence."""
    out = []
    for sentence in test:
        tags: list[str] = []
        for i, word in enumerate(sentence):
            if i > 0 and word[:1].isupper() and word.isalpha():
                tags.append("I-PER" if tags and tags[-1] != "O" else "B-PER")
            else:
                tags.append("O")
        out.append(tags)
    return out


def open_with_i(tags: list[list[str]]) -> list[list[str]]:
    """The same chunks with every ``B-`` written ``I-`` (IOB1-like)."""
    return [[("I-" + t[2:]) if t.startswith("B-") else t for t in s] for s in tags]


def systems(source: Path) -> dict[str, str]:
    """System name -> the text of its ``.iob2`` file, for the UNER files in ``source``."""
    train, gold = read(source / DEV), read(source / TEST)
    words = [[w for w, _ in s] for s in gold]
    rich_tags = crf(train, words, rich)
    tags = {"gazetteer": gazetteer(train, words), "capitalised": capitalised(words), "crf-rich": rich_tags,
            "crf-few": crf(train, words, few), "crf-rich-iob1": open_with_i(rich_tags)}
    return {name: "\n\n".join("\n".join(f"{w}\t{t}" for w, t in zip(ws, ts)) for ws, ts in zip(words, sequence))
            + "\n" for name, sequence in tags.items()}


def lay_out(source: Path, out: Path) -> list[str]:
    """Write ``gold.iob2`` and ``systems/*.iob2`` into ``out``; return the report command's arguments."""
    shutil.copyfile(source / TEST, out / "gold.iob2")
    for name, text in systems(source).items():
        write_text(out / "systems" / f"{name}.iob2", text)
    return ["--task", "tagging", "gold.iob2", "systems/*.iob2"]
