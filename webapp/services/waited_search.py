"""One search a request waits for (the tree explorer's trace, each of compare's searches).

``waited_search`` submits the job, waits for its outcome (the tag the pool's dispatcher
fills in), cancels it when nobody waits any more, and turns what went wrong into the
request's error: BUSY when the pool refuses it or it has not run in time, ENGINE_FAILED
when it failed. A search whose worker died under it (killed, out of memory) is the
server's fault, not the request's: it runs once more, within the same wait.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp import protocol
from webapp.search_pool import WORKER_DIED, Pool, PoolBusy, SearchJob
from webapp.services.errors import GameError

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Outcome:
    """A waited search's tag: its outcome, once the pool reports it (``kind`` routes the
    dispatcher's callbacks; None: the job's own kind)."""

    kind: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    result: dict[str, Any] | None = None
    error: str | None = None


def report(job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
    """The dispatcher's result handler for waited searches: tell the waiting request."""
    if isinstance(job.tag, Outcome):
        job.tag.result, job.tag.error = result, error
        job.tag.done.set()


def waited_search(
    pool: Pool,
    new_job: Callable[[Outcome], SearchJob],
    wait: float,
    *,
    busy: str,
    failed: str,
    kind: str | None = None,
) -> dict[str, Any]:
    """The result of ``new_job(outcome)``'s search, waited for ``wait`` seconds at most.

    ``busy`` is the message when it did not run in time (``{waited}``: the seconds
    waited), ``failed`` the start of the one when it failed; ``kind`` the outcome's (the
    dispatcher's route to ``report``; None: the job's own kind). Raises GameError.
    """
    started = time.monotonic()
    for attempt in (1, 2):
        outcome = Outcome(kind)
        job = new_job(outcome)
        try:
            pool.submit(job)
        except PoolBusy as refused:
            raise GameError(
                protocol.BUSY, f"The server is busy: {refused}. Try again soon."
            ) from None
        if not outcome.done.wait(max(0.0, started + wait - time.monotonic())):
            pool.cancel(job.id)  # nobody waits for it any more: free its worker
            if not outcome.done.is_set():  # (unless its answer came meanwhile)
                waited = time.monotonic() - started
                raise GameError(protocol.BUSY, busy.format(waited=waited))
        if outcome.result is not None:
            return outcome.result
        if outcome.error != WORKER_DIED or attempt == 2:
            raise GameError(protocol.ENGINE_FAILED, f"{failed}: {outcome.error}")
        log.warning("%s search of %s %r: its worker died; searching again", job.kind, job.game,
                    job.moves)  # fmt: skip
    raise AssertionError("unreachable")  # pragma: no cover
