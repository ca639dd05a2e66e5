"""One lock per game, and an outbox that sends a game's news after its lock is let go.

Two actions on one game (a move and an undo from two sockets, an engine result
and a settings change) run one after the other; actions on different games
never wait for each other. What an action has to tell the room is collected
while it holds the lock and sent after releasing it, so a slow client or a
busy socket never holds up the next action on that game.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: emit(event, payload, to): send to a room (a game id) or one client (its sid).
Emit = Callable[[str, dict[str, Any], str], None]


class Outbox:
    """Messages to send once the game's lock is released, in order."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any], str]] = []

    def send(self, event: str, payload: dict[str, Any], to: str) -> None:
        self.messages.append((event, payload, to))

    def flush(self, emit: Emit) -> None:
        messages, self.messages = self.messages, []
        for event, payload, to in messages:
            emit(event, payload, to)


class GameLocks:
    """A re-entrant lock per game id, made on first use and dropped when nobody holds it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.RLock, int]] = {}

    @contextmanager
    def hold(self, game_id: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.get(game_id, (threading.RLock(), 0))
            self._locks[game_id] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[game_id]
                if users == 1:
                    del self._locks[game_id]
                else:
                    self._locks[game_id] = (lock, users - 1)

    def users(self, game_id: str) -> int:
        """How many threads hold or wait for the game's lock."""
        with self._guard:
            return self._locks.get(game_id, (None, 0))[1]

    def __len__(self) -> int:
        """How many games have a lock right now (held or waited for)."""
        with self._guard:
            return len(self._locks)
