"""Warm-up: run each kind of search once so numba compiles or loads it now."""

from __future__ import annotations

import threading
import time

from webapp.engine.search import Limits, search
from webapp.games.connect4 import Connect4

#: A middle-game position: every code path runs, in milliseconds.
WARM_POSITION = "4453337"
#: A position past the opening book: the searched exact paths (a move drawn, root moves).
PAST_BOOK = "5554224333234511764415115"


def warm_up() -> float:
    """Exercise exact, depth-limited, watched and stopped searches; return the seconds taken."""
    from webapp.games.connect4_kernel import native

    start = time.perf_counter()
    game = Connect4()
    for char in WARM_POSITION:
        game.play(int(char) - 1)
    native.load_book()
    native.load_database()
    search(game, "alphabeta", move_scores=True, seed=0)
    search(game, "alphabeta", Limits(depth=3), move_scores=True, seed=0)
    search(game, "minimax", Limits(depth=2), move_scores=True, seed=0)
    search(game, "alphabeta", Limits(time=5.0), cancel=threading.Event(), progress=lambda p: None)
    search(Connect4(), "alphabeta", Limits(nodes=10_000), seed=0)
    late = Connect4()
    for char in PAST_BOOK:
        late.play(int(char) - 1)
    search(late, "alphabeta", Limits(root_moves=("1", "4")), move_scores=True, seed=0)
    return time.perf_counter() - start
