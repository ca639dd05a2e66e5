"""What a search host watches on Redis: cancel keys, game epochs, and its own heartbeat.

One thread polls, every ``POLL`` seconds, the cancel keys of the jobs the host
is running (one ``MGET``) and sets their events, so a cancel reaches a running
search within a second wherever it runs; it also drops the scores a host is
computing for a game whose engine search started or stopped since (the game's
epoch moved: the human moved, undid, or changed the settings). Every
``BEAT`` seconds it writes the host's heartbeat and pool stats to ``HOSTS``,
which a web process's ``/healthz`` reads.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from webapp.search_pool.queue import HOSTS, cancel_key, epoch_key

log = logging.getLogger(__name__)

#: Seconds between two looks at the cancel keys (a cancel reaches a search in about this).
POLL = 0.2
#: Seconds between two heartbeats.
BEAT = 2.0
#: Seconds a game's scores are watched after its engine move (past it they are done).
SCORES_SECONDS = 120.0


class Watch:
    """The host's watcher thread (``start``, ``stop``) and what it watches (``track``...)."""

    def __init__(
        self, client: redis.Redis, host_id: str, stats: Callable[[], dict[str, Any]]
    ) -> None:
        self.client, self.host_id, self.stats = client, host_id, stats
        self._lock = threading.Lock()
        self._cancels: dict[str, threading.Event] = {}  # job uid -> set when cancelled
        # game id -> (epoch when its scores started, until when, what drops them)
        self._scores: dict[str, tuple[int, float, Callable[[], None]]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="host-watch", daemon=True)

    def start(self) -> None:
        self._beat()  # seen at once, not after the first interval
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(BEAT + 5)
        with contextlib.suppress(redis.RedisError):  # else its heartbeat goes stale by itself
            self.client.hdel(HOSTS, self.host_id)

    def track(self, uid: str) -> threading.Event:
        """The event set once job ``uid`` is cancelled."""
        with self._lock:
            return self._cancels.setdefault(uid, threading.Event())

    def untrack(self, uid: str) -> None:
        with self._lock:
            self._cancels.pop(uid, None)

    def cancelled(self, uid: str) -> bool:
        """Ask Redis now (before a search starts: a job cancelled while it waited)."""
        try:
            return bool(self.client.exists(cancel_key(uid)))
        except redis.RedisError:
            return False

    def watch_scores(self, game_id: str, epoch: int | None, drop: Callable[[], None]) -> None:
        """Call ``drop`` if the game's epoch moves past ``epoch`` in the next while."""
        if epoch is None:
            return
        with self._lock:
            self._scores[game_id] = (epoch, time.monotonic() + SCORES_SECONDS, drop)

    # -- the thread --------------------------------------------------------------------
    def _run(self) -> None:
        next_beat = time.monotonic() + BEAT
        while not self._stop.wait(POLL):
            try:
                self._look()
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + BEAT
                    self._beat()
            except redis.RedisError as err:
                log.error("search host: Redis unreachable: %s", err)
                self._stop.wait(1.0)
            except Exception:  # a bug here must not stop cancels for good
                log.exception("search host: the watch failed")

    def _look(self) -> None:
        with self._lock:
            cancels = list(self._cancels.items())
            now = time.monotonic()
            self._scores = {g: s for g, s in self._scores.items() if s[1] > now}
            scores = list(self._scores.items())
        if cancels:
            flags = self.client.mget([cancel_key(uid) for uid, _ in cancels])
            for (_, event), flag in zip(cancels, flags, strict=True):
                if flag is not None:
                    event.set()
        if scores:
            epochs = self.client.mget([epoch_key(game_id) for game_id, _ in scores])
            for (game_id, (epoch, _, drop)), now_epoch in zip(scores, epochs, strict=True):
                if int(now_epoch or 0) != epoch:
                    with self._lock:
                        self._scores.pop(game_id, None)
                    drop()

    def _beat(self) -> None:
        beat = {"at": time.time(), **self.stats()}
        self.client.hset(HOSTS, self.host_id, json.dumps(beat))
