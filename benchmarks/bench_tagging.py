"""Benchmark: the tagging audit (issue 22) against a bare pyarrow read of the same files.

Writes gold and S system files of N tokens (``token<TAB>tag``, a blank line between sentences of
8-32 tokens, IOB2 over 4 types; each system = gold with a share of tags replaced at random, so
ill-formed chunks occur; token error rates 1% to 5.5%, as NER taggers have), then times, in this one run:

* the floor: ``pyarrow.csv.read_csv`` of every file (TAB-delimited, no quoting, blank lines
  dropped), the second of two passes so that it pays no one-time initialisation;
* ``auditor score --task tagging --bootstrap 0`` and the default ``auditor score --task tagging``
  (B = 1000 resamples of sentences), whole commands with start-up and imports, as a user sees them;
* the in-process ``audit(...)`` with ``bootstrap=0`` (no start-up).

then the floor of any command (``auditor --version``: interpreter and imports) and where the audit's CPU
time goes, stage by stage, in this process.

Wall and CPU (user + system, threads and child processes included) seconds are both printed: on a
shared machine wall time follows the load, CPU time much less (:mod:`timing`). Ratios are printed against the
targets (``score --bootstrap 0`` ≤ 5×, default ``score`` ≤ 15× the pyarrow read). Run:
``python benchmarks/bench_tagging.py`` (1M tokens × 10 systems) or ``--tokens 100000`` for a quick check.
A script, not a test.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import timing
from timing import Timing

TAGS = ["O"] + [f"{p}-{t}" for t in ("PER", "LOC", "ORG", "MISC") for p in "BI"]


def gold_tags(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """IOB2 tags (codes into TAGS) of n tokens and sentence lengths summing to n."""
    lengths = rng.integers(8, 33, size=n // 8 + 1)
    lengths = lengths[:np.searchsorted(np.cumsum(lengths), n) + 1]
    lengths[-1] -= lengths.sum() - n
    lengths = lengths[lengths > 0]
    entity = rng.random(n) < 0.15
    kind = rng.integers(0, 4, size=n)
    begins = entity & (rng.random(n) < 0.6)
    codes = np.where(entity, 1 + 2 * kind + (~begins), 0)
    first = np.zeros(n, bool)
    first[np.r_[0, np.cumsum(lengths)[:-1]]] = True
    previous = np.r_[0, codes[:-1]]
    continues = ~first & (previous > 0) & ((previous - 1) // 2 == (codes - 1) // 2)
    codes[(codes % 2 == 0) & (codes > 0) & ~continues] -= 1  # well-formed IOB2: I-X only inside an X chunk
    return codes, lengths


def write(path: Path, words: np.ndarray, tags: np.ndarray, lengths: np.ndarray) -> None:
    lines = np.char.add(np.char.add(words, "\t"), np.array(TAGS)[tags])
    ends = np.cumsum(lengths)
    pieces = np.split(lines, ends[:-1])
    path.write_text("\n\n".join("\n".join(p) for p in pieces) + "\n", encoding="utf-8")


def make_files(folder: Path, n: int, systems: int, seed: int = 7) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(seed)
    codes, lengths = gold_tags(rng, n)
    words = np.char.add("w", rng.integers(0, 50_000, size=n).astype(str))
    gold = folder / "gold.tsv"
    write(gold, words, codes, lengths)
    paths = []
    for s in range(systems):
        noisy = codes.copy()
        flip = rng.random(n) < 0.01 + 0.005 * s
        noisy[flip] = rng.integers(0, len(TAGS), size=int(flip.sum()))
        path = folder / f"sys{s:02d}.tsv"
        write(path, words, noisy, lengths)
        paths.append(path)
    return gold, paths


def pyarrow_read(paths: list[Path]) -> None:
    """Read every file with pyarrow (timed as the second of two passes)."""
    import pyarrow.csv as pacsv

    for path in paths:
        pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=["token", "tag"]),
                       parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, ignore_empty_lines=True))


def command(arguments: list[str], repeat: int = 1) -> Timing:
    """Wall and CPU seconds of one auditor command, start-up included (median of ``repeat`` runs)."""
    return timing.command([*timing.auditor(), *arguments], repeat=repeat)


def phases(gold: str, systems: dict[str, str]) -> list[tuple[str, float]]:
    """CPU seconds of the audit's stages in this process (where the time goes): read, align, chunks and
    counts, token and span figures, and the bootstrap over sentences (B = 1000: weights, products, figures)."""
    from auditor.options import AuditOptions
    from auditor.tasks.tagging import run
    from auditor.tasks.tagging.align import align
    from auditor.tasks.tagging.counting import count_spans
    from auditor.tasks.tagging.schemes import parse_tags

    read = timing.call(run.read_inputs, gold, systems, None, {})
    aligned = timing.call(align, *read.value)
    codes = parse_tags(aligned.value.tags)
    scheme, _ = run._scheme(aligned.value, codes)
    spans = timing.call(count_spans, aligned.value, codes, scheme, "conlleval", {"gold": gold, **systems})
    return [("read the 11 files (pyarrow, tags dictionary-encoded, each system's tokens compared with gold's)",
             read.cpu),
            ("align (sentence counts and lengths, tags recoded)", aligned.cpu),
            ("chunks of both rules, matches, error classes", spans.cpu),
            ("whole audit(bootstrap=0) again (read to figures)",
             timing.call(run.audit, gold, systems, options=AuditOptions(bootstrap=0), analyses=("intervals",)).cpu),
            ("whole audit(B = 1000)",
             timing.call(run.audit, gold, systems, options=AuditOptions(), analyses=("intervals",)).cpu)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=10)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-tagging-"))
    try:
        gold, systems = make_files(folder, args.tokens, args.systems)
        files = [str(gold)] + [str(p) for p in systems]
        print(f"{args.tokens:,} tokens x {args.systems} systems; load: {os.getloadavg()[0]:.2f} (1 min); "
              f"wall and CPU (user + system) seconds, ratios to the pyarrow read of the same run")
        floor = timing.call(pyarrow_read, [gold, *systems], warmup=1)
        print(f"pyarrow read of the {len(files)} files (blank lines dropped): {floor}")
        from auditor.options import AuditOptions
        from auditor.tasks.tagging.run import audit

        inner = timing.call(audit, files[0], {p.stem: str(p) for p in systems}, options=AuditOptions(bootstrap=0),
                            analyses=("intervals",))
        print(f"audit(bootstrap=0) in process: {inner} = {inner.ratio(floor)}")
        for label, extra, target in (("--bootstrap 0", ["--bootstrap", "0"], 5), ("(B = 1000)", [], 15)):
            ours = command(["score", "--task", "tagging", *extra, "--quiet", *files])
            print(f"auditor score --task tagging {label}: {ours} = {ours.ratio(floor)} (target <= {target}x)")
        startup = command(["--version"], repeat=3)
        print(f"floor of a command: `auditor --version` (interpreter, imports of the command line) {startup.cpu:.3f} s "
              f"CPU = {startup.cpu / floor.cpu:.2f}x the read")
        print("where the time goes (CPU seconds in this process; ratios to the read's CPU):")
        for label, used in phases(files[0], {p.stem: str(p) for p in systems}):
            print(f"  {label}: {used:.3f} s = {used / floor.cpu:.2f}x")
        print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
