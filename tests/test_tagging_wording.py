"""The tagging report defines what it shows (issue 36): the token metrics have definitions with the catalogue's
formula and references beside the span metrics', page 1 spells out its column abbreviations, and the References
are a section of their own (so the contents list them)."""
from __future__ import annotations

import pytest
from test_tagging_audit import GOLD, PRED, write

from auditor.metrics.registry import REGISTRY
from auditor.options import AuditOptions
from auditor.tasks.tagging.report import HEADLINE, TOKEN_SHOWN, build_report
from auditor.tasks.tagging.run import audit


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tagging")
    gold, pred = write(folder / "gold.txt", GOLD), write(folder / "pred.txt", PRED)
    return build_report(audit(gold, {"p": pred, "same": gold}, options=AuditOptions(bootstrap=20, seed=1)),
                        figures=False)


def test_every_token_metric_is_defined_with_the_catalogues_formula_and_references(model):
    definitions = {b.id: b for b in model.section("definitions").blocks if b.kind == "definition"}
    for metric in TOKEN_SHOWN:
        record = REGISTRY.metrics[metric]
        entry = definitions[metric]
        assert entry.formula.latex == record.formula
        facts = dict(entry.facts.pairs)
        assert facts["references"] == "; ".join(record.references) and facts["range"] == record.range_label
    notation = next(b.text for b in model.section("definitions").blocks if b.kind == "paragraph")
    assert "C_ij the number of tokens of gold tag i tagged j" in notation


def test_page_one_spells_out_its_abbreviations(model):
    caption = next(b.caption for b in model.section("summary").blocks if b.kind == "table")
    assert "μF1 = Span micro F1" in caption and "paF1 = " in caption
    assert "type macF1 = Macro F1 (mean of class F1), tokens over entity types" in caption
    assert len(HEADLINE) == caption.count(" = ")


def test_references_are_a_section_of_their_own(model):
    references = model.section("references")
    assert references is not None
    text = " ".join(b for block in references.blocks if block.kind == "bullets" for b in block.items)
    assert "Tjong Kim Sang" in text and "Opitz" in text  # the token metrics' source is cited now
