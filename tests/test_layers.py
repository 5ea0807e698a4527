"""No module imports one from a layer below it: the layers are the rows of docs/development.md's
Layout table, and every import counts, at the top of a module or inside a function."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mcrank"


def _layers() -> list[list[str]]:
    """The Layout table's rows, in order: each row's paths (``mcrank/x.py`` or ``mcrank/x/``)."""
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    section = text[text.index("## Layout") :]
    section = section[: section.index("\n## ", 1)]
    rows = [line for line in section.splitlines() if line.startswith("| `mcrank")]
    return [re.findall(r"`(mcrank/[^`]*)`", row.split(" | ")[0]) for row in rows]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer_of_path(relative: str, layers: list[list[str]]) -> int | None:
    for index, entries in enumerate(layers):
        for entry in entries:
            if relative == entry or (entry.endswith("/") and relative.startswith(entry)):
                return index
    return None


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _target(name: str, modules: dict[str, Path]) -> str:
    """The module of ``mcrank`` that an import of ``name`` loads last: the longest prefix that is one."""
    parts = name.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str, modules: dict[str, Path]):
    """``(line, imported module)`` for every import of an mcrank module in ``path``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # ``from mcrank import figures`` imports the module mcrank.figures.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for name in names:
            if name == "mcrank" or name.startswith("mcrank."):
                yield node.lineno, _target(name, modules)


def _violations() -> tuple[list[str], list[str]]:
    layers = _layers()
    modules = _modules()
    unplaced, upward = [], []
    layer = {}
    for module, path in modules.items():
        layer[module] = _layer_of_path(path.relative_to(ROOT).as_posix(), layers)
        if layer[module] is None:
            unplaced.append(path.relative_to(ROOT).as_posix())
    for module, path in modules.items():
        for line, imported in _imports(path, module, modules):
            if layer[module] is not None and layer.get(imported) is not None and layer[imported] > layer[module]:
                upward.append(f"{path.relative_to(ROOT).as_posix()}:{line} imports {imported}")
    return unplaced, sorted(set(upward))


def test_the_layout_table_has_every_layer_in_order():
    layers = _layers()
    flat = [entry for row in layers for entry in row]
    assert len(flat) == len(set(flat)) and len(layers) >= 10
    assert layers[0][0] == "mcrank/__init__.py" and layers[-2:] == [["mcrank/cli/"], ["mcrank/__main__.py"]]
    assert flat.index("mcrank/study/") < flat.index("mcrank/engine/") < flat.index("mcrank/results.py") < flat.index("mcrank/paper/")


def test_every_module_has_a_layer():
    unplaced, _ = _violations()
    assert unplaced == [], "modules missing from docs/development.md's Layout table"


def test_no_module_imports_one_from_a_layer_below_it():
    _, upward = _violations()
    assert upward == [], "imports against the layers of docs/development.md's Layout table"


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from mcrank.engine import run_study\n", ["mcrank.engine"]),
        ("def f():\n    from mcrank import figures\n", ["mcrank.figures"]),
        ("import mcrank.results\n", ["mcrank.results"]),
        ("from mcrank import __version__\n", ["mcrank"]),
        ("from . import config\n", ["mcrank.study.config"]),
        ("from .result import StudyResult\n", ["mcrank.study.result"]),
    ],
)
def test_every_kind_of_import_is_seen(tmp_path, source, expected):
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert [name for _, name in _imports(path, "mcrank.study.probe", _modules())] == expected


# --- no cycle ---------------------------------------------------------------------------------


def _import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports (every import, at
    the top or inside a function; a submodule's import of its own package counts)."""
    return {module: {name for _, name in _imports(path, module, modules) if name != module} for module, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of ``graph``: its strongly connected components of more than one module, each
    sorted (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in graph:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
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


#: Cycles that another change is removing: the metrics registry's lazy import of its package.
def test_the_import_graph_has_no_cycle():
    cycles = _cycles(_import_graph(_modules()))
    assert cycles == [], "modules that import each other, directly or through others (imports inside functions count)"


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b", "d"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["c", "d"], ["a", "b"]]),
    ],
)
def test_a_cycle_is_found(graph, expected):
    assert _cycles(graph) == expected


def test_a_cycle_planted_in_the_package_is_found():
    # The result module imports its report inside a method, as it did before the renderings
    # were registered: a cycle, however hidden.
    modules = _modules()
    graph = _import_graph(modules)
    graph["mcrank.evaluate.result"].add("mcrank.evaluate.report")
    assert ["mcrank.evaluate.report", "mcrank.evaluate.result"] in _cycles(graph)
