"""Benchmark: each system's interval draws (its confusion cells, Multinomial(N, C_s / N)) by the two routes.

:func:`auditor.analyses.bootstrap._system_draws` draws a system's non-zero cells through
:class:`auditor.analyses.resample.PatternDraws` or numpy's multinomial, as :func:`~auditor.analyses.bootstrap.
pattern_route` decides (cells ≥ ``PATTERN_ROUTE · √N``). For each shape, in one run: every system's ``B`` draws
forced by numpy, forced through the patterns, and by the rule (the route each system takes). Shapes: the
leaderboard (issue 40: 100 systems, 10,000 items, 10 classes), the classification and ordinal demos, GermEval-2018
(shared data, when present), a 2-class table, and 1M items (10 systems, 20 and 40 classes; systems that share
their errors). Draws only: the tables are neither stacked nor scored.

Run: ``python benchmarks/bench_interval_draws.py [--resamples 1000] [--repeat 3]``. A script, not a test.
"""
from __future__ import annotations

import argparse
from typing import Iterator

import numpy as np
import shared_data
import timing
from synthetic_data import correlated, leaderboard, synthetic


def shapes() -> Iterator[tuple[str, object]]:
    """(name, Counts) of every shape measured."""
    from auditor.demo import classification, ordinal
    from auditor.io.counts import count

    def counted(gold, systems):
        labels = sorted(set(gold).union(*map(set, systems.values())))
        code = {label: i for i, label in enumerate(labels)}
        return count(np.array([code[x] for x in gold]), {name: np.array([code[x] for x in predicted])
                                                          for name, predicted in systems.items()})

    yield "leaderboard 100 x 10k x 10", count(*leaderboard(10_000, 100, 10))
    yield "classification demo", counted(*classification.simulate(0))
    yield "ordinal demo", counted(*ordinal.simulate(0))
    folder = shared_data.folder("germeval2018")
    if folder is not None:
        from auditor.io.load import read_labels
        from auditor.io.validate import align

        names = sorted(path.stem for path in (folder / "systems").glob("*.tsv"))
        yield "GermEval-2018 8 x 3,532 x 4", align(read_labels(folder / "gold.tsv"), [
            (name, read_labels(folder / "systems" / f"{name}.tsv")) for name in names], None).counts()
    yield "2 classes 5 x 10k", count(*synthetic(10_000, 5, 2))
    yield "1M x 10 x 20", count(*synthetic(1_000_000, 10, 20))
    yield "1M x 10 x 20 shared errors", count(*correlated(1_000_000, 10, 20))
    yield "1M x 10 x 40", count(*synthetic(1_000_000, 10, 40))


def draw_all(counts, B: int, seed: int) -> None:
    """Every system's ``B`` draws, in chunks of 157 (a worker's chunk at the leaderboard's shape)."""
    from auditor.analyses.bootstrap import _system_draws

    for system in range(len(counts.systems)):
        for _ in _system_draws(counts, system, B, seed, 157):
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    from auditor.analyses import bootstrap

    rule = bootstrap.PATTERN_ROUTE
    print(f"B = {arguments.resamples}, medians of {arguments.repeat}; {timing.load()}")
    print(f"{'shape':30} {'cells/√N':>12} {'numpy':>8} {'patterns':>9} {'rule':>8}  rule/numpy  via patterns")
    for name, counts in shapes():
        cells = np.array([np.count_nonzero(matrix) for matrix in counts.confusion])
        ratio = cells / np.sqrt(counts.n_items)
        seconds = {}
        for route, threshold in (("numpy", np.inf), ("patterns", 0.0), ("rule", rule)):
            bootstrap.PATTERN_ROUTE = threshold
            seconds[route] = timing.call(draw_all, counts, arguments.resamples, 12345, repeat=arguments.repeat).cpu
        bootstrap.PATTERN_ROUTE = rule
        chosen = sum(bootstrap.pattern_route(int(c), counts.n_items) for c in cells)
        print(f"{name:30} {ratio.min():5.2f}-{ratio.max():<6.2f} {seconds['numpy']:7.3f}s {seconds['patterns']:8.3f}s "
              f"{seconds['rule']:7.3f}s  {seconds['rule'] / seconds['numpy']:9.2f}  {chosen}/{cells.size} systems")
    print(timing.load())


if __name__ == "__main__":
    main()
