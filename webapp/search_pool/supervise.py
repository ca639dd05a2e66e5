"""Background loops that are watched: one that dies is logged, restarted and reported.

A loop (the pool's relay, the queue's reply reader, retention) runs under
``Supervisor.start(name, loop)``: if ``loop()`` raises, the error is logged
with its traceback, the loop is marked down, and after a backoff (growing,
reset once it has run a while) it is called again on the same thread. A loop
that returns has ended on purpose (its pool closed) and is not restarted.
``status()`` says which are down, for ``/healthz`` (503 while one is).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

#: Seconds before the first restart, and the most between two.
BACKOFF = (0.1, 10.0)
#: A loop that ran this long before dying starts again from the first backoff.
STEADY_SECONDS = 60.0

Loop = Callable[[], None]
StartThread = Callable[[Loop], Any]


def start_daemon(loop: Loop) -> threading.Thread:
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


@dataclass
class Watched:
    """One supervised loop's state."""

    name: str
    running: bool = False
    down: bool = False  # died, waiting to be restarted
    restarts: int = 0
    last_error: str = ""
    #: Cuts its backoff short (``restart_now``, ``stop``); one per loop, so that one
    #: loop clearing it never swallows another's wake-up.
    wake: threading.Event = field(default_factory=threading.Event)


class Supervisor:
    """Runs loops on threads (``start_thread(fn)``), restarting those that die."""

    def __init__(
        self,
        start_thread: StartThread = start_daemon,
        backoff: tuple[float, float] = BACKOFF,
    ) -> None:
        self.start_thread, self.backoff = start_thread, backoff
        self._lock = threading.Lock()
        self._watched: dict[str, Watched] = {}
        self._stopped = False

    def start(self, name: str, loop: Loop) -> None:
        """Run ``loop`` on a thread of its own, supervised, under ``name`` (unique)."""
        with self._lock:
            if name in self._watched and self._watched[name].running:
                raise ValueError(f"a loop named {name!r} runs already")
            watched = self._watched[name] = Watched(name, running=True)
        self.start_thread(lambda: self._run(watched, loop))

    def starter(self, name: str) -> StartThread:
        """``start_thread`` for a component that starts its own loop (a pool's ``start``)."""
        return lambda loop: self.start(name, loop)

    def status(self) -> dict[str, dict[str, Any]]:
        """Each loop: ``{ok, restarts, last_error}``; ``ok`` False while it is down."""
        with self._lock:
            return {
                w.name: {"ok": not w.down, "restarts": w.restarts, "last_error": w.last_error}
                for w in self._watched.values()
            }

    def healthy(self) -> bool:
        with self._lock:
            return not any(w.down for w in self._watched.values())

    def restart_now(self) -> None:
        """Restart the loops that are down without waiting for their backoff."""
        self._wake_all()

    def stop(self) -> None:
        """Restart nothing from now on."""
        self._stopped = True
        self._wake_all()

    def _wake_all(self) -> None:
        with self._lock:
            for watched in self._watched.values():
                watched.wake.set()

    def _run(self, watched: Watched, loop: Loop) -> None:
        delay = self.backoff[0]
        try:
            while not self._stopped:
                began = time.monotonic()
                try:
                    loop()
                    return  # ended on purpose
                except Exception as err:  # a bug: log it, say so, run it again
                    log.exception("background loop %s died; it is restarted", watched.name)
                    with self._lock:
                        watched.down, watched.restarts = True, watched.restarts + 1
                        watched.last_error = f"{type(err).__name__}: {err}"
                if time.monotonic() - began >= STEADY_SECONDS:
                    delay = self.backoff[0]
                watched.wake.wait(delay)
                watched.wake.clear()
                delay = min(delay * 2, self.backoff[1])
                with self._lock:
                    watched.down = False
        finally:
            with self._lock:
                watched.running = False
