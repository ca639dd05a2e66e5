"""The search worker process: warm the engine up once, then run one search at a time.

The worker talks to the server over its own pipe (tasks in; ready, progress
and results out). A pipe of its own, not a queue shared by every worker: a
``multiprocessing.Queue`` takes a lock shared by all writers, so a worker
killed mid-write would wedge every other worker's results. A dead worker's
pipe is simply thrown away with it.

The search function is named by a "module:function" path and imported here,
in the worker: a spawned process cannot be handed a closure. Tests name
their own (see ``tests/web/fake_searches.py``).

This module imports nothing from Flask: the workers stay small.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from typing import Any, Protocol

from webapp.engine.search import CancelFlag, Limits, Progress
from webapp.workers.cancel import RunCancel, SharedInt

log = logging.getLogger(__name__)

#: Seconds a worker waits for a task before checking that its server still lives.
PARENT_CHECK_SECONDS = 1.0


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
        progress: Callable[[Progress], None],
        cancel: CancelFlag,
    ) -> dict[str, Any]: ...


def run_search(
    game: str,
    moves: str,
    algorithm: str,
    limits: Limits,
    *,
    move_scores: bool,
    seed: int | None,
    progress: Callable[[Progress], None],
    cancel: CancelFlag,
) -> dict[str, Any]:
    """The real search function: the engine on the game's position (``SearchResult.to_dict()``)."""
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
    )
    return result.to_dict()


def load_search_function(path: str) -> SearchFunction:
    """The function named by ``"package.module:function"``."""
    module_name, _, name = path.partition(":")
    function: SearchFunction = getattr(importlib.import_module(module_name), name)
    return function


def worker_main(
    conn: Connection,
    cancel: SharedInt,
    closing: SharedInt,
    search_function: str,
    warm_up: bool = True,
    nice: int = 0,
) -> None:
    """A worker: warm up, say ready, then run searches until told to stop (None) or orphaned.

    ``nice`` > 0 lowers this process's CPU priority: the workers that take
    analyses and scores yield the CPU to engine moves and to the server.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to handle
    if nice > 0:
        with contextlib.suppress(OSError):  # a platform without nice: same priority
            os.nice(nice)
    parent = os.getppid()
    run = load_search_function(search_function)
    if warm_up:
        warm_up_engine()
    try:
        conn.send(("ready", 0, None))
        while not closing.value:
            if not conn.poll(PARENT_CHECK_SECONDS):
                if os.getppid() != parent:  # the server is gone: do not linger
                    return
                continue
            task = conn.recv()
            if task is None:
                return
            _run(conn, run, task, RunCancel(cancel, closing, task[0]))
    except (EOFError, OSError, _ServerGone):  # the server closed our pipe or went away
        return


class _ServerGone(Exception):
    """Our pipe to the server broke while a search was running."""


def _run(conn: Connection, run: SearchFunction, task: tuple[Any, ...], cancel: RunCancel) -> None:
    run_id, game, moves, algorithm, limits, seed, move_scores = task
    conn.send(("started", run_id, None))

    def relay(progress: Progress | dict[str, Any]) -> None:
        data = asdict(progress) if isinstance(progress, Progress) else dict(progress)
        try:
            conn.send(("progress", run_id, data))
        except (EOFError, OSError) as err:
            raise _ServerGone from err

    try:
        result = run(
            game,
            moves,
            algorithm,
            limits,
            move_scores=move_scores,
            seed=seed,
            progress=relay,
            cancel=cancel,
        )
    except _ServerGone:
        raise  # nobody is left to tell
    except Exception as err:
        conn.send(("failed", run_id, f"{type(err).__name__}: {err}"))
    else:
        conn.send(("done", run_id, result))


def warm_up_engine() -> None:
    """Run a tiny search of every game so compiled kernels load now, not on a first move."""
    from webapp.engine.search import search
    from webapp.games import GAMES, new_game

    for name in GAMES:
        search(new_game(name, ""), "alphabeta", Limits(depth=1), seed=0)
    try:
        from webapp.games.connect4_kernel import warm_up

        warm_up()
    except Exception as err:  # no kernel: the pure-Python engine serves, slower
        log.warning("Connect Four kernel warm-up failed: %s", err)
