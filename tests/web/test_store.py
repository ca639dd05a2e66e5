"""The SQLite store (webapp/store/sqlite.py): what is saved is what comes back, across reopening."""

from __future__ import annotations

from pathlib import Path

from webapp.protocol import DEFAULT_SETTINGS
from webapp.store import GameRecord, SQLiteStore


def record(game_id: str, moves: str = "", status: str = "playing") -> GameRecord:
    return GameRecord(game_id, "connect4", moves, dict(DEFAULT_SETTINGS), "hash", status)


def test_a_game_survives_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "games.db"
    store = SQLiteStore(path)
    game = record("abc", "44")
    store.create(game)
    game.moves, game.last_engine_move = "445", {"best_move": "5", "pv": "5"}
    game.updated_at = "2030-01-01T00:00:00+00:00"
    store.save(game)
    store.close()

    reopened = SQLiteStore(path)
    try:
        assert reopened.get("abc") == game
        assert reopened.get("nope") is None
    finally:
        reopened.close()


def test_playing_lists_unfinished_games_newest_first(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.db")
    try:
        for name, updated in (("old", "2030-01-01"), ("new", "2030-01-02")):
            game = record(name)
            game.updated_at = updated
            store.create(game)
        store.create(record("done", "1", status="won"))
        assert [game.id for game in store.playing(10)] == ["new", "old"]
        assert [game.id for game in store.playing(1)] == ["new"]
    finally:
        store.close()
