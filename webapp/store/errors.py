"""What the store raises: one base class, and one subclass per thing a caller handles differently.

* ``StoreUnavailable``  the database cannot be read or written now (a 503, retry later)
* ``CorruptRecord``     one stored game fails validation (that game cannot be loaded)
* ``VersionConflict``   a compare-and-set save lost: someone else changed the game first
* ``GameExists``        ``create`` with an id that is already stored
* ``SchemaError``       the database's schema is newer than this code, or a migration failed
"""

from __future__ import annotations


class StoreError(Exception):
    """Anything the store refuses or cannot do."""


class StoreUnavailable(StoreError):
    """The database cannot be read or written: read-only, locked, disk I/O, closed."""


class CorruptRecord(StoreError):
    """A stored game that fails validation; ``reason`` says which check failed."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id!r} is not valid: {reason}")
        self.game_id = game_id
        self.reason = reason


class VersionConflict(StoreError):
    """``save`` expected the stored game at ``expected`` and found another version (or none)."""

    def __init__(self, game_id: str, expected: int) -> None:
        super().__init__(f"game {game_id!r} is no longer at version {expected}")
        self.game_id = game_id
        self.expected = expected


class GameExists(StoreError):
    """``create`` with the id of a game already stored (nothing was written)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} is already stored")
        self.game_id = game_id


class SchemaError(StoreError):
    """The schema cannot be brought to this code's version (too new, or a migration failed)."""
