"""Benchmark: the planner's exact accuracy power against the Monte Carlo it replaces.

Card et al. (2020) estimate power by simulating r test sets and running McNemar's test on each
(their accuracy notebook, r = 10,000). ``auditor plan`` sums the same probability exactly
(:func:`auditor.analyses.power.power`). This script times, in one process, for each case: the exact
power, Type S and Type M; a vectorised Monte Carlo of the audit's own test with r draws (four-cell
multinomial, ``mcnemar_exact`` on each distinct table), whose estimate it prints beside the exact
value with its standard error; and ``items_needed`` (the proved smallest N).

Run: ``python benchmarks/bench_plan.py [--draws R]``. A script, not a test.
"""
from __future__ import annotations

import argparse

import numpy as np
import timing

from auditor.analyses.power import hypothesis, items_needed, power
from auditor.analyses.significance import mcnemar_exact

CASES = [(1000, 0.70, 0.02, None), (500, 0.70, 0.02, 0.975), (10_000, 0.80, 0.01, 0.9), (100_000, 0.85, 0.002, 0.95)]


def monte_carlo(h, draws: int, seed: int = 1) -> float:
    p10 = (1 - h.agreement + h.difference) / 2
    p01 = (1 - h.agreement - h.difference) / 2
    p11 = h.accuracy - p01
    cells = np.random.default_rng(seed).multinomial(h.items, [p11, p10, p01, max(0.0, 1 - p11 - p10 - p01)], draws)
    pairs, inverse = np.unique(cells[:, [2, 1]], axis=0, return_inverse=True)
    p = np.array([mcnemar_exact(a, b) for a, b in pairs])[inverse.ravel()]
    return float(((p < h.alpha) & (cells[:, 1] > cells[:, 2])).mean())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=10_000)
    args = parser.parse_args()
    print(f"{timing.load()}; Monte Carlo draws r = {args.draws}; times are CPU")
    print(f"{'N':>8} {'A':>5} {'D':>6} {'G':>6} | {'exact':>7} {'ms':>7} | {'MC':>7} {'se':>6} {'ms':>8} "
          f"{'ratio':>6} | {'items needed':>12} {'s':>6}")
    for items, accuracy, difference, agreement in CASES:
        h = hypothesis(items, accuracy, difference, agreement)
        exact_run, mc_run, needed_run = timing.call(power, h), timing.call(monte_carlo, h, args.draws), \
            timing.call(items_needed, h)
        exact, estimate, needed = exact_run.value.power, mc_run.value, needed_run.value.items
        exact_ms, mc_ms, needed_s = 1000 * exact_run.cpu, 1000 * mc_run.cpu, needed_run.cpu
        se = np.sqrt(estimate * (1 - estimate) / args.draws)
        print(f"{items:>8} {accuracy:>5.2f} {difference:>6.3f} {h.agreement:>6.3f} | {exact:>7.4f} {exact_ms:>7.1f} | "
              f"{estimate:>7.4f} {se:>6.4f} {mc_ms:>8.1f} {mc_ms / exact_ms:>6.0f} | {needed!s:>12} {needed_s:>6.2f}")


if __name__ == "__main__":
    main()
