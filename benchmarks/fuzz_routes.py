"""Issue 37's families for ``benchmarks/fuzz_families.py``: the task kinds, the engines and the planner,
each case against an oracle that does not share auditor's code.

- ``tagging``: IOB1, IOB2 and IOBES files in every layout (TAB, spaces, CoNLL-2003's four columns, numbered
  UNER-like with ``#`` comments, conlleval's one file, tags alone), with tokens like ``#FollowFriday``, ``#``,
  numbers opening a CoNLL line, ``-DOCSTART-`` lines, no-break spaces, trailing TABs and spaces; a
  ``# sent_id`` line in a space-separated file must be refused. Oracle: conlleval.pl's counting (ported below
  from the script's published rules: tokens, right tags, chunk starts and ends) for IOB1/IOB2, seqeval's strict
  mode for IOBES (auditor's default rule for each).
- ``translation``: reference and system texts with ``--f-beta`` / ``--microf-k`` in and out of range and
  ``--human`` files (system or segment level, a score twice, odd numerals ``²`` ``٣`` ``1_0``). Oracle: sacrebleu
  for BLEU and chrF, a Counter-based MacroF/MicroF (Gowda et al. 2021) on sacrebleu's 13a tokens, the human
  scores' means by hand.
- ``dataset``: ``--dataset`` globs of two or three files (Parquet with a column typed int, float or text file
  to file; CSV; JSON Lines), unique ids typed file to file, a row without an id, columns differing only in case
  and duplicate headers (the last three refused), in the memory and
  DuckDB engines and, every ``spark_every``-th case, Spark. Oracle: pandas, file by file, labels as text.
- ``planner``: ``plan`` from pilot files where a system may always predict one class, with ``--json`` (and
  sometimes ``-o``). Oracle: pandas' accuracy difference; a metric undefined on the pilot has a null power.
"""
from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

TYPES = ["PER", "LOC", "ORG", "MISC"]
WORDS = ["EU", "rejects", "German", "call", "to", "boycott", "British", "lamb", "Peter", "Blackburn", "#FollowFriday",
         "#", "#1", "3", "1999", "42", "New\u00a0York", "a\u00a0b", "-DOCSTART-x", "O", "B-X"]


# --- tagging ------------------------------------------------------------------------------------------------

def _encode(chunks: list[tuple[int, int, str]], length: int, scheme: str) -> list[str]:
    """Tags of a sentence from its chunks (start, end exclusive, type) in ``scheme``."""
    tags = ["O"] * length
    for start, end, kind in chunks:
        for i in range(start, end):
            tags[i] = f"I-{kind}"
        if scheme == "IOB2":
            tags[start] = f"B-{kind}"
        elif scheme == "IOB1":
            previous = tags[start - 1] if start else "O"
            if previous != "O" and previous[2:] == kind:
                tags[start] = f"B-{kind}"
        else:  # IOBES
            if end - start == 1:
                tags[start] = f"S-{kind}"
            else:
                tags[start], tags[end - 1] = f"B-{kind}", f"E-{kind}"
    return tags


def _sentence(rng: random.Random, scheme: str) -> list[str]:
    length = rng.randint(2, 7)
    chunks, i = [], 0
    while i < length:
        if rng.random() < 0.4:
            end = min(length, i + rng.randint(1, 3))
            chunks.append((i, end, rng.choice(TYPES[:2] if rng.random() < 0.6 else TYPES)))
            i = end + (0 if rng.random() < 0.3 else 1)
        else:
            i += 1
    return _encode(chunks, length, scheme)


def _perturb(rng: random.Random, tags: list[str], scheme: str) -> list[str]:
    """A system's tags: gold's with some replaced by any tag of the scheme (ill-formed runs included)."""
    prefixes = {"IOB1": "BI", "IOB2": "BI", "IOBES": "BIES"}[scheme]
    return [t if rng.random() < 0.7 else rng.choice(["O"] + [f"{p}-{k}" for p in prefixes for k in TYPES[:3]])
            for t in tags]


def _split(tag: str) -> tuple[str, str]:
    """conlleval's ``^([^-]*)-(.*)$``: the prefix before the first hyphen and the type after it."""
    return tuple(tag.split("-", 1)) if "-" in tag else (tag, "")


_ENDS = {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O")}
_STARTS = {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E")}


def _chunk_end(prev: str, tag: str, prev_type: str, kind: str) -> bool:
    return (prev, tag) in _ENDS or (prev not in ("O", ".") and prev_type != kind) or prev in ("[", "]")


def _chunk_start(prev: str, tag: str, prev_type: str, kind: str) -> bool:
    return (prev, tag) in _STARTS or (tag not in ("O", ".") and prev_type != kind) or tag in ("[", "]")


def conlleval_counts(gold: list[list[str]], predicted: list[list[str]]) -> tuple[int, int, int, int, int]:
    """(tokens, right tags, gold chunks, predicted chunks, right chunks) as conlleval.pl counts them: every
    sentence followed by its boundary (a blank line: O O, not a token)."""
    tokens = right_tags = found_gold = found_guessed = right_chunks = 0
    last = ("O", "", "O", "")
    in_correct = False
    stream = [(g, p) for gs, ps in zip(gold, predicted) for g, p in [*zip(gs, ps), ("O", "O")]]
    boundaries = {sum(len(s) + 1 for s in gold[:i + 1]) - 1 for i in range(len(gold))}
    for position, (g, p) in enumerate(stream):
        boundary = position in boundaries
        correct, correct_type = _split(g)
        guessed, guessed_type = _split(p)
        last_correct, last_correct_type, last_guessed, last_guessed_type = last
        if in_correct:
            gold_end = _chunk_end(last_correct, correct, last_correct_type, correct_type)
            guess_end = _chunk_end(last_guessed, guessed, last_guessed_type, guessed_type)
            if gold_end and guess_end and last_guessed_type == last_correct_type:
                in_correct, right_chunks = False, right_chunks + 1
            elif gold_end != guess_end or guessed_type != correct_type:
                in_correct = False
        gold_start = _chunk_start(last_correct, correct, last_correct_type, correct_type)
        guess_start = _chunk_start(last_guessed, guessed, last_guessed_type, guessed_type)
        if gold_start and guess_start and guessed_type == correct_type:
            in_correct = True
        found_gold += gold_start
        found_guessed += guess_start
        if not boundary:
            tokens += 1
            right_tags += g == p
        last = (correct, correct_type, guessed, guessed_type)
    return tokens, right_tags, found_gold, found_guessed, right_chunks + in_correct


def _tag_oracle(gold: list[list[str]], predicted: list[list[str]], scheme: str) -> dict[str, float | None]:
    tokens, right_tags, found_gold, found_guessed, right = conlleval_counts(gold, predicted)
    if scheme == "IOBES":
        from seqeval.metrics.v1 import precision_recall_fscore_support
        from seqeval.scheme import IOBES

        p, r, f, s = precision_recall_fscore_support(gold, predicted, average="micro", mode="strict", scheme=IOBES,
                                                     zero_division=0)
        f1 = float(f)
    else:
        f1 = 2 * right / (found_gold + found_guessed) if found_gold + found_guessed else None
    return {"accuracy": right_tags / tokens, "span_micro_f1": f1, "n_items": tokens}


def _tag_lines(words: list[str], tags: list[str], layout: str, rng: random.Random, number: int) -> list[str]:
    if layout == "tags":
        return list(tags)
    if layout == "numbered":
        sep = rng.choice(["\t", " "])
        lines = [f"# sent_id = s{number}", "# text = " + " ".join(words)]
        return lines + [sep.join([str(i), w, t, "-", "-"]) for i, (w, t) in enumerate(zip(words, tags), 1)]
    if layout == "conll4":
        return [f"{w} {rng.choice(['NN', 'CD'])} {rng.choice(['B-NP', 'I-NP'])} {t}" for w, t in zip(words, tags)]
    sep = "\t" if layout == "tab" else " "
    trail = ["", "", "", sep, sep + sep] if layout in ("tab", "space") else [""]
    return [f"{w}{sep}{t}{rng.choice(trail)}" for w, t in zip(words, tags)]


def tagging_case(rng: random.Random, case_type):
    scheme = rng.choice(["IOB1", "IOB2", "IOB2", "IOBES"])
    gold = [_sentence(rng, scheme) for _ in range(rng.randint(1, 5))]
    if not any(t != "O" for s in gold for t in s):
        gold[0] = _encode([(0, 1, "PER")], len(gold[0]), scheme)
    predicted = [_perturb(rng, s, scheme) for s in gold]
    words = [[rng.choice(WORDS) for _ in s] for s in gold]
    if rng.random() < 0.3:  # a number opens the file's first line (CoNLL-2003's `3 CD B-NP O`)
        words[0][0] = rng.choice(["3", "1999", "1"])
    layout = rng.choice(["tab", "space", "conll4", "numbered", "conlleval", "tags"])
    docstart = layout in ("tab", "space", "conll4", "conlleval") and rng.random() < 0.4
    if docstart:  # -DOCSTART- is a token tagged O, as conlleval.pl counts it
        gold, predicted = [["O"]] + gold, [["O"]] + predicted
        words = [["-DOCSTART-"]] + words
    case = case_type("tagging", f"{scheme} {layout}{' docstart' if docstart else ''}")
    options = ["--scheme", "IOBES"] if scheme == "IOBES" else []
    if layout in ("numbered", "conll4") and rng.random() < 0.3:  # the tag column named: the same figures
        options += ["--tag-column", "3" if layout == "numbered" else "4"]
        case.variant += " --tag-column"
    if layout == "conlleval":
        lines = ["\n".join(f"{w} {'-X-' if w == '-DOCSTART-' else 'NN'} {g} {p}" for w, g, p in zip(*s))
                 for s in zip(words, gold, predicted)]
        case.files = {"both.txt": "\n\n".join(lines) + "\n"}
        case.argv = ["score", "--task", "tagging", "--conlleval", "S=@/both.txt", *options]
    else:
        def text(tags, own_layout):
            blocks = [_tag_lines(w, t, own_layout, rng, n) for n, (w, t) in enumerate(zip(words, tags), 1)]
            if docstart and own_layout == "conll4":
                blocks[0] = ["-DOCSTART- -X- -X- O"]
            if own_layout == "tab" and rng.random() < 0.5:  # comment lines: no TAB, so comments by the rule
                blocks = [[f"# sent_id = {n}"] + b for n, b in enumerate(blocks, 1)]
            return "\n\n".join("\n".join(b) for b in blocks) + "\n"

        system_layout = layout if rng.random() < 0.8 else "tags"
        case.files = {"gold.txt": text(gold, layout), "sys.txt": text(predicted, system_layout)}
        if layout == "space" and rng.random() < 0.15:
            case.files["gold.txt"] = "# sent_id = 1\n" + case.files["gold.txt"]
            case.expect, case.fragment = "error", "comment in a numbered file"
        case.argv = ["score", "--task", "tagging", "@/gold.txt", "S=@/sys.txt", *options]
    case.truth = _tag_oracle(gold, predicted, scheme)
    return case


def check_tagging(case, audit: dict) -> bool:
    values = {m: v["value"] for m, v in audit["systems"]["S"]["metrics"].items()}
    truth = case.truth
    if audit["n_items"] != truth["n_items"] or abs(values["accuracy"] - truth["accuracy"]) > 1e-12:
        return False
    if truth["span_micro_f1"] is None:
        return values["span_micro_f1"] is None
    return values["span_micro_f1"] is not None and abs(values["span_micro_f1"] - truth["span_micro_f1"]) < 1e-12


# --- translation --------------------------------------------------------------------------------------------

VOCABULARY = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "Haus", "über", "zoo", "!", "cats", "."]


def _macro_micro(references: list[list[str]], hypotheses: list[str], beta: float, k: float) -> tuple[float, float]:
    """Gowda et al.'s MacroF and MicroF with Counters: per segment clipped matches of each 13a token type
    (several references: each type's largest count among them, Counter's ``|``)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tokenize = Tokenizer13a()
    match, preds, refs = Counter(), Counter(), Counter()
    for *segments, hypothesis in zip(*references, hypotheses):
        r = Counter()
        for segment in segments:
            r |= Counter(tokenize(segment).split())
        h = Counter(tokenize(hypothesis).split())
        refs.update(r)
        preds.update(h)
        match.update({t: min(c, r[t]) for t, c in h.items() if t in r})
    types = set(refs) | set(preds)
    scores = {}
    for t in types:
        p = match[t] / preds[t] if preds[t] else 1.0
        r = match[t] / refs[t] if refs[t] else 1.0
        scores[t] = 0.0 if p == r == 0 else (1 + beta ** 2) * p * r / (beta ** 2 * p + r)
    weights = {t: refs[t] + k for t in types}
    return (sum(scores.values()) / len(types),
            sum(weights[t] * scores[t] for t in types) / sum(weights.values()))


def _segment(rng: random.Random) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(1, 7)))


def translation_case(rng: random.Random, case_type):
    import sacrebleu

    n = rng.randint(2, 6)
    reference = [_segment(rng) for _ in range(n)]
    systems = {name: [s if rng.random() < 0.4 else "" if rng.random() < 0.1 else _segment(rng) for s in reference]
               for name in ("A", "B", "C")}  # an empty segment now and then
    end = "\r\n" if rng.random() < 0.2 else "\n"  # CRLF files read as LF ones
    case = case_type("translation", "crlf" if end == "\r\n" else "plain", system="A")
    case.files = {"ref.txt": end.join(reference) + end, **{f"{s}.txt": end.join(t) + end
                                                             for s, t in systems.items()}}
    case.argv = ["score", "--task", "translation", "@/ref.txt", *[f"{s}=@/{s}.txt" for s in systems]]
    references = [reference]
    if rng.random() < 0.3:  # a second reference
        references.append([s if rng.random() < 0.5 else _segment(rng) for s in reference])
        case.files["ref2.txt"] = end.join(references[1]) + end
        case.argv += ["--reference", "@/ref2.txt"]
        case.variant += " 2 refs"
    beta, k = 1.0, 1.0
    option = rng.choice(["", "", "beta", "k", "human"])
    if option == "beta":
        text = rng.choice(["0.5", "2", "1e-3", "0", "-1", "1e300", "nan", "inf", "0.0"])
        case.argv += ["--f-beta", text]
        case.variant = f"--f-beta {text}"
        if not 1e-100 <= float(text) <= 1e100:
            case.expect, case.fragment = "error", "--f-beta"
        beta = float(text)
    elif option == "k":
        text = rng.choice(["1", "2.5", "100", "0", "0.5", "inf", "-3"])
        case.argv += ["--microf-k", text]
        case.variant = f"--microf-k {text}"
        if not 1 <= float(text) <= 1e100:
            case.expect, case.fragment = "error", "--microf-k"
        k = float(text)
    elif option == "human":
        _human(rng, case, n, list(systems))
    case.truth = {"bleu": sacrebleu.corpus_bleu(systems["A"], references).score / 100,
                  "chrf": sacrebleu.corpus_chrf(systems["A"], references).score / 100}
    if case.expect == "value":
        case.truth["macrof"], case.truth["microf"] = _macro_micro(references, systems["A"], beta, k)
    return case


def _human(rng: random.Random, case, n: int, systems: list[str]) -> None:
    """A ``--human`` file: system or segment level; sometimes a score twice or a line number in odd numerals."""
    level = rng.choice(["system", "segment"])
    rows = ([(s, None, round(rng.uniform(0, 100), 2)) for s in systems] if level == "system" else
            [(s, line, round(rng.uniform(0, 100), 2)) for s in systems for line in range(1, n + 1)])
    fault = rng.choice(["", "", "twice", "numeral", "number"])
    case.variant = f"--human {level}{' ' + fault if fault else ''}"
    texts = [[s, str(line), str(v)] if line else [s, str(v)] for s, line, v in rows]
    if fault == "twice":
        texts.insert(rng.randrange(len(texts) + 1), list(rng.choice(texts)[:-1]) + ["1.5"])
        case.expect, case.fragment = "error", "a second score"
    elif fault == "numeral" and level == "segment":
        rng.choice(texts)[1] = rng.choice(["\u00b2", "\u0663", "\uff11"])
        case.expect, case.fragment = "error", "is not a line number"
    elif fault:
        rng.choice(texts)[-1] = rng.choice(["1_0", "nAn", "\u0663", "0x1"])
        case.expect, case.fragment = "error", "is not a number"
    case.files["human.tsv"] = "".join("\t".join(t) + "\n" for t in texts)
    case.argv += ["--human", "@/human.tsv"]
    means = {s: sum(v for name, _, v in rows if name == s) / sum(1 for name, _, _ in rows if name == s)
             for s in systems}
    case.human = means


def check_translation(case, audit: dict) -> bool:
    values = {m: v["value"] for m, v in audit["systems"]["A"]["metrics"].items()}
    if any(abs(values[m] - case.truth[m]) > 1e-9 for m in case.truth):
        return False
    human = getattr(case, "human", None)
    return human is None or all(abs(audit["human"]["scores"][s] - v) < 1e-9 for s, v in human.items())


# --- datasets across a glob ---------------------------------------------------------------------------------

def _label_text(value) -> str:
    """The documented label text: integral numbers without ``.0``, other floats as Python writes them."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def dataset_case(rng: random.Random, case_type, engine: str):
    fmt = rng.choice(["parquet", "parquet", "csv", "jsonl"])
    files = rng.randint(2, 3)
    names = ["gold", "S", "T"]
    variant = rng.choice(["types", "types", "plain", "case", "duplicate" if fmt != "jsonl" else "plain", "ids",
                          "null id"])
    if variant == "case":
        names[2] = "s"
    case = case_type("dataset", f"{engine} {fmt} {variant}")
    frames = []
    for index in range(files):
        kind = rng.choice([int, float, str]) if fmt != "csv" else str
        rows = rng.randint(2, 6)
        pool = [1, 2, 3] if kind is not float else [1.0, 2.0, 2.5, 3.0]
        gold = [pool[0], pool[1]] + [rng.choice(pool) for _ in range(rows - 2)]  # two gold classes at least
        frames.append({"gold": gold, names[1]: [g if rng.random() < 0.6 else rng.choice(pool) for g in gold],
                       names[2]: [rng.choice(pool) for _ in gold]})
        frames[-1] = {c: [kind(v) if kind is not float else float(v) for v in values]
                      for c, values in frames[-1].items()}
        if variant in ("ids", "null id"):  # unique ids, typed like the file's labels (text, or numbers)
            frames[-1]["id"] = [f"r{index}-{row}" if kind is str else 100 * index + row for row in range(rows)]
    if variant == "null id":  # one row without an id: null (empty in CSV)
        frame = rng.choice(frames)
        frame["id"][rng.randrange(len(frame["id"]))] = "" if fmt == "csv" else None
    for index, frame in enumerate(frames):
        case.files[f"d{index}.{fmt}"] = _dataset_file(frame, fmt, variant == "duplicate")
    case.argv = ["score", "--dataset", f"@/d*.{fmt}", "--gold-column", "gold", "--system-columns",
                 ",".join(names[1:]), "--engine", engine, *(["--id-column", "id"] if "id" in frames[0] else [])]
    if variant == "null id":
        case.expect, case.fragment = "error", "no id in column 'id'"
    elif variant == "case":
        case.expect, case.fragment = "error", "differ only in case"
    elif variant == "duplicate":
        case.expect, case.fragment = "error", "appears 2 times"
    right = sum(_label_text(g) == _label_text(p) for f in frames for g, p in zip(f["gold"], f[names[1]]))
    case.value = right / sum(len(f["gold"]) for f in frames)
    return case


def _dataset_file(frame: dict, fmt: str, duplicate: bool) -> bytes | str:
    if fmt == "parquet":
        import io

        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table(frame)
        if duplicate:
            table = table.append_column(table.schema.names[1], table.column(1))
        sink = io.BytesIO()
        pq.write_table(table, sink)
        return sink.getvalue()
    columns = list(frame) + ([list(frame)[1]] if duplicate else [])
    rows = list(zip(*(frame[c] for c in columns)))
    if fmt == "csv":
        return ",".join(columns) + "\n" + "".join(",".join(map(str, row)) + "\n" for row in rows)
    return "".join(json.dumps(dict(zip(list(frame), row))) + "\n" for row in zip(*frame.values()))


# --- the planner --------------------------------------------------------------------------------------------

def planner_case(rng: random.Random, case_type, pages: bool = False):
    import pandas as pd

    n = rng.randint(20, 60)
    labels = rng.sample(["a", "b", "c", "d"], rng.randint(2, 3))
    gold = [labels[i % len(labels)] for i in range(n)]
    rng.shuffle(gold)
    constant = rng.choice(labels)
    systems = {"A": [constant] * n if rng.random() < 0.7 else [g if rng.random() < 0.5 else constant for g in gold],
               "B": [g if rng.random() < 0.7 else rng.choice(labels) for g in gold]}
    case = case_type("planner", "one class" + (" -o" if pages else " --json"), outdir="out" if pages else None)
    case.files = {"gold.csv": "id,label\n" + "".join(f"i{i},{g}\n" for i, g in enumerate(gold)),
                  **{f"{s}.csv": "id,label\n" + "".join(f"i{i},{p}\n" for i, p in enumerate(t))
                     for s, t in systems.items()}}
    case.argv = ["plan", "@/gold.csv", "A=@/A.csv", "B=@/B.csv", "--items", str(rng.choice([50, 200])),
                 "--simulations", "3", "--rounds", "20", *(["-o", "@/out"] if pages else ["--json"])]
    frame = pd.DataFrame({"gold": gold, **systems})
    case.value = float((frame["A"] == frame["gold"]).mean() - (frame["B"] == frame["gold"]).mean())
    case.truth = {"one_class": len(set(systems["A"])) == 1}
    return case


def check_planner(case, plan: dict) -> bool:
    metrics = plan["pairs"][0]["metrics"]
    if not math.isclose(metrics["accuracy"]["difference"], case.value, abs_tol=1e-12):
        return False
    if case.truth["one_class"]:  # MCC is 0/0 for a system that always predicts one class
        return metrics["mcc"]["difference"] is None and metrics["mcc"]["power"] is None and \
            "A vs B: mcc" in plan["undefined"]
    return True


def read_plan(case, result, directory: Path) -> dict:
    return json.loads((directory / case.outdir / "plan.json").read_text() if case.outdir else result.stdout)
