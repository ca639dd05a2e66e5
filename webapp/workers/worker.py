"""The search worker process: warm the engine up once, then run one search at a time.

This module imports nothing from Flask: the workers stay small.
"""

from __future__ import annotations

import logging
import os
import queue
import signal
from dataclasses import asdict
from multiprocessing.synchronize import Event as EventType
from typing import Any

from webapp.engine.search import Limits

log = logging.getLogger(__name__)

#: Seconds a worker waits for a task before checking that its server still lives.
PARENT_CHECK_SECONDS = 1.0


def worker_main(
    index: int, tasks: Any, results: Any, cancel: EventType, warm_up: bool = True
) -> None:
    """A worker: warm up, say ready, then run searches until told to stop (None)."""
    from webapp.engine.search import search
    from webapp.games import new_game

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to handle
    parent = os.getppid()
    if warm_up:
        warm_up_engine()
    results.put(("ready", index))
    while True:
        try:
            task = tasks.get(timeout=PARENT_CHECK_SECONDS)
        except queue.Empty:
            if os.getppid() != parent:  # the server is gone: do not linger
                return
            continue
        if task is None:
            return
        job_id, game, moves, algorithm, limits, seed, move_scores = task

        def relay(progress: Any, job_id: int = job_id) -> None:
            results.put(("progress", index, job_id, asdict(progress)))

        try:
            result = search(
                new_game(game, moves),
                algorithm,
                Limits(**limits),
                move_scores=move_scores,
                progress=relay,
                cancel=cancel,
                seed=seed,
            )
        except Exception as err:
            results.put(("failed", index, job_id, f"{type(err).__name__}: {err}"))
        else:
            results.put(("done", index, job_id, result.to_dict()))


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
