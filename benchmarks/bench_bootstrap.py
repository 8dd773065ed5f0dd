"""Benchmark: paired bootstrap on counts vs the same resampling with scikit-learn calls.

Synthetic but realistic data (:mod:`synthetic_data`, shared by the benchmarks): N items over
K classes with skewed prevalence; each of S systems is correct with its own accuracy in
[0.5, 0.9] and errs towards a system-specific biased class distribution. The full scalar
catalogue is bootstrapped with B resamples (:func:`auditor.analyses.bootstrap.bootstrap`); the
scikit-learn loop (accuracy, balanced accuracy, macro and weighted precision/recall/F1, Cohen's
kappa, MCC for every system on a resample of the items) is timed on a few resamples and scaled
to B.

Run: ``python benchmarks/bench_bootstrap.py [--items N --systems S --classes K --resamples B]``.
A script, not a test.
"""
from __future__ import annotations

import argparse

import numpy as np
import timing
from synthetic_data import synthetic


def sklearn_resample(gold: np.ndarray, predictions: dict[str, np.ndarray], index: np.ndarray) -> None:
    from sklearn.metrics import (
        accuracy_score,
        balanced_accuracy_score,
        cohen_kappa_score,
        f1_score,
        matthews_corrcoef,
        precision_score,
        recall_score,
    )

    y_true = gold[index]
    for y in predictions.values():
        y_pred = y[index]
        accuracy_score(y_true, y_pred)
        balanced_accuracy_score(y_true, y_pred)
        for average in ("macro", "weighted"):
            precision_score(y_true, y_pred, average=average, zero_division=0)
            recall_score(y_true, y_pred, average=average, zero_division=0)
            f1_score(y_true, y_pred, average=average, zero_division=0)
        cohen_kappa_score(y_true, y_pred)
        matthews_corrcoef(y_true, y_pred)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--sklearn-resamples", type=int, default=3)
    parser.add_argument("--seed", type=int, default=12345)
    arguments = parser.parse_args()

    import auditor.metrics.catalogue  # noqa: F401  (registers the catalogue)
    from auditor.analyses.bootstrap import bootstrap
    from auditor.analyses.resample import Resampler
    from auditor.io.counts import count
    from auditor.metrics.registry import REGISTRY
    from auditor.options import AuditOptions

    gold, predictions = synthetic(arguments.items, arguments.systems, arguments.classes)
    counts = count(gold, predictions)
    metrics = REGISTRY.scalar()
    print(f"{arguments.items:,} items x {arguments.systems} systems x {counts.k} classes, "
          f"{len(metrics)} scalar metrics, B = {arguments.resamples}")

    setup = timing.call(Resampler, counts, arguments.resamples, arguments.seed)
    resampler = setup.value
    print(f"patterns: {resampler.n_patterns:,} ({resampler.n_light:,} light, drawn as items), "
          f"{resampler.chunk} resamples per chunk; pattern setup {setup}")

    ours = timing.call(bootstrap, counts, metrics, B=arguments.resamples, seed=arguments.seed,
                       alpha=AuditOptions().alpha)
    result = ours.value
    print(f"auditor bootstrap: {ours} (including pattern setup, intervals and ranks; {timing.load()})")

    rng = np.random.default_rng(arguments.seed)
    draws = [rng.integers(0, arguments.items, size=arguments.items) for _ in range(arguments.sklearn_resamples)]
    peer = timing.call(lambda: [sklearn_resample(gold, predictions, index) for index in draws])
    scale = arguments.resamples / arguments.sklearn_resamples
    print(f"scikit-learn loop: {peer.wall / arguments.sklearn_resamples:.2f} s wall per resample over "
          f"{arguments.sklearn_resamples} resamples, scaled to B = {arguments.resamples}: {peer.wall * scale:.0f} s "
          f"wall, {peer.cpu * scale:.0f} s CPU")
    print(f"speed-up: {peer.wall * scale / ours.wall:.0f}x wall, {peer.cpu * scale / ours.cpu:.0f}x CPU")
    system = counts.systems[-1]
    lo, hi = result.interval("accuracy", system)
    print(f"check: {system} accuracy {result.observed['accuracy'][-1]:.4f}, 95% CI [{lo:.4f}, {hi:.4f}]")


if __name__ == "__main__":
    main()
