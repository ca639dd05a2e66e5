"""``python -m webapp.bench.exact_scores``: how soon every column's score is exact, any level.

Issue 8's goal, and issue 16's at every level (``--level``): from the first
move of a Connect Four game played from the start, every column's score for
the player is exact soon after the engine's move (issue 16: 300 ms p95).
This plays whole games through the real service and a real search pool
(two workers, one reserved for engine moves: the server's defaults), the
player choosing random columns (seeded; ``--player searcher``: a depth-4
alpha-beta searcher, whose games last longer) and the engine playing first
in half of them. For each position the player faces it times, from the engine's move
(the ``engine_move`` event; the game's creation when the player moves first)
to the ``scores`` event that makes every column exact, and prints the
percentiles and the slowest positions. No figure is asserted.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from typing import Any

from webapp.bench.ponder import Recorder
from webapp.bench.stats import percentile
from webapp.engine.search import Limits, search
from webapp.games import new_game
from webapp.search_pool import SearchPool
from webapp.services import GameService
from webapp.store import open_store

#: The levels a game can be played at (Custom needs limits of its own: left out).
LEVELS = ("easy", "medium", "hard", "perfect")
#: Seconds after which a position's scores count as never exact.
GIVE_UP = 15.0


def _exact_at(emit: Recorder, game_id: str, moves: str, since: float, scan: float) -> float:
    """When the scores of ``moves`` became exact, counted from ``since`` (the engine's
    move; ``inf`` if not within ``GIVE_UP``). Events from ``scan`` on (the player's move)
    count: a pondered reply's scores may be sent before its ``engine_move`` event."""
    deadline = since + GIVE_UP
    with emit.changed:
        while True:
            for at, name, p in emit.events:
                mine = name == "scores" and p["game_id"] == game_id and p["moves"] == moves
                if at >= scan and mine and p["complete"]:
                    return max(at, since)
            if time.perf_counter() >= deadline:
                return float("inf")
            emit.changed.wait(max(0.0, deadline - time.perf_counter()))


def choose(moves: str, rng: random.Random, player: str) -> str:
    """The player's column: at random, or a depth-4 searcher's (ties at random)."""
    position = new_game("connect4", moves)
    if player == "searcher":
        found = search(position, "alphabeta", Limits(depth=4), seed=rng.getrandbits(31))
        assert found.best_move is not None
        return found.best_move
    return rng.choice([position.format_move(m) for m in position.legal_moves()])


def play(
    service: GameService,
    emit: Recorder,
    rng: random.Random,
    first: bool,
    player: str,
    level: str = "perfect",
) -> list[Any]:
    """One game; per position the player faced: (moves, seconds to exact scores)."""
    settings = {"level": level, "engine_plays": "second" if first else "first"}
    since = sent = time.perf_counter()
    record = service.create("connect4", settings, owner="bench")
    moves = record.moves
    if not first:
        since = emit.wait("engine_move", lambda p: p["game_id"] == record.id, since)
        moves = service.get(record.id).moves
    rows = []
    while True:
        exact = _exact_at(emit, record.id, moves, since, sent)
        rows.append((moves, exact - since))  # inf: never
        column = choose(moves, rng, player)
        sent = time.perf_counter()
        service.move(record.id, column, "bench")
        moves += column
        if new_game("connect4", moves).is_terminal():
            return rows
        since = emit.wait("engine_move", lambda p: p["game_id"] == record.id, sent)
        moves = service.get(record.id).moves
        if new_game("connect4", moves).is_terminal():
            return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--player", choices=("random", "searcher"), default="random")
    parser.add_argument("--level", choices=LEVELS, default="perfect")
    parser.add_argument("--show", type=int, default=8, help="slowest positions listed")
    args = parser.parse_args(argv)
    pool = SearchPool(args.workers, reserve=1)
    emit = Recorder()
    service = GameService(open_store(":memory:"), pool, emit, seed=args.seed)
    pool.start()
    pool.wait_ready(120.0)
    rng = random.Random(args.seed)
    rows: list[Any] = []
    try:
        for game in range(args.games):
            rows += play(service, emit, rng, game % 2 == 0, args.player, args.level)
    finally:
        service.close()
    times = sorted(1000 * t for _, t in rows)
    never = sum(t == float("inf") for t in times)
    print(f"# Exact scores for the player at {args.level}, Connect Four: {args.games} games, "
          f"{len(rows)} positions, {args.player} player, {args.workers} workers")  # fmt: skip
    print(f"ms to every column exact: p50 {percentile(times, 50):.0f}  "
          f"p95 {percentile(times, 95):.0f}  max {times[-1]:.0f}  "
          f"(never exact within {GIVE_UP:.0f} s: {never})")  # fmt: skip
    print("slowest:", "  ".join(f"{m or '(start)'} {1000 * t:.0f}" for m, t in
                                sorted(rows, key=lambda r: -r[1])[: args.show]))  # fmt: skip


if __name__ == "__main__":
    main()
