"""The pool's faults: dead workers replaced (never a lifetime budget), crash loops, cancel races.

Workers are killed with SIGKILL at moments the test chooses (a held search
has started); nothing waits on the clock except the pool's tiny backoff.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.fake_searches import Pools, job, open_pools
from tests.web.helpers import wait_until
from webapp.search_pool import WORKER_DIED, Priority
from webapp.search_pool.cancel import RunCancel
from webapp.search_pool.restarts import CrashTracker, restart_delay
from webapp.search_pool.slots import CONTEXT


@pytest.fixture
def pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pools]:
    yield from open_pools(tmp_path, monkeypatch)


@pytest.mark.slow
def test_a_dead_workers_job_fails_and_the_worker_is_replaced_past_ten_kills(
    pools: Pools,
) -> None:
    pool = pools(1, crash_loop=100)
    for kill in range(12):
        doomed = pool.submit(job(f"doomed{kill}", "hold"))
        pid = pools.holds.started(f"doomed{kill}")
        os.kill(pid, signal.SIGKILL)
        assert pools.recorder.result(doomed) == (None, WORKER_DIED)
        result, error = pools.recorder.result(pool.submit(job(f"after{kill}")))
        assert error is None and result is not None and result["pid"] != pid
    stats = pool.stats()
    assert stats["restarts"] == 12 and stats["alive"] == 1 and not stats["crash_loop"]


def test_a_job_handed_to_a_worker_that_dies_before_taking_it_runs_on_the_replacement(
    pools: Pools,
) -> None:
    pool = pools(1)
    first = pools.recorder.result(pool.submit(job("first")))[0]
    assert first is not None
    os.kill(first["pid"], signal.SIGSTOP)  # idle, and now deaf: the next job waits in its pipe
    unlucky = pool.submit(job("unlucky"))
    os.kill(first["pid"], signal.SIGKILL)
    result, error = pools.recorder.result(unlucky)
    assert error is None and result is not None and result["pid"] != first["pid"]


def test_a_search_that_ignores_its_cancel_flag_is_killed_and_replaced(pools: Pools) -> None:
    pool = pools(1, cancel_grace=0.0)
    deaf = pool.submit(job("deaf", "stubborn"))
    pid = pools.holds.started("deaf")
    pool.cancel(deaf)
    result, error = pools.recorder.result(pool.submit(job("next")))
    assert error is None and result is not None and result["pid"] != pid
    assert deaf not in pools.recorder.results
    assert not pool.stats()["crash_loop"] and pool.stats()["restarts"] == 1


@pytest.mark.slow
def test_an_engine_move_never_waits_behind_an_analysis_that_ignores_preemption(
    pools: Pools,
) -> None:
    pool = pools(1, cancel_grace=0.0)
    analysis = pool.submit(job("deaf", "stubborn", Priority.ANALYSIS))
    pools.holds.started("deaf")
    result, error = pools.recorder.result(pool.submit(job("engine")))
    assert error is None and result is not None
    pools.holds.started("deaf", times=2)  # the analysis runs again, on the replacement
    pools.holds.release("deaf")
    assert pools.recorder.result(analysis)[1] is None


@pytest.mark.slow
def test_the_relay_serves_other_workers_while_a_replacement_waits_out_its_backoff(
    pools: Pools,
) -> None:
    pool = pools(2, restart_backoff=(3600.0, 3600.0))
    doomed = pool.submit(job("doomed", "hold"))
    os.kill(pools.holds.started("doomed"), signal.SIGKILL)
    assert pools.recorder.result(doomed) == (None, WORKER_DIED)
    assert pool.stats()["alive"] == 1  # the replacement is an hour away
    for number in range(3):  # the relay is not asleep: the other worker's results flow
        result, error = pools.recorder.result(pool.submit(job(f"served{number}")))
        assert error is None and result is not None


@pytest.mark.slow
def test_a_crash_loop_is_reported_once_and_workers_are_still_replaced(
    pools: Pools, caplog: pytest.LogCaptureFixture
) -> None:
    pool = pools(1, crash_loop=3, crash_window=3600.0)
    for number in range(4):
        crashed = pool.submit(job(f"crash{number}", "crash"))
        assert pools.recorder.result(crashed) == (None, WORKER_DIED)
        assert pool.stats()["crash_loop"] == (number >= 2)
    result, error = pools.recorder.result(pool.submit(job("still-served")))
    assert error is None and result is not None
    loud = [record for record in caplog.records if record.levelno >= logging.CRITICAL]
    assert len(loud) == 1 and "crash loop" in loud[0].getMessage()


@pytest.mark.slow
def test_a_worker_killed_while_the_server_cancels_does_not_hang_it(pools: Pools) -> None:
    """The old flag, a multiprocessing.Event, hung clear() once a worker died holding its lock."""
    pool = pools(1)
    for attempt in range(6):
        held = pool.submit(job(f"held{attempt}", "hold"))
        pid = pools.holds.started(f"held{attempt}")
        if attempt % 2:
            pool.cancel(held)
            os.kill(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
            pool.cancel(held)
        # A job handed to the dying worker would fail (and be retried by its caller): wait
        # until the death is seen, so that this test is about the server not hanging.
        wait_until(lambda attempt=attempt: pool.stats()["restarts"] == attempt + 1)
        result, error = pools.recorder.result(pool.submit(job(f"next{attempt}")))
        assert error is None and result is not None
        assert held not in pools.recorder.results  # cancelled: never reported, not even its death


def test_jobs_waiting_when_a_worker_dies_run_on_its_replacement(pools: Pools) -> None:
    pool = pools(1)
    doomed = pool.submit(job("doomed", "hold"))
    pid = pools.holds.started("doomed")
    waiting = [
        pool.submit(job(f"waiting{number}", priority=priority))
        for number, priority in enumerate(Priority)
    ]
    os.kill(pid, signal.SIGKILL)
    assert pools.recorder.result(doomed) == (None, WORKER_DIED)
    for each in waiting:
        result, error = pools.recorder.result(each)
        assert error is None and result is not None and result["pid"] != pid


def test_cancel_flag_names_one_run_and_closing_stops_every_run() -> None:
    cancel, closing = CONTEXT.RawValue("q", 0), CONTEXT.RawValue("q", 0)
    first, second = RunCancel(cancel, closing, 1), RunCancel(cancel, closing, 2)
    assert not first.is_set() and not second.is_set()
    cancel.value = 1
    assert first.is_set() and not second.is_set()  # nothing to clear before run 2
    closing.value = 1
    assert second.is_set()


def test_restart_delay_grows_with_recent_deaths_and_is_capped() -> None:
    delays = [restart_delay(deaths, 0.5, 30.0) for deaths in range(9)]
    assert delays == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert restart_delay(10_000, 0.5, 30.0) == 30.0


def test_deaths_are_counted_over_a_window_not_a_lifetime() -> None:
    clock = [0.0]
    tracker = CrashTracker(2, (1.0, 60.0), window=60.0, loop=3, clock=lambda: clock[0])
    assert [tracker.died(0) for _ in range(3)] == [1.0, 2.0, 4.0]
    assert tracker.crash_loop() and tracker.deaths(1) == 0
    clock[0] = 61.0  # a quiet minute later the slot starts afresh
    assert not tracker.crash_loop()
    assert tracker.died(0) == 1.0
