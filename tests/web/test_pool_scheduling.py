"""The pool's scheduling: engine moves first, preemption, turns between owners, bounds, shedding.

The ``Scheduler`` is tested alone (no processes) where only order matters;
the pool's own tests hold searches with files (``fake_searches.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.web.fake_searches import Pools, job, open_pools
from tests.web.helpers import wait_until
from webapp.engine.search import Limits
from webapp.search_pool import DROPPED, TRACE, WORKER_DIED, PoolBusy, Priority, SearchJob, callbacks
from webapp.search_pool.local_pool import AHEAD_RUNS, LESSER_NICE, SearchPool
from webapp.search_pool.scheduler import Scheduler
from webapp.search_pool.slots import State

ENGINE, SCORES, ANALYSIS = Priority.ENGINE, Priority.SCORES, Priority.ANALYSIS


@pytest.fixture
def pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pools]:
    yield from open_pools(tmp_path, monkeypatch)


def labels(scheduler: Scheduler) -> list[str]:
    return [waiting.moves for waiting in scheduler.order()]


# -- the scheduler alone ------------------------------------------------------------
def test_classes_run_in_priority_order_and_owners_take_turns() -> None:
    scheduler = Scheduler(queue_limit=100, owner_limit=100, game_limit=100, scores_limit=100)
    for number in range(3):
        scheduler.add(job(f"greedy{number}", priority=ANALYSIS, owner="greedy"))
    scheduler.add(job("polite", priority=ANALYSIS, owner="polite"))
    scheduler.add(job("scores", priority=SCORES, owner="greedy"))
    scheduler.add(job("engine", priority=ENGINE, owner="polite"))
    expected = ["engine", "scores", "greedy0", "polite", "greedy1", "greedy2"]
    assert labels(scheduler) == expected
    popped = [scheduler.pop(priority) for priority in (ENGINE, SCORES, ANALYSIS, ANALYSIS)]
    assert [each.moves for each in popped if each] == expected[:4]


def test_an_owner_with_twenty_jobs_delays_another_owners_job_by_one() -> None:
    scheduler = Scheduler(queue_limit=100, owner_limit=100, game_limit=100, scores_limit=100)
    for number in range(20):
        scheduler.add(job(f"greedy{number}", priority=ANALYSIS, owner="greedy"))
    scheduler.add(job("polite", priority=ANALYSIS, owner="polite"))
    assert labels(scheduler)[:3] == ["greedy0", "polite", "greedy1"]


def test_identities_of_one_address_share_one_turn() -> None:
    """An engine move takes its mover's address's turn: thirty made-up identities from one
    address held another address's Easy reply for 142 s behind their ten-second searches
    (a hostile client's try); sharing one turn, they delay it by one search."""
    scheduler = Scheduler(queue_limit=100, owner_limit=100, game_limit=100, scores_limit=100)
    for number in range(30):
        scheduler.add(job(f"flood{number}", owner=f"made-up{number}", turn="addr:6.6.6.6"))
    scheduler.add(job("reply", owner="player", turn="addr:1.2.3.4"))
    assert labels(scheduler)[:3] == ["flood0", "reply", "flood1"]
    popped = [scheduler.pop(ENGINE) for _ in range(3)]
    assert [each.moves for each in popped if each] == ["flood0", "reply", "flood1"]
    assert scheduler.refusal(ENGINE, "made-up1", "") is None  # bounds stay per identity
    # Without a turn of its own a job takes its owner's, as before.
    alone = Scheduler(queue_limit=100, owner_limit=100, game_limit=100, scores_limit=100)
    for number in range(3):
        alone.add(job(f"flood{number}", owner=f"made-up{number}"))
    alone.add(job("reply", owner="player"))
    assert labels(alone) == ["flood0", "flood1", "flood2", "reply"]


def test_a_requeued_job_goes_first_in_its_class() -> None:
    scheduler = Scheduler(queue_limit=100, owner_limit=100, game_limit=100, scores_limit=100)
    scheduler.add(job("a", priority=ANALYSIS, owner="one"))
    scheduler.add(job("b", priority=ANALYSIS, owner="two"))
    scheduler.requeue(job("preempted", priority=ANALYSIS, owner="two"))
    scheduler.add(job("engine"))
    assert labels(scheduler) == ["engine", "preempted", "a", "b"]


def test_scores_past_their_limit_shed_the_oldest_and_are_never_refused() -> None:
    scheduler = Scheduler(queue_limit=1, owner_limit=1, game_limit=1, scores_limit=2)
    made = [job(f"s{number}", priority=SCORES, owner="o", game_id="g") for number in range(4)]
    made[0].id, made[1].id, made[2].id, made[3].id = 1, 2, 3, 4
    assert scheduler.add(made[0]) is None and scheduler.add(made[1]) is None
    assert scheduler.add(made[2]) is made[0] and made[0].dropped
    assert scheduler.add(made[3]) is made[1]
    assert labels(scheduler) == ["s2", "s3"]
    assert scheduler.refusal(ENGINE, "o", "g") is None  # scores count against no other bound


def test_the_scheduler_says_when_a_new_scores_job_would_shed_one() -> None:
    scheduler = Scheduler(queue_limit=1, owner_limit=1, game_limit=1, scores_limit=2)
    assert not scheduler.sheds(SCORES)
    scheduler.add(job("s0", priority=SCORES))
    assert not scheduler.sheds(SCORES)
    assert scheduler.sheds(SCORES, 2)  # one would fit, two would push one out
    scheduler.add(job("s1", priority=SCORES))
    assert scheduler.sheds(SCORES)  # full: the next one would push the oldest out
    scheduler.add(job("e0", owner="o", game_id="g"))  # the engine's lane is full too
    assert not scheduler.sheds(ENGINE) and not scheduler.sheds(ANALYSIS)  # refused, never shed
    assert scheduler.pop(SCORES) is not None
    assert not scheduler.sheds(SCORES)


def test_a_job_sent_ahead_counts_against_the_bounds_until_it_starts() -> None:
    scheduler = Scheduler(queue_limit=1, owner_limit=5, game_limit=5, scores_limit=1)
    piped = job("piped", owner="o", game_id="g")
    scheduler.add(piped)
    assert scheduler.pop(ENGINE, ahead=True) is piped
    assert scheduler.waiting(ENGINE) == 0  # not in the lane: nobody preempts for it
    assert scheduler.refusal(ENGINE, "o", "g") is not None  # but it still waits
    scheduler.started(piped)
    assert scheduler.refusal(ENGINE, "o", "g") is None


def test_waiting_analyses_never_make_a_move_busy() -> None:
    scheduler = Scheduler(
        queue_limit=2, owner_limit=3, game_limit=3, scores_limit=1, analysis_limit=4
    )
    for number in range(3):  # the owner's whole share of analyses, on the game
        scheduler.add(job(f"a{number}", priority=ANALYSIS, owner="o", game_id="g"))
    scheduler.add(job("b", priority=ANALYSIS, owner="p"))  # the analyses' bound: full
    assert scheduler.refusal(ANALYSIS, "o", "") == "you already have 3 searches waiting"
    assert scheduler.refusal(ANALYSIS, "q", "h") == "4 analyses are already waiting"
    assert scheduler.refusal(ENGINE, "o", "g") is None  # the same owner's move, same game
    scheduler.add(job("m0", owner="o", game_id="g"))
    scheduler.add(job("m1", owner="p"))
    assert scheduler.refusal(ENGINE, "q", "") == "2 searches are already waiting"
    assert scheduler.refusal(ANALYSIS, "q", "h") == "4 analyses are already waiting"


# -- the pool -----------------------------------------------------------------------
def test_an_engine_move_preempts_an_analysis_when_every_worker_is_busy(pools: Pools) -> None:
    pool = pools(2, reserve=0)
    first = pool.submit(job("a1", "hold", ANALYSIS, owner="x"))
    pools.holds.started("a1")
    second = pool.submit(job("a2", "hold", ANALYSIS, owner="y"))
    pools.holds.started("a2")
    engine = pool.submit(job("engine"))
    result, error = pools.recorder.result(engine)
    assert error is None and result is not None
    assert pools.holds.cancelled("a2") and not pools.holds.cancelled("a1")  # the newest stopped
    pools.holds.started("a2", times=2)  # it runs again once the engine move is done
    assert pools.recorder.finished == ["engine"]  # the aborted run was not reported
    pools.holds.release()
    wait_until(lambda: first in pools.recorder.results and second in pools.recorder.results)
    assert sorted(pools.recorder.calls) == sorted([first, second, engine])  # each exactly once
    again = pools.recorder.results[second][0]
    assert again is not None and not again["cancelled"]


def test_one_worker_preempts_its_analysis_for_an_engine_move(pools: Pools) -> None:
    pool = pools(1)  # reserve 1 of 1 worker: analyses still run, and are preempted
    analysis = pool.submit(job("analysis", "hold", ANALYSIS))
    pools.holds.started("analysis")
    engine = pool.submit(job("engine"))
    pools.recorder.result(engine)
    pools.holds.started("analysis", times=2)
    pools.holds.release("analysis")
    pools.recorder.result(analysis)
    assert pools.recorder.finished == ["engine", "analysis"]


def test_an_engine_move_preempts_a_trace_which_then_runs_again(pools: Pools) -> None:
    pool = pools(1)  # one worker: a trace runs there, and is preempted
    tree = pool.submit(job("tree", "hold", ANALYSIS, kind=TRACE))
    pools.holds.started("tree")
    engine = pool.submit(job("engine"))
    assert pools.recorder.result(engine)[1] is None
    assert pools.holds.cancelled("tree")
    pools.holds.started("tree", times=2)  # back at the front of its class, run again
    pools.holds.release("tree")
    result, error = pools.recorder.result(tree)
    assert error is None and result is not None and result["trace"] == "engine"
    assert not result["cancelled"] and pools.recorder.finished == ["engine", "tree"]


@pytest.mark.slow
def test_a_trace_is_lesser_work_the_engine_worker_never_takes(pools: Pools) -> None:
    pool = pools(2)  # reserve=1: worker 0 takes engine moves only
    pool.submit(job("t1", "hold", ANALYSIS, owner="x", kind=TRACE))
    tracing = pools.holds.started("t1")
    waiting = pool.submit(job("t2", "hold", ANALYSIS, owner="y", kind=TRACE))
    wait_until(lambda: pools.recorder.place(waiting) == 1)  # the idle engine worker won't take it
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, tracing) == min(19, ours + LESSER_NICE)
    assert not pools.holds.runs("t2")


def test_a_reserved_worker_serves_engine_moves_without_preempting(pools: Pools) -> None:
    pool = pools(2)  # reserve=1: at most one worker does anything but engine moves
    pool.submit(job("a1", "hold", ANALYSIS, owner="x"))
    pools.holds.started("a1")
    waiting = pool.submit(job("a2", "hold", ANALYSIS, owner="y"))
    wait_until(lambda: pools.recorder.place(waiting) == 1)
    engine = pool.submit(job("engine"))
    pools.recorder.result(engine)
    assert not pools.holds.cancelled("a1") and not pools.holds.runs("a2")
    assert pool.position(waiting) == 1


def test_queued_engine_moves_overtake_queued_analyses(pools: Pools) -> None:
    pool = pools(1)
    pool.submit(job("held", "hold"))  # an engine move: never preempted
    pools.holds.started("held")
    analyses = [pool.submit(job(f"q{number}", priority=ANALYSIS)) for number in (1, 2)]
    scores = pool.submit(job("s", priority=SCORES))
    engines = [pool.submit(job(f"e{number}")) for number in (1, 2)]
    wait_until(lambda: pools.recorder.place(analyses[1]) == 5)
    places = [pool.position(each) for each in [*engines, scores, *analyses]]
    assert places == [1, 2, 3, 4, 5]
    pools.holds.release("held")
    pools.recorder.result(analyses[1])
    assert pools.recorder.finished == ["held", "e1", "e2", "s", "q1", "q2"]


def test_owners_take_turns_so_one_owner_cannot_delay_another_by_many(pools: Pools) -> None:
    pool = pools(1)
    pool.submit(job("held", "hold"))
    pools.holds.started("held")
    for number in range(5):
        pool.submit(job(f"greedy{number}", priority=ANALYSIS, owner="greedy"))
    other = pool.submit(job("other", priority=ANALYSIS, owner="other"))
    wait_until(lambda: pools.recorder.place(other) == 2)
    pools.holds.release("held")
    wait_until(lambda: len(pools.recorder.finished) == 7)
    assert pools.recorder.finished[:3] == ["held", "greedy0", "other"]


def test_bounds_refuse_per_owner_per_game_and_in_total_while_others_are_accepted(
    pools: Pools,
) -> None:
    pool = pools(1, owner_limit=2, game_limit=3, queue_limit=5)
    pool.submit(job("held", "hold"))
    pools.holds.started("held")
    for number in range(2):
        pool.submit(job(f"a{number}", owner="alice", game_id="g1"))
    assert not pool.has_room(ENGINE, "alice", "g2")
    with pytest.raises(PoolBusy, match="you already have 2"):
        pool.submit(job("a2", owner="alice", game_id="g2"))
    assert pool.has_room(ENGINE, "bob", "g1")
    pool.submit(job("b0", owner="bob", game_id="g1"))  # g1 now has 3 waiting
    with pytest.raises(PoolBusy, match="this game already has 3"):
        pool.submit(job("b1", owner="bob", game_id="g1"))
    pool.submit(job("b1", owner="bob", game_id="g2"))
    pool.submit(job("c0", owner="carol", game_id="g3"))  # 5 waiting: full
    assert not pool.has_room(ENGINE, "dave", "g4")
    with pytest.raises(PoolBusy, match="5 searches are already waiting"):
        pool.submit(job("d0", owner="dave", game_id="g4"))
    assert pool.has_room(ANALYSIS, "dave", "g4")  # analyses have a bound of their own
    assert pool.has_room(SCORES, "dave", "g4")
    pool.submit(job("s0", priority=SCORES, owner="alice", game_id="g1"))  # display work is shed
    assert pool.stats()["queued"] == {"engine": 5, "scores": 1, "analysis": 0}


def test_scores_past_their_limit_drop_the_oldest_waiting(pools: Pools) -> None:
    pool = pools(1, scores_limit=2)
    pool.submit(job("held", "hold"))
    pools.holds.started("held")
    made = [job(f"s{number}", priority=SCORES) for number in range(3)]
    ids = [pool.submit(each) for each in made]
    assert pools.recorder.result(ids[0]) == (None, DROPPED)
    assert made[0].dropped and not made[1].dropped
    assert pool.sheds(SCORES) and not pool.sheds(ENGINE)  # s1 and s2 fill the lane
    pools.holds.release("held")
    pools.recorder.result(ids[2])
    assert pools.recorder.finished == ["s0", "held", "s1", "s2"]


@pytest.mark.slow
def test_lesser_work_runs_on_the_lesser_worker_at_a_lower_cpu_priority(pools: Pools) -> None:
    pool = pools(2)  # reserve=1: worker 0 takes engine moves only, worker 1 the rest
    pool.submit(job("a1", "hold", ANALYSIS, owner="x"))
    analysing = pools.holds.started("a1")
    waiting = pool.submit(job("a2", "hold", ANALYSIS, owner="y"))
    wait_until(lambda: pools.recorder.place(waiting) == 1)  # the idle engine worker won't take it
    engine = pool.submit(job("e", "hold"))
    playing = pools.holds.started("e")
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, playing) == ours
    assert os.getpriority(os.PRIO_PROCESS, analysing) == min(19, ours + LESSER_NICE)
    pools.holds.release()
    assert pools.recorder.result(engine)[1] is None


def test_a_reply_waiting_for_a_busy_reserve_preempts_the_scores_on_the_other_worker(
    pools: Pools,
) -> None:
    pool = pools(2)  # reserve=1: worker 0 plays, worker 1 scores
    first = pool.submit(job("e1", "hold"))
    pools.holds.started("e1")  # the reserved worker is busy with a reply
    pool.submit(job("s1", "hold", SCORES, owner="a"))
    pools.holds.started("s1")
    queued = pool.submit(job("s2", "hold", SCORES, owner="b"))
    reply = pool.submit(job("e2"))  # waits for no scores: s1 stops for it
    assert pools.recorder.result(reply)[1] is None
    assert pools.holds.cancelled("s1") and first not in pools.recorder.results
    pools.holds.started("s1", times=2)  # back at the front of the scores, before s2
    assert not pools.holds.runs("s2") and pool.position(queued) == 1
    pools.holds.release()
    pools.recorder.result(queued)
    assert pools.recorder.finished[0] == "e2"
    assert pools.recorder.finished.index("s1") < pools.recorder.finished.index("s2")


def test_a_reply_preempts_nothing_while_a_worker_is_free_for_it(pools: Pools) -> None:
    pool = pools(2)
    pool.submit(job("s1", "hold", SCORES))
    pools.holds.started("s1")
    pool.submit(job("e1", "hold"))  # the reserved worker takes it
    pools.holds.started("e1")
    pools.holds.release("e1")
    wait_until(lambda: "e1" in pools.recorder.finished)
    assert not pools.holds.cancelled("s1") and len(pools.holds.runs("s1")) == 1


def short_job(label: str, behaviour: str = "quick", **more: Any) -> SearchJob:
    """An Easy-like engine move: bounded by a small depth (and the time cap)."""
    return replace(job(label, behaviour, **more), limits=Limits(depth=2, time=10.0))


def test_short_replies_go_ahead_into_the_pipe_of_a_worker_playing_another(
    pools: Pools,
) -> None:
    pool = pools(1)
    first = pool.submit(short_job("e1", "hold"))
    pools.holds.started("e1")
    piped = [pool.submit(short_job(f"e{n}")) for n in range(2, 2 + AHEAD_RUNS)]
    queued = pool.submit(short_job(f"e{2 + AHEAD_RUNS}"))
    # AHEAD_RUNS replies are in the worker's pipe already, in order after e1 (their pages
    # are told their places); the next waits its turn in the queue
    wait_until(lambda: pool.stats()["sent_ahead"] == AHEAD_RUNS and pool.position(queued) == 1)
    assert [pool.position(each) for each in piped] == list(range(1, AHEAD_RUNS + 1))
    pools.holds.release("e1")
    pools.recorder.result(queued)
    assert pools.recorder.finished == [f"e{n}" for n in range(1, 3 + AHEAD_RUNS)]
    assert sorted(pools.recorder.calls) == [first, *piped, queued]
    assert pool.stats()["sent_ahead"] == AHEAD_RUNS + 1  # the last too, once a place freed


def test_a_reply_sent_ahead_before_its_place_was_told_is_not_told_one(
    pools: Pools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(callbacks, "NOTICE_SECONDS", 3600.0)
    pool = pools(1)
    pool.submit(short_job("e1", "hold"))
    pools.holds.started("e1")
    second = pool.submit(short_job("e2"))
    wait_until(lambda: pool.stats()["sent_ahead"] == 1)
    pools.holds.release("e1")
    pools.recorder.result(second)
    assert pools.recorder.place(second) is None  # it ran in milliseconds: nothing to show


def test_a_long_search_never_waits_in_a_pipe(pools: Pools) -> None:
    pool = pools(1)
    pool.submit(short_job("e1", "hold"))
    pools.holds.started("e1")
    perfect = pool.submit(job("e2"))  # no depth bound: it may take long, so it waits here
    wait_until(lambda: pool.position(perfect) == 1)
    pool.submit(job("e3", "hold"))
    pools.holds.release("e1")
    pools.holds.started("e3")  # e2 ran; e3 (unbounded) runs now: nothing goes behind it
    behind = pool.submit(short_job("e4"))
    wait_until(lambda: pool.position(behind) == 1)
    pools.holds.release("e3")
    pools.recorder.result(behind)


def test_a_reply_cancelled_in_the_pipe_is_never_reported(pools: Pools) -> None:
    pool = pools(1)
    pool.submit(short_job("e1", "hold"))
    pools.holds.started("e1")
    piped = pool.submit(short_job("e2", "hold"))
    wait_until(lambda: pool.stats()["sent_ahead"] == 1)
    pool.cancel(piped)
    pools.holds.release("e1")
    pools.holds.started("e2")  # it comes up with its cancel flag set: it stops at once
    wait_until(lambda: pools.holds.cancelled("e2"))
    after = pool.submit(short_job("e3"))
    pools.recorder.result(after)
    assert piped not in pools.recorder.calls and pools.recorder.finished == ["e1", "e3"]


def test_replies_in_the_pipe_of_a_worker_that_dies_run_again_elsewhere(pools: Pools) -> None:
    pool = pools(1)
    crashing = pool.submit(short_job("e1", "crash_held"))
    pools.holds.started("e1")
    piped = [pool.submit(short_job(f"e{n}")) for n in range(2, 2 + AHEAD_RUNS)]
    wait_until(lambda: pool.stats()["sent_ahead"] == AHEAD_RUNS)
    pools.holds.release("e1")  # the worker dies: e1 fails; the others never began, run again
    assert pools.recorder.result(crashing) == (None, WORKER_DIED)
    for n, each in enumerate(piped, start=2):
        result, error = pools.recorder.result(each)
        assert error is None and result is not None and result["best_move"] == f"e{n}"
    assert pools.recorder.finished == [f"e{n}" for n in range(1, 2 + AHEAD_RUNS)]  # in order


def test_a_pondering_adopted_as_the_reply_is_never_preempted(pools: Pools) -> None:
    """The player's move made the pondering the engine's reply (``adopted``): another
    game's reply waits for the reserved worker instead of stopping it."""
    pool = pools(2)  # reserve=1: worker 0 plays, worker 1 ponders
    pool.submit(job("e1", "hold"))
    pools.holds.started("e1")
    ponder = job("p1", "hold", SCORES)
    pool.submit(ponder)
    pools.holds.started("p1")
    ponder.adopted = True  # as LiveScores.adopt marks it
    reply = pool.submit(job("e2"))
    pools.holds.release("e1")  # the reply takes the reserved worker once it is free
    assert pools.recorder.result(reply)[1] is None
    pools.holds.release("p1")
    wait_until(lambda: "p1" in pools.recorder.finished)
    # Stopped, it would have run twice (its first run's outcome thrown away).
    assert not pools.holds.cancelled("p1") and len(pools.holds.runs("p1")) == 1
    assert pools.recorder.finished.index("e2") < pools.recorder.finished.index("p1")


def test_an_analysis_stopped_twice_for_replies_then_runs_to_its_end(pools: Pools) -> None:
    """Under a stream of replies an analysis would start again for ever: after
    MAX_PREEMPTIONS stops it keeps its worker and the next reply waits."""
    pool = pools(1)
    analysis = pool.submit(job("analysis", "hold", ANALYSIS))
    pools.holds.started("analysis")
    for run, label in enumerate(("e1", "e2"), start=2):
        pools.recorder.result(pool.submit(job(label)))
        pools.holds.started("analysis", times=run)  # stopped, then run again
    late = pool.submit(job("e3"))
    pools.holds.release("analysis")
    pools.recorder.result(analysis)
    pools.recorder.result(late)
    assert pools.recorder.finished == ["e1", "e2", "analysis", "e3"]
    assert len(pools.holds.runs("analysis")) == 3


def test_the_relay_is_woken_only_when_it_has_something_to_do(
    pools: Pools, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job handed straight to an idle worker wakes no relay thread (its result will, from
    the worker's pipe); a job left waiting (its place is due on time) and a stop do."""
    pool = pools(1)
    wakes: list[str] = []
    wake = pool._wake
    monkeypatch.setattr(pool, "_wake", lambda: (wakes.append("wake"), wake()))
    quick = pool.submit(job("e0"))
    assert pools.recorder.result(quick)[0]["best_move"] == "e0" and wakes == []
    held = pool.submit(job("e1", "hold"))
    pools.holds.started("e1")
    assert wakes == []
    waiting = pool.submit(job("e2"))
    assert wakes == ["wake"]
    pool.cancel(held)  # told to stop: killed by the relay if it does not
    assert wakes == ["wake", "wake"]
    pools.recorder.result(waiting)


def test_a_handed_task_goes_only_into_the_pipe_it_was_handed_for() -> None:
    """Tasks are written after the pool's lock is let go. One handed to a worker that has
    died since (its slot has another pipe now, or none) is dropped, never written into
    the new worker's pipe; a write that fails leaves the slot broken for the relay to
    bury, and the tasks after it are still written in order."""

    class Pipe:
        def __init__(self, name: str, fails: bool = False) -> None:
            self.name, self.fails = name, fails

        def send_bytes(self, task: Any) -> None:
            if self.fails:
                raise TypeError("the pipe was closed under the write")
            written.append((self.name, task))

    written: list[tuple[str, Any]] = []
    pool = SearchPool(1)  # never started: no worker, no relay
    try:
        slot = pool._slots[0]
        old, new = Pipe("old"), Pipe("new")
        slot.conn = new  # type: ignore[assignment]
        slot.outbox.extend([(old, "t1"), (new, "t2"), (old, "t3"), (new, "t4")])  # type: ignore[list-item]
        pool._send_handed()
        assert written == [("new", "t2"), ("new", "t4")] and not slot.outbox
        broken = Pipe("broken", fails=True)
        slot.conn, slot.state = broken, State.BUSY  # type: ignore[assignment]
        slot.outbox.append((broken, "t5"))  # type: ignore[arg-type]
        pool._send_handed()
        assert slot.state is State.BROKEN and written == [("new", "t2"), ("new", "t4")]
    finally:
        pool._slots[0].conn = None  # none of these is a worker's to stop
        pool.close()
