"""Calling the pool's callbacks: in order, on the relay thread, outside the pool's lock.

What happens (a depth done, a result, a job shed) is queued under the pool's
lock by whichever thread saw it, and called later by the relay thread with
no lock of the pool held, so a callback may ``submit`` or ``cancel``. Places
in the queue are reported last, as differences from the places reported
before, so a burst of changes costs one pass over the waiting jobs.

Shutdown: ``shut()`` waits for a callback that is running to return, then no
callback is ever called again. That is what guarantees that a search cut
short by ``close()`` is never reported, so it can never be committed.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from webapp.search_pool.jobs import SearchJob
from webapp.search_pool.scheduler import Scheduler

log = logging.getLogger(__name__)


class Callbacks:
    """The queue of callbacks to call for ``target`` (its ``on_progress``, ``on_result``...)."""

    def __init__(self, lock: threading.Lock, scheduler: Scheduler, target: Any) -> None:
        self._lock, self._scheduler, self._target = lock, scheduler, target
        self._gate = threading.RLock()  # held while callbacks run; shut() takes it to end them
        self._events: deque[tuple[str, tuple[Any, ...]]] = deque()
        self._places: dict[int, int] = {}  # job id -> the place last reported
        self._places_seen = -1  # the scheduler's change count when places were last reported
        self.shut_down = False

    def put(self, kind: str, job: SearchJob, *args: Any) -> None:
        """Queue ``on_<kind>(job, *args)`` (the caller holds the pool's lock)."""
        self._events.append((kind, (job, *args)))

    def forget(self, job_id: int) -> None:
        """The job no longer waits (the caller holds the pool's lock)."""
        self._places.pop(job_id, None)

    def shut(self, timeout: float) -> bool:
        """Call no callback from now on; False if one still ran after ``timeout`` seconds."""
        gated = self._gate.acquire(timeout=timeout)
        self.shut_down = True
        if gated:
            self._gate.release()
        with self._lock:
            self._events.clear()
        return gated

    def deliver(self) -> None:
        """Call what was queued, in order, then report changed places (relay thread only)."""
        with self._gate:
            while not self.shut_down:
                with self._lock:
                    batch = list(self._events)
                    self._events.clear()
                    if not batch:
                        batch = [("queued", change) for change in self._place_changes()]
                if not batch:
                    return
                for kind, args in batch:
                    job: SearchJob = args[0]
                    if self.shut_down:
                        return
                    if job.cancelled:
                        continue
                    try:
                        getattr(self._target, f"on_{kind}")(*args)
                    except Exception:  # a callback's bug must not stop the relay
                        log.exception("search pool: on_%s failed for job %d", kind, job.id)

    def _place_changes(self) -> list[tuple[SearchJob, int]]:
        """Waiting jobs whose place differs from the one last reported (the lock is held)."""
        if self._scheduler.changes == self._places_seen:
            return []
        self._places_seen = self._scheduler.changes
        order = self._scheduler.order()
        changed = [
            (job, place)
            for place, job in enumerate(order, start=1)
            if self._places.get(job.id) != place
        ]
        self._places = {job.id: place for place, job in enumerate(order, start=1)}
        return changed
