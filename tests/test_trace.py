"""The traced search against the engine: the same nodes, values, moves and lines."""

from __future__ import annotations

import random
import threading
from typing import Any, cast

import pytest

from tests.conftest import random_position
from webapp.engine.driver import Budget, drive
from webapp.engine.game import Game
from webapp.engine.python_engine import PythonEngine
from webapp.engine.results import Limits, SearchResult
from webapp.engine.search import search
from webapp.engine.trace import MAX_LIMIT, NaturalOrder, trace
from webapp.games import new_game

#: (game, plies played at random, depth): trees of a few thousand nodes at most.
CASES = [("tictactoe", 2, 9), ("tictactoe", 4, 9), ("connect4", 6, 3), ("connect4", 10, 4)]
SEEDS = range(4)


def engine_search(game: Game, algorithm: str, depth: int, ordering: str) -> SearchResult:
    """The untraced engine, as ``search(..., native=False)`` runs it, in either ordering."""
    if ordering == "engine":
        return search(game, algorithm, Limits(depth=depth), native=False, seed=0)
    natural = cast(Game, NaturalOrder(game.copy()))
    budget = Budget(Limits(depth=depth), None)
    engine = PythonEngine(natural, budget, None)
    return drive(engine, algorithm, Limits(depth=depth), budget, random.Random(0), False, None)


def children_of(nodes: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """Each node's children in its own search (the line walk's re-searches apart)."""
    found: dict[int, list[dict[str, Any]]] = {}
    for node in nodes:
        parent = node["parent"]
        if parent is not None and node["id"] < parent + nodes[parent]["size"]:
            found.setdefault(parent, []).append(node)
    return found


@pytest.mark.parametrize(("name", "plies", "depth"), CASES)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("algorithm", "ordering"),
    [("minimax", "engine"), ("alphabeta", "engine"), ("alphabeta", "natural")],
)
def test_the_trace_is_the_engines_search(
    name: str, plies: int, depth: int, seed: int, algorithm: str, ordering: str
) -> None:
    game = random_position(name, plies, random.Random(seed))
    moves = game.history[:]
    traced = trace(game, algorithm, depth, ordering=ordering, limit=MAX_LIMIT)
    engine = engine_search(game, algorithm, depth, ordering)
    assert game.history == moves  # left unchanged
    assert not traced.truncated
    assert traced.node_count == len(traced.nodes) == engine.nodes
    assert (traced.root_value, traced.best_move, traced.pv) == (
        engine.score,
        engine.best_move,
        engine.pv,
    )
    for node in traced.nodes:
        if node["parent"] is not None:
            parent = traced.nodes[node["parent"]]
            assert parent["id"] < node["id"]
            assert parent["depth"] + 1 == node["depth"]
            assert parent["iteration"] == node["iteration"]


@pytest.mark.parametrize(("name", "plies", "depth"), CASES)
@pytest.mark.parametrize("seed", SEEDS)
def test_minimax_backs_up_every_value_from_its_children(
    name: str, plies: int, depth: int, seed: int
) -> None:
    game = random_position(name, plies, random.Random(seed))
    traced = trace(game, "minimax", depth, limit=MAX_LIMIT)
    children = children_of(traced.nodes)
    for node in traced.nodes:
        assert node["exact"] and node["alpha"] is None and not node["cut"]
        below = [child["value"] for child in children.get(node["id"], [])]
        if below:
            assert node["value"] == (max(below) if node["depth"] % 2 == 0 else min(below))
        else:
            assert node["kind"] in ("terminal", "leaf")


@pytest.mark.parametrize(("name", "plies", "depth"), CASES)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ordering", ["engine", "natural"])
def test_alphabeta_cuts_only_outside_the_window_and_agrees_with_minimax(
    name: str, plies: int, depth: int, seed: int, ordering: str
) -> None:
    game = random_position(name, plies, random.Random(seed))
    traced = trace(game, "alphabeta", depth, ordering=ordering, limit=MAX_LIMIT)
    minimax = trace(game, "minimax", depth, limit=MAX_LIMIT)
    assert traced.root_value == minimax.root_value
    assert traced.best_move in {n["move"] for n in minimax.nodes if n["depth"] == 1}
    cuts = [n for n in traced.nodes if n["cut"]]
    for node in cuts:
        assert node["pruned"] and node["kind"] == "inner"
        if node["depth"] % 2 == 0:  # Max found a move at least as good as Min allows
            assert node["beta"] is not None and node["value"] >= node["beta"]
            assert node["bound"] == "lower"
        else:  # Min found a reply at least as bad for Max as Max has elsewhere
            assert node["alpha"] is not None and node["value"] <= node["alpha"]
            assert node["bound"] == "upper"
    children = children_of(traced.nodes)
    root = "".join(game.format_move(m) for m in game.history)
    for node in traced.nodes:
        if node["kind"] == "inner" and not node["cut"]:  # every move was searched
            searched = [child["move"] for child in children.get(node["id"], [])]
            position = replay(name, root, traced.nodes, node)
            legal = [position.format_move(m) for m in position.legal_moves()]
            assert sorted(searched) == sorted(legal)


def replay(name: str, root: str, nodes: list[dict[str, Any]], node: dict[str, Any]) -> Game:
    """The position of ``node``: the root's moves, then the moves down to it."""
    line: list[str] = []
    while node["parent"] is not None:
        line.append(node["move"])
        node = nodes[node["parent"]]
    return new_game(name, root + "".join(reversed(line)))


def test_table_hits_name_an_earlier_node_of_the_same_position() -> None:
    traced = trace(new_game("tictactoe", "5"), "alphabeta", 8, limit=MAX_LIMIT)
    nodes = traced.nodes

    def position(node: dict[str, Any]) -> object:
        return replay("tictactoe", "5", nodes, node).key()

    hits = [n for n in nodes if n["tt_hit"] is not None]
    assert hits
    for node in hits:
        assert node["kind"] == "hit"
        reused = nodes[node["tt_hit"]]
        assert reused["id"] < node["id"]
        assert position(reused) == position(node)


def test_a_trace_past_its_limit_is_truncated_and_keeps_the_last_iteration() -> None:
    game = new_game("connect4", "44")
    traced = trace(game, "alphabeta", 7, limit=300)
    assert traced.truncated and traced.node_count == len(traced.nodes) == 300
    assert traced.iterations and traced.best_move is not None
    assert sum(p["nodes"] for p in traced.iterations) == 300
    assert [p["complete"] for p in traced.iterations][-1] is False  # the pass the limit cut
    empty = trace(new_game("tictactoe", ""), "minimax", 9, limit=10)
    assert empty.truncated and empty.best_move is None and empty.root_value is None


def test_a_cancelled_trace_stops_short_of_its_tree() -> None:
    game = new_game("tictactoe", "15")
    stop = threading.Event()
    stop.set()  # a worker's trace cancelled (or preempted) before it got far
    cut = trace(game, "minimax", 9, limit=MAX_LIMIT, cancel=stop)
    assert cut.node_count < trace(game, "minimax", 9, limit=MAX_LIMIT).node_count == 7332
    assert game.moves_played == 2  # left as it was


def test_iterations_each_start_a_new_root() -> None:
    traced = trace(new_game("connect4", "4453"), "alphabeta", 4)
    roots = [n for n in traced.nodes if n["parent"] is None]
    assert (
        [r["iteration"] for r in roots] == [p["depth"] for p in traced.iterations] == [1, 2, 3, 4]
    )
    assert any(n["line"] for n in traced.nodes)  # the principal-variation walk is there


def test_each_pass_counts_its_own_nodes_and_they_add_up_to_the_total() -> None:
    """The last pass alone is what one search to that depth costs (issue 19's lesson:
    alpha-beta's depth-7 pass against minimax's one pass, not against the sum)."""
    game = new_game("tictactoe", "15")
    deepening = trace(game, "alphabeta", 7)
    own = [
        sum(1 for n in deepening.nodes if n["iteration"] == p["depth"])
        for p in deepening.iterations
    ]
    assert [p["nodes"] for p in deepening.iterations] == own
    assert sum(own) == deepening.node_count and all(p["complete"] for p in deepening.iterations)
    assert deepening.iterations[-1]["nodes"] < deepening.node_count  # earlier passes cost too
    minimax = trace(game, "minimax", 7)
    assert minimax.iterations == [{"depth": 7, "nodes": 7332, "complete": True}]


def test_a_finished_game_is_one_answer_and_no_nodes() -> None:
    traced = trace(new_game("tictactoe", "12457"), "minimax", 3)
    assert (traced.nodes, traced.node_count, traced.best_move) == ([], 0, None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"algorithm": "negascout"}, "algorithm"),
        ({"ordering": "random"}, "ordering"),
        ({"depth": 0}, "depth"),
        ({"limit": MAX_LIMIT + 1}, "limit"),
    ],
)
def test_bad_requests_are_value_errors(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"algorithm": "minimax", "depth": 2} | kwargs
    with pytest.raises(ValueError, match=message):
        trace(new_game("tictactoe", ""), **args)
