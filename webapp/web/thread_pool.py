"""The connection threads' pool: as many threads as connections, up to a bound, and an
idle thread ends after ``IDLE_SECONDS``.

gunicorn's gthread worker serves each connection on a thread of a
``concurrent.futures.ThreadPoolExecutor``, whose threads never end: after a crowd
(1,000 spectators, or a flood of connections opened and reset) the worker kept a
thousand idle threads and their memory for good (a churn of 300 connections at a
time left 1,335 threads and 296 MB behind it). Here a thread that has waited
``IDLE_SECONDS`` for a connection ends, and the next crowd starts threads again.

Only what gthread uses is here: ``submit`` (positional arguments; a ``Future`` with
its done callbacks) and ``shutdown``. The threads are daemons: a worker that exits
(its WebSockets closed first, ``server.SocketWorker``) does not wait for them.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

#: An idle thread ends after this many seconds without a connection to serve.
IDLE_SECONDS = 30.0

Call = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class ElasticThreadPool:
    """Runs each submitted call on an idle thread, or a new one (at most ``max_workers``;
    past it the call waits its turn); idle threads end after ``idle_seconds``.

    The thread idle the shortest takes the next call, so under a light, steady load the
    threads a crowd left behind still reach their ``idle_seconds`` and end."""

    def __init__(self, max_workers: int, idle_seconds: float = IDLE_SECONDS) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self.max_workers, self.idle_seconds = max_workers, idle_seconds
        self._lock = threading.Lock()
        self._ended = threading.Condition(self._lock)  # a thread ended (for ``shutdown``)
        self._calls: deque[Call] = deque()
        # One lock per idle thread, held until a call (or the shutdown) releases it: a
        # thread woken is told so exactly, even when its wait times out at that moment.
        self._idle: deque[threading.Lock] = deque()
        self._threads = 0  # alive
        self._started = 0  # in all
        self._shut = False
        self._mine = threading.local()  # set on the pool's own threads

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        call = (future, fn, args)
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot submit after shutdown")
            self._calls.append(call)
            if self._idle:
                self._idle.pop().release()  # the thread idle the shortest takes it
                return future
            if self._threads >= self.max_workers:
                return future  # it waits for a thread to finish its call
            self._threads += 1
            self._started += 1
        try:
            threading.Thread(target=self._work, name="connection", daemon=True).start()
        except BaseException:
            with self._lock:
                self._threads -= 1
                self._ended.notify_all()
                try:
                    self._calls.remove(call)  # never run: the caller is told it failed
                except ValueError:
                    return future  # a thread took it meanwhile: it runs, as accepted
            raise
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No more calls; each thread ends once the calls queued are done (``cancel_futures``:
        those not started are cancelled). ``wait``: until every thread has ended (gthread
        does not wait; a pool thread never waits for itself)."""
        with self._lock:
            self._shut = True
            if cancel_futures:
                while self._calls:
                    self._calls.popleft()[0].cancel()
            while self._idle:
                self._idle.popleft().release()
            if wait and not getattr(self._mine, "pool", False):
                while self._threads:
                    self._ended.wait()

    def counts(self) -> dict[str, int]:
        """Threads alive, idle and started in all; calls waiting for a thread."""
        with self._lock:
            return {
                "threads": self._threads,
                "idle": len(self._idle),
                "started": self._started,
                "waiting": len(self._calls),
            }

    def _work(self) -> None:
        self._mine.pool = True
        counted_out = False
        try:
            while True:
                call = self._next()
                if call is None:
                    counted_out = True  # by ``_next``
                    return
                future, fn, args = call
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    result = fn(*args)
                except BaseException as err:
                    future.set_exception(err)
                else:
                    future.set_result(result)
                del call, future, fn, args  # a connection's objects go with its call
        finally:
            if not counted_out:  # a done callback raised past ``Future`` (SystemExit)
                with self._lock:
                    self._threads -= 1
                    self._ended.notify_all()

    def _next(self) -> Call | None:
        """The next call to run, after waiting idle if none is queued; None: this thread
        is counted out and ends (idle ``idle_seconds``, or shut down with nothing left)."""
        while True:
            with self._lock:
                if self._calls:
                    return self._calls.popleft()
                if self._shut:
                    self._threads -= 1
                    self._ended.notify_all()
                    return None
                waiter = threading.Lock()
                waiter.acquire()
                self._idle.append(waiter)
            if waiter.acquire(timeout=self.idle_seconds):
                continue  # woken by a call (another thread may have run it: wait again)
            with self._lock:
                try:
                    self._idle.remove(waiter)
                except ValueError:
                    continue  # a call woke it as it timed out: go and take it
                self._threads -= 1
                self._ended.notify_all()
                return None
