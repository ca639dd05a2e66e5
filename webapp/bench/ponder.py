"""``python -m webapp.bench.ponder``: how much faster the engine replies to an expected move.

The service ponders (``webapp/services/live_scores.py``): once the player's
options are scored, it searches the engine's reply to the best-scored move on
the player's time. This plays, through the real service and a real search
pool, one player move in each of a few middle-game Connect Four positions at
Perfect, the expected move, and times the engine's reply (from the move to
the ``engine_move`` event): with pondering (after the player "thought" until
the pondering was done) and without it (``live_scores=False``). It also
prints how long the player's options took to be exact (the ``scores``
event). No figure is asserted: it prints what it measured.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Sequence
from typing import Any

from webapp.bench.stats import percentile
from webapp.search_pool import SearchPool
from webapp.services import GameService
from webapp.store import open_store

#: Middle-game positions, the first player (the human) to move: 8 to 14 stones
#: (a depth-6 searcher's games with some random moves), none won at once.
POSITIONS = (
    "444443555532",
    "41536743",
    "4435215352",
    "4514131132",
    "471344336646",
    "74341444471555",
    "43554734544711",
    "45345742654544",
    "17435423233552",
)
TIMEOUT = 60.0


class Recorder:
    """The service's emit: keeps every event and wakes whoever waits for one."""

    def __init__(self) -> None:
        self.events: list[tuple[float, str, dict[str, Any]]] = []
        self.changed = threading.Condition()

    def __call__(self, event: str, payload: dict[str, Any], to: str) -> None:
        with self.changed:
            self.events.append((time.perf_counter(), event, payload))
            self.changed.notify_all()

    def wait(self, event: str, test: Any, since: float = 0.0) -> float:
        """The time the first ``event`` after ``since`` passing ``test`` came."""
        deadline = time.perf_counter() + TIMEOUT
        with self.changed:
            while True:
                for at, name, payload in self.events:
                    if at >= since and name == event and test(payload):
                        return at
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError(f"no {event} in {TIMEOUT} s")
                self.changed.wait(left)


def _service(ponder: bool) -> tuple[GameService, Recorder]:
    pool = SearchPool(2, reserve=1)
    emit = Recorder()
    service = GameService(open_store(":memory:"), pool, emit, seed=0, live_scores=ponder)
    pool.start()
    pool.wait_ready(120.0)
    return service, emit


def _reply(service: GameService, emit: Recorder, game_id: str, move: str) -> float:
    """Seconds from the player's move to the engine's reply."""
    sent = time.perf_counter()
    service.move(game_id, move, "bench")
    return emit.wait("engine_move", lambda p: p["game_id"] == game_id, sent) - sent


def pondered(positions: Sequence[str]) -> list[dict[str, Any]]:
    """Per position: the player thinks until the engine's reply is pondered, then plays
    the expected move. The expected move, how long the scores took, the reply time."""
    service, emit = _service(True)
    live = service.searches.live
    rows = []
    try:
        for moves in positions:
            start = time.perf_counter()
            record = service.create("connect4", {"level": "perfect"}, moves, owner="bench")
            deadline = start + TIMEOUT
            while time.perf_counter() < deadline:
                ready = live._pondering.get(record.id)  # a bench looks inside
                if ready is not None and ready.result is not None:
                    break
                time.sleep(0.005)
            else:
                print(f"{moves}: nothing pondered in {TIMEOUT:.0f} s (skipped)")
                continue
            told = [(at, p) for at, e, p in emit.events if e == "scores" and p["moves"] == moves]
            rows.append({
                "moves": moves, "expected": ready.moves[-1], "scores_s": told[-1][0] - start,
                "exact": told[-1][1]["complete"], "ponder_s": time.perf_counter() - start,
                "reply_s": _reply(service, emit, record.id, ready.moves[-1]),
            })  # fmt: skip
            service.searches.stop_engine(record.id)  # its next scores would share the CPU
    finally:
        service.close()
    return rows


def not_pondered(rows: list[dict[str, Any]]) -> list[float]:
    """The same positions and moves, the service not pondering: the reply times."""
    service, emit = _service(False)
    try:
        times = []
        for row in rows:
            record = service.create("connect4", {"level": "perfect"}, row["moves"], owner="bench")
            times.append(_reply(service, emit, record.id, row["expected"]))
            service.searches.stop_engine(record.id)
        return times
    finally:
        service.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=len(POSITIONS))
    args = parser.parse_args(argv)
    positions = POSITIONS[: args.positions]
    print("# Pondering: the engine's reply to the expected move, Connect Four, Perfect")
    rows = pondered(positions)
    plain = not_pondered(rows)
    print(f"{'position':<16} {'move':>4} {'scores s':>9} {'exact':>6} {'pondered after s':>17} "
          f"{'reply pondered ms':>18} {'reply not pondered ms':>22}")  # fmt: skip
    for row, other in zip(rows, plain, strict=True):
        print(f"{row['moves']:<16} {row['expected']:>4} {row['scores_s']:>9.2f} "
              f"{'yes' if row['exact'] else 'no':>6} {row['ponder_s']:>17.2f} "
              f"{1000 * row['reply_s']:>18.1f} {1000 * other:>22.1f}")  # fmt: skip
    for name, times in (("pondered", [r["reply_s"] for r in rows]), ("not pondered", plain)):
        ms = sorted(1000 * t for t in times)
        print(f"{name:<13} reply p50 {percentile(ms, 50):8.1f} ms  "
              f"p95 {percentile(ms, 95):8.1f} ms  max {ms[-1]:8.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
