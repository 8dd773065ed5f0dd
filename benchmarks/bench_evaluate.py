"""Benchmark: the metric catalogue on the leaderboard's batches of confusion tables (issue 40), before/after.

``auditor.metrics.catalogue.compute`` on the batches ``auditor score`` passes it for 100 systems x 10,000 items
x 10 classes (:func:`synthetic_data.leaderboard`), every one of the 26 scalar metrics of the catalogue (13 base,
13 prevalence-calibrated) unless said otherwise:

* ``interval``: one worker's chunk of each system's own resamples, (157, 13, 10, 10) dense;
* ``joint``: one slice of the paired resamples, (20, 100, 10, 10) dense, laid out as ``Resampler.confusion`` gives
  them (a transposed product: the batch axis innermost in memory);
* ``shuffle``: 1,000 fixed-margin tables of one system (its predictions permuted against gold), (1000, 10, 10);
* ``pair``: one block of a pair test's swapped rounds, (3960, 2, 10) margins only (no matrix), laid out as
  ``randomisation._SwappedRounds`` lays them out (the gold rows broadcast, as every round keeps them; columns and
  diagonal rounds innermost), the four tested metrics (macro F1, MCC, informedness, macro recall);
* ``sparse``: tables from their non-zero cells (``ConfusionStats.from_cells``), (256, 4, 50, 50) with 60 items
  each (many classes, few items).

Each tree runs in its own child process (``PYTHONPATH=TREE``) on the same tables, in turn with the other (A B A B
...), so that a before/after pair shares the load; figures are medians over the rounds of the CPU milliseconds per
call on one thread (the process's CPU time over ``--calls`` calls, stats built inside the timing), and of the wall
milliseconds per call with two threads evaluating at once, as the audit's workers do: on 2 cores that figure also
counts what the two threads cannot do at the same time (numpy's Python-side work holds the GIL). The children keep
freed memory in the heap (``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_``): a loop that only evaluates
metrics hands the pages of its 1.6 MB temporaries back to the system at every call and faults them in again (about
2,000 faults, 2-4 ms a call), which the audit's busy heap does not (51,000 faults in a whole ``score --json``). Each
child also prints a digest of every value it computed, so the run says whether the two trees gave the same floats
(NaN compared as NaN). The load average is printed beside the figures.

Run: ``python benchmarks/bench_evaluate.py [--vs /path/to/other/checkout] [--rounds 5] [--calls 20]``.
A script, not a test.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import median

import numpy as np
import timing
from synthetic_data import leaderboard

HERE = Path(__file__).resolve().parent
TESTED = ("macro_f1", "mcc", "informedness", "macro_recall")
KEEP_HEAP = {"MALLOC_TRIM_THRESHOLD_": str(2**30), "MALLOC_MMAP_THRESHOLD_": str(2**25)}


def tables(folder: Path, seed: int = 40) -> Path:
    """The batches, written once to ``folder/tables.npz`` for every child."""
    gold, predictions = leaderboard(10_000, 100, 10)
    k = 10
    confusion = np.stack([np.bincount(gold * k + p, minlength=k * k) for p in predictions.values()])
    shares = confusion / confusion.sum(axis=-1, keepdims=True)
    rng = np.random.default_rng(seed)

    def resamples(size: int, systems: range) -> np.ndarray:
        return np.stack([rng.multinomial(10_000, shares[s], size=size) for s in systems], axis=1).reshape(
            size, len(systems), k, k).astype(float)

    last = predictions["sys99"]
    shuffle = np.stack([np.bincount(gold * k + rng.permutation(last), minlength=k * k) for _ in range(1000)])
    pair = resamples(3960, range(2))
    few = np.stack([np.bincount(rng.integers(0, 50, 60) * 50 + rng.integers(0, 50, 60), minlength=2500)
                    for _ in range(256 * 4)]).reshape(256, 4, 50, 50).astype(float)
    path = folder / "tables.npz"
    joint = np.ascontiguousarray(resamples(20, range(100)).reshape(20, -1).T)  # (S k^2, B), as the product is
    np.savez(path, interval=resamples(157, range(13)), joint=joint,
             shuffle=shuffle.reshape(1000, k, k).astype(float), pair=pair, sparse=few)
    return path


def child(path: Path, calls: int) -> None:
    """In the child: time every batch, print one JSON line {name: [ms CPU per call, digest]}."""
    from auditor.metrics.catalogue import compute
    from auditor.metrics.registry import REGISTRY, ConfusionStats

    data = np.load(path)
    everything = [metric for metric in REGISTRY.scalar() if metric.family in ("base", "calibrated")]
    tested = [REGISTRY.metrics[metric_id] for metric_id in TESTED]

    batches = {name: data[name] for name in ("interval", "shuffle")}
    batches["joint"] = data["joint"].T.reshape(-1, 100, 10, 10)

    def dense(name):
        return lambda: compute(ConfusionStats(batches[name]), everything)

    pair = data["pair"]  # the margins of the swapped rounds are formed outside the metrics: here, once; as there,
    rounds = pair.shape[0]  # every round keeps the pair's gold rows, and columns and diagonal lie rounds innermost
    margins = [np.broadcast_to(pair[0].sum(axis=-1), pair.shape[:-1])]
    for margin in (pair.sum(axis=-2), np.diagonal(pair, axis1=-2, axis2=-1)):
        margins.append(np.empty((2, 10, rounds)).transpose(2, 0, 1))
        margins[-1][...] = margin

    def pair_test():
        stats = ConfusionStats.__new__(ConfusionStats)
        stats.k, stats.all_labels_active = 10, False
        stats.row, stats.col, stats.diag = margins
        stats.n = stats.row.sum(axis=-1)
        return {**compute(stats, tested[:2]), **compute(stats, tested[2:])}

    def sparse():
        few = data["sparse"]
        flat = np.flatnonzero(few)
        return compute(ConfusionStats.from_cells(few.shape, flat, few.ravel()[flat]), everything)

    runs = {"interval": dense("interval"), "joint": dense("joint"), "shuffle": dense("shuffle"), "pair": pair_test,
            "sparse": sparse}
    def repeat() -> None:
        for _ in range(calls):
            run()

    out = {}
    for name, run in runs.items():
        values = run()  # warm-up, and the values for the digest
        start = time.process_time()
        repeat()
        cpu = (time.process_time() - start) / calls * 1000
        start = time.perf_counter()  # two threads at once, as the audit's workers run
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda _: repeat(), range(2)))
        wall = (time.perf_counter() - start) / (2 * calls) * 1000
        digest = hashlib.sha1()
        for metric_id in sorted(values):
            value = np.asarray(values[metric_id], dtype=float)
            digest.update(metric_id.encode() + np.where(np.isnan(value), np.nan, value).tobytes())
        out[name] = [cpu, wall, digest.hexdigest()[:12]]
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vs", type=Path, help="another checkout of auditor, run in turn with this one")
    parser.add_argument("--rounds", type=int, default=5, help="child processes per tree (medians are printed)")
    parser.add_argument("--calls", type=int, default=20, help="calls per batch in each child")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        child(arguments.child, arguments.calls)
        return
    trees = {"this tree": HERE.parent, **({"--vs": arguments.vs.resolve()} if arguments.vs else {})}
    with tempfile.TemporaryDirectory(prefix="bench-evaluate-") as folder:
        path = tables(Path(folder))
        results: dict[str, list[dict]] = {label: [] for label in trees}
        loads = []
        for _ in range(max(1, arguments.rounds)):
            for label, tree in trees.items():  # A B A B ...: each pair shares the load
                env = dict(os.environ, PYTHONPATH=str(tree), **KEEP_HEAP)
                done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(path),
                                       "--calls", str(arguments.calls)], env=env, cwd=tree, check=True,
                                      capture_output=True, text=True)
                results[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
                loads.append(os.getloadavg()[0])
    print(f"compute() on the leaderboard's batches, ms per call, median of {arguments.rounds} rounds x "
          f"{arguments.calls} calls: CPU on one thread, and wall per call with two threads at once (the audit's "
          f"workers; 2 cores); {timing.load()}; loads seen {min(loads):.1f}-{max(loads):.1f}")
    labels = list(trees)
    for column, title in ((0, "CPU, one thread"), (1, "wall, two threads")):
        print(f"  {title:<18} " + " ".join(f"{label:>10}" for label in labels)
              + ("   ratio  same floats" if len(labels) > 1 else ""))
        for name in results[labels[0]][0]:
            figures = [median(run[name][column] for run in results[label]) for label in labels]
            line = f"  {name:<18} " + " ".join(f"{figure:10.2f}" for figure in figures)
            if len(labels) > 1:
                same = results[labels[0]][0][name][2] == results[labels[1]][0][name][2]
                line += f"   {figures[1] / figures[0]:5.2f}x  {'yes' if same else 'NO'}"
            print(line)


if __name__ == "__main__":
    main()
