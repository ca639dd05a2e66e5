"""A restarted server serves every game where it was, and the engine picks up where it stopped."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from tests.web.helpers import Listener, create, make_app, options_stored, wait_until
from webapp import protocol
from webapp.protocol import DEFAULT_SETTINGS
from webapp.services.seats import token_hash
from webapp.store import GameRecord, SQLiteStore
from webapp.web.app import close_app, service_of, socketio


def waiting_for_the_engine(game_id: str) -> GameRecord:
    """A tic-tac-toe game where the engine is to move (as if the server stopped mid-search)."""
    settings = {**DEFAULT_SETTINGS, "level": "easy"}
    return GameRecord(game_id, "tictactoe", "5", settings, token_hash("seat"))


def stored_moves(app: Flask, game_id: str) -> str:
    record = service_of(app).store.get(game_id)
    assert record is not None
    return record.moves


def test_games_survive_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    first = make_app(database)
    try:
        http = first.test_client()
        game = create(http, "tictactoe", settings={"level": "easy"})
        player = Listener(socketio.test_client(first, flask_test_client=http))
        player.emit(protocol.JOIN, {"game_id": game["id"]})
        player.emit(protocol.MOVE, {"game_id": game["id"], "move": "1"})
        after = player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 2)
        player.wait_for(protocol.SCORES, lambda s: s["moves"] == after["moves"])
        options_stored(player)  # at rest: the version read below is the one kept
        played = http.get(f"/api/games/{game['id']}").get_json()
        assert played["last_engine_move"]["best_move"] == after["moves"][1]
        assert played["scores"]["moves"] == played["moves"]  # the player's options
        player.client.disconnect()
    finally:
        close_app(first)

    second = make_app(database)
    try:
        again = second.test_client().get(f"/api/games/{game['id']}").get_json()
        assert again["moves"] == played["moves"]
        assert again["settings"] == played["settings"]
        assert again["last_engine_move"] == played["last_engine_move"]
        assert again["version"] == played["version"]
        assert again["scores"] is None  # not kept in the store: scored again once opened
        assert second.test_client().get(f"/g/{game['id']}").status_code == 200
    finally:
        close_app(second)


def test_the_engine_resumes_its_move_after_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    store = SQLiteStore(database)
    store.create(waiting_for_the_engine("left-thinking"))
    store.close()
    app = make_app(database)
    try:
        wait_until(lambda: len(stored_moves(app, "left-thinking")) == 2)
    finally:
        close_app(app)


def test_opening_a_waiting_game_wakes_the_engine(app: Flask) -> None:
    service_of(app).store.create(waiting_for_the_engine("waiting"))
    viewer = Listener(socketio.test_client(app))
    try:
        viewer.emit(protocol.JOIN, {"game_id": "waiting"})
        engine = viewer.wait_for(protocol.ENGINE_MOVE)
        assert engine["moves"] == "5"
        assert viewer.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 2)
    finally:
        viewer.client.disconnect()
