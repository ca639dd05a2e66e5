"""Admission: rate limits per browser identity and per address, before any work is done.

A flood of game creations or Socket.IO events from one client is refused with
``RATE_LIMITED`` (HTTP 429 with ``Retry-After``, or an ``error`` event) while
everyone else plays on. Each action is counted twice, against the sender's
identity cookie and against its address, so that neither a client dropping its
cookie nor many browsers behind one address can get past both. The address
limits are generous enough for a class of 30 behind one school address to
start their games in the same minute.

The counters live where the ``RATE_LIMIT_STORAGE`` URI says: ``memory://`` for
one process (``LocalWindows``: a few dict and deque operations per check, no
thread), ``redis://...`` when several processes share the load (a ``limits``
storage, Flask-Limiter's backend; left at ``memory://``, it follows
``REDIS_URL``: processes that share Redis share the counts). The ``limits``
package's own memory storage is not used: it starts a timer thread on every
hit and sweeps every key each time.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from contextlib import suppress
from typing import Any, Protocol, TypeVar

from flask import Flask, current_app, g, request
from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from redis.exceptions import RedisError

from webapp import protocol
from webapp.services import GameError
from webapp.services.seats import new_token
from webapp.web.config import DEFAULTS
from webapp.web.identity import identity
from webapp.web.origin import may_set_identity

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: What is counted, and the config keys of its limits (per identity, per address).
#: A limit is a ``limits`` string ("10/minute", "100/hour;1000/day"); None or "" = no limit.
KINDS: dict[str, tuple[str, str]] = {
    "create": ("RATE_LIMIT_CREATE_PER_IDENTITY", "RATE_LIMIT_CREATE_PER_ADDRESS"),
    "event": ("RATE_LIMIT_EVENTS_PER_IDENTITY", "RATE_LIMIT_EVENTS_PER_ADDRESS"),
    "analyse": ("RATE_LIMIT_ANALYSE_PER_IDENTITY", "RATE_LIMIT_ANALYSE_PER_ADDRESS"),
    # Counted per address only: a new identity (identity.py), a Socket.IO connection.
    "identity": ("", "RATE_LIMIT_IDENTITIES_PER_ADDRESS"),
    "connect": ("", "RATE_LIMIT_CONNECTS_PER_ADDRESS"),
    # Engine.IO's handshake (connections.py): the same limit, a counter of its own.
    "session": ("", "RATE_LIMIT_CONNECTS_PER_ADDRESS"),
}

EXTENSION = "lookahead_admission"


class RateLimited(GameError):
    """A refusal by rate limit; ``retry_after`` is whole seconds until the next try may pass."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(protocol.RATE_LIMITED, message)
        self.retry_after = retry_after


#: The most counters ``LocalWindows`` keeps (the least recently hit go first).
LOCAL_KEYS = 100_000


class Windows(Protocol):
    """Moving-window counts: ``test`` (would one more pass?), ``hit`` (count it if it
    passes), ``wait`` (seconds until one more would pass)."""

    def test(self, item: RateLimitItem, *ids: str) -> bool: ...

    def hit(self, item: RateLimitItem, *ids: str) -> bool: ...

    def wait(self, item: RateLimitItem, *ids: str) -> float: ...


class LocalWindows:
    """Moving windows in this process: per counter the times of its last ``amount`` hits.

    One more hit passes when fewer than ``amount`` hits fall in the window, that is
    when the oldest kept hit is older than the window (a deque of ``amount`` at
    most). A counter whose last hit has left its window can never refuse again and is
    dropped (every hit sweeps the least recently hit); at most ``keys`` counters, the
    least recently hit dropped first. Every new browser brings counters of its own:
    without the sweep they stayed, a few hundred bytes each, up to ``keys``.
    """

    def __init__(self, keys: int = LOCAL_KEYS, clock: Callable[[], float] = time.monotonic) -> None:
        self._keys, self._clock = keys, clock
        self._lock = threading.Lock()
        # key -> (its last hits, its window in seconds), the least recently hit first
        self._hits: OrderedDict[str, tuple[deque[float], float]] = OrderedDict()

    def test(self, item: RateLimitItem, *ids: str) -> bool:
        with self._lock:
            return self._wait(item, item.key_for(*ids), self._clock()) <= 0

    def hit(self, item: RateLimitItem, *ids: str) -> bool:
        now = self._clock()
        key = item.key_for(*ids)
        with self._lock:
            if self._wait(item, key, now) > 0:
                return False
            kept = self._hits.get(key)
            if kept is None:
                kept = self._hits[key] = (deque(maxlen=item.amount), float(item.get_expiry()))
                if len(self._hits) > self._keys:
                    self._hits.popitem(last=False)
            else:
                self._hits.move_to_end(key)
            kept[0].append(now)
            self._sweep(now)
            return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._hits)

    def _sweep(self, now: float) -> None:
        """Drop the least recently hit counters whose last hit has left their window."""
        while self._hits:
            hits, window = next(iter(self._hits.values()))
            if hits[-1] + window > now:
                return
            self._hits.popitem(last=False)

    def wait(self, item: RateLimitItem, *ids: str) -> float:
        with self._lock:
            return self._wait(item, item.key_for(*ids), self._clock())

    def _wait(self, item: RateLimitItem, key: str, now: float) -> float:
        kept = self._hits.get(key)
        if kept is None or len(kept[0]) < item.amount:
            return 0.0
        return kept[0][0] + item.get_expiry() - now


#: Seconds a shared storage (Redis) may take to answer a check before it fails.
REDIS_TIMEOUT = 5.0
#: Seconds the shared counts are left alone once their storage failed a check: meanwhile
#: every check passes (``SharedWindows``), then the storage is asked again.
DOWN_SECONDS = 10.0
#: What a shared storage raises when it cannot count (down, silent, or garbled).
STORAGE_ERRORS = (RedisError, StorageError, OSError)
#: The storage URIs ``limits`` hands to a Redis client (they take its timeouts).
REDIS_SCHEMES = frozenset({"redis", "rediss", "redis+unix"})


class SharedWindows:
    """Moving windows in a ``limits`` storage (Redis: shared by the processes).

    A storage that fails a check lets it pass (fails open, logged once), and every check
    for ``DOWN_SECONDS`` after it, without asking: the limits guard the games against a
    flood, and refusing every action while their counts are out of reach would stop every
    game of every process, the store and the searches being fine. (A silent Redis would
    otherwise hold each check for ``REDIS_TIMEOUT``.) Then the storage is asked again.
    """

    def __init__(self, storage_uri: str, clock: Callable[[], float] = time.monotonic) -> None:
        # A Redis that stops answering fails a check after a while instead of holding its
        # thread for good (the join check runs on the timer thread every socket's pings share).
        waits = {"socket_timeout": REDIS_TIMEOUT, "socket_connect_timeout": REDIS_TIMEOUT}
        options = waits if storage_uri.split(":", 1)[0] in REDIS_SCHEMES else {}
        self.limiter = MovingWindowRateLimiter(storage_from_string(storage_uri, **options))
        self._clock = clock
        self._down_until = -math.inf
        self._guard = threading.Lock()

    def test(self, item: RateLimitItem, *ids: str) -> bool:
        return self._counted(lambda: self.limiter.test(item, *ids), True)

    def hit(self, item: RateLimitItem, *ids: str) -> bool:
        return self._counted(lambda: self.limiter.hit(item, *ids), True)

    def wait(self, item: RateLimitItem, *ids: str) -> float:
        stats: Any = self._counted(lambda: self.limiter.get_window_stats(item, *ids), None)
        return 1.0 if stats is None else stats.reset_time - time.time()

    def down(self) -> bool:
        """The storage failed a check less than ``DOWN_SECONDS`` ago."""
        return self._clock() < self._down_until

    def _counted(self, ask: Callable[[], _T], passing: _T) -> _T:
        if self.down():
            return passing
        try:
            return ask()
        except STORAGE_ERRORS as err:
            with self._guard:
                first = not self.down()
                self._down_until = self._clock() + DOWN_SECONDS
            if first:
                log.warning(
                    "rate limits: their storage failed a check (%s: %s); every check passes "
                    "for the next %.0f s",
                    type(err).__name__,
                    err,
                    DOWN_SECONDS,
                )
            return passing


def windows_at(storage_uri: str) -> Windows:
    """``LocalWindows`` for ``memory://``, else the ``limits`` storage of the URI."""
    if storage_uri.split("?", 1)[0] == "memory://":
        return LocalWindows()
    return SharedWindows(storage_uri)


class Admission:
    """The limits of each kind, checked against one storage."""

    def __init__(self, storage_uri: str, limits: dict[str, tuple[str | None, str | None]]) -> None:
        self.limiter = windows_at(storage_uri)
        self.limits: dict[str, tuple[list[RateLimitItem], list[RateLimitItem]]] = {
            kind: (_parse(per_identity), _parse(per_address))
            for kind, (per_identity, per_address) in limits.items()
        }

    def check(self, kind: str, identity: str | None, address: str | None) -> None:
        """Count one ``kind`` action by ``identity`` from ``address``, or raise RateLimited."""
        per_identity, per_address = self.limits[kind]
        counted = [(item, "id", identity) for item in per_identity if identity]
        counted += [(item, "addr", address) for item in per_address if address]
        for item, scope, key in counted:  # test all first: a refusal spends no one's budget
            if not self.limiter.test(item, kind, scope, key):
                raise self._refusal(item, kind, scope, key)
        for item, scope, key in counted:
            if not self.limiter.hit(item, kind, scope, key):
                raise self._refusal(item, kind, scope, key)

    def status(self) -> str:
        """Where the counts are, for the health check: ``"local"`` (this process's),
        ``"shared"`` (Redis), or ``"failing open"`` while the shared storage is left alone
        after a failed check (every check passes meanwhile: ``SharedWindows``)."""
        if isinstance(self.limiter, SharedWindows):
            return "failing open" if self.limiter.down() else "shared"
        return "local"

    def _refusal(self, item: RateLimitItem, kind: str, scope: str, key: str) -> RateLimited:
        wait = max(1, math.ceil(self.limiter.wait(item, kind, scope, key)))
        who = "this browser" if scope == "id" else "your network address"
        return RateLimited(f"Too many requests from {who}: try again in {wait} s.", wait)


def _parse(text: str | None) -> list[RateLimitItem]:
    return [parse(part) for part in (text or "").split(";") if part.strip()]


def init_app(app: Flask) -> None:
    """Build the app's limits from its config (a bad limit string fails here, at start-up)."""
    limits = {kind: (app.config[i] if i else None, app.config[a]) for kind, (i, a) in KINDS.items()}
    app.extensions[EXTENSION] = Admission(storage_uri(app.config), limits)


def storage_uri(config: Mapping[str, Any]) -> str:
    """Where the counts live: ``RATE_LIMIT_STORAGE``, or the shared Redis if it is left at
    its default and ``REDIS_URL`` is set."""
    storage: str = config["RATE_LIMIT_STORAGE"]
    if storage == DEFAULTS["RATE_LIMIT_STORAGE"] and config.get("REDIS_URL"):
        storage = config["REDIS_URL"]
    return storage


def admit(kind: str, *, per_address: bool = True) -> None:
    """Count one ``kind`` action of this request (HTTP or Socket.IO), or raise RateLimited.

    ``per_address=False`` counts it against the browser's own limit only (with
    no identity cookie, the address's): a flooding neighbour behind the same
    address cannot stop others from opening their games.
    """
    admission: Admission = current_app.extensions[EXTENSION]
    browser = identity()
    address = request.remote_addr if per_address or browser is None else None
    admission.check(kind, browser, address)


class IdentityRefused(GameError):
    """No identity is minted for a request from another site (which the app refuses anyway)."""

    def __init__(self) -> None:
        message = "No identity is given to a request from another site."
        super().__init__(protocol.CROSS_SITE, message, 403)


def ensure_identity() -> str:
    """The request's identity; a new one (set as a cookie on the response) if it has none.

    Raises ``RateLimited`` past the address's limit of new identities, and
    ``IdentityRefused`` on a cross-site request (which the app refuses anyway).
    """
    token = identity()
    if token is None:
        if not may_set_identity():
            raise IdentityRefused()
        admit("identity")
        token = g.new_identity = new_token()
    return token


def offer_identity() -> None:
    """Give the request an identity if it may have one (a page: its visitor may only watch)."""
    with suppress(GameError):  # past the address's limit of new identities, or cross-site
        ensure_identity()
