"""The pool's timings (webapp/search_pool/timing.py): per kind of job, how long it
waited for a worker, ran, waited to be applied and was applied, as histograms a
reader subtracts. No figure here is a wall-clock one: only which bucket and how many."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.fake_searches import Pools, job, open_pools
from tests.web.helpers import wait_until
from webapp.bench.load_timings import lines
from webapp.search_pool import Priority
from webapp.search_pool.dispatch import Dispatcher, label_of
from webapp.search_pool.timing import BOUNDS_MS, MAX_LABELS, Timings, bucket, difference, summary


@pytest.fixture
def pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pools]:
    yield from open_pools(tmp_path, monkeypatch)


def test_a_duration_lands_in_the_first_bucket_that_holds_it() -> None:
    timings = Timings()
    timings.add("engine:engine", "wait", 0.0015)  # 1.5 ms: the 2 ms bucket
    timings.add("engine:engine", "wait", 99.0)  # past every bound: the last bucket
    counts = timings.snapshot()["engine:engine"]["wait"]
    assert counts[BOUNDS_MS.index(2)] == 1 and counts[-1] == 1 and sum(counts) == 2


def test_each_bound_holds_its_own_duration_and_the_next_bucket_what_is_past_it() -> None:
    for index, bound in enumerate(BOUNDS_MS):
        assert bucket(bound) == index and bucket(bound + 0.001) == index + 1
    assert bucket(0.0) == bucket(-1.0) == 0 and bucket(1e12) == len(BOUNDS_MS)


def test_a_stretch_is_the_difference_of_two_snapshots() -> None:
    timings = Timings()
    timings.add("scores:scores", "run", 0.2)
    before = timings.snapshot()
    for seconds in (0.0005, 0.0005, 0.004):
        timings.add("scores:scores", "run", seconds)
    timings.add("engine:engine", "run", 0.001)
    stretch = difference(timings.snapshot(), before)
    rows = {row["label"]: row for row in summary(stretch)}
    assert rows["scores:scores"]["jobs"] == 3  # the 200 ms run was before the stretch
    assert rows["scores:scores"]["run50"] == 1 and rows["scores:scores"]["run99"] == 5
    assert rows["engine:engine"]["jobs"] == 1
    assert math.isnan(rows["engine:engine"]["wait50"])  # no wait measured


def test_labels_are_bounded_the_rest_fold_into_other() -> None:
    timings = Timings()
    for number in range(MAX_LABELS + 5):
        timings.add(f"kind{number}:engine", "run", 0.001)
    snapshot = timings.snapshot()
    assert len(snapshot) == MAX_LABELS + 1
    assert sum(snapshot["other"]["run"]) == 5


def test_a_label_names_the_jobs_kind_and_class() -> None:
    assert label_of(job("x", tag=("scores", "g", None), priority=Priority.ANALYSIS)) == (
        "scores:analysis"
    )
    assert label_of(job("x", tag=("engine", "g", None))) == "engine:engine"


def test_the_pool_times_each_job_it_reports_waiting_running_and_applied(pools: Pools) -> None:
    pool = pools(workers=1)
    dispatch = Dispatcher(timings=pool.timings)
    applied: list[str] = []
    dispatch.register("engine", lambda j, r, e: applied.append(j.moves))
    dispatch.register("scores", lambda j, r, e: applied.append(j.moves))
    pool.on_result = dispatch.on_result
    pool.submit(job("held", "hold", priority=Priority.SCORES, tag=("scores", "g1", None)))
    pools.holds.started("held")
    pool.submit(job("reply", tag=("engine", "g2", None)))  # preempts it, then it runs again
    pools.holds.started("held", times=2)
    pools.holds.release("held")
    wait_until(lambda: applied == ["reply", "held"])
    timings = pool.stats()["timings"]
    for label in ("scores:scores", "engine:engine"):
        for stage in ("wait", "run", "deliver", "queue", "apply"):
            assert sum(timings[label][stage]) == 1, (label, stage)  # the preempted run: none
        assert sum(timings[label]["search"]) == 0  # these fake results carry no time_ms
    assert pool.stats()["preempted"] == 1


def test_the_bench_prints_one_line_per_label_with_jobs() -> None:
    timings = Timings()
    before = timings.snapshot()
    timings.add("engine:engine", "run", 0.001)
    timings.add("engine:engine", "wait", 30.0)
    after = timings.snapshot() | {"#preempted": {"count": [7]}}
    printed = lines(before | {"#preempted": {"count": [4]}}, after)
    assert len(printed) == 3 and "engine:engine" in printed[1] and ">20s" in printed[1]
    assert printed[2] == "  pool: preempted 3"
    assert lines(None, timings.snapshot()) == []
