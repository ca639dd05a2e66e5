"""The connection threads' pool (``webapp.web.thread_pool``): a thread per call up to a
bound, threads reused while busy, and ending once idle; gunicorn's worker uses it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future

import pytest

from webapp.web.server import Server, SocketWorker
from webapp.web.thread_pool import ElasticThreadPool

#: Long enough for every wait here on a loaded machine; never reached when things work.
PATIENCE = 10.0


def eventually(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not check():
        assert time.monotonic() < deadline, "the pool never got there"
        time.sleep(0.005)


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
        eventually(lambda: pool.counts()["idle"] == 1)
    assert pool.counts()["started"] == 1
    pool.shutdown()


def test_idle_threads_end_and_a_later_crowd_starts_them_again() -> None:
    pool = ElasticThreadPool(50, idle_seconds=0.05)
    release = threading.Event()
    futures = [pool.submit(release.wait, PATIENCE) for _ in range(20)]
    eventually(lambda: pool.counts()["threads"] == 20)
    release.set()
    assert all(f.result(PATIENCE) for f in futures)
    eventually(lambda: pool.counts()["threads"] == 0)
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
    eventually(lambda: len(ran) == 2000)
    assert sorted(ran) == sorted(k * 1000 + n for k in range(4) for n in range(500))
    eventually(lambda: pool.counts()["threads"] == 0)
    pool.shutdown()


def test_shutdown_ends_idle_threads_refuses_calls_and_may_cancel_the_queued() -> None:
    pool = ElasticThreadPool(1, idle_seconds=PATIENCE)
    assert pool.submit(lambda: 1).result(PATIENCE) == 1
    eventually(lambda: pool.counts()["idle"] == 1)
    pool.shutdown(wait=False)
    eventually(lambda: pool.counts()["threads"] == 0)
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
    eventually(lambda: busy.counts()["threads"] == 0)


def test_gunicorns_worker_serves_connections_on_the_elastic_pool() -> None:
    server = Server({}, "127.0.0.1", 0, threads=123)
    worker = SocketWorker.__new__(SocketWorker)  # its pool, without a process of its own
    worker.cfg = server.cfg
    pool = worker.get_thread_pool()
    assert isinstance(pool, ElasticThreadPool) and pool.max_workers == 123
