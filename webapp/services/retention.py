"""Retention: delete abandoned and old games, so the store's size follows activity.

Games are never finished by their players as often as they are started: an
unfinished game nobody touched for ``unfinished_days`` is abandoned, and a
finished game older than ``finished_days`` has been looked at for long
enough. ``prune`` deletes both kinds once; ``RetentionSchedule`` runs it on a
background thread every few hours; ``python -m webapp prune`` runs it by hand.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from webapp.store import GameStore

log = logging.getLogger(__name__)

#: The defaults (the app's RETENTION_* settings and ``python -m webapp prune``): a month
#: for a game nobody plays on, a year for a finished one, pruned every 6 hours.
UNFINISHED_DAYS = 30
FINISHED_DAYS = 365
EVERY_HOURS = 6

#: The first scheduled run waits at most this long after start-up (seconds), so a
#: server restarted more often than its interval still prunes.
FIRST_RUN_DELAY = 300.0


def cutoffs(
    unfinished_days: float, finished_days: float, now: datetime | None = None
) -> tuple[str, str]:
    """``(unfinished_before, finished_before)`` as ISO strings in the store's format."""
    moment = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)

    def before(days: float) -> str:
        if days < 0:
            raise ValueError(f"retention days must be 0 or more, not {days}")
        return (moment - timedelta(days=days)).isoformat(timespec="seconds")

    return before(unfinished_days), before(finished_days)


def prune(
    store: GameStore,
    *,
    unfinished_days: float,
    finished_days: float,
    now: datetime | None = None,
) -> int:
    """Delete the games past their retention; how many were deleted."""
    unfinished_before, finished_before = cutoffs(unfinished_days, finished_days, now)
    removed = store.prune(unfinished_before=unfinished_before, finished_before=finished_before)
    log.info(
        "retention: removed %d games (unfinished before %s, finished before %s)",
        removed,
        unfinished_before,
        finished_before,
    )
    return removed


class RetentionSchedule:
    """``prune`` every ``every_hours`` on a background task until ``stop()``.

    A failed run (a locked database, say) is logged and retried at the next
    interval; it never ends the schedule.
    """

    def __init__(
        self,
        store: GameStore,
        *,
        unfinished_days: float,
        finished_days: float,
        every_hours: float,
        first_delay: float = FIRST_RUN_DELAY,
    ) -> None:
        if every_hours <= 0:
            raise ValueError("every_hours must be positive (0 means: no schedule)")
        cutoffs(unfinished_days, finished_days)  # refuse bad settings at start-up
        self.store = store
        self.unfinished_days, self.finished_days = unfinished_days, finished_days
        self.every = every_hours * 3600.0
        self.first_delay = min(first_delay, self.every)
        self.runs = 0  # completed runs (tests wait on it)
        self._stop = threading.Event()

    def start(self, start_task: Callable[[Callable[[], None]], Any]) -> None:
        """Run the loop with ``start_task`` (``socketio.start_background_task``)."""
        start_task(self._loop)

    def stop(self) -> None:
        self._stop.set()

    def run_once(self) -> int | None:
        """One pruning; None if it failed (logged)."""
        try:
            return prune(
                self.store, unfinished_days=self.unfinished_days, finished_days=self.finished_days
            )
        except Exception:  # any store failure: log it, try again next time
            log.exception("retention: pruning failed")
            return None
        finally:
            self.runs += 1

    def _loop(self) -> None:
        wait = self.first_delay
        while not self._stop.wait(wait):
            self.run_once()
            wait = self.every
