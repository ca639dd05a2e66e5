"""Helpers for the web server's tests: a recording Socket.IO client, polling waits, shortcuts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import SocketIOTestClient

from webapp import protocol
from webapp.web.app import create_app, service_of

#: Seconds to wait for the engine or a worker on a loaded machine (never asserted on).
WAIT = 60.0

T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T], timeout: float = WAIT) -> T:
    """Run ``coroutine`` to its end on a thread and event loop of its own (at most
    ``timeout`` seconds): once a browser test has run, Playwright's sync API keeps an
    event loop running on the main thread, where ``asyncio.run`` refuses to start."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-async") as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coroutine, timeout)).result()


def make_app(database: Path | str, **config: Any) -> Flask:
    """An app on ``database`` (a SQLite file, or a PostgreSQL URL) with one search worker,
    no warm-up, repeatable tie-breaks; its identity secret beside a file, fixed for a URL
    (an app made again on the same database must know the same browsers)."""
    settings: dict[str, Any] = {
        "TESTING": True,
        "DATABASE": str(database),
        "SEARCH_WORKERS": 1,
        "SEARCH_WARMUP": False,
        "SEARCH_SEED": 0,
    }
    if isinstance(database, Path):
        settings["SECRET_KEY_FILE"] = str(database.parent / "secret_key")
    else:
        settings["SECRET_KEY"] = "tests: the same secret for every app on this database"
    return create_app(settings | config)


class Listener:
    """A Socket.IO test client that keeps every event it received, in order."""

    def __init__(self, client: SocketIOTestClient) -> None:
        self.client = client
        self.events: list[tuple[str, Any]] = []

    def emit(self, event: str, payload: Any = None, *more: Any) -> Any:
        args = () if payload is None and not more else (payload, *more)
        return self.client.emit(event, *args, callback=True)

    def poll(self) -> list[tuple[str, Any]]:
        for packet in self.client.get_received():
            args = packet["args"]
            self.events.append((packet["name"], args[0] if len(args) == 1 else args))
        return self.events

    def named(self, name: str) -> list[Any]:
        return [payload for event, payload in self.poll() if event == name]

    def wait_for(
        self, name: str, check: Callable[[Any], bool] = lambda _: True, timeout: float = WAIT
    ) -> Any:
        """The first received ``name`` payload that passes ``check`` (waits for it)."""
        deadline = time.monotonic() + timeout
        while True:
            for payload in self.named(name):
                if check(payload):
                    return payload
            if time.monotonic() > deadline:
                seen = [event for event, _ in self.events]
                raise AssertionError(f"no {name!r} event in {timeout} s; received {seen}")
            time.sleep(0.02)

    def clear(self) -> None:
        self.poll()
        self.events.clear()


def create(client: FlaskClient, game: str = "tictactoe", **body: Any) -> dict[str, Any]:
    """Create a game through the API (the client gets its seat); its state."""
    response = client.post("/api/games", json={"game": game, **body})
    assert response.status_code == 201, response.get_json()
    state: dict[str, Any] = response.get_json()
    return state


def seated(app: Flask, game: str = "tictactoe", **body: Any) -> tuple[dict[str, Any], Listener]:
    """A new game made by a new browser, and that player's socket, joined."""
    from webapp.web.app import socketio

    http = app.test_client()
    state = create(http, game, **body)
    player = Listener(socketio.test_client(app, flask_test_client=http))
    assert player.emit(protocol.JOIN, {"game_id": state["id"]})["seat"] == "player"
    return state, player


def stored(app: Flask, game_id: str) -> dict[str, Any]:
    """What the store holds for a game (to check that a refused action changed nothing)."""
    record = service_of(app).store.get(game_id)
    assert record is not None
    return dict(vars(record))


def options_exact(state: dict[str, Any]) -> bool:
    """The state carries the engine's options before its last move, every one exact."""
    options = (state.get("last_engine_move") or {}).get("move_scores")
    return bool(options) and all(score["exact"] for score in options.values())


def options_stored(listener: Listener) -> dict[str, Any]:
    """Wait for the state that carries the engine's options before its last move, all
    exact: the game's resting point after an engine reply.

    The options join the move a moment after it (``LiveScores._store_options``: a save
    that bumps the game's version, and a state of its own), and where the first pass
    left an estimate (its tenth of a second ran out on a loaded machine) an exact pass
    is saved again after the player's scores. Only then does the stored game change no
    more until the next action: a test that compares it before and after something, or
    reads its version, waits here first. (It waits for the first such state the
    listener received: clear its events before the move when it made several.)"""
    state: dict[str, Any] = listener.wait_for(protocol.STATE, options_exact)
    return state


def wait_until(check: Callable[[], bool], timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met in {timeout} s")
        time.sleep(0.02)


def error_code(listener: Listener) -> str:
    """The code of the last error event the listener received."""
    errors = listener.named(protocol.ERROR)
    assert errors, f"no error event; received {[e for e, _ in listener.events]}"
    code: str = errors[-1]["code"]
    return code
