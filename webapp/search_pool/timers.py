"""Delayed work on one thread: a heap of calls, each at its time (``Timers``).

An engine retry, an analysis sweep: each used to start a ``threading.Timer``
or a thread of its own (up to hundreds at start-up, when many games wait for a
retry). ``Timers`` keeps them in one heap served by one daemon thread, started
with the first call. A call should be short (it runs on that thread, the
others wait for it); a call that raises is logged and the thread goes on.
``shared()`` is the process's instance.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass(order=True)
class Delayed:
    """A call waiting for its time; ``cancel()`` and it never runs."""

    when: float
    seq: int
    call: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True
        self.call = _nothing  # what it would have called (and all it holds) goes now


def _nothing() -> None:
    return None


class Timers:
    """Calls at their time, in time order, on one thread (see the module docstring)."""

    def __init__(self, name: str = "timers", clock: Callable[[], float] = time.monotonic) -> None:
        self.name, self.clock = name, clock
        self._changed = threading.Condition()
        self._heap: list[Delayed] = []
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False

    def call_later(self, delay: float, call: Callable[[], None]) -> Delayed:
        """Run ``call()`` in ``delay`` seconds (never, once closed or cancelled)."""
        delayed = Delayed(self.clock() + max(0.0, delay), next(self._seq), call)
        with self._changed:
            if self._closed:
                delayed.cancel()
                return delayed
            heapq.heappush(self._heap, delayed)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
            elif self._heap[0] is delayed:  # due sooner than what the thread waits for
                self._changed.notify()
        return delayed

    def wake(self) -> None:
        """Make the thread look at the clock again now (a clock of a test's, moved on: the
        thread sleeps until the first call's time, and is woken only for an earlier one)."""
        with self._changed:
            self._changed.notify()

    def pending(self) -> int:
        """Calls waiting, not cancelled."""
        with self._changed:
            return sum(not delayed.cancelled for delayed in self._heap)

    def alive(self) -> bool:
        """False if the thread has died while calls wait (a bug: it is started again with
        the next ``call_later``)."""
        with self._changed:
            thread, waiting = self._thread, bool(self._heap)
        return not waiting or (thread is not None and thread.is_alive())

    def close(self) -> None:
        """Run nothing more (a call running now ends on its own)."""
        with self._changed:
            self._closed = True
            self._heap.clear()
            self._changed.notify_all()

    def _loop(self) -> None:
        while True:
            with self._changed:
                while not self._closed:
                    if self._heap and self._heap[0].cancelled:
                        heapq.heappop(self._heap)
                        continue
                    wait = self._heap[0].when - self.clock() if self._heap else None
                    if wait is not None and wait <= 0:
                        break
                    self._changed.wait(wait)
                if self._closed:
                    return
                due = heapq.heappop(self._heap)
            try:
                due.call()
            except Exception:  # one call's bug must not end the others
                log.exception("%s: a delayed call failed", self.name)


_shared: Timers | None = None
_shared_lock = threading.Lock()


def shared() -> Timers:
    """The process's timers (made on first use)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Timers()
        return _shared
