"""One search a request waits for (webapp/services/waited_search.py): the tree explorer's
and compare's. A worker that dies under it is retried once; refusals and timeouts are
BUSY, failures ENGINE_FAILED. A fake pool answers as the test says (nothing runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from webapp import protocol
from webapp.engine.results import Limits
from webapp.search_pool import WORKER_DIED, PoolBusy, SearchJob
from webapp.services.errors import GameError
from webapp.services.waited_search import Outcome, report, waited_search

RESULT = {"node_count": 7}


class AnsweringPool:
    """Reports, for the n-th job submitted, ``answers[n]``: (result, error), or None to
    never answer; ``refuse`` raises PoolBusy instead."""

    def __init__(self, *answers: tuple[dict[str, Any] | None, str | None] | None) -> None:
        self.answers, self.submitted, self.cancelled = list(answers), [], []  # type: ignore[var-annotated]
        self.refuse = False

    def submit(self, job: SearchJob) -> int:
        if self.refuse:
            raise PoolBusy("the queue is full")
        job.id = len(self.submitted) + 1
        self.submitted.append(job)
        answer = self.answers[job.id - 1]
        if answer is not None:
            report(job, *answer)
        return job.id

    def cancel(self, job_id: int) -> None:
        self.cancelled.append(job_id)


def job_of(outcome: Outcome) -> SearchJob:
    return SearchJob("tictactoe", "5", "alphabeta", Limits(depth=2), tag=outcome)


def run(pool: AnsweringPool, wait: float = 5.0, new_job: Callable[[Outcome], SearchJob] = job_of
        ) -> dict[str, Any]:  # fmt: skip
    return waited_search(pool, new_job, wait, busy="busy after {waited:.0f} s",  # type: ignore[arg-type]
                         failed="it failed")  # fmt: skip


def test_the_result_is_returned() -> None:
    assert run(AnsweringPool((RESULT, None))) == RESULT


def test_a_worker_that_died_under_it_is_searched_again_once() -> None:
    pool = AnsweringPool((None, WORKER_DIED), (RESULT, None))
    assert run(pool) == RESULT and len(pool.submitted) == 2
    twice = AnsweringPool((None, WORKER_DIED), (None, WORKER_DIED), (RESULT, None))
    with pytest.raises(GameError) as failed:
        run(twice)
    assert failed.value.code == protocol.ENGINE_FAILED and len(twice.submitted) == 2


def test_a_failing_search_is_not_run_again() -> None:
    pool = AnsweringPool((None, "ValueError: bad"), (RESULT, None))
    with pytest.raises(GameError) as failed:
        run(pool)
    assert failed.value.code == protocol.ENGINE_FAILED and "it failed: ValueError" in str(
        failed.value
    )
    assert len(pool.submitted) == 1


def test_a_refused_or_unanswered_search_is_busy_and_the_unanswered_one_cancelled() -> None:
    refusing = AnsweringPool()
    refusing.refuse = True
    with pytest.raises(GameError) as refused:
        run(refusing)
    assert refused.value.code == protocol.BUSY
    silent = AnsweringPool(None)
    with pytest.raises(GameError) as waited:
        run(silent, wait=0.05)
    assert waited.value.code == protocol.BUSY and "busy after 0 s" in str(waited.value)
    assert silent.cancelled == [1]


def test_the_outcome_carries_the_kind_that_routes_it() -> None:
    kinds: list[str | None] = []

    def new_job(outcome: Outcome) -> SearchJob:
        kinds.append(outcome.kind)
        return job_of(outcome)

    waited_search(AnsweringPool((RESULT, None)), new_job, 5.0, busy="b", failed="f",  # type: ignore[arg-type]
                  kind="compare")  # fmt: skip
    assert kinds == ["compare"]
