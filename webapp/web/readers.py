"""Every WebSocket's messages read and handled on a few threads that share one epoll.

Each WebSocket used to be read by its own (gunicorn's) thread, which then ran the
handler of each message it read. A burst of moves from 200 pages woke 200 threads at
once, each to take its turns at the interpreter among the others: the same 200 moves
cost the web process about a fifth more CPU than when they came over ten connections,
and the burst's p95 fell from 351-413 ms to 195-319 with two readers
(docs/operations.md, "A few threads read every WebSocket").

Here a WebSocket's thread, once the socket is upgraded, parks (``Readers.serve``: it
waits, costing nothing, until the connection is over, then closes it as before), and
its socket joins an epoll shared by ``threads`` reader threads. Each reader waits for
one ready socket at a time, reads all the socket has, and runs the handlers of the
messages in it, in order. The epoll is edge-triggered: a socket's becoming ready is
told once, to one reader, with no system call to arm it again. A connection is on one
reader at a time (``busy``): a reader told of a connection another reader is on
leaves it a note (``again``), and that one reads once more before it lets go, the
check and the letting go under one lock, so no news is lost between them. So a
connection's messages are handled one at a time, in the order sent, as before. Under
a burst a reader goes from one ready socket to the next without sleeping.

A handler that waits (a game's lock, a slow store) holds its reader. So that a few
such waits never hold up every page, a reader that has found every reader busy
asks for a look ``STUCK_SECONDS`` later (on the pings' timer thread); if every reader
is busy still, one more starts, up to ``most``. A reader beyond ``threads`` that
finds no socket ready for ``IDLE_SECONDS`` ends.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: Reader threads kept while WebSockets are open. Two, measured: a burst of 200 first
#: moves had its p95 at 195-319 ms with two, 363-419 with one (no reading while the one
#: waits on SQLite or a socket), and higher again with four or eight (more threads taking
#: turns at the interpreter); a thread per connection, before, 351-413.
THREADS = 2
#: The most reader threads at once (more start only while every reader is held up).
MOST = 64
#: Seconds every reader must have been busy before one more starts: a handler held up
#: that long waits on something (a game's lock, a store), not on the interpreter; a
#: shorter look (0.05 s) added readers in every burst, and the burst was slower for it.
STUCK_SECONDS = 0.5
#: Seconds a reader beyond ``THREADS`` waits for a ready socket before it ends.
IDLE_SECONDS = 30.0

#: What a socket is watched for: data, the client's end of writing, and (always reported)
#: errors and hang-ups; edge-triggered: each becoming ready is reported once (a step
#: reads all there is), with no system call to arm it again.
WATCH = select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLET


class Step(Protocol):
    """A connection's turn on a reader: read what its socket has and handle it."""

    def __call__(self) -> bool:
        """True while the connection goes on; False once it is over. It reads until the
        socket has nothing more (a read shorter than asked for says so): its next data
        is reported again, not what is left of this."""
        ...


class Later(Protocol):
    def call_later(self, delay: float, call: Callable[[], None]) -> Any: ...


@dataclass(eq=False)
class Watched:
    """One connection served by the readers."""

    fd: int
    step: Step
    over: threading.Event = field(default_factory=threading.Event)
    busy: bool = False  # a reader is on it
    again: bool = False  # it became ready again meanwhile: its reader reads once more


class Readers:
    """The reader threads and their epoll (made on first use, in the process that uses them)."""

    def __init__(
        self,
        timers: Later,
        threads: int = THREADS,
        most: int = MOST,
        stuck_seconds: float = STUCK_SECONDS,
        idle_seconds: float = IDLE_SECONDS,
        name: str = "websocket-reader",
    ) -> None:
        if not 1 <= threads <= most:
            raise ValueError("readers need 1 <= threads <= most")
        self.timers, self.threads, self.most, self.name = timers, threads, most, name
        self.stuck_seconds, self.idle_seconds = stuck_seconds, idle_seconds
        self._lock = threading.Lock()
        self._epoll: Any = None  # select.epoll, made by the first ``serve``
        self._pid = 0  # the process it was made in (a fork does not share it)
        self._watched: dict[int, Watched] = {}
        self._alive = 0  # reader threads running
        self._idle = 0  # of them, waiting for a socket
        self._started = 0  # in all (names)
        self._look: Any = None  # the look at stuck readers, while one is asked for
        self._closed: list[tuple[Any, int, int]] = []  # closed epolls, their readers ending

    # -- the connections' side -----------------------------------------------------------

    def serve(self, fd: int, step: Step) -> None:
        """Handle the socket ``fd``'s messages on the readers (``step()`` each time it is
        ready) until ``step`` says the connection is over; the calling thread waits meanwhile."""
        watched = Watched(fd, step)
        with self._lock:
            epoll = self._ready()
            self._watched[fd] = watched
        try:
            epoll.register(fd, WATCH)
        except OSError:  # the socket is gone already
            with self._lock:
                self._watched.pop(fd, None)
            return
        try:
            watched.over.wait()
        finally:
            with self._lock:
                if self._watched.get(fd) is watched:
                    del self._watched[fd]
                    self._unregister(fd)

    def connections(self) -> int:
        with self._lock:
            return len(self._watched)

    def alive(self) -> bool:
        """False while connections wait and no reader is left to serve them (a reader that
        dies is logged and replaced at once: this is for ``/healthz``)."""
        with self._lock:
            return not self._watched or self._alive > 0

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {"readers": self._alive, "idle": self._idle, "connections": len(self._watched)}

    # -- the readers -------------------------------------------------------------------

    def _ready(self) -> Any:
        """Under the lock: the epoll of this process, and at least ``threads`` readers."""
        if self._epoll is None or self._pid != os.getpid():
            self._epoll, self._pid = select.epoll(), os.getpid()
            self._watched.clear()
            self._alive = self._idle = 0
        while self._alive < self.threads and self._start():
            pass
        return self._epoll

    def _start(self) -> bool:  # under the lock
        self._started += 1
        thread = threading.Thread(
            target=self._read, args=(self._epoll,), name=f"{self.name}-{self._started}", daemon=True
        )
        self._alive += 1
        self._idle += 1
        try:
            thread.start()
        except RuntimeError:  # no thread to be had: the others go on
            self._alive -= 1
            self._idle -= 1
            log.warning("no thread for one more WebSocket reader")
            return False
        return True

    def _read(self, epoll: Any) -> None:
        try:
            while self._read_one(epoll):
                pass
        except BaseException:
            log.exception("a WebSocket reader died: another takes its place")
            with self._lock:
                if self._epoll is epoll:
                    self._alive -= 1
                    self._idle -= 1
                    self._start()
            raise

    def _read_one(self, epoll: Any) -> bool:
        """Wait for one ready socket and serve it; False when this reader ends."""
        extra = self._alive > self.threads  # read without the lock: a hint
        try:
            ready = epoll.poll(self.idle_seconds if extra else -1, 1)
        except InterruptedError:
            return True
        except (OSError, ValueError):  # closed under it
            return False
        with self._lock:
            if self._epoll is not epoll:  # closed (``close``): every reader of it ends
                return False
            if not ready:
                if self._alive > self.threads:  # an extra reader, idle: it ends
                    self._alive -= 1
                    self._idle -= 1
                    return False
                return True
            watched = self._watched.get(ready[0][0])
            if watched is None:  # unregistered meanwhile
                return True
            if watched.busy:  # its reader reads again before it lets go
                watched.again = True
                return True
            watched.busy = True
            self._idle -= 1
            if self._idle == 0 and self._alive < self.most and self._look is None:
                self._look = self.timers.call_later(self.stuck_seconds, self._stuck)
        going_on = False
        try:
            while True:
                going_on = watched.step()
                with self._lock:
                    # Checked and let go at once: news of it from now on finds it free.
                    if going_on and watched.again:
                        watched.again = False  # more came meanwhile: read again
                        continue
                    self._let_go(watched, epoll, going_on)
                    return True
        except Exception:
            log.exception("a WebSocket's messages failed")
            with self._lock:
                self._let_go(watched, epoll, False)
        except BaseException:
            with self._lock:
                self._let_go(watched, epoll, False)
            raise
        return True

    def _let_go(self, watched: Watched, epoll: Any, going_on: bool) -> None:
        """Under the lock: the reader is done with ``watched`` (over unless ``going_on``)."""
        watched.busy = watched.again = False
        if self._epoll is epoll:
            self._idle += 1
        if not going_on:
            if self._watched.get(watched.fd) is watched:
                del self._watched[watched.fd]
                self._unregister(watched.fd)
            watched.over.set()  # its own thread closes it

    def _stuck(self) -> None:
        """On the timer thread: every reader still busy? One more."""
        with self._lock:
            self._look = None
            if self._epoll is not None and self._idle == 0 and self._alive < self.most:
                log.info("every WebSocket reader busy for %.2f s: one more", self.stuck_seconds)
                self._start()

    def _unregister(self, fd: int) -> None:  # under the lock
        with suppress(OSError, ValueError):
            self._epoll.unregister(fd)

    def close(self) -> None:
        """End the readers and let every parked connection thread go (tests, shutdown)."""
        with self._lock:
            epoll, self._epoll = self._epoll, None
            watched = list(self._watched.values())
            self._watched.clear()
            self._alive = self._idle = 0
        for each in watched:
            each.over.set()
        if epoll is not None:  # a pipe that stays readable wakes every reader: they end
            read_end, write_end = os.pipe()
            os.write(write_end, b"x")
            epoll.register(read_end, select.EPOLLIN)
            # The readers see the epoll is no longer the current one; its descriptors
            # (three) are left open for them, closed with the process.
            self._closed.append((epoll, read_end, write_end))
