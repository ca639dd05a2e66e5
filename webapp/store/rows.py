"""A ``GameRecord`` as a row of plain values and back, shared by every SQL backend.

A row holds the settings and the last engine move as JSON text. Reading a
row decodes it and validates the result (``webapp.store.validate``), so a
backend hands out only games the service can load.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from webapp.store.errors import CorruptRecord
from webapp.store.record import GameRecord
from webapp.store.validate import validate

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
)


def to_row(record: GameRecord) -> tuple[Any, ...]:
    """The values of ``record`` in ``COLUMNS`` order (JSON text for the objects)."""
    last = record.last_engine_move
    return (
        record.id,
        record.game,
        record.moves,
        json.dumps(record.settings),
        record.seat_hash,
        record.status,
        record.winner,
        None if last is None else json.dumps(last),
        record.created_at,
        record.updated_at,
        record.version,
    )


def from_row(row: Sequence[Any]) -> GameRecord:
    """The validated record of a row in ``COLUMNS`` order; ``CorruptRecord`` if it fails."""
    game_id, game, moves, settings, seat_hash, status, winner, last, created, updated, version = row
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
    )
    validate(record)
    return record


def _json(game_id: str, column: str, text: Any) -> Any:
    if not isinstance(text, str):
        raise CorruptRecord(game_id, f"{column} is not JSON text: {type(text).__name__}")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError; absurdly deep nesting
        raise CorruptRecord(game_id, f"{column} is not valid JSON: {err}") from None
