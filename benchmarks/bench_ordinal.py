"""Benchmark: the ordinal audit (issue 34) against a bare pyarrow read of the same files and against scikit-learn +
scipy computing the same figures in-process.

Writes gold and S system files of N items (``id<TAB>level``, six levels A1..C2 with CEFR-like shares; each system =
gold moved by -1, 0 or +1 level on a share of items, clipped to the scale), then times, in this one run:

* the floor: ``pyarrow.csv.read_csv`` of every file (the second of two passes, so it pays no one-time start-up);
* ``auditor score --task ordinal --order A1,...,C2 --bootstrap 0``: the whole command, start-up and imports
  included, as a user sees it (bytecode compiled once beforehand, as an installed package has it; three times in
  turn with the read; target: within 3x the pyarrow read);
* the peer: scikit-learn + scipy computing the same figures in-process from in-memory integer arrays
  (accuracy, macro F1, MAE, MSE, MAE^M and MSE^M by level masks, within-one, linear and quadratic kappa, Spearman,
  Kendall's tau-b; CEM-Ord with numpy from its definition), per system (target: the command at least 10x faster).

Wall and CPU (user + system, child processes included) seconds are both printed: on a shared machine wall time
follows the load, CPU time much less. Run: ``python benchmarks/bench_ordinal.py`` (1M items x 5 systems) or
``--items 100000`` for a quick check. A script, not a test.
"""
from __future__ import annotations

import argparse
import importlib
import shutil
import tempfile
from pathlib import Path

import numpy as np
import timing

LEVELS = ("A1", "A2", "B1", "B2", "C1", "C2")
SHARES = (0.01, 0.08, 0.36, 0.37, 0.14, 0.04)


def make_files(folder: Path, n: int, systems: int, seed: int = 11) -> tuple[Path, list[Path], np.ndarray, list]:
    """Gold and system files (``id<TAB>level`` with a header), and their level codes."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(len(LEVELS), size=n, p=SHARES)
    ids = np.char.add("item", np.arange(n).astype(str))
    names = np.array(LEVELS)

    def write(path: Path, codes: np.ndarray) -> None:
        path.write_text("id\tlevel\n" + "\n".join(np.char.add(np.char.add(ids, "\t"), names[codes])) + "\n",
                        encoding="utf-8")

    write(folder / "gold.tsv", gold)
    paths, predictions = [], []
    for s in range(systems):
        moved = rng.random(n) < 0.3 + 0.08 * s
        step = rng.choice((-1, 1), size=n)
        codes = np.clip(gold + np.where(moved, step, 0), 0, len(LEVELS) - 1)
        path = folder / f"sys{s}.tsv"
        write(path, codes)
        paths.append(path)
        predictions.append(codes)
    return folder / "gold.tsv", paths, gold, predictions


def pyarrow_read(paths: list[Path]) -> None:
    """Read every file with pyarrow (timed as the second of two passes)."""
    import pyarrow.csv as pacsv

    for path in paths:
        pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False))


def peer(gold: np.ndarray, predictions: list[np.ndarray]) -> None:
    """scikit-learn + scipy computing the same figures from in-memory arrays (imported before the clock starts)."""
    import scipy.stats
    from sklearn.metrics import accuracy_score, cohen_kappa_score, f1_score, mean_absolute_error, mean_squared_error

    levels = list(range(len(LEVELS)))
    for predicted in predictions:
        accuracy_score(gold, predicted)
        f1_score(gold, predicted, labels=levels, average="macro", zero_division=0)
        mean_absolute_error(gold, predicted)
        mean_squared_error(gold, predicted)
        np.mean([mean_absolute_error(gold[gold == i], predicted[gold == i]) for i in levels if (gold == i).any()])
        np.mean([mean_squared_error(gold[gold == i], predicted[gold == i]) for i in levels if (gold == i).any()])
        np.mean(np.abs(gold - predicted) <= 1)
        cohen_kappa_score(gold, predicted, labels=levels, weights="linear")
        cohen_kappa_score(gold, predicted, labels=levels, weights="quadratic")
        scipy.stats.spearmanr(gold, predicted)
        scipy.stats.kendalltau(gold, predicted)
        counts = np.bincount(gold, minlength=len(levels))
        cumulative = np.cumsum(counts)
        low, high = np.minimum(predicted, gold), np.maximum(predicted, gold)
        between = np.where(predicted < gold, cumulative[high] - cumulative[low],
                           np.where(predicted > gold, cumulative[high] - counts[high] - cumulative[low] + counts[low],
                                    0))
        numerator = -np.log2((counts[predicted] / 2 + between) / len(gold)).sum()
        numerator / -np.log2(counts[gold] / 2 / len(gold)).sum()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=5)
    arguments = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-ordinal-"))
    try:
        gold, paths, gold_codes, predictions = make_files(folder, arguments.items, arguments.systems)
        size = sum(path.stat().st_size for path in (gold, *paths)) / 2**20
        print(f"{arguments.items:,} items x {arguments.systems} systems x {len(LEVELS)} levels "
              f"({1 + arguments.systems} files, {size:.0f} MB)")
        reads, scores = [], []
        environment = timing.compiled_environment(folder, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
        for turn in range(3):  # in turn, so that the command and its floor share the load
            reads.append(timing.call(pyarrow_read, [gold, *paths], warmup=1))
            scores.append(timing.command([*timing.auditor(), "score", "--task", "ordinal", str(gold),
                                          *map(str, paths), "--order", ",".join(LEVELS), "--bootstrap", "0",
                                          "--quiet"], env=environment, warmup=1 if turn == 0 else 0))
        read, score = timing.median(reads), timing.median(scores)
        version = timing.command([*timing.auditor(), "--version"], env=environment, repeat=3)
        for module in ("sklearn.metrics", "scipy.stats"):  # imported before the clock starts
            importlib.import_module(module)
        computed = timing.call(peer, gold_codes, predictions)
        print(f"{'pyarrow read of every file':<52} {read.describe()}")
        print(f"{'auditor score --task ordinal --bootstrap 0':<52} {score.describe()}   {score.ratio(read)} the "
              f"read (target <= 3x)")
        print(f"{'  of which auditor --version (start-up)':<52} {version}")
        print(f"{'scikit-learn + scipy, in-process, same figures':<52} {computed}   "
              f"{computed.wall / score.wall:5.1f}x the command (wall; target >= 10x), "
              f"{computed.cpu / score.cpu:5.1f}x (CPU)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
