"""Benchmark: what settling the shuffle p-values costs (auditor.analyses.shuffle_test).

The chance stage (:func:`auditor.analyses.baselines.chance_baselines`) timed in one process on the
same counts with the audit's draws, once with the fixed draws only (``settle=()``) and once as the
audit runs it (``settle=SETTLED``: exact p-values for two classes, otherwise more draws for the
systems whose Holm answer Monte Carlo error could still change); the ratio is the cost, and the
draws the settled systems got are printed. Systems of rising skill, so some sit near a threshold.

Run: ``python benchmarks/bench_chance.py [--items N --systems S --classes K]``. A script, not a test.
"""
from __future__ import annotations

import argparse

import numpy as np
import timing
from timing import Timing

from auditor.analyses.baselines import SETTLED, chance_baselines
from auditor.io.counts import count
from auditor.metrics.registry import REGISTRY
from auditor.options import CHANCE_DRAWS


def systems_near_chance(items: int, systems: int, classes: int, seed: int = 0):
    """Gold with uniform classes; system s copies gold on a share s/(20 S) of the items, else guesses."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, classes, items)
    predictions = {f"s{s}": np.where(rng.random(items) < s / (20 * systems), gold, rng.integers(0, classes, items))
                   for s in range(systems)}
    return count(gold.astype(str), {name: p.astype(str) for name, p in predictions.items()})


def run(counts, settle) -> Timing:
    """The chance stage on ``counts``, timed; ``value`` is its result."""
    return timing.call(chance_baselines, counts, REGISTRY.scalar(), draws=CHANCE_DRAWS, seed=1, alpha=0.05,
                       settle=settle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--classes", type=int, nargs="+", default=[2, 5])
    args = parser.parse_args()
    print(f"{timing.load()}; {args.items:,} items, {args.systems} systems")
    for k in args.classes:
        counts = systems_near_chance(args.items, args.systems, k)
        fixed = run(counts, ())
        settled = run(counts, SETTLED)
        tests = [c["macro_recall"].shuffle_p for c in settled.value.chance.values()]
        draws = sorted(t.draws for t in tests if t is not None and t.draws)
        open_ = sum(t is not None and t.resolved is False for t in tests)
        method = tests[0].method if tests and tests[0] is not None else "?"
        print(f"k={k}: fixed draws {fixed}; settled ({method}) {settled}; ratio {settled.ratio(fixed)}; "
              f"macro recall draws per system {draws[:1] + draws[-3:] if draws else '-'}; "
              f"unsettled at the cap {open_}")


if __name__ == "__main__":
    main()
