"""Root splitting (webapp/services/split.py): a SCORES job in parts, one per lesser worker.

The parts are ordinary SCORES jobs, so the pool's rules hold for them: never
on a worker kept for engine moves, preempted for an engine move that waits.
The pool tests hold each part with files (``fake_searches.parts``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.fake_searches import PARTS, Pools, open_pools
from tests.web.helpers import wait_until
from webapp.engine.search import Limits
from webapp.search_pool import DROPPED, Priority, SearchJob
from webapp.services import split


@pytest.fixture
def pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pools]:
    yield from open_pools(tmp_path, monkeypatch)


def scores_job(moves: str = "", algorithm: str = "alphabeta") -> SearchJob:
    """The SCORES job of a tic-tac-toe position (nine moves from the empty board)."""
    return SearchJob("tictactoe", moves, algorithm, Limits(), tag=("scores", "g1", None),
                     priority=Priority.SCORES, owner="o", game_id="g1")  # fmt: skip


class Collected:
    """The pool's results passed through ``split.collect``, as the service does."""

    def __init__(self) -> None:
        self.wholes: list[tuple[SearchJob, dict[str, Any] | None, str | None]] = []

    def on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        whole = split.collect(job, result, error)
        if whole is not None:
            self.wholes.append(whole)


# -- the pieces alone ---------------------------------------------------------------
def test_moves_are_dealt_into_non_empty_hands() -> None:
    moves = list("1234567")
    assert split.split_moves(moves, 2) == [tuple("145"), tuple("2367")]  # back and forth
    assert split.split_moves(moves, 9) == [(m,) for m in moves]
    assert split.split_moves(moves, 1) == [tuple(moves)]


def test_parts_merge_into_one_result_with_every_score() -> None:
    a = {"best_move": "3", "score": 2, "exact": True, "pv": "3", "nodes": 10, "depth": 30,
         "time_ms": 5.0, "move_scores": {"1": {"score": -4, "exact": True},
                                         "3": {"score": 2, "exact": True}}}  # fmt: skip
    b = a | {"best_move": "4", "score": 5, "nodes": 7, "time_ms": 9.0,
             "move_scores": {"4": {"score": 5, "exact": True}}}  # fmt: skip
    merged = split.merge([a, b])
    assert (merged["best_move"], merged["score"], merged["nodes"]) == ("4", 5, 17)
    assert list(merged["move_scores"]) == ["1", "3", "4"] and merged["time_ms"] == 9.0
    assert merged["extra"]["parts"] == 2


def test_each_parts_estimates_keep_the_depth_that_part_searched_to() -> None:
    """Parts stopped by their limits at depths 3 and 7: the whole says depth 3, but the
    second part's estimates were searched 7 deep, and say so; a solved part's leftover
    keeps its own mark."""
    a = {"best_move": "1", "score": 0.1, "exact": False, "pv": "1", "nodes": 10, "depth": 3,
         "time_ms": 5.0, "stopped": "time",
         "move_scores": {"1": {"score": 0.1, "exact": False}}}  # fmt: skip
    b = a | {"best_move": "4", "score": 0.2, "depth": 7,
             "move_scores": {"4": {"score": 0.2, "exact": False},
                             "5": {"score": -2, "exact": True}}}  # fmt: skip
    c = a | {"best_move": "6", "score": 3, "exact": True, "depth": 30, "stopped": None,
             "move_scores": {"6": {"score": 3, "exact": True},
                             "7": {"score": 0.0, "exact": False, "depth": 8}}}  # fmt: skip
    merged = split.merge([a, b, c])
    assert merged["depth"] == 3 and merged["move_scores"] == {
        "1": {"score": 0.1, "exact": False, "depth": 3},
        "4": {"score": 0.2, "exact": False, "depth": 7},
        "5": {"score": -2, "exact": True},
        "6": {"score": 3, "exact": True},
        "7": {"score": 0.0, "exact": False, "depth": 8},
    }


def test_only_exact_solves_are_split() -> None:
    class OnePool:
        size, reserve = 3, 1

        def __init__(self) -> None:
            self.submitted: list[SearchJob] = []

        def submit(self, job: SearchJob) -> int:
            self.submitted.append(job)
            job.id = len(self.submitted)
            return job.id

    pool = OnePool()
    split.submit(pool, scores_job(algorithm="minimax"))  # type: ignore[arg-type]
    depth = scores_job()
    depth.limits = Limits(depth=3)
    split.submit(pool, depth)  # type: ignore[arg-type]
    assert [j.limits.root_moves for j in pool.submitted] == [None, None]
    split.submit(pool, scores_job("1234"))  # type: ignore[arg-type]
    assert [j.limits.root_moves for j in pool.submitted[2:]] == [("5", "6", "8"), ("7", "9")]
    # What a caller asks the pool's room for: as many parts as ``submit`` may queue.
    assert split.parts_at_most(pool, scores_job("1234")) == 2  # type: ignore[arg-type]
    assert split.parts_at_most(pool, depth) == 1  # type: ignore[arg-type]


def test_a_failed_part_fails_the_whole_job() -> None:
    whole = scores_job()

    class Quiet:
        size, reserve = 3, 1

        def submit(self, job: SearchJob) -> int:
            return 0

    split.submit(Quiet(), whole)  # type: ignore[arg-type]
    first, second = whole.tag[2].parts
    second.dropped = True
    assert split.collect(first, {"score": 1}, None) is None
    assert split.collect(second, None, DROPPED) == (whole, None, DROPPED)
    assert whole.dropped


# -- in a real pool -----------------------------------------------------------------
@pytest.mark.slow
def test_parts_run_on_the_lesser_workers_and_an_engine_move_is_not_delayed(
    pools: Pools,
) -> None:
    collected = Collected()
    pool = pools(3, search_fn=PARTS, on_result=collected.on_result)  # reserve 1: two lesser
    whole = scores_job()
    split.submit(pool, whole)
    lesser = {pools.holds.started("57968"), pools.holds.started("1324")}  # both at once
    engine = SearchJob("tictactoe", "e", "alphabeta", Limits(), tag=("engine", "g2", None))
    pool.submit(engine)
    playing = pools.holds.started("e")  # on the reserved worker, the parts still held
    assert playing not in lesser
    pools.holds.release("e")
    wait_until(lambda: any(job is engine for job, _, _ in collected.wholes))
    assert not any(job is whole for job, _, _ in collected.wholes)  # the parts still run
    pools.holds.release()
    wait_until(lambda: any(job is whole for job, _, _ in collected.wholes))
    result = next(r for job, r, _ in collected.wholes if job is whole)
    assert result is not None and list(result["move_scores"]) == list("123456789")
    assert result["best_move"] == "9" and result["extra"]["parts"] == 2


@pytest.mark.slow
def test_an_engine_move_preempts_a_part_when_every_worker_runs_one(pools: Pools) -> None:
    collected = Collected()
    pool = pools(2, reserve=0, search_fn=PARTS, on_result=collected.on_result)
    whole = scores_job()
    split.submit(pool, whole)
    pools.holds.started("57968")
    pools.holds.started("1324")
    engine = SearchJob("tictactoe", "e", "alphabeta", Limits(), tag=("engine", "g2", None))
    pool.submit(engine)
    pools.holds.started("e")  # a part gave way at once
    assert pools.holds.cancelled("1324")  # the newest part
    pools.holds.release("e")
    pools.holds.started("1324", times=2)  # and runs again after the engine move
    pools.holds.release()
    wait_until(lambda: any(job is whole for job, _, _ in collected.wholes))
    outcomes = [(job.tag[0], error) for job, _, error in collected.wholes]
    assert outcomes == [("engine", None), ("scores", None)]  # each reported once


@pytest.mark.slow
def test_cancelling_the_whole_job_cancels_every_part(pools: Pools) -> None:
    collected = Collected()
    pool = pools(3, search_fn=PARTS, on_result=collected.on_result)
    whole = scores_job()
    split.submit(pool, whole)
    pools.holds.started("57968")
    pools.holds.started("1324")
    split.cancel(pool, whole)
    wait_until(lambda: pools.holds.cancelled("57968") and pools.holds.cancelled("1324"))
    assert collected.wholes == []
