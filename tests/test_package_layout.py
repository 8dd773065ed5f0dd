"""The package shows the pipeline (issue 11): one package per stage, and imports only point
downstream — a stage never imports a later one, so a stage can be read and tested with only
the stages before it."""
from __future__ import annotations

import ast
from pathlib import Path

import auditor

PACKAGE = Path(auditor.__file__).resolve().parent

#: Stage order: a module may import modules of its own or an earlier stage only.
STAGE = {
    "version": 0, "errors": 0, "progress": 0, "formatting": 0, "options": 0,
    "io": 1, "engines": 1, "metrics": 2, "analyses": 3, "results": 4, "report": 5, "formats": 6,
    "templates": 6,  # the renderers' jinja templates (top-level templates/, auditor/templates once installed)
    "pipeline": 7, "claims": 8, "terminal": 8, "tasks": 8, "plan": 8, "cli": 9,
}


def _stage(module: str) -> int | None:
    parts = module.split(".")
    return STAGE.get(parts[1]) if len(parts) > 1 and parts[0] == "auditor" else None


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every auditor module a file imports, at top level or inside a function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("auditor"):
            found += [(node.lineno, node.module)] + [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("auditor")]
    return found


def test_every_module_belongs_to_a_stage():
    for path in PACKAGE.rglob("*.py"):
        top = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        assert top == "__init__" or top in STAGE, f"{path}: not in a stage of the pipeline"


def test_imports_point_downstream_only():
    upstream = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(("auditor",) + path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        own = _stage(module)
        if own is None:
            continue
        for line, target in _imports(path):
            stage = _stage(target)
            if stage is not None and stage > own:
                upstream.append(f"{path.relative_to(PACKAGE)}:{line} imports {target}")
    assert not upstream, "imports against the pipeline's direction:\n" + "\n".join(upstream)


def test_the_version_is_written_once():
    from auditor.version import __version__

    assert auditor.__version__ == __version__
    written = [path for path in PACKAGE.rglob("*.py") if f'"{__version__}"' in path.read_text(encoding="utf-8")]
    assert written == [PACKAGE / "version.py"]
