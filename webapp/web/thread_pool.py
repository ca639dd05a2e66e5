"""The connection threads' pool: as many threads as connections, up to a bound, and an
idle thread ends after ``IDLE_SECONDS``.

gunicorn's gthread worker serves each connection on a thread of a
``concurrent.futures.ThreadPoolExecutor``, whose threads never end: after a crowd
(1,000 spectators, or a flood of connections opened and reset) the worker kept a
thousand idle threads and their memory for good (a churn of 300 connections at a
time left 1,335 threads and 296 MB behind it). Here a thread that has waited
``IDLE_SECONDS`` for a connection ends, and the next crowd starts threads again.

Only what gthread uses is here: ``submit`` (a ``Future`` with its done callbacks)
and ``shutdown``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

#: An idle thread ends after this many seconds without a connection to serve.
IDLE_SECONDS = 30.0


class ElasticThreadPool:
    """Runs each submitted call on an idle thread, or a new one (at most ``max_workers``;
    past it the call waits its turn); idle threads end after ``idle_seconds``."""

    def __init__(self, max_workers: int, idle_seconds: float = IDLE_SECONDS) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self.max_workers, self.idle_seconds = max_workers, idle_seconds
        self._lock = threading.Lock()
        self._calls: deque[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = deque()
        # One lock per idle thread, held until a call (or the shutdown) releases it: a
        # thread woken is told so exactly, even when its wait times out at that moment.
        self._idle: deque[threading.Lock] = deque()
        self._threads = 0  # alive
        self._started = 0  # in all
        self._shut = False

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot submit after shutdown")
            self._calls.append((future, fn, args))
            if self._idle:
                self._idle.popleft().release()  # an idle thread takes it
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
            raise
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No more calls; each thread ends once the calls queued are done (``cancel_futures``:
        those not started are cancelled). gthread never waits (``wait`` is ignored)."""
        with self._lock:
            self._shut = True
            if cancel_futures:
                while self._calls:
                    self._calls.popleft()[0].cancel()
            while self._idle:
                self._idle.popleft().release()

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
        while True:
            call = self._next()
            if call is None:
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

    def _next(self) -> tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None:
        """The next call to run, after waiting idle if none is queued; None: this thread
        ends (idle ``idle_seconds``, or shut down with nothing left)."""
        while True:
            with self._lock:
                if self._calls:
                    return self._calls.popleft()
                if self._shut:
                    self._threads -= 1
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
                return None
