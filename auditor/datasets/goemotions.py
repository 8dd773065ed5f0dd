"""GoEmotions (simplified split): multi-label emotions of Reddit comments, 27 emotions + neutral, gold only; the
systems here are illustrative, built by this module with scikit-learn (the ``examples`` extra).

Demszky, Movshovitz-Attias, Ko, Cowen, Nemade & Ravi (2020), "GoEmotions: A Dataset of Fine-Grained Emotions",
ACL 2020; Apache-2.0 (the texts are Reddit comments and may be offensive). Source files: ``{train,dev,test}.tsv``
(no header; ``text<TAB>comma-separated label ids<TAB>comment id``), ``emotions.txt`` (one name per line, the ids'
order), ``ekman_mapping.json`` and ``sentiment_dict.json`` (group -> emotions; neutral is in neither).

:func:`lay_out` writes, for ``auditor report --task multilabel``:

* ``gold.tsv``: ``id<TAB>labels`` (id = comment id; emotion names joined by ``,`` in ``labels.txt`` order);
* ``systems/NAME.tsv``, same layout, label sets that may be empty (blank field): ``tfidf-lr-t30`` and
  ``tfidf-lr-t50`` (word 1-2-gram TF-IDF, one logistic regression per label, every label with p >= 0.3 / 0.5),
  ``tfidf-lr-top1`` (the most probable label only), ``always-neutral``, ``prior-sampler`` (label sets drawn with
  their training frequencies, seed 0);
* ``scores/tfidf-lr.tsv``: ``id`` and one column per label, the probabilities (4 decimals) the thresholds read;
* ``labels.txt``, ``ekman.tsv`` and ``sentiment.tsv`` (``emotion<TAB>group``; neutral -> neutral).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from auditor.datasets.building import require, write_text
from auditor.errors import InputError

#: The source files.
SPLITS = {"train": "train.tsv", "test": "test.tsv"}
NAMES, EKMAN, SENTIMENT = "emotions.txt", "ekman_mapping.json", "sentiment_dict.json"
#: The label no group names.
NEUTRAL = "neutral"
#: Thresholds of the thresholded systems: name suffix -> p.
THRESHOLDS = {"t30": 0.3, "t50": 0.5}
#: Word n-grams kept (the most frequent): enough for illustrative systems, small enough to train in a minute.
FEATURES = 20000


def read(path: Path, k: int) -> tuple[list[str], np.ndarray, list[str]]:
    """Texts, the (items x k) 0/1 label matrix and the comment ids of a split file."""
    texts, ids, rows = [], [], []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.rstrip("\n").split("\t")
            try:
                labels = [int(x) for x in fields[1].split(",")]
                if len(fields) != 3 or not labels or min(labels) < 0 or max(labels) >= k:
                    raise ValueError
            except (ValueError, IndexError):
                raise InputError(f"{path} line {number}: expected `text<TAB>label ids 0..{k - 1}<TAB>comment id`"
                                 ) from None
            texts.append(fields[0])
            rows.append(labels)
            ids.append(fields[2])
    matrix = np.zeros((len(rows), k), dtype=np.int8)
    for i, labels in enumerate(rows):
        matrix[i, labels] = 1
    return texts, matrix, ids


def table(ids: list[str], matrix: np.ndarray, names: list[str]) -> str:
    """``id<TAB>labels`` then one line per item: the names of its 1s joined by ``,`` (blank when none)."""
    lines = [f"{i}\t{','.join(n for n, bit in zip(names, row) if bit)}\n" for i, row in zip(ids, matrix)]
    return "id\tlabels\n" + "".join(lines)


def groups(source: Path, file: str, names: list[str]) -> str:
    """``emotion<TAB>group`` for every label: its group in a mapping file, neutral for neutral."""
    group_of = {emotion: group for group, members in json.loads((source / file).read_text(encoding="utf-8")).items()
                for emotion in members}
    group_of.setdefault(NEUTRAL, NEUTRAL)
    missing = [n for n in names if n not in group_of]
    if missing:
        raise InputError(f"{source / file}: no group for {', '.join(missing)}")
    return "emotion\tgroup\n" + "".join(f"{n}\t{group_of[n]}\n" for n in names)


def probabilities(train_texts: list[str], train: np.ndarray, test_texts: list[str]) -> np.ndarray:
    """Per-label probabilities of one logistic regression per label over the TF-IDF of the FEATURES most frequent
    word 1-2-grams, rounded to the 4 decimals written to the scores file (the thresholds read the written values)."""
    text, linear = require("sklearn.feature_extraction.text", "scikit-learn"), require("sklearn.linear_model",
                                                                                       "scikit-learn")
    vectoriser = text.TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=FEATURES)
    x_train, x_test = vectoriser.fit_transform(train_texts), vectoriser.transform(test_texts)
    columns = []
    for label in range(train.shape[1]):
        if train[:, label].min() == train[:, label].max():  # a label always or never on: its share
            columns.append(np.full(x_test.shape[0], float(train[0, label])))
            continue
        model = linear.LogisticRegression(C=4.0, solver="liblinear").fit(x_train, train[:, label])
        columns.append(model.predict_proba(x_test)[:, 1])
    return np.round(np.column_stack(columns), 4)


def prior_sample(train: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """n label sets drawn independently with the frequencies of the training label sets."""
    patterns, counts = np.unique(train, axis=0, return_counts=True)
    draws = np.random.default_rng(seed).choice(len(patterns), size=n, p=counts / counts.sum())
    return patterns[draws]


def lay_out(source: Path, out: Path) -> list[str]:
    """Write gold, systems, scores, labels and groups into ``out``; return the report command's arguments."""
    names = (source / NAMES).read_text(encoding="utf-8").split()
    train_texts, train, _ = read(source / SPLITS["train"], len(names))
    test_texts, gold, ids = read(source / SPLITS["test"], len(names))
    scores = probabilities(train_texts, train, test_texts)
    top = np.zeros_like(gold)
    top[np.arange(len(ids)), scores.argmax(axis=1)] = 1
    neutral = np.zeros_like(gold)
    neutral[:, names.index(NEUTRAL)] = 1
    systems = {f"tfidf-lr-{suffix}": (scores >= p).astype(np.int8) for suffix, p in THRESHOLDS.items()}
    systems.update({"tfidf-lr-top1": top, "always-neutral": neutral, "prior-sampler": prior_sample(train, len(ids))})
    write_text(out / "gold.tsv", table(ids, gold, names))
    for name, matrix in systems.items():
        write_text(out / "systems" / f"{name}.tsv", table(ids, matrix, names))
    write_text(out / "scores" / "tfidf-lr.tsv", "id\t" + "\t".join(names) + "\n" + "".join(
        i + "\t" + "\t".join(f"{p:.4f}" for p in row) + "\n" for i, row in zip(ids, scores)))
    write_text(out / "labels.txt", "\n".join(names) + "\n")
    write_text(out / "ekman.tsv", groups(source, EKMAN, names))
    write_text(out / "sentiment.tsv", groups(source, SENTIMENT, names))
    return ["--task", "multilabel", "gold.tsv", "systems/*.tsv"]
