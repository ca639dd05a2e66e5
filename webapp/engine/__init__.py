"""Lookahead's game-tree engine: pure Python, no web framework.

The public API::

    from webapp.games import new_game
    from webapp.engine import search, Limits

    result = search(new_game("connect4", "4453"), "alphabeta", Limits(depth=8))
    result.best_move, result.score, result.exact, result.pv
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
