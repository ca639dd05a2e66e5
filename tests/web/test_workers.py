"""The search worker pool (webapp/workers): results, progress, queueing, cancelling, shutdown."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.helpers import WAIT, wait_until
from webapp.engine.search import Limits
from webapp.games import new_game
from webapp.workers import PoolBusy, SearchJob, SearchPool

#: A search that runs until cancelled (or for the server's time cap): Connect Four,
#: an early position, every root move's score exact.
LONG = ("connect4", "4", "alphabeta", Limits(time=10.0))


class Recorder:
    """Collects the pool's callbacks."""

    def __init__(self) -> None:
        self.progress: list[tuple[int, dict[str, Any]]] = []
        self.results: dict[int, tuple[dict[str, Any] | None, str | None]] = {}
        self.queued: list[tuple[int, int]] = []
        self.done = threading.Condition()

    def on_progress(self, job: SearchJob, progress: dict[str, Any]) -> None:
        self.progress.append((job.id, progress))

    def on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        self.results[job.id] = (result, error)

    def on_queued(self, job: SearchJob, position: int) -> None:
        self.queued.append((job.id, position))


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def pool(recorder: Recorder) -> Iterator[SearchPool]:
    made = SearchPool(
        1,
        2,
        warm_up=False,
        on_progress=recorder.on_progress,
        on_result=recorder.on_result,
        on_queued=recorder.on_queued,
    )
    made.start()
    assert made.wait_ready(WAIT)
    yield made
    made.close()


def test_a_search_reports_each_depth_then_its_result(pool: SearchPool, recorder: Recorder) -> None:
    job_id = pool.submit(SearchJob("tictactoe", "5", "alphabeta", Limits(time=10.0), seed=0))
    wait_until(lambda: job_id in recorder.results)
    result, error = recorder.results[job_id]
    assert error is None and result is not None
    assert result["exact"] and result["score"] == 0
    new_game("tictactoe", "5" + result["pv"])  # the line is legal
    depths = [progress["depth"] for job, progress in recorder.progress if job == job_id]
    assert depths == list(range(1, result["depth"] + 1))


def test_jobs_wait_in_turn_and_the_queue_has_a_limit(pool: SearchPool, recorder: Recorder) -> None:
    first = pool.submit(SearchJob(*LONG))
    second = pool.submit(SearchJob("tictactoe", "", "alphabeta", Limits(depth=1)))
    third = pool.submit(SearchJob("tictactoe", "1", "alphabeta", Limits(depth=1)))
    assert (second, 1) in recorder.queued and (third, 2) in recorder.queued
    assert not pool.has_room()
    with pytest.raises(PoolBusy):
        pool.submit(SearchJob("tictactoe", "2", "alphabeta", Limits(depth=1)))
    pool.cancel(second)  # the one behind moves up
    assert (third, 1) in recorder.queued
    pool.cancel(first)  # stops the running search: the next one starts
    wait_until(lambda: third in recorder.results)
    assert first not in recorder.results and second not in recorder.results


def test_a_failing_search_reports_its_error(pool: SearchPool, recorder: Recorder) -> None:
    job_id = pool.submit(SearchJob("tictactoe", "55", "alphabeta", Limits(depth=1)))
    wait_until(lambda: job_id in recorder.results)
    result, error = recorder.results[job_id]
    assert result is None and error and "IllegalMoveError" in error


def test_close_stops_every_worker_even_mid_search(recorder: Recorder) -> None:
    pool = SearchPool(2, 4, warm_up=False, on_result=recorder.on_result)
    pool.start()
    pool.submit(SearchJob(*LONG))
    pool.close()
    pool.close()  # idempotent
    assert not recorder.results
    assert not any(thread.name == "search-relay" for thread in threading.enumerate())
