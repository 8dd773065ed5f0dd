"""lm-evaluation-harness sample logs (``lm_eval --log_samples``) read as the audit's inputs.

Read stage. A run folder holds ``samples_<task>_<time>.jsonl`` (one JSON object per evaluated document and filter)
beside ``results_<time>.json`` (the run's figures and configuration); a RUN argument is such a folder or one samples
file. The schema, as lm-eval 0.4 writes it:

* every row has ``doc_id`` (the item), ``doc_hash``, ``target``, ``arguments``, ``filtered_resps``, ``metrics`` (the
  per-item metric names) and one key per metric with the item's value, and, since lm-eval PR #2025, ``filter``
  (rows are keyed by (``doc_id``, filter); an older log repeats a document once per filter, in filter order);
* a multiple-choice row has one ``[loglik, is_greedy]`` pair per choice in ``filtered_resps`` (strings in 0.4.13,
  numbers and booleans before) and one ``gen_args_<i>`` per choice whose ``arg_1`` is the target delimiter followed
  by the choice's text. As the harness's ``ConfigurableTask.process_results`` computes them, the prediction of
  ``acc`` is the first choice of highest log-likelihood, that of ``acc_norm`` the first of highest log-likelihood
  per character of the choice's text (the delimiter stripped), and the gold is ``target``: a choice index (a number
  or its digits) or a choice's text;
* a generation row carries the extracted answer and the per-item metric (``exact_match``, ...) of its filter.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from auditor.errors import InputError, UsageError
from auditor.io.jsonl import json_lines
from auditor.options import parse_system_argument

__all__ = ["LmEvalRun", "read_runs", "read_run", "MULTIPLE_CHOICE", "GENERATION"]

MULTIPLE_CHOICE = "multiple_choice"
GENERATION = "generation"

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl$")
#: The harness's default ``target_delimiter`` (a task config may set another).
DEFAULT_DELIMITER = " "


@dataclass(frozen=True)
class LmEvalRun:
    """One model's samples of one task under one filter, in ``doc_id`` order.

    Attributes
    ----------
    name : the system's name (given, else ``pretrained=`` of ``config.model_args``, else the run folder).
    path : the samples file; ``sha256`` the SHA-256 of its bytes; ``results`` the results file beside it (or None).
    task, filter, kind : the task, the filter kept and :data:`MULTIPLE_CHOICE` or :data:`GENERATION`.
    doc_ids : int array (N,); ``doc_hashes`` the rows' ``doc_hash`` (None where a row has none); ``lines`` the
        1-based line of each kept row.
    gold, prediction, prediction_norm : int arrays (N,) of choice indices (multiple choice; None otherwise): the
        gold, the ``acc`` prediction (highest log-likelihood) and the ``acc_norm`` one (per character).
    n_choices : int array (N,) of each item's number of choices (multiple choice).
    logged : per-item metric -> float array (N,), as the rows log them (``acc``, ``acc_norm``, ``exact_match``...).
    figures : ``"metric,filter"`` -> the results file's figure for this task (empty without a results file).
    skipped_lines : blank lines of the samples file; rows of other filters.
    """

    name: str
    path: str
    sha256: str
    results: str | None
    task: str
    filter: str
    kind: str
    doc_ids: np.ndarray
    doc_hashes: tuple[str | None, ...]
    lines: np.ndarray
    gold: np.ndarray | None
    prediction: np.ndarray | None
    prediction_norm: np.ndarray | None
    n_choices: np.ndarray | None
    logged: Mapping[str, np.ndarray]
    figures: Mapping[str, float] = field(default_factory=dict)
    skipped_lines: Mapping[str, int] = field(default_factory=dict)
    #: Each item's cluster, the ``doc`` field named by ``--lm-eval-cluster`` (None without it).
    clusters: tuple[str, ...] | None = None

    @property
    def n_items(self) -> int:
        return int(self.doc_ids.shape[0])


def read_runs(arguments: Sequence[str], task: str | None = None, filter_name: str | None = None,
              cluster_field: str | None = None) -> list[LmEvalRun]:
    """``[NAME=]RUN`` arguments -> one :class:`LmEvalRun` each, checked to hold the same items (same ``doc_id``s and,
    where logged, the same ``doc_hash``es) and to have distinct names; ``cluster_field``: the ``doc`` field read as
    each item's cluster (from the first run)."""
    if not arguments:
        raise UsageError("--lm-eval needs at least one RUN (a run folder or a samples_<task>_<time>.jsonl file)")
    runs = [read_run(path, name, task, filter_name, cluster_field if i == 0 else None)
            for i, (name, path) in enumerate(map(run_argument, arguments))]
    seen: dict[str, str] = {}
    for run in runs:
        if run.name in seen:
            raise UsageError(f"--lm-eval: two runs are named {run.name!r} ({seen[run.name]} and {run.path}); name them "
                             "NAME=RUN")
        seen[run.name] = run.path
    check_paired(runs)
    return runs


def run_argument(argument: str) -> tuple[str | None, str]:
    """``[NAME=]RUN`` -> (NAME or None, RUN); an existing path is a RUN even when it holds ``=``."""
    if "=" in argument and not Path(argument).exists():
        return parse_system_argument(argument)
    return None, argument


def check_paired(runs: Sequence[LmEvalRun]) -> None:
    """Refuse runs that are not over the same documents: the first ``doc_id`` one lacks, or the first whose
    ``doc_hash`` differs, is named."""
    first = runs[0]
    for run in runs[1:]:
        if run.task != first.task:
            raise InputError(f"{run.path}: task {run.task!r}, but {first.path} is task {first.task!r}; runs compared "
                             "must be of one task")
        missing = np.setdiff1d(first.doc_ids, run.doc_ids)
        extra = np.setdiff1d(run.doc_ids, first.doc_ids)
        if missing.size or extra.size:
            which, where, other = (int(missing[0]), run.path, first.path) if missing.size else \
                (int(extra[0]), first.path, run.path)
            raise InputError(f"{where}: no row for doc_id {which}, which {other} has; runs must hold the same "
                             "documents to be compared item by item")
        if run.doc_hashes == first.doc_hashes:  # both in doc_id order, the same doc_ids
            continue
        for doc_id, a, b, line in zip(first.doc_ids, first.doc_hashes, run.doc_hashes, run.lines):
            if a is not None and b is not None and a != b:
                raise InputError(f"{run.path} line {int(line)}: doc_id {int(doc_id)} has doc_hash {b[:12]}…, but "
                                 f"{first.path} has {a[:12]}…: the runs were not over the same documents")


def find_files(run: str, task: str | None) -> tuple[Path, Path | None]:
    """The samples file of ``task`` in run folder ``run`` (or ``run`` itself) and the results file of the same time."""
    path = Path(run)
    if not path.exists():
        raise InputError(f"{run}: no such file or folder (expected an lm-eval run folder or a samples file)")
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if _SAMPLES.match(p.name))
        if not found:
            raise InputError(f"{run}: no samples_<task>_<time>.jsonl file (run lm_eval with --log_samples)")
        tasks = sorted({_SAMPLES.match(p.name)["task"] for p in found})
        if task is None and len(tasks) > 1:
            raise UsageError(f"{run} holds the samples of several tasks ({', '.join(tasks)}); choose one with "
                             "--lm-eval-task")
        chosen = [p for p in found if _SAMPLES.match(p.name)["task"] == (task or tasks[0])]
        if not chosen:
            raise UsageError(f"{run}: no samples of task {task!r}; it holds {', '.join(tasks)}")
        if len(chosen) > 1:
            raise InputError(f"{run}: {len(chosen)} samples files of task {task or tasks[0]!r} "
                             f"({', '.join(p.name for p in chosen)}); give the file itself")
        path = chosen[0]
    match = _SAMPLES.match(path.name)
    if match is None:
        raise InputError(f"{run}: not a samples file (expected a name samples_<task>_<time>.jsonl)")
    if task is not None and match["task"] != task:
        raise UsageError(f"{run}: the samples of task {match['task']!r}, not of --lm-eval-task {task!r}")
    results = path.with_name(f"results_{match['time']}.json")
    return path, results if results.is_file() else None


def read_results(path: Path | None) -> dict[str, Any]:
    """The results file as a dict (empty without one); refused when it is not a JSON object."""
    if path is None:
        return {}
    try:
        document = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{path}: not a JSON results file ({error})") from None
    if not isinstance(document, dict):
        raise InputError(f"{path}: expected a JSON object (lm-eval's results file)")
    return document


def model_name(results: Mapping[str, Any], samples: Path) -> str:
    """``pretrained=`` of the results' ``config.model_args`` (a string ``k=v,...`` or a dict), else the run folder."""
    arguments = (results.get("config") or {}).get("model_args")
    if isinstance(arguments, str):
        parts = dict(part.split("=", 1) for part in arguments.split(",") if "=" in part)
        arguments = parts
    if isinstance(arguments, Mapping) and isinstance(arguments.get("pretrained"), str) and arguments["pretrained"]:
        return arguments["pretrained"].strip()
    return samples.parent.name or samples.stem


def read_run(run: str, name: str | None = None, task: str | None = None, filter_name: str | None = None,
             cluster_field: str | None = None) -> LmEvalRun:
    """One RUN (folder or samples file) -> :class:`LmEvalRun` of its task under its filter (and, with
    ``cluster_field``, each item's ``doc[cluster_field]`` as its cluster)."""
    samples, results_path = find_files(run, task)
    results = read_results(results_path)
    task_name = _SAMPLES.match(samples.name)["task"]
    raw = samples.read_bytes()
    rows, lines, blank = _parse_rows(raw, samples)
    filters = _filters_of(rows, lines, samples, results, task_name)
    names = list(dict.fromkeys(filters))
    if filter_name is None and len(names) > 1:
        raise UsageError(f"{samples}: task {task_name!r} has rows under several filters ({', '.join(names)}); "
                         "choose one with --lm-eval-filter")
    chosen = filter_name if filter_name is not None else names[0]
    if chosen not in names:
        raise UsageError(f"{samples}: no rows under filter {chosen!r}; it has {', '.join(names)}")
    keep = [i for i, f in enumerate(filters) if f == chosen]
    rows = [rows[i] for i in keep]
    lines = np.asarray([lines[i] for i in keep], dtype=np.int64)
    doc_ids = np.asarray([_doc_id(row, samples, line) for row, line in zip(rows, lines)], dtype=np.int64)
    order = np.argsort(doc_ids, kind="stable")
    rows, lines, doc_ids = [rows[i] for i in order], lines[order], doc_ids[order]
    repeated = np.flatnonzero(np.diff(doc_ids) == 0)
    if repeated.size:
        raise InputError(f"{samples} line {int(lines[repeated[0] + 1])}: doc_id {int(doc_ids[repeated[0]])} appears "
                         f"twice under filter {chosen!r}")
    config = (results.get("configs") or {}).get(task_name) or {}
    multiple_choice = all(_is_choice_row(row) for row in rows) and bool(rows)
    if multiple_choice:
        delimiter = config.get("target_delimiter", DEFAULT_DELIMITER)
        gold, prediction, norm, n_choices = _choices(rows, lines, samples, delimiter)
    else:
        gold = prediction = norm = n_choices = None
    metrics = list(dict.fromkeys(m for row in rows for m in (row.get("metrics") or ()) if isinstance(m, str)))
    logged = {metric: _logged(rows, lines, samples, metric) for metric in metrics if metric in rows[0]}
    if not multiple_choice and not logged:
        raise InputError(f"{samples}: rows have neither one [loglik, is_greedy] pair per choice nor a per-item metric")
    figures = {key: float(value) for key, value in ((results.get("results") or {}).get(task_name) or {}).items()
               if "," in key and isinstance(value, (int, float)) and not isinstance(value, bool)}
    skipped = {"blank": blank} if blank else {}
    if len(keep) < len(filters):
        skipped["other filters"] = len(filters) - len(keep)
    run = LmEvalRun(
        name=name or model_name(results, samples), path=str(samples), sha256=hashlib.sha256(raw).hexdigest(),
        results=str(results_path) if results_path else None, task=task_name, filter=chosen,
        kind=MULTIPLE_CHOICE if multiple_choice else GENERATION, doc_ids=doc_ids,
        doc_hashes=tuple(row.get("doc_hash") if isinstance(row.get("doc_hash"), str) else None for row in rows),
        lines=lines, gold=gold, prediction=prediction, prediction_norm=norm, n_choices=n_choices, logged=logged,
        figures=figures, skipped_lines=skipped,
        clusters=None if cluster_field is None else tuple(_cluster(row, cluster_field, samples, int(line))
                                                          for row, line in zip(rows, lines)))
    check_logged(run)
    return run


def _cluster(row: Mapping[str, Any], name: str, path: Path, line: int) -> str:
    """The cluster of a row: its ``doc[name]`` (text or number), refused when absent or empty."""
    doc = row.get("doc")
    value = doc.get(name) if isinstance(doc, dict) else None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
        found = "no 'doc' object" if not isinstance(doc, dict) else f"doc[{name!r}] is {value!r}"
        raise InputError(f"{path} line {line}: {found}; --lm-eval-cluster {name} needs a non-empty text or number as "
                         "every item's cluster")
    return str(value).strip()


def _parse_rows(raw: bytes, path: Path) -> tuple[list[dict[str, Any]], list[int], int]:
    """The JSON objects of a samples file, their 1-based lines, and the number of blank lines (read as every JSON
    Lines file is, :func:`auditor.io.jsonl.json_lines`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise InputError(f"{path} line {line}: not UTF-8 text") from None
    rows, kept, blank = json_lines(text, str(path), '{"doc_id": 0, "target": "1", "filtered_resps": [...], ...}')
    bad = next((i for i, row in enumerate(rows) if not isinstance(row, dict)), None)
    if bad is not None:
        raise InputError(f"{path} line {kept[bad] + 1}: expected a JSON object, found {type(rows[bad]).__name__}")
    if not rows:
        raise InputError(f"{path}: no rows")
    return rows, [i + 1 for i in kept], blank


def _filters_of(rows: list[dict[str, Any]], lines: list[int], path: Path, results: Mapping[str, Any],
                task: str) -> list[str]:
    """Each row's filter: its ``filter`` key, or, in logs written before lm-eval PR #2025 (no key), the j-th row of a
    document belongs to the task's j-th filter (the filters of the results file's ``"metric,filter"`` keys, in order;
    ``filter-<j>`` when the results file does not name them)."""
    if all("filter" in row for row in rows):
        bad = next((i for i, row in enumerate(rows) if not isinstance(row["filter"], str)), None)
        if bad is not None:
            raise InputError(f"{path} line {lines[bad]}: 'filter' is not a string")
        return [row["filter"] for row in rows]
    if any("filter" in row for row in rows):
        missing = next(i for i, row in enumerate(rows) if "filter" not in row)
        raise InputError(f"{path} line {lines[missing]}: no 'filter' key, though other rows have one")
    occurrence: dict[Any, int] = {}
    positions = []
    for row in rows:
        key = row.get("doc_id")
        positions.append(occurrence.get(key, 0))
        occurrence[key] = positions[-1] + 1
    if max(positions) == 0:
        return ["none"] * len(rows)
    named = list(dict.fromkeys(key.split(",", 1)[1] for key in ((results.get("results") or {}).get(task) or {})
                               if "," in key and "_stderr" not in key.split(",", 1)[0]))
    names = named if len(named) == max(positions) + 1 else [f"filter-{j + 1}" for j in range(max(positions) + 1)]
    return [names[j] for j in positions]


def _doc_id(row: Mapping[str, Any], path: Path, line: int) -> int:
    value = row.get("doc_id")
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{path} line {line}: 'doc_id' must be a whole number >= 0, found {value!r}")
    return value


def _is_choice_row(row: Mapping[str, Any]) -> bool:
    """A row whose ``filtered_resps`` is a list of lists, one [loglik, is_greedy] pair per choice (a generation row's
    is a list of texts); each pair is checked where it is read (:func:`_choices`)."""
    responses = row.get("filtered_resps")
    return type(responses) is list and len(responses) > 0 and type(responses[0]) is list


def _loglik(value: Any, path: Path, line: int) -> float:
    """A log-likelihood as logged: a number, or its text (lm-eval 0.4.13 writes strings)."""
    if isinstance(value, bool):
        raise InputError(f"{path} line {line}: a log-likelihood is {value!r}, expected a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{path} line {line}: a log-likelihood is {value!r}, expected a number") from None
    if math.isnan(number):
        raise InputError(f"{path} line {line}: a log-likelihood is NaN")
    return number


def _choice_texts(row: Mapping[str, Any], n: int, delimiter: str, path: Path, line: int) -> list[str]:
    """The choices' texts: each ``gen_args_<i>``'s continuation with the target delimiter stripped from its start."""
    arguments = row.get("arguments")
    texts = []
    for i in range(n):
        request = arguments.get(f"gen_args_{i}") if isinstance(arguments, dict) else None
        continuation = request.get("arg_1") if isinstance(request, dict) else None
        if not isinstance(continuation, str):
            raise InputError(f"{path} line {line}: no continuation text for choice {i} (arguments.gen_args_{i}.arg_1); "
                             "it is needed for acc_norm and for a target given as text")
        texts.append(continuation[len(delimiter):] if delimiter and continuation.startswith(delimiter)
                     else continuation)
    return texts


def _choices(rows: list[dict[str, Any]], lines: np.ndarray, path: Path,
             delimiter: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gold, ``acc`` and ``acc_norm`` predictions and the number of choices of each multiple-choice row: at once over
    every row (:func:`_choices_at_once`) when every row is as the harness writes it, else row by row
    (:func:`_choices_by_row`), which names the first row that is not."""
    found = _choices_at_once(rows, delimiter)
    return found if found is not None else _choices_by_row(rows, lines, path, delimiter)


#: ``arguments``' keys of a row with k choices, in the order the harness writes them.
_KEYS: dict[int, list[str]] = {}


def _choices_at_once(rows: list[dict[str, Any]],
                     delimiter: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_choices` vectorised over rows; None when any row needs :func:`_choices_by_row` (a target that is not
    an index in digits, a log-likelihood that is not a number or its text, a missing or empty continuation...)."""
    try:
        targets = [row["target"] for row in rows]
        if not all(type(target) is str and target.isdigit() and target.isascii() for target in targets):
            return None
        ks = np.fromiter((len(row["filtered_resps"]) for row in rows), dtype=np.int64, count=len(rows))
        if not all(type(pair) is list and len(pair) == 2 for row in rows for pair in row["filtered_resps"]):
            return None
        values = [pair[0] for row in rows for pair in row["filtered_resps"]]
        if any(type(value) is bool for value in values):
            return None
        logliks = np.array(values, dtype=float)
        texts = []
        for row, k in zip(rows, ks.tolist()):
            arguments = row["arguments"]
            if list(arguments) != _KEYS.setdefault(k, [f"gen_args_{i}" for i in range(k)]):
                return None
            texts.extend(request["arg_1"] for request in arguments.values())
        lengths = np.fromiter(map(len, texts), dtype=float, count=len(texts))
        if delimiter:
            starts = np.fromiter(map(str.startswith, texts, [delimiter] * len(texts)), dtype=bool, count=len(texts))
            lengths -= len(delimiter) * starts
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    gold = np.array(targets, dtype=np.int64) if targets else np.zeros(0, np.int64)
    if np.isnan(logliks).any() or (lengths == 0).any() or (gold >= ks).any() or logliks.shape != lengths.shape:
        return None
    offsets = np.repeat(np.cumsum(ks) - ks, ks)
    row_of = np.repeat(np.arange(len(rows)), ks)
    padded = np.full((len(rows), int(ks.max())), -np.inf)
    padded[row_of, np.arange(logliks.shape[0]) - offsets] = logliks
    prediction = padded.argmax(axis=1)
    padded[row_of, np.arange(logliks.shape[0]) - offsets] = logliks / lengths
    return gold, prediction, padded.argmax(axis=1), ks


def _choices_by_row(rows: list[dict[str, Any]], lines: np.ndarray, path: Path,
                    delimiter: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_choices` one row at a time, naming the line of the first row that cannot be read."""
    n = len(rows)
    gold = np.empty(n, dtype=np.int64)
    prediction = np.empty(n, dtype=np.int64)
    norm = np.empty(n, dtype=np.int64)
    n_choices = np.empty(n, dtype=np.int64)
    for index, (row, line) in enumerate(zip(rows, lines)):
        line = int(line)
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in row["filtered_resps"]):
            raise InputError(f"{path} line {line}: 'filtered_resps' must hold one [loglik, is_greedy] pair per choice")
        logliks = np.array([_loglik(pair[0], path, line) for pair in row["filtered_resps"]])
        k = logliks.shape[0]
        texts = _choice_texts(row, k, delimiter, path, line)
        lengths = np.array([float(len(text)) for text in texts])
        if (lengths == 0).any():
            raise InputError(f"{path} line {line}: choice {int(np.argmax(lengths == 0))} has empty text; acc_norm "
                             "divides by its length")
        gold[index] = _gold_index(row.get("target"), texts, path, line)
        prediction[index] = int(np.argmax(logliks))
        norm[index] = int(np.argmax(logliks / lengths))
        n_choices[index] = k
    return gold, prediction, norm, n_choices


def _gold_index(target: Any, texts: list[str], path: Path, line: int) -> int:
    """``target`` as a choice index: an index (number or digits) below the number of choices, or a choice's text."""
    if isinstance(target, list):
        raise InputError(f"{path} line {line}: 'target' is a list ({target!r}); tasks with several gold choices are "
                         "not audited as one label per item")
    if isinstance(target, bool) or target is None:
        raise InputError(f"{path} line {line}: 'target' is {target!r}; expected a choice index or a choice's text")
    if isinstance(target, int) or (isinstance(target, str) and target.strip().isdigit() and target.strip().isascii()):
        index = int(target)
        if index >= len(texts):
            raise InputError(f"{path} line {line}: 'target' {target!r} is no choice; the row has {len(texts)} choices "
                             "(a target of digits is a choice index, as the harness reads it)")
        return index
    if isinstance(target, str) and target in texts:
        return texts.index(target)
    raise InputError(f"{path} line {line}: 'target' {target!r} is neither a choice index nor one of the choices' texts")


def _logged(rows: list[dict[str, Any]], lines: np.ndarray, path: Path, metric: str) -> np.ndarray:
    """The per-item values of ``metric`` as the rows log them (numbers or booleans)."""
    values = [row.get(metric) for row in rows]
    kinds = set(map(type, values))
    if kinds <= {int, float, bool}:
        array = np.array(values, dtype=float)
        if not np.isnan(array).any():
            return array
    bad = next(i for i, value in enumerate(values)
               if type(value) not in (int, float, bool) or (type(value) is float and math.isnan(value)))
    raise InputError(f"{path} line {int(lines[bad])}: per-item {metric!r} is {values[bad]!r}, expected a number")


#: The predictions ``--lm-eval-view`` may audit: ``acc`` (highest log-likelihood), ``acc_norm`` (per character), both.
VIEWS = ("acc", "acc_norm", "both")


def check_logged(run: LmEvalRun) -> None:
    """Refuse a multiple-choice run whose logged per-item ``acc``/``acc_norm`` differs from the prediction read here:
    the task scores its own way (a custom ``process_results``), and its prediction cannot be recovered."""
    for metric, prediction in (("acc", run.prediction), ("acc_norm", run.prediction_norm)):
        if metric not in run.logged or prediction is None:
            continue
        differs = np.flatnonzero((prediction == run.gold).astype(float) != run.logged[metric])
        if differs.size:
            line = int(run.lines[differs[0]])
            rule = "log-likelihood" if metric == "acc" else "log-likelihood per character"
            raise InputError(f"{run.path} line {line}: the row logs {metric} = {run.logged[metric][differs[0]]:g}, but "
                             f"the choice of highest {rule} is {int(prediction[differs[0]])} against target "
                             f"{int(run.gold[differs[0]])}; the task scores its own way, so its predictions cannot be "
                             "read from the log")


def label_columns(runs: Sequence[LmEvalRun], view: str = "acc") -> tuple[Any, dict[str, Any], tuple[str, ...]]:
    """Multiple-choice runs -> the gold, one prediction column per run (and view) and the label order for the
    classification audit: items are ``doc_id``s, classes are answer positions (``0`` … ``k-1``, the harness's target
    index), in numeric order, those that gold or a prediction uses."""
    from auditor.io.column import LabelColumn

    if view not in VIEWS:
        raise UsageError(f"--lm-eval-view must be one of {', '.join(VIEWS)}, not {view!r}")
    generation = [run for run in runs if run.kind != MULTIPLE_CHOICE]
    if generation:
        raise UsageError(f"{generation[0].path}: task {generation[0].task!r} is not multiple choice")
    first = runs[0]
    for run in runs:
        gold = run.gold[np.searchsorted(run.doc_ids, first.doc_ids)]
        differs = np.flatnonzero(gold != first.gold)
        if differs.size:
            raise InputError(f"{run.path}: doc_id {int(first.doc_ids[differs[0]])} has target {int(gold[differs[0]])}, "
                             f"but {first.path} has {int(first.gold[differs[0]])}")

    def column(run: LmEvalRun, positions: np.ndarray) -> LabelColumn:
        import pyarrow as pa

        used, codes = np.unique(positions, return_inverse=True)
        return LabelColumn(run.path, codes.astype(np.int64), tuple(str(i) for i in used),
                           pa.array(run.doc_ids.astype(str)), run.lines, run.sha256, "jsonl", dict(run.skipped_lines))

    predictions: dict[str, tuple[LmEvalRun, np.ndarray]] = {}
    for run in runs:
        if view in ("acc", "both"):
            predictions[run.name] = (run, run.prediction)
        if view in ("acc_norm", "both"):
            predictions[run.name if view == "acc_norm" else f"{run.name} [acc_norm]"] = (run, run.prediction_norm)
    systems = {name: column(run, positions) for name, (run, positions) in predictions.items()}
    used = np.unique(np.concatenate([first.gold, *(positions for _, positions in predictions.values())]))
    return column(first, first.gold), systems, tuple(str(i) for i in used)


def outcome_values(runs: Sequence[LmEvalRun]) -> tuple[str, np.ndarray]:
    """Generation runs -> the per-item metric they log (the first of the rows' ``metrics``) and its (S, N) values,
    every run's items in the first run's ``doc_id`` order."""
    kinds = {run.kind for run in runs}
    if kinds != {GENERATION}:
        raise UsageError("--lm-eval: runs of one task are either all multiple choice or all generation; "
                         f"{runs[0].path} and the others differ")
    metric = next(iter(runs[0].logged))
    missing = next((run for run in runs if metric not in run.logged), None)
    if missing is not None:
        raise InputError(f"{missing.path}: no per-item {metric!r}, which {runs[0].path} logs")
    order = [np.searchsorted(run.doc_ids, runs[0].doc_ids) for run in runs]
    return metric, np.stack([run.logged[metric][index] for run, index in zip(runs, order)])
