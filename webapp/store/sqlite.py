"""``GameStore`` on one SQLite file (the embedded default)."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from webapp.store.record import GameRecord

SCHEMA = """
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
COLUMNS = (
    "id, game, moves, settings, seat_hash, status, winner, last_engine_move, created_at, updated_at"
)


class SQLiteStore:
    """``GameStore`` on one SQLite file; one connection, used under a lock."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        with self._lock, self._db:
            if str(path) != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)

    def create(self, record: GameRecord) -> None:
        with self._lock, self._db:
            self._db.execute(
                f"INSERT INTO games ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id,
                    record.game,
                    record.moves,
                    json.dumps(record.settings),
                    record.seat_hash,
                    record.status,
                    record.winner,
                    _dump(record.last_engine_move),
                    record.created_at,
                    record.updated_at,
                ),
            )
        record.version = 1

    def get(self, game_id: str) -> GameRecord | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {COLUMNS} FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return None if row is None else _record(row)

    def save(self, record: GameRecord) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE games SET moves = ?, settings = ?, status = ?, winner = ?, "
                "last_engine_move = ?, updated_at = ? WHERE id = ?",
                (
                    record.moves,
                    json.dumps(record.settings),
                    record.status,
                    record.winner,
                    _dump(record.last_engine_move),
                    record.updated_at,
                    record.id,
                ),
            )
        record.version += 1

    def playing(self, limit: int) -> list[GameRecord]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {COLUMNS} FROM games WHERE status = 'playing' "
                "ORDER BY updated_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [_record(row) for row in rows]

    def check(self) -> None:
        """Raise if the database cannot be read (the health check)."""
        with self._lock:
            self._db.execute("SELECT 1 FROM games LIMIT 1").fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _dump(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value)


def _record(row: tuple[Any, ...]) -> GameRecord:
    game_id, game, moves, settings, seat_hash, status, winner, last, created, updated = row
    return GameRecord(
        id=game_id,
        game=game,
        moves=moves,
        settings=json.loads(settings),
        seat_hash=seat_hash,
        status=status,
        winner=winner,
        last_engine_move=None if last is None else json.loads(last),
        created_at=created,
        updated_at=updated,
    )
