"""The score convention, written once.

Exact scores (both games, the convention of Pascal Pons' Connect Four
benchmarks): with ``C`` cells on the board, a win scores
``ceil(C / 2) + 1 - (stones the winner has played when the line is made)``,
a draw 0, a loss the negation. Scores are always from the side to move, so
Connect Four scores lie in -18..18 and tic-tac-toe scores in -3..3; a faster
win and a slower loss always score better.

Inside the search a single integer scale holds both kinds of value:

* exact wins and losses are ``+-(WIN_BASE + exact_score)``, so any win beats
  any heuristic value and a faster win beats a slower one;
* heuristic values (from a search stopped at its horizon) lie within
  ``+-HEURISTIC_LIMIT``, strictly below ``WIN_BASE``;
* a draw is 0.

Outside the search (results, the CLI, the web protocol) an exact score is the
integer of the convention, and a heuristic score is ``internal / WIN_BASE``, a
number strictly between -1 and 1. Every result carries an ``exact`` flag.
"""

from __future__ import annotations

WIN_BASE = 1000
HEURISTIC_LIMIT = WIN_BASE - 1
#: Beyond every reachable internal score: the search's infinite window.
INFINITY = 10 * WIN_BASE


def max_exact_score(cells: int) -> int:
    """The largest exact score on a board of ``cells`` cells (a win with 0 stones)."""
    return (cells + 1) // 2 + 1


def win_score(cells: int, winner_stones: int) -> int:
    """The exact score of a win made with the winner's ``winner_stones``-th stone.

    Written without calls so the Connect Four kernel compiles this very function.
    """
    return (cells + 1) // 2 + 1 - winner_stones


def win_now_score(cells: int, stones: int) -> int:
    """The exact score of winning with the next stone, ``stones`` being on the board.

    The side to move has played ``stones // 2`` of them. Compiled by the kernel.
    """
    return (cells + 1) // 2 + 1 - (stones // 2 + 1)


def to_internal(exact_score: int) -> int:
    """Map an exact score of the convention onto the search's scale."""
    if exact_score > 0:
        return WIN_BASE + exact_score
    if exact_score < 0:
        return -WIN_BASE + exact_score
    return 0


def is_decisive(internal: int) -> bool:
    """True for a proven win or loss (which is exact at any search depth)."""
    return abs(internal) > WIN_BASE


def to_exact(internal: int) -> int:
    """Map an internal decisive score (or a proven draw, 0) back to the convention."""
    if internal > WIN_BASE:
        return internal - WIN_BASE
    if internal < -WIN_BASE:
        return internal + WIN_BASE
    return internal


def to_heuristic(internal: int) -> float:
    """Map an internal heuristic value to the public scale, strictly inside (-1, 1)."""
    return round(internal / WIN_BASE, 3)


def to_public(internal: int, exact: bool) -> int | float:
    """The score a user sees: the convention's integer if exact, else a heuristic."""
    return to_exact(internal) if exact else to_heuristic(internal)
