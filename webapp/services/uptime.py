"""While no server is up, the clocks of games between people do not run.

Every web process says it is up (``GameStore.mark_alive``) every ``BEAT_SECONDS``, on
the process's timer thread, and once more as it closes. A process that starts reads
when a server was last up: more than ``DOWN_AFTER_SECONDS`` ago means no server was up
since (one that is beats more often), and the running clocks of unfinished games get
that time back (``Friends.excuse_downtime``): the player on move is not charged for an
outage, and their time runs again from the restart. Of several processes starting
together, one does it (``claim_downtime``, a compare-and-set). A server killed between
two beats counts as up until its last beat: its clocks get up to ``BEAT_SECONDS`` more
than the outage; a restart quicker than ``DOWN_AFTER_SECONDS`` is charged as play.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from webapp.search_pool import timers
from webapp.search_pool.timers import Delayed
from webapp.services.friends import Friends, wall_ms
from webapp.store import GameStore, StoreError

log = logging.getLogger(__name__)

#: Seconds between two "up" marks of a running server.
BEAT_SECONDS = 5.0
#: A last mark older than this at start-up: no server has been up since.
DOWN_AFTER_SECONDS = 1.5 * BEAT_SECONDS


class Uptime:
    """A process's "up" marks, and the outage before it, given back to the clocks."""

    def __init__(
        self, store: GameStore, friends: Friends, now_ms: Callable[[], int] = wall_ms
    ) -> None:
        self.store, self.friends, self.now_ms = store, friends, now_ms
        self._guard = threading.Lock()
        self._next: Delayed | None = None
        self._closed = False

    def start(self) -> None:
        """Give the clocks back an outage that ended now, if any; then beat."""
        at = self.now_ms()
        try:
            seen = self.store.last_alive()
            if seen is not None and at - seen <= DOWN_AFTER_SECONDS * 1000:
                self.store.mark_alive(at)  # another server is up, or this one was a moment ago
            elif self.store.claim_downtime(seen, at) and seen is not None:
                given = self.friends.excuse_downtime(seen, at)
                log.info("no server was up for %.1f s: %d clocks get that time back",
                         (at - seen) / 1000, given)  # fmt: skip
        except StoreError as err:  # the store is down: it serves nothing yet, nor clocks
            log.warning("the clocks cannot be given back an outage: %s", err)
        self._schedule()

    def close(self) -> None:
        """No more beats; a last mark, so the outage counts from now."""
        with self._guard:
            self._closed = True
            beat, self._next = self._next, None
        if beat is not None:
            beat.cancel()
        self._mark()

    def _schedule(self) -> None:
        with self._guard:
            if not self._closed:
                self._next = timers.shared().call_later(BEAT_SECONDS, self._beat)

    def _beat(self) -> None:
        self._mark()
        self._schedule()

    def _mark(self) -> None:
        try:
            self.store.mark_alive(self.now_ms())
        except StoreError as err:  # the health check says so; the next beat tries again
            log.warning("cannot mark this server up: %s", err)
