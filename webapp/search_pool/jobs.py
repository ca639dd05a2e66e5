"""What the pool schedules: a job, its kind and priority class, and the refusal it may raise.

These are plain values shared by the scheduler (which orders waiting jobs)
and the pool (which runs them); neither needs the other to describe a job.

A job's kind names what its worker runs: a ``SEARCH`` (the pool's search
function: a move, scores, an analysis) or a ``TRACE`` (the search explorer's
traced search, every node it visits: ``webapp.engine.trace``). The kind
changes only the function and its answer; a trace is scheduled, cancelled,
preempted and retried like any job of its priority.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from webapp.engine.search import Limits

#: The kinds of job (``SearchJob.kind``): which function a worker runs for it.
SEARCH, TRACE = "search", "trace"
KINDS = (SEARCH, TRACE)
#: A search result's key for the depths a quick search sent with it rather than as
#: progress (``process.STREAM_AFTER``): its rows, shallowest first.
DEPTHS = "depths"
#: A progress dict's key marking a pulse (``webapp.engine.results.Pulse``): a search under
#: way between its depths, not a completed depth. Pulses are sent only once the depths
#: stream; none is held for the result.
PULSE = "pulse"


class Priority(IntEnum):
    """Scheduling classes, most urgent first: a lower value always runs first."""

    ENGINE = 0  # a player's engine move: the critical path
    SCORES = 1  # display work for a player's own game (scores of the moves not played); droppable
    ANALYSIS = 2  # an analysis someone asked for (spectators included)


@dataclass(eq=False)  # a job is itself: two searches of one position are two jobs
class SearchJob:
    """One search to run. ``tag`` is the caller's and never leaves this process.

    ``owner`` (an identity or an address) and ``game_id`` are for quotas and
    fairness only; an empty one is not counted against any per-owner or
    per-game bound. ``turn``: whose turn the job takes in its lane, when not its
    owner's (an engine move's is its mover's address: made-up identities from one
    address then share one turn).

    A ``TRACE`` job searches to ``limits.depth`` and records at most
    ``limits.nodes`` nodes, in ``ordering`` ("engine" or "natural"); its
    result is ``Trace.to_dict()``. ``move_scores`` is a search's only.
    ``progress`` False: its worker sends no progress (nobody follows its depths), so
    a search of many depths is one message, not one per depth.
    """

    game: str
    moves: str
    algorithm: str
    limits: Limits
    seed: int | None = None
    tag: Any = None
    move_scores: bool = True  # passed to the search function
    priority: Priority = Priority.ENGINE
    owner: str = ""
    game_id: str = ""
    turn: str = ""  # empty: the owner's
    kind: str = SEARCH  # SEARCH or TRACE (see the module docstring)
    ordering: str = "engine"  # a trace's move ordering
    progress: bool = True  # its worker reports each depth (``on_progress``)
    id: int = 0  # given by SearchPool.submit
    cancelled: bool = field(default=False, repr=False)  # the caller cancelled it
    dropped: bool = field(default=False, repr=False)  # shed under load (SCORES only)
    # The engine's reply now (a pondering the player's move adopted): never preempted.
    adopted: bool = field(default=False, repr=False)
    preemptions: int = field(default=0, repr=False)  # times stopped for an engine move
    # When it was submitted and when its outcome reached the relay (``time.monotonic``):
    # the pool's timings (``timing.py``).
    submitted: float = field(default=0.0, repr=False)
    reported: float = field(default=0.0, repr=False)


#: An analysis (or trace) stopped this often for engine moves runs to its end: under a
#: stream of replies it would otherwise start again for ever and never answer.
MAX_PREEMPTIONS = 2


class PoolBusy(RuntimeError):
    """A bound on waiting searches was reached (the message says which), or the pool is shut."""


ProgressCallback = Callable[[SearchJob, dict[str, Any]], None]
ResultCallback = Callable[[SearchJob, dict[str, Any] | None, str | None], None]
QueuedCallback = Callable[[SearchJob, int], None]

#: The error ``on_result`` gets for a SCORES job shed under load.
DROPPED = "dropped"
#: The error ``on_result`` gets when the worker running the job died.
WORKER_DIED = "the search worker stopped unexpectedly"
