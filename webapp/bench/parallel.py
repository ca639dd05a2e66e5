"""Root splitting measured: every column's exact score in one process, then in two.

The SCORES job after an engine move solves each root move
(``move_scores=True``, no line). Split between two worker processes
(``webapp.services.split``) each solves some of the moves
(``Limits.root_moves``). This section times both on the same positions, the
two processes started and warmed up beforehand as the pool's workers are,
and checks that the two halves' scores are the whole job's.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from webapp.bench.positions import read_positions
from webapp.bench.stats import set_book
from webapp.engine.search import Limits, search
from webapp.games import new_game


def _warm() -> None:
    from webapp.games.connect4_kernel.warmup import warm_up

    warm_up()
    set_book(False)


def _scores(moves: str, root: tuple[str, ...] | None) -> dict[str, Any]:
    """Every (or ``root``'s) move's exact score of ``moves``; no opening book."""
    limits = Limits(root_moves=root, line=False)  # as the scores pass asks: no line
    result = search(new_game("connect4", moves), "alphabeta", limits, move_scores=True, seed=1)
    return {m: s.score for m, s in (result.move_scores or {}).items()}


def print_parallel(path: Path, lines: int, processes: int = 2) -> None:
    """One process against ``processes`` for the positions' move scores, side by side."""
    from webapp.services.split import split_moves  # the server's rule (not in the workers)

    positions = read_positions(path, lines)
    print(f"\n# Root splitting: every column's exact score of {len(positions)} positions of "
          f"{path.name}, no book; 1 process, then {processes} (warm, as pool workers)")  # fmt: skip
    one = many = 0.0
    same = 0
    context = get_context("spawn")
    with ProcessPoolExecutor(processes, mp_context=context, initializer=_warm) as pool:
        list(pool.map(_warm_probe, range(processes)))  # every worker started and warm
        for moves, _ in positions:
            start = time.perf_counter()
            whole = pool.submit(_scores, moves, None).result()
            one += time.perf_counter() - start
            game = new_game("connect4", moves)
            hands = split_moves([game.format_move(m) for m in game.ordered_moves()], processes)
            start = time.perf_counter()
            futures = [pool.submit(_scores, moves, hand) for hand in hands]
            merged: dict[str, Any] = {}
            for future in futures:
                merged |= future.result()
            many += time.perf_counter() - start
            same += int(merged == whole)
    n = max(1, len(positions))
    print(f"{'positions':>9} {'same scores':>11} {'1 process ms':>13} "
          f"{f'{processes} processes ms':>16} {'speed-up':>8}")  # fmt: skip
    speed = one / many if many else float("nan")
    print(f"{len(positions):>9} {same:>11} {one / n * 1e3:>13.1f} {many / n * 1e3:>16.1f} "
          f"{speed:>8.2f}")  # fmt: skip


def _warm_probe(_: int) -> int:
    time.sleep(0.2)  # long enough that each worker takes one
    return 0
