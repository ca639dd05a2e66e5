"""Search trees for the explorer: a position's traced search, checked, bounded, few at a time.

``GET /api/tree`` answers with every node the engine visits (``webapp.engine.trace``).

Why the request's own thread and not the search pool: the pool's workers run
one search function, fixed when they start, and send back a search result;
a trace is another kind of job with another answer, which the workers'
protocol does not carry yet. Running it here is affordable because it is
bounded twice: by nodes (``MAX_LIMIT``, 50,000 pure-Python nodes, about
0.5 s of one core; the default 5,000 take about 0.05 s) and by concurrency
(``CONCURRENT`` traces at once; a request waits ``WAIT_SECONDS`` for a turn,
then is refused as busy), on top of the per-browser rate limit the web layer
applies. So the server spends at most ``CONCURRENT`` cores' worth of short
bursts on trees, whatever the traffic.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from webapp import protocol
from webapp.engine.game import IllegalMoveError
from webapp.engine.results import ALGORITHMS
from webapp.engine.trace import DEFAULT_LIMIT, MAX_LIMIT, ORDERINGS, trace
from webapp.games import GAMES, new_game
from webapp.services.errors import GameError
from webapp.services.positions import MAX_MOVES_LENGTH

#: Traces running at once, and how long a request waits for a turn.
CONCURRENT = 1
WAIT_SECONDS = 5.0
#: The depth a tree is searched to unless asked: the whole tic-tac-toe tree, and a
#: Connect Four depth whose alpha-beta tree fits in the default node limit.
DEFAULT_DEPTH = {"tictactoe": 9, "connect4": 4}
MAX_DEPTH = protocol.MAX_DEPTH

_turns = threading.BoundedSemaphore(CONCURRENT)


def tree_request(args: Mapping[str, str]) -> dict[str, Any]:
    """The checked parameters of a tree request (``game, moves, algorithm, depth,
    ordering, limit``), or the GameError (400, or 409 for a finished game) saying why not."""
    unknown = set(args) - {"game", "moves", "algorithm", "depth", "ordering", "limit"}
    if unknown:
        raise GameError(protocol.BAD_REQUEST, f"Unknown parameters: {', '.join(sorted(unknown))}.")
    game = args.get("game", "")
    if game not in GAMES:
        known = ", ".join(sorted(GAMES))
        raise GameError(protocol.UNKNOWN_GAME, f"Unknown game {game!r} (known: {known}).", 400)
    moves = args.get("moves", "")
    if len(moves) > MAX_MOVES_LENGTH:
        raise GameError(protocol.ILLEGAL_MOVE, "moves must be a string of move digits.")
    try:
        position = new_game(game, moves)
    except IllegalMoveError as err:
        raise GameError(protocol.ILLEGAL_MOVE, f"Bad position: {err}") from None
    if position.is_terminal():
        raise GameError(protocol.GAME_OVER, "The game is over there: there is no search to show.")
    algorithm = args.get("algorithm", "alphabeta")
    if algorithm not in ALGORITHMS:
        raise GameError(protocol.BAD_REQUEST, f"algorithm must be one of {', '.join(ALGORITHMS)}.")
    ordering = args.get("ordering", "engine")
    if ordering not in ORDERINGS:
        raise GameError(protocol.BAD_REQUEST, f"ordering must be one of {', '.join(ORDERINGS)}.")
    depth = _number(args, "depth", DEFAULT_DEPTH.get(game, 4), MAX_DEPTH)
    limit = _number(args, "limit", DEFAULT_LIMIT, MAX_LIMIT)
    return {
        "game": game,
        "moves": moves,
        "algorithm": algorithm,
        "depth": depth,
        "ordering": ordering,
        "limit": limit,
    }


def _number(args: Mapping[str, str], name: str, default: int, largest: int) -> int:
    text = args.get(name)
    if text is None or text == "":
        return default
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= largest:
        raise GameError(protocol.BAD_REQUEST, f"{name} must be a whole number from 1 to {largest}.")
    return int(text)


def search_tree(args: Mapping[str, str]) -> dict[str, Any]:
    """The traced search a tree request asks for: the request echoed, then the trace
    (``nodes, root_value, exact, best_move, pv, node_count, truncated, iterations``)."""
    request = tree_request(args)
    if not _turns.acquire(timeout=WAIT_SECONDS):
        raise GameError(protocol.BUSY, "The server is drawing other trees: try again soon.")
    try:
        found = trace(
            new_game(request["game"], request["moves"]),
            request["algorithm"],
            request["depth"],
            ordering=request["ordering"],
            limit=request["limit"],
        )
    finally:
        _turns.release()
    return request | found.to_dict()
