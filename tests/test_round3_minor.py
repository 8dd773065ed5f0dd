"""Issue 36's minor items: the tables.tex signature can break, pandas is a dependency."""
from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_tex_caption_signature_breaks_at_each_field(tmp_path):
    import auditor
    from auditor.formats.render import render

    result = auditor.audit(["a", "b", "a", "b", "a"] * 4, {"S": ["a", "a", "a", "b", "b"] * 4,
                                                           "T": ["b", "b", "a", "b", "a"] * 4})
    render(result, tmp_path, ("tex",))
    tex = (tmp_path / "tables.tex").read_text(encoding="utf-8")
    caption = tex[tex.index(r"Signature: \texttt{"):]
    caption = caption[:caption.index("}}")]
    assert caption.count(r"|\allowbreak{}") == str(result.signature).count("|")


def test_pandas_is_a_dependency():
    """``Audit.to_frame()`` needs pandas, so ``pip install .`` installs it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(dep.split(">")[0].split("=")[0].strip() == "pandas" for dep in project["dependencies"])
