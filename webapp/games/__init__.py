"""The rules layer (on the engine): the games Lookahead plays, by name."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from webapp.engine.game import Game, IllegalMoveError, play_moves
from webapp.games.connect4 import Connect4
from webapp.games.tictactoe import TicTacToe

GAMES: dict[str, Callable[[], Game]] = {
    TicTacToe.name: TicTacToe,
    Connect4.name: Connect4,
}

#: Positions kept, the last asked for (each at most a few kilobytes). A game is asked for
#: its position several times a move (checked, scored, searched), and its next position
#: is the last one and a move: one move played, not the whole game again.
POSITIONS_KEPT = 1024

_positions: OrderedDict[tuple[str, str], Game] = OrderedDict()  # never played on
_positions_lock = threading.Lock()


class UnknownGameError(ValueError):
    """A game name Lookahead does not know."""


def new_game(name: str, moves: str = "") -> Game:
    """A position of game ``name`` after ``moves`` (raises on a bad name or move); the
    caller's own, to play on."""
    try:
        factory = GAMES[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game {name!r} (known: {known})") from None
    if not isinstance(moves, str):
        raise IllegalMoveError("moves must be a string of digits")
    key = (name, moves)
    before: Game | None = None
    with _positions_lock:
        kept = _positions.get(key)
        if kept is not None:
            _positions.move_to_end(key)
        elif moves:
            before = _positions.get((name, moves[:-1]))
    if kept is not None:
        return kept.copy()
    if before is not None:
        position = play_moves(before.copy(), moves, start=len(moves) - 1)
    else:
        position = play_moves(factory(), moves)
    with _positions_lock:
        _positions[key] = position.copy()
        if len(_positions) > POSITIONS_KEPT:
            _positions.popitem(last=False)
    return position


def forget_positions() -> None:
    """Empty the kept positions (for tests that count replays)."""
    with _positions_lock:
        _positions.clear()


__all__ = ["GAMES", "Game", "IllegalMoveError", "UnknownGameError", "forget_positions", "new_game"]
