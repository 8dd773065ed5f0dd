"""A fast deterministic slice of ``benchmarks/fuzz_families.py`` (issue 19's families: several-column
files, quoted fields, ``--labels``, check-claim tables, matrix extremes, hostile names through
``report``; issue 37's: tagging files, translation texts and human scores, datasets across a glob in
memory and DuckDB, the planner): every case ends with the right numbers or the expected refusal, never
silently wrong, never an internal error. The long run is the benchmark script's (``--count 3000``)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "fuzz_families.py"


@pytest.fixture(scope="module")
def fuzz():
    spec = importlib.util.spec_from_file_location("fuzz_families", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [0, 1])
def test_every_family_right_or_refused_as_expected(fuzz, seed):
    outcomes, by_family, examples = fuzz.run(count=len(fuzz.FAMILIES) * 5, seed=seed, html_every=0)
    assert set(outcomes) <= {"correct", "refused as expected"}, dict(examples)
    assert set(by_family) == set(fuzz.FAMILIES)
    assert outcomes["correct"] > 0 and outcomes["refused as expected"] > 0


def test_the_conlleval_oracle_counts_as_the_script_prints(fuzz):
    """The ported counting against conlleval.pl's known behaviour: `I-X` after `O` opens a chunk, a type change
    inside a run closes one, a sentence break closes every chunk. Hand count: gold chunks PER(0-1), LOC(3), ORG(4);
    predicted PER(0-1), ORG(3), ORG(4) with the break between 3 and 4: found 3 and 3, right 2 (PER, ORG at 4);
    tokens 5, right tags 2 (positions 1 and 2)."""
    routes = fuzz.fuzz_routes
    gold = [["B-PER", "I-PER", "O", "I-LOC"], ["B-ORG"]]
    predicted = [["I-PER", "I-PER", "O", "B-ORG"], ["I-ORG"]]
    assert routes.conlleval_counts(gold, predicted) == (5, 2, 3, 3, 2)


def test_the_oracle_catches_a_wrong_answer(fuzz, tmp_path):
    """The harness can fail: a case whose truth is changed is reported silently wrong."""
    import random

    case = next(c for c in (fuzz.columns_case(random.Random(seed)) for seed in range(100)) if c.expect == "value")
    case.value += 0.25
    result = fuzz.run_case(case, tmp_path)
    assert fuzz.classify(case, result, tmp_path) == "silently wrong"
