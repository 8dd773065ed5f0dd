"""Citations: the recommendation's passages carry their bib entry (``reference``: key and the
author-year citation) beside the source file name scripts read, and no rendered output (HTML, PDF
text, Markdown, TeX) ever names a source file."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import auditor
from auditor.analyses.recommend import REFERENCES
from auditor.report.references import references

#: File names of the sources the project quotes (the recommendation's constants), and any "x-y.md".
SOURCE_FILE = re.compile(r"[\w-]+-[\w-]+\.md\b")


def test_every_passage_names_its_bib_entry_and_the_citation_is_the_entrys():
    for file, (key, citation) in REFERENCES.items():
        assert file.endswith(".md")
        assert references()[key].cite == citation  # "Opitz 2024", "Vickers et al. 2023" from the bib's authors


@pytest.fixture(scope="module")
def audited():
    rng = np.random.default_rng(7)
    gold = rng.choice(["a", "b", "c", "d"], 600, p=[0.6, 0.25, 0.1, 0.05])
    systems = {"good": np.where(rng.random(600) < 0.7, gold, "a"), "noise": rng.choice(["a", "b", "c", "d"], 600)}
    return auditor.audit(gold, systems, bootstrap=50, seed=2)


def test_json_passages_keep_file_and_add_reference(audited):
    recommendation = audited.to_json()["recommendation"]
    passages = [p for part in ("metrics", "avoid", "notes", "rules") for entry in recommendation.get(part, [])
                for p in entry.get("sources", [])]
    assert passages
    for passage in passages:
        key, citation = REFERENCES[passage["file"]]
        assert passage["reference"] == {"key": key, "citation": citation}


def test_no_rendered_output_names_a_source_file(small_report):
    """The run's one small report (conftest), every format but the JSON (which keeps the file names)."""
    texts = {path.name: path.read_text(encoding="utf-8") for path in map(Path, small_report["written"])
             if path.suffix in (".html", ".tex", ".md")}
    texts["report.pdf"] = small_report["pdf_text"]
    assert set(texts) == {"report.html", "report.pdf", "tables.tex", "summary.md"}
    assert "Opitz 2024" in texts["report.html"] and "Opitz 2024" in texts["summary.md"]
    for name, text in texts.items():
        flat = text.replace("\\_", "_").replace("\n", "")
        assert not SOURCE_FILE.search(flat), (name, SOURCE_FILE.search(flat).group(0))
        for file in REFERENCES:
            assert file not in flat, (name, file)
