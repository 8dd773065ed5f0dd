"""lm-evaluation-harness sample logs (``--lm-eval``): read as the harness wrote them, audited as classification over
answer positions. Oracles: the harness's own logged per-item metrics and results-file figures (real lm-eval 0.4.13
output in ``../shared/data/lmeval-dummy-format``; runs written by ``tests/lmeval_logs.py`` as the harness computes
them), pandas' crosstab for the confusion over positions, statsmodels' exact McNemar test."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from lmeval_logs import model_logliks, questions, write_gen_run, write_mc_run

import auditor
import auditor.analyses.outcomes
import auditor.pipeline
from auditor.cli import cli
from auditor.errors import InputError, UsageError
from auditor.io.lmeval import label_columns, read_run, read_runs


@pytest.fixture(scope="module")
def three_models(tmp_path_factory):
    """1,200 questions in 40 subjects; three models, one biased to the first choice; errors partly shared."""
    root = tmp_path_factory.mktemp("lmeval")
    docs = questions(1200)
    shared = np.random.default_rng(7).random(1200) < 0.15
    runs = {}
    for name, accuracy, bias, seed in (("model-a", 0.75, 0.0, 1), ("model-b", 0.70, 0.0, 2),
                                       ("model-first", 0.55, 0.9, 3)):
        write_mc_run(root / name, "arith_mc", docs, model_logliks(docs, accuracy, seed, bias, shared), model=name)
        runs[name] = str(root / name)
    return docs, runs


def audit_runs(runs, view="acc", task=None, **options):
    gold, systems, labels = label_columns(read_runs(runs, task), view)
    return auditor.audit(gold, systems, labels=labels, **options)


def test_dummy_model_logs_reproduce_the_results_file(shared_data):
    """Real lm-eval 0.4.13 output (string log-likelihoods): each run's acc and acc_norm equal its results file."""
    folder = shared_data / "lmeval-dummy-format"
    runs = read_runs([str(folder / "out_seed1"), str(folder / "out_seed2")], task="toy_mc")
    assert [run.name for run in runs] == ["out_seed1", "out_seed2"]  # the dummy model has no pretrained= name
    result = audit_runs([str(folder / "out_seed1"), str(folder / "out_seed2")], view="both", task="toy_mc",
                        bootstrap=0)
    for run in runs:
        assert run.n_items == 12 and run.kind == "multiple_choice"
        assert result.systems[run.name].metrics["accuracy"].value == pytest.approx(run.figures["acc,none"])
        assert result.systems[f"{run.name} [acc_norm]"].metrics["accuracy"].value == \
            pytest.approx(run.figures["acc_norm,none"])
        assert run.sha256 == hashlib.sha256(open(run.path, "rb").read()).hexdigest()
    document = result.to_json()
    assert document["sources"]["out_seed2"]["sha256"] == runs[1].sha256


def test_generation_rows_are_split_by_filter(shared_data):
    folder = shared_data / "lmeval-dummy-format" / "out_seed1"
    with pytest.raises(UsageError, match="several filters .*strict-match, flexible-extract"):
        read_run(str(folder), task="toy_gen")
    run = read_run(str(folder), task="toy_gen", filter_name="flexible-extract")
    assert run.kind == "generation" and run.n_items == 12 and run.skipped_lines == {"other filters": 12}
    assert run.logged["exact_match"].mean() == run.figures["exact_match,flexible-extract"]


def test_three_models_against_the_harness_pandas_and_statsmodels(three_models):
    pandas = pytest.importorskip("pandas")
    from statsmodels.stats.contingency_tables import mcnemar

    docs, runs = three_models
    read = read_runs([f"{name}={path}" for name, path in runs.items()])
    result = audit_runs([f"{name}={path}" for name, path in runs.items()], bootstrap=0)
    gold = np.array([doc["answer"] for doc in docs])
    for run in read:
        assert result.systems[run.name].metrics["accuracy"].value == pytest.approx(run.figures["acc,none"], abs=1e-15)
        crosstab = pandas.crosstab(pandas.Series(gold.astype(str)), pandas.Series(run.prediction.astype(str)))
        crosstab = crosstab.reindex(index=list(result.labels), columns=list(result.labels), fill_value=0)
        assert (result.systems[run.name].confusion == crosstab.to_numpy()).all()
    first = result.systems["model-first"]
    assert first.per_class["0"]["predicted"] > 2 * first.per_class["0"]["support"]  # the position bias is visible
    a, b = (read[0].prediction == gold), (read[1].prediction == gold)
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    expected = mcnemar(table, exact=True).pvalue
    tested = auditor.audit(*label_columns(read)[:2], labels=label_columns(read)[2], bootstrap=50).to_json()["tests"]
    pair = next(t for t in tested if t["metric"] == "accuracy" and {t["a"], t["b"]} == {"model-a", "model-b"})
    assert pair["method"] == "mcnemar_exact" and pair["p"] == pytest.approx(expected, rel=1e-12)


def test_numbers_and_strings_read_alike_and_targets_as_text(tmp_path):
    docs = questions(60, seed=3, prefix="= ")  # texts that are not digits (the harness reads digits as an index)
    logliks = model_logliks(docs, 0.6, 5)
    write_mc_run(tmp_path / "strings", "t", docs, logliks, model="m")
    write_mc_run(tmp_path / "numbers", "t", docs, logliks, model="m", strings=False)
    write_mc_run(tmp_path / "text", "t", docs, logliks, model="m", target_as_text=True)
    write_mc_run(tmp_path / "nodelimiter", "t", docs, logliks, model="m", delimiter="")
    read = [read_run(str(tmp_path / name)) for name in ("strings", "numbers", "text", "nodelimiter")]
    for run in read[1:]:
        assert (run.gold == read[0].gold).all() and (run.prediction == read[0].prediction).all()
        assert (run.prediction_norm == read[0].prediction_norm).all()
    assert read[0].name == "m"  # from config.model_args "pretrained=m"


def test_rows_without_a_filter_key_split_by_order(tmp_path):
    """Logs written before lm-eval PR #2025 repeat each document once per filter, in the results file's order."""
    docs = questions(30)
    outcomes = {"strict-match": np.arange(30) % 3 == 0, "flexible-extract": np.arange(30) % 2 == 0}
    write_gen_run(tmp_path / "old", "gen", docs, outcomes, filter_key=False)
    for name, values in outcomes.items():
        run = read_run(str(tmp_path / "old"), filter_name=name)
        assert (run.logged["exact_match"] == values).all()


def refuses(path, match, **keywords):
    with pytest.raises((InputError, UsageError), match=match):
        read_runs([str(path)] if not isinstance(path, list) else path, **keywords)


def test_bad_logs_are_refused_naming_the_line(tmp_path):
    docs = questions(10)
    samples = write_mc_run(tmp_path / "run", "t", docs, model_logliks(docs, 0.5, 1), model="m")
    rows = [json.loads(line) for line in samples.read_text().splitlines()]

    def rewrite(edit, name):
        edited = [dict(row) for row in rows]
        edit(edited)
        folder = tmp_path / name
        folder.mkdir()
        path = folder / samples.name
        path.write_text("".join(json.dumps(row) + "\n" for row in edited))
        return path

    refuses(rewrite(lambda r: r[3].update(target=[1, 2]), "list"), r"line 4: 'target' is a list")
    refuses(rewrite(lambda r: r[2].update(target="7"), "range"), r"line 3: 'target' '7' is no choice")
    refuses(rewrite(lambda r: r[5].update(acc=1.0 - r[5]["acc"]), "custom"), r"line 6: the row logs acc")
    refuses(rewrite(lambda r: r[1].update(doc_id=0), "twice"), r"doc_id 0 appears twice")
    changed = rewrite(lambda r: r[4].update(doc_hash="f" * 64), "hash")
    refuses([str(samples), str(changed)], r"line 5: doc_id 4 has doc_hash ffffffffffff")
    shorter = rewrite(lambda r: r.pop(), "short")
    refuses([str(samples), f"other={shorter}"], r"no row for doc_id 9")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / samples.name).write_text(samples.read_text().replace('"doc_id": 2,', '"doc_id": 2,,', 1))
    refuses(tmp_path / "bad", r"line 3: invalid JSON .*expected one JSON object per line")
    refuses([str(samples), str(samples)], r"two runs are named 'm'")


def test_command_line(three_models, tmp_path):
    docs, runs = three_models
    result = CliRunner().invoke(cli, ["score", "--json", "--bootstrap", "0",
                                      *(f"--lm-eval={path}" for path in runs.values())])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert set(document["systems"]) == set(runs) and document["labels"] == ["0", "1", "2", "3"]
    assert document["n_items"] == 1200
    wrong = CliRunner().invoke(cli, ["score", "gold.tsv", "--lm-eval", runs["model-a"]])
    assert wrong.exit_code == 2 and "--lm-eval replaces GOLD and SYSTEMS" in wrong.output
    lonely = CliRunner().invoke(cli, ["score", "--lm-eval-task", "x", "g", "s"])
    assert lonely.exit_code == 2 and "need --lm-eval" in lonely.output


def test_check_claim_reproduces_the_dummy_results_file(shared_data):
    folder = shared_data / "lmeval-dummy-format"
    results = next((folder / "out_seed1").glob("results_*.json"))
    done = CliRunner().invoke(cli, ["check-claim", "--lm-eval-results", str(results), "--lm-eval",
                                    str(folder / "out_seed1"), "--lm-eval", str(folder / "out_seed2"), "--json"])
    assert done.exit_code == 0, done.output
    document = json.loads(done.output)
    assert len(document["figures"]) == 8 and all(f["reproduced"] for f in document["figures"])
    assert {t["task"] for t in document["paired_tests"]} == {"toy_mc", "toy_gen"}


def test_check_claim_finds_a_changed_figure_and_runs_the_paired_test(three_models, tmp_path):
    from statsmodels.stats.contingency_tables import mcnemar

    docs, runs = three_models
    results_a = next(Path(runs["model-a"]).glob("results_*.json"))
    document = json.loads(results_a.read_text())
    document["results"]["arith_mc"]["acc,none"] += 0.001  # a claim one item off would be 1/1200 = 0.00083
    document["results"]["arith_mc"]["f1,none"] = 0.5  # no per-item f1 in the samples: not checkable
    changed = tmp_path / results_a.name
    changed.write_text(json.dumps(document))
    done = CliRunner().invoke(cli, ["check-claim", "--lm-eval-results", str(changed), "--lm-eval", runs["model-a"],
                                    "--lm-eval", runs["model-b"]])
    assert done.exit_code == 1, done.output
    assert "arith_mc acc,none" in done.output and "NO" in done.output and "cannot check" in done.output
    assert "NO: 1 of 5 figures differ" in done.output
    read = read_runs([runs["model-a"], runs["model-b"]])
    gold = read[0].gold
    a, b = read[0].prediction == gold, read[1].prediction == gold
    expected = mcnemar([[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]],
                       exact=True).pvalue
    from auditor.claims.lmeval import check_lm_eval

    test = next(t for t in check_lm_eval(str(changed), [runs["model-a"], runs["model-b"]]).paired if t.metric == "acc")
    assert test.p == pytest.approx(expected, rel=1e-12)
    assert CliRunner().invoke(cli, ["check-claim", "--lm-eval", runs["model-a"]]).exit_code == 2


def test_a_generation_task_is_audited_as_outcomes(tmp_path):
    """Three models' exact_match under two filters: the mean under the chosen filter equals the logged figure, the
    pair test is statsmodels' exact McNemar, and the interval's width is that of the normal approximation
    (2 × 1.96 × the harness's stderr) within 20% at N = 1,200."""
    from statsmodels.stats.contingency_tables import mcnemar

    docs = questions(1200)
    rng = np.random.default_rng(11)
    logged = {}
    for name, rate in (("gen-a", 0.62), ("gen-b", 0.55), ("gen-c", 0.54)):
        outcomes = {"strict-match": rng.random(1200) < rate - 0.1, "flexible-extract": rng.random(1200) < rate}
        write_gen_run(tmp_path / name, "arith_gen", docs, outcomes, model=name)
        logged[name] = outcomes
    arguments = [str(tmp_path / name) for name in logged]
    result = auditor.pipeline.audit_lm_eval(arguments, filter_name="flexible-extract", bootstrap=400, seed=3)
    document = result.to_json()
    for s, name in enumerate(logged):
        figures = json.loads(next((tmp_path / name).glob("results_*.json")).read_text())["results"]["arith_gen"]
        value = document["systems"][name]["metrics"]["exact_match"]
        assert value["value"] == pytest.approx(figures["exact_match,flexible-extract"], abs=1e-15)
        low, high = value["ci"]
        assert high - low == pytest.approx(2 * 1.96 * figures["exact_match_stderr,flexible-extract"], rel=0.2)
    a, b = logged["gen-a"]["flexible-extract"], logged["gen-b"]["flexible-extract"]
    expected = mcnemar([[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]],
                       exact=True).pvalue
    test = next(t for t in document["tests"] if {t["a"], t["b"]} == {"gen-a", "gen-b"})
    assert test["method"] == "mcnemar_exact" and test["p"] == pytest.approx(expected, rel=1e-12)
    assert document["statistics"]["best_set"]["exact_match"]["top"] == "gen-a"
    done = CliRunner().invoke(cli, ["score", *(f"--lm-eval={path}" for path in arguments),
                                    "--lm-eval-filter", "strict-match", "--bootstrap", "0"])
    assert done.exit_code == 0 and "mean exact_match" in done.output
    written = CliRunner().invoke(cli, ["report", *(f"--lm-eval={path}" for path in arguments), "--lm-eval-filter",
                                       "flexible-extract", "--bootstrap", "400", "--seed", "3", "-o",
                                       str(tmp_path / "out"), "--format", "json,md,html", "--quiet"])
    assert written.exit_code == 0, written.output
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    html = (tmp_path / "out" / "report.html").read_text()
    assert "do not apply" in summary and "exact McNemar test for exact_match (each item right or wrong" in html
    model = result.report_model(figures=False)
    leaderboard = next(b for b in model.section("summary").blocks if getattr(b, "id", "") == "summary-leaderboard")
    bold = {row.header for row in leaderboard.rows if row.cells[0].strong}
    assert bold == set(document["statistics"]["best_set"]["exact_match"]["systems"])  # bold = the best set
    assert [row.cells[0].value for row in leaderboard.rows] == sorted(
        (document["systems"][s]["metrics"]["exact_match"]["value"] for s in logged), reverse=True)
    ranks = next(b for b in model.section("rankings").blocks if getattr(b, "id", "") == "table-ranks")
    assert ranks.rows[0].header == "gen-a" and ranks.rows[0].cells[0].value == 1


@pytest.fixture(scope="module")
def small_generation_runs(tmp_path_factory):
    """Three models' exact_match on 40 questions in 8 subjects (one filter): (folder paths, per-item outcomes)."""
    root = tmp_path_factory.mktemp("generation")
    docs = questions(40, subjects=8)
    rng = np.random.default_rng(12)
    logged = {}
    for name, rate in (("gen-a", 0.8), ("gen-b", 0.55), ("gen-c", 0.5)):
        logged[name] = rng.random(40) < rate
        write_gen_run(root / name, "arith_gen", docs, {"flexible-extract": logged[name]}, model=name)
    return [str(root / name) for name in logged], logged


def _schema_errors(document: dict) -> list[str]:
    import jsonschema

    schema = json.loads((Path(__file__).parents[1] / "auditor" / "audit.schema.json").read_text(encoding="utf-8"))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}"
            for e in jsonschema.Draft202012Validator(schema).iter_errors(document)]


@pytest.mark.parametrize("extra", [("--bootstrap", "200", "--seed", "4"), ("--bootstrap", "0"),
                                   ("--bootstrap", "200", "--lm-eval-cluster", "subject")])
def test_generation_outcomes_write_the_one_record(small_generation_runs, extra):
    """audit.json of generation outcomes is valid against the schema and holds the record every task kind writes
    (docs/architecture.md, "The audit record"): sources with the SHA-256 of each samples file as stored (hashlib),
    top-level options, signature, tests, rankings; every metric entry's four keys; the shared statistics with the
    best set as {top, systems, ...}. Ranks and intervals are recomputed from the resamples drawn here (numpy's
    ``default_rng([seed, 35]).integers``, as the spine's resampler documents), ranks by scipy's ``rankdata``."""
    from scipy.stats import rankdata

    arguments, logged = small_generation_runs
    done = CliRunner().invoke(cli, ["score", "--json", "--quiet", *(f"--lm-eval={path}" for path in arguments),
                                    *extra])
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    assert _schema_errors(document) == []
    assert document["schema"] == "auditor/3" and document["task"] == "outcomes"
    for name, path in zip(logged, arguments):
        samples = next(Path(path).glob("samples_*.jsonl"))
        assert document["sources"][name]["sha256"] == hashlib.sha256(samples.read_bytes()).hexdigest()
        assert set(document["systems"][name]["metrics"]["exact_match"]) == {"value", "ci", "undefined", "convention"}
    assert document["outcomes"] == {"metric": "exact_match", "binary": True,
                                    "not_applicable": auditor.analyses.outcomes.NOT_APPLICABLE}
    assert document["options"]["lm_eval_filter"] == "flexible-extract" and document["signature"].startswith("auditor:")
    assert "tests" not in document["statistics"] and len(document["tests"]) == 3
    statistics = document["statistics"]
    best = statistics["best_set"]["exact_match"]
    assert best["top"] == "gen-a" and best["top"] in best["systems"] and set(best["p_adjusted"]) == {"gen-b", "gen-c"}
    values = np.array([logged[name] for name in logged], dtype=float)
    assert document["rankings"] == {"exact_match": [list(logged)[s] for s in np.argsort(-values.mean(axis=1))]}
    if statistics["B"] == 0:  # nothing drawn: McNemar's exact tests only, no ranks, and the record says why
        assert statistics["ranks"] == {} and "intervals" in statistics["not_run"]
        assert {t["method"] for t in document["tests"]} == {"mcnemar_exact"}
        return
    if "--lm-eval-cluster" in extra:
        assert statistics["resampling"]["clusters"] == 8 and document["options"]["lm_eval_cluster"] == "subject"
        assert {t["method"] for t in document["tests"]} == {"approximate_randomisation"}
        return
    index = np.random.default_rng([4, 35]).integers(0, 40, size=(200, 40))
    means = values[:, index].mean(axis=2).T  # (B, S)
    first, last = (np.apply_along_axis(lambda row: rankdata(-row, method), 1, means) for method in ("min", "max"))
    for s, name in enumerate(logged):  # tied systems share the ranks they span equally
        expected = [np.mean(((first[:, s] <= r) & (r <= last[:, s])) / (last[:, s] - first[:, s] + 1))
                    for r in (1, 2, 3)]
        assert statistics["ranks"]["exact_match"][name]["p_rank"] == pytest.approx(expected, abs=1e-12)
        low, high = np.percentile(means[:, s], [2.5, 97.5])
        assert document["systems"][name]["metrics"]["exact_match"]["ci"] == pytest.approx([low, high], abs=1e-12)


def test_outcomes_of_scores_and_of_one_system_are_valid_records():
    """Values in [0, 1] (approximate randomisation) and a single system (no pair, a best set of one) validate."""
    from auditor.analyses.outcomes import analyse
    from auditor.report.outcomes import OutcomesAudit

    values = np.random.default_rng(2).random((2, 30))
    sources = {name: {"path": f"{name}.jsonl", "sha256": "0" * 64, "n_items": 30} for name in ("x", "y")}
    inputs = {"lm_eval_task": "t", "lm_eval_filter": "none", "lm_eval_cluster": None}
    for B, names in ((20, ("x", "y")), (0, ("x", "y")), (20, ("x",))):
        document = json.loads(json.dumps(OutcomesAudit.of(analyse("f1", names, values[:len(names)], B, 1, 0.05, "holm",
                                                          sources, inputs=inputs)).to_json()))
        assert _schema_errors(document) == [], (B, names)
        assert document["outcomes"]["binary"] is False
        assert (document["statistics"]["randomisation_rounds"] > 0) == (B > 0 and len(names) > 1)


def test_randomisation_for_values_that_are_not_0_or_1():
    """A per-item score in [0, 1]: the pair test is approximate randomisation; two identical systems get p = 1, a
    shifted one a small p (checked against the exact sign-flip distribution enumerated over 12 items)."""
    from itertools import product

    from auditor.analyses.outcomes import analyse

    rng = np.random.default_rng(0)
    d = rng.normal(0.3, 1.0, size=12)
    exact = np.mean([abs(np.dot(signs, d)) >= abs(d.sum()) - 1e-12 for signs in product((-1, 1), repeat=12)])
    assert analyse("f1", ["x", "y"], np.vstack([d, np.zeros(12)]), 10, 1, 0.05, "holm").pairs[0].p == \
        pytest.approx(exact, abs=0.01)
    values = rng.random((2, 500))
    result = analyse("f1", ["x", "y"], np.vstack([values[0], values[0]]), 10, 1, 0.05, "holm")
    assert result.pairs[0].method == "approximate_randomisation" and result.pairs[0].p == 1.0
    assert result.warnings == ("x = y: the same f1 on every item (the same log under two names?); they tie under "
                               "every test",)
    # --bootstrap 0: no randomisation rounds, so no test and no best set, and the JSON says why
    none = analyse("f1", ["x", "y"], values, 0, 1, 0.05, "holm")
    assert none.pairs == () and none.best_set == () and "randomisation" in none.statistics_json()["not_run"]
    shifted = analyse("f1", ["x", "y"], np.vstack([values[0], np.clip(values[0] - 0.2, 0, 1)]), 10, 1, 0.05, "holm")
    assert shifted.pairs[0].p < 0.001 and shifted.best_set == ("x",)


def test_the_vectorised_reading_equals_the_row_by_row_one(tmp_path):
    """Rows read at once (numpy over every row) and one by one (the path that names a bad line) give the same gold
    and predictions, with ties (the first highest wins, as np.argmax in the harness), ragged choice counts and
    numbers or strings."""
    from auditor.io.lmeval import _choices_at_once, _choices_by_row

    rng = np.random.default_rng(5)
    rows = []
    for i in range(300):
        k = int(rng.integers(2, 6))
        logliks = np.round(-rng.random(k), 1)  # rounded: ties happen
        texts = ["x" * int(rng.integers(1, 6)) for _ in range(k)]
        pairs = [[str(x), "False"] if i % 2 else [float(x), False] for x in logliks]
        rows.append({"target": str(int(rng.integers(0, k))), "filtered_resps": pairs,
                     "arguments": {f"gen_args_{j}": {"arg_0": "q", "arg_1": " " + t} for j, t in enumerate(texts)}})
    lines = np.arange(1, 301)
    fast = _choices_at_once(rows, " ")
    assert fast is not None
    for a, b in zip(fast, _choices_by_row(rows, lines, Path("x"), " ")):
        assert (a == b).all()
    rows[7]["filtered_resps"][1] = ["-0.5"]
    assert _choices_at_once(rows, " ") is None
    with pytest.raises(InputError, match="line 8: 'filtered_resps' must hold one"):
        _choices_by_row(rows, lines, Path("x"), " ")
