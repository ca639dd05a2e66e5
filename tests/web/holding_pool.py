"""A search pool for the live scores' tests, and what they read of the events sent.

``HoldingPool`` runs each job at once unless its kind is held (the engine's move, say,
until the test lets it go); the ``games`` fixture (``conftest.py``) is a service on one.
"""

from __future__ import annotations

from typing import Any

from tests.web import held_engine
from tests.web.test_searches_unit import InstantPool, _Never
from webapp import protocol
from webapp.engine.search import search
from webapp.games import new_game
from webapp.search_pool import SearchJob

Sent = list[tuple[str, Any, str]]


def first_pass(job: SearchJob) -> bool:
    """Whether ``job`` is the scores' first pass over a position (``FIRST_TIME``)."""
    return job.tag[0] == "scores" and held_engine.first_pass(job.limits)


class HoldingPool(InstantPool):
    """Runs a job inside ``submit`` unless its kind is held: those wait for ``finish``.

    ``cut_first``: every first pass of the scores answers as one whose time ran out
    (``finish_cut_short``), so that the full pass follows."""

    def __init__(self, hold: set[str]) -> None:
        super().__init__()
        self.hold = hold
        self.waiting: list[SearchJob] = []
        self.cut_first = False

    def finish(self, job: SearchJob) -> None:
        if self.cut_first and first_pass(job):
            self.finish_cut_short(job)
        else:
            super().finish(job)

    def finish_cut_short(self, job: SearchJob) -> None:
        """Report ``job`` as one its time cut short (``held_engine.cut_short``)."""
        answer = held_engine.cut_short(job.game, job.moves, job.algorithm, job.limits,
                                       move_scores=job.move_scores, seed=job.seed,
                                       progress=lambda _: None, cancel=_Never())  # fmt: skip
        self.on_result(job, answer, None)

    def submit(self, job: SearchJob) -> int:
        if job.tag[0] not in self.hold:
            return super().submit(job)
        job.id = len(self.submitted) + 1
        self.submitted.append(job)
        self.waiting.append(job)
        return job.id

    def position(self, job_id: int) -> int | None:
        places = [job.id for job in self.waiting]
        return places.index(job_id) + 1 if job_id in places else None

    def release(self, kind: str) -> None:
        """Run every waiting job of ``kind`` (and stop holding that kind)."""
        self.hold.discard(kind)
        for job in [j for j in self.waiting if j.tag[0] == kind]:
            self.waiting.remove(job)
            self.finish(job)


def scores_of(sent: Sent) -> list[dict[str, Any]]:
    return [payload for event, payload, _ in sent if event == protocol.SCORES]


def pure_python_scores(game: str, moves: str) -> dict[str, tuple[int | float, bool]]:
    """Every move's exact score from the pure-Python engine: the independent computation."""
    result = search(new_game(game, moves), "alphabeta", move_scores=True, native=False)
    assert result.move_scores is not None
    return {move: (s.score, s.exact) for move, s in result.move_scores.items()}


def values(payload: dict[str, Any]) -> dict[str, tuple[int | float, bool]]:
    return {move: (s["score"], s["exact"]) for move, s in payload["move_scores"].items()}
