"""The service over a store that fails: a damaged game, a read-only or locked database, /healthz."""

from __future__ import annotations

import logging
import sqlite3
import sys
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import Listener, create, make_app, wait_until
from webapp import protocol
from webapp.web.app import close_app, service_of, socketio


def damage(database: Path, game_id: str, settings: str) -> None:
    """Write a bad settings value straight into the row, as a bad disk or a bad hand would."""
    with sqlite3.connect(database) as db:
        db.execute("UPDATE games SET settings = ? WHERE id = ?", (settings, game_id))


@pytest.mark.parametrize("settings", ['{"algorithm": "alphab', '{"algorithm": "alphabeta"}'])
def test_a_damaged_game_cannot_be_loaded_and_every_other_game_works(
    tmp_path: Path, settings: str, caplog: pytest.LogCaptureFixture
) -> None:
    database = tmp_path / "games.db"
    app = make_app(database)
    try:
        http = app.test_client()
        bad = create(http, settings={"level": "easy"})
        good = create(http, settings={"level": "easy"})
        damage(database, bad["id"], settings)

        api = http.get(f"/api/games/{bad['id']}")
        assert api.status_code == 500
        assert api.get_json()["error"]["code"] == protocol.CORRUPT_GAME
        page = http.get(f"/g/{bad['id']}")
        assert page.status_code == 500 and b"damaged" in page.data
        player = Listener(socketio.test_client(app, flask_test_client=http))
        assert player.emit(protocol.JOIN, {"game_id": bad["id"]})["code"] == protocol.CORRUPT_GAME
        assert "cannot be loaded" in caplog.text

        player.emit(protocol.JOIN, {"game_id": good["id"]})
        assert player.emit(protocol.MOVE, {"game_id": good["id"], "move": "5"}) == {"ok": True}
        player.wait_for(protocol.ENGINE_MOVE)
    finally:
        close_app(app)

    again = make_app(database)  # a damaged unfinished game does not stop start-up
    try:
        assert again.test_client().get(f"/api/games/{good['id']}").status_code == 200
    finally:
        close_app(again)


def read_only(app: Flask) -> None:
    """Make the app's database refuse writes (root ignores file modes, so SQLite is told)."""
    service_of(app).store._db.execute("PRAGMA query_only = ON")  # type: ignore[attr-defined]


def test_a_read_only_database_answers_503_and_changes_nothing(
    app: Flask, client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    game = create(client, settings={"level": "easy"})
    player = Listener(socketio.test_client(app, flask_test_client=client))
    player.emit(protocol.JOIN, {"game_id": game["id"]})
    read_only(app)
    with caplog.at_level(logging.ERROR):
        response = client.post("/api/games", json={"game": "tictactoe"})
        assert response.status_code == 503
        assert response.get_json()["error"]["code"] == protocol.STORE_UNAVAILABLE
        answer = player.emit(protocol.MOVE, {"game_id": game["id"], "move": "5"})
        assert answer["code"] == protocol.STORE_UNAVAILABLE
    assert "storage unavailable" in caplog.text
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["store"].startswith("unavailable")
    assert client.get(f"/api/games/{game['id']}").get_json()["moves"] == ""  # reads still work


def test_a_locked_database_answers_503(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    app = make_app(database, DATABASE_TIMEOUT=0.01)
    try:
        http = app.test_client()
        create(http)
        other = sqlite3.connect(database, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
        try:
            response = http.post("/api/games", json={"game": "tictactoe"})
            assert response.status_code == 503
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert http.post("/api/games", json={"game": "tictactoe"}).status_code == 201
    finally:
        close_app(app)


def test_healthz_reports_the_store_the_workers_and_the_queue(
    app: Flask, client: FlaskClient
) -> None:
    wait_until(lambda: client.get("/healthz").status_code == 200)
    health = client.get("/healthz").get_json()
    assert health["ok"] and health["store"] == "ok"
    workers = health["workers"]
    assert workers["workers"] == 1 and workers["alive"] == 1
    assert set(workers["queued"]) == {"engine", "scores", "analysis"}
    assert health["book"] == "ok"


def test_healthz_says_when_the_database_is_missing(
    app: Flask, client: FlaskClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The web process checks the file without loading it (its searches run elsewhere)."""
    import webapp.games.connect4_kernel as kernel

    wait_until(lambda: client.get("/healthz").status_code == 200)
    # as in a web process whose searches run in other processes (the kernel not loaded here)
    monkeypatch.delitem(sys.modules, "webapp.games.connect4_kernel.native", raising=False)
    monkeypatch.setattr(kernel, "database_file", lambda: tmp_path / "gone.dat")
    health = client.get("/healthz")
    assert health.status_code == 200 and health.get_json()["book"] == "missing"
    short = tmp_path / "short.dat"
    short.write_bytes(b"\0" * 5000)
    monkeypatch.setattr(kernel, "database_file", lambda: short)
    assert client.get("/healthz").get_json()["book"] == "damaged"
