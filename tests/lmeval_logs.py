"""lm-evaluation-harness run folders written by our own code, in the format lm-eval 0.4.13 logs
(``../shared/data/lmeval-dummy-format/SOURCE.md`` describes it): ``samples_<task>_<time>.jsonl`` beside
``results_<time>.json``. Each model's per-item ``acc``/``acc_norm`` and the results file's figures are computed here
the way the harness computes them, so the tests compare the audit with what the harness would log."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

import numpy as np

TIME = "2026-11-27T10-00-00.000000"


def questions(n: int, k: int = 4, subjects: int = 40, seed: int = 0, prefix: str = "") -> list[dict]:
    """``n`` multiple-choice questions with ``k`` choices of different lengths (each text starting with ``prefix``),
    in ``subjects`` subjects."""
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n):
        a, b = (int(x) for x in rng.integers(1, 500, size=2))
        right = a + b
        wrong = rng.choice(np.setdiff1d(np.arange(right - 50, right + 50), [right]), size=k - 1, replace=False)
        choices = [str(right)] + [str(int(w)) + " apples" * int(rng.integers(0, 2)) for w in wrong]
        order = rng.permutation(k)
        choices = [prefix + choices[j] for j in order]
        docs.append({"id": f"q-{i}", "subject": f"subject-{i % subjects}", "question": f"What is {a} + {b}?",
                     "choices": choices, "answer": int(np.flatnonzero(order == 0)[0])})
    return docs


def model_logliks(docs: Sequence[dict], accuracy: float, seed: int, first_bias: float = 0.0,
                  shared: np.ndarray | None = None) -> np.ndarray:
    """(n, k) log-likelihoods: the gold choice is highest with probability ``accuracy`` (``shared`` items, when given,
    are wrong for every model that shares them), else the first choice with probability ``first_bias``, else a random
    other choice."""
    rng = np.random.default_rng(seed)
    n, k = len(docs), len(docs[0]["choices"])
    logliks = -rng.uniform(1.0, 2.0, size=(n, k))
    for i, doc in enumerate(docs):
        right = rng.random() < accuracy and not (shared is not None and shared[i])
        if right:
            top = doc["answer"]
        elif rng.random() < first_bias:
            top = 0
        else:
            top = int(rng.choice([j for j in range(k) if j != doc["answer"]]))
        logliks[i, top] = -0.1 * rng.random()
    return logliks


def write_mc_run(folder: Path, task: str, docs: Sequence[dict], logliks: np.ndarray, model: str | None = None,
                 strings: bool = True, target_as_text: bool = False, delimiter: str = " ") -> Path:
    """A run folder with ``task``'s samples and results, as ``lm_eval --log_samples`` writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    rows, acc, acc_norm = [], [], []
    for doc_id, (doc, lls) in enumerate(zip(docs, logliks)):
        lengths = np.array([float(len(choice)) for choice in doc["choices"]])
        pred, pred_norm = int(np.argmax(lls)), int(np.argmax(lls / lengths))
        acc.append(float(pred == doc["answer"]))
        acc_norm.append(float(pred_norm == doc["answer"]))
        pairs = [[str(float(x)), "False"] if strings else [float(x), False] for x in lls]
        context = f"Question: {doc['question']}\nAnswer:"
        rows.append({
            "doc_id": doc_id, "doc": doc,
            "target": doc["choices"][doc["answer"]] if target_as_text else str(doc["answer"]),
            "arguments": {f"gen_args_{j}": {"arg_0": context, "arg_1": f"{delimiter}{choice}"}
                          for j, choice in enumerate(doc["choices"])},
            "resps": [[pair] for pair in pairs], "filtered_resps": pairs, "filter": "none",
            "metrics": ["acc", "acc_norm"],
            "doc_hash": hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest(),
            "prompt_hash": "0" * 64, "target_hash": "0" * 64, "acc": acc[-1], "acc_norm": acc_norm[-1]})
    samples = folder / f"samples_{task}_{TIME}.jsonl"
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    figures = {"acc,none": float(np.mean(acc)), "acc_stderr,none": float(np.std(acc, ddof=1) / np.sqrt(len(acc))),
               "acc_norm,none": float(np.mean(acc_norm)),
               "acc_norm_stderr,none": float(np.std(acc_norm, ddof=1) / np.sqrt(len(acc)))}
    write_results(folder, {task: figures}, model, {task: {"target_delimiter": delimiter}})
    return samples


def write_gen_run(folder: Path, task: str, docs: Sequence[dict], outcomes: dict[str, np.ndarray],
                  model: str | None = None, filter_key: bool = True) -> Path:
    """A generation task's run: one row per (doc, filter) with the per-item ``exact_match`` of that filter (filters in
    ``outcomes`` order, one block each); without ``filter_key`` the rows carry no ``filter`` (logs before lm-eval
    PR #2025)."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, values in outcomes.items():
        for doc_id, (doc, value) in enumerate(zip(docs, values)):
            row = {"doc_id": doc_id, "doc": doc, "target": str(doc["answer"]),
                   "arguments": {"gen_args_0": {"arg_0": doc["question"], "arg_1": {"until": ["\n\n"]}}},
                   "resps": [["answer"]], "filtered_resps": ["[invalid]" if not value else str(doc["answer"])],
                   "metrics": ["exact_match"], "doc_hash": hashlib.sha256(doc["id"].encode()).hexdigest(),
                   "exact_match": float(value)}
            if filter_key:
                row["filter"] = name
            rows.append(row)
    samples = folder / f"samples_{task}_{TIME}.jsonl"
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    figures = {}
    for name, values in outcomes.items():
        figures[f"exact_match,{name}"] = float(np.mean(values))
        figures[f"exact_match_stderr,{name}"] = float(np.std(values, ddof=1) / np.sqrt(len(values)))
    write_results(folder, {task: figures}, model, {})
    return samples


def write_results(folder: Path, results: dict, model: str | None, configs: dict) -> None:
    """``results_<time>.json`` (merged with one already there: one run folder may hold several tasks)."""
    path = folder / f"results_{TIME}.json"
    document = json.loads(path.read_text()) if path.exists() else {
        "results": {}, "configs": {}, "config": {"model": "hf", "model_args": f"pretrained={model}" if model else {}}}
    for task, figures in results.items():
        document["results"][task] = {"alias": task, **figures}
    document["configs"].update(configs)
    path.write_text(json.dumps(document), encoding="utf-8")
