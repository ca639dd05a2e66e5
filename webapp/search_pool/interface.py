"""``Pool``: what the game service asks of a search pool, whichever runs the searches.

Two pools have it: ``SearchPool`` (search processes of this server) and
``QueuePool`` (searches on the shared queue, run by search hosts).
"""

from __future__ import annotations

from typing import Any, Protocol

from webapp.search_pool.jobs import (
    Priority,
    ProgressCallback,
    QueuedCallback,
    ResultCallback,
    SearchJob,
)


class Pool(Protocol):
    """Submit and cancel searches; hear of them through the three callbacks."""

    on_progress: ProgressCallback
    on_result: ResultCallback
    on_queued: QueuedCallback

    def submit(self, job: SearchJob) -> int: ...

    def cancel(self, job_id: int) -> None: ...

    def has_room(
        self, priority: Priority = Priority.ENGINE, owner: str = "", game_id: str = ""
    ) -> bool: ...

    def sheds(self, priority: Priority, count: int = 1) -> bool: ...

    def position(self, job_id: int) -> int | None: ...

    def depths(self, game_id: str, moves: str) -> list[dict[str, Any]]: ...

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...
