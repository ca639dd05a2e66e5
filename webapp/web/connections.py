"""Engine.IO sessions per address: counted as they open, capped while open, and closed
when they join nothing.

Socket.IO's own ``connect`` (``sockets.on_connect``) is counted against
``RATE_LIMIT_CONNECTS_PER_ADDRESS``, but it comes after Engine.IO's handshake: a client
that opened WebSockets and never sent Socket.IO's CONNECT, only answering pings, was
never counted and held a server thread each for as long as it liked (a hostile
client's try: 2,000 of them from one address filled every thread of the worker in 12
s, and nobody else could even start a game). Here, at Engine.IO's handshake:

* a new session counts against the same limit per address (its own counter, kind
  ``session``, so that a page's handshake and its CONNECT do not halve it);
* at most ``CONNECTIONS_PER_ADDRESS`` sessions of one address are open at once;
* a session that has joined no namespace ``JOIN_SECONDS`` after it opened is closed.
  Its messages and that check take turns (``_Unjoined``): a CONNECT under way when the
  check comes is heard out first, and one that comes after the close is not heard.

A refused handshake is Engine.IO's 401 with the reason; the page's client retries later.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from typing import Any

from webapp.search_pool.timers import Timers
from webapp.services import GameError
from webapp.web.admission import Admission

log = logging.getLogger(__name__)

#: Seconds a session may stay open without joining a namespace (a page joins at once).
JOIN_SECONDS = 10.0
#: Seconds before the join check looks again at a session whose message is being handled.
RECHECK_SECONDS = 0.25
#: Socket.IO's namespace our pages join.
NAMESPACE = "/"


class _Unjoined:
    """A session before its join check: its messages and the check take turns."""

    __slots__ = ("closed", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.closed = False  # closed for joining nothing: a late message is not heard


class Connections:
    """The guard, wrapped around an Engine.IO server's connect, disconnect and message."""

    def __init__(
        self,
        eio: Any,
        joined: Any,
        admission: Admission,
        cap: int | None,
        timers: Timers,
        join_seconds: float = JOIN_SECONDS,
    ) -> None:
        """``joined(eio_sid)``: whether the session has joined our namespace;
        ``cap``: sessions open at once per address (None: no cap)."""
        self.eio, self.joined, self.admission, self.cap = eio, joined, admission, cap
        self.timers, self.join_seconds = timers, join_seconds
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()  # address -> its sessions open
        self._address: dict[str, str] = {}  # eio sid -> its address
        self._unjoined: dict[str, _Unjoined] = {}  # eio sid -> its guard, until its check
        self._on_connect = eio.handlers.get("connect")
        self._on_disconnect = eio.handlers.get("disconnect")
        self._on_message = eio.handlers.get("message")
        eio.on("connect", self._connect)
        eio.on("disconnect", self._disconnect)
        eio.on("message", self._message)

    def open_count(self, address: str) -> int:
        with self._lock:
            return self._open.get(address, 0)

    def _connect(self, eio_sid: str, environ: dict[str, Any]) -> Any:
        address = str(environ.get("REMOTE_ADDR") or "")
        try:
            self.admission.check("session", None, address or None)
        except GameError as refused:
            return refused.message  # Engine.IO: a 401 with the reason
        with self._lock:
            if self.cap is not None and self._open[address] >= self.cap:
                return f"Too many connections from your network address (at most {self.cap})."
            self._open[address] += 1
            self._address[eio_sid] = address
            self._unjoined[eio_sid] = _Unjoined()
        try:
            answer = self._on_connect(eio_sid, environ) if self._on_connect else None
        except BaseException:
            self._forget(eio_sid)
            raise
        if answer is None or answer is True:
            self.timers.call_later(self.join_seconds, lambda: self._check_joined(eio_sid))
        else:
            self._forget(eio_sid)
        return answer

    def _disconnect(self, eio_sid: str, *reason: Any) -> Any:
        try:
            return self._on_disconnect(eio_sid, *reason) if self._on_disconnect else None
        finally:
            self._forget(eio_sid)

    def _message(self, eio_sid: str, data: Any) -> Any:
        """Engine.IO's message handler: until its join check, a session's messages take
        turns with it; after, they go straight on."""
        guard = self._unjoined.get(eio_sid)
        if guard is None:
            if eio_sid not in self._address:
                return None  # closed already (a packet read before the close): nobody to hear
            return self._on_message(eio_sid, data) if self._on_message else None
        with guard.lock:
            if guard.closed:
                return None  # closed for joining nothing: its late CONNECT is not heard
            return self._on_message(eio_sid, data) if self._on_message else None

    def _forget(self, eio_sid: str) -> None:
        self._unjoined.pop(eio_sid, None)
        with self._lock:
            address = self._address.pop(eio_sid, None)
            if address is not None:
                self._open[address] -= 1
                if self._open[address] <= 0:
                    del self._open[address]

    def _check_joined(self, eio_sid: str) -> None:
        """On the timer's thread: close the session if it is open and joined nothing (a
        message under way, its CONNECT perhaps, is heard out first)."""
        guard = self._unjoined.get(eio_sid)  # gone once the session ended (``_forget``)
        if guard is None:
            return
        # The timer's thread is every socket's pings' too: it never waits for a message's
        # handler (a CONNECT counted in Redis), it looks again a moment later.
        if not guard.lock.acquire(blocking=False):
            self.timers.call_later(RECHECK_SECONDS, lambda: self._check_joined(eio_sid))
            return
        try:
            if self.joined(eio_sid):
                self._unjoined.pop(eio_sid, None)
                return
            guard.closed = True
        finally:
            guard.lock.release()
        log.info("session %s joined nothing in %.0f s: closed", eio_sid, self.join_seconds)
        # Engine.IO's ``disconnect`` would wait for a long-polling client to take its
        # last packet, on this (shared) timer thread: closed without waiting instead.
        socket = self.eio.sockets.get(eio_sid)
        if socket is not None:
            socket.close(wait=False, reason=self.eio.reason.SERVER_DISCONNECT)
            self.eio.sockets.pop(eio_sid, None)
