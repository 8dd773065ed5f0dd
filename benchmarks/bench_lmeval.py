"""Benchmark: ``auditor score --lm-eval`` (issue 35) against a bare ``json.loads`` pass over the same sample logs.

Writes R runs of an N-question, 4-choice task as ``lm_eval --log_samples`` does (``samples_<task>_<time>.jsonl``
rows with the document, one ``gen_args`` per choice repeating the prompt, ``resps``/``filtered_resps`` with
string log-likelihoods as lm-eval 0.4.13 writes them, hashes and per-item ``acc``/``acc_norm``; a results file
beside each), then times, in this one run:

* the floor: ``json.loads`` of every line of every samples file (read as bytes, split at newlines), the second of
  two passes;
* ``auditor score --lm-eval RUN... --bootstrap 0`` as a whole command (start-up and imports included), and the
  default ``score`` (B = 1000).

Wall and CPU (user + system, children included) seconds are printed, with the load: on a shared machine wall time
follows the load, CPU time much less. Target: ``score --bootstrap 0`` within 3× the json.loads pass.
Run: ``python benchmarks/bench_lmeval.py`` (10 runs × 100,000 questions) or ``--questions 10000`` for a quick check.
A script, not a test.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
from timing import call, command

TIME = "2026-11-27T10-00-00.000000"
AUDITOR = [sys.executable, "-c", "import sys; from auditor.cli import cli; sys.argv[0] = 'auditor'; cli()"]


def write_run(folder: Path, n: int, accuracy: float, seed: int) -> None:
    """One model's run folder: n questions, 4 choices, right with probability ``accuracy``."""
    rng = np.random.default_rng(seed)
    questions = np.random.default_rng(0)  # the same documents in every run
    folder.mkdir(parents=True)
    lines = []
    acc_sum = norm_sum = 0.0
    for doc_id in range(n):
        a, b = (int(x) for x in questions.integers(1, 1000, size=2))
        answer = int(questions.integers(0, 4))
        choices = [str(a + b + (j - answer) * int(questions.integers(1, 9))) for j in range(4)]
        context = f"The following is a question about arithmetic.\n\nQuestion: What is {a} + {b}?\nAnswer:"
        lls = -rng.uniform(1.0, 3.0, size=4)
        if rng.random() < accuracy:
            lls[answer] = -0.5 * rng.random()
        pred, norm = int(np.argmax(lls)), int(np.argmax(lls / np.array([len(c) for c in choices], float)))
        acc, acc_norm = float(pred == answer), float(norm == answer)
        acc_sum += acc
        norm_sum += acc_norm
        pairs = [[str(float(x)), "False"] for x in lls]
        doc = {"question": f"What is {a} + {b}?", "choices": choices, "answer": answer, "subject": f"s{doc_id % 57}"}
        lines.append(json.dumps({
            "doc_id": doc_id, "doc": doc, "target": str(answer),
            "arguments": {f"gen_args_{j}": {"arg_0": context, "arg_1": " " + c} for j, c in enumerate(choices)},
            "resps": [[pair] for pair in pairs], "filtered_resps": pairs, "filter": "none",
            "metrics": ["acc", "acc_norm"], "doc_hash": hashlib.sha256(str(doc_id).encode()).hexdigest(),
            "prompt_hash": hashlib.sha256(context.encode()).hexdigest(), "target_hash": "0" * 64,
            "acc": acc, "acc_norm": acc_norm}))
    (folder / f"samples_mc_{TIME}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = {"results": {"mc": {"acc,none": acc_sum / n, "acc_norm,none": norm_sum / n}},
               "configs": {"mc": {"target_delimiter": " "}}, "config": {"model_args": f"pretrained=model-{seed}"}}
    (folder / f"results_{TIME}.json").write_text(json.dumps(results), encoding="utf-8")


def json_pass(files: list[Path]) -> None:
    """One json.loads pass over every line of ``files``."""
    for path in files:
        for line in path.read_bytes().split(b"\n"):
            if line:
                json.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=10)
    arguments = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-lmeval-"))
    try:
        runs = [root / f"run-{r}" for r in range(arguments.runs)]
        for r, folder in enumerate(runs):
            write_run(folder, arguments.questions, 0.45 + 0.04 * r, r + 1)
        files = [next(folder.glob("samples_*.jsonl")) for folder in runs]
        size = sum(path.stat().st_size for path in files) / 2**20
        print(f"{arguments.runs} runs × {arguments.questions:,} questions, {size:,.0f} MB of samples; "
              f"load {os.getloadavg()[0]:.1f}")
        base = call(json_pass, files, warmup=1)
        print(f"json.loads pass (floor):          {base}")
        options = [f"--lm-eval={folder}" for folder in runs]
        for label, extra in (("score --lm-eval --bootstrap 0", ["--bootstrap", "0"]),
                             ("score --lm-eval (B = 1000)", [])):
            ours = command(AUDITOR + ["score", "--quiet", *options, *extra], env={**os.environ, "AUDITOR_DEBUG": "1"})
            print(f"{label:<33} {ours}  {ours.ratio(base)} the floor (load {ours.load:.1f})")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
