"""The clock of a game between two people (webapp/services/clock.py): pure, times made up."""

from __future__ import annotations

import pytest

from webapp.services.clock import Clock, ClockError

START = 1_000_000  # any time, in ms since the epoch


def fresh(initial: float = 60, increment: float = 0) -> Clock:
    return Clock.of_settings({"initial": initial, "increment": increment})


def test_a_fresh_clock_runs_for_nobody() -> None:
    clock = fresh(60, 2)
    assert clock.view(START + 99_999) == {
        "initial_ms": 60_000,
        "increment_ms": 2_000,
        "remaining_ms": [60_000, 60_000],
        "running": None,
    }
    assert clock.flagged(START + 10**9) is None and clock.flag_at() is None


def test_the_first_move_starts_the_other_sides_time_without_charging_the_mover() -> None:
    clock = fresh(60, 2).pressed(0, START)
    assert clock.running == 1
    assert clock.view(START + 1_500)["remaining_ms"] == [60_000, 58_500]


def test_each_move_charges_the_mover_and_adds_the_increment() -> None:
    clock = fresh(60, 2).pressed(0, START).pressed(1, START + 5_000)
    assert clock.remaining_ms == (60_000, 57_000)  # 60 - 5 + 2
    assert clock.running == 0
    assert clock.left(0, START + 8_000) == 57_000 and clock.left(1, START + 8_000) == 57_000


def test_time_runs_out_at_zero_and_the_running_side_is_flagged() -> None:
    clock = fresh(5).pressed(0, START)
    assert clock.flag_at() == START + 5_000
    assert clock.flagged(START + 4_999) is None
    assert clock.flagged(START + 5_000) == 1
    assert clock.left(1, START + 9_000) == 0  # never below zero


def test_a_stopped_clock_keeps_the_time_left_when_it_stopped() -> None:
    clock = fresh(10).pressed(0, START).stopped(START + 3_000)
    assert clock.running is None and clock.remaining_ms == (10_000, 7_000)
    assert clock.view(START + 60_000)["remaining_ms"] == [10_000, 7_000]


def test_after_a_takeback_the_side_to_move_runs() -> None:
    clock = fresh(10).pressed(0, START).runs_for(0, START + 2_000)
    assert clock.running == 0 and clock.remaining_ms == (10_000, 8_000)


def test_a_clock_survives_its_json() -> None:
    clock = fresh(30, 1).pressed(0, START).pressed(1, START + 700)
    assert Clock.from_json(clock.to_json()) == clock


@pytest.mark.parametrize(
    "settings",
    [
        None,
        {"initial": 0},
        {"initial": 0.0004},  # under a millisecond: a clock run out before the first move
        {"initial": 1e-300},
        {"initial": -1},
        {"initial": "60"},
        {"initial": True},
        {"initial": 60, "increment": 61},
        {"initial": 10**6},
        {"initial": 60, "delay": 1},
    ],
)
def test_settings_that_are_no_clock_are_refused(settings: object) -> None:
    with pytest.raises(ClockError):
        Clock.of_settings(settings)


def test_an_outage_is_given_back_to_the_running_side_only() -> None:
    clock = Clock(60_000, 0, (60_000, 45_000), running=1, since=10_000)
    back = clock.excused(down_from=20_000, up_at=80_000)  # down 60 s, 10 s after the move
    assert back.left(1, 80_000) == 35_000  # charged the 10 s before the outage only
    assert back.left(0, 80_000) == 60_000
    assert back.left(1, 85_000) == 30_000  # and runs again from the restart
    assert back.flag_at() == 115_000
    # A clock that began running after the last mark (not possible with one server, but
    # harmless) gets back only the time it ran; a stopped clock, nothing.
    assert clock.excused(down_from=5_000, up_at=30_000).left(1, 30_000) == 45_000
    stopped = clock.stopped(15_000)
    assert stopped.excused(20_000, 80_000) == stopped
    assert clock.excused(down_from=20_000, up_at=20_000) == clock


def test_outages_are_given_back_once_each_oldest_first() -> None:
    clock = Clock(60_000, 0, (60_000, 60_000), running=0, since=0)
    outages = [(10_000, 40_000), (50_000, 70_000)]  # 30 s and 20 s with nobody up
    back = clock.after_outages(outages)
    assert back.excused_to == 70_000
    assert back.left(0, 70_000) == 40_000  # charged 10 s, then 10 s, never the 50 s down
    assert back.after_outages(outages) == back  # read again: nothing more given
    later = back.after_outages([*outages, (80_000, 90_000)])
    assert later.left(0, 90_000) == 30_000 and later.excused_to == 90_000
    assert Clock.from_json(later.to_json()) == later  # the mark is stored with the clock
    assert "excused_to" not in clock.to_json()  # a clock never excused is stored as before
