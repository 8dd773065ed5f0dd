"""Translation task (issue 23) through the command line: reading rules, bad input, audit.json
against the schema, human agreement against scipy."""
from __future__ import annotations

import json
import random
from importlib import resources

import jsonschema
import numpy as np
import pytest
import scipy.stats
from click.testing import CliRunner

from auditor.cli import cli

WORDS = "the a cat dog sat on mat . , house big small runs Haus über".split()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("mt")
    rng = random.Random(3)

    def text(n=40):
        return "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9))) for _ in range(n)) + "\n"

    paths = {}
    for name in ("ref", "ref2", "A", "B", "C", "D"):
        paths[name] = root / f"{name}.txt"
        paths[name].write_text(text(), encoding="utf-8")
    human = root / "human.tsv"
    human.write_text("".join(f"{s}\t{i}\t{'None' if i % 5 == 0 else rng.random()}\n" for s in "ABCD"
                             for i in range(1, 41)), encoding="utf-8")
    paths["human"] = human
    return paths


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_score_prints_every_metric_with_intervals(files):
    result = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], "--bootstrap", "50",
                  "--quiet")
    assert result.exit_code == 0, result.output
    assert "MacroF" in result.output and "chrF" in result.output and "task:translation" in result.output
    only = _run("score", "--task", "translation", files["ref"], files["A"], "-m", "bleu", "--bootstrap", "0")
    assert "BLEU" in only.output and "MacroF" not in only.output
    unknown = _run("score", "--task", "translation", files["ref"], files["A"], "-m", "accuracy")
    assert unknown.exit_code == 2 and "not micro-averaged F1" in unknown.output


def test_a_line_count_mismatch_names_both_files_and_counts(files, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("one\ntwo\n", encoding="utf-8")
    result = _run("report", "--task", "translation", files["ref"], short, "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert f"{short} has 2 lines but {files['ref']} has 40" in result.output
    assert not (tmp_path / "out").exists()


def test_non_utf8_and_missing_files_are_refused(files, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe\n")
    result = _run("score", "--task", "translation", files["ref"], bad)
    assert result.exit_code == 2 and "line 2 (byte 3): not UTF-8" in result.output
    result = _run("score", "--task", "translation", files["ref"], tmp_path / "nope.txt")
    assert result.exit_code == 2 and "no such file" in result.output


def test_report_json_follows_the_schema(files, tmp_path):
    out = tmp_path / "out"
    result = _run("report", "--task", "translation", files["ref"], files["A"], files["B"], files["C"], "--reference",
                  files["ref2"], "--human", files["human"], "--bootstrap", "100", "-o", out, "--format",
                  "json,md,tex,html", "--quiet")
    assert result.exit_code == 0, result.output
    document = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    schema = json.loads((resources.files("auditor") / "audit.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(document)
    assert document["task"] == "translation" and document["n_items"] == 40
    assert set(document["systems"]["A"]["metrics"]) == {"macrof", "microf", "bleu", "chrf"}
    assert document["human"]["missing_segments"] == {"A": 8, "B": 8, "C": 8}
    assert "labels" not in document and "baselines" not in document
    assert {t["method"] for t in document["tests"]} == {"approximate_randomisation", "paired_bootstrap"}
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "MacroF" in summary and "Gowda, T., You, W., Lignos, C." in summary
    # issue 36: every work the page leans on is in References; one sentence for the type-F convention, not a
    # ledger entry per cell; the human scores' direction said; sacrebleu's > against our ≥ said
    for work in ("Papineni, K., Roukos, S.", "Popović, M. (2015)", "Post, M. (2018)", "Holm, S. (1979)",
                 "Koehn, P. (2004)", "Riezler, S. \\& Maxwell, J. T. (2005)", "Kendall, M. G. (1945)",
                 "Noreen, E. W. (1989)", "Efron, B. \\& Stein, C. (1981)", "Freitag, M., Rei, R.",
                 "Freitag, M., Foster, G."):
        assert work in summary, work
    assert "Every MacroF and MicroF value follows the authors' code" in summary
    assert "| share of types (%) |" in summary  # a share column says its unit in tables.tex and summary.md
    assert "human system scores; brackets: 95% interval from the segment bootstrap (100 resamples)" in summary
    assert "test against it, approximate randomisation, Holm-adjusted" in summary  # the bold's test, as pasted
    assert "P_c = 1 for the" not in summary  # no per-system convention footnote
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "higher is better, as given" in page and "count &gt; where these count ≥" in page
    assert document["human"]["leader"] in {"macrof", "microf", "bleu", "chrf"}
    broken = dict(document, labels=["x"])
    assert not jsonschema.Draft202012Validator(schema).is_valid(broken)


def test_human_agreement_equals_scipy(files, tmp_path):
    """Segment-level scores: system score = mean of rated segments; τ-b and r as scipy computes them."""
    result = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], files["C"], files["D"],
                  "--human", files["human"], "--bootstrap", "0", "--json")
    document = json.loads(result.stdout)
    systems = ["A", "B", "C", "D"]
    human = {s: [] for s in systems}
    for line in files["human"].read_text().splitlines():
        s, _, v = line.split("\t")
        if v != "None":
            human[s].append(float(v))
    means = [np.mean(human[s]) for s in systems]
    assert [document["human"]["scores"][s] for s in systems] == pytest.approx(means)
    for metric in ("macrof", "bleu"):
        values = [document["systems"][s]["metrics"][metric]["value"] for s in systems]
        agreement = document["human_agreement"][metric]
        assert agreement["kendall_tau"]["value"] == pytest.approx(scipy.stats.kendalltau(values, means).statistic)
        assert agreement["pearson"]["value"] == pytest.approx(scipy.stats.pearsonr(values, means).statistic)


def test_system_level_lower_better_scores(files, tmp_path):
    """MQM-like: lower is better. Scores equal to minus BLEU give τ = 1 with BLEU."""
    base = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], files["C"], "--bootstrap",
                "0", "--json")
    bleu = {s: v["metrics"]["bleu"]["value"] for s, v in json.loads(base.stdout)["systems"].items()}
    human = tmp_path / "system.tsv"
    human.write_text("".join(f"{s}\t{-v}\n" for s, v in bleu.items()), encoding="utf-8")
    result = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], files["C"], "--human", human,
                  "--human-lower-better", "--bootstrap", "0", "--json")
    document = json.loads(result.stdout)
    assert document["human_agreement"]["bleu"]["kendall_tau"]["value"] == pytest.approx(1.0)
    assert document["human"]["level"] == "system"


def test_wmt_direct_assessment_ranking_files_read_their_z_means(files, tmp_path):
    """WMT's published DA system ranking (humaneval/DA/*/ad-sys-ranking-*.csv): raw mean, z mean, two counts, the
    system id and (``-names`` files) its name, separated by spaces. The score is the z mean; an id's ``.N`` suffix
    is dropped when no audited system has the id itself; a human row (``HUMAN-B``) not audited is left out."""
    names = tmp_path / "ad-sys-ranking-z-names.csv"
    names.write_text("68.8 0.004 1799 2181 A.1 A\n70.8 -0.023 1825 2292 B.2 B\n68.3 -0.086 1699 2127 HUMAN-B HUMAN\n"
                     "64.8 -0.126 1669 2075 C.4 C\n", encoding="utf-8")
    raw = tmp_path / "ad-sys-ranking-raw.csv"
    raw.write_text("70.8 -0.023 1825 2292 B.2 \n68.8 0.004 1799 2181 A.1 \n64.8 -0.126 1669 2075 C.4 \n"
                   "61.2 -0.29 1285 1600 HUMAN-C \n", encoding="utf-8")
    for path in (names, raw):
        result = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], files["C"], "--human",
                      path, "--bootstrap", "0", "--json")
        document = json.loads(result.stdout)
        assert document["human"]["scores"] == {"A": 0.004, "B": -0.023, "C": -0.126}
        assert document["human"]["level"] == "system" and len(document["human"]["skipped_systems"]) == 1
        bleu = [document["systems"][s]["metrics"]["bleu"]["value"] for s in "ABC"]
        assert document["human_agreement"]["bleu"]["kendall_tau"]["value"] == pytest.approx(
            scipy.stats.kendalltau(bleu, [0.004, -0.023, -0.126]).statistic)
        reasons = document["recommendation"]["metrics"][0]["reasons"]  # no interval: no lead is called significant
        assert any("but without intervals (--bootstrap 0) its lead is not tested" in r for r in reasons)
        assert not any("not significant" in r or "contain 0" in r for r in reasons)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("68.8 0.004 1799 2181 A.1 A\nB\t0.5\n", encoding="utf-8")
    result = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], "--human", mixed)
    assert result.exit_code == 2 and "mixed.csv line 2: expected a line of WMT's DA system ranking" in result.output


def test_wmt22_de_en_against_sacrebleu_and_scipy_with_its_published_ranking(shared_data):
    """The real WMT22 general test (German to English: 9 systems, reference A) with the organisers' DA z ranking:
    BLEU and chrF equal sacrebleu's, and each metric's τ-b with the z means equals scipy's over those values."""
    import sacrebleu

    folder = shared_data / "wmt22-de-en"
    reference = folder / "generaltest2022.de-en.ref.A.en"
    systems = {p.name.split(".hyp.")[1][:-3]: p for p in sorted(folder.glob("generaltest2022.de-en.hyp.*.en"))}
    result = _run("score", "--task", "translation", reference, *(f"{s}={p}" for s, p in systems.items()), "--human",
                  folder / "ad-sys-ranking-de-en-z-names.csv", "--bootstrap", "0", "--json")
    document = json.loads(result.stdout)
    refs = [reference.read_text(encoding="utf-8").split("\n")[:-1]]
    z = {line.split()[5]: float(line.split()[1]) for line in
         (folder / "ad-sys-ranking-de-en-z-names.csv").read_text().splitlines()}
    assert document["human"]["scores"] == {s: z[s] for s in systems}
    assert document["human"]["skipped_systems"] == ["HUMAN"]
    for name, path in list(systems.items())[:3]:
        hypotheses = path.read_text(encoding="utf-8").split("\n")[:-1]
        metrics = document["systems"][name]["metrics"]
        assert 100 * metrics["bleu"]["value"] == pytest.approx(sacrebleu.corpus_bleu(hypotheses, refs).score)
        assert 100 * metrics["chrf"]["value"] == pytest.approx(sacrebleu.corpus_chrf(hypotheses, refs).score)
    for metric in ("macrof", "bleu", "chrf"):
        values = [document["systems"][s]["metrics"][metric]["value"] for s in systems]
        assert document["human_agreement"][metric]["kendall_tau"]["value"] == pytest.approx(
            scipy.stats.kendalltau(values, [z[s] for s in systems]).statistic)


def test_the_human_agreement_recommendation_states_the_level_alpha_gives(files):
    """--alpha 0.1: the leader's paired τ intervals are 90% ones, and the recommendation says so (it said 95%)."""
    result = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], files["C"], files["D"],
                  "--human", files["human"], "--bootstrap", "60", "--alpha", "0.1", "--json")
    reasons = " ".join(json.loads(result.stdout)["recommendation"]["metrics"][0]["reasons"])
    assert "paired 90% interval" in reasons and "95%" not in reasons


def test_a_human_file_without_an_audited_system_is_refused(files, tmp_path):
    human = tmp_path / "partial.tsv"
    human.write_text("A\t1.0\n", encoding="utf-8")
    result = _run("score", "--task", "translation", files["ref"], files["A"], files["B"], "--human", human)
    assert result.exit_code == 2 and "no human score for system 'B'" in result.output


def test_classification_options_are_refused(files):
    result = _run("score", "--task", "translation", files["ref"], files["A"], "--slices", files["ref"])
    assert result.exit_code == 2 and "--slices is for classification" in result.output


def test_the_wmt21_example_reproduces_its_kept_figures_and_sacrebleu(wmt21_dir):
    """WMT21 TED (the ``wmt21_dir`` fixture): 529 segments, 13 systems; every metric value kept in
    tests/expectations/wmt21.json recomputed (values do not depend on the bootstrap), BLEU equal to sacrebleu's
    corpus call."""
    from pathlib import Path

    import sacrebleu

    from auditor.options import AuditOptions
    from auditor.tasks.translation import audit

    root = wmt21_dir
    systems = {p.stem: p for p in sorted((root / "systems").glob("*.txt"))}
    result = audit(root / "ref.txt", systems, options=AuditOptions(bootstrap=0), human=root / "human.tsv")
    kept = json.loads((Path(__file__).resolve().parent / "expectations" / "wmt21.json").read_text(encoding="utf-8"))
    assert result.n_items == kept["/n_items"] == 529 and len(systems) == 13
    for name in systems:
        for metric in ("macrof", "microf", "bleu", "chrf"):
            assert result.value(name, metric) == pytest.approx(kept[f"/systems/{name}/metrics/{metric}/value"],
                                                               rel=1e-12)
    reference = (root / "ref.txt").read_text(encoding="utf-8").splitlines()
    hypothesis = systems["Facebook-AI"].read_text(encoding="utf-8").splitlines()
    assert 100 * result.value("Facebook-AI", "bleu") == pytest.approx(
        sacrebleu.corpus_bleu(hypothesis, [reference]).score, rel=1e-12)
    assert kept["/human/missing_segments/Nemo"] == 0
    assert result.to_json()["human"]["missing_segments"]["Nemo"] == 0


def test_above_eight_systems_each_is_tested_against_each_metrics_leader(files, tmp_path):
    from auditor.options import AuditOptions
    from auditor.tasks.translation import audit

    systems = {f"s{i}": files["ABCD"[i % 4]] if i < 4 else files["ref2"] for i in range(9)}
    result = audit(files["ref"], systems, options=AuditOptions(bootstrap=20))
    leaders = {result.rankings.ranking(m)[0] for m in ("macrof", "microf", "bleu", "chrf")}
    pairs = {(t.a, t.b) for t in result.tests}
    assert pairs and all(a in leaders or b in leaders for a, b in pairs)
    assert {b for a, b in pairs} | {a for a, b in pairs} == set(systems)
    assert "each system is tested against the leaders only, not all 36 pairs" in result.statistics.family
    leader = result.rankings.ranking("bleu")[0]
    assert f"BLEU: {leader}" in result.statistics.family
    statistics = result.to_json()["statistics"]
    assert statistics["family"] == result.statistics.family
    assert statistics["family_sizes"]["bleu"] == len(pairs)
    significance = next(s for s in result.report_model(figures=False).sections if s.id == "significance")
    assert any(result.statistics.family in getattr(block, "text", "") for block in significance.blocks)


def test_human_lines_of_systems_not_audited_are_counted_named_and_warned(files, tmp_path):
    human = tmp_path / "extra.tsv"
    human.write_text("A\t1.0\nB\t2.0\nref-A\t3.0\nC\t0.5\nref-B\t1.5\nref-A\t9.0\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, [str(a) for a in (
        "report", "--task", "translation", files["ref"], files["A"], files["B"], "--human", human, "--bootstrap", "0",
        "-o", out, "--format", "json,md", "--quiet")])
    assert result.exit_code == 0, result.output
    assert f"auditor: warning: {human}: the lines of 3 systems not audited are left out: ref-A, C, ref-B" \
        in result.stderr
    document = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    assert document["human"]["skipped_systems"] == ["ref-A", "C", "ref-B"]
    assert document["human"]["scores"] == {"A": 1.0, "B": 2.0}
    assert "3 systems in the file that are not audited are left out: ref-A, C, ref-B" in \
        (out / "summary.md").read_text(encoding="utf-8")
    schema = json.loads((resources.files("auditor") / "audit.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(document)
