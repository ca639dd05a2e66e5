"""When to replace a dead worker, and when its deaths amount to a crash loop.

A dead worker is always replaced: a lifetime budget of restarts turns a few
unlucky minutes into a server that refuses every move for ever. Instead each
worker slot remembers its deaths within the last ``window`` seconds; the
replacement waits ``base * 2**(deaths - 1)`` seconds, at most ``ceiling``, so
a worker that dies once is back in ``base`` seconds and one that keeps dying
stops eating the machine. ``loop`` deaths within the window is a crash loop: it is
reported (and logged by the pool) until the window holds fewer again.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


def restart_delay(deaths: int, base: float, ceiling: float) -> float:
    """Seconds to wait before replacing a worker that died ``deaths`` times in the window."""
    if deaths <= 0:
        return 0.0
    return min(ceiling, base * 2.0 ** min(deaths - 1, 64))


class CrashTracker:
    """Deaths per worker slot over a sliding window of time."""

    def __init__(
        self,
        slots: int,
        backoff: tuple[float, float],
        window: float,
        loop: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base, self.ceiling = backoff
        self.window, self.loop, self.clock = window, loop, clock
        self._deaths = [deque[float]() for _ in range(slots)]

    def died(self, slot: int) -> float:
        """Record a death of ``slot``; return the seconds to wait before replacing it."""
        deaths = self._recent(slot)
        deaths.append(self.clock())
        return restart_delay(len(deaths), self.base, self.ceiling)

    def deaths(self, slot: int) -> int:
        """Deaths of ``slot`` within the window."""
        return len(self._recent(slot))

    def crash_loop(self) -> bool:
        """True while some slot died ``loop`` times or more within the window."""
        return any(self.deaths(slot) >= self.loop for slot in range(len(self._deaths)))

    def _recent(self, slot: int) -> deque[float]:
        deaths = self._deaths[slot]
        oldest = self.clock() - self.window
        while deaths and deaths[0] < oldest:
            deaths.popleft()
        return deaths
