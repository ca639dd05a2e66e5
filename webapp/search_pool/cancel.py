"""Cancelling a search in a worker through shared memory a dying process cannot wedge.

A ``multiprocessing.Event`` hides a lock that the worker takes every time the
search polls it; a worker killed while holding it leaves the lock held, and
the server's next ``set()`` or ``clear()`` hangs for ever. Here a worker's flag
is one 64-bit integer in shared memory with no lock at all (``RawValue``):
the server writes the id of the *run* to cancel, the worker compares it with
the run it is doing. Run ids are never reused, so nothing needs clearing
between searches, and a stale value can never cancel a later run. One more
shared integer, set once by ``close()``, cancels every run at shutdown.

An aligned 8-byte store or load is atomic on every platform we run on; the
worker only ever reads, the server only ever writes.
"""

from __future__ import annotations

from multiprocessing.context import SpawnContext
from typing import Protocol


class SharedInt(Protocol):
    """A ``RawValue("q")``: an integer in shared memory, read and written without a lock."""

    value: int


def shared_int(context: SpawnContext) -> SharedInt:
    """A new lock-free shared integer, 0, that can be handed to a spawned process."""
    made: SharedInt = context.RawValue("q", 0)
    return made


class RunCancel:
    """The worker's cancel flag for one run: set when the server names this run, or closes."""

    def __init__(self, cancel: SharedInt, closing: SharedInt, run_id: int) -> None:
        self._cancel, self._closing, self._run_id = cancel, closing, run_id

    def is_set(self) -> bool:
        return self._closing.value != 0 or self._cancel.value == self._run_id
