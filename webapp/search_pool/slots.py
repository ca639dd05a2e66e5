"""Worker slots: a place for one worker process, which is replaced when it dies, and its run.

A slot outlives its processes: its cancel flag (``cancel.py``) stays in
shared memory across replacements, which is safe because the flag holds a
run id and run ids are never reused. The pool changes a slot only under its
lock; this module only starts and stops processes.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnProcess
from typing import Any

from webapp.search_pool import affinity
from webapp.search_pool.cancel import SharedInt
from webapp.search_pool.jobs import SearchJob
from webapp.search_pool.process import STREAM_AFTER, worker_main

#: Every worker is spawned: it inherits none of the server's threads, locks or sockets.
CONTEXT = multiprocessing.get_context("spawn")


class State(Enum):
    """Where a slot is in its life."""

    STARTING = "starting"  # spawned, not ready yet
    IDLE = "idle"
    BUSY = "busy"
    BROKEN = "broken"  # its pipe failed: its process is dying, the relay will bury it
    DEAD = "dead"  # no process: one will be spawned at ``respawn_at``


#: States with a process that can take work now or soon.
LIVE = (State.STARTING, State.IDLE, State.BUSY)


@dataclass(eq=False)
class Run:
    """One attempt at a job in one worker. Run ids are never reused (they key cancelling)."""

    id: int
    job: SearchJob
    aborting: bool = False  # preempted: its outcome is thrown away, the job waits again
    stop_by: float = 0.0  # once cancelled: when the relay kills a worker that ignores it
    sent: float = 0.0  # when it went to the worker (monotonic seconds)

    @property
    def freeing(self) -> bool:
        """The worker will be free soon without anyone preempting it."""
        return self.aborting or self.job.cancelled


@dataclass(eq=False)
class Slot:
    """A place for one worker process; the process is replaced, the slot stays."""

    index: int
    cancel: SharedInt  # the run id to cancel
    begun: SharedInt  # the run id the worker began last (one that dies before did it no harm)
    state: State = State.DEAD
    process: SpawnProcess | None = None
    conn: Connection | None = None
    run: Run | None = None
    # short engine moves sent behind ``run``, in the pipe, in order (``AHEAD_RUNS`` at most)
    ahead: deque[Run] = field(default_factory=deque)
    # tasks handed to this worker (pickled) and not yet written into its pipe, with the
    # pipe they go to, in order; written outside the pool's lock by whoever holds ``sending``
    outbox: deque[tuple[Connection, Any]] = field(default_factory=deque)
    sending: threading.Lock = field(default_factory=threading.Lock)
    respawn_at: float = 0.0
    killed: bool = False  # the pool killed this process (a cancel it ignored), not a crash

    def spawn(
        self,
        closing: SharedInt,
        search_fn: str,
        trace_fn: str,
        warm_up: bool,
        nice: int = 0,
        stream_after: float = STREAM_AFTER,
    ) -> None:
        """Start a worker process here (``nice``: its OS niceness; ``stream_after``: see
        ``process.STREAM_AFTER``); OSError if the system cannot."""
        server_end, worker_end = CONTEXT.Pipe()
        process = CONTEXT.Process(
            target=worker_main,
            args=(
                worker_end,
                self.cancel,
                self.begun,
                closing,
                search_fn,
                trace_fn,
                warm_up,
                nice,
                stream_after,
            ),
            name=f"lookahead-search-{self.index}",
            daemon=True,
        )
        try:
            process.start()
        except OSError:
            server_end.close()
            raise
        finally:
            worker_end.close()  # the worker has its own copy; ours would hide its death
        # At once, while the new process imports (one thread as yet): not on the one CPU
        # the web process keeps to.
        affinity.widen(process.pid, affinity.worker_cpus())
        self.process, self.conn, self.state, self.run = process, server_end, State.STARTING, None
        self.ahead.clear()
        self.outbox.clear()
        self.killed = False


def stop_workers(slots: list[Slot], seconds: float) -> None:
    """Ask every worker to stop, give them ``seconds`` in all, then kill the rest."""
    for slot in slots:
        if slot.conn is not None:
            with slot.sending, contextlib.suppress(OSError, ValueError):  # after a task
                slot.conn.send(None)
    deadline = time.monotonic() + seconds
    for slot in slots:
        process, conn = slot.process, slot.conn
        slot.process, slot.conn, slot.state, slot.run = None, None, State.DEAD, None
        slot.ahead.clear()
        slot.outbox.clear()
        if process is not None:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
            process.close()
        if conn is not None:
            with slot.sending:
                conn.close()
