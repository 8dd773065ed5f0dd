"""Terminal output at 80 columns (issue 36): the score tables of tagging and translation, the metric catalogue
with every column (PV included), and one-step progress stages without a "0/1" count."""
from __future__ import annotations

import io

from rich.console import Console

from auditor.formatting import fit_lines


def test_fit_lines_keeps_intervals_inline_when_they_fit_and_stacks_them_otherwise():
    rows = [("A", ["49.3 [46.0, 52.2]", "1.0"]), ("B", ["5.0", "2.0 [1.0, 3.0]"])]
    narrow = fit_lines(["span_micro_f1", "x"], rows, 40)
    assert all(len(line) <= 40 for line in narrow)
    assert narrow[1].split() == ["A", "49.3", "1.0"] and narrow[2].split() == ["[46.0,", "52.2]"]
    wide = fit_lines(["span_micro_f1", "x"], rows, 80)
    assert len(wide) == 3 and "49.3 [46.0, 52.2]" in wide[1]
    many = fit_lines([f"metric_{i}" for i in range(9)], [("A", ["12.3 [10.0, 14.0]"] * 9)], 80)
    assert all(len(line) <= 80 for line in many) and sum(line.startswith("system") for line in many) == 2


def test_catalogue_fits_80_columns_with_the_pv_column():
    from auditor.terminal import print_catalogue

    out = io.StringIO()
    print_catalogue(Console(file=out, width=80))
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if line.startswith("id"))
    assert header.split()[-5:] == ["PI", "PII", "PIII", "PIV", "PV"]
    accuracy = next(line for line in lines if line.startswith("accuracy "))
    assert accuracy.split()[-1] == "none" and "strict" in next(line for line in lines
                                                                if line.startswith("macro_recall "))
    assert "[1/k, 1]" in next(line for line in lines if line.startswith("nit "))


def test_tagging_score_lines_fit_80_columns(tmp_path):
    from auditor.options import AuditOptions
    from auditor.tasks.tagging.run import audit

    gold = tmp_path / "gold.txt"
    gold.write_text("Ann\tB-PER\nLee\tI-PER\nin\tO\nRome\tB-LOC\n\nBig\tB-ORG\nCorp\tI-ORG\n", encoding="utf-8")
    pred = tmp_path / "a-rather-long-system-name.txt"
    pred.write_text("Ann\tB-PER\nLee\tO\nin\tO\nRome\tB-LOC\n\nBig\tB-ORG\nCorp\tB-ORG\n", encoding="utf-8")
    result = audit(str(gold), {"a-rather-long-system-name": str(pred), "same": str(gold)},
                   options=AuditOptions(bootstrap=30))
    lines = result.terminal_lines()
    assert max(len(line) for line in lines) <= 80
    assert any(line.startswith("system") and "span_micro_f1" in line for line in lines)


def test_a_one_step_stage_shows_no_count():
    from auditor.progress import Progress

    progress = Progress(enabled=True)
    with progress.task("tokenising and counting", total=1) as advance:
        advance(1)  # runs without a MofN column (rich's spinner instead)
