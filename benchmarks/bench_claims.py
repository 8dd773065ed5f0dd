"""Time and memory of check-claim's count reconstruction on hostile per-class tables.

    python benchmarks/bench_claims.py

Each table is checked in a fresh process (:func:`timing.command`); the script prints the check's own wall time
(measured in the child, start-up excluded), the tracemalloc peak (Python and numpy allocations), and the whole
child's CPU seconds and peak RSS. Before the bounded
reconstruction, the first table ("0.0,0.0" printed) needed about 23 GB: the range of
predicted counts searched was TP / 1e-9 wide.
"""
from __future__ import annotations

import json
import sys

import timing

TABLES = {
    "precision and recall printed 0.0, support 1e9": [("a", "0.0", "0.0", "1000000000"),
                                                      ("b", "0.0", "50.0", "1000000")],
    "one digit, support 1e12": [("a", "0.5", "0.5", "999999999999"), ("b", "0.1", "0.9", "1")],
    "1,000 classes of 0.0 / 0.0, support 1e9 each": [(f"c{i}", "0.0", "0.0", "1000000000") for i in range(1000)],
    "1,000 classes, two decimals, support 1e6 each": [(f"c{i}", "0.33", "0.67", "1000000") for i in range(1000)],
}

CHILD = """
import json, sys, time, tracemalloc
from auditor.claims.check import check_claims
from auditor.claims.evidence import ClassRow, from_class_table
from auditor.claims.parse import parse_claims
rows = [ClassRow(*row) for row in json.loads(sys.argv[1])]
tracemalloc.start()
start = time.perf_counter()
evidence = from_class_table(rows)
check_claims(parse_claims(["macro_f1=50.0 accuracy=50.0 kappa=0.1"]), evidence)
elapsed = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
start = time.perf_counter()
check_claims(parse_claims(["macro_f1=50.0 accuracy=50.0 kappa=0.1"]), from_class_table(rows))
untraced = time.perf_counter() - start
print(json.dumps({"seconds": untraced, "seconds_traced": elapsed, "tracemalloc_mb": peak / 2**20}))
"""


def main() -> None:
    print(f"{timing.load()}\n{'table':<50}{'time':>9}{'traced peak':>13}{'child CPU':>11}{'peak RSS':>11}")
    for name, rows in TABLES.items():
        child = timing.command([sys.executable, "-c", CHILD, json.dumps(rows)])
        figures = json.loads(child.output)
        print(f"{name:<50}{figures['seconds']:>8.3f}s{figures['tracemalloc_mb']:>10.1f} MB{child.cpu:>10.2f}s"
              f"{child.peak_mb:>8.0f} MB")


if __name__ == "__main__":
    main()
