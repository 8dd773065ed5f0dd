"""The multi-label demo generator: deterministic files the multi-label audit reads, with a winner that depends on
the metric (tests read the generated files only, never shared data)."""
from __future__ import annotations

from auditor.demo.run import generate
from auditor.options import AuditOptions
from auditor.tasks.multilabel.run import audit


def test_the_demo_is_deterministic_and_the_winner_depends_on_the_metric(tmp_path):
    demo = generate("multilabel", seed=7, size=400)
    assert generate("multilabel", seed=7, size=400).files == demo.files
    for path, text in demo.files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    result = audit(str(tmp_path / demo.gold), {name: str(tmp_path / path) for name, path in demo.systems.items()},
                   options=AuditOptions(bootstrap=0))
    document = result.to_json()
    assert document["options"]["thresholds"]["systems"] == ["model-scores"]
    winners = document["rank_disagreement"]["winners"]
    assert len({winners["subset_accuracy"], winners["micro_f1"], winners["samples_f1"]}) > 1


def test_the_chance_section_states_the_alpha_level(tmp_path):
    """--alpha 0.1: the chance ranges are 90% ranges and the section says so (it said 95% whatever the level)."""
    demo = generate("multilabel", seed=7, size=120)
    for path, text in demo.files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    result = audit(str(tmp_path / demo.gold), {name: str(tmp_path / path) for name, path in demo.systems.items()},
                   options=AuditOptions(bootstrap=20, alpha=0.1), analyses=["baselines"])
    section = next(s for s in result.report_model(figures=False).sections if s.id == "chance")
    text = " ".join(block.text for block in section.blocks if hasattr(block, "text"))
    assert "the 90% range of the draws" in text and "95%" not in text
    assert {b["alpha"] for b in result.to_json()["multilabel"]["chance"].values()} == {0.1}
