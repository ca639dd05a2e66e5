"""One identity per browser (webapp/web/identity.py): one small cookie holds every seat.

Before, each game set a cookie of its own: past about 120 games the Cookie
header passed the 8 KB limit of common servers and every request failed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import Listener, create, make_app
from webapp import protocol
from webapp.services.seats import cookie_name, new_token
from webapp.web.app import close_app, service_of
from webapp.web.identity import COOKIE

#: A Cookie header this size passes every server and proxy (8 KB is the usual limit).
SMALL_HEADER = 200


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    """An app without creation limits (one browser starts hundreds of games)."""
    limits = {"RATE_LIMIT_CREATE_PER_IDENTITY": None, "RATE_LIMIT_CREATE_PER_ADDRESS": None}
    made = make_app(tmp_path / "games.db", **limits)
    yield made
    close_app(made)


def test_200_games_from_one_browser_keep_every_seat_in_one_small_cookie(
    client: FlaskClient, app: Flask
) -> None:
    ids = [create(client, "tictactoe")["id"] for _ in range(200)]
    assert len(set(ids)) == 200
    for game_id in ids:
        response = client.get(f"/api/games/{game_id}")
        assert response.get_json()["seat"] == "player", game_id
    header = response.request.headers.get("Cookie", "")
    assert header.startswith(COOKIE + "=") and ";" not in header  # one cookie
    assert len(header) < SMALL_HEADER
    assert app.test_client().get(f"/api/games/{ids[0]}").get_json()["seat"] == "spectator"


def test_a_browser_keeps_its_identity(client: FlaskClient) -> None:
    client.get("/")
    token = client.get_cookie(COOKIE)
    assert token is not None
    first, second = create(client), create(client)
    assert client.get_cookie(COOKIE) is not None
    assert client.get_cookie(COOKIE).value == token.value  # type: ignore[union-attr]
    for game in (first, second):
        assert client.get(f"/api/games/{game['id']}").get_json()["seat"] == "player"


def test_a_malformed_identity_cookie_is_no_identity(client: FlaskClient, app: Flask) -> None:
    client.set_cookie(COOKIE, "x")  # too short to be one of ours
    response = client.post("/api/games", json={"game": "tictactoe"})
    assert response.status_code == 201
    token = client.get_cookie(COOKIE)
    assert token is not None and token.value != "x" and len(token.value) >= 32
    assert client.get(f"/api/games/{response.get_json()['id']}").get_json()["seat"] == "player"


def test_the_token_never_reaches_page_scripts(client: FlaskClient) -> None:
    game = create(client)
    token = client.get_cookie(COOKIE)
    assert token is not None
    for url in ("/", f"/g/{game['id']}", f"/api/games/{game['id']}", "/new?game=tictactoe"):
        assert token.value not in client.get(url).get_data(as_text=True), url


# -- games made before identities: their per-game cookies still hold their seats -------------


def legacy_game(app: Flask, client: FlaskClient, engine_plays: str = "second") -> str:
    """A game owned by a per-game cookie, as the server made them before identities."""
    token = new_token()
    record = service_of(app).create(
        "tictactoe", {"level": "easy", "engine_plays": engine_plays}, owner=token
    )
    client.set_cookie(cookie_name(record.id), token)
    return record.id


def test_a_legacy_cookie_still_holds_its_seat(
    client: FlaskClient, app: Flask, connect: Callable[[FlaskClient], Listener]
) -> None:
    create(client)  # the browser also has an identity
    old = legacy_game(app, client)
    assert client.get(f"/api/games/{old}").get_json()["seat"] == "player"
    assert '"seat": "player"' in client.get(f"/g/{old}").get_data(as_text=True)
    player = connect(client)
    assert player.emit(protocol.JOIN, {"game_id": old})["seat"] == "player"
    assert player.emit(protocol.MOVE, {"game_id": old, "move": "5"}) == {"ok": True}
    assert app.test_client().get(f"/api/games/{old}").get_json()["seat"] == "spectator"


@pytest.mark.parametrize("action", ["new", "rematch"])
def test_the_next_game_of_a_legacy_game_belongs_to_the_identity(
    client: FlaskClient, app: Flask, action: str
) -> None:
    old = legacy_game(app, client)
    response = client.post(f"/api/games/{old}/{action}")
    assert response.status_code == 201
    new = response.get_json()
    assert new["seat"] == "player"
    assert client.get_cookie(cookie_name(new["id"])) is None  # no new per-game cookie
    assert client.get_cookie(COOKIE) is not None
    expected = "first" if action == "rematch" else "second"
    assert new["settings"]["engine_plays"] == expected
    assert new["settings"]["level"] == "easy"


@pytest.mark.parametrize("event", [protocol.NEW_GAME, protocol.REMATCH])
def test_the_next_game_of_a_legacy_game_over_a_socket(
    client: FlaskClient, app: Flask, connect: Callable[[FlaskClient], Listener], event: str
) -> None:
    client.get("/")  # the page view gives the identity the handshake carries
    old = legacy_game(app, client)
    player = connect(client)
    created = player.emit(event, {"game_id": old})
    assert set(created) == {"game_id", "id", "url"}, created
    assert client.get(f"/api/games/{created['id']}").get_json()["seat"] == "player"


def test_a_spectator_with_a_wrong_legacy_cookie_gets_nothing(
    client: FlaskClient, app: Flask
) -> None:
    old = legacy_game(app, app.test_client())
    client.set_cookie(cookie_name(old), new_token())  # a guess
    assert client.get(f"/api/games/{old}").get_json()["seat"] == "spectator"
    response = client.post(f"/api/games/{old}/rematch")
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == protocol.SPECTATOR
