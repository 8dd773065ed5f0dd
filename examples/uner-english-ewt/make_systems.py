"""Train five illustrative taggers on the UNER English-EWT dev split; write their tags for the test split.

Run from this folder: ``python make_systems.py`` (needs ``sklearn-crfsuite``, a dependency of this
script only, not of auditor). Writes ``systems/NAME.iob2`` (``token<TAB>tag``, a blank line between
sentences, aligned one to one with ``gold.iob2``):

* ``gazetteer``: each token's most frequent dev tag, as memorised (unseen tokens O); it emits
  ill-formed IOB2 (``I-X`` after ``O``) wherever a multi-token name is only partly known;
* ``capitalised``: every run of capitalised tokens not opening the sentence is a PER chunk;
* ``crf-rich``: a CRF (sklearn-crfsuite) with word shape, affixes and a ±2 token window;
* ``crf-few``: a CRF with the lower-cased word and its capitalisation only;
* ``crf-rich-iob1``: crf-rich's output with every chunk opened by ``I-`` (IOB1-like, ill-formed in
  IOB2): conlleval's rules count the same chunks as for crf-rich; seqeval's strict mode drops them.
"""
from __future__ import annotations

import collections
import pathlib

import sklearn_crfsuite


def read(path: str) -> list[list[tuple[str, str]]]:
    sentences, current = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if current:
                sentences.append(current)
            current = []
        elif not line.startswith("#"):
            fields = line.split("\t")
            current.append((fields[1], fields[2]))
    if current:
        sentences.append(current)
    return sentences


def shape(word: str) -> str:
    return "".join("X" if c.isupper() else "x" if c.islower() else "d" if c.isdigit() else c for c in word)[:6]


def rich(sentence: list[str], i: int) -> dict[str, object]:
    word = sentence[i]
    features = {"bias": 1.0, "lower": word.lower(), "shape": shape(word), "suffix3": word[-3:].lower(),
                "prefix3": word[:3].lower(), "title": word.istitle(), "upper": word.isupper(),
                "digit": word.isdigit(), "first": i == 0}
    for offset in (-2, -1, 1, 2):
        j = i + offset
        if 0 <= j < len(sentence):
            features[f"{offset}:lower"] = sentence[j].lower()
            features[f"{offset}:title"] = sentence[j].istitle()
        else:
            features[f"{offset}:pad"] = True
    return features


def few(sentence: list[str], i: int) -> dict[str, object]:
    return {"bias": 1.0, "lower": sentence[i].lower(), "title": sentence[i].istitle()}


def crf(train: list[list[tuple[str, str]]], test: list[list[str]], featurise) -> list[list[str]]:
    model = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100)
    model.fit([[featurise([w for w, _ in s], i) for i in range(len(s))] for s in train],
              [[t for _, t in s] for s in train])
    return model.predict([[featurise(s, i) for i in range(len(s))] for s in test])


def gazetteer(train: list[list[tuple[str, str]]], test: list[list[str]]) -> list[list[str]]:
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for sentence in train:
        for word, tag in sentence:
            counts[word][tag] += 1
    return [[counts[w].most_common(1)[0][0] if w in counts else "O" for w in s] for s in test]


def capitalised(test: list[list[str]]) -> list[list[str]]:
    out = []
    for sentence in test:
        tags = []
        for i, word in enumerate(sentence):
            if i > 0 and word[:1].isupper() and word.isalpha():
                tags.append("I-PER" if tags and tags[-1] != "O" else "B-PER")
            else:
                tags.append("O")
        out.append(tags)
    return out


def open_with_i(tags: list[list[str]]) -> list[list[str]]:
    return [[("I-" + t[2:]) if t.startswith("B-") else t for t in s] for s in tags]


def main() -> None:
    train, gold = read("dev.iob2"), read("gold.iob2")
    words = [[w for w, _ in s] for s in gold]
    rich_tags = crf(train, words, rich)
    systems = {"gazetteer": gazetteer(train, words), "capitalised": capitalised(words), "crf-rich": rich_tags,
               "crf-few": crf(train, words, few), "crf-rich-iob1": open_with_i(rich_tags)}
    folder = pathlib.Path("systems")
    folder.mkdir(exist_ok=True)
    for name, tags in systems.items():
        text = "\n\n".join("\n".join(f"{w}\t{t}" for w, t in zip(ws, ts)) for ws, ts in zip(words, tags))
        (folder / f"{name}.iob2").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
