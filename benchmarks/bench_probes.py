"""Benchmark: the property probes of every registered scalar metric
(:func:`auditor.analyses.properties.property_analysis` on random and adversarial matrices, no system's own), the
fixed cost every audit pays for its property table.

Target: under 2 s wall (it was a timed unit test, ``test_all_probes_for_all_metrics_are_fast``; speed targets live
here, beside the load). Run: ``python benchmarks/bench_probes.py [--repeat 3] [--seed 3]``. A script, not a test.
"""
from __future__ import annotations

import argparse

import numpy as np
import timing

import auditor.metrics.catalogue  # noqa: F401  (registers the catalogue)
from auditor.analyses.properties import property_analysis
from auditor.metrics.registry import REGISTRY


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=3)
    arguments = parser.parse_args()
    metrics = tuple(REGISTRY.scalar())
    probes = timing.call(property_analysis, metrics, np.zeros((0, 2, 2)), (), seed=arguments.seed,
                         repeat=arguments.repeat, warmup=1)
    print(f"{timing.load()}; {len(metrics)} scalar metrics, {probes.value.n_matrices:,} matrices probed")
    print(f"property probes: {probes.describe()}  target < 2 s wall: {'met' if probes.wall < 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
