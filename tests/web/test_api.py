"""The JSON API (webapp/web/api.py): create a game, read it, start the next one; bad bodies."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import create, stored
from webapp import protocol
from webapp.services.seats import token_hash
from webapp.web.app import service_of
from webapp.web.identity import COOKIE

STATE_KEYS = {
    "id", "game", "moves", "status", "winner", "to_move", "settings", "human_side",
    "engine_side", "engine_thinking", "last_engine_move", "move_count", "created_at",
    "updated_at", "url", "seat", "version", "scores",
}  # fmt: skip


def count_games(app: Flask) -> int:
    return len(service_of(app).store.playing(1000))


def test_create_returns_the_state_and_the_seat_cookie(client: FlaskClient) -> None:
    response = client.post("/api/games", json={"game": "connect4", "settings": {"level": "easy"}})
    assert response.status_code == 201
    state = response.get_json()
    assert set(state) == STATE_KEYS
    assert state["url"] == f"/g/{state['id']}" == response.headers["Location"]
    assert (state["game"], state["moves"], state["status"], state["seat"]) == (
        "connect4", "", "playing", "player",
    )  # fmt: skip
    assert state["settings"]["level"] == "easy"
    assert (state["human_side"], state["engine_side"], state["to_move"]) == (0, 1, 0)
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(COOKIE + "=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    assert "Max-Age=31536000" in cookie


def test_game_ids_and_seats_are_unguessable(client: FlaskClient, app: Flask) -> None:
    first, second = create(client), create(client)
    assert first["id"] != second["id"] and len(first["id"]) >= 16
    token = client.get_cookie(COOKIE)
    assert token is not None and len(token.value) >= 32
    bare = token.value.rsplit(".", 1)[0]  # the cookie is the token and its signature
    assert bare not in stored(app, first["id"])["seat_hash"]  # stored hashed
    assert stored(app, first["id"])["seat_hash"] == token_hash(bare)
    assert stored(app, second["id"])["seat_hash"] == token_hash(bare)  # one identity
    assert (
        app.test_client()
        .post("/api/games", json={"game": "tictactoe"})
        .headers["Set-Cookie"]
        .split(";")[0]
        != f"{COOKIE}={token.value}"
    )  # another browser, another identity


def test_a_game_can_start_from_a_position(client: FlaskClient) -> None:
    state = create(client, "connect4", moves="4453")
    assert (state["moves"], state["move_count"], state["to_move"]) == ("4453", 4, 0)


def test_a_finished_position_is_a_finished_game(client: FlaskClient) -> None:
    state = create(client, "tictactoe", moves="14253")
    assert (state["status"], state["winner"]) == ("won", 0)


def test_get_shows_the_seat_to_its_owner_only(client: FlaskClient, app: Flask) -> None:
    state = create(client)
    mine = client.get(f"/api/games/{state['id']}").get_json()
    theirs = app.test_client().get(f"/api/games/{state['id']}").get_json()
    assert mine["seat"] == "player" and theirs["seat"] == "spectator"
    assert {**mine, "seat": None} == {**theirs, "seat": None}


def test_an_unknown_game_is_a_json_404(client: FlaskClient) -> None:
    response = client.get("/api/games/no-such-game")
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == protocol.UNKNOWN_GAME


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("not json", protocol.BAD_REQUEST),
        ([1, 2], protocol.BAD_REQUEST),
        ({"game": "chess"}, protocol.UNKNOWN_GAME),
        ({"game": 4}, protocol.UNKNOWN_GAME),
        ({}, protocol.UNKNOWN_GAME),
        ({"game": "tictactoe", "moves": "55"}, protocol.ILLEGAL_MOVE),
        ({"game": "tictactoe", "moves": "0"}, protocol.ILLEGAL_MOVE),
        ({"game": "tictactoe", "moves": 12}, protocol.ILLEGAL_MOVE),
        ({"game": "connect4", "moves": "4" * 43}, protocol.ILLEGAL_MOVE),
        ({"game": "tictactoe", "settings": {"level": "godlike"}}, protocol.BAD_SETTINGS),
        ({"game": "tictactoe", "settings": {"level": "x", "depth": 9}}, protocol.BAD_SETTINGS),
        ({"game": "tictactoe", "settings": {"time": 100}}, protocol.BAD_SETTINGS),
        ({"game": "tictactoe", "settings": "easy"}, protocol.BAD_SETTINGS),
        ({"game": "tictactoe", "colour": "red"}, protocol.BAD_REQUEST),
    ],
)
def test_bad_creations_are_refused_and_create_nothing(
    client: FlaskClient, app: Flask, body: Any, code: str
) -> None:
    if isinstance(body, str):
        response = client.post("/api/games", data=body, content_type="application/json")
    else:
        response = client.post("/api/games", json=body)
    assert 400 <= response.status_code < 500
    error = response.get_json()["error"]
    assert error["code"] == code and error["message"]
    assert "Set-Cookie" not in response.headers
    assert count_games(app) == 0


KNOWN = "choose tictactoe (Tic-tac-toe) or connect4 (Connect Four)."


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, f"No game named: {KNOWN}"),
        ({"game": ""}, f"No game named: {KNOWN}"),
        ({"game": ["x"]}, f"game must be a name: {KNOWN}"),
        ({"game": 4}, f"game must be a name: {KNOWN}"),
        ({"game": "chess"}, f"Unknown game 'chess': {KNOWN}"),
    ],
)
def test_a_missing_or_odd_game_is_said_in_words_not_in_python(
    client: FlaskClient, body: Any, message: str
) -> None:
    """It said "Unknown game None" and "Unknown game ['x']" (a new user's try)."""
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.get_json()["error"]["message"] == message


@pytest.mark.parametrize(("action", "engine_plays"), [("new", "first"), ("rematch", "second")])
def test_the_player_starts_the_next_game(
    client: FlaskClient, action: str, engine_plays: str
) -> None:
    old = create(client, settings={"level": "easy", "engine_plays": "first"})
    response = client.post(f"/api/games/{old['id']}/{action}")
    assert response.status_code == 201
    new = response.get_json()
    assert new["id"] != old["id"] and new["url"] == f"/g/{new['id']}"
    assert new["seat"] == "player" and new["moves"] in ("", *"123456789")
    assert new["settings"]["engine_plays"] == engine_plays
    assert new["settings"]["level"] == "easy"
    assert "Set-Cookie" not in response.headers  # the same identity holds the new game


def test_a_spectator_cannot_start_the_next_game(client: FlaskClient, app: Flask) -> None:
    game = create(client)
    response = app.test_client().post(f"/api/games/{game['id']}/rematch")
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == protocol.SPECTATOR
    assert count_games(app) == 1


def test_the_seat_claim_route_is_gone(client: FlaskClient) -> None:
    game = create(client)
    response = client.post(f"/api/games/{game['id']}/claim", json={"token": "x"})
    assert response.status_code == 404


# -- bodies: size, malformed and over-deep JSON ---------------------------------------------


def test_a_body_past_the_size_limit_is_a_json_413(client: FlaskClient, app: Flask) -> None:
    limit = app.config["MAX_CONTENT_LENGTH"]
    assert limit == 64 * 1024
    body = '{"game": "tictactoe", "pad": "' + "x" * limit + '"}'
    response = client.post("/api/games", data=body, content_type="application/json")
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == protocol.BAD_REQUEST
    page = client.post("/new", data={"game": "tictactoe", "pad": "x" * limit})
    assert page.status_code == 413 and "<html" in page.get_data(as_text=True)
    assert count_games(app) == 0


@pytest.mark.parametrize(
    "body",
    [
        "[" * 20_000 + "]" * 20_000,  # RecursionError inside the json module
        '{"a":' * 10_000 + "1" + "}" * 10_000,
        '{"game": "tictactoe"',
        "\xff\xfe",
        "",
    ],
    ids=["deep-list", "deep-object", "truncated", "not-utf8", "empty"],
)
def test_malformed_or_over_deep_json_is_a_400(client: FlaskClient, app: Flask, body: str) -> None:
    assert len(body) < app.config["MAX_CONTENT_LENGTH"]
    data = body.encode("latin-1")
    response = client.post("/api/games", data=data, content_type="application/json")
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["error"]["code"] == protocol.BAD_REQUEST
    assert count_games(app) == 0


def test_unknown_api_paths_answer_json(client: FlaskClient) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == protocol.UNKNOWN_GAME
    assert client.get("/api/games").status_code == 405


def test_my_games_lists_this_browsers_games_newest_first(client: FlaskClient, app: Flask) -> None:
    first = create(client, "tictactoe")
    second = create(client, "connect4", moves="4453")
    won = create(client, "tictactoe", moves="14253")
    create(app.test_client())  # another browser's game

    response = client.get("/api/my/games")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    mine = response.get_json()
    assert [g["id"] for g in mine] == [won["id"], second["id"], first["id"]]
    assert mine[0] == {
        "id": won["id"],
        "game": "tictactoe",
        "move_count": 5,
        "status": "won",
        "winner": 0,
        "human_side": 0,
        "level": won["settings"]["level"],  # what tells two games of one kind apart
        "updated_at": won["updated_at"],
        "url": f"/g/{won['id']}",
    }
    assert (mine[1]["game"], mine[1]["move_count"], mine[1]["status"]) == ("connect4", 4, "playing")


def test_my_games_is_empty_without_an_identity(client: FlaskClient) -> None:
    create(client)
    stranger = client.application.test_client()
    response = stranger.get("/api/my/games")
    assert response.status_code == 200 and response.get_json() == []
    assert "Set-Cookie" not in response.headers  # reading the list hands out no identity
