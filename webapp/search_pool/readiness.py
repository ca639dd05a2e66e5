"""Which of the relay's pipes, process sentinels and wake-up socket are ready to read.

``multiprocessing.connection.wait`` builds a selector, registers every object and
closes it again on each call: the relay waits once per message, so that was a
measurable part of its time (about 16 us a call against 1 us). ``Readiness`` keeps
one ``select.poll`` object while the set of file descriptors stays the same, and
answers as ``wait`` does: the objects that are ready to read, at end of file, or
in error (their next read says which). ``readable`` asks the same of one object at
once, in place of ``Connection.poll(0)``, which builds a selector too.
"""

from __future__ import annotations

import math
import select
from collections.abc import Sequence
from typing import Any


def _fd(obj: Any) -> int:
    return obj if isinstance(obj, int) else int(obj.fileno())


class Readiness:
    """``wait(objects, timeout)``: the subset of ``objects`` (ints or objects with
    ``fileno()``) ready to read, after at most ``timeout`` seconds (None: no limit)."""

    def __init__(self) -> None:
        self._fds: tuple[int, ...] = ()
        self._poll = select.poll()

    def wait(self, objects: Sequence[Any], timeout: float | None) -> list[Any]:
        by_fd = {_fd(obj): obj for obj in objects}
        fds = tuple(by_fd)
        if fds != self._fds:  # a worker came or went: register the new set
            poll = select.poll()
            for fd in fds:
                poll.register(fd, select.POLLIN)
            self._poll, self._fds = poll, fds
        ms = None if timeout is None else max(0, math.ceil(timeout * 1000))
        return [by_fd[fd] for fd, _ in self._poll.poll(ms) if fd in by_fd]


def readable(obj: Any) -> bool:
    """True when ``obj`` (an int or an object with ``fileno()``) can be read without
    waiting: data, end of file or an error (its next read says which)."""
    poll = select.poll()
    poll.register(_fd(obj), select.POLLIN)
    return bool(poll.poll(0))
