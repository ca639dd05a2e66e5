"""Delayed work on one thread (webapp/workers/timers.py): calls in time order, cancelled
ones never run, a failing one ends nothing, and many engine retries start one thread."""

from __future__ import annotations

import threading
from typing import Any

from tests.web.helpers import WAIT, wait_until
from webapp.search_pool import PoolBusy, SearchJob
from webapp.search_pool.timers import Timers
from webapp.services.game_service import GameService
from webapp.store import open_store


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_calls_run_in_the_order_of_their_times_and_cancelled_ones_never() -> None:
    # On a clock of the test's own: a loaded machine's pause between two calls here
    # must not reorder their times (it did, on the real clock: "third" before "second").
    clock, ran, done = Clock(), [], threading.Event()
    timers = Timers(clock=clock)
    timers.call_later(0.03, lambda: ran.append("third"))
    timers.call_later(0.0, lambda: ran.append("first"))
    timers.call_later(0.01, lambda: ran.append("second")).cancel()
    timers.call_later(0.02, lambda: ran.append("second"))
    timers.call_later(0.04, done.set)
    wait_until(lambda: ran == ["first"])  # the only one due yet
    clock.now = 1.0
    timers.wake()  # every other one is due now
    assert done.wait(WAIT)
    assert ran == ["first", "second", "third"]
    timers.close()


def test_a_call_waits_for_its_time() -> None:
    clock, ran = Clock(), threading.Event()
    timers = Timers(clock=clock)
    timers.call_later(10.0, ran.set)
    timers.call_later(0.0, lambda: None)  # the thread has looked at the heap since
    wait_until(lambda: timers.pending() == 1)
    assert not ran.wait(0.05)  # its time has not come on the clock
    clock.now = 10.0
    timers.wake()  # it looks at the clock again
    assert ran.wait(WAIT)
    timers.close()


def test_a_call_that_raises_ends_no_later_call() -> None:
    timers, done = Timers(), threading.Event()
    timers.call_later(0.0, lambda: 1 / 0)  # type: ignore[func-returns-value]
    timers.call_later(0.0, done.set)
    assert done.wait(WAIT) and timers.alive()
    timers.close()


class FullPool:
    """A pool that refuses every search."""

    def __init__(self) -> None:
        self.on_progress: Any = None
        self.on_result: Any = None
        self.on_queued: Any = None
        self.refused = 0

    def submit(self, job: SearchJob) -> int:
        self.refused += 1
        raise PoolBusy("full")

    def has_room(self, *_: Any, **__: Any) -> bool:
        return True  # so it says, then refuses

    def sheds(self, *_: Any) -> bool:
        return False

    def cancel(self, job_id: int) -> None:
        return None

    def position(self, job_id: int) -> int | None:
        return None

    def close(self) -> None:
        return None


def test_five_hundred_retries_start_no_thread_each() -> None:
    timers, pool = Timers(), FullPool()
    games = GameService(
        open_store(":memory:"),
        pool,  # type: ignore[arg-type]
        lambda *_: None,
        seed=0,
        retry_delays=(3600.0,),  # none comes due during the test
        live_scores=False,
    )
    games.searches.timers = timers
    try:
        before = threading.active_count()
        for _ in range(500):
            record = games.create(
                "tictactoe", {"level": "easy", "engine_plays": "first"}, owner="me"
            )
            assert games.searches.thinking(record.id)  # it waits for a retry
        assert timers.pending() == 500
        assert threading.active_count() <= before + 1  # the timers' one thread
    finally:
        games.close()
        timers.close()


def test_the_thread_is_woken_only_for_a_call_due_before_the_one_it_waits_for() -> None:
    """A later call waits in the heap: the thread sleeps on (a crowd's retries, each due
    seconds later, used to wake it once each for nothing)."""
    clock = Clock()
    timers = Timers(clock=clock)
    timers.call_later(10.0, lambda: None)  # starts the thread, which waits for this one
    notified: list[str] = []
    notify = timers._changed.notify
    timers._changed.notify = lambda n=1: (notified.append("notify"), notify(n))  # type: ignore[method-assign]
    timers.call_later(20.0, lambda: None)
    timers.call_later(10.0, lambda: None)  # the same time, behind the first
    assert notified == []
    timers.call_later(5.0, lambda: None)
    assert notified == ["notify"]
    timers.close()
