"""A position a link would start a game from, checked as creating it would be, nothing stored.

``GET /new?game=...&moves=...`` shows the position and a button that POSTs;
the page needs the same refusals ``GameService.create`` gives, without
creating anything (a link preview or an ``<img>`` must change nothing).
"""

from __future__ import annotations

from typing import Any

from webapp import protocol
from webapp.engine.game import IllegalMoveError
from webapp.game_settings import SettingsError, engine_side, merge_settings
from webapp.games import GAMES, UnknownGameError, new_game
from webapp.services.errors import GameError
from webapp.services.state import result_of

#: Longest move string a new game may start from (a full Connect Four board).
MAX_MOVES_LENGTH = 42


def preview(game: object, settings: object = None, moves: object = "") -> dict[str, Any]:
    """``{game, moves, settings, status, winner, to_move, human_side, engine_side}``.

    Raises the GameError ``GameService.create`` would raise for the same input.
    """
    if not isinstance(game, str) or game not in GAMES:
        known = ", ".join(sorted(GAMES))
        raise GameError(protocol.UNKNOWN_GAME, f"Unknown game {game!r} (known: {known}).", 400)
    moves = "" if moves is None else moves
    if not isinstance(moves, str) or len(moves) > MAX_MOVES_LENGTH:
        raise GameError(protocol.ILLEGAL_MOVE, "moves must be a string of move digits.")
    try:
        position = new_game(game, moves)
        chosen = merge_settings({} if settings is None else settings)
    except (UnknownGameError, IllegalMoveError) as err:
        raise GameError(protocol.ILLEGAL_MOVE, f"Bad starting position: {err}") from None
    except SettingsError as err:
        raise GameError(protocol.BAD_SETTINGS, str(err)) from None
    status, winner = result_of(position)
    engine = engine_side(chosen)
    return {
        "game": game,
        "moves": moves,
        "settings": chosen,
        "status": status,
        "winner": winner,
        "to_move": len(moves) % 2,
        "human_side": 1 - engine,
        "engine_side": engine,
    }
