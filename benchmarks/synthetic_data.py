"""The synthetic data every benchmark uses: gold labels and systems as arrays, or as files.

N items over K classes with skewed prevalence (Dirichlet(0.8)); system s is right with its
own accuracy in [0.5, 0.9] (evenly spaced) and otherwise predicts from its own biased class
distribution (Dirichlet(0.5)), so the systems correlate with gold and with each other
through the gold labels. The same (items, systems, classes, seed) give the same data in
every script. Imported by the scripts in this directory (``python benchmarks/bench_x.py``
puts it on ``sys.path``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np


def synthetic(items: int, systems: int, classes: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Gold codes (items,) and ``{"sys00": codes, ...}``, codes in 0..classes−1."""
    rng = np.random.default_rng(seed)
    prevalence = rng.dirichlet(np.full(classes, 0.8))
    gold = rng.choice(classes, size=items, p=prevalence)
    predictions = {}
    for s, accuracy in enumerate(np.linspace(0.5, 0.9, systems)):
        bias = rng.dirichlet(np.full(classes, 0.5))  # where this system's errors go
        correct = rng.random(items) < accuracy
        predictions[f"sys{s:02d}"] = np.where(correct, gold, rng.choice(classes, size=items, p=bias))
    return gold, predictions


def correlated(items: int, systems: int, classes: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Systems that share their errors (the speed issue's correlated case): gold as in
    :func:`synthetic`; each item has a difficulty u ~ U(0, 1) and a confusable label w ≠ y drawn
    from the prevalence; system s is right when u < 0.3 + 0.05 s, otherwise it answers w, or
    with probability 0.05 a label drawn from the prevalence. Few distinct patterns."""
    rng = np.random.default_rng(seed)
    prevalence = rng.dirichlet(np.full(classes, 0.8))
    gold = rng.choice(classes, size=items, p=prevalence)
    confusable = rng.choice(classes, size=items, p=prevalence)
    clash = confusable == gold
    while clash.any():  # w ≠ y: redraw from the prevalence where they coincide
        confusable[clash] = rng.choice(classes, size=int(clash.sum()), p=prevalence)
        clash = confusable == gold
    difficulty = rng.random(items)
    predictions = {}
    for s in range(systems):
        noise = rng.random(items) < 0.05
        wrong = np.where(noise, rng.choice(classes, size=items, p=prevalence), confusable)
        predictions[f"sys{s:02d}"] = np.where(difficulty < 0.3 + 0.05 * s, gold, wrong)
    return gold, predictions


def leaderboard(items: int, systems: int, classes: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A shared task's submissions (issue 40's shape: 100 systems, 10,000 items, 10 classes): gold as in
    :func:`synthetic`; each item has a confusable label w ≠ y (uniform over the others); system s is right
    on each item with probability 0.40 + 0.40 s / S, and when wrong answers w with probability ½ (half
    the errors shared), else a label ≠ y from its own bias (Dirichlet(0.5))."""
    rng = np.random.default_rng(seed)
    prevalence = rng.dirichlet(np.full(classes, 0.8))
    gold = rng.choice(classes, size=items, p=prevalence)
    confusable = (gold + 1 + rng.choice(classes - 1, size=items)) % classes
    predictions = {}
    for s in range(systems):
        bias = rng.dirichlet(np.full(classes, 0.5))
        own = rng.choice(classes, size=items, p=bias)
        own = np.where(own == gold, (gold + 1 + rng.choice(classes - 1, size=items)) % classes, own)
        wrong = np.where(rng.random(items) < 0.5, confusable, own)
        predictions[f"sys{s:02d}"] = np.where(
            rng.random(items) < 0.40 + 0.40 * s / systems, gold, wrong)
    return gold, predictions


def write_files(directory: Path, items: int, systems: int, classes: int, seed: int = 0, make=synthetic) -> list[Path]:
    """``gold.tsv`` and ``sysNN.tsv`` in ``directory`` with header ``id<TAB>label``, ids 1..N,
    labels ``label-00`` ... (written by pyarrow: about a second per million lines); gold first.
    ``make`` builds the data (:func:`synthetic`, :func:`correlated` or :func:`leaderboard`)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    gold, predictions = make(items, systems, classes, seed)
    names = pa.array([f"label-{c:02d}" for c in range(classes)])
    ids = pa.array(np.arange(1, items + 1))
    paths = []
    for name, codes in [("gold", gold), *predictions.items()]:
        labels = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), names).cast(pa.string())
        path = Path(directory) / f"{name}.tsv"
        with pa.OSFile(str(path), "wb") as stream:
            stream.write(b"id\tlabel\n")
            pacsv.write_csv(pa.table({"id": ids, "label": labels}), stream,
                            pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none"))
        paths.append(path)
    return paths
