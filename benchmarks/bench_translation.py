"""Benchmark: the translation audit (issue 23) against its peers, measured in the same run.

Synthetic but realistic text: a Zipf-distributed vocabulary (exponent 1.1, 30,000 types), reference
segments of 5-40 tokens; each system copies the reference and replaces a system-specific share (10-40%)
of its tokens with Zipf draws, drops a few and leaves some segments empty. Figures:

1. ``report`` of 2,000 segments x 15 systems (all formats) against the GermEval-2018 classification
   report (the shared data's ``germeval2018``; skipped where it is absent), both through the command line in
   this run;
2. ``score --bootstrap 0`` of 100,000 segments x 10 systems (the command line, a fresh process) against
   sacrebleu's ``corpus_bleu`` + ``corpus_chrf`` alone on the same texts (in process) — target <= 2x;
3. the intervals (bootstrap of B resamples, jackknife and BCa) against the metrics alone, in process, at
   ``--interval-segments`` x ``--interval-systems`` (default: the 100k x 10 of 2.) — target <= 2x.

Run: ``python benchmarks/bench_translation.py [--segments N --systems S --big-segments N --big-systems S
--resamples B]``. A script, not a test. Prints wall and CPU seconds (:mod:`timing`) with the load.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import timing
from shared_data import folder


def corpus(segments: int, systems: int, seed: int = 1) -> tuple[list[str], dict[str, list[str]]]:
    """Reference segments and systems' outputs (see the module docstring)."""
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, 30_001)
    p = ranks ** -1.1
    p /= p.sum()
    words = np.array([f"w{i}" for i in range(ranks.size)], dtype=object)
    lengths = rng.integers(5, 41, size=segments)
    tokens = words[rng.choice(ranks.size, size=lengths.sum(), p=p)]
    starts = np.r_[0, np.cumsum(lengths)]
    reference = [" ".join(tokens[starts[i]:starts[i + 1]]) + "." for i in range(segments)]
    out = {}
    for s in range(systems):
        noise = 0.1 + 0.3 * s / max(1, systems - 1)
        replaced = tokens.copy()
        mask = rng.random(tokens.size) < noise
        replaced[mask] = words[rng.choice(ranks.size, size=mask.sum(), p=p)]
        keep = rng.random(tokens.size) > 0.03
        lines = []
        for i in range(segments):
            window = slice(starts[i], starts[i + 1])
            lines.append(" ".join(replaced[window][keep[window]]) + "." if rng.random() > 0.005 else "")
        out[f"sys{s:02d}"] = lines
    return reference, out


def write(directory: Path, reference: list[str], systems: dict[str, list[str]]) -> list[str]:
    (directory / "ref.txt").write_text("\n".join(reference) + "\n", encoding="utf-8")
    paths = []
    for name, lines in systems.items():
        path = directory / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def bench_report(directory: Path, segments: int, systems: int) -> None:
    reference, outputs = corpus(segments, systems)
    paths = write(directory, reference, outputs)
    germeval_dir = folder("germeval2018")
    if germeval_dir is None:
        return
    germeval = sorted(str(p) for p in (germeval_dir / "systems").glob("*.tsv"))
    mt = timing.command([*timing.auditor(), "report", "--task", "translation", str(directory / "ref.txt"), *paths,
                         "-o", str(directory / "out-mt"), "--quiet"])
    ge = timing.command([*timing.auditor(), "report", str(germeval_dir / "gold.tsv"), *germeval, "-o",
                         str(directory / "out-ge"), "--quiet"])
    print(f"report: translation {segments} x {systems}: {mt}; GermEval-2018 (3,532 x 8): {ge}; "
          f"ratio {mt.ratio(ge)} (target <= 1 wall) [{timing.load()}]")


def bench_score(directory: Path, segments: int, systems: int) -> None:
    import sacrebleu

    reference, outputs = corpus(segments, systems, seed=2)
    paths = write(directory, reference, outputs)
    ours = timing.command([*timing.auditor(), "score", "--task", "translation", str(directory / "ref.txt"), *paths,
                           "--bootstrap", "0", "--quiet"])

    def peer() -> None:
        for lines in outputs.values():
            sacrebleu.corpus_bleu(lines, [reference])
            sacrebleu.corpus_chrf(lines, [reference])

    sacre = timing.call(peer)
    print(f"score --bootstrap 0, {segments} x {systems}: auditor (command line, new process) {ours}; "
          f"sacrebleu corpus_bleu + corpus_chrf (in process) {sacre}; ratio {ours.ratio(sacre)} "
          f"(target <= 2 wall) [{timing.load()}]")


def bench_intervals(segments: int, systems: int, resamples: int) -> None:
    from auditor.analyses.intervals import intervals_by_method
    from auditor.tasks.translation.counting import count_corpus
    from auditor.tasks.translation.intervals import METHODS, jackknife
    from auditor.tasks.translation.resampling import bootstrap, point_scores

    def intervals(counted, observed, resampled, alpha, beta, k):
        return intervals_by_method(resampled, observed, jackknife(counted, beta, k), alpha, METHODS)

    reference, outputs = corpus(segments, systems, seed=3)
    def metrics_alone() -> tuple:
        counted = count_corpus([reference], outputs, "13a", False)
        return counted, point_scores(counted, 1.0, 1.0)

    metrics = timing.call(metrics_alone)
    counted, observed = metrics.value
    boot = timing.call(bootstrap, counted, resamples, 12345, 1.0, 1.0)
    bca = timing.call(intervals, counted, observed, boot.value.values, 0.05, 1.0, 1.0)
    print(f"intervals, {segments} x {systems}, B = {resamples}: metrics (tokenise, count, score) {metrics}; "
          f"bootstrap {boot} + jackknife and BCa {bca}; ratio {(boot.wall + bca.wall) / metrics.wall:.2f} wall, "
          f"{(boot.cpu + bca.cpu) / metrics.cpu:.2f} CPU (target <= 2) [{timing.load()}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=2000)
    parser.add_argument("--systems", type=int, default=15)
    parser.add_argument("--big-segments", type=int, default=100_000)
    parser.add_argument("--big-systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--interval-segments", type=int, default=None, help="default: --big-segments")
    parser.add_argument("--interval-systems", type=int, default=None, help="default: --big-systems")
    parser.add_argument("--only", choices=("report", "score", "intervals"), default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "intervals"):
            bench_intervals(args.interval_segments or args.big_segments, args.interval_systems or args.big_systems,
                            args.resamples)
        if args.only in (None, "report"):
            (Path(tmp) / "r").mkdir()
            bench_report(Path(tmp) / "r", args.segments, args.systems)
        if args.only in (None, "score"):
            (Path(tmp) / "s").mkdir()
            bench_score(Path(tmp) / "s", args.big_segments, args.big_systems)


if __name__ == "__main__":
    main()
