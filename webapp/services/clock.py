"""The chess clock of a game between two people: pure arithmetic on milliseconds.

The server keeps the clock; every function here takes the time (``at``, in
milliseconds since the epoch, the same on every server) as an argument, so the
arithmetic is tested with made-up times and never reads a clock itself.

A clock is stored in the game's ``friend`` data as plain JSON (``to_json`` and
``from_json``). Only the side to move's time runs, from the first move on (so a
player who never starts is not flagged: abandonment covers that); each move adds
the increment to the mover's time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

#: The longest initial time and increment accepted (seconds): three hours, one minute.
MAX_INITIAL_SECONDS = 3 * 3600
MAX_INCREMENT_SECONDS = 60


class ClockError(ValueError):
    """Clock settings that are not a clock."""


@dataclass(frozen=True)
class Clock:
    """Both sides' remaining time when ``since`` (ms) came; ``running``: whose time runs."""

    initial_ms: int
    increment_ms: int
    remaining_ms: tuple[int, int]
    running: int | None = None
    since: int | None = None
    #: The end of the last outage given back (``after_outages``), so none is given twice.
    excused_to: int | None = None

    @classmethod
    def of_settings(cls, settings: object) -> Clock:
        """``{initial: SECONDS, increment: SECONDS}`` (whole or fractional) as a fresh clock.

        >>> Clock.of_settings({"initial": 60, "increment": 1}).remaining_ms
        (60000, 60000)
        """
        if not isinstance(settings, dict) or set(settings) - {"initial", "increment"}:
            raise ClockError("clock must be {initial: SECONDS, increment: SECONDS}.")
        initial, increment = settings.get("initial"), settings.get("increment", 0)
        for name, value, most in (
            ("initial", initial, MAX_INITIAL_SECONDS),
            ("increment", increment, MAX_INCREMENT_SECONDS),
        ):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ClockError(f"clock.{name} must be a number of seconds.")
            if not 0 <= value <= most or (name == "initial" and value <= 0):
                raise ClockError(f"clock.{name} must be within 0..{most} seconds.")
        assert isinstance(initial, int | float) and isinstance(increment, int | float)
        start = round(initial * 1000)
        if start <= 0:  # "0.0004" would be a clock already run out
            raise ClockError("clock.initial must be at least a millisecond.")
        return cls(start, round(increment * 1000), (start, start))

    def left(self, side: int, at: int) -> int:
        """``side``'s remaining time at ``at`` (never below 0)."""
        remaining = self.remaining_ms[side]
        if self.running == side and self.since is not None:
            remaining -= max(0, at - self.since)
        return max(0, remaining)

    def flagged(self, at: int) -> int | None:
        """The side whose time has run out at ``at``, if any."""
        if self.running is not None and self.left(self.running, at) == 0:
            return self.running
        return None

    def flag_at(self) -> int | None:
        """When the running side's time runs out (ms since the epoch), if a side's time runs."""
        if self.running is None or self.since is None:
            return None
        return self.since + self.remaining_ms[self.running]

    def stopped(self, at: int) -> Clock:
        """The clock stopped at ``at``: the running side's time is charged, nothing runs."""
        if self.running is None:
            return self
        times = list(self.remaining_ms)
        times[self.running] = self.left(self.running, at)
        return replace(self, remaining_ms=(times[0], times[1]), running=None, since=None)

    def pressed(self, mover: int, at: int) -> Clock:
        """``mover`` has moved at ``at``: their time is charged and gains the increment
        (from the second move on), and the other side's time runs."""
        started = self.running is not None
        clock = self.stopped(at)
        times = list(clock.remaining_ms)
        if started:
            times[mover] += self.increment_ms
        return replace(clock, remaining_ms=(times[0], times[1]), running=1 - mover, since=at)

    def excused(self, down_from: int, up_at: int) -> Clock:
        """No server was up from ``down_from`` to ``up_at``: the running side gets that
        time back (charged up to ``down_from``, or nothing if it began running later); its
        time runs again from ``up_at``.

        >>> clock = Clock(60_000, 0, (60_000, 60_000), running=0, since=1_000)
        >>> clock.excused(down_from=11_000, up_at=71_000).left(0, 71_000)
        50000
        """
        if self.running is None or self.since is None:
            return self
        start = max(self.since, down_from)
        if up_at <= start:
            return self
        return replace(self, since=self.since + (up_at - start))

    def after_outages(self, outages: Sequence[tuple[int, int]]) -> Clock:
        """The clock with each outage ``(down_from, up_at)`` not given back yet given back
        (``excused``), oldest first; ``excused_to`` then says up to when."""
        clock, last = self, self.excused_to
        for down_from, up_at in outages:
            if last is None or up_at > last:
                clock = clock.excused(down_from, up_at)
                last = up_at
        return clock if last == self.excused_to else replace(clock, excused_to=last)

    def runs_for(self, side: int, at: int) -> Clock:
        """The clock stopped, then ``side``'s time running from ``at`` (after a takeback)."""
        return replace(self.stopped(at), running=side, since=at)

    def view(self, at: int) -> dict[str, Any]:
        """What a page draws: both remaining times at ``at``, whose time runs, the settings."""
        return {
            "initial_ms": self.initial_ms,
            "increment_ms": self.increment_ms,
            "remaining_ms": [self.left(0, at), self.left(1, at)],
            "running": self.running,
        }

    def to_json(self) -> dict[str, Any]:
        data = {
            "initial_ms": self.initial_ms,
            "increment_ms": self.increment_ms,
            "remaining_ms": list(self.remaining_ms),
            "running": self.running,
            "since": self.since,
        }
        if self.excused_to is not None:
            data["excused_to"] = self.excused_to
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Clock:
        first, second = data["remaining_ms"]
        return cls(
            int(data["initial_ms"]),
            int(data["increment_ms"]),
            (int(first), int(second)),
            data["running"],
            data["since"],
            data.get("excused_to"),
        )
