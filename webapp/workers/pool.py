"""The search worker pool: engine searches in their own processes, never on a handler's thread.

Each worker is a process started with the "spawn" method (it inherits none of
the server's threads or sockets), imports the engine and warms it up once, then
runs one search at a time. The server keeps a FIFO of waiting jobs and hands
the next one to whichever worker reports back first. Every message from the
workers (ready, a completed depth, a result) comes back on one queue, read by
one relay thread that calls the pool's callbacks.

Cancelling: each worker owns a ``multiprocessing.Event`` that ``search()``
polls. The server clears it before handing that worker its next job, so a
cancel can never leak into the following search. Results and progress of a
cancelled job are dropped here; callers never see them.

The worker's own loop is in ``worker.py``; neither imports Flask.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from itertools import count
from multiprocessing.context import SpawnProcess
from multiprocessing.synchronize import Event as EventType
from typing import Any

from webapp.engine.search import Limits
from webapp.workers.worker import PARENT_CHECK_SECONDS, worker_main

log = logging.getLogger(__name__)

#: Replacements for dead workers before the pool gives up on them (a crash loop).
MAX_RESTARTS = 5
#: Seconds close() gives the workers to finish their searches and exit before killing them.
SHUTDOWN_SECONDS = 5.0

_context = multiprocessing.get_context("spawn")


class Priority(IntEnum):
    """Which work runs first."""

    ENGINE = 0  # a player's engine move: the critical path
    SCORES = 1  # display work for a player's own game; dropped under load
    ANALYSIS = 2  # an analysis someone asked for


@dataclass(eq=False)  # a job is itself: two searches of one position are two jobs
class SearchJob:
    """One search to run. ``tag`` is the caller's and never leaves this process."""

    game: str
    moves: str
    algorithm: str
    limits: Limits
    seed: int | None = None
    tag: Any = None
    move_scores: bool = True
    priority: Priority = Priority.ENGINE
    owner: str = ""
    game_id: str = ""
    id: int = 0  # given by SearchPool.submit
    cancelled: bool = field(default=False, repr=False)
    dropped: bool = field(default=False, repr=False)

    def task(self) -> tuple[Any, ...]:
        """What is sent to a worker (plain, picklable values)."""
        limits = self.limits
        return (
            self.id,
            self.game,
            self.moves,
            self.algorithm,
            asdict(limits),
            self.seed,
            self.move_scores,
        )


class PoolBusy(RuntimeError):
    """The queue of waiting searches is full."""


ProgressCallback = Callable[[SearchJob, dict[str, Any]], None]
ResultCallback = Callable[[SearchJob, dict[str, Any] | None, str | None], None]
QueuedCallback = Callable[[SearchJob, int], None]


def _ignore(*_: Any) -> None:
    return None


class SearchPool:
    """``workers`` search processes behind a FIFO of at most ``queue_limit`` waiting jobs.

    Callbacks run on the relay thread: ``on_progress(job, progress)`` for each
    completed depth, ``on_result(job, result, error)`` once per job that was
    not cancelled (``result`` is ``SearchResult.to_dict()``, or None with an
    error message), ``on_queued(job, position)`` when a job waits (1 = next).
    """

    def __init__(
        self,
        workers: int = 2,
        queue_limit: int = 16,
        *,
        warm_up: bool = True,
        on_progress: ProgressCallback = _ignore,
        on_result: ResultCallback = _ignore,
        on_queued: QueuedCallback = _ignore,
    ) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.size, self.queue_limit, self.warm_up = workers, queue_limit, warm_up
        self.on_progress, self.on_result, self.on_queued = on_progress, on_result, on_queued
        self._lock = threading.Lock()
        self._ids = count(1)
        self._waiting: deque[SearchJob] = deque()
        self._jobs: dict[int, SearchJob] = {}
        self._running: dict[int, SearchJob] = {}  # worker index -> job
        self._idle: list[int] = []
        self._results: Any = _context.Queue()
        self._tasks: list[Any] = []
        self._cancels: list[EventType] = []
        self._processes: list[SpawnProcess] = []
        self._relay_done = threading.Event()
        self._restarts = 0
        self._ready_count = 0
        self._closed = False

    # -- life cycle ---------------------------------------------------------------
    def start(self, start_thread: Callable[..., Any] | None = None) -> None:
        """Spawn the workers and the relay thread (``start_thread(fn)`` runs fn on a thread)."""
        for index in range(self.size):
            self._tasks.append(None)
            self._cancels.append(_context.Event())
            self._processes.append(None)  # type: ignore[arg-type]
            self._spawn(index)
        if start_thread is None:
            threading.Thread(target=self._relay_loop, name="search-relay", daemon=True).start()
        else:
            start_thread(self._relay_loop)

    def _spawn(self, index: int) -> None:
        old = self._tasks[index]
        if old is not None:  # a dead worker's queue
            old.close()
            old.cancel_join_thread()
        self._tasks[index] = _context.Queue()
        self._cancels[index].clear()
        process = _context.Process(
            target=worker_main,
            args=(index, self._tasks[index], self._results, self._cancels[index], self.warm_up),
            name=f"lookahead-search-{index}",
            daemon=True,
        )
        process.start()
        self._processes[index] = process

    def close(self) -> None:
        """Stop every worker (cancelling its search) and the relay thread. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._waiting.clear()
        for cancel in self._cancels:
            cancel.set()
        for tasks in self._tasks:
            tasks.put(None)
        deadline = time.monotonic() + SHUTDOWN_SECONDS
        for process in self._processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
            process.close()
        self._results.put(None)
        self._relay_done.wait(SHUTDOWN_SECONDS)
        for q in [*self._tasks, self._results]:
            q.close()
            q.join_thread()

    # -- jobs ---------------------------------------------------------------------
    def has_room(
        self, priority: Priority = Priority.ENGINE, owner: str = "", game_id: str = ""
    ) -> bool:
        """True when a new job would start or wait rather than be refused."""
        with self._lock:
            return not self._closed and (bool(self._idle) or len(self._waiting) < self.queue_limit)

    def stats(self) -> dict[str, Any]:
        """What the health check reports: workers alive and busy, jobs waiting."""
        with self._lock:
            alive = sum(1 for process in self._processes if process.is_alive())
            return {
                "workers": self.size,
                "alive": alive,
                "busy": len(self._running),
                "queued": len(self._waiting),
                "closed": self._closed,
            }

    def wait_ready(self, timeout: float) -> bool:
        """Wait until every worker has started (and warmed up); False on timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self._ready_count >= self.size:
                    return True
            time.sleep(0.02)
        return False

    def submit(self, job: SearchJob) -> int:
        """Queue ``job`` and return its id; raise PoolBusy if the queue is full."""
        with self._lock:
            if self._closed:
                raise PoolBusy("the search pool is shut down")
            if not self._idle and len(self._waiting) >= self.queue_limit:
                raise PoolBusy("every search worker is busy and the queue is full")
            job.id = next(self._ids)
            self._jobs[job.id] = job
            self._waiting.append(job)
            position = len(self._waiting)
            self._dispatch()
            waiting = job in self._waiting
        if waiting:
            self.on_queued(job, position)
        return job.id

    def position(self, job_id: int) -> int | None:
        """A waiting job's place in the queue (1 = next), or None if it is not waiting."""
        with self._lock:
            for place, job in enumerate(self._waiting, start=1):
                if job.id == job_id:
                    return place
        return None

    def cancel(self, job_id: int) -> None:
        """Forget a job: drop it from the queue or stop its search. Unknown ids are ignored."""
        moved: list[SearchJob] = []
        with self._lock:
            job = self._jobs.pop(job_id, None)
            if job is None:
                return
            job.cancelled = True
            if job in self._waiting:
                self._waiting.remove(job)
                moved = list(self._waiting)
            for index, running in self._running.items():
                if running is job:
                    self._cancels[index].set()
        for position, waiting in enumerate(moved, start=1):
            self.on_queued(waiting, position)

    def _dispatch(self) -> None:
        """Hand waiting jobs to idle workers (the caller holds the lock)."""
        while self._idle and self._waiting:
            index = self._idle.pop(0)
            job = self._waiting.popleft()
            self._cancels[index].clear()
            self._running[index] = job
            self._tasks[index].put(job.task())

    # -- the relay thread -------------------------------------------------------------
    def _relay_loop(self) -> None:
        try:
            self._relay_messages()
        finally:
            self._relay_done.set()

    def _relay_messages(self) -> None:
        while True:
            try:
                message = self._results.get(timeout=PARENT_CHECK_SECONDS)
            except queue.Empty:
                self._check_workers()
                continue
            except (OSError, ValueError, EOFError):  # the queue was closed under us
                return
            if message is None:
                return
            try:
                self._handle(message)
            except Exception:  # a callback's bug must not stop every later search
                log.exception("search relay: handling %r failed", message[:3])

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind, index = message[0], message[1]
        if kind == "progress":
            job = self._current(index, message[2])
            if job is not None:
                self.on_progress(job, message[3])
            return
        moved: list[SearchJob] = []
        finished: SearchJob | None = None
        with self._lock:
            if kind == "ready":
                self._ready_count += 1
            if kind in ("done", "failed"):
                job = self._running.pop(index, None)
                if job is not None and job.id == message[2] and not job.cancelled:
                    finished = job
                    self._jobs.pop(job.id, None)
            if not self._closed and index not in self._idle:
                self._idle.append(index)
            before = len(self._waiting)
            self._dispatch()
            if len(self._waiting) != before:
                moved = list(self._waiting)
        if finished is not None:
            if kind == "done":
                self.on_result(finished, message[3], None)
            else:
                self.on_result(finished, None, message[3])
        for position, waiting in enumerate(moved, start=1):
            self.on_queued(waiting, position)

    def _current(self, index: int, job_id: int) -> SearchJob | None:
        with self._lock:
            job = self._running.get(index)
        if job is None or job.id != job_id or job.cancelled:
            return None
        return job

    def _check_workers(self) -> None:
        """Replace a worker that died (its job, if any, fails)."""
        lost: list[SearchJob] = []
        with self._lock:
            if self._closed:
                return
            for index, process in enumerate(self._processes):
                if process.is_alive():
                    continue
                if process.exitcode is None:  # already given up on
                    continue
                log.error("search worker %d died (exit code %s)", index, process.exitcode)
                job = self._running.pop(index, None)
                if job is not None and not job.cancelled:
                    self._jobs.pop(job.id, None)
                    lost.append(job)
                if index in self._idle:
                    self._idle.remove(index)
                if self._restarts < MAX_RESTARTS * self.size:
                    self._restarts += 1
                    process.close()
                    self._spawn(index)
                else:
                    self._processes[index] = _GONE
            if all(process is _GONE for process in self._processes):
                lost.extend(self._waiting)
                self._waiting.clear()
                self._closed = True
        for job in lost:
            self.on_result(job, None, "the search worker stopped unexpectedly")


class _Gone:
    """Stands in for a worker that kept dying and was not replaced."""

    exitcode = None

    def is_alive(self) -> bool:
        return False

    def join(self, timeout: float | None = None) -> None:
        return None

    def close(self) -> None:
        return None


_GONE: Any = _Gone()
