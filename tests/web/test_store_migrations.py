"""Schema versions (webapp/store/migrations.py, sqlite.py): old ones upgraded, newer refused."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from tests.web.test_store import game_record
from webapp.protocol import DEFAULT_SETTINGS
from webapp.store import SCHEMA_VERSION, SchemaError, SQLiteStore, StoreUnavailable, sqlite

#: The schema as the code before schema versions made it (user_version 0), copied verbatim.
VERSION_1_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    moves TEXT NOT NULL,
    settings TEXT NOT NULL,
    seat_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    winner INTEGER,
    last_engine_move TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_status ON games (status, updated_at);
"""
VERSION_1_GAMES = [
    ("a", "connect4", "44", None, "playing", None, "2030-01-01T00:00:00+00:00"),
    ("b", "tictactoe", "14253", {"best_move": "3"}, "won", 0, "2030-01-02T00:00:00+00:00"),
    ("c", "connect4", "", None, "playing", None, "2030-01-03T00:00:00+00:00"),
]


def make_version_1_database(path: Path) -> None:
    """A database as the code before schema versions left it, with ``VERSION_1_GAMES``."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(VERSION_1_SCHEMA)
        for game_id, game, moves, last, status, winner, updated in VERSION_1_GAMES:
            db.execute(
                "INSERT INTO games (id, game, moves, settings, seat_hash, status, winner, "
                "last_engine_move, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    game,
                    moves,
                    json.dumps(DEFAULT_SETTINGS),
                    f"hash-{game_id}",
                    status,
                    winner,
                    None if last is None else json.dumps(last),
                    "2029-12-31T00:00:00+00:00",
                    updated,
                ),
            )
    db.close()


#: The schema at version 2, as SQLite keeps it after migrations 1 and 2, copied verbatim.
VERSION_2_SCHEMA = """
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    moves TEXT NOT NULL,
    settings TEXT NOT NULL,
    seat_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    winner INTEGER,
    last_engine_move TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX games_by_status ON games (status, updated_at);
CREATE INDEX games_by_update ON games (updated_at);
PRAGMA user_version = 2;
"""
CURRENT_INDEXES = ["games_by_seat", "games_by_status", "games_by_update"]


def schema_of(path: Path) -> tuple[int, list[str], list[str]]:
    """``(user_version, the games columns, the index names)`` of the file at ``path``."""
    with sqlite3.connect(path) as db:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
        indexes = sorted(
            row[0]
            for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
            if not row[0].startswith("sqlite_autoindex")
        )
    db.close()
    return version, columns, indexes


def test_every_backend_migration_list_reaches_the_schema_version() -> None:
    assert len(sqlite.MIGRATIONS) == SCHEMA_VERSION


def test_a_version_1_database_keeps_every_game_and_gains_versions(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    make_version_1_database(path)
    assert schema_of(path)[0] == 0

    store = SQLiteStore(path)
    try:
        for game_id, game, moves, last, status, winner, updated in VERSION_1_GAMES:
            stored = store.get(game_id)
            assert stored is not None, game_id
            assert (stored.game, stored.moves, stored.last_engine_move) == (game, moves, last)
            assert (stored.status, stored.winner, stored.updated_at) == (status, winner, updated)
            assert (stored.seat_hash, stored.settings) == (f"hash-{game_id}", DEFAULT_SETTINGS)
            assert stored.version == 1
        assert [game.id for game in store.playing(10)] == ["c", "a"]
        migrated = store.get("a")
        assert migrated is not None
        migrated.moves = "445"
        store.save(migrated)
        assert migrated.version == 2
    finally:
        store.close()
    version, columns, indexes = schema_of(path)
    assert version == SCHEMA_VERSION
    assert columns[-1] == "version"
    assert indexes == CURRENT_INDEXES


def test_a_version_2_database_keeps_every_game_and_lists_them_by_seat(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    with sqlite3.connect(path) as db:
        db.executescript(VERSION_2_SCHEMA)
        for game_id, game, moves, _, status, winner, updated in VERSION_1_GAMES:
            db.execute(
                "INSERT INTO games (id, game, moves, settings, seat_hash, status, winner, "
                "created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 4)",
                (
                    game_id,
                    game,
                    moves,
                    json.dumps(DEFAULT_SETTINGS),
                    "same-seat",
                    status,
                    winner,
                    "2029-12-31T00:00:00+00:00",
                    updated,
                ),
            )
    db.close()
    assert schema_of(path)[0] == 2

    store = SQLiteStore(path)
    try:
        mine = store.games_of("same-seat", 10)
        assert [game.id for game in mine] == ["c", "b", "a"]  # newest first
        assert [(game.moves, game.version) for game in mine] == [("", 4), ("14253", 4), ("44", 4)]
        assert [game.id for game in store.games_of("same-seat", 2)] == ["c", "b"]
        assert store.games_of("someone-else", 10) == []
    finally:
        store.close()
    assert schema_of(path)[0::2] == (SCHEMA_VERSION, CURRENT_INDEXES)


def test_games_of_a_seat_use_an_index(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "games.db").close()
    with sqlite3.connect(tmp_path / "games.db") as db:
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM games WHERE seat_hash = ? "
            "ORDER BY updated_at DESC, rowid DESC",
            ("x",),
        ).fetchall()
    db.close()
    steps = " ".join(str(row[-1]) for row in plan)
    assert "games_by_seat" in steps and "TEMP B-TREE" not in steps, plan  # no sort either


def test_a_new_database_is_made_at_the_current_version(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "new.db").close()
    version, columns, indexes = schema_of(tmp_path / "new.db")
    assert version == SCHEMA_VERSION and "version" in columns
    assert indexes == CURRENT_INDEXES


def test_reopening_a_current_database_migrates_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "games.db"
    store = SQLiteStore(path)
    store.create(game_record("abc"))
    store.close()
    with caplog.at_level(logging.INFO, logger="webapp.store"):
        store = SQLiteStore(path)
    store.close()
    assert "migrating" not in caplog.text


def test_a_newer_schema_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    before = path.read_bytes()
    with pytest.raises(SchemaError, match=f"version {SCHEMA_VERSION + 1}, newer"):
        SQLiteStore(path)
    assert path.read_bytes() == before


def test_a_failed_migration_leaves_the_database_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    make_version_1_database(path)
    broken = ("CREATE TABLE extra (x)", "INSERT INTO no_such_table VALUES (1)")
    monkeypatch.setattr(sqlite, "MIGRATIONS", (*sqlite.MIGRATIONS, broken))
    with pytest.raises(StoreUnavailable, match="no_such_table"):
        SQLiteStore(path)
    version, columns, indexes = schema_of(path)
    assert (version, indexes) == (0, ["games_by_status"])  # version 2's changes rolled back too
    assert "version" not in columns

    def fails(db: sqlite3.Connection) -> None:
        raise RuntimeError("cannot rewrite")

    monkeypatch.setattr(sqlite, "MIGRATIONS", (*sqlite.MIGRATIONS[:2], fails))
    with pytest.raises(SchemaError, match="migration to version 3 failed: cannot rewrite"):
        SQLiteStore(path)
    assert schema_of(path)[0] == 0

    monkeypatch.undo()
    store = SQLiteStore(path)  # the real migrations still apply afterwards
    try:
        assert len(store.playing(10)) == 2
    finally:
        store.close()


def test_the_pruning_deletes_use_an_index(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "games.db").close()
    with sqlite3.connect(tmp_path / "games.db") as db:
        for status in ("status = 'playing'", "status != 'playing'"):
            plan = db.execute(
                f"EXPLAIN QUERY PLAN DELETE FROM games WHERE updated_at < ? AND {status}", ("x",)
            ).fetchall()
            assert "USING INDEX" in " ".join(str(row[-1]) for row in plan), plan
    db.close()
