"""``GET /api/tree`` and the ``/tree`` page: checked input, bounded answers, rate limits,
and the traces run in the search pool (refused or timed out as busy)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import MakeHeld
from tests.web.held_engine import HELD_TRACE, label, trace_label
from tests.web.helpers import WAIT, create, make_app, wait_until
from webapp import protocol
from webapp.engine.results import Limits
from webapp.engine.search import search
from webapp.engine.trace import DEFAULT_LIMIT, MAX_LIMIT, trace
from webapp.games import new_game
from webapp.services.tree import Trees
from webapp.web.app import close_app, service_of


def test_a_tree_is_the_engines_search(client: FlaskClient) -> None:
    answer = client.get("/api/tree?game=connect4&moves=4453&algorithm=alphabeta&depth=4")
    assert answer.status_code == 200
    tree = answer.get_json()
    position = new_game("connect4", "4453")
    engine = search(position, "alphabeta", Limits(depth=4), native=False, seed=0)
    assert tree["node_count"] == len(tree["nodes"]) == engine.nodes
    assert (tree["root_value"], tree["best_move"], tree["pv"]) == (
        engine.score,
        engine.best_move,
        engine.pv,
    )
    assert not tree["truncated"] and [p["depth"] for p in tree["iterations"]] == [1, 2, 3, 4]
    passes = tree["iterations"]
    assert all(p["complete"] for p in passes)
    assert sum(p["nodes"] for p in passes) == len(tree["nodes"])
    for one in passes:  # each pass's own nodes: those of its iteration
        assert one["nodes"] == sum(1 for n in tree["nodes"] if n["iteration"] == one["depth"])
    assert (tree["game"], tree["moves"], tree["ordering"], tree["limit"]) == (
        "connect4",
        "4453",
        "engine",
        DEFAULT_LIMIT,
    )
    first = tree["nodes"][0]
    assert set(first) >= {"id", "parent", "move", "depth", "alpha", "beta", "value", "exact"}
    assert set(first) >= {"cut", "tt_hit"}
    assert first["parent"] is None and first["move"] is None


def test_the_limit_truncates_and_the_defaults_apply(client: FlaskClient) -> None:
    tree = client.get("/api/tree?game=tictactoe&algorithm=minimax&limit=100").get_json()
    assert tree["truncated"] and tree["node_count"] == len(tree["nodes"]) == 100
    assert tree["depth"] == 9 and tree["root_value"] is None
    assert sum(p["nodes"] for p in tree["iterations"]) == 100
    assert tree["iterations"] == [{"depth": 9, "nodes": 100, "complete": False}]


@pytest.mark.parametrize(
    ("query", "nodes"),
    [
        ("game=tictactoe&moves=15&algorithm=minimax&depth=7", 7332),  # the whole tree from there
        ("game=connect4&algorithm=minimax&depth=4", 2801),
    ],
)
def test_the_default_limit_holds_the_suggested_comparisons(
    client: FlaskClient, query: str, nodes: int
) -> None:
    """The explorer's suggested lessons never stop at the default limit (issue 19)."""
    whole = client.get(f"/api/tree?{query}").get_json()
    assert not whole["truncated"] and whole["node_count"] == nodes
    assert whole["iterations"] == [{"depth": whole["depth"], "nodes": nodes, "complete": True}]


@pytest.mark.parametrize(
    ("query", "code", "status"),
    [
        ("game=chess", protocol.UNKNOWN_GAME, 400),
        ("game=tictactoe&moves=11", protocol.ILLEGAL_MOVE, 400),
        ("game=tictactoe&moves=x", protocol.ILLEGAL_MOVE, 400),
        ("game=connect4&moves=" + "1" * 43, protocol.ILLEGAL_MOVE, 400),
        ("game=tictactoe&moves=12457", protocol.GAME_OVER, 409),
        ("game=tictactoe&algorithm=mtdf", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&ordering=random", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&depth=0", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&depth=-1", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&depth=two", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&depth=%EF%BC%93", protocol.BAD_REQUEST, 400),  # a full-width 3
        (f"game=tictactoe&limit={MAX_LIMIT + 1}", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&limit=0", protocol.BAD_REQUEST, 400),
        ("game=tictactoe&nodes=5", protocol.BAD_REQUEST, 400),
    ],
)
def test_bad_requests_are_refused_with_a_reason(
    client: FlaskClient, query: str, code: str, status: int
) -> None:
    answer = client.get(f"/api/tree?{query}")
    assert answer.status_code == status
    error = answer.get_json()["error"]
    assert error["code"] == code and error["message"]


def test_the_page_shows_a_position_or_says_what_is_wrong(client: FlaskClient) -> None:
    page = client.get("/tree?game=tictactoe&moves=15&algorithm=alphabeta&depth=9")
    assert page.status_code == 200 and b'id="tree-request"' in page.data
    bad = client.get("/tree?game=tictactoe&moves=55")
    assert bad.status_code == 400 and b"no search tree to show" in bad.data
    # A right position with a depth past the server's: the link is what is wrong, not
    # its position (the heading said "This link does not describe a position").
    deep = client.get("/tree?game=tictactoe&moves=15&algorithm=alphabeta&depth=99")
    text = deep.get_data(as_text=True)
    assert deep.status_code == 400 and "This link does not describe a search tree" in text
    assert "does not describe a position" not in text


def lead_text(page: str) -> str:
    """The tree page's lead sentence, its tags dropped and its spaces squeezed."""
    found = re.search(r'<p class="tree-lead"[^>]*>(.*?)</p>', page, re.S)
    assert found, "the page has a lead"
    return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split())


def test_the_page_without_a_game_opens_the_analysis_boards_game(client: FlaskClient) -> None:
    """``/tree`` said "Unknown game ''": a name nobody typed. It opens the explorer on the
    game ``/analysis`` opens, and the API answers for that game as well."""
    page = client.get("/tree")
    analysis = client.get("/analysis")
    assert page.status_code == analysis.status_code == 200
    for opened in (page, analysis):  # the body's class names the page's game
        assert re.search(r'<body class="[^"]* game-connect4"', opened.get_data(as_text=True))
    assert protocol.DEFAULT_GAME == "connect4"
    for empty in ("/tree?game=", "/analysis?game="):  # an empty name is no name
        opened = client.get(empty)
        assert opened.status_code == 200, empty
        assert re.search(r'<body class="[^"]* game-connect4"', opened.get_data(as_text=True))
    assert client.get("/api/tree?moves=4453&depth=2").get_json()["game"] == "connect4"


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("moves=zz", "at move 1, z is not a column (1 to 7)."),  # judged as Connect Four
        ("game=tictactoe&moves=zz", "at move 1, z is not a cell (1 to 9)."),
        (
            "game=chess",
            "Unknown game &#39;chess&#39;: "
            "choose tictactoe (Tic-tac-toe) or connect4 (Connect Four).",
        ),
    ],
)
def test_a_bad_tree_link_says_what_is_wrong_in_it(
    client: FlaskClient, query: str, reason: str
) -> None:
    page = client.get(f"/tree?{query}")
    text = page.get_data(as_text=True)
    assert page.status_code == 400 and reason in text
    assert "Unknown game &#39;&#39;" not in text


@pytest.mark.parametrize(
    ("query", "lead"),
    [
        (
            "game=tictactoe&moves=15&depth=9",
            "The position after 2 moves (cells 1 5), X to move. Alpha-beta to depth 7, every "
            "node in the order the engine visited it (depth 9 was asked, but only 7 moves "
            "are left).",
        ),
        (
            "game=connect4&moves=4236&algorithm=minimax",
            "The position after 4 moves (columns 4 2 3 6), Red to move. Minimax to depth 4, "
            "every node in the order the engine visited it.",
        ),
        (
            "game=tictactoe&moves=1&depth=8",
            "The position after 1 move (cell 1), O to move. Alpha-beta to depth 8, every "
            "node in the order the engine visited it.",
        ),
        (
            "game=tictactoe&moves=1235476&depth=3",
            "The position after 7 moves (cells 1 2 3 5 4 7 6), O to move. Alpha-beta to "
            "depth 2, every node in the order the engine visited it (depth 3 was asked, but "
            "only 2 moves are left).",
        ),
        (
            "game=tictactoe",
            "The empty board, X to move. Alpha-beta to depth 9, every node in the order the "
            "engine visited it.",
        ),
    ],
)
def test_the_page_names_the_moves_and_the_depth_it_can_search(
    client: FlaskClient, query: str, lead: str
) -> None:
    """It said "The position after 15." and "to depth 9" with 7 moves left."""
    page = client.get(f"/tree?{query}")
    assert page.status_code == 200 and lead_text(page.get_data(as_text=True)) == lead


@pytest.fixture
def tight(tmp_path: Path) -> Iterator[Flask]:
    made = make_app(
        tmp_path / "games.db",
        RATE_LIMIT_ANALYSE_PER_IDENTITY="2/minute",
        RATE_LIMIT_ANALYSE_PER_ADDRESS="2/minute",
    )
    yield made
    close_app(made)


def test_trees_are_rate_limited_like_analyses(tight: Flask) -> None:
    client = tight.test_client()
    query = "/api/tree?game=tictactoe&moves=1529&algorithm=alphabeta"
    assert [client.get(query).status_code for _ in range(2)] == [200, 200]
    refused = client.get(query)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert refused.get_json()["error"]["code"] == protocol.RATE_LIMITED


def test_the_game_page_links_to_the_tree_of_its_position(client: FlaskClient) -> None:
    state = create(client, "connect4", moves="4453", settings={"engine_plays": "second"})
    page = client.get(f"/g/{state['id']}").get_data(as_text=True)
    assert 'id="tree-link"' in page
    assert "/tree?game=connect4&amp;algorithm=alphabeta&amp;moves=4453" in page


def test_a_trace_the_pool_refuses_is_busy(held: MakeHeld) -> None:
    app, holds = held(ANALYSIS_WAIT_SECONDS=0.05, SEARCH_OWNER_LIMIT=1)
    client = app.test_client()
    assert client.get("/api/analysis?game=tictactoe&moves=1").status_code == 202  # runs
    holds.started(label("tictactoe", "1"))
    assert client.get("/api/analysis?game=tictactoe&moves=2").status_code == 202  # waits
    busy = client.get("/api/tree?game=tictactoe&moves=5")  # one more of the same owner's
    assert busy.status_code == 503 and busy.headers["Retry-After"]
    error = busy.get_json()["error"]
    assert error["code"] == protocol.BUSY and "waiting" in error["message"]


def test_a_trace_not_drawn_in_time_is_busy_and_cancelled(held: MakeHeld) -> None:
    app, holds = held(TRACE_FUNCTION=HELD_TRACE, TREE_WAIT_SECONDS=0.05)
    assert service_of(app).searches.pool.wait_ready(WAIT)  # the trace goes to a worker at once
    client = app.test_client()
    query = "/api/tree?game=tictactoe&moves=15&algorithm=minimax"
    late = client.get(query)  # its trace is held: it cannot come in time
    assert late.status_code == 503 and late.get_json()["error"]["code"] == protocol.BUSY
    wait_until(lambda: holds.cancelled(trace_label("tictactoe", "15")))  # its worker is free
    holds.release()
    trees: Trees = app.extensions["lookahead_trees"]
    trees.wait = WAIT  # a patient request now
    tree = client.get(query).get_json()
    direct = trace(new_game("tictactoe", "15"), "minimax", 9).to_dict()
    assert {key: tree[key] for key in direct} == direct  # the same tree, from the pool


def test_the_page_of_a_finished_position_says_so_without_blaming_the_link(
    client: FlaskClient,
) -> None:
    """QA: /tree of a won game read "This link does not describe a position" (it does) over
    "There is no search tree to show: The game is over there: there is no search to show."."""
    page = client.get("/tree?game=tictactoe&moves=1234567")
    text = page.get_data(as_text=True)
    assert page.status_code == 409
    assert "No search from a finished position" in text
    assert "The game is over in this position: no move is left to search." in text
    assert "does not describe a position" not in text and "no search to show" not in text
