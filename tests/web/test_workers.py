"""The search worker pool (webapp/search_pool): results, progress, places, cancelling, shutdown.

The real engine runs where the result matters (a legal line, an exact score);
elsewhere the workers run ``tests/web/fake_searches.py``, held and released
with files, so nothing here depends on how fast a search is.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.web.fake_searches import Pools, job, open_pools
from tests.web.helpers import WAIT, wait_until
from webapp.engine.search import Limits
from webapp.engine.trace import trace
from webapp.games import new_game
from webapp.search_pool import (
    DEPTHS,
    PULSE,
    TRACE,
    PoolBusy,
    Priority,
    SearchJob,
    SearchPool,
    callbacks,
)
from webapp.search_pool.local_pool import DEFAULT_TRACE


@pytest.fixture
def pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pools]:
    yield from open_pools(tmp_path, monkeypatch)


@pytest.fixture
def engine_pool(pools: Pools) -> SearchPool:
    """One worker running the real search function."""
    return pools(1, search_fn="webapp.search_pool.process:run_search")


def test_a_search_reports_each_depth_then_its_result(engine_pool: SearchPool, pools: Pools) -> None:
    job_id = engine_pool.submit(SearchJob("tictactoe", "5", "alphabeta", Limits(), seed=0))
    result, error = pools.recorder.result(job_id)
    assert error is None and result is not None
    assert result["exact"] and result["score"] == 0
    new_game("tictactoe", "5" + result["pv"])  # the line is legal
    # Each depth once: streamed, or with the result if the search was done sooner.
    streamed = [progress["depth"] for job, progress in pools.recorder.progress if job == job_id]
    depths = streamed + [row["depth"] for row in result.get(DEPTHS, [])]
    assert depths == list(range(1, result["depth"] + 1))
    assert not (streamed and DEPTHS in result)


def test_a_failing_search_reports_its_error(engine_pool: SearchPool, pools: Pools) -> None:
    job_id = engine_pool.submit(SearchJob("tictactoe", "55", "alphabeta", Limits(depth=1)))
    result, error = pools.recorder.result(job_id)
    assert result is None and error and "IllegalMoveError" in error


def test_a_search_function_that_raises_reports_its_error(pools: Pools) -> None:
    pool = pools(1)
    result, error = pools.recorder.result(pool.submit(job("x", "fail")))
    assert result is None and error == "ValueError: search x failed on purpose"
    assert pools.recorder.result(pool.submit(job("next")))[0] is not None  # the worker lives on


def test_a_trace_job_answers_the_tree_the_trace_function_gives(pools: Pools) -> None:
    pool = pools(1, trace_fn=DEFAULT_TRACE)  # scripted searches, the real traces
    limits = Limits(depth=4, nodes=3000)
    tree = SearchJob("connect4", "4453", "alphabeta", limits, seed=0, kind=TRACE,
                     ordering="natural", priority=Priority.ANALYSIS)  # fmt: skip
    searched = pool.submit(job("4453"))  # a search in the same worker: the search function
    result, error = pools.recorder.result(pool.submit(tree))
    direct = trace(new_game("connect4", "4453"), "alphabeta", 4, ordering="natural", limit=3000)
    assert error is None and result == direct.to_dict()
    assert result["node_count"] > 100  # a real tree, not a stub
    assert not [seen for seen, _ in pools.recorder.progress if seen == tree.id]
    found, _ = pools.recorder.result(searched)
    assert found is not None and found["best_move"] == "4453" and "nodes" not in found


def test_a_trace_job_is_cancelled_inside_the_worker_like_a_search(pools: Pools) -> None:
    pool = pools(1)
    held = pool.submit(job("tree", "hold", Priority.ANALYSIS, kind=TRACE))
    pid = pools.holds.started("tree")
    pool.cancel(held)
    wait_until(lambda: pools.holds.cancelled("tree"))  # the trace saw the flag and returned
    result, error = pools.recorder.result(pool.submit(job("next")))
    assert error is None and result is not None and result["pid"] == pid  # the same worker
    assert held not in pools.recorder.results  # a cancelled trace is never reported


def test_progress_is_relayed_per_depth_once_a_search_has_run_a_while(pools: Pools) -> None:
    pool = pools(1, stream_after=0.0)
    job_id = pool.submit(job("p", "slow_steps"))
    result, _ = pools.recorder.result(job_id)
    depths = [progress["depth"] for seen, progress in pools.recorder.progress if seen == job_id]
    assert depths == [1, 2] and result is not None and DEPTHS not in result


def test_a_quick_searchs_depths_come_with_its_result(pools: Pools) -> None:
    """No message per depth for a search done before its depths would stream (an Easy
    reply, a millisecond or two): they travel in its result, in order."""
    pool = pools(1, stream_after=3600.0)
    job_id = pool.submit(job("p", "steps"))
    result, _ = pools.recorder.result(job_id)
    assert not [seen for seen, _ in pools.recorder.progress if seen == job_id]
    assert result is not None and [row["depth"] for row in result[DEPTHS]] == [1, 2, 3]
    assert result[DEPTHS][0] == {"depth": 1, "best_move": "p", "score": 1, "exact": False,
                                 "pv": "p", "nodes": 10, "elapsed_ms": 1.0}  # fmt: skip


def test_the_depths_of_a_search_gone_quiet_stream_when_it_has_run_a_while(pools: Pools) -> None:
    """Two depths at once, then a long solve with none: they go out at ``STREAM_AFTER``,
    not with the result (a page watches the engine think meanwhile)."""
    pool = pools(1)  # the real STREAM_AFTER, far below the search's pause
    job_id = pool.submit(job("p", "quiet_steps"))
    wait_until(lambda: len([s for s, _ in pools.recorder.progress if s == job_id]) == 2)
    assert job_id not in pools.recorder.results  # still searching
    result, _ = pools.recorder.result(job_id)
    assert result is not None and DEPTHS not in result


def test_a_pulse_is_relayed_between_the_depths_of_a_streaming_search(pools: Pools) -> None:
    pool = pools(1, stream_after=0.0)
    job_id = pool.submit(job("p", "pulsed_steps"))
    pools.recorder.result(job_id)
    sent = [progress for seen, progress in pools.recorder.progress if seen == job_id]
    assert [(row["depth"], bool(row.get(PULSE))) for row in sent] == [
        (1, False),
        (2, True),
        (2, False),
    ]


def test_a_pulse_is_never_held_with_a_quick_searchs_depths(pools: Pools) -> None:
    """A pulse is the news of its moment: a search done before its depths would stream
    sends its depths with its result, and no pulse among them."""
    pool = pools(1, stream_after=3600.0)
    result, _ = pools.recorder.result(pool.submit(job("q", "pulsed_steps")))
    assert result is not None and [row["depth"] for row in result[DEPTHS]] == [1, 2]
    assert not any(row.get(PULSE) for row in result[DEPTHS])


def test_a_job_nobody_follows_sends_no_progress(pools: Pools) -> None:
    pool = pools(1, stream_after=0.0)
    quiet = pool.submit(replace(job("q", "slow_steps"), progress=False))
    loud = pool.submit(job("p", "slow_steps"))
    quiet_result, _ = pools.recorder.result(quiet)
    pools.recorder.result(loud)
    assert not [seen for seen, _ in pools.recorder.progress if seen == quiet]
    assert quiet_result is not None and DEPTHS not in quiet_result  # nor with its result
    assert [seen for seen, _ in pools.recorder.progress if seen == loud]  # the same search


def test_cancelling_stops_the_search_inside_the_worker(pools: Pools) -> None:
    pool = pools(1)
    held = pool.submit(job("held", "hold"))
    pid = pools.holds.started("held")
    pool.cancel(held)
    wait_until(lambda: pools.holds.cancelled("held"))  # the search saw the flag and returned
    result, error = pools.recorder.result(pool.submit(job("next")))
    assert error is None and result is not None
    assert result["pid"] == pid  # the same worker, free again (not a replacement)
    assert held not in pools.recorder.results  # a cancelled job is never reported
    pool.cancel(held)  # cancelling twice, or an unknown id, does nothing
    pool.cancel(12345)


def test_a_place_is_told_once_the_job_has_waited_a_while(
    pools: Pools, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wait that ends before ``NOTICE_SECONDS`` is never told (a page could not show
    it, and a crowd of quick moves would cost a notice each); a longer one is."""
    monkeypatch.setattr(callbacks, "NOTICE_SECONDS", 3600.0)
    pool = pools(1)
    pool.submit(job("first", "hold"))
    pools.holds.started("first")
    quick = pool.submit(job("quick"))
    assert pool.position(quick) == 1
    pools.holds.release("first")
    pools.recorder.result(quick)
    assert pools.recorder.place(quick) is None
    monkeypatch.setattr(callbacks, "NOTICE_SECONDS", 0.2)
    pool.submit(job("second", "hold"))
    pools.holds.started("second")
    waiting = pool.submit(job("waiting"))
    wait_until(lambda: pools.recorder.place(waiting) == 1)  # nothing else changes: it is due
    pools.holds.release("second")
    pools.recorder.result(waiting)


def test_jobs_wait_in_turn_and_their_places_are_reported(pools: Pools) -> None:
    pool = pools(1)
    first = pool.submit(job("first", "hold"))
    pools.holds.started("first")
    second, third = pool.submit(job("second")), pool.submit(job("third"))
    wait_until(lambda: pools.recorder.place(third) == 2)
    assert pools.recorder.place(second) == 1
    assert pool.position(second) == 1 and pool.position(third) == 2 and pool.position(first) is None
    pool.cancel(second)  # the one behind moves up
    wait_until(lambda: pools.recorder.place(third) == 1)
    assert pool.position(third) == 1
    pools.holds.release("first")
    pools.recorder.result(third)
    assert pools.recorder.finished == ["first", "third"]


def test_stats_say_what_the_pool_is_doing(pools: Pools) -> None:
    pool = pools(1)
    pool.submit(job("held", "hold"))
    pools.holds.started("held")
    pool.submit(job("waits"))
    stats = pool.stats()
    timings = stats.pop("timings")  # where each kind of job's time went (test_pool_timing.py)
    assert stats == {
        "workers": 1,
        "alive": 1,
        "busy": 1,
        "queued": {"engine": 1, "scores": 0, "analysis": 0},
        "restarts": 0,
        "preempted": 0,
        "sent_ahead": 0,  # "waits" has no depth bound: it never goes into a pipe
        "crash_loop": False,
        "closed": False,
    }
    assert timings == {}  # nothing has been reported yet


def test_close_mid_search_reports_nothing(pools: Pools) -> None:
    pool = pools(2, reserve=0)
    pool.submit(job("running", "hold"))
    pool.submit(job("also-running", "hold"))
    pools.holds.started("running")
    pools.holds.started("also-running")
    pool.submit(job("waiting"))
    pool.close()  # the held searches see the closing flag and return results: all dropped
    pool.close()  # idempotent
    assert pools.holds.cancelled("running") and pools.holds.cancelled("also-running")
    assert not pools.recorder.results
    assert not any(thread.name == "search-relay" for thread in threading.enumerate())
    assert pool.stats()["closed"] and pool.stats()["alive"] == 0
    assert not pool.has_room()
    with pytest.raises(PoolBusy):
        pool.submit(job("late"))


def test_a_pool_never_started_closes(pools: Pools) -> None:
    pool = SearchPool(1, warm_up=False)
    pool.submit(job("never"))
    pool.close()
    assert not pool.wait_ready(WAIT)


def test_a_callback_that_raises_does_not_stop_later_results(pools: Pools) -> None:
    pool = pools(1)
    pool.on_progress = lambda job, progress: 1 / 0  # type: ignore[assignment]
    pools.recorder.result(pool.submit(job("p", "steps")))
    assert pools.recorder.result(pool.submit(job("after")))[1] is None


@pytest.mark.slow
def test_a_callback_may_close_the_pool(pools: Pools) -> None:
    pool = pools(2, reserve=0)
    pool.submit(job("held", "hold"))
    pools.holds.started("held")
    closed = threading.Event()

    def close_on_result(*_: object) -> None:
        pool.close()
        closed.set()

    pool.on_result = close_on_result
    pool.submit(job("closes"))
    assert closed.wait(WAIT)
    wait_until(lambda: not any(t.name == "search-relay" for t in threading.enumerate()))
    assert pool.stats()["closed"] and pools.holds.cancelled("held")
