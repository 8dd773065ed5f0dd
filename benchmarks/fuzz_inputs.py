"""Fuzz ``auditor score --json --bootstrap 0`` with mutated and hostile inputs (issue 9).

Run: ``python benchmarks/fuzz_inputs.py [--count 3000] [--seed 1] [--full-every 100]``.

Each input is a small valid gold/systems set written in one format (TSV, CSV, whitespace
text, one column, JSON Lines, JSON array, Parquet), then changed by one mutation:

- *known truth*, the numbers must come out right: CRLF or CR line ends, a byte-order mark,
  blank lines and ``#`` comments before the items, trailing blank lines, shuffled system
  lines, padded fields, a header of known names, hashtag labels, labels that look like
  column names, control and separator characters inside labels;
- *known error*, the run must be refused: a missing-value marker as a label, a missing or
  repeated id, one gold class, a wrong number of fields, bytes that are not UTF-8;
- *unknown truth*: random byte flips, insertions and deletions (only crashes and hangs
  count against us).

Then hand-made hostile inputs: a directory, a FIFO, ``/dev/zero``, JSON nested 100k deep,
a 5,000-digit integer, a lone surrogate, a 3M-character label, 1,000 classes, UTF-16,
binary files, Parquet with list/struct labels or no label column, and more.

The CLI runs in this process through click's ``CliRunner`` with a 20 s alarm (a hang) and
a 4 GB address-space limit. The analyses after counting (baselines, properties, rankings)
are switched off except on every ``--full-every``-th input, since they cost about a second
each and do not read inputs. Prints counts by outcome: clean error (and how many of those
refused a valid input), success correct, success with unknown truth, silently wrong,
traceback, hang; then examples of each bad outcome.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import resource
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from click.testing import CliRunner

import auditor.pipeline
from auditor.cli import cli
from auditor.io.load import MISSING_LABELS

CLEAN = ["pos", "neg", "neutral", "OTHER", "ABUSE", "0", "1", "2", "yes", "no", "LABEL_0",
         "LABEL_1", "B-PER", "I-ORG", "O", "none", "Ü", "日本"]
TRICKY = ["#happy", "#sad", "label", "y", "class", "gold", "LABEL_2", "1.0", "x\x1cy",
          "z\u2028z", "d\x85e", "a,b", 'q"t', "it's", "[pos]", "{x}", "\\t", "ééé"]
MISSING = sorted(MISSING_LABELS - {""}) + ["", " ", "\x1c", "\x00"]
FORMATS = ["tsv", "csv", "txt", "one", "jsonl", "json", "parquet"]
SUFFIX = {"tsv": ".tsv", "csv": ".csv", "txt": ".txt", "one": ".txt", "jsonl": ".jsonl",
          "json": ".json", "parquet": ".parquet"}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


# ----------------------------------------------------------------------- cases

class Case:
    """Gold and system items, the format, and what the run must give."""

    def __init__(self, fmt, ids, gold, systems, header=False):
        self.fmt, self.ids, self.gold, self.systems, self.header = fmt, ids, gold, systems, header
        self.truth = "valid"       # "valid" | "error" | "unknown"
        self.transform = lambda v: v  # how the expected labels read (e.g. padded -> trimmed)
        self.orders = {name: list(range(len(ids))) for name in systems}
        self.mutation = "none"
        self.edits: list = []       # raw edits applied after writing: callables bytes -> bytes

    def expected(self):
        gold = [self.transform(v) for v in self.gold]
        systems = {n: [self.transform(v) for v in values] for n, values in self.systems.items()}
        labels = sorted(set(gold).union(*systems.values()))
        confusion = {}
        for name, values in systems.items():
            pairs = Counter(zip(gold, values))
            confusion[name] = [[pairs[(g, p)] for p in labels] for g in labels]
        return labels, confusion


def _serialise(case: Case, ids, labels, path: Path, header: bool, options: dict) -> None:
    fmt = case.fmt
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = {"id": ids, "label": labels} if options.get("ids", True) else {"label": labels}
        pq.write_table(pa.table(columns), path)
        return
    if fmt in ("jsonl", "json"):
        records = [{"id": i, "label": v} for i, v in zip(ids, labels)]
        if fmt == "json":
            path.write_text(json.dumps(records), encoding="utf-8")
            return
        lines = [json.dumps(r, ensure_ascii=options.get("ascii", True)) for r in records]
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if header:
            writer.writerow(options.get("names", ["id", "label"]))
        writer.writerows(zip(ids, labels))
        lines = buffer.getvalue().split("\n")[:-1]
    elif fmt == "one":
        lines = ([options.get("names", ["label"])[-1]] if header else []) + list(labels)
    else:
        sep = "\t" if fmt == "tsv" else " "
        pad = options.get("pad", "")
        lines = ([sep.join(options.get("names", ["id", "label"]))] if header else []) + [
            f"{pad}{i}{pad}{sep}{pad}{v}{pad}" for i, v in zip(ids, labels)]
    lines = options.get("before", []) + lines + options.get("after", [])
    newline = options.get("newline", "\n")
    data = (newline.join(lines) + newline).encode("utf-8", errors="surrogatepass")
    if options.get("bom"):
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)


def write_case(case: Case, directory: Path, options: dict) -> tuple[Path, dict[str, Path]]:
    gold = directory / f"gold{SUFFIX[case.fmt]}"
    _serialise(case, case.ids, case.gold, gold, case.header, options)
    systems = {}
    for name, labels in case.systems.items():
        order = case.orders[name]
        path = directory / f"{name}{SUFFIX[case.fmt]}"
        _serialise(case, [case.ids[i] for i in order], [labels[i] for i in order], path,
                   case.header, options)
        systems[name] = path
    for edit in case.edits:
        edit(gold, systems)
    return gold, systems


def base_case(rng: random.Random) -> Case:
    fmt = rng.choice(FORMATS)
    n = rng.randint(3, 40)
    k = rng.randint(2, 5)
    pool = rng.sample(CLEAN, k)
    ids = [f"{rng.choice(['item', 'a', 'tw', '', '#'])}{i}{rng.choice(['', '_x', '-1'])}"
           for i in rng.sample(range(10 * n), n)]
    if fmt == "one":
        ids = [str(i) for i in range(n)]
    gold = [rng.choice(pool) for _ in range(n)]
    gold[0], gold[1] = pool[0], pool[1]  # at least two gold classes
    systems = {f"S{s}": [v if rng.random() < 0.7 else rng.choice(pool) for v in gold]
               for s in range(rng.randint(1, 3))}
    return Case(fmt, ids, gold, systems, header=rng.random() < 0.5)


def mutate(case: Case, rng: random.Random) -> dict:
    """Apply one mutation; returns the writer's options."""
    text_formats = ("tsv", "csv", "txt", "one")
    options: dict = {}
    choices = ["none", "crlf", "cr", "bom", "preamble", "trailing_blank", "shuffle", "pad",
               "header_names", "hashtags", "name_like_labels", "inner_chars", "commented_header",
               "missing", "one_gold_class", "drop_id", "repeat_id", "extra_field", "latin1",
               "bytes", "bytes", "bytes", "first_row_names", "unicode_ids"]
    mutation = rng.choice(choices)
    case.mutation = mutation
    fmt = case.fmt
    if mutation == "crlf" and fmt in text_formats + ("jsonl",):
        options["newline"] = "\r\n"
    elif mutation == "cr" and fmt in text_formats:
        options["newline"] = "\r"
    elif mutation == "bom" and fmt != "parquet":
        options["bom"] = True
    elif mutation == "preamble" and fmt in text_formats:
        options["before"] = ["# generated", "", "#", "#\tcomment", ""]
    elif mutation == "trailing_blank" and fmt in text_formats + ("jsonl",):
        options["after"] = ["", "  ", ""]
    elif mutation == "shuffle" and fmt != "one":
        for name in case.orders:
            rng.shuffle(case.orders[name])
    elif mutation == "pad" and fmt in ("tsv", "txt"):
        options["pad"] = " " if fmt == "tsv" else "  "
    elif mutation == "header_names" and fmt in ("tsv", "csv", "txt"):
        case.header = True
        options["names"] = rng.choice([["ID", "Label"], ["item_id", "gold_label"],
                                       ["id", "prediction"], ["tweet_id", "y"], ["guid", "pred"]])
    elif mutation == "hashtags":
        case.gold = ["#" + v for v in case.gold]
        case.systems = {n: ["#" + v for v in vs] for n, vs in case.systems.items()}
    elif mutation == "name_like_labels":
        names = rng.sample(["label", "y", "class", "LABEL_2", "gold", "id", "target"], 2)
        mapping = dict(zip(sorted(set(case.gold))[:2], names))
        case.gold = [mapping.get(v, v) for v in case.gold]
        case.systems = {n: [mapping.get(v, v) for v in vs] for n, vs in case.systems.items()}
        if not case.header and fmt in ("tsv", "csv", "txt", "one") and (
                case.gold[0] in names and fmt == "one" and case.gold[0] in ("label", "gold")
                or fmt != "one" and case.ids[0] in ("id",)):
            case.truth = "unknown"  # the documented header rule applies to this first row
    elif mutation == "inner_chars":
        extra = rng.choice(TRICKY)
        case.gold[2 % len(case.gold)] = extra
        if fmt in ("txt", "one") and (" " in extra or "\t" in extra):
            case.truth = "unknown"
        if fmt == "tsv" and '"' in extra:
            case.truth = "unknown"  # TSV fields may be quoted: a quote changes the field
        if fmt == "txt" and extra.startswith("#") and case.gold.index(extra) == 0:
            case.truth = "unknown"
    elif mutation == "commented_header" and fmt in ("tsv", "txt"):
        case.header = False
        sep = "\t" if fmt == "tsv" else " "
        options["before"] = ["# data", f"#id{sep}label"]
    elif mutation == "missing":
        value = rng.choice(MISSING)
        name = rng.choice(["gold"] + list(case.systems))
        target = case.gold if name == "gold" else case.systems[name]
        target[rng.randrange(len(target))] = value
        case.truth = "error"
        if value in ("", " ") and fmt in ("txt", "one", "tsv", "csv") and (
                fmt in ("txt",) or (fmt == "one" and name)):
            case.truth = "error"  # a blank field or line: too few fields, or a blank line
    elif mutation == "one_gold_class":
        case.gold = [case.gold[0]] * len(case.gold)
        case.truth = "error"
    elif mutation in ("drop_id", "repeat_id") and fmt not in ("one",):
        name = rng.choice(list(case.systems))
        order = case.orders[name]
        if mutation == "drop_id":
            order.pop(rng.randrange(len(order)))
        else:
            order.insert(rng.randrange(len(order)), order[0])
        case.truth = "error"
    elif mutation == "extra_field" and fmt in ("tsv", "csv", "txt"):
        sep = {"tsv": b"\t", "csv": b",", "txt": b" "}[fmt]

        def edit(gold, systems, sep=sep):
            lines = gold.read_bytes().split(b"\n")
            lines[len(lines) // 2] += sep + b"extra"
            gold.write_bytes(b"\n".join(lines))
        case.edits.append(edit)
        case.truth = "error"
    elif mutation == "latin1" and fmt in text_formats + ("jsonl",):
        def edit(gold, systems):
            gold.write_bytes(gold.read_bytes().replace(b"\n", b"\n\xe9", 1)
                             if b"\n" in gold.read_bytes()[:-1] else b"\xe9" + gold.read_bytes())
        case.edits.append(edit)
        case.truth = "error"
    elif mutation == "first_row_names" and fmt in ("tsv", "txt") and not case.header:
        case.ids[0] = "id"
        case.gold[0] = "label"
        case.truth = "unknown"  # documented: a first row `id label` is a header
    elif mutation == "unicode_ids" and fmt != "one":
        case.ids = [f"{i}\u00e9\u2028" if fmt not in ("txt",) else f"{i}\u00e9"
                    for i in case.ids]
    elif mutation == "bytes":
        seed = rng.randrange(1 << 30)

        def edit(gold, systems, seed=seed):
            local = random.Random(seed)
            path = local.choice([gold] + list(systems.values()))
            data = bytearray(path.read_bytes())
            for _ in range(local.randint(1, 4)):
                op = local.random()
                at = local.randrange(len(data) + 1)
                if op < 0.4 and data:
                    data[min(at, len(data) - 1)] = local.randrange(256)
                elif op < 0.7:
                    data[at:at] = bytes([local.choice(b'\n\t ,#"\x1c\r{}[]:0a\x00\xff')])
                elif data:
                    del data[min(at, len(data) - 1)]
            path.write_bytes(bytes(data))
        case.edits.append(edit)
        case.truth = "unknown"
    else:
        case.mutation = "none"
    # Documented format limits: labels with spaces in whitespace files, TSV quotes, etc.
    every = case.gold + [v for vs in case.systems.values() for v in vs]
    if fmt in ("txt", "one") and any(" " in v or "\t" in v or not v.strip() for v in every) \
            and case.truth == "valid":
        case.truth = "unknown"
    if fmt in ("tsv", "csv", "txt", "one") and mutation != "pad":
        case.transform = lambda v: v.strip(" \t")
    elif mutation == "pad":
        case.transform = lambda v: v.strip(" \t")
    return options


def hostile_cases(directory: Path) -> list[tuple[str, list[str], str]]:
    """(name, CLI arguments, truth) for hand-made hostile inputs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    good = directory / "good.tsv"
    good.write_text("a\tx\nb\ty\nc\tx\n", encoding="utf-8")

    def file(name: str, data: bytes) -> str:
        path = directory / name
        path.write_bytes(data)
        return str(path)

    cases = [
        ("directory", [str(directory), str(good)], "error"),
        ("dev_zero", [str(good), "S=/dev/zero"], "error"),
        ("deep_json", [file("deep.jsonl", b'{"id": "a", "label": ' + b"[" * 100_000
                            + b"]" * 100_000 + b"}\n"), str(good)], "error"),
        ("deep_json_array", [file("deep.json", b"[" * 100_000 + b"]" * 100_000), str(good)], "error"),
        ("big_int", [file("int.jsonl", b'{"id": "a", "label": ' + b"9" * 5000 + b"}\n"),
                     str(good)], "error"),
        ("lone_surrogate", [str(good), "S=" + file("sur.jsonl", b'{"id": "a", "label": "\\ud800"}\n'
                                                   b'{"id": "b", "label": "y"}\n{"id": "c", "label": "x"}\n')],
         "error"),
        ("label_3M", [str(good), "S=" + file("long.tsv", b"a\t" + b"x" * 3_000_000 + b"\nb\ty\nc\tx\n")],
         "error"),
        ("utf16", [file("u16.tsv", "a\tx\nb\ty\n".encode("utf-16")), str(good)], "error"),
        ("binary", [file("bin.tsv", bytes(range(256)) * 10), str(good)], "error"),
        ("empty", [file("empty.tsv", b""), str(good)], "error"),
        ("only_header", [file("hdr.tsv", b"id\tlabel\n"), str(good)], "error"),
        ("only_comments", [file("com.tsv", b"# a\n# b\n"), str(good)], "error"),
        ("nul_inside", [file("nul.tsv", b"a\tx\nb\ty\x00z\nc\tx\n"), str(good)], "error"),
        ("control_line", [file("ctl.txt", b"x\n\x1c\ny\n"), "S=" + file("ctl2.txt", b"x\ny\ny\n")], "error"),
        ("xlsx", [file("book.xlsx", b"PK\x03\x04junk"), str(good)], "error"),
        ("gzip", [file("g.tsv.gz", b"\x1f\x8b\x08junk"), str(good)], "error"),
        ("missing_file", [str(directory / "nope.tsv"), str(good)], "error"),
        ("same_name", [str(good), f"A={good}", f"A={good}"], "error"),
        ("reserved_name", [str(good), f"gold={good}"], "error"),
        ("empty_name", [str(good), f"={good}"], "error"),
    ]
    if hasattr(os, "mkfifo"):
        fifo = directory / "pipe.tsv"
        os.mkfifo(fifo)
        cases.append(("fifo", [str(good), f"S={fifo}"], "error"))
    for name, table in [("parquet_list", {"id": ["a", "b", "c"], "label": [["x"], ["y"], ["x"]]}),
                        ("parquet_struct", {"id": ["a", "b", "c"], "label": [{"v": 1}] * 3}),
                        ("parquet_score", {"id": ["a", "b", "c"], "score": [0.1, 0.2, 0.3]})]:
        path = directory / f"{name}.parquet"
        pq.write_table(pa.table(table), path)
        cases.append((name, [str(good), f"S={path}"], "error"))
    n = 3000
    gold = "".join(f"i{i}\tc{i % 1000}\n" for i in range(n)).encode()
    system = "".join(f"i{i}\tc{(i * 7) % 1000}\n" for i in range(n)).encode()
    cases.append(("classes_1000", [file("g1000.tsv", gold), "S=" + file("s1000.tsv", system)], "valid1000"))
    return cases


# ----------------------------------------------------------------------- running

def run_cli(arguments: list[str], timeout: int = 20):
    """(exit code, output, exception, stdout) of ``auditor score ... --json --bootstrap 0``;
    raises Hang after ``timeout`` seconds."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        result = CliRunner().invoke(cli, ["score", *arguments, "--json", "--bootstrap", "0",
                                          "--quiet"])
    finally:
        signal.alarm(0)
    return result


def classify(result, truth: str, expected=None) -> str:
    if isinstance(result.exception, Hang):
        return "hang"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "traceback"
    output = result.output
    if "Traceback" in output:
        return "traceback"
    if result.exit_code != 0:
        errors = [line for line in output.splitlines() if line.startswith("auditor: error:")]
        if result.exit_code == 2 and len(errors) == 1:
            return "clean error (refused a valid input)" if truth == "valid" else "clean error"
        return "traceback"  # an unclear failure: wrong exit code or not one message
    if truth == "error":
        return "silently wrong"
    if truth == "unknown" or expected is None:
        return "success, truth unknown"
    try:
        audit = json.loads(result.stdout)
    except ValueError:
        return "traceback"
    labels, confusion = expected
    n = sum(map(sum, next(iter(confusion.values()))))
    right = audit["labels"] == labels and audit["n_items"] == n and all(
        audit["systems"][name]["confusion"] == matrix
        and abs(audit["systems"][name]["metrics"]["accuracy"]["value"]
                - sum(matrix[i][i] for i in range(len(matrix))) / n) < 1e-12
        for name, matrix in confusion.items())
    return "success correct" if right else "silently wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=3000, help="mutated inputs (default 3000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--full-every", type=int, default=100,
                        help="run the full analyses on every N-th input (default 100; 0: never)")
    parser.add_argument("--show", type=int, default=5, help="examples shown per bad outcome")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, hard))
    real_analyses = auditor.pipeline.run_stages

    rng = random.Random(args.seed)
    outcomes: Counter = Counter()
    by_mutation: dict = defaultdict(Counter)
    examples: dict = defaultdict(list)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as root:
        for index in range(args.count):
            full = args.full_every and index % args.full_every == 0
            auditor.pipeline.run_stages = real_analyses if full else (lambda reads, wanted: {})
            case = base_case(rng)
            options = mutate(case, rng)
            directory = Path(root) / str(index)
            directory.mkdir()
            gold, systems = write_case(case, directory, options)
            try:
                result = run_cli([str(gold), *[f"{n}={p}" for n, p in systems.items()]])
                outcome = classify(result, case.truth,
                                   case.expected() if case.truth == "valid" else None)
            except Hang:
                outcome, result = "hang", None
            outcomes[outcome] += 1
            by_mutation[case.mutation][outcome] += 1
            if outcome in ("silently wrong", "traceback", "hang",
                           "clean error (refused a valid input)"):
                detail = "" if result is None else (repr(result.exception) if result.exception
                                                    and not isinstance(result.exception, SystemExit)
                                                    else result.output.strip()[-200:])
                examples[outcome].append(f"#{index} {case.fmt} {case.mutation} header={case.header}: {detail}")
        auditor.pipeline.run_stages = real_analyses
        hostile_dir = Path(root) / "hostile"
        hostile_dir.mkdir()
        for name, arguments, truth in hostile_cases(hostile_dir):
            expected = None
            if truth == "valid1000":
                truth = "valid"
                labels = sorted(f"c{i}" for i in range(1000))
                pairs = Counter((f"c{i % 1000}", f"c{(i * 7) % 1000}") for i in range(3000))
                expected = (labels, {"S": [[pairs[(g, p)] for p in labels] for g in labels]})
                auditor.pipeline.run_stages = lambda reads, wanted: {}
            try:
                result = run_cli(arguments, timeout=60)
                outcome = classify(result, truth, expected)
            except Hang:
                outcome, result = "hang", None
            except MemoryError:
                outcome, result = "traceback", None
            auditor.pipeline.run_stages = real_analyses
            outcomes[outcome] += 1
            by_mutation["hostile:" + name][outcome] += 1
            if outcome in ("silently wrong", "traceback", "hang", "clean error (refused a valid input)"):
                detail = "" if result is None else (repr(result.exception) if result.exception
                                                    and not isinstance(result.exception, SystemExit)
                                                    else result.output.strip()[-200:])
                examples[outcome].append(f"hostile {name}: {detail}")
    elapsed = time.perf_counter() - started
    total = sum(outcomes.values())
    print(f"{total} inputs ({args.count} mutated, {total - args.count} hand-made hostile) "
          f"in {elapsed:.0f} s, seed {args.seed}")
    for outcome in ("clean error", "clean error (refused a valid input)", "success correct",
                    "success, truth unknown", "silently wrong", "traceback", "hang"):
        print(f"  {outcome:<38} {outcomes.get(outcome, 0):6d}")
    print("by mutation (outcome: count):")
    for mutation in sorted(by_mutation):
        row = ", ".join(f"{k}: {v}" for k, v in sorted(by_mutation[mutation].items()))
        print(f"  {mutation:<24} {row}")
    for outcome, lines in examples.items():
        print(f"{outcome} (first {args.show}):")
        for line in lines[:args.show]:
            print("   ", line.replace("\n", " | ")[:300])
    bad = sum(outcomes.get(o, 0) for o in ("silently wrong", "traceback", "hang"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
