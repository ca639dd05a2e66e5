"""The 12-stone database: its load (time, memory) and every column's exact score of random
positions as ``/api/analysis`` asks for them (``Limits(line=False)`` with move scores,
the server's 10 s cap, an empty-looking table per search), with the opening book on and
off beside it.

Positions are random games (uniform random columns) cut at a stone count drawn
uniformly from the band, not over.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from dataclasses import dataclass

from webapp.bench.stats import percentile, set_book
from webapp.engine.search import Limits, search
from webapp.games.connect4 import Connect4

#: 12 stones apart as well: there each column leads to a 13-stone position, past the
#: database, that is searched to the end.
BANDS = ((0, 12), (0, 11), (12, 12), (13, 20))
#: The server's cap on every search.
CAP_SECONDS = 10.0

_MEASURE_LOAD = """
import os, time
from webapp.games.connect4_kernel import native
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
from webapp.games.connect4_kernel import database  # numba imported, its decoder compiled
before = rss()
start = time.perf_counter()
native.load_book()
status = native.load_database()
native.probe_entries()  # the book and the database merged, as searches probe them
print(status, time.perf_counter() - start, (rss() - before) / 2**20)
"""


@dataclass
class Band:
    low: int
    high: int
    positions: int
    columns: int
    exact: int
    ms: list[float]
    nodes: list[float]


def random_position(low: int, high: int, rng: random.Random) -> Connect4:
    while True:
        game, stones = Connect4(), rng.randint(low, high)
        while game.moves_played < stones and not game.is_terminal():
            game.play(rng.choice(game.legal_moves()))
        if game.moves_played == stones and not game.is_terminal():
            return game


def measure(low: int, high: int, count: int, seed: int) -> Band:
    rng = random.Random(seed)
    band = Band(low, high, count, 0, 0, [], [])
    for _ in range(count):
        game = random_position(low, high, rng)
        start = time.perf_counter()
        result = search(game, "alphabeta", Limits(time=CAP_SECONDS, line=False),
                        move_scores=True, seed=0)  # fmt: skip
        band.ms.append((time.perf_counter() - start) * 1e3)
        band.nodes.append(result.nodes)
        scores = (result.move_scores or {}).values()
        band.columns += len(game.legal_moves())
        band.exact += sum(1 for s in scores if s.exact)
    return band


def load_figures() -> str:
    """Status, seconds and RSS growth of loading the database in a new process (cached)."""
    out = subprocess.run([sys.executable, "-c", _MEASURE_LOAD], capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    return f"status {out[0]}, load {float(out[1]):.2f} s, RSS +{float(out[2]):.1f} MB"


def print_database(count: int, seed: int) -> None:
    from webapp.games.connect4_kernel import native
    from webapp.games.connect4_kernel.warmup import warm_up

    print("\n# The 12-stone database")
    print(f"loaded in a new process (its cache ready): {load_figures()}")
    warm_up()  # numba's first calls are not the database's
    print(
        f"# every column's exact score, as /api/analysis: {count} random positions per band "
        f"(database here: {native.database_status()}); nodes tell apart a busy machine"
    )
    print(f"{'stones':<7} {'book':<5} {'n':>4} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9} "
          f"{'p95 nodes':>10} {'exact columns':>14}")  # fmt: skip
    for low, high in BANDS:
        for book in (True, False):
            set_book(book)
            b = measure(low, high, count, seed)
            band = f"{low}-{high}" if low < high else str(low)
            print(f"{band:<7} {'on' if book else 'off':<5} {b.positions:>4} "
                  f"{percentile(b.ms, 50):>9.1f} {percentile(b.ms, 95):>9.1f} "
                  f"{max(b.ms):>9.1f} {percentile(b.nodes, 95):>10.0f} "
                  f"{f'{b.exact}/{b.columns}':>14}", flush=True)  # fmt: skip
    set_book(True)
