"""The rules layer (on the engine): the games Lookahead plays, by name."""

from __future__ import annotations

from collections.abc import Callable

from webapp.engine.game import Game, IllegalMoveError, play_moves
from webapp.games.connect4 import Connect4
from webapp.games.tictactoe import TicTacToe

GAMES: dict[str, Callable[[], Game]] = {
    TicTacToe.name: TicTacToe,
    Connect4.name: Connect4,
}


class UnknownGameError(ValueError):
    """A game name Lookahead does not know."""


def new_game(name: str, moves: str = "") -> Game:
    """A position of game ``name`` after ``moves`` (raises on a bad name or move)."""
    try:
        factory = GAMES[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game {name!r} (known: {known})") from None
    if not isinstance(moves, str):
        raise IllegalMoveError("moves must be a string of digits")
    return play_moves(factory(), moves)


__all__ = ["GAMES", "Game", "IllegalMoveError", "UnknownGameError", "new_game"]
