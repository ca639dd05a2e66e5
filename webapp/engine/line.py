"""An exact answer's whole line: the best play walked to the end of the game.

An exact search may answer with a line of one move: the opening book and the
12-stone database give a position's value and its optimal moves but no line,
and a pass that only shows scores walks none (``Limits.line``). A position's
analysis still wants the line ("Best line"), so ``walk_line`` extends it, one
exact solve per ply: each move played is one the solver says keeps the value
(with the book and the database such solves are quick). The walk stops at the
end of the game, after ``MAX_PLIES`` plies, when a step's budget
(``STEP_NODES``) or the search's own limits stop it, or at a step that is not
exact: a shorter line, never a wrong one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from webapp.engine.driver import Budget
from webapp.engine.game import Game, play_moves
from webapp.engine.results import Limits, SearchResult

#: An exact search of a position within limits (``search`` with the caller's cancel flag).
Solve = Callable[[Game, Limits], SearchResult]

#: No game here is longer (Connect Four's 42 cells).
MAX_PLIES = 42
#: One step's solve: about a tenth of a second of the kernel; a step it does not finish
#: ends the line there.
STEP_NODES = 1_000_000


def walk_line(
    game: Game,
    result: SearchResult,
    budget: Budget,
    limits: Limits,
    solve: Solve,
) -> SearchResult:
    """``result`` (an exact search of ``game``) with its line walked on to the end of the
    game by ``solve`` (alpha-beta, each step within ``limits``' time left on ``budget``;
    see the module docstring); its nodes count the walk's too."""
    if not result.exact or not result.pv:
        return result
    position = play_moves(game.copy(), result.pv)
    line, nodes, value = result.pv, result.nodes, result.score
    value = value if len(line) % 2 == 0 else -value  # for the side to move at the line's end
    while not position.is_terminal() and len(line) < MAX_PLIES and budget.due(None) is None:
        left = None if limits.time is None else limits.time - budget.elapsed_ms() / 1000.0
        if left is not None and left <= 0:
            break
        step = solve(position, Limits(time=left, nodes=STEP_NODES, line=False))
        nodes += step.nodes
        if not step.exact or step.stopped or step.score != value or not step.best_move:
            break
        line += step.best_move
        play_moves(position, step.best_move)
        value = -value
    return replace(result, pv=line, nodes=nodes, time_ms=budget.elapsed_ms())
