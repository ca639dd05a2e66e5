"""Calling the pool's callbacks: in order, on the relay thread, outside the pool's lock.

What happens (a depth done, a result, a job shed) is queued under the pool's
lock by whichever thread saw it, and called later by the relay thread with
no lock of the pool held, so a callback may ``submit`` or ``cancel``. Places
in the queue are reported last, as differences from the places reported
before, so a burst of changes costs one pass over the waiting jobs. A job's
place is first told once it has waited ``NOTICE_SECONDS``: a shorter wait
ends before a page could show it, and a crowd of quick moves (each waiting a
few milliseconds behind another) then costs no notices at all.

Shutdown: ``shut()`` waits for a callback that is running to return, then no
callback is ever called again. That is what guarantees that a search cut
short by ``close()`` is never reported, so it can never be committed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any

from webapp.search_pool.jobs import SearchJob
from webapp.search_pool.scheduler import Scheduler

log = logging.getLogger(__name__)

#: Seconds a job waits before its place is first told (then every change is told).
NOTICE_SECONDS = 0.25


class Callbacks:
    """The queue of callbacks to call for ``target`` (its ``on_progress``, ``on_result``...)."""

    def __init__(self, lock: threading.Lock, scheduler: Scheduler, target: Any) -> None:
        self._lock, self._scheduler, self._target = lock, scheduler, target
        self._gate = threading.RLock()  # held while callbacks run; shut() takes it to end them
        self._events: deque[tuple[str, tuple[Any, ...]]] = deque()
        self._places: dict[int, int] = {}  # job id -> the place last reported
        self._places_seen = -1  # the scheduler's change count when places were last reported
        self._notice_due: float | None = None  # when a waiting job's first place is due
        self.shut_down = False

    def put(self, kind: str, job: SearchJob, *args: Any) -> None:
        """Queue ``on_<kind>(job, *args)`` (the caller holds the pool's lock)."""
        self._events.append((kind, (job, *args)))

    def pending(self) -> bool:
        """Callbacks are queued, not called yet (the caller holds the pool's lock)."""
        return bool(self._events)

    def notice_due(self) -> float | None:
        """When (``time.monotonic``) a waiting job's place is first due to be told, if one
        is to be (the caller holds the pool's lock): the relay is awake by then."""
        return self._notice_due

    def put_place(self, job: SearchJob, place: int) -> None:
        """Tell ``job``'s new place outside the queue (sent ahead into a worker's pipe),
        if its place was told before: one never told runs before it would be (the caller
        holds the pool's lock)."""
        if job.id in self._places:
            self.put("queued", job, place)

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
        """Waiting jobs whose place differs from the one last reported, of those told
        before or waiting ``NOTICE_SECONDS`` already (the lock is held)."""
        now = time.monotonic()
        due = self._notice_due
        if self._scheduler.changes == self._places_seen and (due is None or now < due):
            return []
        self._places_seen = self._scheduler.changes
        places: dict[int, int] = {}
        changed: list[tuple[SearchJob, int]] = []
        due = None
        for place, job in enumerate(self._scheduler.order(), start=1):
            first_told = job.submitted + NOTICE_SECONDS
            if job.id not in self._places and first_told > now:
                due = first_told if due is None else min(due, first_told)
                continue
            places[job.id] = place
            if self._places.get(job.id) != place:
                changed.append((job, place))
        self._places, self._notice_due = places, due
        return changed
