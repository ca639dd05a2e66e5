"""The house drawn from its imports: every webapp module's imports, read with ``ast``.

The layers, top to bottom (an arrow is "imports"; none points up):

    tools (python -m webapp, the benchmarks, the old webapp.worker name)
      -> web, search_host
      -> services
      -> store, search_pool
      -> game_settings -> protocol, json_text  (definitions and helpers the layers above share)
      -> games (+ games/connect4_kernel)  (the rules; they implement the engine's Game)
      -> engine                           (the search; it knows no game)

A module may import its own group (``webapp.web.*`` from ``webapp.web.*``) and any
group of a lower layer, never one beside it or above it. No import cycle between
modules, not even one closed by an import inside a function (a late import that only
dodges a cycle leaves the tangle in place), and nothing from the services down imports
Flask. ``from package import submodule`` is an arrow to the submodule alone: Python runs
the package's ``__init__`` first, but nothing of it is read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "webapp"

#: Each group's layer (higher is higher up) and the words its package docstring's first
#: line uses to name it.
LAYERS: dict[str, tuple[int, str]] = {
    "engine": (0, "engine"),
    "games": (1, "rules"),
    "protocol": (2, ""),  # a module, not a folder: no package docstring
    "json_text": (2, ""),  # a module: JSON text for the store and the web alike
    "game_settings": (3, ""),
    "store": (4, "store"),
    "search_pool": (4, "search pool"),
    "services": (5, "service"),
    "web": (6, "web"),
    "search_host": (6, "search host"),
    "__main__": (7, ""),
    "bench": (7, "tool"),
    "worker": (7, "search host"),  # the alias: python -m webapp.worker
    "": (-1, ""),  # webapp/__init__.py (the version): imports nothing, any module may read it
}

#: Arrows that point up on purpose, each with its reason.
EXCEPTIONS: dict[tuple[str, str], str] = {
    # `python -m webapp.engine` names games on its command line: a tool on top that lives
    # beside the engine it runs; the search itself never imports a game.
    ("webapp.engine.cli", "webapp.games"): "the engine's command line",
}

#: Libraries of the web edge, which nothing from the services down may import.
WEB_LIBRARIES = ("flask", "flask_socketio", "werkzeug", "socketio", "engineio")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
PACKAGES = {module for module, path in MODULES.items() if path.name == "__init__.py"}


def group(module: str) -> str:
    """``webapp.web.pages`` -> ``web``; the package itself -> ``""``."""
    return module.split(".")[1] if "." in module else ""


def _type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _imports_run(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at the top level or in a function (a late
    import is an arrow all the same). ``if TYPE_CHECKING:`` imports never run."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node.test):
            yield from _imports_run(node.orelse)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    yield from _imports_run([child])
                elif isinstance(child, ast.excepthandler | ast.match_case):
                    yield from _imports_run(child.body)


def imports(source: str, module: str = "") -> set[str]:
    """The names ``module`` imports: a submodule when ``from package import submodule``
    names one of ours (the package's own names are not read), else the module named
    (``from webapp.x import name`` -> webapp.x). Relative imports are read from ``module``."""
    package = module if module in PACKAGES else module.rpartition(".")[0]
    names: set[str] = set()
    for node in _imports_run(ast.parse(source).body):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                names.add(full if full in MODULES else base)
    return names


def ours(names: set[str]) -> set[str]:
    return {name for name in names if name == "webapp" or name.startswith("webapp.")}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_every_group_has_a_layer() -> None:
    assert {group(module) for module in MODULES} <= set(LAYERS)


def import_graph() -> dict[str, set[str]]:
    """Each webapp module -> the webapp modules it imports."""
    return {
        module: ours(imports(path.read_text(encoding="utf-8"), module)) - {module}
        for module, path in MODULES.items()
    }


GRAPH = import_graph()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_points_up(module: str) -> None:
    up = sorted(
        name
        for name in GRAPH[module]
        if group(name) != group(module)
        and LAYERS[group(name)][0] >= LAYERS[group(module)][0]
        and (module, name) not in EXCEPTIONS
        and (module, ".".join(name.split(".")[:2])) not in EXCEPTIONS
    )
    assert not up, f"{module} imports {up}: beside or above its layer"


def test_no_import_cycle_between_modules() -> None:
    """Not even one closed by an import inside a function: a late import that only dodges
    a cycle hides the same tangle from the reader."""
    assert cycles(GRAPH) == []


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if LAYERS[group(m)][0] <= LAYERS["services"][0])
)
def test_nothing_from_the_services_down_imports_the_web_libraries(module: str) -> None:
    names = imports(MODULES[module].read_text(encoding="utf-8"), module)
    web = sorted(name for name in names if name.split(".")[0] in WEB_LIBRARIES)
    assert not web, f"{module} imports {web}"


@pytest.mark.parametrize(
    "folder", sorted(path.parent.name for path in PACKAGE.glob("*/__init__.py"))
)
def test_each_top_folder_names_its_layer_in_its_first_line(folder: str) -> None:
    docstring = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text()))
    first_line = (docstring or "").splitlines()[0] if docstring else ""
    word = LAYERS[folder][1]
    assert "layer" in first_line and re.search(rf"\b{word}\b", first_line, re.I), (
        f"webapp/{folder}: {first_line!r} does not name its layer ({word})"
    )


# -- the checker itself -------------------------------------------------------


def test_the_checker_reads_imports_as_python_runs_them() -> None:
    source = """
from typing import TYPE_CHECKING
import webapp.engine
from webapp.search_pool import local_pool, Pool
if TYPE_CHECKING:
    from webapp.web import app
def later():
    from webapp.services import GameError
try:
    from . import seats
except ImportError:
    from .. import games
"""
    assert ours(imports(source, "webapp.services.analysis")) == {
        "webapp.engine",
        "webapp.search_pool.local_pool",
        "webapp.search_pool",
        "webapp.services",
        "webapp.services.seats",
        "webapp.games",
    }


def test_the_graph_holds_packages_and_modules_as_imported() -> None:
    assert "webapp.services.errors" in GRAPH["webapp.services"]  # a package re-exporting
    assert "webapp.store" in GRAPH["webapp.services.game_service"]  # from webapp.store import X
    assert "webapp.web.identity" in GRAPH["webapp.web.sockets"]  # from webapp.web.identity ...
    assert "webapp.web" not in GRAPH["webapp.web.sockets"]


def test_the_checker_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
