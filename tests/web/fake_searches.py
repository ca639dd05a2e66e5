"""Search functions for the pool's tests, run inside worker processes, and the files they use.

A pool made with ``search_fn=SCRIPTED`` runs ``scripted`` in its workers: the
job's ``algorithm`` picks the behaviour and its ``moves`` are a label. Its
trace jobs run ``traced`` (``trace_fn=TRACED``), the same behaviours. A held
search writes ``started-LABEL`` (one line per run: the worker's pid), then
waits until ``release-LABEL`` or ``release-all`` exists in the folder named by
``$LOOKAHEAD_TEST_HOLD``, or until it is cancelled (then it writes
``cancelled-LABEL``). Nothing here sleeps to make a test pass: the files are
how a test holds and releases a search.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from webapp.engine import driver
from webapp.engine.search import CancelFlag, Limits, Progress
from webapp.search_pool import PULSE, Priority, SearchJob, SearchPool
from webapp.search_pool.process import run_search

SCRIPTED = "tests.web.fake_searches:scripted"
HOLD_ENV = "LOOKAHEAD_TEST_HOLD"
#: Seconds between two looks at the release file and the cancel flag (a worker's pace only).
POLL = 0.005
#: The pause of ``slow_steps`` and ``quiet_steps``: far past ``process.STREAM_AFTER``.
SLOW_PAUSE = 0.4


def scripted(
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
    """Run the behaviour named by ``algorithm`` on the label ``moves``."""
    return BEHAVIOURS[algorithm](moves, progress, cancel)


def parts(
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
    """A part of a split root search (``webapp.services.split``), held like ``held``.

    Its label is its root moves joined (``1357``), or ``moves`` when it has
    none (an engine move); a root move's score is its number, all exact.
    """
    root = limits.root_moves or ()
    outcome = held("".join(root) or moves, progress, cancel)
    scores = {m: {"score": int(m), "exact": True} for m in root}
    best = max(root, key=int, default=moves)
    return outcome | {"best_move": best, "score": int(best) if root else 0, "exact": True,
                      "pv": best, "nodes": len(root), "depth": 9, "time_ms": 1.0,
                      "algorithm": algorithm, "move_scores": scores, "stopped": None,
                      "extra": {}, "iterations_counted": False}  # fmt: skip


PARTS = "tests.web.fake_searches:parts"


def pulsing(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The real search (``process.run_search``, its arguments), pulsing at every look at
    its budget (``driver.PULSE_SECONDS`` 0) rather than twice a second, so a test hears
    pulses whatever the machine's speed."""
    driver.PULSE_SECONDS = 0.0
    return run_search(*args, **kwargs)


PULSING = "tests.web.fake_searches:pulsing"


def traced(
    game: str,
    moves: str,
    algorithm: str,
    limits: Limits,
    *,
    ordering: str,
    seed: int | None,
    cancel: CancelFlag,
) -> dict[str, Any]:
    """A trace function: the behaviour named by ``algorithm`` on the label ``moves``,
    its answer marked as a trace's."""
    return BEHAVIOURS[algorithm](moves, _no_progress, cancel) | {"trace": ordering}


TRACED = "tests.web.fake_searches:traced"


def _no_progress(progress: Progress) -> None:
    raise AssertionError("a trace reports no progress")


def held(label: str, progress: Callable[[Progress], None], cancel: CancelFlag) -> dict[str, Any]:
    folder = Path(os.environ[HOLD_ENV])
    _mark(folder, "started", label)
    while not cancel.is_set():
        if (folder / f"release-{label}").exists() or (folder / "release-all").exists():
            return quick(label, progress, cancel)
        time.sleep(POLL)
    _mark(folder, "cancelled", label)
    return quick(label, progress, cancel) | {"cancelled": True}


def stubborn(
    label: str, progress: Callable[[Progress], None], cancel: CancelFlag
) -> dict[str, Any]:
    """Held like ``held``, but deaf to cancelling (a search that ignores its flag)."""
    folder = Path(os.environ[HOLD_ENV])
    _mark(folder, "started", label)
    while not (folder / f"release-{label}").exists():
        time.sleep(POLL)
    return quick(label, progress, cancel)


def quick(label: str, progress: Callable[[Progress], None], cancel: CancelFlag) -> dict[str, Any]:
    return {"best_move": label, "pid": os.getpid(), "cancelled": False}


def steps(label: str, progress: Callable[[Progress], None], cancel: CancelFlag) -> dict[str, Any]:
    """Three depths of progress, then the result."""
    for depth in (1, 2, 3):
        progress(Progress(depth, label, depth, False, label, depth * 10, 1.0))
    return quick(label, progress, cancel)


def slow_steps(
    label: str, progress: Callable[[Progress], None], cancel: CancelFlag
) -> dict[str, Any]:
    """A depth, a pause of SLOW_PAUSE seconds (past a stream's start), a depth, the result."""
    progress(Progress(1, label, 1, False, label, 10, 1.0))
    time.sleep(SLOW_PAUSE)
    progress(Progress(2, label, 2, False, label, 20, 1.0 + 1000 * SLOW_PAUSE))
    return quick(label, progress, cancel)


def quiet_steps(
    label: str, progress: Callable[[Progress], None], cancel: CancelFlag
) -> dict[str, Any]:
    """Two depths at once, then SLOW_PAUSE seconds with none (a solve), then the result."""
    progress(Progress(1, label, 1, False, label, 10, 1.0))
    progress(Progress(2, label, 2, False, label, 20, 1.0))
    time.sleep(SLOW_PAUSE)
    return quick(label, progress, cancel)


def pulsed_steps(
    label: str, progress: Callable[[Progress | dict[str, Any]], None], cancel: CancelFlag
) -> dict[str, Any]:
    """A depth, a pause of SLOW_PAUSE seconds (past a stream's start), a pulse of the next
    depth under way (as ``process.run_search`` sends it), that depth, the result."""
    progress(Progress(1, label, 1, False, label, 10, 1.0))
    time.sleep(SLOW_PAUSE)
    progress({PULSE: True, "depth": 2, "nodes": 15, "elapsed_ms": 2.0})
    progress(Progress(2, label, 2, False, label, 20, 3.0))
    return quick(label, progress, cancel)


def crash(label: str, progress: Callable[[Progress], None], cancel: CancelFlag) -> dict[str, Any]:
    os._exit(3)


def crash_held(
    label: str, progress: Callable[[Progress], None], cancel: CancelFlag
) -> dict[str, Any]:
    """Held like ``held``; released, its worker dies instead of answering."""
    held(label, progress, cancel)
    os._exit(3)


def fail(label: str, progress: Callable[[Progress], None], cancel: CancelFlag) -> dict[str, Any]:
    raise ValueError(f"search {label} failed on purpose")


BEHAVIOURS = {
    "hold": held,
    "stubborn": stubborn,
    "quick": quick,
    "steps": steps,
    "slow_steps": slow_steps,
    "quiet_steps": quiet_steps,
    "pulsed_steps": pulsed_steps,
    "crash": crash,
    "crash_held": crash_held,
    "fail": fail,
}


def _mark(folder: Path, what: str, label: str) -> None:
    with open(folder / f"{what}-{label}", "a") as file:
        file.write(f"{os.getpid()}\n")


class Holds:
    """The test's side of the files: see which held searches started, release them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def runs(self, label: str) -> list[int]:
        """The pid of each run of ``label`` that started."""
        path = self.folder / f"started-{label}"
        return [int(line) for line in path.read_text().split()] if path.exists() else []

    def started(self, label: str, times: int = 1) -> int:
        """Wait until ``label`` started ``times`` times; the pid of the last run."""
        from tests.web.helpers import wait_until  # not at the top: workers import this module

        wait_until(lambda: len(self.runs(label)) >= times)
        return self.runs(label)[-1]

    def cancelled(self, label: str) -> bool:
        return (self.folder / f"cancelled-{label}").exists()

    def release(self, label: str = "all") -> None:
        (self.folder / f"release-{label}").touch()


def job(
    label: str, behaviour: str = "quick", priority: Priority = Priority.ENGINE, **more: Any
) -> SearchJob:
    """A job for ``scripted``: ``behaviour`` on ``label``."""
    return SearchJob("tictactoe", label, behaviour, Limits(), priority=priority, **more)


class Recorder:
    """Collects the pool's callbacks (called on the relay thread)."""

    def __init__(self) -> None:
        self.results: dict[int, tuple[dict[str, Any] | None, str | None]] = {}
        self.finished: list[str] = []  # labels, in the order their results came
        self.calls: list[int] = []  # job ids, one per on_result call
        self.progress: list[tuple[int, dict[str, Any]]] = []
        self.queued: list[tuple[int, int]] = []

    def on_progress(self, job: SearchJob, progress: dict[str, Any]) -> None:
        self.progress.append((job.id, progress))

    def on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        self.calls.append(job.id)
        self.results[job.id] = (result, error)
        self.finished.append(job.moves)

    def on_queued(self, job: SearchJob, place: int) -> None:
        self.queued.append((job.id, place))

    def result(self, job_id: int) -> tuple[dict[str, Any] | None, str | None]:
        """The job's outcome (waits for it)."""
        from tests.web.helpers import wait_until

        wait_until(lambda: job_id in self.results)
        return self.results[job_id]

    def place(self, job_id: int) -> int | None:
        """The last place reported for the job."""
        places = [place for queued, place in self.queued if queued == job_id]
        return places[-1] if places else None


class Pools:
    """Makes pools running ``scripted`` for one test, and closes them after it."""

    def __init__(self, folder: Path) -> None:
        self.holds, self.recorder = Holds(folder), Recorder()
        self.made: list[SearchPool] = []

    def __call__(self, workers: int = 1, **options: Any) -> SearchPool:
        from tests.web.helpers import WAIT

        recorder = self.recorder
        settings: dict[str, Any] = {
            "warm_up": False,
            "search_fn": SCRIPTED,
            "trace_fn": TRACED,
            "restart_backoff": (0.001, 0.01),
            "cancel_grace": WAIT,  # held searches obey at once; tests of deaf ones lower this
            "on_progress": recorder.on_progress,
            "on_result": recorder.on_result,
            "on_queued": recorder.on_queued,
        }
        pool = SearchPool(workers, **(settings | options))
        self.made.append(pool)
        pool.start()
        assert pool.wait_ready(WAIT)
        return pool


def open_pools(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pools]:
    """The body of a ``pools`` fixture: workers find the hold folder in their environment."""
    monkeypatch.setenv(HOLD_ENV, str(folder))
    pools = Pools(folder)
    yield pools
    pools.holds.release()
    for pool in pools.made:
        pool.close()
