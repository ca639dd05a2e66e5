"""Where games live: a small storage interface and its SQLite implementation.

The service talks to ``GameStore`` only, so another database can be plugged
in by writing one class. A write returns once it is committed: the service
broadcasts a move only after ``save`` has returned.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol


def now() -> str:
    """The current time as an ISO 8601 UTC string (what the store keeps)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class GameRecord:
    """One game as stored: the moves, the settings, the hashed seat token and the result."""

    id: str
    game: str  # "tictactoe" or "connect4"
    moves: str  # "4453"
    settings: dict[str, Any]
    seat_hash: str
    status: str = "playing"  # "playing", "won" or "drawn"
    winner: int | None = None  # 0 = the first player
    last_engine_move: dict[str, Any] | None = None  # the last engine_move payload
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)


class GameStore(Protocol):
    """The storage the service needs. Implementations must be thread-safe."""

    def create(self, record: GameRecord) -> None:
        """Store a new game (its id is not in the store yet)."""
        ...

    def get(self, game_id: str) -> GameRecord | None:
        """The game with that id, or None."""
        ...

    def save(self, record: GameRecord) -> None:
        """Commit a changed game (everything but id, game, seat and created_at)."""
        ...

    def playing(self, limit: int) -> list[GameRecord]:
        """Up to ``limit`` unfinished games, most recently changed first."""
        ...

    def close(self) -> None:
        """Release the store's resources; it is not used afterwards."""
        ...


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

    def playing(self, limit: int) -> list[GameRecord]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {COLUMNS} FROM games WHERE status = 'playing' "
                "ORDER BY updated_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [_record(row) for row in rows]

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
