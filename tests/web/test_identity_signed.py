"""Identities the server issued (webapp/web/identity.py): signed cookies, limited minting.

Before, any string of the cookie's shape was an identity: five invented
cookies got 10 joins from one address under a 3/minute per-address limit.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import werkzeug.sansio.request
from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import SocketIOTestClient
from itsdangerous import Signer

from tests.web.helpers import Listener, create, make_app
from webapp import protocol
from webapp.services.seats import new_token
from webapp.web.app import close_app, service_of, socketio
from webapp.web.identity import COOKIE, sign

Connect = Callable[[FlaskClient], Listener]


def bare(value: str) -> str:
    """The token inside a signed cookie value."""
    return value.rsplit(".", 1)[0]


def cookie_of(client: FlaskClient) -> str:
    found = client.get_cookie(COOKIE)
    assert found is not None
    return found.value


def test_the_cookie_is_the_token_signed(client: FlaskClient, app: Flask) -> None:
    create(client)
    value = cookie_of(client)
    assert value == sign(app, bare(value)) and value != bare(value)


def test_an_altered_cookie_is_no_identity(client: FlaskClient) -> None:
    game = create(client)
    token, signature = cookie_of(client).rsplit(".", 1)
    flipped = ("A" if token[0] != "A" else "B") + token[1:]
    for forged in (f"{flipped}.{signature}", f"{token}.{signature[:-2]}xx", token + "."):
        other = client.application.test_client()
        other.set_cookie(COOKIE, forged)
        assert other.get(f"/api/games/{game['id']}").get_json()["seat"] == "spectator"


def test_a_forged_cookie_gets_a_new_identity(client: FlaskClient, app: Flask) -> None:
    client.set_cookie(COOKIE, f"{new_token()}.madeupsignature")
    game = create(client)
    value = cookie_of(client)
    assert value.endswith(".madeupsignature") is False and value == sign(app, bare(value))
    assert client.get(f"/api/games/{game['id']}").get_json()["seat"] == "player"


def test_an_invented_bare_token_is_no_identity(client: FlaskClient) -> None:
    client.set_cookie(COOKIE, new_token())  # the old shape, but it owns nothing
    assert client.get("/api/my/games").get_json() == []
    client.get("/")
    assert bare(cookie_of(client)) != cookie_of(client)  # replaced by an issued one


def test_an_old_unsigned_cookie_keeps_its_games_and_is_reissued_signed(
    client: FlaskClient, app: Flask, connect: Connect
) -> None:
    token = new_token()
    old = service_of(app).create("tictactoe", {"level": "easy"}, owner=token)
    client.set_cookie(COOKIE, token)  # as the server set it before signing
    page = client.get("/")
    assert page.status_code == 200
    assert cookie_of(client) == sign(app, token)  # the same identity, now signed
    assert [g["id"] for g in client.get("/api/my/games").get_json()] == [old.id]
    assert connect(client).emit(protocol.JOIN, {"game_id": old.id})["seat"] == "player"


def test_new_identities_per_address_are_limited(tmp_path: Path) -> None:
    app = make_app(tmp_path / "games.db", RATE_LIMIT_IDENTITIES_PER_ADDRESS="3/minute")
    try:
        visitors = [app.test_client() for _ in range(5)]
        pages = [visitor.get("/") for visitor in visitors]
        assert [page.status_code for page in pages] == [200] * 5  # served all the same
        given = [visitor.get_cookie(COOKIE) is not None for visitor in visitors]
        assert given == [True, True, True, False, False]
        refused = visitors[4].post("/api/games", json={"game": "tictactoe"})
        assert refused.status_code == 429 and "Retry-After" in refused.headers
        assert visitors[4].post("/new", data={"game": "tictactoe"}).status_code == 429
        assert visitors[4].get_cookie(COOKIE) is None
        assert create(visitors[0])["seat"] == "player"  # an issued identity plays on
    finally:
        close_app(app)


def test_socket_connections_per_address_are_limited(tmp_path: Path) -> None:
    app = make_app(tmp_path / "games.db", RATE_LIMIT_CONNECTS_PER_ADDRESS="2/minute")
    made: list[SocketIOTestClient] = []
    try:
        for _ in range(3):
            made.append(socketio.test_client(app, flask_test_client=app.test_client()))
        assert [sio.is_connected() for sio in made] == [True, True, False]
    finally:
        for sio in made:
            if sio.is_connected():
                sio.disconnect()
        close_app(app)


def test_five_invented_cookies_cannot_get_more_than_the_address_limit_of_joins(
    tmp_path: Path,
) -> None:
    limits = {"RATE_LIMIT_EVENTS_PER_ADDRESS": "3/minute", "RATE_LIMIT_CONNECTS_PER_ADDRESS": None}
    app = make_app(tmp_path / "games.db", **limits)
    made: list[SocketIOTestClient] = []
    try:
        game = create(app.test_client())
        joined = 0
        for _ in range(5):
            http = app.test_client()
            http.set_cookie(COOKIE, f"{new_token()}.invented")
            sio = socketio.test_client(app, flask_test_client=http)
            made.append(sio)
            for _ in range(2):
                answer = sio.emit(protocol.JOIN, {"game_id": game["id"]}, callback=True)
                joined += "seat" in answer
        assert joined == 3
    finally:
        for sio in made:
            if sio.is_connected():
                sio.disconnect()
        close_app(app)


def test_the_secret_is_generated_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    first = make_app(tmp_path / "games.db")
    try:
        client = first.test_client()
        create(client)
        value = cookie_of(client)
    finally:
        close_app(first)
    secret = tmp_path / "secret_key"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    again = make_app(tmp_path / "games.db")  # a restart: the same secret, the same identity
    try:
        assert again.config["SECRET_KEY"] == secret.read_text().strip()
        assert sign(again, bare(value)) == value
    finally:
        close_app(again)


def test_a_configured_secret_key_signs_and_no_file_is_written(tmp_path: Path) -> None:
    app = make_app(tmp_path / "games.db", SECRET_KEY="shared by every process")
    try:
        client = app.test_client()
        create(client)
        assert not (tmp_path / "secret_key").exists()
        other = make_app(tmp_path / "other.db", SECRET_KEY="another deployment")
        try:
            assert sign(other, bare(cookie_of(client))) != cookie_of(client)
        finally:
            close_app(other)
    finally:
        close_app(app)


def test_the_secret_may_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOKAHEAD_SECRET_KEY", "from the environment")
    app = make_app(tmp_path / "games.db")
    try:
        assert app.config["SECRET_KEY"] == "from the environment"
        assert not (tmp_path / "secret_key").exists()
    finally:
        close_app(app)


def test_a_connections_cookie_is_checked_once_for_all_its_events(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its signature checked, and its cookies parsed (each event's seat asks for the
    game's legacy cookie), once for the connection."""
    game = create(client)
    checks: list[str] = []
    unsign = Signer.unsign
    parse = werkzeug.sansio.request.parse_cookie

    def counted(self: Signer, value: str | bytes) -> bytes:
        checks.append("unsign")
        return unsign(self, value)

    def parsed(*args: Any, **kwargs: Any) -> Any:
        checks.append("parse")
        return parse(*args, **kwargs)

    monkeypatch.setattr(Signer, "unsign", counted)
    monkeypatch.setattr(werkzeug.sansio.request, "parse_cookie", parsed)
    player = Listener(socketio.test_client(app, flask_test_client=client))
    for _ in range(3):
        assert player.emit(protocol.JOIN, {"game_id": game["id"]})["seat"] == "player"
        player.emit(protocol.MOVE, {"game_id": game["id"], "move": "9"})
    assert sorted(checks) == ["parse", "unsign"]
    player.client.disconnect()
