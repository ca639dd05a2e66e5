"""The connection threads' pool (``webapp.web.thread_pool``): a thread per call up to a
bound, threads reused while busy, and ending once idle; gunicorn's worker uses it."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import CancelledError, Future
from types import SimpleNamespace

import pytest

from tests.web.helpers import wait_until
from webapp.web import thread_pool
from webapp.web.server import Server, SocketWorker
from webapp.web.thread_pool import ElasticThreadPool

#: Long enough for every wait here on a loaded machine; never reached when things work.
PATIENCE = 10.0


def crowd(pool: ElasticThreadPool, size: int) -> None:
    """``size`` calls at once, each on a thread of its own, then all done."""
    release = threading.Event()
    calls = [pool.submit(release.wait, PATIENCE) for _ in range(size)]
    wait_until(lambda: pool.counts()["threads"] == size)
    release.set()
    assert all(call.result(PATIENCE) for call in calls)


def test_a_call_runs_on_a_thread_and_its_future_tells_its_result_and_callbacks() -> None:
    pool = ElasticThreadPool(4)
    done: list[Future[int]] = []
    called = threading.Event()
    future = pool.submit(lambda a, b: a + b, 2, 3)
    future.add_done_callback(lambda f: (done.append(f), called.set()))
    assert future.result(PATIENCE) == 5
    assert called.wait(PATIENCE) and done == [future]
    failing = pool.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result(PATIENCE)
    assert pool.submit(lambda: "still serving").result(PATIENCE) == "still serving"
    pool.shutdown()


def test_calls_run_side_by_side_up_to_the_bound_then_wait_their_turn() -> None:
    pool = ElasticThreadPool(3)
    release = threading.Event()
    running = threading.Semaphore(0)

    def held(n: int) -> int:
        running.release()
        release.wait(PATIENCE)
        return n

    futures = [pool.submit(held, n) for n in range(5)]
    for _ in range(3):
        assert running.acquire(timeout=PATIENCE)
    assert not running.acquire(timeout=0.05)  # the bound: the other two wait
    assert pool.counts() == {"threads": 3, "idle": 0, "started": 3, "waiting": 2}
    release.set()
    assert [f.result(PATIENCE) for f in futures] == [0, 1, 2, 3, 4]
    assert pool.counts()["started"] == 3  # the waiting two ran on the same threads
    pool.shutdown()


def test_an_idle_thread_serves_the_next_call_rather_than_a_new_one() -> None:
    pool = ElasticThreadPool(10, idle_seconds=PATIENCE)
    for n in range(20):
        assert pool.submit(lambda n=n: n).result(PATIENCE) == n
        wait_until(lambda: pool.counts()["idle"] == 1)
    assert pool.counts()["started"] == 1
    pool.shutdown()


def test_idle_threads_end_and_a_later_crowd_starts_them_again() -> None:
    pool = ElasticThreadPool(50, idle_seconds=0.05)
    crowd(pool, 20)
    wait_until(lambda: pool.counts()["threads"] == 0)
    assert threading.active_count() < 20
    assert pool.submit(lambda: "again").result(PATIENCE) == "again"
    assert pool.counts()["started"] == 21
    pool.shutdown()


def test_no_call_is_lost_when_threads_time_out_as_calls_come() -> None:
    """Idle waits so short that calls often arrive as a thread gives up: each call still
    runs once, and every thread ends in the end."""
    pool = ElasticThreadPool(8, idle_seconds=0.0005)
    ran: list[int] = []
    lock = threading.Lock()

    def note(n: int) -> None:
        with lock:
            ran.append(n)

    def submitter(base: int) -> None:
        for n in range(base, base + 500):
            pool.submit(note, n)
            if n % 7 == 0:
                time.sleep(0.0005)

    submitters = [threading.Thread(target=submitter, args=(k * 1000,)) for k in range(4)]
    for thread in submitters:
        thread.start()
    for thread in submitters:
        thread.join(PATIENCE)
    wait_until(lambda: len(ran) == 2000)
    assert sorted(ran) == sorted(k * 1000 + n for k in range(4) for n in range(500))
    wait_until(lambda: pool.counts()["threads"] == 0)
    pool.shutdown()


def test_shutdown_wakes_idle_threads_refuses_calls_and_may_cancel_the_queued() -> None:
    pool = ElasticThreadPool(1, idle_seconds=3600)  # idle, they would wait an hour
    assert pool.submit(lambda: 1).result(PATIENCE) == 1
    wait_until(lambda: pool.counts()["idle"] == 1)
    pool.shutdown(wait=False)
    wait_until(lambda: pool.counts()["threads"] == 0)
    with pytest.raises(RuntimeError):
        pool.submit(lambda: 2)

    busy = ElasticThreadPool(1)
    release = threading.Event()
    first = busy.submit(release.wait, PATIENCE)
    queued = busy.submit(lambda: "never")
    busy.shutdown(wait=False, cancel_futures=True)
    with pytest.raises(CancelledError):
        queued.result(PATIENCE)
    release.set()
    assert first.result(PATIENCE) is True
    wait_until(lambda: busy.counts()["threads"] == 0)


def test_shutdown_may_wait_for_the_calls_running() -> None:
    pool = ElasticThreadPool(2, idle_seconds=3600)
    release = threading.Event()
    running = pool.submit(release.wait, PATIENCE)
    waiter = threading.Thread(target=pool.shutdown)  # wait=True
    waiter.start()
    waiter.join(0.05)
    assert waiter.is_alive()  # the call still runs
    release.set()
    waiter.join(PATIENCE)
    assert not waiter.is_alive() and running.result(0) is True
    assert pool.counts()["threads"] == 0


def test_a_call_raising_system_exit_fails_its_future_and_the_thread_goes_on() -> None:
    pool = ElasticThreadPool(1, idle_seconds=3600)

    def interrupted() -> None:
        raise KeyboardInterrupt

    assert isinstance(pool.submit(sys.exit, 3).exception(PATIENCE), SystemExit)
    assert isinstance(pool.submit(interrupted).exception(PATIENCE), KeyboardInterrupt)
    assert pool.submit(lambda: "ok").result(PATIENCE) == "ok"
    assert pool.counts()["started"] == 1
    pool.shutdown()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_thread_killed_by_its_done_callback_gives_its_place_back() -> None:
    """``Future`` lets a callback's SystemExit through: the thread ends, counted out."""
    pool = ElasticThreadPool(1, idle_seconds=3600)
    release = threading.Event()
    future = pool.submit(release.wait, PATIENCE)
    future.add_done_callback(lambda _: sys.exit(0))  # run by the pool's thread
    release.set()
    wait_until(lambda: pool.counts()["threads"] == 0)
    assert pool.submit(lambda: "served").result(PATIENCE) == "served"
    pool.shutdown()


def test_a_failed_thread_start_leaves_no_call_to_run_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pool = ElasticThreadPool(2, idle_seconds=3600)
    ran: list[str] = []
    real_start = threading.Thread.start

    def cannot_start(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", cannot_start)
    with pytest.raises(RuntimeError):
        pool.submit(ran.append, "refused")
    monkeypatch.setattr(threading.Thread, "start", real_start)
    assert pool.counts() == {"threads": 0, "idle": 0, "started": 1, "waiting": 0}
    pool.submit(ran.append, "served").result(PATIENCE)
    pool.shutdown()
    assert ran == ["served"]  # the call whose submit raised never ran


def test_a_thread_woken_as_its_wait_times_out_still_takes_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The race made certain: an idle thread's timed wait reports a timeout just after a
    call released it; it must run that call, not end and leave it queued."""
    pool = ElasticThreadPool(1, idle_seconds=3600)
    assert pool.submit(lambda: 1).result(PATIENCE) == 1  # its thread now idles (real lock)
    in_wait, fire = threading.Event(), threading.Event()
    real_lock = threading.Lock

    class TimesOutLate:
        def __init__(self) -> None:
            self._lock = real_lock()

        def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
            if timeout == -1:
                return self._lock.acquire(blocking)
            in_wait.set()
            fire.wait(PATIENCE)
            return False  # as if the timeout came first

        def release(self) -> None:
            self._lock.release()

    monkeypatch.setattr(
        thread_pool, "threading", SimpleNamespace(Lock=TimesOutLate, Thread=threading.Thread)
    )
    assert pool.submit(lambda: 0).result(PATIENCE) == 0  # it idles again, on TimesOutLate
    assert in_wait.wait(PATIENCE)
    late = pool.submit(lambda: 2)  # releases that thread's waiter
    fire.set()
    assert late.result(PATIENCE) == 2
    pool.shutdown()


def test_the_threads_a_crowd_left_end_under_a_light_steady_load() -> None:
    """The thread idle the shortest takes each call: one call at a time keeps one thread
    busy, and the other 49 reach their idle time (with the longest idle first, each call
    would keep a different one alive for ever)."""
    pool = ElasticThreadPool(100, idle_seconds=0.2)
    crowd(pool, 50)

    def trickle_until_few() -> bool:
        pool.submit(lambda: None).result(PATIENCE)
        time.sleep(0.005)
        return pool.counts()["threads"] <= 2

    wait_until(trickle_until_few)
    pool.shutdown()


@pytest.mark.parametrize("round_", range(20))
def test_no_call_is_lost_or_run_twice_when_shutdown_races_submits_and_timeouts(
    round_: int,
) -> None:
    pool = ElasticThreadPool(1 + round_ % 4, idle_seconds=(0.0, 1e-4, 1e-3)[round_ % 3])
    runs: dict[int, int] = {}
    lock = threading.Lock()
    submitted: list[tuple[int, Future[None]]] = []

    def note(n: int) -> None:
        with lock:
            runs[n] = runs.get(n, 0) + 1

    def submitter(base: int) -> None:
        for n in range(base, base + 200):
            try:
                submitted.append((n, pool.submit(note, n)))
            except RuntimeError:  # shut down
                return

    threads = [threading.Thread(target=submitter, args=(k * 1000,)) for k in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(0.002 * (round_ % 5))
    pool.shutdown(wait=False, cancel_futures=round_ % 2 == 0)
    for thread in threads:
        thread.join(PATIENCE)
    for n, future in submitted:
        try:
            future.result(PATIENCE)
        except CancelledError:
            assert n not in runs
        else:
            assert runs[n] == 1
    assert all(count == 1 for count in runs.values())
    wait_until(lambda: pool.counts()["threads"] == 0)


def test_gunicorns_worker_serves_connections_on_the_elastic_pool() -> None:
    server = Server({}, "127.0.0.1", 0, threads=123)
    worker = SocketWorker.__new__(SocketWorker)  # its pool, without a process of its own
    worker.cfg = server.cfg
    pool = worker.get_thread_pool()
    assert isinstance(pool, ElasticThreadPool) and pool.max_workers == 123
