"""Engine searches the service's tests can hold, crash or heal, run inside worker processes.

A real search on the real position, but only when the test says so: a held
search writes ``started-LABEL`` (the worker's pid; LABEL is ``game-moves``)
in the folder named by ``$LOOKAHEAD_TEST_HOLD`` and waits until
``release-LABEL`` or ``release-all`` exists there, or until it is cancelled (then it writes
``cancelled-LABEL``). ``held_trace`` holds a trace so (LABEL is
``trace-game-moves``). ``crashing_engine`` kills its worker until ``heal``
exists. The test's side of the files is ``fake_searches.Holds``.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.web.fake_searches import HOLD_ENV, POLL
from webapp.engine.search import CancelFlag, Limits
from webapp.games.connect4_kernel.native import FALLBACK_DEPTH
from webapp.search_pool.process import run_search, run_trace
from webapp.services.live_scores import FIRST_TIME

HELD = "tests.web.held_engine:held_engine"
HELD_TRACE = "tests.web.held_engine:held_trace"
HELD_EXACT = "tests.web.held_engine:held_exact"
CRASHING = "tests.web.held_engine:crashing_engine"


def label(game: str, moves: str) -> str:
    """The name a search of ``moves`` goes by in the hold folder."""
    return f"{game}-{moves or 'start'}"


def held_engine(
    game: str, moves: str, algorithm: str, limits: Limits, **options: Any
) -> dict[str, Any]:
    """``run_search`` once the test releases it (``options``: its keyword arguments)."""
    if not _hold(label(game, moves), options["cancel"]):
        # What a real search cut short returns: a move from the depths it finished.
        cut_short = options | {"cancel": _NEVER}
        return run_search(game, moves, algorithm, Limits(depth=1), **cut_short)
    return run_search(game, moves, algorithm, limits, **options)


def first_pass(limits: Limits) -> bool:
    """Whether these are the limits of the scores' first pass over a position."""
    return limits.depth is None and limits.time == FIRST_TIME


def cut_short(
    game: str, moves: str, algorithm: str, limits: Limits, **options: Any
) -> dict[str, Any]:
    """What an exact pass answers when its time runs out before the solver is done: the
    estimates of the solver's heuristic pass (``FALLBACK_DEPTH``), which comes first,
    stopped by its time. The tests' positions are solved at once; a real one may not be."""
    heuristic = replace(limits, depth=FALLBACK_DEPTH)
    return run_search(game, moves, algorithm, heuristic, **options) | {"stopped": "time"}


def held_exact(
    game: str, moves: str, algorithm: str, limits: Limits, **options: Any
) -> dict[str, Any]:
    """``run_search`` at once, but the board's scores are estimates until the test says:
    their first pass answers as one its time cut short (``cut_short``), and a full exact
    pass (no depth limit) waits until the test releases it, as ``held_engine``."""
    if first_pass(limits):
        return cut_short(game, moves, algorithm, limits, **options)
    if limits.depth is None and not _hold(f"exact-{label(game, moves)}", options["cancel"]):
        return run_search(game, moves, algorithm, Limits(depth=1), **options | {"cancel": _NEVER})
    return run_search(game, moves, algorithm, limits, **options)


def trace_label(game: str, moves: str) -> str:
    """The name a trace of ``moves`` goes by in the hold folder."""
    return f"trace-{label(game, moves)}"


def held_trace(
    game: str, moves: str, algorithm: str, limits: Limits, **options: Any
) -> dict[str, Any]:
    """``run_trace`` once the test releases it (written down as ``trace-game-moves``)."""
    if not _hold(trace_label(game, moves), options["cancel"]):
        return {"cancelled": True}  # thrown away by the pool
    return run_trace(game, moves, algorithm, limits, **options)


def _hold(name: str, cancel: CancelFlag) -> bool:
    """Wait until the test releases this search or every one (True) or ``cancel`` is set
    (False)."""
    folder = Path(os.environ[HOLD_ENV])
    _mark(folder, "started", name)
    while not ((folder / "release-all").exists() or (folder / f"release-{name}").exists()):
        if cancel.is_set():
            _mark(folder, "cancelled", name)
            return False
        time.sleep(POLL)
    return True


def crashing_engine(
    game: str, moves: str, algorithm: str, limits: Limits, **options: Any
) -> dict[str, Any]:
    """``run_search``, but its worker dies until the test says ``heal``."""
    folder = Path(os.environ[HOLD_ENV])
    _mark(folder, "started", label(game, moves))
    if not (folder / "heal").exists():
        os._exit(3)  # a worker dying mid-search, as a segfault or the OOM killer would
    return run_search(game, moves, algorithm, limits, **options)


class _Never:
    def is_set(self) -> bool:
        return False


_NEVER = _Never()


def _mark(folder: Path, what: str, name: str) -> None:
    with open(folder / f"{what}-{name}", "a") as file:
        file.write(f"{os.getpid()}\n")
