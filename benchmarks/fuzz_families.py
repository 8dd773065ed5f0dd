"""Fuzz the input families of issues 19 and 37 through the command line, each against an oracle.

Run: ``python benchmarks/fuzz_families.py [--count 3000] [--seed 1] [--html-every 200] [--spark-every 40]``.
A fast deterministic slice runs in ``tests/test_fuzz_families.py``.

Families (each case knows its truth: the numbers, or that it must be refused):

- ``columns``: system files of several columns (``id``, a gold copy ``label``, ``prediction`` /
  ``pred`` / ``y_pred``, unknown extras) in CSV, TSV or JSON Lines: scored from the prediction
  column, or refused when two columns could be the prediction;
- ``quotes``: CSV with quoted labels (commas, doubled quotes), and a quote left open or a label
  over two lines (must be refused, naming the gold file);
- ``labels``: ``--labels`` in any order, with an unused label, a missing-value marker, a
  repeat, or a used label left out (the last three refused);
- ``claims``: scikit-learn ``classification_report`` text or ``output_dict`` JSON of random
  predictions (class names with spaces, support-0 classes, 2-4 digits), checked against the
  accuracy and macro F1 it prints (must be reproduced, no problem); a class left out (its
  ``micro avg`` row must hold); a class named twice (refused); a tampered summary row (a problem named);
- ``matrix``: confusion matrices with cells 0, 1, up to 10^30, single gold classes, ``NA``
  labels: accuracy exact, or refused (above 2^53, one gold class, a missing label);
- ``names``: labels and system names with U+2028/U+2029, markup, quotes, backslashes, bidi
  and control characters through ``report --format json,md,tex`` (every ``--html-every``-th
  run also html): written, with the right accuracy in audit.json;
- ``tagging``, ``translation``, ``dataset`` (memory and DuckDB; Spark every ``--spark-every``-th
  dataset case) and ``planner`` (``-o`` on the html runs): issue 37's routes, generated and checked
  in ``benchmarks/fuzz_routes.py`` (its docstring names each oracle).

Outcomes: correct, refused as expected, refused a valid input, silently wrong, internal error
(a traceback, an exit code other than 0 and 2, or an error that is not one ``auditor: error:``
line), hang (20 s alarm). The analyses after counting are switched off except on html runs.
"""
from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from click.testing import CliRunner

import auditor.pipeline
from auditor.cli import cli

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_routes  # noqa: E402 (beside this script, which is not a package)

FAMILIES = ("columns", "quotes", "labels", "claims", "matrix", "names", "tagging", "translation", "dataset", "planner")
#: Dataset cases run per engine (printed by :func:`main`).
ENGINE_RUNS: Counter = Counter()
#: The routes of issue 37: each case's result checked by its family's oracle (benchmarks/fuzz_routes.py).
CHECKS = {"tagging": fuzz_routes.check_tagging, "translation": fuzz_routes.check_translation,
          "planner": fuzz_routes.check_planner}
WORDS = ["pos", "neg", "neutral", "a b", "very good", "0", "1", "x,y", 'say "hi"', "ü", "#tag"]
HOSTILE = ["a\u2028b", "c\u2029d", "<script>x</script>", "{{x}}", "\\textbf{y}", "50%", "$x$", "e\u202ef",
           "it's", '"q"', "g\x1ch", "emoji\U0001F600", "tab\tin", "&amp;"]
MISSING = ["", "NA", "nan", "None", "null", "N/A", "-"]


class Hang(Exception):
    pass


@dataclass
class Case:
    """Files to write, the command line, and the truth: ``expect`` is "value" (``accuracy`` of
    ``system`` must be ``value``), "claims" (every claim reproduced, no problem), "problem"
    (a problem naming ``fragment``) or "error" (exit 2 naming ``fragment``)."""

    family: str
    variant: str
    files: dict[str, str | bytes] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)
    expect: str = "value"
    system: str = "S"
    value: float | None = None
    fragment: str = ""
    outdir: str | None = None
    truth: dict | None = None  # the oracle's figures (issue 37's families)
    human: dict | None = None  # translation: each system's mean human score


def _items(rng: random.Random, n: int, k: int, words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Ids, gold and predictions of n items over k distinct labels (every label in gold at least twice)."""
    labels = rng.sample(words, k)
    gold = [labels[i % k] for i in range(n)]
    rng.shuffle(gold)
    predicted = [g if rng.random() < 0.6 else rng.choice(labels) for g in gold]
    return [f"i{i}" for i in range(n)], gold, predicted


def _accuracy(gold: list[str], predicted: list[str]) -> float:
    return sum(g == p for g, p in zip(gold, predicted)) / len(gold)


def _csv_field(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') or text != text.strip() else text


def columns_case(rng: random.Random) -> Case:
    ids, gold, predicted = _items(rng, rng.randint(4, 12), rng.randint(2, 3), ["pos", "neg", "neu", "x"])
    fmt = rng.choice(["csv", "tsv", "jsonl"])
    prediction_names = rng.sample(["prediction", "pred", "y_pred", "predicted", "output"], rng.choice([1, 1, 1, 2]))
    columns = ["id", "label", *prediction_names] + rng.sample(["score", "text", "confidence"], rng.randint(0, 2))
    rng.shuffle(columns)
    rows = [{"id": i, "label": g, "score": "0.5", "text": "t", "confidence": "1",
             **{name: p for name in prediction_names}} for i, g, p in zip(ids, gold, predicted)]
    if fmt == "jsonl":
        body = "".join(json.dumps({c: row[c] for c in columns}) + "\n" for row in rows)
    else:
        sep = "," if fmt == "csv" else "\t"
        body = sep.join(columns) + "\n" + "".join(sep.join(row[c] for c in columns) + "\n" for row in rows)
    case = Case("columns", f"{fmt}:{','.join(columns)}", {"gold.csv": "id,label\n" + "".join(
        f"{i},{g}\n" for i, g in zip(ids, gold)), f"sys.{fmt}": body})
    case.argv = ["score", "@/gold.csv", f"S=@/sys.{fmt}"]
    if len(prediction_names) > 1:
        case.expect, case.fragment = "error", "could be the prediction"
    else:
        case.value = _accuracy(gold, predicted)
    return case


def quotes_case(rng: random.Random) -> Case:
    ids, gold, predicted = _items(rng, rng.randint(4, 10), 2, ["a,b", 'say "hi"', "plain", " padded", "x;y"])
    lines = ["id,label"] + [f"{i},{_csv_field(g)}" for i, g in zip(ids, gold)]
    variant = rng.choice(["ok", "ok", "open", "newline", "crlf"])
    case = Case("quotes", variant)
    if variant == "open":
        row = rng.randrange(1, len(lines))
        lines[row] = lines[row].split(",", 1)[0] + ',"' + lines[row].split(",", 1)[1].strip('"')
        case.expect, case.fragment = "error", f"gold.csv line {row + 1}"
    elif variant in ("newline", "crlf"):
        row = rng.randrange(1, len(lines))
        lines[row] = lines[row].split(",", 1)[0] + ',"two' + ("\r\n" if variant == "crlf" else "\n") + 'lines"'
        case.expect, case.fragment = "error", f"gold.csv line {row + 1}"
    case.files = {"gold.csv": "\n".join(lines) + "\n",
                  "sys.csv": "id,label\n" + "".join(f"{i},{_csv_field(p)}\n" for i, p in zip(ids, predicted))}
    case.argv = ["score", "@/gold.csv", "S=@/sys.csv"]
    if case.expect == "value":
        case.value = _accuracy([g.strip() for g in gold], [p.strip() for p in predicted])
    return case


def labels_case(rng: random.Random) -> Case:
    ids, gold, predicted = _items(rng, rng.randint(4, 10), rng.randint(2, 3), ["pos", "neg", "neu"])
    used = sorted(set(gold) | set(predicted))
    given = used + (["spare"] if rng.random() < 0.3 else [])
    variant = rng.choice(["ok", "ok", "missing", "repeat", "left out"])
    case = Case("labels", variant)
    if variant == "missing":
        given.insert(rng.randrange(len(given) + 1), rng.choice(MISSING))
        case.expect, case.fragment = "error", "--labels"
    elif variant == "repeat":
        given.append(rng.choice(used))
        case.expect, case.fragment = "error", "--labels"
    elif variant == "left out":
        given.remove(rng.choice(used))
        case.expect, case.fragment = "error", "not in --labels"
    rng.shuffle(given)
    case.files = {"gold.csv": "id,label\n" + "".join(f"{i},{g}\n" for i, g in zip(ids, gold)),
                  "sys.csv": "id,label\n" + "".join(f"{i},{p}\n" for i, p in zip(ids, predicted))}
    case.argv = ["score", "@/gold.csv", "S=@/sys.csv", "--labels", ",".join(given)]
    case.value = _accuracy(gold, predicted)
    return case


def claims_case(rng: random.Random) -> Case:
    from sklearn.metrics import classification_report, f1_score

    names = rng.sample(["bad", "ok", "very good", "so so", "n/a class", "x"], rng.randint(2, 4))
    _, gold, predicted = _items(rng, rng.randint(10, 60), len(names), names)
    extra = ["never seen"] if rng.random() < 0.3 else []
    labels = names + extra
    digits = rng.choice([2, 3, 4])
    accuracy = _accuracy(gold, predicted)
    macro = f1_score(gold, predicted, labels=labels, average="macro", zero_division=0)
    variant = rng.choice(["text", "text", "dict", "twice", "tampered", "subset"]) if not extra else rng.choice(
        ["text", "dict"])
    if variant == "subset" and len(names) > 2:  # a class left out: scikit-learn prints 'micro avg', not accuracy
        labels = names[:-1]
        macro = f1_score(gold, predicted, labels=labels, average="macro", zero_division=0)
    elif variant == "subset":
        variant = "text"
    case = Case("claims", variant + (" support-0" if extra else ""), expect="claims")
    if variant == "dict":
        report = classification_report(gold, predicted, labels=labels, output_dict=True, zero_division=0)
        case.files = {"table.json": json.dumps(report)}
    else:
        text = classification_report(gold, predicted, labels=labels, digits=digits, zero_division=0)
        lines = text.split("\n")
        if variant == "twice":
            lines.insert(3, lines[2])
            case.expect, case.fragment = "error", "twice"
        elif variant == "tampered":
            row = next(i for i, line in enumerate(lines) if line.strip().startswith("macro avg"))
            cells = lines[row].split()
            cells[2] = f"{(float(cells[2]) + 0.3) % 1:.{digits}f}"
            lines[row] = "   macro avg       " + "      ".join(cells[2:])
            case.expect, case.fragment = "problem", "'macro avg'"
        if rng.random() < 0.2:  # pasted through something that squeezes runs of spaces
            lines = [" ".join(line.split()) for line in lines]
            case.variant += " squeezed"
        case.files = {"table.json" if variant == "dict" else "table.txt": "\n".join(lines)}
    table = next(iter(case.files))
    claims = f"accuracy={100 * accuracy:.1f} macro_f1={100 * macro:.1f}"
    if variant == "subset":  # accuracy needs every class; the summary check must not blame 'micro avg'
        claims, case.expect, case.fragment = f"macro_f1={100 * macro:.1f}", "subset", "'micro avg'"
    case.argv = ["check-claim", claims, "--table", f"@/{table}", "--json"]
    return case


def matrix_case(rng: random.Random) -> Case:
    k = rng.randint(1, 4)
    labels = rng.sample(["a", "b", "c", "d", "e"], k)
    pools = [[0, 1, 2, 7, 40], [0, 1, 2 ** 52, 2 ** 53, 10 ** 30]]
    pool = rng.choice(pools)
    matrix = [[rng.choice(pool) for _ in range(k)] for _ in range(k)]
    variant = "plain"
    if rng.random() < 0.2:
        labels[rng.randrange(k)] = rng.choice(["NA", "nan", "None"])
        variant = "missing label"
    text = "," + ",".join(labels) + "\n" + "".join(f"{label}," + ",".join(map(str, row)) + "\n"
                                                  for label, row in zip(labels, matrix))
    case = Case("matrix", variant, {"m.csv": text}, ["score", "--confusion", "@/m.csv", "--json"])
    total = sum(map(sum, matrix))
    gold_classes = sum(1 for row in matrix if sum(row) > 0)
    if variant == "missing label":
        case.expect, case.fragment = "error", "missing label"
    elif total == 0:
        case.expect, case.fragment = "error", "every count is 0"
    elif max(map(max, matrix)) > 2 ** 53 or total > 2 ** 53:
        case.expect, case.fragment = "error", "2^53"
    elif gold_classes < 2:
        case.expect, case.fragment = "error", "at least two gold classes"
    else:
        case.system, case.value = "m", float(Fraction(sum(matrix[i][i] for i in range(k)), total))
    return case


def names_case(rng: random.Random, html: bool = False) -> Case:
    words = rng.sample(HOSTILE, 3)
    ids, gold, predicted = _items(rng, rng.randint(4, 8), rng.randint(2, 3), words)
    system = rng.choice(HOSTILE).replace("=", "") or "S"
    text = lambda labels: "".join(json.dumps({"id": i, "label": x}) + "\n" for i, x in zip(ids, labels))  # noqa: E731
    case = Case("names", "html" if html else "json,md,tex", {"gold.jsonl": text(gold), "sys.jsonl": text(predicted)},
                system=system, value=_accuracy(gold, predicted), outdir="out")
    case.argv = ["report", "@/gold.jsonl", f"{system}=@/sys.jsonl", "-o", "@/out", "--format",
                 "html,json" if html else "json,md,tex", "--bootstrap", "0"]
    return case


GENERATORS = {"columns": columns_case, "quotes": quotes_case, "labels": labels_case, "claims": claims_case,
              "matrix": matrix_case, "names": names_case,
              "tagging": lambda rng: fuzz_routes.tagging_case(rng, Case),
              "translation": lambda rng: fuzz_routes.translation_case(rng, Case)}


def make_case(family: str, rng: random.Random, html: bool, spark: bool) -> Case:
    """One case of ``family``: html runs report names as html and write the planner's pages; a dataset case
    runs in Spark when ``spark``, else in memory or DuckDB."""
    if family == "names" and html:
        return names_case(rng, True)
    if family == "dataset":
        return fuzz_routes.dataset_case(rng, Case, "spark" if spark else rng.choice(["memory", "duckdb"]))
    if family == "planner":
        return fuzz_routes.planner_case(rng, Case, pages=html)
    return GENERATORS[family](rng)


def _alarm(signum, frame):
    raise Hang()


def run_case(case: Case, directory: Path, timeout: int = 20):
    """Write the case's files under ``directory`` and run its command line (``@/`` stands for ``directory``)."""
    for name, content in case.files.items():
        (directory / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    argv = [a.replace("@/", f"{directory}/") if a.startswith("@/") or "=@/" in a else a for a in case.argv]
    if argv[0] == "score":
        argv += [flag for flag in ("--json", "--quiet") if flag not in argv] + ["--bootstrap", "0"]
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        return CliRunner().invoke(cli, argv)
    finally:
        signal.alarm(0)


def classify(case: Case, result, directory: Path) -> str:
    """One outcome (module doc) for a case's run."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "internal error"
    errors = [line for line in result.stderr.splitlines() if line.startswith("auditor: error:")]
    answered = case.family == "claims" and result.exit_code == 1 and not errors  # check-claim: a claim fails
    if result.exit_code != 0 and not answered:
        if result.exit_code != 2 or len(errors) != 1 or "unexpected" in errors[0] or "Traceback" in result.output:
            return "internal error"
        if case.expect == "error":
            return "refused as expected" if case.fragment in errors[0] else "refused, wrong message"
        return "refused a valid input"
    if case.expect == "error":
        return "silently wrong"
    if case.family == "claims":
        found = json.loads(result.stdout)
        if case.expect == "problem":
            return "correct" if any(case.fragment in p for p in found["problems"]) else "silently wrong"
        if case.expect == "subset":
            right = found["claims"][0]["named_reproduces"] and not any(case.fragment in p for p in found["problems"])
            return "correct" if right else "silently wrong"
        right = all(c["named_reproduces"] for c in found["claims"]) and not found["problems"]
        return "correct" if right else "silently wrong"
    if case.family == "planner":
        return "correct" if fuzz_routes.check_planner(case, fuzz_routes.read_plan(case, result, directory)) \
            else "silently wrong"
    audit = json.loads((directory / case.outdir / "audit.json").read_text() if case.outdir else result.stdout)
    if case.family in CHECKS:
        return "correct" if CHECKS[case.family](case, audit) else "silently wrong"
    value = audit["systems"][case.system]["metrics"]["accuracy"]["value"]
    return "correct" if abs(value - case.value) < 1e-12 else "silently wrong"


def run(count: int, seed: int, html_every: int = 0, families=FAMILIES, spark_every: int = 0):
    """Outcome counts, per-family counts and examples of bad outcomes for ``count`` cases (every
    ``spark_every``-th dataset case in Spark; 0: never)."""
    rng = random.Random(seed)
    outcomes: Counter = Counter()
    by_family: dict = defaultdict(Counter)
    examples: dict = defaultdict(list)
    real = auditor.pipeline.run_stages
    with tempfile.TemporaryDirectory() as root:
        for index in range(count):
            family = families[index % len(families)]
            html = bool(html_every) and family in ("names", "planner") and index % html_every < len(families)
            spark = family == "dataset" and bool(spark_every) and (index // len(families)) % spark_every == 0
            case = make_case(family, rng, html, spark)
            auditor.pipeline.run_stages = real if html and family == "names" else (lambda reads, wanted: {})
            directory = Path(root) / str(index)
            directory.mkdir()
            try:
                result = run_case(case, directory, 300 if spark else 120 if html else 20)
                outcome = classify(case, result, directory)
            except Hang:
                outcome, result = "hang", None
            finally:
                auditor.pipeline.run_stages = real
            outcomes[outcome] += 1
            by_family[family][outcome] += 1
            if family == "dataset":
                ENGINE_RUNS[case.variant.split()[0]] += 1
            if outcome not in ("correct", "refused as expected"):
                detail = "" if result is None else (repr(result.exception) if result.exception and not isinstance(
                    result.exception, SystemExit) else result.output.strip()[-240:])
                examples[outcome].append(f"#{index} {family} {case.variant}: {detail}")
    return outcomes, by_family, examples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--html-every", type=int, default=200, help="an html report every N cases (0: never)")
    parser.add_argument("--spark-every", type=int, default=40, help="a dataset case in Spark every N (0: never)")
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated families to run")
    parser.add_argument("--show", type=int, default=5)
    args = parser.parse_args()
    started = time.perf_counter()
    families = tuple(args.families.split(","))
    outcomes, by_family, examples = run(args.count, args.seed, args.html_every, families, args.spark_every)
    print(f"{sum(outcomes.values())} inputs in {time.perf_counter() - started:.0f} s, seed {args.seed}")
    for outcome in ("correct", "refused as expected", "refused, wrong message", "refused a valid input",
                    "silently wrong", "internal error", "hang"):
        print(f"  {outcome:<26} {outcomes.get(outcome, 0):6d}")
    for family in families:
        print(f"  {family:<10} " + ", ".join(f"{k}: {v}" for k, v in sorted(by_family[family].items())))
    if ENGINE_RUNS:
        print("  dataset cases by engine: " + ", ".join(f"{k}: {v}" for k, v in sorted(ENGINE_RUNS.items())))
    for outcome, lines in examples.items():
        print(f"{outcome} (first {args.show}):")
        for line in lines[:args.show]:
            print("   ", line.replace("\n", " | ")[:300])
    bad = sum(outcomes.get(o, 0) for o in ("silently wrong", "internal error", "hang", "refused a valid input",
                                           "refused, wrong message"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
