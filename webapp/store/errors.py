"""What the store raises: the service turns each into a clear answer for people."""

from __future__ import annotations


class StoreError(Exception):
    """Something went wrong in the store."""


class StoreUnavailable(StoreError):
    """The database cannot be read or written (read-only, locked, I/O error, closed)."""


class CorruptRecord(StoreError):
    """A stored game that fails validation."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id}: {reason}")
        self.game_id, self.reason = game_id, reason


class VersionConflict(StoreError):
    """``save`` lost a compare-and-set: the stored game changed since it was read."""

    def __init__(self, game_id: str, expected: int) -> None:
        super().__init__(f"game {game_id} is no longer at version {expected}")
        self.game_id, self.expected = game_id, expected
