"""The tagging audit end to end (issue 22): layouts, alignment errors, token metrics against
scikit-learn, SemEval-2013 views against nervaluate's documented example, the sentence
bootstrap, audit.json against the schema, and the command line."""
from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

from auditor.cli import cli
from auditor.errors import InputError, UsageError
from auditor.options import AuditOptions
from auditor.tasks.tagging.run import audit

GOLD = [[("Ann", "B-PER"), ("Lee", "I-PER"), ("met", "O"), ("Bob", "B-PER")],
        [("in", "O"), ("New", "B-LOC"), ("York", "I-LOC")],
        [("IBM", "B-ORG"), ("sued", "O")]]
PRED = [[("Ann", "B-PER"), ("Lee", "O"), ("met", "O"), ("Bob", "B-ORG")],
        [("in", "O"), ("New", "B-LOC"), ("York", "I-LOC")],
        [("IBM", "I-ORG"), ("sued", "O")]]


def write(path, sentences, separator="\t", numbered=False, comments=False) -> str:
    blocks = []
    for number, sentence in enumerate(sentences, 1):
        lines = [f"# sent_id = s{number}", "# text = " + " ".join(w for w, _ in sentence)] if comments else []
        for index, (word, tag) in enumerate(sentence, 1):
            fields = ([str(index)] if numbered else []) + [word, tag] + (["-", "-"] if numbered else [])
            lines.append(separator.join(fields))
        blocks.append("\n".join(lines))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture()
def files(tmp_path):
    return write(tmp_path / "gold.txt", GOLD), write(tmp_path / "pred.txt", PRED)


def _values(result, s=0):
    return {m: float(v[s]) for m, v in result.observed.items()}


def test_layouts_read_the_same(tmp_path, files):
    """TAB, spaces, numbered UNER-like lines with comments, JSON Lines and conlleval's layout."""
    reference = _values(audit(*files[:1], {"p": files[1]}, options=AuditOptions(bootstrap=0)))
    spaced = write(tmp_path / "g2.txt", GOLD, " "), write(tmp_path / "p2.txt", PRED, " ")
    numbered = (write(tmp_path / "g3.txt", GOLD, "\t", True, True), write(tmp_path / "p3.txt", PRED, "\t", True, True))
    jsonl = tmp_path / "p4.jsonl"
    jsonl.write_text("\n".join(json.dumps({"tokens": [w for w, _ in s], "tags": [t for _, t in s]}) for s in PRED))
    conll = tmp_path / "both.txt"
    conll.write_text("\n\n".join("\n".join(f"{w} NN {g} {p}" for (w, g), (_, p) in zip(gs, ps))
                                 for gs, ps in zip(GOLD, PRED)) + "\n")
    runs = [audit(spaced[0], {"p": spaced[1]}), audit(numbered[0], {"p": numbered[1]}),
            audit(files[0], {"p": str(jsonl)}), audit(None, {}, conlleval=[f"p={conll}"])]
    for result in runs:
        assert _values(result) == pytest.approx(reference, nan_ok=True)


def test_json_lines_tag_files_are_refused_as_every_json_lines_reader_refuses(tmp_path, files):
    """Tagging's JSON Lines go through the one JSON Lines parser (auditor.io.jsonl.json_lines): blank lines skipped
    and counted, a line holding two objects refused by its number, a record without tags named by its line."""
    lines = [json.dumps({"tokens": [w for w, _ in s], "tags": [t for _, t in s]}) for s in PRED]
    blank = tmp_path / "blank.jsonl"
    blank.write_text(lines[0] + "\n\n" + "\n".join(lines[1:]) + "\n")
    assert audit(files[0], {"p": str(blank)}, options=AuditOptions(bootstrap=0)).aligned.n_tokens > 0
    two = tmp_path / "two.jsonl"
    two.write_text(lines[0] + "\n" + lines[1] + " " + lines[2] + "\n")
    with pytest.raises(InputError, match=r"two\.jsonl line 2: more than one JSON value on one line"):
        audit(files[0], {"p": str(two)})
    untagged = tmp_path / "untagged.jsonl"
    untagged.write_text(lines[0] + "\n" + json.dumps({"tokens": ["a"]}) + "\n")
    with pytest.raises(InputError, match=r"untagged\.jsonl line 2: expected a non-empty list of tag strings"):
        audit(files[0], {"p": str(untagged)})


def test_the_recommendation_reads_its_facts_off_this_data(files, tmp_path):
    """Tagging's rules (auditor.tasks.tagging.recommend), each fact checked by hand and with seqeval. The fixture:
    conlleval's chunks give span micro F1 2·2/(4 + 4) = 0.5; seqeval's strict IOB2 mode drops the ill-formed I-ORG
    chunk, 2·1/(3 + 4) = 0.286: a move of 21.4 points. p's two chunk errors are a shortened PER (a boundary error)
    and Bob's type: boundary share 50% ≥ 25%, so partial-match F1. 3 of 9 gold tokens are O: accuracy not avoided."""
    from seqeval.metrics import f1_score
    from seqeval.scheme import IOB2

    gold, predicted = ([[tag for _, tag in sentence] for sentence in data] for data in (GOLD, PRED))
    lenient, strict = f1_score(gold, predicted), f1_score(gold, predicted, mode="strict", scheme=IOB2)
    assert (lenient, round(strict, 4)) == (0.5, 0.2857)
    document = audit(files[0], {"p": files[1]}, options=AuditOptions(bootstrap=0)).to_json()["recommendation"]
    assert [(m["id"], m["role"]) for m in document["metrics"]] == [("span_micro_f1", "primary"),
                                                                    ("span_partial_f1", "complement")]
    assert (f"moves by {100 * (lenient - strict):.1f} points (1 ill-formed chunk)"
            in " ".join(document["metrics"][0]["reasons"]))
    assert document["metrics"][1]["reasons"][0].startswith("50% of p's chunk errors are boundary errors (1 of 2")
    assert document["avoid"] == [] and document["rules_fired"] == ["exact", "rule", "boundaries"]
    # ten PER chunks and one LOC (1/11 = 9.1% < 10%), every other token O (33 of 44 = 75%), no error at all
    rare = [[("A", "B-PER"), ("b", "O"), ("c", "O"), ("d", "O")]] * 10 + [[("E", "B-LOC"), ("f", "O"), ("g", "O"),
                                                                           ("h", "O")]]
    path = write(tmp_path / "rare.txt", rare)
    document = audit(path, {"same": path}, options=AuditOptions(bootstrap=0)).to_json()["recommendation"]
    assert [m["id"] for m in document["metrics"]] == ["span_micro_f1", "span_macro_f1"]
    assert document["metrics"][0]["reasons"][1].startswith("the other span rule gives every system the same")
    assert document["metrics"][1]["reasons"][0].startswith("the rarest type, LOC, is 9.1% of the gold chunks (1 of 11)")
    assert document["avoid"][0]["id"] == "accuracy"
    assert document["avoid"][0]["reasons"][0].startswith("75.0% of the gold tokens are O: a tagger that tags every")
    # four PER chunks and one LOC (20%: not rare); x finds every PER and misses LOC (micro 8/9, macro 1/2), y finds
    # LOC and two PER (micro 6/8, macro (2/3 + 1)/2): micro and macro F1 order the pair differently
    sentence = [("A", "B-PER"), ("b", "O")]
    gold = [sentence] * 4 + [[("E", "B-LOC"), ("f", "O")]]
    x = [sentence] * 4 + [[("E", "O"), ("f", "O")]]
    y = [sentence] * 2 + [[("A", "O"), ("b", "O")]] * 2 + [[("E", "B-LOC"), ("f", "O")]]
    paths = {name: write(tmp_path / f"{name}.txt", rows) for name, rows in (("gold", gold), ("x", x), ("y", y))}
    document = audit(paths["gold"], {"x": paths["x"], "y": paths["y"]}, options=AuditOptions(bootstrap=0)).to_json()
    macro = next(m for m in document["recommendation"]["metrics"] if m["id"] == "span_macro_f1")
    assert macro["reasons"] == ["it orders 1 pair of systems differently from span micro F1 (e.g. x vs y)"]


@pytest.mark.parametrize("separator", ["\t", " "])
def test_well_formed_layouts_are_parsed_by_arrow_not_line_by_line(tmp_path, monkeypatch, separator):
    """The line-by-line reader is only for lines arrow refuses (it names the bad line): space-separated files
    went to it because the separator was taken from the fields already split (always a TAB)."""
    from auditor.tasks.tagging import reading

    def refuse(*args, **kwargs):
        raise AssertionError("read line by line")

    monkeypatch.setattr(reading, "_parse_python", refuse)
    gold = reading.read_tagged(write(tmp_path / "g.txt", GOLD, separator))
    pred = reading.read_tagged(write(tmp_path / "p.txt", PRED, separator, True))
    assert [gold.vocab[c] for c in gold.codes] == [t for sentence in GOLD for _, t in sentence]
    assert [pred.vocab[c] for c in pred.codes] == [t for sentence in PRED for _, t in sentence]
    assert gold.tokens.to_pylist() == pred.tokens.to_pylist() == [w.encode() for sentence in GOLD for w, _ in sentence]


def test_token_metrics_equal_scikit_learn(files):
    result = audit(files[0], {"p": files[1]}, options=AuditOptions(bootstrap=0))
    gold = [t for s in GOLD for _, t in s]
    pred = [t for s in PRED for _, t in s]
    value = _values(result)
    assert value["accuracy"] == pytest.approx(accuracy_score(gold, pred))
    assert value["macro_f1"] == pytest.approx(f1_score(gold, pred, average="macro", zero_division=0))
    assert value["mcc"] == pytest.approx(matthews_corrcoef(gold, pred))
    strip = lambda tags: [t.split("-", 1)[-1] for t in tags]  # noqa: E731
    assert value["type_macro_f1"] == pytest.approx(f1_score(strip(gold), strip(pred), average="macro"))


def test_sentence_bootstrap_intervals_and_tests(files):
    result = audit(files[0], {"p": files[1], "same": files[0]}, options=AuditOptions(bootstrap=200, seed=3))
    lo, hi = result.metrics["p"]["span_micro_f1"].interval
    assert lo <= float(result.observed["span_micro_f1"][0]) <= hi
    assert result.metrics["same"]["span_micro_f1"].interval == (1.0, 1.0)  # gold against itself: every resample 1
    tests = {(t.metric, t.a, t.b): t for t in result.statistics.tests}
    assert set(m for m, _, _ in tests) == {"span_micro_f1", "span_macro_f1", "span_partial_f1", "accuracy", "macro_f1"}
    # same seed, same numbers
    again = audit(files[0], {"p": files[1], "same": files[0]}, options=AuditOptions(bootstrap=200, seed=3))
    assert again.metrics["p"]["span_micro_f1"].interval == (lo, hi)


def test_resampling_unit_is_the_sentence(files):
    """With one sentence per resample unit, a bootstrap of sentences can only reproduce sums of whole
    sentences: the span counts of each resample are integer combinations of the per-sentence rows."""
    from auditor.analyses.units import UnitResampler

    weights = np.concatenate([w for _, w in UnitResampler(3, 100, 0, rows=7).blocks()])
    assert weights.shape == (100, 3) and (weights.sum(axis=1) == 3).all()
    draws = np.random.default_rng(0).integers(0, 3, size=(100, 3))  # the same draws, counted one resample at a time
    assert all((weights[b] == np.bincount(draws[b], minlength=3)).all() for b in range(100))


def test_misaligned_files_name_sentence_and_lines(tmp_path, files):
    short = write(tmp_path / "short.txt", [PRED[0][:3]] + PRED[1:])
    with pytest.raises(InputError, match=r"sentence 1 has 4 tokens in .*gold.txt \(line 1\) and 3 in .*short.txt"):
        audit(files[0], {"p": short})
    other = write(tmp_path / "other.txt", [PRED[0], [("on", "O"), ("New", "B-LOC"), ("York", "I-LOC")], PRED[2]])
    with pytest.raises(InputError,
                       match=r"sentence 2, token 1: .*gold.txt line 6 has 'in', .*other.txt line 6 has 'on'"):
        audit(files[0], {"p": other})
    fewer = write(tmp_path / "fewer.txt", PRED[:2])
    with pytest.raises(InputError, match="3 sentences and .*fewer.txt 2; sentence 3"):
        audit(files[0], {"p": fewer})


def test_bad_lines_are_refused(tmp_path, files):
    bad = tmp_path / "bad.txt"
    bad.write_text("Ann\tB-PER\nLee\tI-PER\textra\n")
    with pytest.raises(InputError, match="bad.txt line 2: 3 columns; expected 2"):
        audit(files[0], {"p": str(bad)})
    with pytest.raises(InputError, match="no such file"):
        audit(files[0], {"p": str(tmp_path / "missing.txt")})
    with pytest.raises(UsageError, match="--labels is for classification"):
        audit(files[0], {"p": files[1]}, options=AuditOptions(labels=("a",)))
    with pytest.raises(UsageError, match="--rare-classes-matter is for classification"):
        audit(files[0], {"p": files[1]}, options=AuditOptions(rare_classes_matter=True))


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(resources.files("auditor").joinpath("audit.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("analyses", [None, ("intervals",)])
def test_audit_json_validates(validator, files, analyses):
    result = audit(files[0], {"p": files[1], "q": files[0]}, options=AuditOptions(bootstrap=50),
                   analyses=analyses)
    document = json.loads(json.dumps(result.to_json(), allow_nan=False))
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(document)]
    assert errors == []
    assert document["task"] == "tagging" and document["n_items"] == 9 and document["n_units"] == 3
    spans = document["systems"]["p"]["spans"]
    assert spans["errors"] == {"correct": 2, "wrong_type": 1, "wrong_boundary": 1, "wrong_both": 0, "missed": 0,
                               "spurious": 0}
    assert document["systems"]["p"]["metrics"]["span_micro_f1"]["value"] == pytest.approx(2 * 2 / (4 + 4))
    broken = json.loads(json.dumps(document))
    broken["systems"]["p"]["spans"]["micro"]["f"] = 1.0
    assert list(validator.iter_errors(broken))


def test_command_line(files, tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["score", "--task", "tagging", files[0], files[1], "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    assert "scheme IOB2 (detected" in result.output and "span_micro_f1" in result.output
    result = runner.invoke(cli, ["score", "--task", "tagging", files[0], files[1], "--json", "--bootstrap", "20",
                                 "--span-rule", "strict"])
    assert json.loads(result.output)["tagging"]["span_rule"] == "strict"
    result = runner.invoke(cli, ["score", files[0], files[1], "--scheme", "IOB2"])
    assert result.exit_code == 2 and "--scheme belongs to --task tagging" in result.output


def test_report_renders(files, tmp_path):
    from auditor.formats.render import render

    result = audit(files[0], {"p": files[1], "q": files[0]}, options=AuditOptions(bootstrap=30))
    model = result.report_model(figures=False)
    ids = [section.id for section in model.sections]
    assert ids[:6] == ["summary", "data", "spans", "errors", "span-rules", "tokens"]
    written = render(result, tmp_path / "out", ["html", "md", "tex", "json"])
    assert [p.name for p in written] == ["report.html", "summary.md", "tables.tex", "audit.json"]
    assert "conlleval" in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")


def test_report_tables_show_differences_as_points_ranks_as_ranks_and_one_ledger_entry_per_value(files, tmp_path):
    from auditor.formatting import format_value

    # q = gold scores every span figure 1; p = 2 of 4 chunks (test_audit_json_validates): Δ = 0.5 - 1 = -50 points.
    # "none" tags everything O: every type's precision is 0/0, so its span macro precision carries a ledger mark, in
    # the summary table and again in the span table: one entry per (system, state, text), listing every place (the
    # classification report's ledger, report.context.Ledger). Recall (0 of the gold chunks) and F1 = 2TP/(2TP+FP+FN)
    # are defined, so MR and MF1 carry none.
    none = write(tmp_path / "none.txt", [[(word, "O") for word, _ in sentence] for sentence in GOLD])
    result = audit(files[0], {"p": files[1], "q": files[0], "none": none}, options=AuditOptions(bootstrap=30))
    tables = {block.id: block for section in result.report_model(figures=False).sections
              for block in section.blocks if hasattr(block, "rows")}
    micro = next(row for row in tables["table-tests"].rows if row.cells[0].value == "μF1" and row.header == "p − q")
    assert format_value(micro.cells[1].value, micro.cells[1].kind) == "-50.0"
    ranks = [format_value(cell.value, cell.kind) for row in tables["table-ranks"].rows for cell in row.cells]
    assert set(ranks) <= {"1", "2", "3", "1.5", "2.5"} and "3" in ranks
    entries = [(row.cells[0].value, row.cells[1].value, row.cells[2].value, row.cells[3].value)
               for row in tables["table-ledger"].rows]
    convention = [entry for entry in entries if entry[:2] == ("none", "convention")]
    assert len(convention) == 1 and set(convention[0][2].split(", ")) == {"MP"}
    assert len({(system, state, text) for system, state, _, text in entries}) == len(entries)


def test_uner_example_matches_the_datasets_own_counts(uner_dir):
    """The UNER English-EWT test split (shared data, laid out by the ``uner_dir`` fixture): its README and .stats give
    1,088 entities (LOC 317, PER 449, ORG 322) in 2,077 sentences and 25,097 tokens; crf-rich-iob1 is
    crf-rich with every chunk opened by I-: the same under conlleval's rules, nothing under strict."""
    folder = uner_dir
    systems = {name: str(folder / "systems" / f"{name}.iob2") for name in ("crf-rich", "crf-rich-iob1")}
    result = audit(str(folder / "gold.iob2"), systems, options=AuditOptions(bootstrap=0))
    document = result.to_json()
    assert (document["n_items"], document["n_units"], document["tagging"]["gold_chunks"]) == (25_097, 2_077, 1_088)
    assert {t: row["chunks"] for t, row in document["tagging"]["data"]["types"].items()} == \
        {"LOC": 317, "ORG": 322, "PER": 449}
    rich, iob1 = document["systems"]["crf-rich"]["spans"], document["systems"]["crf-rich-iob1"]["spans"]
    assert iob1["micro"] == rich["micro"] and iob1["ill_formed"] > 0 and iob1["other_rule_micro_f1"] == 0.0
    assert rich["other_rule_micro_f1"] == rich["micro"]["f1"]


def test_tag_column_iobes_default_strict_and_pos_tags(tmp_path):
    """--tag-column picks a column of CoNLL-2003-like lines (word POS chunk NER); IOBES gold gets the
    strict rule by default; tags without prefixes (POS) get token metrics and no spans."""
    lines = ["EU NNP B-NP S-ORG", "rejects VBZ B-VP O", "German JJ B-NP S-MISC", "call NN I-NP O"]
    (tmp_path / "g.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "p.txt").write_text("\n".join(l.replace("S-MISC", "B-MISC") for l in lines) + "\n")
    ner = audit(str(tmp_path / "g.txt"), {"p": str(tmp_path / "p.txt")}, options=AuditOptions(bootstrap=0))
    assert (ner.scheme, ner.rule) == ("IOBES", "strict")
    assert float(ner.observed["span_micro_precision"][0]) == 1.0  # B-MISC alone never closes: dropped
    assert float(ner.observed["span_micro_recall"][0]) == 0.5
    chunked = audit(str(tmp_path / "g.txt"), {"p": str(tmp_path / "p.txt")}, options=AuditOptions(bootstrap=0),
                    tag_column=3)
    assert chunked.scheme == "IOB2" and chunked.spans.gold.size == 3
    pos = audit(str(tmp_path / "g.txt"), {"p": str(tmp_path / "p.txt")}, options=AuditOptions(bootstrap=10),
                tag_column=2)
    assert pos.scheme is None and pos.spans is None and float(pos.observed["accuracy"][0]) == 1.0
    assert "span_micro_f1" not in pos.to_json()["systems"]["p"]["metrics"]
    assert [s.id for s in pos.report_model(figures=False).sections][:2] == ["summary", "tokens"]


def test_gold_without_chunks_takes_the_scheme_from_a_system(tmp_path):
    gold = write(tmp_path / "g.txt", [[("a", "O"), ("b", "O")]])
    pred = write(tmp_path / "p.txt", [[("a", "B-X"), ("b", "I-X")]])
    result = audit(gold, {"p": pred}, options=AuditOptions(bootstrap=0))
    assert result.scheme == "IOB2" and "gold has no chunk; from p's tags" in result.scheme_reason
    assert float(result.observed["span_micro_precision"][0]) == 0.0
    assert np.isnan(result.observed["span_micro_recall"][0])  # 0/0: no gold chunk
    entry = result.to_json()["systems"]["p"]["metrics"]["span_micro_recall"]
    assert entry["value"] is None and "0/0" in entry["undefined"]


def test_every_span_figure_has_its_formula_and_undefined_rule_in_the_report(files):
    from auditor.tasks.tagging.names import FORMULAS, SPAN_METRICS, UNDEFINED

    assert list(FORMULAS) == list(SPAN_METRICS) and set(UNDEFINED) == set(SPAN_METRICS)
    result = audit(files[0], {"p": files[1]}, options=AuditOptions(bootstrap=0))
    section = next(s for s in result.report_model(figures=False).sections if s.id == "definitions")
    defined = [block.id for block in section.blocks if hasattr(block, "formula")]
    assert defined[:len(SPAN_METRICS)] == list(SPAN_METRICS)  # then the token metrics (issue 36)


@pytest.mark.parametrize("seed", range(6))
def test_lines_from_newlines_alone_equal_the_full_line_table(seed):
    """The fast line reader of files without comments (blank lines found from the newlines alone) gives the
    token lines and sentence starts of the full line table: leading, repeated and trailing blank lines, a
    last line without a newline."""
    from auditor.tasks.tagging import reading

    rng = np.random.default_rng(seed)
    kinds = rng.choice([b"", b"w\tO", b"x\tB-PER"], size=int(rng.integers(1, 60)), p=[0.3, 0.4, 0.3])
    kinds[int(rng.integers(kinds.size))] = b"t\tO"
    raw = b"\n".join(kinds) + (b"\n" if rng.random() < 0.5 else b"")
    starts, ends, blank, comment = reading._line_table(raw)
    token_lines = np.flatnonzero(~blank & ~comment)
    expected_first = blank[np.maximum(token_lines - 1, 0)]
    expected_first[0] = True
    lines, first, text = reading._plain_lines(raw, "f")
    assert lines.tolist() == token_lines.tolist() and first.tolist() == expected_first.tolist()
    assert text == raw[starts[token_lines[0]]:ends[token_lines[0]]].decode()


def test_files_read_in_parallel_report_the_first_bad_file_in_order(tmp_path, files):
    """Two threads read the files; the error shown is still the first in the order given (a misaligned
    system before a later unreadable one, a missing file before a later misaligned one)."""
    short = write(tmp_path / "short.txt", [PRED[0][:3]] + PRED[1:])
    fine = {f"s{i}": files[1] for i in range(4)}
    with pytest.raises(InputError, match="short.txt"):
        audit(files[0], {**fine, "short": short, "gone": str(tmp_path / "missing.txt")})
    with pytest.raises(InputError, match="missing.txt: no such file"):
        audit(files[0], {**fine, "gone": str(tmp_path / "missing.txt"), "short": short})
    result = audit(files[0], {**fine, "p": files[1]}, options=AuditOptions(bootstrap=0))
    assert result.aligned.names == ("s0", "s1", "s2", "s3", "p")


def test_signature_hashes_the_gold_file_as_stored(tmp_path, files):
    """The gold hash of the signature is the SHA-256 of the file's bytes as stored (BOM and CR LF kept), taken
    from the one read of the file; for --conlleval, of the first file."""
    import hashlib

    gold = tmp_path / "bom.txt"
    gold.write_bytes(b"\xef\xbb\xbf" + open(files[0], "rb").read().replace(b"\n", b"\r\n"))
    expected = hashlib.sha256(gold.read_bytes()).hexdigest()[:12]
    result = audit(str(gold), {"p": files[1]}, options=AuditOptions(bootstrap=0))
    assert f"|gold:{expected}|" in str(result.signature) and result.signature["gold"] == expected
    assert result.to_json()["sources"]["gold"]["sha256"][:12] == expected  # one gold hash: sources and signature
    conll = tmp_path / "c.txt"
    conll.write_text("Ann x B-PER B-PER\nLee x I-PER O\n\nmet x O O\n")
    expected = hashlib.sha256(conll.read_bytes()).hexdigest()[:12]
    assert f"|gold:{expected}|" in str(audit(None, {}, conlleval=[str(conll)],
                                             options=AuditOptions(bootstrap=0)).signature)


def test_a_byte_that_is_not_utf8_is_named_by_line(tmp_path, files):
    """UTF-8 is checked in place (arrow's validator); the line of a bad byte comes from decoding, only then."""
    bad = tmp_path / "bad.txt"
    bad.write_bytes("Ann\tB-PER\nLée\tI-PER\nmet\tO\nBob\tB-PER\n\nin\tO\nNew\tB-LOC\nYork\tI-LOC\n\nIBM\tB-ORG\n"
                    "sued\tO\n".encode().replace("Bob".encode(), b"B\xffb"))
    with pytest.raises(InputError, match=r"bad.txt line 4 \(byte 28\): not UTF-8 text \(found byte 0xff\)"):
        audit(files[0], {"p": str(bad)})
    accented = tmp_path / "accented.txt"
    accented.write_bytes(bad.read_bytes().replace(b"B\xffb", "Bób".encode()))
    with pytest.raises(InputError, match=r"token 2: .*gold.txt line 2 has 'Lee', .*accented.txt line 2 has 'Lée'"):
        audit(files[0], {"p": str(accented)})
