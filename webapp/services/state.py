"""A stored game as the protocol's state dict (the ``state`` event and GET /api/games/<id>)."""

from __future__ import annotations

from typing import Any

from webapp.game_settings import engine_side
from webapp.store import GameRecord, result_of

__all__ = [
    "engine_to_move",
    "game_state",
    "game_url",
    "result_of",
    "shown_engine_move",
    "to_move",
    "undone_engine_move",
    "with_previous",
]

#: The key, inside a stored ``last_engine_move``, of the engine's move before it (with its
#: analysis), so that an undo leaves the move still on the board with its own. One level:
#: an undo of two turns in a row finds none for the second (the store keeps one move's).
PREVIOUS = "previous"


def game_url(game_id: str) -> str:
    """The game page's path (the page route is ``/g/<id>``)."""
    return f"/g/{game_id}"


def to_move(record: GameRecord) -> int:
    """The side to move in a stored game (0 = the first player)."""
    return len(record.moves) % 2


def with_previous(payload: dict[str, Any], last: dict[str, Any] | None) -> dict[str, Any]:
    """What to store as the engine's last move: ``payload``, with the last one before it."""
    if last is None:
        return payload
    return {**payload, PREVIOUS: {k: v for k, v in last.items() if k != PREVIOUS}}


def undone_engine_move(last: dict[str, Any] | None, moves: str) -> dict[str, Any] | None:
    """The engine's move to keep after an undo leaves ``moves`` on the board: the one that
    is the board's last move, if it is kept: the last itself (the undo took back only the
    player's move: it ended the game, or came while the engine thought), or the one before
    it (the undo took back the engine's reply too); else none."""
    earlier = None if last is None else last.get(PREVIOUS)
    for kept in (last, earlier):
        played = isinstance(kept, dict) and f"{kept.get('moves', '')}{kept.get('move', '')}"
        if moves and played == moves:
            return kept
    return None


def shown_engine_move(last: dict[str, Any] | None) -> dict[str, Any] | None:
    """The engine's last move as viewers get it (what the store keeps behind it stays)."""
    if last is None or PREVIOUS not in last:
        return last
    return {k: v for k, v in last.items() if k != PREVIOUS}


def engine_to_move(record: GameRecord) -> bool:
    """True when the game is on and waits for the engine (never in a game between two people)."""
    return (
        record.friend is None
        and record.status == "playing"
        and to_move(record) == engine_side(record.settings)
    )


def game_state(
    record: GameRecord, thinking: bool, scores: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The whole state of a game, as every viewer gets it (the per-viewer ``seat`` aside).

    ``scores``: the latest ``scores`` payload of the live position, if any.
    """
    engine = engine_side(record.settings)
    return {
        "id": record.id,
        "version": record.version,  # grows with every change: clients drop older states
        "game": record.game,
        "moves": record.moves,
        "status": record.status,
        "winner": record.winner,
        "to_move": to_move(record),  # the sides alternate: no need to replay the moves
        "settings": dict(record.settings),
        "human_side": 1 - engine,
        "engine_side": engine,
        "engine_thinking": thinking,
        "last_engine_move": shown_engine_move(record.last_engine_move),
        "scores": scores if scores is not None and scores["moves"] == record.moves else None,
        "move_count": len(record.moves),
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "url": game_url(record.id),
    }
