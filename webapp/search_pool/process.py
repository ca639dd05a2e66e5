"""The search worker process: warm the engine up once, then run one job at a time.

The worker talks to the server over its own pipe (tasks in; ready, progress
and results out). A pipe of its own, not a queue shared by every worker: a
``multiprocessing.Queue`` takes a lock shared by all writers, so a worker
killed mid-write would wedge every other worker's results. A dead worker's
pipe is simply thrown away with it.

Each task names its job's kind (``jobs.SEARCH`` or ``jobs.TRACE``), which
picks the function: the pool's search function or its trace function. Both
are named by "module:function" paths and imported here, in the worker: a
spawned process cannot be handed a closure. Tests name their own (see
``tests/web/fake_searches.py``).

A search's depths stream out as it reaches them, once it has run
``STREAM_AFTER`` seconds: a search that ends sooner (an Easy reply, a
millisecond or two) sends them with its result instead, under ``DEPTHS``, so
that its few rows cost the pipe, the relay and the room no message each.
Between its depths, a streaming search pulses (progress marked ``PULSE``: the
depth under way, its nodes so far) every ``driver.PULSE_SECONDS``, so a long depth
or an exact solve is not silent.

This module imports nothing from Flask: the workers stay small.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from typing import Any, NamedTuple, Protocol

from webapp.engine.search import CancelFlag, Limits, Progress
from webapp.search_pool.cancel import RunCancel, SharedInt
from webapp.search_pool.jobs import DEPTHS, PULSE, SEARCH, TRACE, SearchJob

log = logging.getLogger(__name__)

#: Seconds a worker waits for a task before checking that its server still lives.
PARENT_CHECK_SECONDS = 1.0
#: A search's depths stream once it has run this long; a quicker one sends them with its
#: result (no one watches a thinking panel for a few milliseconds).
STREAM_AFTER = 0.05


class SearchFunction(Protocol):
    """What a worker runs: search a position, report each depth, stop when ``cancel`` is set.

    Returns ``SearchResult.to_dict()`` (or anything the pool's caller expects);
    an exception is reported as the job's error.
    """

    def __call__(
        self,
        game: str,
        moves: str,
        algorithm: str,
        limits: Limits,
        *,
        move_scores: bool,
        seed: int | None,
        progress: Callable[[Progress | dict[str, Any]], None],
        cancel: CancelFlag,
    ) -> dict[str, Any]: ...


class TraceFunction(Protocol):
    """What a worker runs for a trace job: a traced search of a position (``Trace.to_dict()``),
    stopped when ``cancel`` is set; an exception is reported as the job's error."""

    def __call__(
        self,
        game: str,
        moves: str,
        algorithm: str,
        limits: Limits,
        *,
        ordering: str,
        seed: int | None,
        cancel: CancelFlag,
    ) -> dict[str, Any]: ...


class Task(NamedTuple):
    """One run of a job, as the pool sends it to a worker over its pipe."""

    run_id: int
    kind: str  # SEARCH or TRACE: which function runs it
    game: str
    moves: str
    algorithm: str
    limits: Limits
    seed: int | None
    move_scores: bool  # a search's
    ordering: str  # a trace's
    progress: bool = True  # each depth reported

    @classmethod
    def of(cls, run_id: int, job: SearchJob) -> Task:
        return cls(
            run_id, job.kind, job.game, job.moves, job.algorithm, job.limits,
            job.seed, job.move_scores, job.ordering, job.progress,
        )  # fmt: skip


class Functions(NamedTuple):
    """What a worker runs, per kind of job."""

    search: SearchFunction
    trace: TraceFunction


def run_search(
    game: str,
    moves: str,
    algorithm: str,
    limits: Limits,
    *,
    move_scores: bool,
    seed: int | None,
    progress: Callable[[Progress | dict[str, Any]], None],
    cancel: CancelFlag,
) -> dict[str, Any]:
    """The real search function: the engine on the game's position (``SearchResult.to_dict()``).

    Each completed depth goes to ``progress`` as a ``Progress``; between them, a search
    under way pulses (``Pulse``) as a dict marked ``PULSE``.
    """
    from webapp.engine.search import search
    from webapp.games import new_game

    result = search(
        new_game(game, moves),
        algorithm,
        limits,
        move_scores=move_scores,
        progress=progress,
        cancel=cancel,
        seed=seed,
        pulse=lambda pulse: progress({PULSE: True} | asdict(pulse)),
    )
    return result.to_dict()


def run_trace(
    game: str,
    moves: str,
    algorithm: str,
    limits: Limits,
    *,
    ordering: str,
    seed: int | None,
    cancel: CancelFlag,
) -> dict[str, Any]:
    """The real trace function: the traced search to ``limits.depth``, at most ``limits.nodes``
    nodes (``Trace.to_dict()``, what ``GET /api/tree`` answers)."""
    from webapp.engine.trace import DEFAULT_LIMIT, trace
    from webapp.games import new_game

    if limits.depth is None:
        raise ValueError("a trace needs a depth")
    found = trace(
        new_game(game, moves),
        algorithm,
        limits.depth,
        ordering=ordering,
        limit=DEFAULT_LIMIT if limits.nodes is None else limits.nodes,
        seed=0 if seed is None else seed,
        cancel=cancel,
    )
    return found.to_dict()


def load_function(path: str) -> Any:
    """The function named by ``"package.module:function"``."""
    module_name, _, name = path.partition(":")
    return getattr(importlib.import_module(module_name), name)


def load_search_function(path: str) -> SearchFunction:
    """The search function named by ``"package.module:function"``."""
    function: SearchFunction = load_function(path)
    return function


def load_trace_function(path: str) -> TraceFunction:
    """The trace function named by ``"package.module:function"``."""
    function: TraceFunction = load_function(path)
    return function


def worker_main(
    conn: Connection,
    cancel: SharedInt,
    begun: SharedInt,
    closing: SharedInt,
    search_function: str,
    trace_function: str,
    warm_up: bool = True,
    nice: int = 0,
    stream_after: float = STREAM_AFTER,
) -> None:
    """A worker: warm up, say ready, then run jobs until told to stop (None) or orphaned.

    ``nice`` > 0 lowers this process's CPU priority: the workers that take
    analyses and scores yield the CPU to engine moves and to the server.
    ``stream_after``: seconds a search runs before its depths stream (``STREAM_AFTER``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to handle
    if nice > 0:
        with contextlib.suppress(OSError):  # a platform without nice: same priority
            os.nice(nice)
    parent = os.getppid()
    functions = Functions(
        load_search_function(search_function), load_trace_function(trace_function)
    )
    if warm_up:
        warm_up_engine()
    try:
        conn.send(("ready", 0, None))
        while not closing.value:
            if not conn.poll(PARENT_CHECK_SECONDS):
                if os.getppid() != parent:  # the server is gone: do not linger
                    return
                continue
            task: Task | None = conn.recv()
            if task is None:
                return
            begun.value = task.run_id  # no message: the pool reads it if this process dies
            _run(conn, functions, task, RunCancel(cancel, closing, task.run_id), stream_after)
    except (EOFError, OSError, _ServerGone):  # the server closed our pipe or went away
        return


def _unreported(progress: Progress | dict[str, Any]) -> None:
    """The progress of a job nobody follows (``SearchJob.progress`` False): not sent."""


class _ServerGone(Exception):
    """Our pipe to the server broke while a search was running."""


def _run(
    conn: Connection, functions: Functions, task: Task, cancel: RunCancel, stream_after: float
) -> None:
    run_id = task.run_id
    # The depths not sent yet (the search is young), and whether they stream now; a timer
    # starts the stream even if the search finds no new depth for a while (a solve).
    held: list[dict[str, Any]] | None = []
    lock = threading.Lock()  # one writer on the pipe at a time: the search or the timer

    def send(data: dict[str, Any]) -> None:
        try:
            conn.send(("progress", run_id, data))
        except (EOFError, OSError) as err:
            raise _ServerGone from err

    def stream() -> None:
        nonlocal held
        with lock:
            rows, held = held, None
            with contextlib.suppress(_ServerGone):  # the search's next send finds out
                for data in rows or []:
                    send(data)

    def relay(progress: Progress | dict[str, Any]) -> None:
        data = asdict(progress) if isinstance(progress, Progress) else dict(progress)
        if data.get(PULSE):
            pulse(data)
            return
        with lock:
            if held is not None:
                held.append(data)
                return
            send(data)

    def pulse(data: dict[str, Any]) -> None:
        """A pulse is news only when it is sent: never held, never waited for (the kernel's
        watcher sends it, and must go back to its stops), and a broken pipe is the search's
        next send's to find."""
        if not lock.acquire(blocking=False):
            return
        try:
            if held is None:
                with contextlib.suppress(_ServerGone):
                    send(data)
        finally:
            lock.release()

    timer = threading.Timer(stream_after, stream)
    timer.daemon = True
    if task.progress and task.kind == SEARCH:  # a trace reports no depths
        timer.start()

    position = (task.game, task.moves, task.algorithm, task.limits)
    try:
        if task.kind == SEARCH:
            result = functions.search(
                *position,
                move_scores=task.move_scores,
                seed=task.seed,
                progress=relay if task.progress else _unreported,
                cancel=cancel,
            )
        elif task.kind == TRACE:
            result = functions.trace(
                *position, ordering=task.ordering, seed=task.seed, cancel=cancel
            )
        else:
            raise ValueError(f"unknown job kind {task.kind!r}")
    except _ServerGone:
        raise  # nobody is left to tell
    except Exception as err:
        with lock:
            held = None
            conn.send(("failed", run_id, f"{type(err).__name__}: {err}"))
    else:
        with lock:  # no depth goes out after the result
            if held and isinstance(result, dict):
                result = result | {DEPTHS: held}
            held = None
            conn.send(("done", run_id, result))
    finally:
        timer.cancel()


def warm_up_engine() -> None:
    """Run a tiny search of every game so compiled kernels load now, not on a first move."""
    from webapp.engine.search import search
    from webapp.games import GAMES, new_game

    for name in GAMES:
        search(new_game(name, ""), "alphabeta", Limits(depth=1), seed=0)
    try:
        from webapp.games.connect4_kernel.warmup import warm_up

        warm_up()
    except Exception as err:  # no kernel: the pure-Python engine serves, slower
        log.warning("Connect Four kernel warm-up failed: %s", err)
