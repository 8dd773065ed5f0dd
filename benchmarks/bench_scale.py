"""Benchmark: auditing a predictions table too large to load, counted in DuckDB (issue 25).

Data (built once with DuckDB under ``--data``, never in the repository): ``--rows`` rows of a gold
column and ``--systems`` system columns over ``--labels`` labels written as zero-padded text
(``00`` ... ``19``, which a careless reader would cast to numbers), as a glob of Parquet files;
each system is right 50-80% of the time, else a uniform label.

Runs, each in its own process (peak memory = the child's ``ru_maxrss``, DuckDB included), in the
same invocation so that the ratios share the machine's load:

1. bare: the S crosstab queries ``SELECT gold, sys, count(*) FROM read_parquet(glob) GROUP BY ALL``
   in one DuckDB connection, the floor for any tool that reads the same files;
2. ``auditor score --dataset GLOB --engine duckdb --bootstrap 0 --json`` (target: <= 3x bare + 2 s,
   peak RSS <= 1.5 GB);
3. the same with the default bootstrap (target: <= 3x run 2; the rank route, joint or pairs, is printed);
4. ``--spill``: a second data set (``--spill-rows`` x ``--spill-systems`` uniform random systems:
   about one distinct pattern per row) under ``--memory-limit 64MB``, the temporary directory's
   size polled while it runs, and its counts compared with an unlimited run;
6. ``--pairs``: the spill data with DuckDB forming only every pair's (gold, a, b) table (as it does when
   the pattern table would not fit in memory) against the pattern table, ``--bootstrap 0``;
5. ``--parity``: ``score --json`` through memory, duckdb and spark on a small slice of the data
   (``--parity-rows``): the figures must be identical (only ``sources.*.engine`` differs).

Run: ``python benchmarks/bench_scale.py [--rows 10000000] [--spill] [--parity]``. A script, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import timing

PYTHON = sys.executable


def build(folder: Path, rows: int, systems: int, labels: int, files: int, accurate: bool, seed: float = 0.42) -> str:
    """Write the Parquet files (once); return their glob."""
    glob = str(folder / "*.parquet")
    if folder.exists() and any(folder.glob("*.parquet")):
        return glob
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    connection = duckdb.connect()
    connection.execute("SET enable_progress_bar = false")
    connection.execute(f"SELECT setseed({seed})")

    def label(expression: str) -> str:
        return f"lpad(CAST(CAST(floor({expression} * {labels}) AS INTEGER) AS VARCHAR), 2, '0')"
    columns = ", ".join(
        (f"CASE WHEN random() < {0.5 + 0.3 * s / max(systems - 1, 1):.3f} THEN gold ELSE {label('random()')} END"
         if accurate else label("random()")) + f" AS sys{s}" for s in range(systems))
    per_file = -(-rows // files)
    for index in range(files):
        count = min(per_file, rows - index * per_file)
        connection.execute(f"COPY (SELECT gold, {columns} FROM "
                           f"(SELECT {label('random()')} AS gold FROM range({count}))) "
                           f"TO '{folder / f'part-{index:03d}.parquet'}' (FORMAT parquet)")
    connection.close()
    return glob


BARE = """
import sys, time, duckdb
glob, systems = sys.argv[1], int(sys.argv[2])
connection = duckdb.connect(config={"memory_limit": sys.argv[3]} if sys.argv[3] else {})
connection.execute("SET enable_progress_bar = false")
total = 0.0
for s in range(systems):
    start = time.perf_counter()
    connection.sql(f"SELECT gold, sys{s}, count(*) FROM read_parquet('{glob}') GROUP BY ALL").fetchall()
    total += time.perf_counter() - start
print(total)
"""


def score(glob: str, systems: int, extra: list[str]) -> list[str]:
    return [PYTHON, "-c", "from auditor.cli import main; main()", "score", "--dataset", glob,
            "--gold-column", "gold", "--system-columns", ",".join(f"sys{s}" for s in range(systems)),
            "--json", "--quiet", *extra]


def figures(document: dict) -> dict:
    """The audit JSON without the engine's name (the only thing that may differ between engines)."""
    for source in document.get("sources", {}).values():
        source.pop("engine", None)
    if "slice_summary" in document:
        document["slice_summary"]["source"].pop("engine", None)
    return document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--systems", type=int, default=4)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "auditor-bench-scale"))
    parser.add_argument("--skip-bootstrap", action="store_true", help="Skip run 3 (the default bootstrap).")
    parser.add_argument("--spill", action="store_true")
    parser.add_argument("--spill-rows", type=int, default=10_000_000)
    parser.add_argument("--spill-systems", type=int, default=10)
    parser.add_argument("--pairs", action="store_true", help="Run 6: the spill data counted as pairs' tables.")
    parser.add_argument("--parity", action="store_true")
    parser.add_argument("--parity-rows", type=int, default=1_000_000)
    arguments = parser.parse_args()
    data = Path(arguments.data)
    print(f"load: {os.getloadavg()}  cpus: {os.cpu_count()}")
    glob = build(data / f"rows{arguments.rows}-s{arguments.systems}-k{arguments.labels}", arguments.rows,
                 arguments.systems, arguments.labels, arguments.files, accurate=True)
    size = sum(Path(p).stat().st_size for p in Path(glob).parent.glob("*.parquet")) / 1e6
    print(f"data: {arguments.rows:,} rows x {arguments.systems} systems x {arguments.labels} labels, "
          f"{arguments.files} Parquet files, {size:.0f} MB at {glob}")
    bare = timing.command([PYTHON, "-c", BARE, glob, str(arguments.systems), arguments.memory_limit])
    bare_queries = float(bare.output)
    print(f"1. bare DuckDB crosstabs (S={arguments.systems} queries): {bare_queries:.2f} s in queries "
          f"({bare.wall:.2f} s with start-up, {bare.cpu:.2f} s CPU), peak RSS {bare.peak_mb:.0f} MB")
    engine = ["--engine", "duckdb", "--memory-limit", arguments.memory_limit]
    zero = timing.command(score(glob, arguments.systems, [*engine, "--bootstrap", "0"]))
    print(f"2. auditor score --engine duckdb --bootstrap 0: {zero.wall:.2f} s ({zero.cpu:.2f} s CPU), "
          f"peak RSS {zero.peak_mb:.0f} MB; "
          f"ratio to bare queries {zero.wall / bare_queries:.2f}x (target <= 3x + 2 s: "
          f"{'met' if zero.wall <= 3 * bare_queries + 2 else 'NOT met'}; RSS <= 1500 MB: "
          f"{'met' if zero.peak_mb <= 1500 else 'NOT met'})")
    if not arguments.skip_bootstrap:
        full = timing.command(score(glob, arguments.systems, engine))
        route = json.loads(full.output)["statistics"].get("rank_route")
        print(f"3. the same with the default bootstrap (1000): {full.wall:.2f} s ({full.cpu:.2f} s CPU), "
              f"peak RSS {full.peak_mb:.0f} MB; "
              f"ratio to run 2 {full.wall / zero.wall:.2f}x (target <= 3x: "
              f"{'met' if full.wall <= 3 * zero.wall else 'NOT met'}); ranks from the {route} route")
    print(f"load at the end: {os.getloadavg()}")
    if arguments.spill:
        spill(data, arguments)
    if arguments.pairs:
        pairs(data, arguments)
    if arguments.parity:
        parity(glob, data, arguments)


def spill(data: Path, arguments: argparse.Namespace) -> None:
    glob = build(data / f"spill-rows{arguments.spill_rows}-s{arguments.spill_systems}-k{arguments.labels}",
                 arguments.spill_rows, arguments.spill_systems, arguments.labels, 8, accurate=False)
    temp = data / "spill-temp"
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir(parents=True)
    limited = timing.command(score(glob, arguments.spill_systems, ["--engine", "duckdb", "--memory-limit", "64MB",
                                                          "--temp-directory", str(temp), "--bootstrap", "0"]),
                    watch=temp)
    free = timing.command(score(glob, arguments.spill_systems, ["--engine", "duckdb", "--memory-limit", "1GB",
                                                       "--bootstrap", "0"]))
    a, b = json.loads(limited.output), json.loads(free.output)
    same = figures(a) == figures(b)
    print(f"4. forced spill: {arguments.spill_rows:,} rows x {arguments.spill_systems} systems, --memory-limit 64MB: "
          f"{limited.wall:.2f} s, peak RSS {limited.peak_mb:.0f} MB, temporary directory peak "
          f"{limited.folder_mb:.0f} MB; at 1GB: {free.wall:.2f} s, {free.peak_mb:.0f} MB; "
          f"figures identical: {same} (pattern table sha256 {a['sources']['gold']['sha256'][:12]})")


#: ``auditor`` with the pattern-table limit at one row: DuckDB forms only every pair's table (what it does
#: when the pattern table would take more than a quarter of the available memory).
PAIRS_ONLY = "import auditor.engines as e; e.pattern_limit = lambda d, n: 1; from auditor.cli import main; main()"


def pairs(data: Path, arguments: argparse.Namespace) -> None:
    """Run 6: the spill data (about one pattern per row) counted as pairs' tables, against the pattern table."""
    glob = build(data / f"spill-rows{arguments.spill_rows}-s{arguments.spill_systems}-k{arguments.labels}",
                 arguments.spill_rows, arguments.spill_systems, arguments.labels, 8, accurate=False)
    extra = ["--engine", "duckdb", "--memory-limit", "1GB", "--bootstrap", "0"]
    full = timing.command(score(glob, arguments.spill_systems, extra))
    command = score(glob, arguments.spill_systems, extra)
    command[2] = PAIRS_ONLY
    only = timing.command(command)
    a, b = figures(json.loads(full.output)), figures(json.loads(only.output))
    same = all(a[key] == b[key] for key in ("labels", "n_items", "systems", "baselines"))
    print(f"6. {arguments.spill_rows:,} rows x {arguments.spill_systems} systems, --bootstrap 0: pattern table "
          f"{full.wall:.2f} s, peak RSS {full.peak_mb:.0f} MB; pairs' tables only "
          f"{only.wall:.2f} s, {only.peak_mb:.0f} MB; systems and baselines identical: {same}")


def parity(glob: str, data: Path, arguments: argparse.Namespace) -> None:
    import duckdb

    small = data / f"parity-{arguments.parity_rows}.parquet"
    if not small.exists():
        duckdb.sql(f"COPY (SELECT * FROM read_parquet('{glob}') LIMIT {arguments.parity_rows}) TO '{small}' "
                   f"(FORMAT parquet)")
    results = {}
    for name in ("memory", "duckdb", "spark"):
        run_ = timing.command(score(str(small), arguments.systems, ["--engine", name, "--bootstrap", "200"]))
        results[name] = figures(json.loads(run_.output))
        print(f"5. {name}: {run_.wall:.2f} s, peak RSS {run_.peak_mb:.0f} MB")
    print(f"5. spark == duckdb == memory figures on {arguments.parity_rows:,} rows: "
          f"{results['spark'] == results['duckdb'] == results['memory']}")


if __name__ == "__main__":
    main()
