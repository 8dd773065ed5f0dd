"""Engines (issue 25): memory, DuckDB and Spark count the same table into the same counts.

Known answers: confusion matrices against scikit-learn's ``confusion_matrix`` on the rows as
written (labels as text), the figures against the GOLD/SYSTEM-files path on the same items, and
every engine against the others on random files with hostile labels (``01`` beside ``1``, spaces,
quotes, commas, ``#``, ``none``, non-ASCII). The Spark tests share one local session.
"""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix

from auditor import audit
from auditor.cli import cli
from auditor.engines import choose, count_dataset, open_dataset
from auditor.errors import InputError, UsageError
from auditor.io.counts import Counts, count
from auditor.pipeline import audit_dataset

#: Labels a careless reader would cast, trim, split or drop: every engine must keep them as written.
HOSTILE = ["01", "1", "1.0", "x y", "#happy", "none", "Ünïcödé", 'say "hi"', "a,b", "True", "0", "-0", "1e3", "é"]
SPARK = pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"),
                           reason="Java is absent: the spark engine needs Java 17")


def write(path, columns: dict[str, list], fmt: str) -> str:
    """One dataset file of ``columns`` (lists of text) in ``fmt``; every value quoted in CSV/TSV."""
    names = list(columns)
    rows = list(zip(*columns.values()))
    if fmt == "parquet":
        pq.write_table(pa.table({k: pa.array(v, type=pa.string()) for k, v in columns.items()}), path)
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(dict(zip(names, row)), ensure_ascii=False) + "\n" for row in rows),
                        encoding="utf-8")
    else:
        sep = "\t" if fmt == "tsv" else ","

        def quote(text: str) -> str:
            return '"' + text.replace('"', '""') + '"'
        lines = [sep.join(names)] + [sep.join(quote(v) for v in row) for row in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def table(seed: int, n: int, systems: int = 3, labels=HOSTILE) -> dict[str, list]:
    rng = np.random.default_rng(seed)
    pool = np.array(labels, dtype=object)
    gold = rng.integers(0, len(pool), n)
    columns = {"id": [f"i{i}" for i in range(n)], "gold": list(pool[gold])}
    for s in range(systems):
        right = rng.random(n) < 0.6
        columns[f"s{s}"] = list(pool[np.where(right, gold, rng.integers(0, len(pool), n))])
    return columns


def counted(path: str, engine: str, systems=("s0", "s1", "s2"), **kwargs) -> Counts:
    return count_dataset(open_dataset(path, "gold", systems, **kwargs), engine).counts


def compact(path: str, systems=("s0", "s1", "s2")) -> Counts:
    """DuckDB's group-by on packed integer codes (its fallback when the plain one runs out of memory)."""
    from auditor.engines.duckdb import DuckDBEngine
    from auditor.engines.patterns import build

    dataset = open_dataset(path, "gold", systems)
    engine = DuckDBEngine(dataset)
    engine.compact = True
    try:
        return build(engine.patterns(), dataset, "duckdb").counts
    finally:
        engine.close()


def same_counts(a: Counts, b: Counts) -> None:
    assert a.labels == b.labels and a.systems == b.systems
    np.testing.assert_array_equal(a.confusion, b.confusion)
    for x, y in zip(a.patterns(), b.patterns()):
        np.testing.assert_array_equal(x, y)


@pytest.fixture(scope="module")
def spark_ready(spark_session):
    """The run's one local Spark session (``spark_session`` in conftest), which the engine's counts reuse."""
    return True


# --------------------------------------------------------------------------- known answers

@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_confusion_matches_scikit_learn_on_the_labels_as_written(tmp_path, fmt, engine):
    columns = table(1, 300)
    path = write(tmp_path / f"d.{fmt}", columns, fmt)
    counts = counted(path, engine)
    assert counts.labels == tuple(sorted(set(HOSTILE)))  # "01", "1", "1.0" and "-0" stay apart
    for s, name in enumerate(("s0", "s1", "s2")):
        expected = confusion_matrix(columns["gold"], columns[name], labels=list(counts.labels))
        np.testing.assert_array_equal(counts.confusion[s], expected)
    assert counts.n_items == 300 and counts.paired


def test_from_patterns_equals_counting_the_items():
    rng = np.random.default_rng(3)
    gold, a, b = (rng.integers(0, 4, 1000) for _ in range(3))
    items = count(gold, {"A": a, "B": b})
    codes, n = items.patterns()
    shuffled = rng.permutation(len(n))
    halves = np.concatenate([n[shuffled] // 2, n[shuffled] - n[shuffled] // 2])  # split and repeated rows merge
    from_table = Counts.from_patterns(items.labels, items.systems, np.concatenate([codes[shuffled]] * 2), halves)
    same_counts(items, from_table)
    assert from_table.n_items == 1000 and from_table.paired and from_table.gold is None
    np.testing.assert_array_equal(np.bincount(from_table.item_patterns()), n)
    np.testing.assert_array_equal(from_table.support, items.support)


def test_identical_systems_are_found_from_the_pattern_table():
    from auditor.analyses.profile import identical_systems

    patterns = Counts.from_patterns(["a", "b"], ["A", "B", "C"], [[0, 0, 1, 0], [1, 1, 1, 1], [1, 0, 0, 0]], [2, 3, 1])
    assert identical_systems(patterns) == (("A", "C"),)


def test_dataset_figures_equal_the_label_files_path(tmp_path):
    """Same items through --dataset (any engine) and through GOLD and SYSTEM files: same audit figures,
    intervals included (few patterns: the bootstrap draws pattern counts, not items)."""
    columns = table(5, 2000, labels=["neg", "pos", "01"])  # 3^4 patterns x 16 <= N: multinomial draws
    path = write(tmp_path / "d.parquet", columns, "parquet")
    files = {}
    for name in ("gold", "s0", "s1", "s2"):
        files[name] = tmp_path / f"{name}.tsv"
        files[name].write_text("id\tlabel\n" + "".join(f"{i}\t{v}\n" for i, v in zip(columns["id"], columns[name])))
    by_files = audit(str(files["gold"]), {s: str(files[s]) for s in ("s0", "s1", "s2")}, bootstrap=200).to_json()
    for engine in ("memory", "duckdb"):
        by_dataset = audit_dataset(path, "gold", ["s0", "s1", "s2"], engine=engine, bootstrap=200).to_json()
        for key in ("labels", "n_items", "systems", "baselines", "statistics", "tests", "rankings", "recommendation"):
            assert by_dataset[key] == by_files[key], key


def test_slice_column_equals_the_slices_file(tmp_path):
    columns = table(7, 600, labels=["a", "b", "c"])
    columns["region"] = [["east", "west", "tiny"][i % 3] for i in range(600)]
    path = write(tmp_path / "d.csv", columns, "csv")
    expected = audit(columns["gold"], {s: columns[s] for s in ("s0", "s1", "s2")}, bootstrap=0,
                     slices=columns["region"]).to_json()["slices"]
    for engine in ("memory", "duckdb"):
        found = audit_dataset(path, "gold", ["s0", "s1", "s2"], slice_column="region", engine=engine,
                              bootstrap=0).to_json()["slices"]
        assert found == expected


# --------------------------------------------------------------------------- engines agree, fuzzed

label_text = st.one_of(st.sampled_from(HOSTILE), st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\ufeff"), min_size=1,
    max_size=6).filter(lambda t: t.strip(" \t") == t and t.strip()))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pool=st.lists(label_text, min_size=2, max_size=6, unique=True), seed=st.integers(0, 2**16),
       fmt=st.sampled_from(["csv", "tsv", "jsonl", "parquet"]))
def test_memory_and_duckdb_agree_on_random_hostile_files(tmp_path_factory, pool, seed, fmt):
    from auditor.io.validate import is_missing

    pool = [p for p in pool if not is_missing(p) and not (fmt == "tsv" and "\t" in p)]
    if len(pool) < 2:
        return
    columns = table(seed, 50, labels=pool)
    if len(set(columns["gold"])) < 2:
        return
    path = write(tmp_path_factory.mktemp("fuzz") / f"d.{fmt}", columns, fmt)
    memory = counted(path, "memory")
    same_counts(memory, counted(path, "duckdb"))
    same_counts(memory, compact(path))
    assert set(memory.labels) <= set(pool)


def test_typed_values_become_the_same_labels_in_every_engine(tmp_path):
    """Numbers are written as load.py writes them (1.0 -> "1", never "1.0"); strings are never cast."""
    pq.write_table(pa.table({"gold": [1, 2, 1, 2], "a": [1.0, 2.0, 2.5, 1.0], "b": ["1", "02", "1", "2"]}),
                   tmp_path / "typed.parquet")
    (tmp_path / "typed.jsonl").write_text('{"gold": 1, "a": 1.0, "b": "1"}\n{"gold": "2", "a": 2, "b": "02"}\n'
                                          '\n{"gold": 1, "a": 2.5, "b": 1}\n{"gold": 2, "a": "1", "b": "2"}\n')
    for name in ("typed.parquet", "typed.jsonl"):
        for engine in ("memory", "duckdb"):
            counts = counted(str(tmp_path / name), engine, ("a", "b"))
            assert counts.labels == ("02", "1", "2", "2.5"), (name, engine)
            assert counts.n_items == 4
        same_counts(counts, compact(str(tmp_path / name), ("a", "b")))


@SPARK
def test_spark_counts_equal_memory_and_duckdb(tmp_path, spark_ready):
    """One small file per format, counted by Spark in local mode: the same counts as the other engines."""
    columns = table(11, 200)
    for fmt in ("csv", "jsonl", "parquet"):
        path = write(tmp_path / f"d.{fmt}", columns, fmt)
        memory = counted(path, "memory")
        same_counts(memory, counted(path, "spark"))
        same_counts(memory, counted(path, "duckdb"))
    folder = tmp_path / "parts"
    folder.mkdir()
    write(folder / "p0.parquet", {k: v[:120] for k, v in columns.items()}, "parquet")
    write(folder / "p1.parquet", {k: v[120:] for k, v in columns.items()}, "parquet")
    uri = f"file://{folder}/*.parquet"  # a URI (hdfs://, s3a://...) is read by Spark alone, which `auto` picks
    assert choose(open_dataset(uri, "gold", ["s0"])) == "spark"
    same_counts(memory, counted(uri, "auto"))
    with pytest.raises(UsageError, match="a URI is read by --engine spark only"):
        counted(uri, "duckdb")


@SPARK
def test_spark_refuses_missing_labels_like_the_others(tmp_path, spark_ready):
    columns = table(12, 40, labels=["a", "b"])
    columns["s1"][3] = "NA"
    columns["s1"][9] = ""
    path = write(tmp_path / "d.csv", columns, "csv")
    messages = set()
    for engine in ("memory", "duckdb", "spark"):
        with pytest.raises(InputError) as error:
            counted(path, engine)
        messages.add(str(error.value))
    assert len(messages) == 1
    assert "column 's1': 2 rows without a label" in messages.pop()


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_null_labels_are_refused_with_their_counts_and_file(tmp_path, engine):
    folder = tmp_path / "parts"
    folder.mkdir()
    clean = table(2, 30, labels=["a", "b"])
    write(folder / "p0.parquet", clean, "parquet")
    dirty = table(3, 30, labels=["a", "b"])
    dirty["s0"][1] = None
    dirty["s0"][2] = "N/A"
    dirty["s0"][5] = None
    write(folder / "p1.parquet", dirty, "parquet")
    with pytest.raises(InputError) as error:
        counted(str(folder / "*.parquet"), engine)
    assert str(error.value).startswith(f"{folder / 'p1.parquet'}: column 's0': 3 rows without a label ('null' ×2, "
                                       f"'N/A' ×1)")


def test_bad_datasets_get_one_clear_error(tmp_path):
    columns = table(4, 20, labels=["a", "b"])
    path = write(tmp_path / "d.csv", columns, "csv")
    with pytest.raises(InputError, match=r"d.csv: no column 'nope'; found columns 'id', 'gold', 's0'"):
        open_dataset(path, "gold", ["s0", "nope"])
    with pytest.raises(InputError, match=r"the glob matches no file"):
        open_dataset(str(tmp_path / "missing-*.parquet"), "gold", ["s0"])
    write(tmp_path / "p0.parquet", columns, "parquet")
    write(tmp_path / "p1.parquet", {k: v for k, v in columns.items() if k != "s2"}, "parquet")
    with pytest.raises(InputError, match=r"the files' columns differ: .*p1.parquet lacks 's2'"):
        open_dataset(str(tmp_path / "p*.parquet"), "gold", ["s0"])
    with pytest.raises(UsageError, match="named twice"):
        open_dataset(path, "gold", ["s0", "gold"])
    (tmp_path / "empty.csv").write_text("id,gold,s0\n")
    for engine in ("memory", "duckdb"):
        with pytest.raises(InputError, match=r"empty.csv: no rows; expected a row per item"):
            counted(str(tmp_path / "empty.csv"), engine, ("s0",))


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_duplicate_ids_are_refused(tmp_path, engine):
    columns = table(4, 20, labels=["a", "b"])
    columns["id"][7] = columns["id"][3]
    path = write(tmp_path / "d.parquet", columns, "parquet")
    with pytest.raises(InputError, match=r"duplicate id 'i3' in column 'id' \(1 row repeats an earlier id\)"):
        counted(path, engine, id_column="id")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_single_gold_class_and_labels_outside_the_set_are_refused(tmp_path, engine):
    columns = table(4, 20, labels=["a", "b"])
    path = write(tmp_path / "d.parquet", {**columns, "gold": ["a"] * 20}, "parquet")
    with pytest.raises(InputError, match="expected at least two gold classes"):
        counted(path, engine)
    path = write(tmp_path / "e.parquet", columns, "parquet")
    with pytest.raises(InputError, match=r"column 'gold': label 'b' is not in --labels \(a, c\)"):
        count_dataset(open_dataset(path, "gold", ["s0"]), engine, labels=["a", "c"])


def test_malformed_csv_names_the_file(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("gold,a\nx,y\nx,y,z\n")
    for engine in ("memory", "duckdb"):
        with pytest.raises(InputError, match=r"d.csv"):
            counted(str(path), engine, ("a",))


def test_spark_without_java_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    path = write(tmp_path / "d.csv", table(4, 20, labels=["a", "b"]), "csv")
    with pytest.raises(UsageError, match=r"--engine spark needs Java 17 \(JAVA_HOME=.*no-jdk' has no bin/java\)"):
        counted(path, "spark")


def test_auto_picks_duckdb_for_files_large_for_the_memory(tmp_path):
    dataset = open_dataset(write(tmp_path / "d.csv", table(4, 20, labels=["a", "b"]), "csv"), "gold", ["s0"])
    assert choose(dataset, memory=1 << 30) == "memory"
    assert choose(dataset, memory=dataset.size()) == "duckdb"


def test_duckdb_spills_to_the_temporary_directory_with_the_same_counts(tmp_path):
    rng = np.random.default_rng(0)
    n = 200_000
    columns = {"gold": rng.integers(0, 20, n).astype(str)}
    columns.update({f"s{s}": rng.integers(0, 20, n).astype(str) for s in range(3)})
    path = str(tmp_path / "big.parquet")
    pq.write_table(pa.table(columns), path)
    dataset = open_dataset(path, "gold", ["s0", "s1", "s2"])
    spilled = count_dataset(dataset, "duckdb", memory_limit="20MB", temp_directory=str(tmp_path / "spill")).counts
    same_counts(spilled, count_dataset(dataset, "memory").counts)


# --------------------------------------------------------------------------- command line

def test_cli_dataset_score_json(tmp_path):
    path = write(tmp_path / "d.jsonl", table(8, 100, labels=["a", "b", "c"]), "jsonl")
    result = CliRunner().invoke(cli, ["score", "--dataset", path, "--gold-column", "gold", "--system-columns",
                                      "s0,s1", "--id-column", "id", "--engine", "duckdb", "--bootstrap", "0", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert list(document["systems"]) == ["s0", "s1"] and document["n_items"] == 100
    assert document["sources"]["s1"]["column"] == "s1" and document["sources"]["gold"]["engine"] == "duckdb"


@pytest.mark.parametrize("arguments, message", [
    (["gold.tsv", "--dataset", "d.csv", "--gold-column", "g", "--system-columns", "a"], "--dataset replaces GOLD"),
    (["--dataset", "d.csv"], "--dataset needs --gold-column and --system-columns"),
    (["gold.tsv", "a.tsv", "--gold-column", "g"], "need --dataset"),
    (["gold.tsv", "a.tsv", "--memory-limit", "1GB"], "are for --engine duckdb or spark"),
])
def test_cli_usage_errors(arguments, message):
    result = CliRunner().invoke(cli, ["score", *arguments])
    assert result.exit_code == 2 and message in result.output


# --------------------------------------------------------------------------- GOLD and SYSTEM files joined in DuckDB

def label_files(tmp_path, n: int = 600):  # 3^3 patterns x 16 <= n: the bootstrap draws pattern counts
    """A TSV gold file, a CSV system (rows shuffled, ids of spaces-padded text) and a JSON Lines system."""
    columns = table(21, n, systems=2, labels=["01", "1", "x y"])
    order = np.random.default_rng(0).permutation(n)
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n" + "".join(f"{i}\t{v}\n" for i, v in zip(columns["id"], columns["gold"])))
    csv = tmp_path / "a.csv"
    csv.write_text("id,prediction\n" + "".join(f'{columns["id"][i]} ,"{columns["s0"][i]}"\n' for i in order))
    jsonl = tmp_path / "b.jsonl"
    jsonl.write_text("".join(json.dumps({"id": i, "label": v}) + "\n" for i, v in zip(columns["id"], columns["s1"])))
    return str(gold), {"a": str(csv), "b": str(jsonl)}, columns


def test_files_joined_in_duckdb_give_the_in_memory_figures(tmp_path):
    from auditor.engines import open_label_files

    gold, systems, columns = label_files(tmp_path)
    by_memory = audit(gold, systems, bootstrap=100).to_json()
    joined = audit_dataset(open_label_files(gold, systems), engine="duckdb", bootstrap=100).to_json()
    for key in ("labels", "n_items", "systems", "statistics", "tests", "rankings"):
        assert joined[key] == by_memory[key], key
    expected = confusion_matrix(columns["gold"], columns["s0"], labels=["01", "1", "x y"])
    assert joined["systems"]["a"]["confusion"] == expected.tolist()
    assert joined["sources"]["a"]["path"] == systems["a"] and joined["sources"]["a"]["column"] == "prediction"
    # one hash per file whatever reads it (issue 32): the file's SHA-256 as stored, in sources and the signature;
    # the engine's hash of the table it counted sits under its own key
    import hashlib

    for name, path in {"gold": gold, **systems}.items():
        stored = hashlib.sha256(open(path, "rb").read()).hexdigest()
        assert joined["sources"][name]["sha256"] == by_memory["sources"][name]["sha256"] == stored, name
        assert len(joined["sources"][name]["pattern_sha256"]) == 64
    assert joined["signature"].split("|")[1] == by_memory["signature"].split("|")[1] == f"gold:{stored_gold(gold)}"
    dataset = write(tmp_path / "d.csv", {"gold": columns["gold"], "s0": columns["s0"]}, "csv")
    from_dataset = audit_dataset(dataset, "gold", ["s0"], engine="duckdb", bootstrap=0).to_json()
    assert from_dataset["sources"]["gold"]["sha256"] == hashlib.sha256(open(dataset, "rb").read()).hexdigest()


def stored_gold(path: str) -> str:
    import hashlib

    return hashlib.sha256(open(path, "rb").read()).hexdigest()[:12]


@pytest.mark.parametrize("change, message", [
    (lambda text: text + "i3 ,x y\n", r"a.csv: duplicate id 'i3' \(1 row repeats an earlier id\)"),
    (lambda text: text + "zz,1\n", r"a.csv: 1 id not in the gold file from .*gold.tsv \(first in order: 'zz'\)"),
    (lambda text: "\n".join(line for line in text.split("\n") if not line.startswith("i7 ")),
     r"a.csv: 1 gold id missing \(first in order: 'i7'\); expected a prediction for every gold id"),
    (lambda text: "\n".join(text.split("\n")[1:]), r"a.csv: no label column; .*an engine joins files by id"),
])
@pytest.mark.parametrize("engine", ["duckdb", pytest.param("spark", marks=SPARK)])
def test_joined_files_refuse_duplicate_missing_and_extra_ids(tmp_path, change, message, engine, request):
    from auditor.engines import open_label_files

    if engine == "spark":
        request.getfixturevalue("spark_ready")
    gold, systems, _ = label_files(tmp_path)
    path = tmp_path / "a.csv"
    path.write_text(change(path.read_text()))
    with pytest.raises(InputError, match=message):
        count_dataset(open_label_files(gold, systems), engine)


def test_cli_joins_label_files_in_duckdb_and_refuses_memory(tmp_path):
    gold, systems, _ = label_files(tmp_path)
    arguments = ["score", gold, *(f"{k}={v}" for k, v in systems.items()), "--bootstrap", "0", "--json"]
    memory = CliRunner().invoke(cli, arguments)
    duck = CliRunner().invoke(cli, [*arguments, "--engine", "duckdb"])
    assert memory.exit_code == duck.exit_code == 0, duck.output
    assert json.loads(duck.stdout)["systems"] == json.loads(memory.stdout)["systems"]
    from auditor.engines import open_label_files

    with pytest.raises(UsageError, match="joined by id in --engine duckdb or spark"):
        count_dataset(open_label_files(gold, systems), "memory")


@SPARK
def test_files_joined_in_spark_give_duckdb_figures(tmp_path, spark_ready):
    # a TSV gold file, a CSV system with shuffled, space-padded ids, a JSON Lines system and a Parquet one
    from auditor.engines import open_label_files

    gold, systems, columns = label_files(tmp_path)
    ids = columns["id"]
    pq.write_table(pa.table({"item_id": pa.array(ids[::-1]), "label": pa.array(columns["gold"][::-1])}),
                   tmp_path / "c.parquet")
    systems["c"] = str(tmp_path / "c.parquet")  # a system equal to gold, rows reversed
    duck = count_dataset(open_label_files(gold, systems), "duckdb")
    spark = count_dataset(open_label_files(gold, systems), "spark")
    same_counts(duck.counts, spark.counts)
    assert {k: v.sha256 for k, v in duck.sources.items()} == {k: v.sha256 for k, v in spark.sources.items()}
    expected = confusion_matrix(columns["gold"], columns["s0"], labels=["01", "1", "x y"])
    np.testing.assert_array_equal(spark.counts.confusion[0], expected)
    assert np.trace(spark.counts.confusion[2]) == len(ids)


def test_dataset_audit_json_follows_the_schema_and_the_report_names_the_engine(tmp_path):
    from importlib.resources import files

    import jsonschema

    from auditor.report.build import build as build_report

    path = write(tmp_path / "d.csv", {**table(9, 200, labels=["a", "b", "c"]), "region": ["n", "s"] * 100}, "csv")
    result = audit_dataset(path, "gold", ["s0", "s1"], slice_column="region", engine="duckdb", bootstrap=50)
    schema = json.loads((files("auditor") / "audit.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(result.to_json())), schema)
    report = build_report(result, figures=False)
    assert "counted by duckdb]" in repr(report)


# --------------------------------------------------------------------------- pattern table too large: pairs' tables

@SPARK
def test_spark_pairs_route_gives_duckdbs(tmp_path, monkeypatch, spark_ready):
    import auditor.engines

    path = write(tmp_path / "d.jsonl", table(7, 500, systems=3, labels=["01", "1", "x y"]), "jsonl")
    monkeypatch.setattr(auditor.engines, "pattern_limit", lambda dataset, engine: 10)
    duck = count_dataset(open_dataset(path, "gold", ["s0", "s1", "s2"]), "duckdb")
    spark = count_dataset(open_dataset(path, "gold", ["s0", "s1", "s2"]), "spark")
    assert spark.counts.given_pairs is not None
    np.testing.assert_array_equal(spark.counts.confusion, duck.counts.confusion)
    assert {k: v.sha256 for k, v in duck.sources.items()} == {k: v.sha256 for k, v in spark.sources.items()}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_pairs_route_gives_the_full_tables_figures(tmp_path, monkeypatch, fmt):
    # The engine forms only every pair's (gold, a, b) table when the pattern table would not fit:
    # the audit must equal the full table's audit with its ranks from the pairs (same tables, same seeds).
    import auditor.engines
    from auditor.analyses import pairwise_resample

    path = write(tmp_path / f"d.{fmt}", table(5, 900, systems=4, labels=["01", "1", "x y", "é"]), fmt)
    systems = ["s0", "s1", "s2", "s3"]
    full = count_dataset(open_dataset(path, "gold", systems), "duckdb")
    monkeypatch.setattr(auditor.engines, "pattern_limit", lambda dataset, engine: 10)
    pairs = count_dataset(open_dataset(path, "gold", systems), "duckdb")
    assert pairs.counts.given_pairs is not None and pairs.counts.given_patterns is None
    np.testing.assert_array_equal(pairs.counts.confusion, full.counts.confusion)
    for a in range(4):
        for b in range(4):
            if a != b:
                for x, y in zip(pairs.counts.pair_patterns(a, b), full.counts.pair_patterns(a, b)):
                    np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="only each pair's"):
        pairs.counts.patterns()
    by_pairs = audit_dataset(path, "gold", systems, engine="duckdb", bootstrap=100).to_json()
    monkeypatch.undo()
    monkeypatch.setattr(pairwise_resample, "route", lambda counts: pairwise_resample.PAIRS)
    by_full = audit_dataset(path, "gold", systems, engine="duckdb", bootstrap=100).to_json()
    from importlib.resources import files

    import jsonschema

    jsonschema.validate(json.loads(json.dumps(by_pairs)),
                        json.loads((files("auditor") / "audit.schema.json").read_text()))
    assert by_pairs["statistics"]["rank_route"] == "pairs"
    assert by_pairs["sources"]["gold"]["hash_of"].startswith("each pair's")
    assert pairs.sources["s0"].counted["hash_of"].startswith("each pair's")
    for key in ("labels", "n_items", "systems", "statistics", "tests", "rankings", "profile"):
        assert by_pairs.get(key) == by_full.get(key), key


def test_pairs_route_refuses_missing_labels_with_their_counts(tmp_path, monkeypatch):
    import auditor.engines

    columns = table(6, 300, systems=4, labels=["a", "b", "c"])
    columns["s3"][:7] = ["NA"] * 7
    path = write(tmp_path / "d.csv", columns, "csv")
    monkeypatch.setattr(auditor.engines, "pattern_limit", lambda dataset, engine: 10)
    with pytest.raises(InputError, match=r"d.csv: column 's3': 7 rows without a label \('NA' ×7\)"):
        count_dataset(open_dataset(path, "gold", ["s0", "s1", "s2", "s3"]), "duckdb")


def test_pattern_limit_follows_the_memory():
    from auditor.engines import pattern_limit
    from auditor.engines.source import Dataset

    dataset = Dataset("d", ("d",), "parquet", "gold", ("a", "b", "c"))
    assert pattern_limit(dataset, "duckdb", memory=4 << 30) == int(0.25 * (4 << 30)) // (64 + 6 * 4)
    assert pattern_limit(dataset, "memory", memory=4 << 30) is None
    assert pattern_limit(Dataset("d", ("d",), "parquet", "gold", ("a",)), "duckdb", memory=1 << 30) is None
