"""GET /api/analysis and GET /api/games/<id>/review (webapp/web/api.py,
webapp/services/analysis.py, webapp/services/review.py): scores against
independent exact searches, refusals, the rate limit, the pending answer, the cache."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import MakeHeld
from tests.web.held_engine import label
from tests.web.helpers import Listener, make_app, wait_until
from webapp import protocol
from webapp.engine.search import Limits, search
from webapp.games import new_game
from webapp.web.app import close_app

DATA = Path(__file__).resolve().parents[1] / "data" / "connect4"
NO_LIMITS = {"RATE_LIMIT_ANALYSE_PER_IDENTITY": None, "RATE_LIMIT_ANALYSE_PER_ADDRESS": None}


@pytest.fixture
def open_app(tmp_path: Path) -> Iterator[Flask]:
    """An app without the analysis rate limit (the comparisons ask many positions)."""
    made = make_app(tmp_path / "games.db", **NO_LIMITS)
    yield made
    close_app(made)


def analysis(client: FlaskClient, game: str, moves: str) -> dict[str, Any]:
    """The 200 answer (asking again while the search runs: 202 means "ask again")."""
    answers: list[dict[str, Any]] = []

    def answered() -> bool:
        response = client.get(f"/api/analysis?game={game}&moves={moves}")
        assert response.status_code in (200, 202), response.get_json()
        answers.append(response.get_json())
        return response.status_code == 200

    wait_until(answered)
    return answers[-1]


def tictactoe_positions() -> dict[str, str]:
    """Every reachable tic-tac-toe position that is not over, by one move string each."""
    seen: dict[Hashable, str] = {}
    frontier = [""]
    while frontier:
        moves = frontier.pop()
        position = new_game("tictactoe", moves)
        if position.key() in seen or position.is_terminal():
            continue
        seen[position.key()] = moves
        frontier += [moves + position.format_move(move) for move in position.legal_moves()]
    return {moves: moves for moves in seen.values()}


@pytest.mark.slow
def test_tictactoe_scores_match_the_pure_python_engine_in_every_position(
    open_app: Flask,
) -> None:
    client = open_app.test_client()
    positions = tictactoe_positions()
    assert len(positions) == 4520  # 5478 positions, 958 of them over
    for moves in positions:
        expected = search(new_game("tictactoe", moves), "alphabeta", move_scores=True, native=False)
        got = analysis(client, "tictactoe", moves)
        assert got["exact"] and got["complete"], moves
        assert got["score"] == expected.score, moves
        wanted = {m: {"score": s.score, "exact": True} for m, s in expected.move_scores.items()}
        assert got["move_scores"] == wanted, moves
        assert got["best_moves"] == sorted(
            m for m, s in wanted.items() if s["score"] == got["score"]
        )
        assert got["to_move"] == len(moves) % 2


def benchmark_positions() -> list[tuple[str, int]]:
    """A few positions of each public benchmark file (their exact scores)."""
    chosen = []
    for name, count in (("Test_L3_R1", 4), ("Test_L2_R1", 2), ("Test_L2_R2", 2)):
        lines = (DATA / name).read_text().split("\n")[:count]
        chosen += [(moves, int(score)) for moves, score in (line.split() for line in lines)]
    return chosen


@pytest.mark.slow
def test_connect4_scores_match_the_benchmark_files(open_app: Flask) -> None:
    client = open_app.test_client()
    for moves, score in benchmark_positions():
        got = analysis(client, "connect4", moves)
        assert got["exact"] and got["score"] == score, (moves, got)
        exact = {m: s["score"] for m, s in got["move_scores"].items() if s["exact"]}
        assert max(exact.values()) == score and got["best_moves"], (moves, got)
        assert all(exact[m] == score for m in got["best_moves"])


def test_a_finished_position_is_answered_without_a_search(client: FlaskClient) -> None:
    won = analysis(client, "tictactoe", "14253")  # X completes 1-2-3 with its third stone
    assert (won["status"], won["score"], won["exact"], won["best_moves"]) == ("won", -3, True, [])
    assert won["move_scores"] == {} and won["to_move"] == 1


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("game=chess&moves=1", protocol.UNKNOWN_GAME),
        ("moves=1", protocol.UNKNOWN_GAME),
        ("game=tictactoe&moves=0", protocol.ILLEGAL_MOVE),
        ("game=tictactoe&moves=11", protocol.ILLEGAL_MOVE),  # a taken cell
        ("game=tictactoe&moves=abc", protocol.ILLEGAL_MOVE),
        ("game=tictactoe&moves=1425368", protocol.ILLEGAL_MOVE),  # past the end of the game
        ("game=connect4&moves=8", protocol.ILLEGAL_MOVE),
        ("game=connect4&moves=1111111", protocol.ILLEGAL_MOVE),  # a full column
        ("game=connect4&moves=" + "1234567" * 6 + "1", protocol.ILLEGAL_MOVE),  # too long
    ],
)
def test_bad_positions_are_refused(client: FlaskClient, query: str, code: str) -> None:
    response = client.get(f"/api/analysis?{query}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == code and error["message"]


def test_the_analysis_is_rate_limited(tmp_path: Path) -> None:
    # Searches may wait long: each answer comes whole (200), and is then cached.
    app = make_app(
        tmp_path / "games.db", RATE_LIMIT_ANALYSE_PER_IDENTITY="2/minute", ANALYSIS_WAIT_SECONDS=60
    )
    try:
        client = app.test_client()
        client.get("/")  # an identity cookie: the per-identity limit applies
        for moves in ("5", "1"):
            assert client.get(f"/api/analysis?game=tictactoe&moves={moves}").status_code == 200
        refused = client.get("/api/analysis?game=tictactoe&moves=3")
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert refused.get_json()["error"]["code"] == protocol.RATE_LIMITED
        # An answer known already costs no search, so it is not refused (nor counted).
        for _ in range(3):
            assert client.get("/api/analysis?game=tictactoe&moves=5").status_code == 200
        assert client.get("/api/analysis?game=tictactoe&moves=51").status_code == 429
        assert app.test_client().get("/api/analysis?game=tictactoe&moves=3").status_code == 200
    finally:
        close_app(app)


def test_a_slow_search_answers_pending_then_the_result_once(held: MakeHeld) -> None:
    app, holds = held(ANALYSIS_WAIT_SECONDS=0.05, **NO_LIMITS)
    client = app.test_client()
    first = client.get("/api/analysis?game=tictactoe&moves=5")
    assert first.status_code == 202 and first.headers["Retry-After"]
    assert first.get_json() == {"game": "tictactoe", "moves": "5", "pending": True}
    assert first.headers["Cache-Control"] == "no-store"
    holds.started(label("tictactoe", "5"))
    assert client.get("/api/analysis?game=tictactoe&moves=5").status_code == 202
    holds.release()
    got = analysis(client, "tictactoe", "5")
    assert got["exact"] and got["score"] == 0
    assert client.get("/api/analysis?game=tictactoe&moves=5").status_code == 200  # cached
    assert len(holds.runs(label("tictactoe", "5"))) == 1  # one search for every request


@pytest.mark.slow
def test_polls_of_a_search_under_way_are_not_counted_malformed_requests_are(
    held: MakeHeld,
) -> None:
    limits = {"RATE_LIMIT_ANALYSE_PER_IDENTITY": "2/minute", "RATE_LIMIT_ANALYSE_PER_ADDRESS": None}
    app, holds = held(ANALYSIS_WAIT_SECONDS=0.05, **limits)
    client = app.test_client()
    client.get("/")  # an identity cookie: the per-identity limit applies
    assert client.get("/api/analysis?game=tictactoe&moves=5").status_code == 202  # counted
    holds.started(label("tictactoe", "5"))
    for _ in range(4):  # polls of the search under way: none counted
        assert client.get("/api/analysis?game=tictactoe&moves=5").status_code == 202
    holds.release()
    wait_until(lambda: client.get("/api/analysis?game=tictactoe&moves=5").status_code == 200)
    assert client.get("/api/analysis?game=chess&moves=5").status_code == 400  # counted
    refused = client.get("/api/analysis?game=tictactoe&moves=1")  # a third search
    assert refused.status_code == 429


def test_a_full_pool_answers_busy(held: MakeHeld) -> None:
    app, holds = held(ANALYSIS_WAIT_SECONDS=0.05, SEARCH_OWNER_LIMIT=1, **NO_LIMITS)
    client = app.test_client()
    assert client.get("/api/analysis?game=tictactoe&moves=1").status_code == 202  # runs
    holds.started(label("tictactoe", "1"))
    assert client.get("/api/analysis?game=tictactoe&moves=2").status_code == 202  # waits
    busy = client.get("/api/analysis?game=tictactoe&moves=3")
    assert busy.status_code == 503 and busy.headers["Retry-After"]
    assert busy.get_json()["error"]["code"] == protocol.BUSY


# -- the review ---------------------------------------------------------------------------


def test_the_review_of_a_finished_game_marks_the_blunder(
    client: FlaskClient, start: Callable[..., tuple[dict[str, Any], Listener]]
) -> None:
    # X threatens 3 but plays 9; the engine (O, perfect) wins at 6. The game starts from
    # "1425" (a link's moves): those four are preset, judged as no one's.
    state, player = start("tictactoe", moves="1425")
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "9"})
    over = player.wait_for(protocol.STATE, lambda s: s["status"] != "playing")
    assert over["moves"] == "142596" and over["winner"] == 1
    response = client.get(f"/api/games/{state['id']}/review")
    assert response.status_code == 200 and response.headers["X-Review-Pending"] == "0"
    review = response.get_json()
    assert [e["ply"] for e in review] == [1, 2, 3, 4, 5, 6]
    assert [e["preset"] for e in review] == [True] * 4 + [False] * 2
    assert [e["class"] for e in review] == [None, None, None, None, "blunder", "best"]
    assert review[1]["value_after"] == -2  # 4 threw O's draw away, but O did not play it here
    blunder = review[4]
    assert blunder == {
        "ply": 5, "player": 0, "move": "9", "preset": False, "value_before": 3,
        "value_after": -3, "best_moves": ["3"], "class": "blunder",
    }  # fmt: skip
    assert client.get(f"/api/games/{state['id']}/review").get_json() == review  # cached


def test_a_game_in_progress_can_be_reviewed(
    client: FlaskClient, start: Callable[..., tuple[dict[str, Any], Listener]]
) -> None:
    state, player = start("tictactoe", moves="1", settings={"engine_plays": "first"})
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})  # a drawing move
    player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 3)
    review = client.get(f"/api/games/{state['id']}/review").get_json()
    assert [(e["move"], e["preset"], e["class"]) for e in review][:2] == [
        ("1", True, None),
        ("5", False, "best"),
    ]


#: A Connect Four position (22 stones, the first player to move) where columns 2 and 3 both
#: keep the draw and every other column loses (the pure-Python engine agrees, in 20 s).
TWO_DRAWS = "4727166675246513416314"


def test_the_review_names_every_move_that_keeps_the_best_value(
    client: FlaskClient, start: Callable[..., tuple[dict[str, Any], Listener]]
) -> None:
    state, player = start("connect4", moves=TWO_DRAWS, settings={"level": "perfect"})
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "3"})
    player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == len(TWO_DRAWS) + 2)
    reviews: list[list[dict[str, Any]]] = []

    def every_best_move() -> bool:  # asked again while its moves are still being solved
        reviews.append(client.get(f"/api/games/{state['id']}/review").get_json())
        return len(reviews[-1][len(TWO_DRAWS)]["best_moves"]) > 1

    wait_until(every_best_move, timeout=150)
    review = reviews[-1]
    mine = review[len(TWO_DRAWS)]
    assert (mine["move"], mine["preset"], mine["class"]) == ("3", False, "best")
    assert mine["best_moves"] == ["2", "3"]  # not the one column a search happened to name
    assert all(e["preset"] and e["class"] is None for e in review[: len(TWO_DRAWS)])


def test_the_review_of_an_unknown_game_is_404(client: FlaskClient) -> None:
    response = client.get("/api/games/nosuchgame/review")
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == protocol.UNKNOWN_GAME


def test_an_unfinished_review_says_what_is_missing(held: MakeHeld) -> None:
    app, holds = held(REVIEW_WAIT_SECONDS=0.05, **NO_LIMITS)
    client = app.test_client()
    created = client.post("/api/games", json={"game": "tictactoe", "moves": "15"})
    game_id = created.get_json()["id"]
    service = app.extensions["lookahead"]
    record = service.store.get(game_id)
    record.preset = 0  # as if both moves were played in the game: each gets its class
    service.store.save(record)
    response = client.get(f"/api/games/{game_id}/review")
    assert response.status_code == 200 and int(response.headers["X-Review-Pending"]) > 0
    assert response.headers["Retry-After"]
    assert all(e["class"] is None for e in response.get_json())
    holds.release()

    def complete() -> bool:
        again = client.get(f"/api/games/{game_id}/review")
        return again.headers["X-Review-Pending"] == "0"

    wait_until(complete)
    review = client.get(f"/api/games/{game_id}/review").get_json()
    assert [e["class"] for e in review] == ["best", "best"]


def test_an_answer_carries_the_best_line_from_a_best_move(open_app: Flask) -> None:
    """``pv``: the line the board draws on request, starting with one of ``best_moves``."""
    client = open_app.test_client()
    answer = analysis(client, "tictactoe", "1")
    assert answer["best_moves"] == ["5"]
    assert answer["pv"].startswith("5")
    new_game("tictactoe", "1" + answer["pv"])  # a legal line from the position
    over = client.get("/api/analysis?game=tictactoe&moves=14253").get_json()
    assert over["pv"] == "" and over["best_moves"] == []


@pytest.mark.parametrize("moves", ["4453", "444", "44", "444443"])
def test_an_exact_answer_from_the_book_carries_the_whole_best_line(
    open_app: Flask, moves: str
) -> None:
    """The book and the database give a value but no line: the worker walks it on, each
    move one that keeps the value (checked here by the solver), to the end of the game
    (the board showed "Best line: 6" beside "loss in 18"; and, for "44" and "444443",
    lines of 10 and 8 plies: past the book each step solved afresh ran out of budget
    where the positions are hard)."""
    client = open_app.test_client()
    answer = analysis(client, "connect4", moves)
    assert answer["exact"] and answer["pv"][:1] in answer["best_moves"]
    line = answer["pv"]
    assert new_game("connect4", moves + line).is_terminal() or len(moves + line) == 42
    value = answer["score"]
    for ply in range(len(line)):
        position = new_game("connect4", moves + line[:ply])
        solved = search(position, "alphabeta", Limits(line=False), seed=0)
        assert solved.exact and solved.score == (value if ply % 2 == 0 else -value), ply
