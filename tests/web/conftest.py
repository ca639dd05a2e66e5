"""Fixtures for the web server's tests: an app on a temporary database and its clients.

Each app runs one search worker (no warm-up: tests start many apps) and is
closed after its test, so no worker process outlives it. Helpers live in
``tests/web/helpers.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import SocketIOTestClient

from tests.web.fake_searches import HOLD_ENV, Holds
from tests.web.held_engine import HELD
from tests.web.helpers import Listener, create, make_app
from tests.web.holding_pool import HoldingPool, Sent
from tests.web.store_backends import BACKENDS, Backend, make_backend
from webapp import protocol
from webapp.services import GameService
from webapp.store import open_store
from webapp.web.app import close_app, socketio


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    made = make_app(tmp_path / "games.db")
    yield made
    close_app(made)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each store backend in turn, on a new empty database (PostgreSQL: the session's server)."""
    name: str = request.param
    url = request.getfixturevalue("postgres_url") if name == "postgresql" else None
    return make_backend(name, tmp_path, url)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def connect(app: Flask) -> Iterator[Callable[[FlaskClient], Listener]]:
    """connect(flask_client): a Socket.IO client carrying that HTTP client's cookies."""
    made: list[SocketIOTestClient] = []

    def make(http: FlaskClient) -> Listener:
        sio = socketio.test_client(app, flask_test_client=http)
        made.append(sio)
        return Listener(sio)

    yield make
    for sio in made:
        if sio.is_connected():
            sio.disconnect()


@pytest.fixture
def start(
    client: FlaskClient, connect: Callable[[FlaskClient], Listener]
) -> Callable[..., tuple[dict[str, Any], Listener]]:
    """start(game, **body): create a game as ``client`` and join it over Socket.IO as its player."""

    def make(game: str = "tictactoe", **body: Any) -> tuple[dict[str, Any], Listener]:
        state = create(client, game, **body)
        player = connect(client)
        joined = player.emit(protocol.JOIN, {"game_id": state["id"]})
        assert joined["seat"] == "player"
        return state, player

    return make


@pytest.fixture
def watch(app: Flask, connect: Callable[[FlaskClient], Listener]) -> Callable[[str], Listener]:
    """watch(game_id): another browser (no seat) joined to the game."""

    def make(game_id: str) -> Listener:
        spectator = connect(app.test_client())
        joined = spectator.emit(protocol.JOIN, {"game_id": game_id})
        assert joined["seat"] == "spectator"
        return spectator

    return make


#: Fast retries and worker replacements, so a fault test does not wait on back-off.
FAST_RECOVERY = {"ENGINE_RETRY_DELAYS": (0.05,), "SEARCH_RESTART_BACKOFF": (0.01, 0.05)}
MakeHeld = Callable[..., tuple[Flask, Holds]]


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeHeld]:
    """held(**config): an app whose searches wait until the test releases them, and the
    test's side of the hold files (``fake_searches.Holds``; searches are named
    ``game-moves``, see ``held_engine``). Nothing then depends on how fast a search is."""
    folder = tmp_path / "hold"
    folder.mkdir()
    monkeypatch.setenv(HOLD_ENV, str(folder))  # the workers inherit it
    holds = Holds(folder)
    made: list[Flask] = []

    def make(**config: Any) -> tuple[Flask, Holds]:
        # The live position's scores would hold the one worker too: off unless asked for.
        settings = {"SEARCH_FUNCTION": HELD, "LIVE_SCORES": False} | FAST_RECOVERY | config
        app = make_app(tmp_path / "games.db", **settings)
        made.append(app)
        return app, holds

    yield make
    holds.release()
    for app in made:
        close_app(app)


@pytest.fixture
def games() -> Iterator[tuple[GameService, HoldingPool, Sent]]:
    """A service on a ``HoldingPool`` that holds the engine's moves and pondering, and the
    events it sent."""
    pool = HoldingPool({"engine", "ponder"})  # the engine moves when the test says so
    sent: Sent = []
    service = GameService(
        open_store(":memory:"),
        pool,  # type: ignore[arg-type]
        lambda event, payload, to: sent.append((event, payload, to)),
        seed=0,
    )
    yield service, pool, sent
    service.close()
