"""The pool's one dispatcher (webapp/workers/dispatch.py): each job's news goes to the
handlers registered once for its kind, whoever registered first; a game's news is
applied off the relay thread, in order, and a slow game delays no other."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import pytest

from tests.web.helpers import WAIT, wait_until
from webapp import protocol
from webapp.engine.results import Limits
from webapp.search_pool import TRACE, Priority, SearchJob, SearchPool
from webapp.search_pool.dispatch import (
    BEHIND_SECONDS,
    LATE_REPLIES,
    LATE_SECONDS,
    PONDER,
    Dispatcher,
    SerialExecutor,
    dispatcher_of,
    kind_of,
)
from webapp.services.game_service import GameService
from webapp.store import open_store


class BarePool:
    """Only the three callbacks of a pool."""

    def __init__(self) -> None:
        self.on_progress: Any = None
        self.on_result: Any = None
        self.on_queued: Any = None


@dataclass(eq=False)
class Tagged:
    kind: ClassVar[str] = "remote"


def job(tag: Any, kind: str = "search") -> SearchJob:
    return SearchJob("tictactoe", "", "minimax", Limits(depth=1), tag=tag, kind=kind)


def test_a_jobs_kind_is_its_tags_first_item_its_tags_kind_or_its_own() -> None:
    assert kind_of(job(("engine", "g1", None))) == "engine"
    assert kind_of(job(Tagged())) == "remote"
    assert kind_of(job(object(), kind=TRACE)) == TRACE


def test_the_pool_gets_one_dispatcher_whoever_asks_first() -> None:
    pool = BarePool()
    first = dispatcher_of(pool)  # type: ignore[arg-type]
    assert dispatcher_of(pool) is first  # type: ignore[arg-type]
    assert pool.on_result == first.on_result and pool.on_queued == first.on_queued
    assert pool.on_progress == first.on_progress


def test_each_kinds_news_goes_to_its_handlers_only() -> None:
    pool, heard = BarePool(), []
    dispatch = dispatcher_of(pool)  # type: ignore[arg-type]
    dispatch.register(
        "engine",
        lambda j, r, e: heard.append(("engine result", r)),
        lambda j, p: heard.append(("engine progress", p)),
        lambda j, place: heard.append(("engine queued", place)),
    )
    dispatch.register("position", lambda j, r, e: heard.append(("position result", e)))
    pool.on_progress(job(("engine", "g", None)), {"depth": 1})
    pool.on_queued(job(("engine", "g", None)), 3)
    pool.on_result(job(("engine", "g", None)), {"best_move": "5"}, None)
    pool.on_queued(job(("position", "k")), 2)  # no queued handler: nothing
    pool.on_result(job(("position", "k")), None, "failed")
    pool.on_result(job(("nobody's", "k")), None, None)  # no handler: dropped
    assert heard == [
        ("engine progress", {"depth": 1}),
        ("engine queued", 3),
        ("engine result", {"best_move": "5"}),
        ("position result", "failed"),
    ]


def test_a_kind_is_registered_once() -> None:
    dispatch = Dispatcher()
    dispatch.register("engine", lambda j, r, e: None)
    with pytest.raises(ValueError, match="engine"):
        dispatch.register("engine", lambda j, r, e: None)


def test_settled_hooks_hear_of_every_result_after_its_handler() -> None:
    dispatch, heard = Dispatcher(), []
    dispatch.register("engine", lambda j, r, e: heard.append("handled"))
    dispatch.on_settled(lambda j: heard.append("settled"))
    dispatch.on_result(job(("engine", "g", None)), None, "x")
    assert heard == ["handled", "settled"]


class Parked:
    """An executor that keeps its tasks until ``run``: a results thread that comes late."""

    def __init__(self) -> None:
        self.tasks: list[tuple[str, Callable[[], None]]] = []

    def submit(self, key: str, task: Callable[[], None], urgent: bool = False) -> bool:
        self.tasks.append((key, task))
        return True

    def has_tasks(self, key: str) -> bool:
        return any(each == key for each, _ in self.tasks)

    def run(self) -> None:
        tasks, self.tasks = self.tasks, []
        for _, task in tasks:
            task()


def test_the_process_is_behind_while_engine_replies_wait_too_long_for_a_thread() -> None:
    """``behind()``: ``LATE_REPLIES`` engine replies waited past ``LATE_SECONDS`` for a
    thread to apply them, within the last ``BEHIND_SECONDS``. One late reply is a hiccup;
    a prompt reply, or a late scores result (nobody waits on it), says nothing."""
    clock, executor = [100.0], Parked()
    dispatch = Dispatcher(executor, clock=lambda: clock[0])  # type: ignore[arg-type]
    dispatch.register("engine", lambda j, r, e: None, serial=True)
    dispatch.register("scores", lambda j, r, e: None, serial=True)
    reply = job(("engine", "g1", None))
    scores = replace(job(("scores", "g1", None)), priority=Priority.SCORES)

    dispatch.on_result(reply, {"best_move": "5"}, None)
    clock[0] += LATE_SECONDS / 2
    executor.run()
    dispatch.on_result(scores, None, "x")
    clock[0] += LATE_SECONDS * 10
    executor.run()
    assert not dispatch.behind()

    firsts = []
    for count in range(1, LATE_REPLIES + 2):
        dispatch.on_result(reply, {"best_move": "5"}, None)
        clock[0] += LATE_SECONDS * 2
        executor.run()
        firsts.append(clock[0])
        assert dispatch.behind() == (count >= LATE_REPLIES)
    first = firsts[-LATE_REPLIES]  # the oldest of the last LATE_REPLIES late replies
    clock[0] = first + BEHIND_SECONDS - 0.01
    assert dispatch.behind()
    clock[0] = first + BEHIND_SECONDS
    assert not dispatch.behind()

    # Replies that waited behind their own game's news (a slow save of that game): that
    # game is slow, not the process.
    for _ in range(LATE_REPLIES + 1):
        dispatch.on_result(scores, None, "x")
        dispatch.on_result(reply, {"best_move": "5"}, None)
        clock[0] += LATE_SECONDS * 2
        executor.run()
    assert not dispatch.behind()


def test_replies_that_waited_for_a_search_process_make_the_process_behind_too() -> None:
    """An engine reply applied at once still counts as late when its search waited in the
    pool (for a worker) past ``LATE_SECONDS``, its own search time left out; a failed
    reply, a pondering (it waited for the player) or a scores pass does not count."""
    clock, executor = [100.0], Parked()
    dispatch = Dispatcher(executor, clock=lambda: clock[0])  # type: ignore[arg-type]
    for kind in ("engine", "scores", PONDER):
        dispatch.register(kind, lambda j, r, e: None, serial=True)

    def reported(tag: Any, waited: float, searched_ms: float, **changes: Any) -> SearchJob:
        made = replace(job(tag), **changes)
        made.submitted, made.reported = 50.0, 50.0 + waited + searched_ms / 1e3
        return made

    failed = reported(("engine", "g1", None), 1.0, searched_ms=0)  # its time is unknown
    for _ in range(LATE_REPLIES):
        dispatch.on_result(failed, None, "worker died")
        executor.run()
    assert not dispatch.behind()
    slow_search = reported(("engine", "g1", None), LATE_SECONDS / 2, searched_ms=500)
    pondered = reported((PONDER, "g1", None), 1.0, searched_ms=1)
    scores = reported(("scores", "g1", None), 1.0, searched_ms=1, priority=Priority.SCORES)
    for each in [slow_search, pondered, scores] * LATE_REPLIES:
        dispatch.on_result(each, {"best_move": "5", "time_ms": 500 if each is slow_search else 1},
                           None)  # fmt: skip
        executor.run()
    assert not dispatch.behind()

    waited = reported(("engine", "g1", None), LATE_SECONDS * 2, searched_ms=1)
    for count in range(1, LATE_REPLIES + 1):
        dispatch.on_result(waited, {"best_move": "5", "time_ms": 1}, None)
        executor.run()  # at once: no wait for a thread
        assert dispatch.behind() == (count >= LATE_REPLIES)


# -- off the relay thread, one game at a time ---------------------------------------------
def test_news_nobody_handles_never_reaches_the_executor() -> None:
    """Progress or places of a kind without their handler, places past those told."""

    class Counting(SerialExecutor):
        submitted: ClassVar[list[str]] = []

        def submit(self, key: str, task: Callable[[], None], urgent: bool = False) -> bool:
            self.submitted.append(key)
            return super().submit(key, task, urgent)

    executor = Counting(threads=1)
    dispatch = Dispatcher(executor)
    heard: list[Any] = []
    dispatch.register("scores", lambda j, r, e: None, serial=True)
    dispatch.register("engine", lambda j, r, e: None, lambda j, p: heard.append(p), serial=True)
    dispatch.register("analysis", lambda j, r, e: None, queued=lambda j, p: heard.append(p),
                      serial=True, places=3)  # fmt: skip
    dispatch.on_progress(job(("scores", "g1", None)), {"depth": 1})
    dispatch.on_queued(job(("scores", "g1", None)), 1)
    dispatch.on_queued(job(("analysis", "g3", "sid")), 4)
    assert Counting.submitted == []
    dispatch.on_progress(job(("engine", "g2", None)), {"depth": 1})
    dispatch.on_queued(job(("analysis", "g3", "sid")), 3)
    wait_until(lambda: heard == [{"depth": 1}, 3])
    assert Counting.submitted == ["g2", "g3"]
    executor.close()


def test_an_executor_runs_a_keys_tasks_in_order_one_at_a_time() -> None:
    executor, ran, lock = SerialExecutor(threads=4), [], threading.Lock()
    running, overlapped = [0], []

    def task(index: int) -> Callable[[], None]:
        def run() -> None:
            with lock:
                running[0] += 1
                overlapped.append(running[0] > 1)
            ran.append(index)
            with lock:
                running[0] -= 1

        return run

    done = threading.Event()
    for index in range(200):
        executor.submit("game", task(index))
    executor.submit("game", done.set)
    assert done.wait(WAIT)
    assert ran == list(range(200)) and not any(overlapped)
    executor.close()


def test_an_executor_runs_other_keys_while_one_is_held() -> None:
    executor, held, release, other = (
        SerialExecutor(threads=2),
        threading.Event(),
        (threading.Event()),
        threading.Event(),
    )
    executor.submit("slow", lambda: (held.set(), release.wait(WAIT)))
    executor.submit("slow", other.clear)  # the slow game's next waits for its first
    assert held.wait(WAIT)
    executor.submit("fast", other.set)
    assert other.wait(WAIT)  # ran while the slow game's task still holds its thread
    assert not release.is_set()
    release.set()
    executor.close()


def test_an_executor_starts_no_more_threads_than_its_size() -> None:
    executor, release = SerialExecutor(threads=3), threading.Event()
    started = threading.Semaphore(0)
    for index in range(50):
        executor.submit(f"game-{index}", lambda: (started.release(), release.wait(WAIT)))
    for _ in range(3):
        assert started.acquire(timeout=WAIT)
    assert executor.threads() == 3
    release.set()
    assert executor.close()


class HeldStore:
    """A store whose first save of ``game_id`` with the engine's reply (two moves) waits
    until ``release`` is set (at most ``WAIT`` seconds)."""

    def __init__(self, store: Any) -> None:
        self.store, self.game_id = store, ""
        self.entered, self.release, self.saved = threading.Event(), threading.Event(), []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def save(self, record: Any) -> Any:
        if record.id == self.game_id and len(record.moves) == 2 and not self.entered.is_set():
            self.entered.set()
            self.release.wait(WAIT)
        self.saved.append((record.id, record.moves))
        return self.store.save(record)


def test_a_game_whose_save_is_slow_delays_no_other_games_reply() -> None:
    pool = SearchPool(2, warm_up=False)
    pool.start()
    assert pool.wait_ready(WAIT)
    store, sent = HeldStore(open_store(":memory:")), []
    games = GameService(
        store,  # type: ignore[arg-type]
        pool,
        lambda event, payload, to: sent.append((event, payload, to)),
        seed=0,
        live_scores=False,
    )
    try:
        slow = games.create("tictactoe", {"level": "easy"}, owner="me")
        fast = games.create("tictactoe", {"level": "easy"}, owner="me")
        store.game_id = slow.id
        games.move(slow.id, "5", "me")
        assert store.entered.wait(WAIT)  # the slow game's reply is stuck in its save
        games.move(fast.id, "5", "me")
        replies = lambda: [to for event, _, to in sent if event == protocol.ENGINE_MOVE]  # noqa: E731
        wait_until(lambda: replies() == [fast.id])
        assert not store.release.is_set()  # the slow game's save is still held meanwhile
        store.release.set()
        wait_until(lambda: replies() == [fast.id, slow.id])
        stored = games.store.get(slow.id)
        assert stored is not None and len(stored.moves) == 2
    finally:
        store.release.set()
        games.close()


def test_an_engine_reply_is_applied_before_other_games_waiting_scores() -> None:
    executor, ran = SerialExecutor(threads=1), []
    held, release, done = threading.Event(), threading.Event(), threading.Event()
    executor.submit("busy", lambda: (held.set(), release.wait(WAIT)))
    assert held.wait(WAIT)  # the one thread is taken: everything below waits
    executor.submit("g1", lambda: ran.append("g1 scores"))
    executor.submit("g2", lambda: ran.append("g2 scores"))
    executor.submit("g3", lambda: ran.append("g3 reply"), urgent=True)
    executor.submit("g4", lambda: ran.append("g4 scores"))
    executor.submit("g4", lambda: ran.append("g4 reply"), urgent=True)  # its game goes ahead
    executor.submit("g5", done.set)
    release.set()
    assert done.wait(WAIT)
    # g4's scores came first in its game: a game's news keeps its order
    assert ran == ["g3 reply", "g4 scores", "g4 reply", "g1 scores", "g2 scores"]
    executor.close()


def test_engine_and_pondering_news_are_urgent_scores_and_analyses_are_not() -> None:
    from webapp.search_pool import Priority
    from webapp.search_pool.dispatch import urgent

    assert urgent(job(("engine", "g", None)))
    assert urgent(SearchJob("tictactoe", "", "minimax", Limits(depth=1), tag=("ponder", "g", None),
                            priority=Priority.SCORES))  # fmt: skip
    for kind, priority in (("scores", Priority.SCORES), ("scores", Priority.ANALYSIS),
                           ("analysis", Priority.ANALYSIS)):  # fmt: skip
        lesser = SearchJob("tictactoe", "", "minimax", Limits(depth=1), tag=(kind, "g", None),
                           priority=priority)  # fmt: skip
        assert not urgent(lesser)
