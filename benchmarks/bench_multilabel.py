"""Benchmark: the multi-label audit (issue 33) against a bare pyarrow read of the same files and scikit-learn.

Writes gold and S system files of N items over L labels in the ``id<TAB>labels`` layout (labels of an item joined
by ``,``; gold sets of 1-3 labels drawn with skewed label frequencies, as GoEmotions has; each system = gold with
labels dropped and added at random, some items left empty), then times, in this one run:

* the floor: ``pyarrow.csv.read_csv`` of every file (TAB-delimited, two string columns), the second of two passes;
* ``auditor score --task multilabel --bootstrap 0``, the whole command with start-up and imports, as a user sees it
  (bytecode compiled once beforehand, as an installed package has it), three times in turn with the read;
* the in-process ``audit(...)`` with ``bootstrap=0`` (no start-up);
* scikit-learn computing the same figures in this process from binarised in-memory matrices (N × L 0/1 arrays
  built before the clock starts): ``accuracy_score``, ``hamming_loss``, ``precision/recall/f1_score`` with
  ``average`` micro, macro, samples (and weighted F1), ``jaccard_score`` samples, micro and macro, and the per-label
  ``precision_recall_fscore_support`` — one call each per system, ``zero_division=0``.

Wall and CPU (user + system, threads and child processes included) seconds are printed; targets: the command
within 3× the pyarrow read, and at least 10× faster than scikit-learn. Run: ``python benchmarks/bench_multilabel.py``
(1M items × 28 labels × 5 systems) or ``--items 100000`` for a quick check. A script, not a test.
"""
from __future__ import annotations

import argparse
import importlib
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import timing

REPOSITORY = Path(__file__).resolve().parent.parent


def make_bits(rng: np.random.Generator, n: int, labels: int) -> np.ndarray:
    """Gold sets: 1-3 labels per item, label frequencies falling off like GoEmotions' (Zipf-like)."""
    weights = 1 / np.arange(1, labels + 1) ** 0.8
    weights /= weights.sum()
    bits = np.zeros((n, labels), dtype=bool)
    sizes = rng.choice([1, 2, 3], size=n, p=[0.8, 0.17, 0.03])
    for k in (1, 2, 3):
        rows = np.flatnonzero(sizes >= k)
        bits[rows, rng.choice(labels, size=rows.size, p=weights)] = True
    return bits


def noisy(rng: np.random.Generator, gold: np.ndarray, s: int) -> np.ndarray:
    """A system: each gold label kept with probability 0.75 - 0.05 s, each other label added with 0.01."""
    keep = gold & (rng.random(gold.shape) < 0.75 - 0.05 * s)
    return keep | (rng.random(gold.shape) < 0.01)


def write(path: Path, ids: np.ndarray, bits: np.ndarray, names: list[str]) -> None:
    """``id<TAB>a,b`` lines: the distinct sets joined once, then one line per item."""
    packed = bits.astype(np.uint64) @ (np.uint64(1) << np.arange(bits.shape[1], dtype=np.uint64))
    unique, inverse = np.unique(packed, return_inverse=True)
    texts = np.array([",".join(names[l] for l in range(bits.shape[1]) if (int(u) >> l) & 1) for u in unique])
    lines = np.char.add(np.char.add(ids, "\t"), texts[inverse])
    path.write_text("id\tlabels\n" + "\n".join(lines) + "\n", encoding="utf-8")


def make_files(folder: Path, n: int, labels: int, systems: int, seed: int = 11):
    rng = np.random.default_rng(seed)
    names = [f"label{l:02d}" for l in range(labels)]
    ids = np.char.add("c", np.arange(n).astype(str))
    gold = make_bits(rng, n, labels)
    write(folder / "gold.tsv", ids, gold, names)
    predictions = [noisy(rng, gold, s) for s in range(systems)]
    for s, bits in enumerate(predictions):
        write(folder / f"sys{s}.tsv", ids, bits, names)
    return folder / "gold.tsv", [folder / f"sys{s}.tsv" for s in range(systems)], gold, predictions


def pyarrow_read(paths: list[Path]) -> None:
    """Read every file with pyarrow (timed as the second of two passes)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    for path in paths:
        pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
                       convert_options=pacsv.ConvertOptions(column_types={"id": pa.string(), "labels": pa.string()}))


def sklearn_figures(Y: np.ndarray, systems: list[np.ndarray]) -> None:
    """scikit-learn computing the audit's figures for every system (0/1 int8 matrices, converted before the clock
    starts)."""
    from sklearn import metrics as M

    for P in systems:
        M.accuracy_score(Y, P)
        M.hamming_loss(Y, P)
        for average in ("micro", "macro", "samples"):
            M.precision_score(Y, P, average=average, zero_division=0)
            M.recall_score(Y, P, average=average, zero_division=0)
            M.f1_score(Y, P, average=average, zero_division=0)
            M.jaccard_score(Y, P, average=average, zero_division=0)
        M.f1_score(Y, P, average="weighted", zero_division=0)
        M.precision_recall_fscore_support(Y, P, average=None, zero_division=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=28)
    parser.add_argument("--systems", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-multilabel-"))
    try:
        gold, systems, gold_bits, predictions = make_files(folder, args.items, args.labels, args.systems)
        files = [str(gold)] + [str(p) for p in systems]
        size = sum(os.path.getsize(f) for f in files) / 2**20
        print(f"{args.items:,} items x {args.labels} labels x {args.systems} systems ({size:.0f} MB of files); load: "
              f"{os.getloadavg()[0]:.2f} (1 min); wall and CPU (user + system) seconds")
        floor, ours = [], []
        environment = timing.compiled_environment(folder, PYTHONPATH=str(REPOSITORY))
        for turn in range(3):  # in turn, so that the command and its floor share the load
            floor.append(timing.call(pyarrow_read, [gold, *systems], warmup=1))
            ours.append(timing.command([*timing.auditor(), "score", "--task", "multilabel", "--bootstrap", "0",
                                        "--quiet", *files], env=environment, warmup=1 if turn == 0 else 0))
        floor, ours = timing.median(floor), timing.median(ours)
        print(f"pyarrow read of the {len(files)} files: {floor.describe()}")
        print(f"auditor score --task multilabel --bootstrap 0: {ours.describe()} = {ours.ratio(floor)} of the read "
              f"(target <= 3x)")
        from auditor.options import AuditOptions
        from auditor.tasks.multilabel.run import audit

        inner = timing.call(audit, files[0], {p.stem: str(p) for p in systems}, options=AuditOptions(bootstrap=0),
                            analyses=("intervals",))
        print(f"audit(bootstrap=0) in process: {inner} = {inner.ratio(floor)} of the read")
        importlib.import_module("sklearn.metrics")  # imported before the clock starts
        peer = timing.call(sklearn_figures, gold_bits.astype(np.int8), [p.astype(np.int8) for p in predictions])
        print(f"scikit-learn, the same figures from in-memory 0/1 matrices: {peer}; the command is "
              f"{peer.wall / ours.wall:.1f}x faster wall, {peer.cpu / ours.cpu:.1f}x CPU (target >= 10x)")
        print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
