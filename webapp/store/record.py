"""A stored game (``GameRecord``) and the storage interface every backend implements.

The service talks to ``GameStore`` only, so another database can be plugged
in by writing one class. A write returns once it is committed: the service
broadcasts a move only after ``save`` has returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
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
    version: int = 0  # grows by one with every committed change; 1 once created


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

    def check(self) -> None:
        """Raise if the store cannot serve (the health check)."""
        ...

    def close(self) -> None:
        """Release the store's resources; it is not used afterwards."""
        ...
