"""Benchmark: the whole metric catalogue from raw label arrays, against scikit-learn and bincount.

Three timings, measured in the same run on the same synthetic data (:mod:`synthetic_data`,
shared by the benchmarks; default 1M items × 10 systems × 20 classes):

1. auditor: ``count`` (encode labels, confusion tensor) + every registered metric, plus the
   ``describe`` of every system (values with their undefined-value notes);
2. scikit-learn: the same metrics with one scikit-learn call each, per system;
3. bare: one ``numpy.bincount`` over precomputed integer codes (the floor any
   count-based implementation pays).

Medians of R runs (scikit-learn: one run). Usage: ``python benchmarks/bench_metrics.py [--items N] [--systems S]
[--classes K] [--repeat R]``
"""
from __future__ import annotations

import argparse

import numpy as np
import timing
from sklearn import metrics as sk
from synthetic_data import synthetic

import auditor
from auditor.metrics.catalogue import describe


def run_auditor(gold: np.ndarray, predictions: list[np.ndarray]) -> None:
    counts = auditor.count(gold, {f"s{i}": p for i, p in enumerate(predictions)})
    auditor.compute(counts.confusion)
    describe(counts.confusion, counts.labels)


def run_sklearn(gold: np.ndarray, predictions: list[np.ndarray]) -> None:
    for prediction in predictions:
        sk.accuracy_score(gold, prediction)
        sk.balanced_accuracy_score(gold, prediction)
        sk.precision_score(gold, prediction, average="macro", zero_division=0)
        sk.recall_score(gold, prediction, average="macro", zero_division=0)
        sk.f1_score(gold, prediction, average="macro", zero_division=0)
        sk.f1_score(gold, prediction, average="weighted", zero_division=0)
        sk.precision_recall_fscore_support(gold, prediction, average=None, zero_division=0)
        sk.cohen_kappa_score(gold, prediction)
        sk.matthews_corrcoef(gold, prediction)
        sk.confusion_matrix(gold, prediction)


def run_bare(codes: np.ndarray, cells: int) -> None:
    np.bincount(codes, minlength=cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    gold, systems = synthetic(arguments.items, arguments.systems, arguments.classes)
    predictions = list(systems.values())
    k = arguments.classes
    system_axis = np.arange(arguments.systems)[:, None]
    codes = ((system_axis * k + gold[None, :]) * k + np.stack(predictions)).ravel()

    ours = timing.call(run_auditor, gold, predictions, repeat=arguments.repeat)
    peer = timing.call(run_sklearn, gold, predictions)
    bare = timing.call(run_bare, codes, arguments.systems * k * k, repeat=arguments.repeat)
    n_metrics = len(auditor.REGISTRY)
    print(f"{arguments.items:,} items × {arguments.systems} systems × {k} classes; "
          f"auditor computes {n_metrics} registered metrics, scikit-learn 10 calls per system")
    print(f"auditor (raw labels -> every metric): {ours.describe()}")
    print(f"scikit-learn loop:                    {peer.describe()}")
    print(f"bare numpy.bincount pass:             {bare.describe()}")
    print(f"speed-up over scikit-learn: {peer.ratio(ours)}  (target ≥ 20×)")
    print(f"cost relative to bincount:  {ours.ratio(bare)}  (target ≤ 3×)")


if __name__ == "__main__":
    main()
