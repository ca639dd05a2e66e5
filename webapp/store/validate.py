"""Checks every stored game passes, shared by all backends: a row is trusted only once checked.

A database can hold anything: a row written by an older release, edited by
hand, or cut short by a full disk. ``validate`` turns such a row into one
``CorruptRecord`` naming the game and the failed check, so the service can
refuse that one game while every other game works.
"""

from __future__ import annotations

from typing import Any

from webapp.engine.game import Game
from webapp.game_settings import merge_settings
from webapp.games import new_game
from webapp.protocol import DEFAULT_SETTINGS
from webapp.store.errors import CorruptRecord
from webapp.store.record import GameRecord

STATUSES = ("playing", "won", "drawn")


def result_of(position: Game) -> tuple[str, int | None]:
    """``(status, winner)`` of a position: "playing", "won" (with the winner) or "drawn"."""
    if not position.is_terminal():
        return "playing", None
    if position.last_move_won():
        return "won", (position.moves_played - 1) % 2  # the side that made the last move
    return "drawn", None


def validate(record: GameRecord) -> None:
    """Raise ``CorruptRecord`` unless ``record`` is a game the service can load as is."""
    reason = problem(record)
    if reason is not None:
        game_id = record.id if isinstance(record.id, str) else repr(record.id)
        raise CorruptRecord(game_id, reason)


def problem(record: GameRecord) -> str | None:
    """What is wrong with ``record`` (the first failed check), or None."""
    for name in ("id", "seat_hash"):
        value = getattr(record, name)
        if not isinstance(value, str) or not value:
            return f"{name} is not a non-empty string: {value!r}"
    for name in ("created_at", "updated_at"):
        if not isinstance(getattr(record, name), str):
            return f"{name} is not a string: {getattr(record, name)!r}"
    version = record.version
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return f"version is not a positive integer: {version!r}"
    if not isinstance(record.moves, str):
        return f"moves is not a string: {record.moves!r}"
    preset = record.preset
    if (
        isinstance(preset, bool)
        or not isinstance(preset, int)
        or not 0 <= preset <= len(record.moves)
    ):
        return f"preset is not a count of its moves: {preset!r}"
    try:
        position = new_game(record.game, record.moves)
    except ValueError as err:  # UnknownGameError, IllegalMoveError
        return str(err)
    return (
        _settings_problem(record.settings)
        or _result_problem(record, position)
        or _engine_move_problem(record.last_engine_move)
    )


def _settings_problem(settings: Any) -> str | None:
    if not isinstance(settings, dict):
        return f"settings is not an object: {type(settings).__name__}"
    missing = sorted(set(DEFAULT_SETTINGS) - set(settings))
    if missing:
        return f"settings lack {', '.join(missing)}"
    try:
        merge_settings(settings)
    except (ValueError, TypeError) as err:  # SettingsError is a ValueError
        return f"settings: {err}"
    return None


def _result_problem(record: GameRecord, position: Game) -> str | None:
    status, winner = record.status, record.winner
    if not isinstance(status, str) or status not in STATUSES:
        return f"status is not one of {', '.join(STATUSES)}: {status!r}"
    if winner is not None and (isinstance(winner, bool) or not isinstance(winner, int)):
        return f"winner is not 0, 1 or null: {winner!r}"
    expected = result_of(position)
    if (status, winner) != expected:
        return f"status {status!r} and winner {winner!r} contradict the moves (expected {expected})"
    return None


def _engine_move_problem(last_engine_move: Any) -> str | None:
    if last_engine_move is not None and not isinstance(last_engine_move, dict):
        return f"last_engine_move is not an object or null: {type(last_engine_move).__name__}"
    return None
