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
    "version": 0, "errors": 0, "progress": 0, "formatting": 0, "files": 0, "options": 0, "children": 0,
    "io": 1, "engines": 1, "metrics": 2, "analyses": 3, "results": 4, "report": 5, "formats": 6,
    "templates": 6,  # the renderers' jinja templates (top-level templates/, auditor/templates once installed)
    "pipeline": 7, "claims": 8, "terminal": 8, "tasks": 8, "plan": 8, "datasets": 8, "codabench": 8, "demo": 8,
    "cli": 9, "cli_lmeval": 9, "cli_demo": 9,
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


#: Size limits (issue 18 part 6, docs/architecture.md "House rules"): lines of code per module and per function.
MODULE_LINES = 600
FUNCTION_LINES = 60


def _is_literal(node: ast.AST) -> bool:
    """A literal table: constants, and dicts/lists/tuples/sets (or calls building one) of literals."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is None or _is_literal(k) for k in node.keys) and all(_is_literal(v) for v in node.values)
    if isinstance(node, ast.Call):
        return (all(_is_literal(a) for a in node.args)
                and all(_is_literal(k.value) for k in node.keywords) and bool(node.args or node.keywords))
    return isinstance(node, (ast.Name, ast.Attribute))  # a name inside a table (a function, a constant)


def _returns_a_literal(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The body, after an optional docstring, is one ``return`` of a literal container (or a call building one)."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return (len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None
            and isinstance(body[0].value, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Call))
            and _is_literal(body[0].value))


def _prose_lines(tree: ast.Module) -> set[int]:
    """Line numbers of the docstrings (module, class, function) of ``tree``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def is_code(text: str, tree: ast.Module) -> list[bool]:
    """For each line of ``text``: is it code? Docstrings, comment lines and blank lines are prose (a module's size
    is what a reader must follow, not what explains it)."""
    prose = _prose_lines(tree)
    return [number not in prose and bool(line.strip()) and not line.lstrip().startswith("#")
            for number, line in enumerate(text.splitlines(), 1)]


def code_lines(text: str, tree: ast.Module, start: int = 1, end: int | None = None) -> int:
    """Lines of code between ``start`` and ``end`` (1-based, inclusive): see :func:`is_code`."""
    return sum(is_code(text, tree)[start - 1:end])


def test_no_module_or_function_is_too_long():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(PACKAGE.parent)
        tree = ast.parse(text)
        code = is_code(text, tree)  # once per module: counting each function's lines walked the whole tree again
        lines = sum(code)
        if lines > MODULE_LINES:
            too_long.append(f"{name}: {lines} lines of code (limit {MODULE_LINES})")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _returns_a_literal(node):
                length = sum(code[node.lineno - 1:node.end_lineno])
                if length > FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}: {length} lines of code "
                                    f"(limit {FUNCTION_LINES})")
    assert not too_long, "\n".join(too_long)


def test_size_is_counted_in_code_lines_not_prose():
    text = ('''"""Module docstring,\nover two lines."""\n\n# a comment\nX = 1\n\n\n'''
            '''def f():\n    """Doc."""\n    return X\n''')
    tree = ast.parse(text)
    assert code_lines(text, tree) == 3  # X = 1, def f():, return X
    function = tree.body[-1]
    assert code_lines(text, tree, function.lineno, function.end_lineno) == 2


def test_the_size_check_tells_a_literal_table_from_code():
    def parse(source: str) -> ast.FunctionDef:
        return ast.parse(source).body[0]

    assert _returns_a_literal(parse('def f():\n    """Doc."""\n    return {"a": 1, "b": [2, (3, None)]}'))
    assert _returns_a_literal(parse('def f():\n    return dict(a=1, b=g)'))
    assert not _returns_a_literal(parse('def f():\n    x = 1\n    return {"a": x}'))
    assert not _returns_a_literal(parse('def f():\n    return {"a": g(x + 1)}'))
    assert not _returns_a_literal(parse('def f():\n    return g(x + 1)'))


def _module_of(path: Path) -> str:
    return ".".join(("auditor",) + path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Module -> the auditor modules it imports (at top level, inside a function or under TYPE_CHECKING): the
    deepest module each import names (``from auditor.io import load`` names ``auditor.io.load``)."""
    modules = {_module_of(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        named = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("auditor"):
                named += [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                          for a in node.names]
            elif isinstance(node, ast.Import):
                named += [a.name for a in node.names if a.name.startswith("auditor")]
        targets = set()
        for name in named:
            while name not in modules and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in modules and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle():
    """No two modules of ``auditor`` import each other, directly or round a loop (a circle makes each half
    unreadable and untestable without the other; docs/architecture.md "House rules")."""
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(component) for component in found)


def test_the_circle_check_finds_a_loop():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_every_package_of_the_tree_is_in_the_wheel_list():
    """``[tool.setuptools] packages`` lists every package under ``auditor/`` and nothing else (a package left out
    is missing from the built wheel, and no other test would notice)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import pytest

        tomllib = pytest.importorskip("tomli")
    # the checkout's tree and pyproject.toml (CI runs the tests against the installed copy, beside no pyproject.toml)
    root = Path(__file__).resolve().parents[1]
    setuptools = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(setuptools["packages"]) - set(setuptools.get("package-dir", {}))
    tree = {".".join(path.parent.relative_to(root).parts) for path in (root / "auditor").rglob("__init__.py")}
    assert listed == tree, (f"missing from pyproject.toml: {sorted(tree - listed)}; "
                            f"not in the tree: {sorted(listed - tree)}")
