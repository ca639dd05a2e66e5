"""Checks every stored game passes, shared by all backends: a row is trusted only once checked.

A database can hold anything: a row written by an older release, edited by
hand, or cut short by a full disk. ``validate`` turns such a row into one
``CorruptRecord`` naming the game and the failed check, so the service can
refuse that one game while every other game works.
"""

from __future__ import annotations

import functools
from typing import Any

from webapp.engine.game import Game
from webapp.game_settings import merge_settings
from webapp.games import new_game
from webapp.protocol import DEFAULT_SETTINGS
from webapp.store.errors import CorruptRecord
from webapp.store.record import GameRecord

STATUSES = ("playing", "won", "drawn", "aborted")
#: How a game between two people ended other than by its rules, and the status each gives
#: ("aborted": over without a result, its players gone before it really began).
FRIEND_ENDS = {
    "resign": "won",
    "flag": "won",
    "abandon": "won",
    "agreement": "drawn",
    "aborted": "aborted",
}
#: Replayed positions whose result ``replayed`` keeps (a key is a game and its moves).
REPLAYS_KEPT = 4096


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
        expected = replayed(record.game, record.moves)
    except ValueError as err:  # UnknownGameError, IllegalMoveError
        return str(err)
    return (
        _settings_problem(record.settings)
        or _friend_problem(record.friend)
        or _result_problem(record, expected)
        or _engine_move_problem(record.last_engine_move)
    )


@functools.lru_cache(maxsize=REPLAYS_KEPT)
def _replayed(game: str, moves: str) -> tuple[str, int | None]:
    return result_of(new_game(game, moves))


def replayed(game: Any, moves: str) -> tuple[str, int | None]:
    """``result_of`` the position ``moves`` lead to; ValueError if they cannot be played.

    A game's moves are checked at each save and a save is often of moves checked just
    before (the engine's options join its move): the last ``REPLAYS_KEPT`` are kept.
    """
    if not isinstance(game, str):
        new_game(game, moves)  # raises: no game has that name
    return _replayed(game, moves)


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


def _result_problem(record: GameRecord, expected: tuple[str, int | None]) -> str | None:
    status, winner = record.status, record.winner
    if not isinstance(status, str) or status not in STATUSES:
        return f"status is not one of {', '.join(STATUSES)}: {status!r}"
    if winner is not None and (isinstance(winner, bool) or not isinstance(winner, int)):
        return f"winner is not 0, 1 or null: {winner!r}"
    end = None if record.friend is None else record.friend["end"]
    if end is not None:  # resigned, flagged, agreed, abandoned or aborted: not by the rules
        decided = FRIEND_ENDS[end] == "won"
        if status != FRIEND_ENDS[end] or (winner in (0, 1)) != decided:
            return f"status {status!r} and winner {winner!r} contradict the end {end!r}"
        return None
    if (status, winner) != expected:
        return f"status {status!r} and winner {winner!r} contradict the moves (expected {expected})"
    return None


def _friend_problem(friend: Any) -> str | None:
    """A game between two people: its seats, invite, clock, offers and end are well formed."""
    if friend is None:
        return None
    if not isinstance(friend, dict):
        return f"friend is not an object or null: {type(friend).__name__}"
    shape: dict[str, Any] = {
        "invite": str,
        "guest_hash": (str, type(None)),
        "creator_side": int,
        "spectator_analysis": bool,
        "clock": (dict, type(None)),
        "offers": dict,
        "end": (str, type(None)),
        "next": (str, type(None)),
    }
    for key, kind in shape.items():
        if key not in friend or not isinstance(friend[key], kind):
            return f"friend.{key} is missing or not {kind}: {friend.get(key)!r}"
    if friend["creator_side"] not in (0, 1) or isinstance(friend["creator_side"], bool):
        return f"friend.creator_side is not 0 or 1: {friend['creator_side']!r}"
    if friend["end"] is not None and friend["end"] not in FRIEND_ENDS:
        return f"friend.end is not one of {', '.join(FRIEND_ENDS)}: {friend['end']!r}"
    return None if friend["clock"] is None else _clock_problem(friend["clock"])


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _clock_problem(clock: dict[str, Any]) -> str | None:
    """A clock as ``services.clock.Clock.to_json`` writes it (its times whole milliseconds)."""
    remaining = clock.get("remaining_ms")
    running = clock.get("running", "")
    checks = {
        "initial_ms": _whole(clock.get("initial_ms")),
        "increment_ms": _whole(clock.get("increment_ms")),
        "remaining_ms": isinstance(remaining, list)
        and len(remaining) == 2
        and all(_whole(ms) for ms in remaining),
        "running": running is None or (_whole(running) and running in (0, 1)),
        "since": clock.get("since", "") is None or _whole(clock.get("since")),
        "excused_to": clock.get("excused_to") is None or _whole(clock.get("excused_to")),
    }
    for key, fine in checks.items():
        if not fine:
            return f"friend.clock.{key} is missing or malformed: {clock.get(key)!r}"
    return None


def _engine_move_problem(last_engine_move: Any) -> str | None:
    if last_engine_move is not None and not isinstance(last_engine_move, dict):
        return f"last_engine_move is not an object or null: {type(last_engine_move).__name__}"
    return None
