"""CEFR-SP, Wiki-Auto portion: English sentences rated on the six CEFR levels (A1 < ... < C2) by two experts; gold
only, the systems here are illustrative, built by this module with scikit-learn (the ``examples`` extra).

Arase, Uchida & Kajiwara (2022), "CEFR-Based Sentence Difficulty Annotation and Assessment", EMNLP 2022; the
Wiki-Auto portion is CC BY-SA 3.0. Source files ``CEFR-SP_Wikiauto_{train,dev,test}.txt``: no header,
``sentence<TAB>level by annotator A<TAB>level by annotator B``, levels 1..6.

:func:`lay_out` writes, for ``auditor report --task ordinal`` (gold = annotator A):

* ``gold.tsv`` and ``annotator-b.tsv``: ``id<TAB>level`` (id = ``test-<line number>``, level A1..C2);
* ``systems/NAME.tsv``, same layout, trained on the training file: ``ridge-rounded`` (TF-IDF of the 5,000
  most frequent character 2-4-grams and the sentence's length, ridge regression on 1..6, rounded and clipped),
  ``lr-nominal`` (one-vs-rest logistic regression on the same features, the order ignored), ``length-only`` (token
  count cut at the training quantiles that match the training level shares) and ``majority`` (the training set's
  most frequent level);
* ``order.txt``: ``A1,A2,B1,B2,C1,C2``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from auditor.datasets.building import require, write_text
from auditor.errors import InputError

#: The source files.
TRAIN, TEST = "CEFR-SP_Wikiauto_train.txt", "CEFR-SP_Wikiauto_test.txt"
#: Level 1..6 -> its CEFR name.
LEVELS = ("A1", "A2", "B1", "B2", "C1", "C2")
#: Character n-grams kept (the most frequent): enough for illustrative systems, small enough to train in seconds.
FEATURES = 5000


def read(path: Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Sentences and the two annotators' levels (1..6) of a CEFR-SP file."""
    sentences, a, b = [], [], []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3 or not {fields[1], fields[2]} <= {"1", "2", "3", "4", "5", "6"}:
                raise InputError(f"{path} line {number}: expected `sentence<TAB>level 1-6<TAB>level 1-6`")
            sentences.append(fields[0])
            a.append(int(fields[1]))
            b.append(int(fields[2]))
    return sentences, np.array(a), np.array(b)


def table(levels: np.ndarray) -> str:
    """``id<TAB>level`` then ``test-<i><TAB><CEFR name>`` per item."""
    return "id\tlevel\n" + "".join(f"test-{i}\t{LEVELS[level - 1]}\n" for i, level in enumerate(levels, 1))


def lengths(sentences: list[str]) -> np.ndarray:
    """Whitespace token counts."""
    return np.array([len(s.split()) for s in sentences])


def features(train: list[str], test: list[str]):
    """The FEATURES most frequent character 2-4-grams (TF-IDF) beside log(1 + token count), for the training and
    the test sentences."""
    text, sparse = require("sklearn.feature_extraction.text", "scikit-learn"), require("scipy.sparse", "scipy")
    vectoriser = text.TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=2, sublinear_tf=True,
                                      max_features=FEATURES)
    x_train, x_test = vectoriser.fit_transform(train), vectoriser.transform(test)
    return (sparse.hstack([x_train, np.log1p(lengths(train))[:, None]]).tocsr(),
            sparse.hstack([x_test, np.log1p(lengths(test))[:, None]]).tocsr())


def by_length(train: list[str], levels: np.ndarray, test: list[str]) -> np.ndarray:
    """Levels from token counts cut at the training quantiles of the cumulative level shares."""
    shares = np.cumsum(np.bincount(levels, minlength=7)[1:]) / len(levels)
    cuts = np.quantile(lengths(train), shares[:-1])
    return 1 + np.searchsorted(cuts, lengths(test), side="right")


def lay_out(source: Path, out: Path) -> list[str]:
    """Write gold, annotator B, systems and the order into ``out``; return the report command's arguments."""
    linear, multiclass = require("sklearn.linear_model", "scikit-learn"), require("sklearn.multiclass", "scikit-learn")
    train, train_levels, _ = read(source / TRAIN)
    test, gold, second = read(source / TEST)
    x_train, x_test = features(train, test)
    ridge = linear.Ridge(alpha=1.0).fit(x_train, train_levels).predict(x_test)
    nominal = multiclass.OneVsRestClassifier(linear.LogisticRegression(C=4.0, solver="liblinear")).fit(
        x_train, train_levels).predict(x_test)
    systems = {"ridge-rounded": np.clip(np.rint(ridge), 1, 6).astype(int), "lr-nominal": nominal,
               "length-only": by_length(train, train_levels, test),
               "majority": np.full(len(test), np.bincount(train_levels).argmax())}
    write_text(out / "gold.tsv", table(gold))
    write_text(out / "annotator-b.tsv", table(second))
    for name, levels in systems.items():
        write_text(out / "systems" / f"{name}.tsv", table(levels))
    write_text(out / "order.txt", ",".join(LEVELS) + "\n")
    return ["--task", "ordinal", "--order-file", "order.txt", "gold.tsv", "systems/*.tsv"]
