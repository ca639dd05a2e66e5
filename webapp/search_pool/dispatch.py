"""One dispatcher per pool: each job's callbacks go to the handler of its kind.

A pool calls three callbacks (``on_progress``, ``on_result``, ``on_queued``).
They are the dispatcher's, set once (``dispatcher_of``); each consumer
(the engine's moves, live scores, position analyses, traces, a search host's
remote jobs) registers the handlers of its job kind once, when it is built. A
job's kind is its tag's: the first item of a tuple tag (``("engine", game_id,
sid)``), else the tag's ``kind`` attribute, else the job's own kind (a trace).

# Off the relay thread, one game at a time
A pool with a relay thread of its own (``SearchPool``, ``QueuePool``) makes its
dispatcher with a ``SerialExecutor``: the news of a kind registered
``serial=True`` (a game's: engine moves, scores, pondering, its analyses) is
queued per game and applied on a small pool of threads, in order within a game,
one item at a time, games in parallel, and the games with an engine reply to
apply before the others (``urgent``). So a game whose store write is slow
holds up that game only, never the relay or other games. Kinds whose handlers
only wake a waiting thread (traces, position analyses) run on the relay
thread. A pool without a thread of its own (a test's, reporting before
``submit`` returns) gets a dispatcher that calls every handler at once.

Nothing of a service is imported here (services import workers, never the
reverse): handlers are plain callables.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp.search_pool.interface import Pool
from webapp.search_pool.jobs import (
    Priority,
    ProgressCallback,
    QueuedCallback,
    ResultCallback,
    SearchJob,
)
from webapp.search_pool.timing import Timings

log = logging.getLogger(__name__)


def _no_progress(job: SearchJob, progress: dict[str, Any]) -> None:
    return None


def _no_place(job: SearchJob, place: int) -> None:
    return None


#: The kind of a pondering's news (``webapp.services.live_scores``): the engine's reply
#: to the player's expected move, which becomes its move when the player plays it.
PONDER = "ponder"
#: Threads applying games' results (each game's one at a time).
RESULT_THREADS = 6
#: Seconds ``close`` waits for the results being applied.
CLOSE_SECONDS = 5.0
#: An engine reply that waited longer than this for a search process (beyond its own
#: search) or for a results thread is late: the process's workers, or its threads
#: sharing one interpreter, did not keep up.
LATE_SECONDS = 0.02
#: The process is behind while this many late replies came within ``BEHIND_SECONDS``
#: (one late reply is a hiccup: a pause of the collector, a busy moment of the machine).
LATE_REPLIES = 3
BEHIND_SECONDS = 2.0

Task = Callable[[], None]


class SerialExecutor:
    """Tasks run on at most ``threads`` threads: those of one key in order, one at a
    time; those of different keys in parallel, keys taking turns (one task each).

    A key with an urgent task waiting (an engine reply, which a player waits for)
    goes before every key with none: a crowd's scores never hold up a reply. Its
    tasks still run in order (the urgent one after the key's earlier ones)."""

    def __init__(self, threads: int = RESULT_THREADS, name: str = "results") -> None:
        if threads < 1:
            raise ValueError("an executor needs a thread")
        self.size, self.name = threads, name
        self._changed = threading.Condition()
        # key -> its tasks (each with its urgency), while it has any
        self._queues: dict[str, deque[tuple[Task, bool]]] = {}
        # keys with a task and no thread on them: with an urgent one, and the others
        self._urgent: deque[str] = deque()
        self._ready: deque[str] = deque()
        self._threads: list[threading.Thread] = []
        self._running = 0
        self._closed = False

    def submit(self, key: str, task: Task, urgent: bool = False) -> bool:
        """Run ``task`` after the key's earlier tasks (``urgent``: its key before the keys
        without an urgent task); False once closed (not run)."""
        with self._changed:
            if self._closed:
                return False
            queue = self._queues.get(key)
            if queue is None:
                self._queues[key] = deque([(task, urgent)])
                (self._urgent if urgent else self._ready).append(key)
                self._changed.notify()
            else:
                queue.append((task, urgent))  # its key is ready or running: it comes in turn
                if urgent and key in self._ready:  # waiting behind others: it goes ahead now
                    self._ready.remove(key)
                    self._urgent.append(key)
            waiting = len(self._urgent) + len(self._ready)
            if len(self._threads) < self.size and self._running + waiting > len(self._threads):
                self._start_thread()
        return True

    def close(self, timeout: float = CLOSE_SECONDS) -> bool:
        """Run no task from now on; wait for those running. False if one still runs."""
        with self._changed:
            self._closed = True
            self._queues.clear()
            self._urgent.clear()
            self._ready.clear()
            self._changed.notify_all()
            threads = list(self._threads)
        deadline = time.monotonic() + timeout
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() and t is not threading.current_thread() for t in threads)

    def has_tasks(self, key: str) -> bool:
        """Whether ``key`` has a task waiting or running: a task submitted for it now
        waits behind its own key's first."""
        with self._changed:
            return key in self._queues

    def threads(self) -> int:
        with self._changed:
            return sum(thread.is_alive() for thread in self._threads)

    def _start_thread(self) -> None:  # the condition's lock is held
        thread = threading.Thread(
            target=self._loop, name=f"{self.name}-{len(self._threads) + 1}", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    def _loop(self) -> None:
        while True:
            with self._changed:
                while not self._urgent and not self._ready and not self._closed:
                    self._changed.wait()
                if self._closed:
                    return
                key = (self._urgent or self._ready).popleft()
                task, _ = self._queues[key].popleft()
                self._running += 1
            try:
                task()
            except Exception:  # a handler's bug must not stop the game's later news
                log.exception("%s: a task for %s failed", self.name, key)
            finally:
                with self._changed:
                    self._running -= 1
                    queue = self._queues.get(key)
                    if queue:  # its next task, after the other keys' turn
                        urgent = any(each for _, each in queue)
                        (self._urgent if urgent else self._ready).append(key)
                        self._changed.notify()
                    elif queue is not None:
                        del self._queues[key]


@dataclass(frozen=True)
class Handlers:
    """What one job kind does with its jobs' news; ``serial``: applied per game on the
    dispatcher's executor (when it has one)."""

    result: ResultCallback
    progress: ProgressCallback = _no_progress
    queued: QueuedCallback = _no_place
    serial: bool = False
    places: int | None = None  # ``queued`` hears of places up to this one only


def game_of(job: SearchJob) -> str:
    """The key a job's news is serialised by: its game (else its kind)."""
    if job.game_id:
        return job.game_id
    tag = job.tag
    if isinstance(tag, tuple) and len(tag) > 1 and isinstance(tag[1], str) and tag[1]:
        return tag[1]
    return f"({kind_of(job)})"


def urgent(job: SearchJob) -> bool:
    """A job whose news a player waits for: an engine move, or a pondering (which may
    have become the engine's move). Applied before any other game's lesser news."""
    return job.priority == Priority.ENGINE or kind_of(job) == PONDER


def pool_wait(job: SearchJob, result: dict[str, Any] | None) -> float:
    """Seconds an engine move's search spent in the pool other than searching: from
    its submission until its result reached the relay, less the search's own time (0
    for any other job, one not reported, or one that failed: a pondering waited for the
    player, a failed one's time is not known)."""
    if job.priority != Priority.ENGINE or kind_of(job) == PONDER or not job.reported:
        return 0.0
    if result is None:
        return 0.0
    searched = result.get("time_ms")
    seconds = float(searched) / 1e3 if isinstance(searched, (int, float)) else 0.0
    return job.reported - job.submitted - seconds


def label_of(job: SearchJob) -> str:
    """A job's label in the pool's timings: its kind and its class (``scores:analysis``)."""
    return f"{kind_of(job)}:{job.priority.name.lower()}"


def kind_of(job: SearchJob) -> str:
    """The kind a job's news is dispatched by (see the module docstring)."""
    tag = job.tag
    if isinstance(tag, tuple) and tag and isinstance(tag[0], str):
        return tag[0]
    kind = getattr(tag, "kind", None)
    return kind if isinstance(kind, str) else job.kind


class Dispatcher:
    """The pool's callbacks: each job's news to the handlers registered for its kind."""

    def __init__(
        self,
        executor: SerialExecutor | None = None,
        timings: Timings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.executor, self.timings, self.clock = executor, timings, clock
        self._late: deque[float] = deque(maxlen=LATE_REPLIES)  # when replies were late
        self._lock = threading.Lock()
        self._handlers: dict[str, Handlers] = {}
        self._settled: list[Callable[[SearchJob], None]] = []

    def register(
        self,
        kind: str,
        result: ResultCallback,
        progress: ProgressCallback = _no_progress,
        queued: QueuedCallback = _no_place,
        *,
        serial: bool = False,
        places: int | None = None,
    ) -> None:
        """Send the news of jobs of ``kind`` to these handlers (once per kind);
        ``serial``: a game's, applied off the relay thread one at a time; ``places``:
        ``queued`` hears of places up to this one only (a long queue moving by one
        changes every job's place: the rest are dropped on the relay thread).

        News nobody handles (no progress or queued handler) is dropped at once."""
        with self._lock:
            if kind in self._handlers:
                raise ValueError(f"the job kind {kind!r} has its handlers already")
            self._handlers[kind] = Handlers(result, progress, queued, serial, places)

    def run_for_game(self, game_id: str, task: Task) -> None:
        """Run ``task`` in turn with the game's news, never on the caller's thread (without
        an executor: on a thread of its own). Urgent: it tells an engine reply."""
        if self.executor is None:
            threading.Thread(target=task, name=f"task-{game_id}", daemon=True).start()
        else:
            self.executor.submit(game_id, task, urgent=True)  # closed: dropped

    def in_turn(self, game_id: str, task: Task) -> None:
        """Run ``task`` in turn with the game's news on the executor; without an executor
        (test pools), at once on the caller's thread."""
        if self.executor is None:
            task()
        else:
            self.executor.submit(game_id, task)  # closed: dropped, as every later result

    def on_settled(self, hook: Callable[[SearchJob], None]) -> None:
        """Call ``hook(job)`` after each result has been handled."""
        with self._lock:
            self._settled.append(hook)

    def handlers(self, job: SearchJob) -> Handlers | None:
        with self._lock:
            return self._handlers.get(kind_of(job))

    # -- the pool's three callbacks -------------------------------------------------------
    def on_progress(self, job: SearchJob, progress: dict[str, Any]) -> None:
        handlers = self.handlers(job)
        if handlers is not None and handlers.progress is not _no_progress:  # else: no hop
            self._call(handlers, job, lambda: handlers.progress(job, progress))

    def on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        handlers = self.handlers(job)
        if handlers is None:
            log.warning("no handler for the result of a %r job: dropped", kind_of(job))
            self._settle(job)
            return

        delivered = self.clock()
        # A reply behind its own game's news (a slow save of that game) says nothing of
        # the process: only one that waited for a thread alone counts as late.
        alone = handlers.serial and urgent(job) and not self._has_tasks(game_of(job))
        pooled = pool_wait(job, result) > LATE_SECONDS

        def apply() -> None:
            started = self.clock()
            if pooled or (alone and started - delivered > LATE_SECONDS):
                self._late.append(started)  # deque.append is atomic: no lock
            try:
                handlers.result(job, result, error)
            finally:
                self._settle(job)
                if self.timings is not None and job.reported:
                    label = label_of(job)
                    self.timings.add(label, "deliver", delivered - job.reported)
                    self.timings.add(label, "queue", started - delivered)
                    self.timings.add(label, "apply", time.monotonic() - started)

        self._call(handlers, job, apply)

    def behind(self) -> bool:
        """True while this process is behind with the engine's replies: the last
        ``LATE_REPLIES`` of them that waited more than ``LATE_SECONDS`` for a search
        process (``pool_wait``) or for a thread to apply them (with none of their own
        game's news before them) all came within the last ``BEHIND_SECONDS``.

        Display work (the board's scores) gives way then: the players' replies wait
        for this process's own time, which every other piece of news takes from.
        """
        late = list(self._late)
        return len(late) == LATE_REPLIES and self.clock() - late[0] < BEHIND_SECONDS

    def on_queued(self, job: SearchJob, place: int) -> None:
        handlers = self.handlers(job)
        if (
            handlers is not None
            and handlers.queued is not _no_place
            and (handlers.places is None or place <= handlers.places)
        ):
            self._call(handlers, job, lambda: handlers.queued(job, place))

    def close(self) -> None:
        """Apply nothing more; wait for what is being applied (the pool closes)."""
        if self.executor is not None and not self.executor.close():
            log.warning("%s: closing while a result is still applied", self.executor.name)

    def _has_tasks(self, key: str) -> bool:
        return self.executor is not None and self.executor.has_tasks(key)

    def _call(self, handlers: Handlers, job: SearchJob, task: Task) -> None:
        if handlers.serial and self.executor is not None:
            self.executor.submit(game_of(job), task, urgent=urgent(job))
        else:
            task()

    def _settle(self, job: SearchJob) -> None:
        with self._lock:
            hooks = list(self._settled)
        for hook in hooks:
            hook(job)


def dispatcher_of(pool: Pool) -> Dispatcher:
    """The pool's dispatcher: made, and set as its three callbacks, the first time."""
    found = getattr(pool.on_result, "__self__", None)
    if isinstance(found, Dispatcher):
        return found
    made = Dispatcher()
    pool.on_progress, pool.on_result, pool.on_queued = (
        made.on_progress,
        made.on_result,
        made.on_queued,
    )
    return made
