"""An exact answer's whole line: the best play walked to the end of the game.

An exact search may answer with a line of one move: the opening book and the
12-stone database give a position's value and its optimal moves but no line,
and a pass that only shows scores walks none (``Limits.line``). A position's
analysis still wants the line ("Best line"), so ``walk_line`` extends it: an exact
search of the position at the line's end, its own line walked by the solver
(``Limits.whole_line``: each move of it proved to keep the value, the positions on
the way sharing one transposition table), appended, and again from the new end if
that search's budget (``STEP_NODES``) cut it short. The walk stops at the end of
the game, after ``MAX_PLIES`` plies, when the search's own limits stop it, or at a
step that is not exact: a shorter line, never a wrong one.
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
#: One step's search, its solve and its line: about a second of the kernel at most
#: (most lines need one step, in tens of milliseconds). A step that does not solve its
#: position ends the line there.
STEP_NODES = 8_000_000


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
        step = solve(position, Limits(time=left, nodes=STEP_NODES, whole_line=True))
        nodes += step.nodes
        if not step.exact or step.score != value or not step.pv:
            break
        line += step.pv  # proved move by move; cut short where the step's budget ran out
        play_moves(position, step.pv)
        value = value if len(step.pv) % 2 == 0 else -value
    return replace(result, pv=line, nodes=nodes, time_ms=budget.elapsed_ms())
