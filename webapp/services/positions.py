"""A position a link would start a game from, checked as creating it would be, nothing stored.

``GET /new?game=...&moves=...`` shows the position and a button that POSTs;
the page needs the same refusals ``GameService.create`` gives, without
creating anything (a link preview or an ``<img>`` must change nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp import protocol
from webapp.engine.game import IllegalMoveError
from webapp.game_settings import SettingsError, engine_side, merge_settings
from webapp.games import GAMES, UnknownGameError, new_game
from webapp.games.notation import (
    NotationError,
    PositionError,
    normalize_moves,
    parse_cells,
    position_moves,
)
from webapp.services.errors import GameError
from webapp.services.state import result_of

#: Longest move string a new game may start from (a full Connect Four board).
MAX_MOVES_LENGTH = 42
#: Longest text a typed sequence may be before it is normalised (spaces between moves).
MAX_TYPED_LENGTH = 4 * MAX_MOVES_LENGTH


def chosen_game(args: Mapping[str, str]) -> str:
    """A link's game: the one named, or ``protocol.DEFAULT_GAME`` when it names none (or an
    empty one): the analysis board and the tree explorer open alike. A named unknown game
    is the caller's to refuse."""
    return args.get("game") or protocol.DEFAULT_GAME


def unknown_game(game: object) -> GameError:
    """The 400 for a kind of game this server has not, naming the ones it has (id and name)."""
    known = " or ".join(f"{name} ({label})" for name, label in protocol.GAME_LABELS.items())
    if game is None or game == "":
        return GameError(protocol.UNKNOWN_GAME, f"No game named: choose {known}.", 400)
    if not isinstance(game, str):  # a list, a number: never shown as Python writes it
        return GameError(protocol.UNKNOWN_GAME, f"game must be a name: choose {known}.", 400)
    return GameError(protocol.UNKNOWN_GAME, f"Unknown game {game!r}: choose {known}.", 400)


def preview(game: object, settings: object = None, moves: object = "") -> dict[str, Any]:
    """``{game, moves, settings, status, winner, to_move, human_side, engine_side}``.

    ``moves`` may be typed as people do (``"4 4 5 3"``, ``"ddec"``): the answer's
    ``moves`` is the normalised form (``"4453"``). Raises the GameError
    ``GameService.create`` would raise for the normalised input.
    """
    if not isinstance(game, str) or game not in GAMES:
        raise unknown_game(game)
    moves = "" if moves is None else moves
    if not isinstance(moves, str) or len(moves) > MAX_TYPED_LENGTH:
        raise GameError(protocol.ILLEGAL_MOVE, "moves must be a string of move digits.")
    try:
        moves = normalize_moves(game, moves)
        position = new_game(game, moves)
        chosen = merge_settings({} if settings is None else settings, game=game)
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


def typed_moves(
    game: object, moves: object = None, board: object = None, to_move: object = None
) -> str:
    """The move string of a typed sequence (``moves``) or of a drawn ``board`` (``x``,
    ``o``, ``.`` per cell, rows from the top) with ``to_move`` (``"0"`` or ``"1"``).

    Raises GameError (400) whose message is one sentence saying what is wrong: the
    move (its number and text) and why, or why no game reaches the drawn board.
    """
    if not isinstance(game, str) or game not in GAMES:
        raise unknown_game(game)
    try:
        if board is None:
            if not isinstance(moves, str) or len(moves) > MAX_TYPED_LENGTH:
                raise GameError(protocol.ILLEGAL_MOVE, "Type the moves as digits, like 4453.")
            return normalize_moves(game, moves)
        if not isinstance(board, str) or to_move not in ("0", "1"):
            raise GameError(
                protocol.BAD_REQUEST, "A drawn board needs its cells and to_move 0 or 1."
            )
        return position_moves(game, parse_cells(game, board), int(to_move))
    except NotationError as err:
        raise GameError(protocol.ILLEGAL_MOVE, err.sentence()) from None
    except PositionError as err:
        raise GameError(protocol.ILLEGAL_MOVE, str(err)) from None
