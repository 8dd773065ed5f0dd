"""GermEval-2018, fine-grained task (offensive language in German tweets): gold labels and eight illustrative
classifiers trained on the training file.

Wiegand, Siegel & Ruppenhofer (2018), "Overview of the GermEval 2018 Shared Task on the Identification of
Offensive Language", Proceedings of GermEval 2018; CC-BY-4.0. Source files ``germeval2018.{training,test}.txt``:
``text<TAB>coarse label<TAB>fine label``, no header. Ids are the 1-based line numbers of the test file.

:func:`lay_out` writes ``gold.tsv`` and ``systems/*.tsv`` (``id<TAB>label``, header), ``slices.tsv`` (how a tweet
addresses other users: ``reply`` starts with ``@``, ``mention`` names an ``@user`` elsewhere, ``no-mention`` none)
and ``scores/word-logreg.tsv`` (word-logreg's per-class probabilities, six decimals; its argmax is
``systems/word-logreg.tsv``). The systems need scikit-learn (the ``examples`` extra).
"""
from __future__ import annotations

from pathlib import Path

from auditor.datasets.building import require, write_text
from auditor.errors import InputError

#: The source files.
TRAIN, TEST = "germeval2018.training.txt", "germeval2018.test.txt"
#: The system whose per-class probabilities are written to ``scores/``.
SCORED = "word-logreg"


def read(path: Path) -> tuple[list[str], list[str]]:
    """Texts and fine-grained labels of a GermEval-2018 file (blank lines skipped)."""
    texts, labels = [], []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise InputError(f"{path} line {number}: expected `text<TAB>coarse<TAB>fine`, "
                                 f"found {len(fields)} fields")
            texts.append(fields[0])
            labels.append(fields[2])
    return texts, labels


def table(header: str, values: list[str]) -> str:
    """``id<TAB>header`` then one ``i<TAB>value`` line per value, ids from 1."""
    return f"id\t{header}\n" + "".join(f"{i}\t{value}\n" for i, value in enumerate(values, 1))


def address(text: str) -> str:
    """How a tweet addresses other users: ``reply``, ``mention`` or ``no-mention``."""
    return "reply" if text.startswith("@") else "mention" if "@" in text else "no-mention"


def classifiers() -> dict[str, object]:
    """The eight illustrative systems (scikit-learn pipelines), in the order they are written."""
    dummy, text, linear, bayes, pipeline, svm = (require(f"sklearn.{m}", "scikit-learn") for m in (
        "dummy", "feature_extraction.text", "linear_model", "naive_bayes", "pipeline", "svm"))

    def words(**options):
        return text.TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, **options)

    def chars():
        return text.TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True)

    make = pipeline.make_pipeline
    return {
        "word-logreg": make(words(), linear.LogisticRegression(max_iter=2000, C=4)),
        "word-logreg-balanced": make(words(), linear.LogisticRegression(max_iter=2000, C=4, class_weight="balanced")),
        "char-svm": make(chars(), svm.LinearSVC(C=0.5)),
        "char-svm-balanced": make(chars(), svm.LinearSVC(C=0.5, class_weight="balanced")),
        "word-nb": make(text.TfidfVectorizer(min_df=1), bayes.MultinomialNB(alpha=0.1)),
        "word-complement-nb": make(text.TfidfVectorizer(min_df=1), bayes.ComplementNB(alpha=0.3)),
        "majority": dummy.DummyClassifier(strategy="most_frequent"),
        "prior-sampler": dummy.DummyClassifier(strategy="stratified", random_state=0),
    }


def probabilities(model, texts: list[str]) -> str:
    """A fitted model's per-class probabilities as the scores table: ``id`` and one column per class."""
    header = "\t".join(str(label) for label in model.classes_)
    rows = ["\t".join(f"{p:.6f}" for p in row) for row in model.predict_proba(texts)]
    return table(header, rows)


def scores(source: Path, name: str = SCORED) -> str:
    """A system's per-class probabilities on the test file (trained on the training file); ``word-nb`` trains in
    about a second, ``word-logreg`` in 10-40 s."""
    (train_texts, train_labels), (test_texts, _) = read(source / TRAIN), read(source / TEST)
    model = classifiers()[name].fit(train_texts, train_labels)
    return probabilities(model, test_texts)


def slices(source: Path) -> str:
    """The ``slices.tsv`` table: each test tweet's address group."""
    return table("group", [address(text) for text in read(source / TEST)[0]])


def lay_out(source: Path, out: Path) -> list[str]:
    """Write gold, systems, slices and word-logreg's scores into ``out``; return the report command's arguments."""
    (train_texts, train_labels), (test_texts, test_labels) = read(source / TRAIN), read(source / TEST)
    write_text(out / "gold.tsv", table("label", test_labels))
    write_text(out / "slices.tsv", table("group", [address(text) for text in test_texts]))
    for name, model in classifiers().items():
        model.fit(train_texts, train_labels)
        write_text(out / "systems" / f"{name}.tsv", table("label", list(model.predict(test_texts))))
        if name == SCORED:
            write_text(out / "scores" / f"{name}.tsv", probabilities(model, test_texts))
    return ["gold.tsv", "systems/*.tsv"]
