"""The house drawn from its imports: every webapp module's imports, read with ``ast``.

The layers, top to bottom (an arrow is "imports"; none points up):

    tools (python -m webapp, the benchmarks, the old webapp.worker name)
      -> web, search_host
      -> services
      -> store, search_pool
      -> game_settings -> protocol       (definitions the layers above share)
      -> games (+ games/connect4_kernel)  (the rules; they implement the engine's Game)
      -> engine                           (the search; it knows no game)

A module may import its own group (``webapp.web.*`` from ``webapp.web.*``) and any
group of a lower layer, never one beside it or above it. No import cycle between
modules at import time (what runs when a module is first imported, the kind that
works only by import order), and nothing from the services down imports Flask.
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


def group(module: str) -> str:
    """``webapp.web.pages`` -> ``web``; the package itself -> ``""``."""
    return module.split(".")[1] if "." in module else ""


def _type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _imports_run(body: list[ast.stmt], top_level: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run: all of them, or those run when the module is first
    imported (``top_level``: not in a function). ``if TYPE_CHECKING:`` imports never run."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node.test):
            yield from _imports_run(node.orelse, top_level)
        elif top_level and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    yield from _imports_run([child], top_level)
                elif isinstance(child, ast.excepthandler | ast.match_case):
                    yield from _imports_run(child.body, top_level)


def imports(source: str, top_level: bool = False) -> set[str]:
    """The names a module imports: a submodule when ``from package import submodule``
    names one of ours, else the module named (``from webapp.x import name`` -> webapp.x)."""
    names: set[str] = set()
    for node in _imports_run(ast.parse(source).body, top_level):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                names.add(full if full in MODULES else node.module)
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


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_points_up(module: str) -> None:
    rank = LAYERS[group(module)][0]
    up = sorted(
        name
        for name in ours(imports(MODULES[module].read_text(encoding="utf-8")))
        if group(name) != group(module)
        and LAYERS[group(name)][0] >= rank
        and (module, name) not in EXCEPTIONS
        and (module, ".".join(name.split(".")[:2])) not in EXCEPTIONS
    )
    assert not up, f"{module} imports {up}: beside or above its layer"


def test_no_import_cycle_between_modules() -> None:
    graph = {
        module: ours(imports(path.read_text(encoding="utf-8"), top_level=True))
        for module, path in MODULES.items()
    }
    assert cycles(graph) == []


#: Cycles closed only by an import inside a function (run late, so never by import order),
#: each kept on purpose until someone breaks it; no other may appear.
LATE_CYCLES: dict[str, str] = {
    # Connect4.native_engine loads its compiled half on first use; the kernel reads the
    # rules' board constants. One concern in two packages (the rules layer).
    "webapp.games.connect4": "the rules and their compiled kernel",
    # ensure_identity counts a new identity against admission's limits, which read the
    # identity; a refused cross-site form (origin) is drawn as pages' error page.
    "webapp.web.identity": "minting an identity is rate-limited; origin draws an error page",
}


def test_cycles_through_late_imports_are_the_known_ones() -> None:
    graph = {
        module: ours(imports(path.read_text(encoding="utf-8"))) for module, path in MODULES.items()
    }
    found = cycles(graph)
    unknown = [cycle for cycle in found if not set(cycle) & set(LATE_CYCLES)]
    assert unknown == []
    assert len(found) == len(LATE_CYCLES)  # one broken: take it off the list


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if LAYERS[group(m)][0] <= LAYERS["services"][0])
)
def test_nothing_from_the_services_down_imports_the_web_libraries(module: str) -> None:
    names = imports(MODULES[module].read_text(encoding="utf-8"))
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
"""
    assert ours(imports(source)) == {
        "webapp.engine",
        "webapp.search_pool.local_pool",
        "webapp.search_pool",
        "webapp.services",
    }
    assert ours(imports(source, top_level=True)) == {
        "webapp.engine",
        "webapp.search_pool.local_pool",
        "webapp.search_pool",
    }


def test_the_checker_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
