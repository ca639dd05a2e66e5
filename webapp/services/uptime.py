"""While no server is up, the clocks of games between people do not run.

Every web process says it is up (``GameStore.mark_alive``) every ``BEAT_SECONDS``, on
a timer thread of its own, and once more as it closes. A process that starts reads when
a server was last up: more than ``DOWN_AFTER_SECONDS`` ago means no server was up since
(one that is beats more often), and that window is recorded as an outage
(``claim_downtime``: a compare-and-set, so of several processes starting together one
records it). Each process then knows every recorded outage (``Friends.outages``), and
each read of a clock gives the running side the outages since it last did
(``Clock.after_outages``, marked on the clock so none is given twice; saved with the
game's next change): the player on move is not charged for an outage, whichever server
serves the game first, and no game is scanned at start-up. A server killed between two
beats counts as up until its last beat: its clocks get up to ``BEAT_SECONDS`` more than
the outage; a restart quicker than ``DOWN_AFTER_SECONDS`` is charged as play. A store
that cannot be read at start-up is tried again at each beat, before the next mark.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from webapp.search_pool.timers import Delayed, Timers
from webapp.services.errors import GameError
from webapp.services.friends import Friends, wall_ms
from webapp.store import GameStore, StoreError

log = logging.getLogger(__name__)

#: Seconds between two "up" marks of a running server.
BEAT_SECONDS = 5.0
#: A last mark older than this at start-up: no server has been up since. Three beats: a
#: beat late under load, or hosts' clocks a little apart, is no outage.
DOWN_AFTER_SECONDS = 3 * BEAT_SECONDS


class Uptime:
    """A process's "up" marks; the outages before it, for its clocks."""

    def __init__(
        self, store: GameStore, friends: Friends, now_ms: Callable[[], int] = wall_ms
    ) -> None:
        self.store, self.friends, self.now_ms = store, friends, now_ms
        self._guard = threading.Lock()
        self._timers: Timers | None = None
        self._next: Delayed | None = None
        self._started = False  # the outage before this start is known (or there was none)
        self._closed = False

    def start(self) -> None:
        """Record the outage that ended now, if any, and learn every outage; then beat."""
        self._start()
        with self._guard:
            if not self._closed:
                self._timers = Timers(name="uptime")
        self._schedule()

    def close(self, mark: bool = True) -> None:
        """No more beats; a last mark (unless not ``mark``: the store may be gone), so an
        outage counts from now."""
        with self._guard:
            was_closed, self._closed = self._closed, True
            beat, self._next = self._next, None
            timers, self._timers = self._timers, None
        if beat is not None:
            beat.cancel()
        if timers is not None:
            timers.close()
        if mark and not was_closed and self._started:
            self._mark()

    def _start(self) -> None:
        at = self.now_ms()
        try:
            seen = self.store.last_alive()
            if seen is not None and at - seen <= DOWN_AFTER_SECONDS * 1000:
                self.store.mark_alive(at)  # another server is up, or this one was a moment ago
            elif self.store.claim_downtime(seen, at) and seen is not None:
                log.info("no server was up for %.1f s: the clocks get it back", (at - seen) / 1000)
            self.friends.outages = tuple(self.store.outages())  # another's claim too
            self._started = True
        except (StoreError, GameError) as err:  # tried again at the next beat
            log.warning("cannot learn whether the server was down: %s", err)

    def _schedule(self) -> None:
        with self._guard:
            if self._timers is not None and not self._closed:
                self._next = self._timers.call_later(BEAT_SECONDS, self._beat)

    def _beat(self) -> None:
        if self._started:
            self._mark()
        else:
            self._start()
        self._schedule()

    def _mark(self) -> None:
        try:
            self.store.mark_alive(self.now_ms())
        except StoreError as err:  # the health check says so; the next beat tries again
            log.warning("cannot mark this server up: %s", err)
