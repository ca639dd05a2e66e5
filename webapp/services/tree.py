"""Search trees for the explorer: a position's traced search, checked, run in the search pool.

``GET /api/tree`` answers with every node the engine visits (``webapp.engine.trace``).

A trace is a search like any other, so it runs where searches run: in the
worker pool (or, with ``--redis``, on a search host), never on the request's
thread. It is a job of kind ``TRACE`` at ``Priority.ANALYSIS``: it waits its
turn behind engine moves and the scores of a player's own game, takes turns
with its asker's other analyses (``owner``, bounded per owner like them),
never runs on the worker kept for engine moves, and an engine move that finds
every worker busy preempts it. Its worker's answer is ``Trace.to_dict()``.
It stays cheap to run: at most ``MAX_LIMIT`` nodes (50,000 pure-Python
nodes, about 0.5 s of one core; the default 10,000 about 0.1 s), on top of
the per-browser rate limit the web layer applies.

The request waits for its trace ``wait`` seconds (longer than one analysis's
budget, so a trace queued behind one still gets its turn); past that, the job
is cancelled and the request refused as busy (503), as when the pool refuses
it.

# The pool's callbacks
``Trees`` registers for the ``TRACE`` jobs with the pool's dispatcher
(``webapp.search_pool.dispatch``): their results come here, and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp import protocol
from webapp.engine.game import Game, IllegalMoveError
from webapp.engine.results import ALGORITHMS, Limits
from webapp.engine.trace import DEFAULT_LIMIT, MAX_LIMIT, ORDERINGS
from webapp.games import GAMES, new_game
from webapp.games.notation import PLAYERS
from webapp.search_pool import TRACE, Pool, Priority, SearchJob
from webapp.search_pool.dispatch import dispatcher_of
from webapp.services.errors import GameError
from webapp.services.positions import MAX_MOVES_LENGTH, chosen_game, unknown_game
from webapp.services.waited_search import Outcome, report, waited_search

#: Seconds a request waits for its trace before it is refused as busy (see the docstring).
WAIT_SECONDS = 15.0
#: The seed of a trace's tie-breaks: a position's tree is always the same one.
SEED = 0
#: The depth a tree is searched to unless asked: the whole tic-tac-toe tree, and a
#: Connect Four depth whose alpha-beta tree fits in the default node limit.
DEFAULT_DEPTH = {"tictactoe": 9, "connect4": 4}
MAX_DEPTH = protocol.MAX_DEPTH


def searchable_position(args: Mapping[str, str], known: set[str]) -> tuple[str, str, Game]:
    """A request's ``game`` and ``moves`` and their position, one still to play (the tree's
    and the comparison's); or the GameError (400, 409 for a finished game) saying why not."""
    unknown = set(args) - known
    if unknown:
        raise GameError(protocol.BAD_REQUEST, f"Unknown parameters: {', '.join(sorted(unknown))}.")
    game = chosen_game(args)
    if game not in GAMES:
        raise unknown_game(game)
    moves = args.get("moves", "")
    if len(moves) > MAX_MOVES_LENGTH:
        raise GameError(protocol.ILLEGAL_MOVE, "moves must be a string of move digits.")
    try:
        position = new_game(game, moves)
    except IllegalMoveError as err:
        raise GameError(protocol.ILLEGAL_MOVE, f"Bad position: {err}") from None
    if position.is_terminal():
        over = "The game is over in this position: no move is left to search."
        raise GameError(protocol.GAME_OVER, over)
    return game, moves, position


def tree_request(args: Mapping[str, str]) -> dict[str, Any]:
    """The checked parameters of a tree request (``game, moves, algorithm, depth,
    ordering, limit``), or the GameError (400, or 409 for a finished game) saying why not."""
    game, moves, _ = searchable_position(
        args, {"game", "moves", "algorithm", "depth", "ordering", "limit"}
    )
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


def position_facts(request: Mapping[str, Any]) -> dict[str, Any]:
    """What the tree page says of a checked request's position and search (its words
    are the template's): ``played`` (moves), ``noun`` (``"cell"``, ``"column"``),
    ``to_move`` (the player's name), ``moves_left``, and ``searched``: the deepest
    iteration the search can reach, its depth or the moves left when fewer (the driver
    never searches past the board's end; alpha-beta may stop sooner, at the first depth
    that proves the result, which the trace tells).

    >>> facts = position_facts({"game": "tictactoe", "moves": "15", "depth": 9})
    >>> facts["played"], facts["noun"], facts["to_move"], facts["moves_left"], facts["searched"]
    (2, 'cell', 'X', 7, 7)
    """
    board = new_game(request["game"])
    played = len(request["moves"])
    moves_left = board.cells - played
    return {
        "played": played,
        "noun": getattr(board, "move_names", "move"),
        "to_move": PLAYERS[board.name][played % 2],
        "moves_left": moves_left,
        "searched": min(int(request["depth"]), moves_left),
    }


def _number(args: Mapping[str, str], name: str, default: int, largest: int) -> int:
    text = args.get(name)
    if text is None or text == "":
        return default
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= largest:
        raise GameError(protocol.BAD_REQUEST, f"{name} must be a whole number from 1 to {largest}.")
    return int(text)


class Trees:
    """Traced searches in ``pool``; see the module docstring."""

    def __init__(self, pool: Pool, *, wait: float = WAIT_SECONDS) -> None:
        self.pool, self.wait = pool, wait
        dispatcher_of(pool).register(TRACE, report)  # a trace tells no progress

    def search_tree(self, args: Mapping[str, str], owner: str = "") -> dict[str, Any]:
        """The traced search a tree request asks for: the request echoed, then the trace
        (``nodes, root_value, exact, best_move, pv, node_count, truncated, iterations``).

        Raises GameError: the request's (``tree_request``), BUSY when the pool refuses
        the trace or it has not run within ``wait`` seconds, ENGINE_FAILED when it failed.
        """
        request = tree_request(args)

        def trace(outcome: Outcome) -> SearchJob:
            return SearchJob(
                request["game"],
                request["moves"],
                request["algorithm"],
                Limits(depth=request["depth"], nodes=request["limit"]),
                seed=SEED,
                tag=outcome,
                move_scores=False,
                priority=Priority.ANALYSIS,
                owner=owner,
                kind=TRACE,
                ordering=request["ordering"],
            )

        return request | waited_search(
            self.pool,
            trace,
            self.wait,
            busy="The search workers are busy: the tree was not drawn. Try again soon.",
            failed="The trace failed",
        )
