"""The linter runs with the tests: ruff (its rules in pyproject.toml: pyflakes ``F``, import order
``I``, syntax errors ``E9``, lines over 120 characters ``E501``) over the package, the tests, the benchmarks and the
examples."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    try:
        import ruff  # noqa: F401 - the test extra installs it
    except ImportError:
        found = shutil.which("ruff")
        if found is None:
            pytest.fail("ruff is not installed: pip install '.[test]'")
        return [found]
    return [sys.executable, "-m", "ruff"]


def test_ruff_finds_nothing():
    result = subprocess.run([*_ruff(), "check", "--no-cache", "auditor", "tests", "benchmarks", "examples"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_rules_include_pyflakes_import_order_and_the_line_length():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]
    assert {"F", "I", "E501"} <= set(lint["lint"]["select"]) and lint["line-length"] == 120
