"""Exact search time by number of stones: positions sampled at every count from 0 to 40.

Positions come from games where each move is, three times in four, the
kernel's depth-4 alpha-beta choice and otherwise a random column: mostly sound
play with some mistakes, as players make. For each position the section times
the answer the "perfect" level needs: the optimal move (one exact search) and
the exact score of every column (an exact search with ``move_scores`` and no
line, as the service's scores pass asks), with the opening book on. The
pure-Python engine gets the same questions on fewer positions, each search
stopped at a time cap.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from webapp.engine.search import Limits, search
from webapp.games import new_game
from webapp.games.connect4 import Connect4

BANDS = ((0, 4), (5, 9), (10, 14), (15, 19), (20, 24), (25, 29), (30, 34), (35, 40))
MAX_STONES = 40
SOUND_PLAY = 0.75


def sample_position(stones: int, rng: random.Random) -> str:
    """A non-terminal position of ``stones`` stones (see the module's docstring)."""
    while True:
        game = Connect4()
        moves = ""
        while len(moves) < stones and not game.is_terminal():
            if rng.random() < SOUND_PLAY:
                move = search(game, "alphabeta", Limits(depth=4), seed=rng.randrange(1 << 30))
                choice = move.best_move or "1"
            else:
                choice = game.format_move(rng.choice(game.legal_moves()))
            game.play(game.parse_move(choice))
            moves += choice
        if len(moves) == stones and not game.is_terminal():
            return moves


def sample_positions(per_count: int, seed: int, min_stones: int = 0) -> list[str]:
    rng = random.Random(seed)
    counts = range(min_stones, MAX_STONES + 1)
    return [sample_position(n, rng) for n in counts for _ in range(per_count)]


@dataclass
class Timings:
    """Seconds per position for the two questions, by stone count."""

    best: dict[int, list[float]] = field(default_factory=dict)
    columns: dict[int, list[float]] = field(default_factory=dict)
    capped: int = 0  # searches stopped by the cap (counted at the cap)

    def add(self, stones: int, best: float, columns: float) -> None:
        self.best.setdefault(stones, []).append(best)
        self.columns.setdefault(stones, []).append(columns)

    def band(self, which: str, low: int, high: int) -> list[float]:
        times = self.best if which == "best" else self.columns
        return [t for n in range(low, high + 1) for t in times.get(n, [])]


def _timed(moves: str, move_scores: bool, native: bool, cap: float | None) -> tuple[float, bool]:
    """Seconds of one exact search, and whether it finished (exact) within the cap."""
    game = new_game("connect4", moves)
    start = time.perf_counter()
    limits = Limits(time=cap, line=not move_scores)  # the scores pass wants no line
    result = search(game, "alphabeta", limits, move_scores=move_scores, native=native)
    elapsed = time.perf_counter() - start
    finished = result.exact and result.stopped is None
    if move_scores and result.move_scores is not None:
        finished = finished and all(s.exact for s in result.move_scores.values())
    return (elapsed if finished else max(elapsed, cap or elapsed)), finished


def measure(positions: list[str], native: bool, cap: float | None = None) -> Timings:
    timings = Timings()
    for moves in positions:
        best, ok_best = _timed(moves, False, native, cap)
        columns, ok_columns = _timed(moves, True, native, cap)
        timings.capped += (not ok_best) + (not ok_columns)
        timings.add(len(moves), best, columns)
    return timings
