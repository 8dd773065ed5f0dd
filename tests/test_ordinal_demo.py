"""``auditor demo --task ordinal``: each simulated rater shows the behaviour page 1's note promises, the audit is
valid against the schema, and ``auditor report`` on the written files gives the same figures."""
from __future__ import annotations

import json

from click.testing import CliRunner
from test_demo import assert_valid, run_demo

from auditor.cli import cli


def test_the_ordinal_demo_raters_behave_as_described(tmp_path):
    outdir = tmp_path / "ordinal"
    audit = run_demo(outdir, "--task", "ordinal", "--size", "600")
    assert audit["task"] == "ordinal" and audit["about_data"].startswith("Simulated, not a real evaluation: 600")
    assert_valid(audit)
    value = {name: {m: entry["value"] for m, entry in system["metrics"].items()}
             for name, system in audit["systems"].items()}
    assert max(value, key=lambda s: value[s]["mae_macro"]) == "five-stars"  # the majority rating: worst MAE_M
    assert audit["constant_baselines"]["median_level"] == "4" and audit["constant_baselines"]["best_constant"][
        "mae"] == ["4"]
    assert value["regressor-cutpoints"]["mae_macro"] < value["regressor-rounded"]["mae_macro"]
    assert value["regressor-cutpoints"]["mae"] > value["regressor-rounded"]["mae"]
    shares = audit["level_shift"]["systems"]["sentiment-3way"]["counts"]
    assert shares[1] == shares[3] == 0  # never 2 or 4 stars
    systems = sorted(str(p) for p in (outdir / "data" / "systems").glob("*.tsv"))
    rerun = CliRunner().invoke(cli, ["report", "--task", "ordinal", str(outdir / "data" / "gold.tsv"), *systems,
                                     "--order-file", str(outdir / "data" / "order.txt"), "-o", str(tmp_path / "rerun"),
                                     "--format", "json", "--quiet"])
    assert rerun.exit_code == 0, rerun.output
    again = json.loads((tmp_path / "rerun" / "audit.json").read_text(encoding="utf-8"))
    assert again["systems"] == audit["systems"]
