"""Retention (webapp/services/retention.py): abandoned and old games are deleted on a schedule."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.web.helpers import WAIT, make_app
from webapp.services.retention import RetentionSchedule, cutoffs, prune
from webapp.store import now
from webapp.web.app import close_app

NOW = datetime(2026, 11, 23, 12, 0, 0, tzinfo=UTC)


class FakeStore:
    """Records the cut-offs it was given; answers how many games it "deleted"."""

    def __init__(self, removed: int = 3, fail: bool = False) -> None:
        self.calls: list[tuple[str, str]] = []
        self.removed, self.fail = removed, fail
        self.called = threading.Event()

    def prune(self, *, unfinished_before: str, finished_before: str) -> int:
        self.calls.append((unfinished_before, finished_before))
        self.called.set()
        if self.fail:
            raise OSError("database is locked")
        return self.removed


def test_prune_gives_the_store_its_cutoffs_and_returns_the_count() -> None:
    store = FakeStore(removed=7)
    assert prune(store, unfinished_days=30, finished_days=365, now=NOW) == 7
    assert store.calls == [("2026-10-24T12:00:00+00:00", "2025-11-23T12:00:00+00:00")]


def test_cutoffs_are_in_the_stores_format_and_compare_as_text() -> None:
    unfinished, finished = cutoffs(1, 0.5, NOW)
    assert (unfinished, finished) == ("2026-11-22T12:00:00+00:00", "2026-11-23T00:00:00+00:00")
    assert len(now()) == len(unfinished) and now()[-6:] == unfinished[-6:]  # same shape
    assert unfinished < finished < now()  # ISO text sorts as time
    # Any timezone, or none (taken as UTC), gives UTC text.
    paris = NOW.astimezone(timezone(timedelta(hours=1)))
    assert cutoffs(1, 1, paris) == cutoffs(1, 1, NOW) == cutoffs(1, 1, NOW.replace(tzinfo=None))


def test_negative_days_are_refused() -> None:
    with pytest.raises(ValueError):
        cutoffs(-1, 30, NOW)
    with pytest.raises(ValueError):
        RetentionSchedule(FakeStore(), unfinished_days=30, finished_days=-1, every_hours=1)
    with pytest.raises(ValueError):
        RetentionSchedule(FakeStore(), unfinished_days=30, finished_days=1, every_hours=0)


def run_in_thread(started: list[threading.Thread]) -> Callable[[Callable[[], None]], None]:
    def start(task: Callable[[], None]) -> None:
        thread = threading.Thread(target=task, daemon=True)
        started.append(thread)
        thread.start()

    return start


@pytest.mark.parametrize("fail", [False, True])
def test_the_schedule_runs_then_stops(fail: bool) -> None:
    store = FakeStore(fail=fail)
    schedule = RetentionSchedule(
        store, unfinished_days=30, finished_days=365, every_hours=6, first_delay=0
    )
    threads: list[threading.Thread] = []
    schedule.start(run_in_thread(threads))
    assert store.called.wait(WAIT)  # a failing run is logged, not raised: the loop lives on
    schedule.stop()
    threads[0].join(WAIT)
    assert not threads[0].is_alive()
    assert len(store.calls) == 1  # the next run was 6 hours away


def test_run_once_reports_a_failure_as_none(caplog: pytest.LogCaptureFixture) -> None:
    schedule = RetentionSchedule(
        FakeStore(fail=True), unfinished_days=1, finished_days=1, every_hours=1
    )
    assert schedule.run_once() is None
    assert "pruning failed" in caplog.text
    assert schedule.first_delay == 300.0  # a fresh server prunes within minutes, not hours


def test_the_app_runs_a_schedule_and_close_app_stops_it(tmp_path: Path) -> None:
    app = make_app(tmp_path / "a.db", RETENTION_EVERY_HOURS=12, RETENTION_FINISHED_DAYS=90)
    schedule = app.extensions["lookahead_retention"]
    assert (schedule.every, schedule.finished_days, schedule.unfinished_days) == (
        12 * 3600.0, 90, 30,
    )  # fmt: skip
    close_app(app)
    assert schedule._stop.is_set()
    never = make_app(tmp_path / "b.db", RETENTION_EVERY_HOURS=0)
    assert "lookahead_retention" not in never.extensions
    close_app(never)
