"""``GET /api/compare``: minimax and alpha-beta on one position and depth, in the search pool
(issue 19 part 2): the same depth, move and value, each one's nodes, its best time of its runs."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.web.test_searches_unit import InstantPool
from webapp import protocol
from webapp.engine.results import Limits
from webapp.engine.search import search
from webapp.games import new_game
from webapp.services.compare import (
    NODE_BUDGET,
    RUNS,
    Comparisons,
    compare_request,
    minimax_lines,
)


def test_both_algorithms_search_the_same_position_and_depth(client: FlaskClient) -> None:
    answer = client.get("/api/compare?game=tictactoe&moves=15&depth=7")
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
    body = answer.get_json()
    assert (body["game"], body["moves"], body["depth"]) == ("tictactoe", "15", 7)
    minimax, alphabeta = body["results"]
    assert (minimax["algorithm"], alphabeta["algorithm"]) == ("minimax", "alphabeta")
    assert minimax["depth"] == alphabeta["depth"] == 7
    assert minimax["score"] == alphabeta["score"] and minimax["exact"] and alphabeta["exact"]
    position = new_game("tictactoe", "15")
    for row in (minimax, alphabeta):  # the engine's own searches, node for node
        engine = search(position, row["algorithm"], Limits(depth=7), move_scores=False, seed=0)
        assert row["nodes"] == engine.nodes and row["best_move"] == engine.best_move
        assert row["time_ms"] > 0 and 1 <= row["runs"] <= RUNS
    assert alphabeta["nodes"] < minimax["nodes"]


def test_where_alpha_beta_ends_sooner_both_search_to_its_depth(client: FlaskClient) -> None:
    """At 414234345 alpha-beta's deepening finds the exact result (a loss) at depth 4 and
    stops; minimax asked for depth 7 would search 464,726 nodes there: "to depth 4 ...
    3631x the nodes" compared two depths. Both now search to depth 4."""
    body = client.get("/api/compare?game=connect4&moves=414234345&depth=7").get_json()
    minimax, alphabeta = body["results"]
    assert body["depth"] == minimax["depth"] == alphabeta["depth"] == 4
    assert body["asked_depth"] == "7"
    position = new_game("connect4", "414234345")
    for row in (minimax, alphabeta):
        engine = search(position, row["algorithm"], Limits(depth=4), move_scores=False, seed=0)
        assert (row["nodes"], row["score"], row["exact"]) == (engine.nodes, engine.score, True)
    assert minimax["score"] == alphabeta["score"]


def test_quick_searches_are_timed_best_of_three(client: FlaskClient) -> None:
    """Each algorithm's time is the least of its runs, the two taking turns in the pool."""
    query = "/api/compare?game=connect4&moves=4453&depth=4"
    assert client.get(query).status_code == 200  # a cold worker compiles the kernel here
    body = client.get(query).get_json()
    assert [r["runs"] for r in body["results"]] == [RUNS, RUNS]
    position = new_game("connect4", "4453")
    for row in body["results"]:
        engine = search(position, row["algorithm"], Limits(depth=4), move_scores=False, seed=0)
        assert (row["nodes"], row["score"]) == (engine.nodes, engine.score)


def test_the_depth_is_the_deepest_minimax_finishes() -> None:
    """From the empty tic-tac-toe board minimax cannot search all nine plies within the
    budget: both algorithms search the deepest depth whose minimax tree fits it."""
    game, moves, depth, position = compare_request({"game": "tictactoe"})
    assert (game, moves) == ("tictactoe", "")
    assert minimax_lines(game, position, depth) <= NODE_BUDGET[game]
    assert minimax_lines(game, position, depth + 1) > NODE_BUDGET[game]
    assert compare_request({"game": "tictactoe", "moves": "15"})[2] == 7  # the whole game
    assert compare_request({"game": "connect4", "moves": "4453", "depth": "3"})[2] == 3


@pytest.mark.parametrize(
    ("query", "code", "status"),
    [
        ("game=chess", protocol.UNKNOWN_GAME, 400),
        ("game=tictactoe&moves=11", protocol.ILLEGAL_MOVE, 400),
        ("game=tictactoe&moves=12457", protocol.GAME_OVER, 409),
        ("game=tictactoe&depth=0", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&depth=x", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&algorithm=minimax", protocol.BAD_REQUEST, 400),
    ],
)
def test_bad_requests_are_refused_with_a_reason(
    client: FlaskClient, query: str, code: str, status: int
) -> None:
    answer = client.get(f"/api/compare?{query}")
    assert answer.status_code == status
    assert answer.get_json()["error"]["code"] == code


def test_the_settings_say_what_each_algorithm_costs(client: FlaskClient) -> None:
    """The figures in the settings' hint are the engine's (Connect Four, depth 7, empty board)."""
    page = client.get("/").get_data(as_text=True)
    hint = page[page.index("-algorithm-costs") :]
    hint = hint[: hint.index("</p>")]
    empty = new_game("connect4", "")
    for algorithm in ("minimax", "alphabeta"):
        nodes = search(empty, algorithm, Limits(depth=7), move_scores=False, seed=0).nodes
        assert f"{nodes:,} " in hint or f"{nodes:,})" in hint, (algorithm, nodes)


def plain_minimax_nodes(moves: str, game: str, depth: int) -> int:
    """The nodes of the minimax tree ``depth`` deep from ``moves``, counted over the rules
    alone (the root, and every position down to the depth or the end of the game)."""
    position = new_game(game, moves)
    if depth == 0 or position.is_terminal():
        return 1
    return 1 + sum(
        plain_minimax_nodes(moves + position.format_move(move), game, depth - 1)
        for move in position.legal_moves()
    )


@pytest.mark.parametrize(
    ("game", "moves", "depth"), [("tictactoe", "15", 5), ("connect4", "4453", 3)]
)
def test_nodes_are_counted_honestly_and_the_same_on_every_run(
    game: str, moves: str, depth: int
) -> None:
    """Minimax's nodes are its whole tree, counted independently here, on every run (no
    table or memo serves a repeat); alpha-beta's the same on every run; and no search
    reports its depths as it goes, which would be timed with alpha-beta's passes only."""
    pool = InstantPool()
    comparisons = Comparisons(pool)  # type: ignore[arg-type]
    first = comparisons.compare({"game": game, "moves": moves, "depth": str(depth)})
    again = comparisons.compare({"game": game, "moves": moves, "depth": str(depth)})
    minimax, alphabeta = first["results"]
    assert minimax["nodes"] == plain_minimax_nodes(moves, game, depth)
    assert [r["nodes"] for r in again["results"]] == [minimax["nodes"], alphabeta["nodes"]]
    assert alphabeta["nodes"] < minimax["nodes"]
    assert pool.submitted and not any(job.progress for job in pool.submitted)
