"""``search()``: the engine's one entry point, for every game and both algorithms.

It picks the primitives (the game's compiled kernel when it has one, else
the pure-Python engine) and hands them to the one driver,
``webapp.engine.driver``, which owns iterative deepening, limits,
cancellation, the tie-break, the exactness rule and the principal variation.
The types of its answer live in ``webapp.engine.results`` and are re-exported
here, where the worker processes and the web service import them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import cast

from webapp.engine.driver import Budget, Primitives, drive
from webapp.engine.game import Game, Move
from webapp.engine.line import walk_line
from webapp.engine.python_engine import CHECK_EVERY, PythonEngine
from webapp.engine.results import (
    ALGORITHMS,
    CancelFlag,
    Limits,
    MoveScore,
    Progress,
    ProgressCallback,
    Pulse,
    PulseCallback,
    SearchResult,
)
from webapp.engine.table import TranspositionTable

__all__ = [
    "ALGORITHMS",
    "CHECK_EVERY",
    "CancelFlag",
    "Limits",
    "MoveScore",
    "Progress",
    "ProgressCallback",
    "Pulse",
    "PulseCallback",
    "SearchResult",
    "search",
]

#: What a game's ``native_engine`` gives: primitives over a budget, for one search.
NativeEngine = Callable[[Budget, bool], AbstractContextManager[Primitives]]
#: Tie-breaks of searches without a seed (seeding a new generator costs a system call).
_unseeded = random.Random()


def search(
    game: Game,
    algorithm: str = "alphabeta",
    limits: Limits | None = None,
    *,
    move_scores: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelFlag | None = None,
    seed: int | None = None,
    native: bool = True,
    table: TranspositionTable | None = None,
    pulse: PulseCallback | None = None,
) -> SearchResult:
    """Search ``game`` (left unchanged) and return the best move found.

    ``minimax`` searches full width, in one pass to the depth limit or the
    end of the game (iteratively only under a time limit with a horizon);
    ``alphabeta`` deepens iteratively and stops once its score (and, with
    ``move_scores``, every root move's score) is exact, or solves exactly
    when the game has an exact solver. The rules are the driver's. Ties
    between equally good root moves are broken at random (``seed`` makes it
    repeatable). ``pulse`` hears how a search under way is going between its
    depths (``Pulse``, every ``driver.PULSE_SECONDS``), as ``progress`` hears
    each completed depth.

    A game may offer compiled primitives as ``game.native_engine``; they are
    used unless ``native`` is False.

    >>> from webapp.games import new_game
    >>> search(new_game("tictactoe", "1"), "minimax", native=False).score
    0
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r} (known: {', '.join(ALGORITHMS)})")
    limits = limits or Limits()
    if limits.depth is not None and limits.depth < 1:
        raise ValueError("depth must be at least 1")
    # The kernel is imported (numba and all) before the clock starts, as before any search.
    opener = cast(NativeEngine | None, getattr(game, "native_engine", None)) if native else None
    budget = Budget(limits, cancel, pulse)
    if game.is_terminal():
        score = game.terminal_score()
        return SearchResult(None, score, True, "", 1, 0, budget.elapsed_ms(), algorithm)
    rng = _unseeded if seed is None else random.Random(seed)
    root = None if limits.root_moves is None else _root_moves(game, limits.root_moves)
    if opener is not None:
        with opener(budget, limits.extend) as engine:
            result = drive(engine, algorithm, limits, budget, rng, move_scores, progress, root)
    else:
        python = PythonEngine(game.copy(), budget, table, limits.extend)
        result = drive(python, algorithm, limits, budget, rng, move_scores, progress, root)
    if limits.whole_line and not limits.line and result.exact:  # with a line: walked already
        result = walk_line(
            game,
            result,
            budget,
            limits,
            lambda at, step: search(at, "alphabeta", step, cancel=cancel, seed=seed, native=native),
        )
    return result


def _root_moves(game: Game, names: Sequence[str]) -> list[Move]:
    """``Limits.root_moves`` as moves; ValueError unless they are legal and not none."""
    legal = game.legal_moves()
    moves = []
    for name in names:
        try:
            move = game.parse_move(name)
        except ValueError:
            move = None
        if move not in legal:
            raise ValueError(f"root move {name!r} is not a legal move here")
        moves.append(move)
    if not moves:
        raise ValueError("root_moves needs at least one move")
    return moves
