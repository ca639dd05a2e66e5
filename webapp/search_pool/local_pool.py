"""The search worker pool: engine searches in their own processes, scheduled, and kept alive.

Each worker is a process started with the "spawn" method (it inherits none of
the server's threads or sockets) that runs one job at a time and talks to
the server over a pipe of its own. A job is a search (the pool's search
function) or a trace for the search explorer (its trace function): the kind
travels with the task and changes nothing else here. Waiting jobs sit in the ``Scheduler``
(priority classes, turns between owners, bounds); whenever a worker is free
the most urgent job goes to it. The first ``reserve`` workers take engine
moves only (while others exist); the others take any work and run at a lower
OS priority (``lesser_nice``), so analyses yield the CPU to play. At most
``workers - reserve`` workers (at least one) do anything but engine moves,
and when an engine move waits while no worker is free (the reserved ones busy
with other moves, or none), a lesser search is preempted: cancelled in its
worker and put back at the front of its class, its outcome discarded.
Short engine moves (``short``) may go ahead into the pipe of a worker running
another (``Slot.ahead``, up to ``AHEAD_RUNS``): the worker reads the next the
moment it has sent a result, without waiting for the relay thread to hand it
one (under a crowd, the relay waits its turn for the interpreter among hundreds
of threads).

One relay thread waits on every worker's pipe and process at once: it reads
progress and results, notices a dead worker the moment its process ends,
replaces it after a backoff (``restarts.py``), and calls the callbacks. A job
whose worker died while running it fails (``WORKER_DIED``: its caller may
retry); one whose worker died before taking it is run again, once. Every
callback runs on that thread, outside the pool's lock, and never after
``close()`` has begun: a search cut short by shutdown is never reported, so it
can never be committed as a move.

Cancelling goes through lock-free shared memory (``cancel.py``) so that a
worker killed at any instant cannot wedge the server; a search that ignores
its flag for ``cancel_grace`` seconds has its worker killed and replaced (not
counted as a crash), so neither a cancel nor a preemption can be ignored.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable
from itertools import count
from multiprocessing.reduction import ForkingPickler
from typing import Any

from webapp.engine.search import Limits
from webapp.search_pool.callbacks import Callbacks
from webapp.search_pool.cancel import shared_int
from webapp.search_pool.dispatch import Dispatcher, SerialExecutor, label_of
from webapp.search_pool.jobs import (
    DROPPED,
    MAX_PREEMPTIONS,
    SEARCH,
    WORKER_DIED,
    PoolBusy,
    Priority,
    ProgressCallback,
    QueuedCallback,
    ResultCallback,
    SearchJob,
)
from webapp.search_pool.process import STREAM_AFTER, Task
from webapp.search_pool.readiness import Readiness, readable
from webapp.search_pool.restarts import CrashTracker
from webapp.search_pool.scheduler import Scheduler
from webapp.search_pool.slots import CONTEXT, LIVE, Run, Slot, State, stop_workers
from webapp.search_pool.timing import Timings

log = logging.getLogger(__name__)

#: Seconds close() gives the workers to stop (and a busy callback to return) before killing them.
SHUTDOWN_SECONDS = 5.0
#: Longest the relay sleeps without looking at the time (respawns, the end of a crash loop).
RELAY_TICK = 1.0
#: Messages read from one worker's pipe before the relay looks at the others.
BATCH = 64
#: The search function a worker runs unless told otherwise, and its trace function.
DEFAULT_SEARCH = "webapp.search_pool.process:run_search"
DEFAULT_TRACE = "webapp.search_pool.process:run_trace"
#: OS niceness of the workers past the reserved ones (they take analyses and scores).
LESSER_NICE = 10
#: A search to at most this depth is short (an Easy or Medium move: milliseconds; its
#: time budget is only the server's cap):
#: one may go ahead into the pipe of a worker running another (``_send_ahead``).
AHEAD_DEPTH = 4
#: Short moves a worker may have waiting in its pipe behind its run: enough to keep it
#: busy while the relay thread waits for its turn, few enough that none waits long.
AHEAD_RUNS = 3


def short(job: SearchJob) -> bool:
    """An engine move whose search is bounded by a small depth (milliseconds)."""
    return (
        job.kind == SEARCH
        and job.priority == Priority.ENGINE
        and short_limits(job.limits)
        and not job.cancelled
    )


def short_limits(limits: Limits) -> bool:
    """Limits of a search bounded by a small depth (an engine move of milliseconds)."""
    return limits.depth is not None and limits.depth <= AHEAD_DEPTH


class SearchPool:
    """``workers`` search processes behind a priority scheduler.

    Callbacks (relay thread, never under the pool's lock, never once ``close()``
    has begun): ``on_progress(job, progress)`` per completed depth;
    ``on_result(job, result, error)`` exactly once per job the caller did not
    cancel (``result`` is ``SearchResult.to_dict()``, a trace's
    ``Trace.to_dict()``, or None with an error:
    the search's exception, ``WORKER_DIED`` or ``DROPPED``);
    ``on_queued(job, place)`` when a job waits or its place changes (1 = next).
    A callback may call ``submit`` and ``cancel``. Do not call ``close()``
    while holding a lock a callback takes: close waits for a running callback
    (up to ``SHUTDOWN_SECONDS``).
    """

    #: A short search (``short``) that waits for no worker here answers in milliseconds,
    #: and one that does wait is told (``on_queued``): the game service may keep the state
    #: of the move that asked for it and send it with the reply (``Searches``).
    quick_replies = True

    def __init__(
        self,
        workers: int = 2,
        queue_limit: int = 2000,
        *,
        warm_up: bool = True,
        search_fn: str = DEFAULT_SEARCH,
        trace_fn: str = DEFAULT_TRACE,
        owner_limit: int = 32,
        game_limit: int = 8,
        reserve: int = 1,
        lesser_nice: int = LESSER_NICE,
        stream_after: float = STREAM_AFTER,
        scores_limit: int | None = None,
        analysis_limit: int | None = None,
        restart_backoff: tuple[float, float] = (0.5, 30.0),
        crash_window: float = 60.0,
        crash_loop: int = 5,
        cancel_grace: float = 3.0,
        on_progress: ProgressCallback | None = None,
        on_result: ResultCallback | None = None,
        on_queued: QueuedCallback | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.size, self.warm_up, self.search_fn, self.reserve = workers, warm_up, search_fn, reserve
        self.trace_fn = trace_fn
        self.lesser_nice, self.stream_after = lesser_nice, stream_after
        self.cancel_grace = cancel_grace
        # Results are applied off the relay thread, a game's in order (``dispatch.py``);
        # callbacks given here replace the dispatcher's.
        self.timings = Timings()  # where each kind of job's time goes (``timing.py``)
        self.dispatch = Dispatcher(SerialExecutor(name="search-results"), self.timings)
        self.on_progress = on_progress or self.dispatch.on_progress
        self.on_result = on_result or self.dispatch.on_result
        self.on_queued = on_queued or self.dispatch.on_queued
        scores = 2 * workers if scores_limit is None else scores_limit
        self._scheduler = Scheduler(queue_limit, owner_limit, game_limit, scores, analysis_limit)
        self._crashes = CrashTracker(workers, restart_backoff, crash_window, crash_loop)
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._callbacks = Callbacks(self._lock, self._scheduler, self)
        self._ids, self._run_ids = count(1), count(1)
        self._jobs: dict[int, SearchJob] = {}  # waiting or running, not cancelled
        self._retried: set[int] = set()  # jobs requeued because their worker died before them
        self._closing_flag = shared_int(CONTEXT)
        self._slots = [
            Slot(index, shared_int(CONTEXT), shared_int(CONTEXT)) for index in range(workers)
        ]
        self._wake_in, self._wake_out = socket.socketpair()
        self._readiness = Readiness()  # the relay's alone
        self._wake_in.setblocking(False)
        self._wake_out.setblocking(False)
        self._relay_started, self._relay_ident = False, -1
        self._relay_done = threading.Event()
        self._relay_thread: threading.Thread | None = None  # when we started it ourselves
        self._closed = False  # set under the lock
        self._restarts = 0
        self._preempted = self._ahead = 0  # lesser searches stopped for moves; moves piped
        self._loop_logged = False

    # -- life cycle ---------------------------------------------------------------------
    def start(self, start_thread: Callable[..., Any] | None = None) -> None:
        """Spawn the workers and the relay thread (``start_thread(fn)`` runs fn on a thread)."""
        with self._lock:
            if self._closed or self._relay_started:
                raise RuntimeError("a pool starts once, before it is closed")
            self._relay_started = True
            for slot in self._slots:
                self._spawn(slot)
        if start_thread is None:
            self._relay_thread = threading.Thread(
                target=self._relay_loop, name="search-relay", daemon=True
            )
            self._relay_thread.start()
        else:
            start_thread(self._relay_loop)

    def wait_ready(self, timeout: float) -> bool:
        """Wait until every worker has started (and warmed up); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._ready:
            while not all(slot.state in (State.IDLE, State.BUSY) for slot in self._slots):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    return False
                self._ready.wait(remaining)
        return True

    def close(self) -> None:
        """Abandon every search (none is reported), stop the workers and the relay. Idempotent."""
        if not self._callbacks.shut(SHUTDOWN_SECONDS):
            log.warning("search pool: closing while a callback still runs")
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._scheduler.clear()
            self._jobs.clear()
            self._retried.clear()
            self._ready.notify_all()
        self._closing_flag.value = 1  # every running search stops
        self._wake()
        if self._relay_started and threading.get_ident() != self._relay_ident:
            self._relay_done.wait(SHUTDOWN_SECONDS)
            if self._relay_thread is not None:
                self._relay_thread.join(SHUTDOWN_SECONDS)
        self.dispatch.close()
        stop_workers(self._slots, SHUTDOWN_SECONDS)
        self._wake_in.close()
        self._wake_out.close()

    # -- jobs -----------------------------------------------------------------------------
    def submit(self, job: SearchJob) -> int:
        """Queue ``job`` and return its id; raise PoolBusy past a bound (or once closed)."""
        with self._lock:
            if self._closed:
                raise PoolBusy("the search pool is shut down")
            reason = self._scheduler.refusal(job.priority, job.owner, job.game_id)
            if reason is not None:
                raise PoolBusy(reason)
            job.id = next(self._ids)
            job.submitted = time.monotonic()
            self._jobs[job.id] = job
            shed = self._scheduler.add(job)
            if shed is not None:
                self._forget(shed)
                self._callbacks.put("result", shed, None, DROPPED)
            self._dispatch()
            wake = self._relay_needed()
        self._send_handed()
        if wake:
            self._wake()
        return job.id

    def has_room(
        self, priority: Priority = Priority.ENGINE, owner: str = "", game_id: str = ""
    ) -> bool:
        """True when ``submit`` of such a job would be accepted now."""
        with self._lock:
            return not self._closed and self._scheduler.refusal(priority, owner, game_id) is None

    def sheds(self, priority: Priority, count: int = 1) -> bool:
        """True when ``count`` jobs of that class submitted now would shed others that wait."""
        with self._lock:
            return self._scheduler.sheds(priority, count)

    def position(self, job_id: int) -> int | None:
        """A waiting job's place, or None if it is not waiting: in the queue (1 = next
        to be handed to a worker), or in the pipe of the worker it was sent ahead to
        (1 = next after the worker's run)."""
        with self._lock:
            for slot in self._slots:  # sent ahead: waiting in a pipe, after its run
                for place, run in enumerate(slot.ahead, start=1):
                    if run.job.id == job_id:
                        return place
            for place, job in enumerate(self._scheduler.order(), start=1):
                if job.id == job_id:
                    return place
        return None

    def depths(self, game_id: str, moves: str) -> list[dict[str, Any]]:
        """None kept here: one server's service keeps the depths of its own searches."""
        return []

    def cancel(self, job_id: int) -> None:
        """Forget a job: drop it from the queue or stop its search. Unknown ids are ignored."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return
            self._forget(job)
            job.cancelled = True
            self._callbacks.forget(job_id)
            if not self._scheduler.remove(job):
                for slot in self._slots:
                    if slot.run is not None and slot.run.job is job and not slot.run.aborting:
                        self._stop(slot)
                    # one sent ahead is stopped when it comes up (``_handle``), unreported
            wake = self._relay_needed()
        if wake:
            self._wake()

    def stats(self) -> dict[str, Any]:
        """What the health check reports: workers alive and busy, jobs waiting per class."""
        with self._lock:
            return {
                "workers": self.size,
                "alive": sum(1 for slot in self._slots if slot.state in LIVE),
                "busy": sum(1 for slot in self._slots if slot.run is not None),
                "queued": {
                    priority.name.lower(): self._scheduler.waiting(priority)
                    for priority in Priority
                },
                "restarts": self._restarts,
                "preempted": self._preempted,
                "sent_ahead": self._ahead,
                "crash_loop": self._crashes.crash_loop(),
                "closed": self._closed,
                "timings": self.timings.snapshot(),
            }

    # -- scheduling (the caller holds the lock) -----------------------------------------
    def _relay_needed(self) -> bool:
        """After a submit or a cancel: must the relay thread look now, rather than at the
        workers' next message or its own tick? Only when a callback is queued (a job
        shed), a job waits (its place is told on time, ``callbacks.NOTICE_SECONDS``) or a
        search was told to stop (killed if it ignores that). A job handed straight to a
        worker needs no relay: a crowd's moves then wake it once a result, not twice."""
        return (
            self._callbacks.pending()
            or self._scheduler.waiting() > 0
            or any(slot.run is not None and slot.run.stop_by for slot in self._slots)
        )

    def _dispatch(self) -> None:
        """Hand waiting jobs to idle workers, then preempt for a waiting engine move."""
        if self._closed:
            return
        for slot in self._slots:
            if slot.state is State.IDLE:
                job = self._next_job(slot)
                if job is None:
                    continue  # a worker kept for engine moves may be passed over
                self._start_run(slot, job)
        self._send_ahead()
        self._preempt()

    def _plays_only(self, slot: Slot) -> bool:
        """A worker kept for engine moves (while there are others for the rest)."""
        return slot.index < self.reserve < self.size

    def _next_job(self, slot: Slot) -> SearchJob | None:
        job = self._scheduler.pop(Priority.ENGINE)
        if job is not None or self._plays_only(slot):
            return job
        lesser = sum(
            1 for slot in self._slots if slot.run and slot.run.job.priority != Priority.ENGINE
        )
        if lesser >= max(1, self.size - self.reserve):
            return None
        return self._scheduler.pop(Priority.SCORES) or self._scheduler.pop(Priority.ANALYSIS)

    def _send_ahead(self) -> None:
        """Behind a worker's short engine move, send the next short ones into its pipe
        (``AHEAD_RUNS`` at most, the workers taking turns).

        Under a crowd of quick moves a worker then never waits for the relay thread
        between two of them (a busy server's relay is slow to get its turn): it reads
        the next task as soon as it has sent a result. Only short searches go ahead
        (``short``), so no move waits long behind others in a pipe.
        """
        for depth in range(AHEAD_RUNS):
            for slot in self._slots:
                run = slot.run
                if slot.state is not State.BUSY or len(slot.ahead) != depth or run is None:
                    continue
                if run.freeing or not short(run.job):
                    continue
                waiting = self._scheduler.peek(Priority.ENGINE)
                if waiting is None or not short(waiting):
                    return
                self._scheduler.pop(Priority.ENGINE, ahead=True)  # counted until it starts
                self._start_run(slot, waiting, ahead=True)
                self._ahead += 1
                # It waits in the pipe now, after the runs before it: a page told its
                # place in the queue is told that one.
                self._callbacks.put_place(waiting, depth + 1)

    def _start_run(self, slot: Slot, job: SearchJob, ahead: bool = False) -> None:
        """Hand ``job`` to ``slot``'s worker (into its pipe behind its run: ``ahead``).

        The task is written into the pipe once the lock is let go (``_send_handed``):
        a pipe write lets the interpreter's lock go, and every thread that submits or
        reports would otherwise wait on the pool's lock behind it, each in turn waiting
        for the interpreter. A worker that died meanwhile never reads it: the relay
        buries the worker and its runs (``_bury``)."""
        run = Run(next(self._run_ids), job)
        assert slot.conn is not None
        # Pickled here, so that writing it can fail only as a pipe does (``_send_outbox``).
        slot.outbox.append((slot.conn, ForkingPickler.dumps(Task.of(run.id, job))))
        if ahead:
            slot.ahead.append(run)
        else:
            slot.run, slot.state = run, State.BUSY
        run.sent = time.monotonic()

    def _send_handed(self) -> None:
        """Write the tasks handed to workers into their pipes, each worker's in the order
        they were handed (the caller does not hold the lock).

        One thread at a time writes a worker's (``Slot.sending``); a thread that finds
        another writing leaves its tasks to it, and every writer looks again once it
        has let go, so no task is left behind."""
        for slot in self._slots:
            while slot.outbox:
                if not slot.sending.acquire(blocking=False):
                    break  # its writer sends them (it looks again after letting go)
                try:
                    self._send_outbox(slot)
                finally:
                    slot.sending.release()

    def _send_outbox(self, slot: Slot) -> None:
        """Write the slot's handed tasks (``Slot.sending`` held). A task for a pipe that is
        no longer the slot's (its worker died: ``_bury`` settled its run, and closes the
        pipe holding ``sending``) is dropped; a write that fails leaves the worker to the
        relay, which buries it."""
        while True:
            try:
                conn, task = slot.outbox.popleft()
            except IndexError:  # emptied (or cleared by ``_bury``)
                return
            if slot.conn is not conn:
                continue
            try:
                conn.send_bytes(task)  # what ``conn.send`` writes; the worker's recv reads it
            except Exception:  # it died under us (closed, broken): the relay buries it
                with self._lock:
                    if slot.conn is conn and slot.state is not State.DEAD:
                        slot.state = State.BROKEN

    def _preempt(self) -> None:
        """If an engine move waits and no worker is free (or freeing), stop a lesser search.

        Strict priority: a reply waits for no scores, pondering or analysis, also
        when the reserved workers are all busy with other replies (a crowd's burst).
        """
        if not self._scheduler.waiting(Priority.ENGINE):
            return
        live = [
            slot for slot in self._slots if slot.state in (State.STARTING, State.IDLE, State.BUSY)
        ]
        runs = [slot.run for slot in live if slot.run is not None]
        if not live or len(runs) < len(live):
            return
        if any(run.freeing for run in runs):
            return
        lesser = [run for run in runs if preemptible(run.job)]
        if not lesser:
            return
        victim = max(lesser, key=lambda run: (run.job.priority, run.id))  # least urgent, newest
        victim.job.preemptions += 1
        victim.aborting = True
        for slot in live:
            if slot.run is victim:
                self._stop(slot)
        self._scheduler.requeue(victim.job)
        self._preempted += 1
        log.info("search pool: job %d preempted for an engine move", victim.job.id)

    def _forget(self, job: SearchJob) -> None:
        """The job is settled (reported or cancelled): nothing keeps it any more."""
        self._jobs.pop(job.id, None)
        self._retried.discard(job.id)

    def _stop(self, slot: Slot) -> None:
        """Cancel the slot's run; the relay kills the worker if it has not stopped in time."""
        assert slot.run is not None
        slot.cancel.value = slot.run.id
        slot.run.stop_by = time.monotonic() + self.cancel_grace

    # -- the relay thread ---------------------------------------------------------------
    def _relay_loop(self) -> None:
        self._relay_ident = threading.get_ident()
        try:
            while True:
                try:
                    if not self._relay_once():
                        return
                except Exception:  # a bug here must not stop every later search
                    log.exception("search relay: an iteration failed")
                    self._relay_done.wait(RELAY_TICK / 20)  # and must not spin either
        finally:
            self._relay_done.set()

    def _relay_once(self) -> bool:
        with self._lock:
            if self._closed:
                return False
            waits: list[Any] = [self._wake_in]
            for slot in self._slots:
                if slot.conn is not None and slot.state is not State.BROKEN:
                    waits.append(slot.conn)
                if slot.process is not None:
                    waits.append(slot.process.sentinel)
            timeout = self._relay_timeout()
            # The chores below take the lock each: only when one may be due (a result's
            # pass does none of them).
            stopping = any(slot.run is not None and slot.run.stop_by for slot in self._slots)
            dead = any(slot.state is State.DEAD for slot in self._slots)
        ready = set(self._readiness.wait(waits, timeout))
        if self._wake_in in ready:
            self._drain_wake()
        for slot in self._slots:
            if slot.conn is not None and slot.conn in ready:
                self._receive(slot)
        buried = False
        for slot in self._slots:
            if slot.process is not None and slot.process.sentinel in ready:
                self._bury(slot)
                buried = True
        if stopping:
            self._kill_stubborn()
        if dead or buried:
            self._respawn_due()
        if dead or buried or self._loop_logged:
            self._report_crash_loop()
        self._callbacks.deliver()
        return True

    def _relay_timeout(self) -> float:
        now = time.monotonic()
        due = [slot.respawn_at - now for slot in self._slots if slot.state is State.DEAD]
        due += [
            slot.run.stop_by - now
            for slot in self._slots
            if slot.run and slot.run.stop_by and not slot.killed
        ]
        notice = self._callbacks.notice_due()
        if notice is not None:
            due.append(notice - now)
        return max(0.0, min([RELAY_TICK, *due]))

    def _kill_stubborn(self) -> None:
        """Kill a worker whose cancelled search ignored the flag past ``cancel_grace``."""
        now = time.monotonic()
        with self._lock:
            for slot in self._slots:
                run, process = slot.run, slot.process
                if run and run.stop_by and run.stop_by <= now and process and not slot.killed:
                    log.warning("search worker %d ignored a cancel: killing it", slot.index)
                    slot.killed = True
                    process.kill()

    def _receive(self, slot: Slot, limit: int = BATCH) -> None:
        """Handle the messages waiting in the slot's pipe (at most ``limit``: others get a turn)."""
        conn = slot.conn
        try:
            for _ in range(limit):
                if conn is None or not readable(conn):
                    return
                self._handle(slot, conn.recv())
        except (EOFError, OSError):  # the worker is gone: its sentinel will say so
            with self._lock:
                if slot.conn is conn and slot.state is not State.DEAD:
                    slot.state = State.BROKEN

    def _handle(self, slot: Slot, message: tuple[str, int, Any]) -> None:
        try:
            self._take(slot, message)
        finally:
            self._send_handed()  # what the message freed the worker for

    def _take(self, slot: Slot, message: tuple[str, int, Any]) -> None:
        kind, run_id, payload = message
        with self._lock:
            if kind == "ready":
                if slot.state is State.STARTING:
                    slot.state = State.IDLE
                    self._ready.notify_all()
                self._dispatch()
                return
            run = slot.run
            if run is None or run.id != run_id:
                return  # a message from a run that was already settled
            if kind == "progress":
                if not run.freeing:
                    self._callbacks.put("progress", run.job, payload)
                return
            slot.run = slot.ahead.popleft() if slot.ahead else None  # the next one runs now
            if slot.run is not None:
                self._scheduler.started(slot.run.job)
            if slot.run is not None and slot.run.freeing:
                self._stop(slot)  # cancelled in the pipe: it stops as it starts
            if slot.run is None and slot.state is State.BUSY:
                slot.state = State.IDLE
            if not run.freeing:
                self._forget(run.job)
                run.job.reported = time.monotonic()
                label = label_of(run.job)  # a preempted job's wait ends with its last run
                self.timings.add(label, "wait", run.sent - run.job.submitted)
                self.timings.add(label, "run", run.job.reported - run.sent)
                searched = payload.get("time_ms") if isinstance(payload, dict) else None
                if isinstance(searched, (int, float)):  # the worker's own clock: run less pipes
                    self.timings.add(label, "search", searched / 1e3)
                outcome = (payload, None) if kind == "done" else (None, payload)
                self._callbacks.put("result", run.job, *outcome)
            self._dispatch()

    def _bury(self, slot: Slot) -> None:
        """The slot's process ended: report its job and schedule a replacement."""
        self._receive(slot, limit=1_000_000)  # all it said before it died
        with self._lock:
            process, conn, run, ahead = slot.process, slot.conn, slot.run, list(slot.ahead)
            if self._closed or process is None:
                return
            slot.process, slot.conn, slot.run, slot.state = None, None, None, State.DEAD
            slot.ahead.clear()
            slot.outbox.clear()  # tasks for its pipe: their runs are settled here
            for piped in reversed(ahead):  # requeued at the front: the first ends up first
                self._scheduler.started(piped.job)
                if not piped.freeing:
                    self._scheduler.requeue(piped.job)  # never begun: it runs elsewhere
            killed = slot.killed  # by us, for ignoring a cancel: no crash
            delay = 0.0 if killed else self._crashes.died(slot.index)
            slot.respawn_at = time.monotonic() + delay
            self._lose(run, begun=run is not None and slot.begun.value == run.id)
            self._dispatch()  # the dead worker may have been the one a preemption needs
        self._send_handed()
        process.join(SHUTDOWN_SECONDS)
        if not killed:
            log.error(
                "search worker %d died (exit code %s); replacing it in %.2f s",
                slot.index,
                process.exitcode,
                delay,
            )
        process.close()
        if conn is not None:
            with slot.sending:  # no task is being written into it (nor into its number)
                conn.close()

    def _lose(self, run: Run | None, begun: bool) -> None:
        """A worker died during ``run``: retry a job it never began (once), report others."""
        if run is None or run.freeing:
            return
        if not begun and run.job.id not in self._retried:
            self._retried.add(run.job.id)  # once: a task that kills a worker unread is not retried
            self._scheduler.requeue(run.job)
            return
        self._forget(run.job)
        self._callbacks.put("result", run.job, None, WORKER_DIED)

    def _respawn_due(self) -> None:
        now = time.monotonic()
        with self._lock:
            for slot in self._slots:
                if not self._closed and slot.state is State.DEAD and slot.respawn_at <= now:
                    self._restarts += 1
                    self._spawn(slot)

    def _spawn(self, slot: Slot) -> None:
        """Start a worker process in ``slot`` (the caller holds the lock)."""
        try:
            nice = 0 if slot.index < self.reserve else self.lesser_nice
            slot.spawn(self._closing_flag, self.search_fn, self.trace_fn, self.warm_up, nice,
                       self.stream_after)  # fmt: skip
        except OSError:  # out of processes or memory: try again later
            log.exception("search worker %d could not be started", slot.index)
            slot.state = State.DEAD
            slot.respawn_at = time.monotonic() + self._crashes.died(slot.index)

    def _report_crash_loop(self) -> None:
        with self._lock:
            looping = self._crashes.crash_loop()
        if looping and not self._loop_logged:
            log.critical(
                "search workers are in a crash loop (%d deaths of one worker within %.0f s); "
                "they are still replaced, after up to %.1f s",
                self._crashes.loop,
                self._crashes.window,
                self._crashes.ceiling,
            )
        elif self._loop_logged and not looping:
            log.warning("search workers: the crash loop is over")
        self._loop_logged = looping

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (the relay wakes anyway) or closed
            self._wake_out.send(b"\0")

    def _drain_wake(self) -> None:
        try:
            while self._wake_in.recv(4096):
                pass
        except OSError:
            pass


def preemptible(job: SearchJob) -> bool:
    """May ``job`` be stopped for a waiting engine move? Not an engine move, nor a pondering
    the player's move adopted (the engine's reply now), nor an analysis stopped
    ``MAX_PREEMPTIONS`` times already (scores are display work: always)."""
    if job.priority == Priority.ENGINE or job.adopted:
        return False
    return job.priority == Priority.SCORES or job.preemptions < MAX_PREEMPTIONS
