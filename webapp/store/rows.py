"""A ``GameRecord`` as a row of plain values and back, shared by every SQL backend.

A row holds the settings and the last engine move as JSON text. Reading a
row decodes it and validates the result (``webapp.store.validate``), so a
backend hands out only games the service can load.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from webapp import json_text
from webapp.store.errors import CorruptRecord
from webapp.store.record import GameRecord
from webapp.store.validate import validate

log = logging.getLogger("webapp.store")

Clock = Callable[[], float]
#: Seconds a cached row stays once nobody reads or writes it (``RowCache``).
IDLE_ROW_SECONDS = 300.0

#: The columns of the ``games`` table, in the order ``to_row`` and ``from_row`` use.
COLUMNS = (
    "id",
    "game",
    "moves",
    "settings",
    "seat_hash",
    "status",
    "winner",
    "last_engine_move",
    "created_at",
    "updated_at",
    "version",
    "preset",
    "friend",
)
#: What ``save`` changes; id, game, seat_hash and created_at never change.
UPDATED = (
    "moves",
    "settings",
    "status",
    "winner",
    "last_engine_move",
    "updated_at",
    "version",
    "preset",  # an undo into the preset moves takes them back too
    "friend",  # its seats, clock and offers change as it is played
)


def to_row(record: GameRecord) -> tuple[Any, ...]:
    """The values of ``record`` in ``COLUMNS`` order (JSON text for the objects)."""
    last = record.last_engine_move
    return (
        record.id,
        record.game,
        record.moves,
        json_text.dumps(record.settings),
        record.seat_hash,
        record.status,
        record.winner,
        None if last is None else json_text.dumps(last),
        record.created_at,
        record.updated_at,
        record.version,
        record.preset,
        None if record.friend is None else json_text.dumps(record.friend),
    )


def from_row(row: Sequence[Any]) -> GameRecord:
    """The validated record of a row in ``COLUMNS`` order; ``CorruptRecord`` if it fails."""
    record = decoded(row)
    validate(record)
    return record


def decoded(row: Sequence[Any]) -> GameRecord:
    """The record of a row in ``COLUMNS`` order, its JSON decoded but not validated: for a
    row validated already (``RowCache``); ``CorruptRecord`` if its JSON cannot be read."""
    (game_id, game, moves, settings, seat_hash, status, winner, last, created, updated, version,
     preset, friend) = row  # fmt: skip
    name = game_id if isinstance(game_id, str) else repr(game_id)
    record = GameRecord(
        id=game_id,
        game=game,
        moves=moves,
        settings=_json(name, "settings", settings),
        seat_hash=seat_hash,
        status=status,
        winner=winner,
        last_engine_move=None if last is None else _json(name, "last_engine_move", last),
        created_at=created,
        updated_at=updated,
        version=version,
        preset=preset,
        friend=None if friend is None else _json(name, "friend", friend),
    )
    return record


def _json(game_id: str, column: str, text: Any) -> Any:
    if not isinstance(text, str):
        raise CorruptRecord(game_id, f"{column} is not JSON text: {type(text).__name__}")
    try:
        return json_text.loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError; absurdly deep nesting
        raise CorruptRecord(game_id, f"{column} is not valid JSON: {err}") from None


#: Where each ``UPDATED`` column sits in a row, and the version's place.
_UPDATED_AT = tuple(COLUMNS.index(name) for name in UPDATED)
_VERSION_AT = COLUMNS.index("version")


def update_row(record: GameRecord) -> tuple[tuple[Any, ...], list[Any]]:
    """The row of ``record``'s next version (validated first) and the parameters of its
    compare-and-set save: the ``UPDATED`` columns of that row, then the id and the version
    ``record`` was read at. One encoding serves both (a backend keeps the row)."""
    # The next version differs from ``record`` only by its version: checked as is unless
    # that is what would fail (a record never stored, version 0: a conflict, not corrupt).
    validate(record if record.version >= 1 else replace(record, version=record.version + 1))
    row = to_row(record)
    row = (*row[:_VERSION_AT], record.version + 1, *row[_VERSION_AT + 1 :])
    return row, [row[i] for i in _UPDATED_AT] + [record.id, record.version]


def changed_columns(row: Sequence[Any], before: Sequence[Any] | None) -> tuple[str, ...]:
    """The ``UPDATED`` columns a save of ``row`` must write over ``before``, the row of the
    version it was read at (None: not known, all of them); the version always.

    Every committed change grows a game's version, so the row of a version is one row:
    a column equal in both need not be written. An index whose columns are not written
    is left alone (SQLite rewrites an index entry for any column it is told to set,
    equal or not): a save of moves within the second its game last changed writes the
    game's row and no index (docs/operations.md, "A move's CPU")."""
    if before is None or len(before) != len(row) or before[_VERSION_AT] != row[_VERSION_AT] - 1:
        return UPDATED
    return tuple(
        name
        for name, at in zip(UPDATED, _UPDATED_AT, strict=True)
        if name == "version" or row[at] != before[at]
    )


def update_values(record: GameRecord) -> list[Any]:
    """The parameters of a compare-and-set save of ``record`` (``update_row``)."""
    return update_row(record)[1]


class RowCache:
    """The last rows this process read or wrote, by game id, validated: a hot game is read
    without decoding and validating it again (its moves replayed) at every look.

    A backend keeps it only while it knows the rows are current (SQLite: no other
    connection has committed since, ``PRAGMA data_version``), and clears it otherwise.
    At most ``size`` rows, the least recently used dropped first, and a row nobody read
    or wrote for ``idle_seconds`` leaves at the next ``put``: the cache holds the games
    being played now, not every game of the last hour (an abandoned game is read from
    the database if it is ever opened again).

    Safe to share between threads: each call holds a lock of its own for a few dictionary
    operations (never across I/O), so a reader need not hold the backend's connection.
    """

    def __init__(
        self, size: int, idle_seconds: float = IDLE_ROW_SECONDS, clock: Clock = time.monotonic
    ) -> None:
        self.size, self.idle_seconds, self.clock = size, idle_seconds, clock
        self._rows: OrderedDict[str, tuple[tuple[Any, ...], float]] = OrderedDict()
        self._guard = threading.Lock()

    def get(self, game_id: str) -> tuple[Any, ...] | None:
        with self._guard:
            kept = self._rows.get(game_id)
            if kept is None:
                return None
            self._rows[game_id] = (kept[0], self.clock())
            self._rows.move_to_end(game_id)
            return kept[0]

    def peek(self, game_id: str) -> tuple[Any, ...] | None:
        """The game's cached row, if any, as ``get`` but not counted as a use."""
        with self._guard:
            kept = self._rows.get(game_id)
            return None if kept is None else kept[0]

    def put(self, row: Sequence[Any]) -> None:
        """Keep ``row`` (in ``COLUMNS`` order, validated) as its game's current row."""
        game_id, now = row[0], self.clock()
        with self._guard:
            self._rows[game_id] = (tuple(row), now)
            self._rows.move_to_end(game_id)
            if len(self._rows) > self.size:
                self._rows.popitem(last=False)
            idle_since = now - self.idle_seconds
            while self._rows:  # least recently used first: stop at the first one still in use
                oldest = next(iter(self._rows.values()))
                if oldest[1] > idle_since:
                    break
                self._rows.popitem(last=False)

    def drop(self, game_id: str) -> None:
        with self._guard:
            self._rows.pop(game_id, None)

    def clear(self) -> None:
        with self._guard:
            self._rows.clear()

    def __len__(self) -> int:
        with self._guard:
            return len(self._rows)


def loaded(row: Sequence[Any]) -> GameRecord:
    """``from_row`` for one game asked for by id: a corrupt one is logged, then raised."""
    try:
        return from_row(row)
    except CorruptRecord as err:
        log.error("store: game %r cannot be loaded: %s", err.game_id, err.reason)
        raise


def first_valid(rows: Iterable[Sequence[Any]], limit: int) -> list[GameRecord]:
    """Up to ``limit`` records from ``rows``, read on past corrupt ones (each logged)."""
    found: list[GameRecord] = []
    if limit <= 0:
        return found
    for row in rows:
        try:
            found.append(from_row(row))
        except CorruptRecord as err:
            log.error("store: game %r skipped: %s", err.game_id, err.reason)
            continue
        if len(found) == limit:
            break
    return found
