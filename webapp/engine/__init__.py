"""The engine layer, at the bottom: Lookahead's game-tree search, pure Python, no web framework.

The public API::

    from webapp.games import new_game
    from webapp.engine import search, Limits

    result = search(new_game("connect4", "4453"), "alphabeta", Limits(depth=8))
    result.best_move, result.score, result.exact, result.pv

Modules, one role each:

* ``game``           the ``Game`` protocol every game implements
* ``scores``         the score convention, written once (the kernel compiles it)
* ``results``        ``Limits``, ``SearchResult``, ``Progress``: what is asked and answered
* ``driver``         the one search driver: iterations, limits, ties, exactness, PV
* ``python_engine``  the pure-Python primitives: minimax, negamax alpha-beta
* ``table``          the pure-Python transposition table and best-move table
* ``search``         ``search()``: picks the primitives, runs the driver
* ``cli``            ``python -m webapp.engine``
"""

from webapp.engine.game import Game, IllegalMoveError, Move
from webapp.engine.search import ALGORITHMS, Limits, MoveScore, Progress, SearchResult, search

__all__ = [
    "ALGORITHMS",
    "Game",
    "IllegalMoveError",
    "Limits",
    "Move",
    "MoveScore",
    "Progress",
    "SearchResult",
    "search",
]
