"""A stored game (``GameRecord``) and the storage interface every backend implements.

The service talks to ``GameStore`` only, so another database can be plugged
in by writing one class. A write returns once it is committed: the service
broadcasts a move only after ``save`` has returned. Every write is checked
first (``webapp.store.validate``), so a backend never stores a game it would
refuse to read back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol


def now() -> str:
    """The current time as an ISO 8601 UTC string (what the store keeps)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def days_ago(days: float) -> str:
    """The time ``days`` ago, in ``now()``'s format (for ``GameStore.prune``)."""
    return (datetime.now(UTC) - timedelta(days=days)).isoformat(timespec="seconds")


def utc_iso(text: str) -> str:
    """An ISO 8601 time in ``now()``'s format, so stored times compare as text.

    A time without a zone is taken as UTC; anything else raises ValueError.

    >>> utc_iso("2030-01-01")
    '2030-01-01T00:00:00+00:00'
    """
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


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
    # The last engine_move payload (its "previous": the one before, for an undo).
    last_engine_move: dict[str, Any] | None = None
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    #: Grows by one with every committed change: 1 after ``create``, 0 before.
    version: int = 0
    #: How many of ``moves`` were there when the game was made (a link with ``moves=``):
    #: played by neither the player nor the engine, so the review judges no one by them.
    preset: int = 0
    #: A game between two people (``webapp.services.friends``): the second seat, the
    #: invite, the clock, the offers and how it ended. None: a game against the engine.
    friend: dict[str, Any] | None = None


class GameStore(Protocol):
    """The storage the service needs. Implementations must be thread-safe.

    Every method raises ``StoreUnavailable`` when the database cannot be read
    or written (read-only, locked past the busy timeout, I/O error, closed).
    """

    def create(self, record: GameRecord) -> None:
        """Store a new game and set ``record.version`` to 1.

        Raises ``GameExists`` when the id is taken, ``CorruptRecord`` when the
        record is not valid (nothing is written either way).
        """
        ...

    def get(self, game_id: str) -> GameRecord | None:
        """The game with that id, or None; ``CorruptRecord`` (logged) when it fails validation."""
        ...

    def save(self, record: GameRecord) -> None:
        """Commit a changed game (everything but id, game, seat and created_at), compare-and-set.

        Commits only when the stored version equals ``record.version``, then
        adds one to ``record.version``; otherwise raises ``VersionConflict``
        and writes nothing.
        """
        ...

    def playing(self, limit: int) -> list[GameRecord]:
        """Up to ``limit`` unfinished games, most recently changed first.

        A game that fails validation is logged and skipped, never raised.
        """
        ...

    def games_of(self, seat_hash: str, limit: int) -> list[GameRecord]:
        """Up to ``limit`` games of the seat ``seat_hash`` (the creator's, or the second seat
        of a game between two people), most recently changed first.

        A game that fails validation is logged and skipped, never raised.
        """
        ...

    def prune(self, *, unfinished_before: str, finished_before: str) -> int:
        """Delete unfinished games untouched since ``unfinished_before`` and finished
        games last changed before ``finished_before`` (ISO 8601 times); return how many."""
        ...

    def last_alive(self) -> int | None:
        """When (ms since the epoch) a server last said it was up (``mark_alive``), if ever."""
        ...

    def mark_alive(self, at_ms: int) -> None:
        """A server is up at ``at_ms``: the stored time becomes the later of the two."""
        ...

    def claim_downtime(self, seen: int | None, at_ms: int) -> bool:
        """Set the last time up to ``at_ms`` if it is still ``seen`` (None: never set), and
        remember ``(seen, at_ms)`` as an outage; True for the one server that did so
        (compare-and-set: of several servers starting together, one records it)."""
        ...

    def outages(self) -> list[tuple[int, int]]:
        """The outages remembered (``store.uptime``), oldest first."""
        ...

    def check(self) -> None:
        """Raise ``StoreUnavailable`` if the store cannot serve (the health check)."""
        ...

    def close(self) -> None:
        """Release the store's resources; it is not used afterwards."""
        ...
