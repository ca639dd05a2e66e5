"""Bounded waiting: at most ``HTTP_WAITERS`` requests wait on searches at once.

A request that waits for a search (``/api/analysis``, a review, ``/api/tree``)
holds a server thread while it waits. Past the bound a request does not wait:
an analysis or a review answers what it has at once (202 or ``X-Review-Pending``:
its searches go on while someone asks again), a tree answers 503 with
``Retry-After``. So a crowd of slow searches can never hold every thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask, current_app

EXTENSION = "lookahead_waiters"


class Waiters:
    """Places for requests waiting on searches; ``limit`` None or 0 = no bound."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit or None
        self._lock = threading.Lock()
        self._in_use = 0

    @property
    def in_use(self) -> int:
        with self._lock:
            return self._in_use

    @contextmanager
    def place(self) -> Iterator[bool]:
        """True (a place, held until the block ends) or False (none free: do not wait)."""
        with self._lock:
            got = self.limit is None or self._in_use < self.limit
            if got:
                self._in_use += 1
        try:
            yield got
        finally:
            if got:
                with self._lock:
                    self._in_use -= 1


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = Waiters(app.config["HTTP_WAITERS"])


@contextmanager
def waiting_place() -> Iterator[bool]:
    """A place for this request to wait on a search (see ``Waiters.place``)."""
    waiters: Waiters = current_app.extensions[EXTENSION]
    with waiters.place() as got:
        yield got
