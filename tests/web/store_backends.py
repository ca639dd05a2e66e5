"""The store's backends as the tests see them: open a store, and reach its database behind its back.

The ``backend`` fixture (tests/web/conftest.py) gives one of these per backend,
each on a new, empty database, so a store test written once runs on SQLite and
on PostgreSQL. SQL given to ``execute`` uses ``?`` placeholders for both.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg

from webapp.store import GameStore, SQLiteStore
from webapp.store.postgres import PostgresStore

BACKENDS = ("sqlite", "postgresql")

#: Each backend's version 1 schema, exactly as its first migration made it (copied, never
#: imported: a later edit of the migration must not change what an old database holds).
VERSION_1_SCHEMA = {
    "sqlite": """
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
""",
    "postgresql": """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    moves TEXT NOT NULL,
    settings TEXT NOT NULL,
    seat_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    winner INTEGER,
    last_engine_move TEXT,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_status ON games (status, updated_at);
""",
}


class Backend:
    """One empty database of one backend: ``open`` stores on it, ``execute`` SQL behind them."""

    name: str

    def __init__(self, location: str) -> None:
        self.location = location

    def open(self, **options: Any) -> GameStore:
        raise NotImplementedError

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement in its own committed transaction; its rows, if any."""
        raise NotImplementedError

    def script(self, sql: str) -> None:
        """Run several statements (no parameters) in one transaction."""
        raise NotImplementedError

    def schema(self) -> tuple[int, list[str], list[str]]:
        """``(recorded schema version or 0, the games columns, the index names, sorted)``."""
        raise NotImplementedError

    def set_version(self, version: int) -> None:
        """Record ``version`` as the schema's version, as a newer release would."""
        raise NotImplementedError


class SQLiteBackend(Backend):
    name = "sqlite"

    def open(self, **options: Any) -> GameStore:
        return SQLiteStore(self.location, **options)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.location) as db:
            rows = db.execute(sql, params).fetchall()
        db.close()
        return rows

    def script(self, sql: str) -> None:
        db = sqlite3.connect(self.location)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(f"BEGIN; {sql}; COMMIT;")
        finally:
            db.close()

    def schema(self) -> tuple[int, list[str], list[str]]:
        version = self.execute("PRAGMA user_version")[0][0]
        columns = [row[1] for row in self.execute("PRAGMA table_info(games)")]
        indexes = sorted(
            row[0]
            for row in self.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
            if not row[0].startswith("sqlite_autoindex")
        )
        return version, columns, indexes

    def set_version(self, version: int) -> None:
        self.execute(f"PRAGMA user_version = {int(version)}")


class PostgresBackend(Backend):
    name = "postgresql"

    def open(self, **options: Any) -> GameStore:
        return PostgresStore(self.location, **options)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.location, autocommit=True) as db:
            cursor = db.execute(sql.replace("?", "%s"), params)
            return cursor.fetchall() if cursor.description else []

    def script(self, sql: str) -> None:
        with psycopg.connect(self.location) as db:  # one transaction, committed on exit
            db.execute(sql)

    def schema(self) -> tuple[int, list[str], list[str]]:
        has_version = self.execute("SELECT to_regclass('lookahead_schema') IS NOT NULL")[0][0]
        version = self.execute("SELECT version FROM lookahead_schema")[0][0] if has_version else 0
        columns = [
            row[0]
            for row in self.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'games' ORDER BY ordinal_position"
            )
        ]
        indexes = sorted(
            row[0]
            for row in self.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'games'")
            if not row[0].endswith("_pkey")
        )
        return version, columns, indexes

    def set_version(self, version: int) -> None:
        self.execute("UPDATE lookahead_schema SET version = ?", (version,))


def make_backend(name: str, tmp_path: Path, postgres_url: str | None) -> Backend:
    if name == "sqlite":
        return SQLiteBackend(str(tmp_path / "games.db"))
    assert postgres_url is not None
    return PostgresBackend(postgres_url)
