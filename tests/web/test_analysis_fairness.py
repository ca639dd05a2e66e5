"""Analyses that are fair and finite (webapp/services/analysis.py, webapp/web/waiters.py):
abandoned searches are cancelled, identical ones joined, each asker has a share, analyses
never make a move busy, and at most HTTP_WAITERS requests wait on searches.

The service's own rules are tested with a fake pool and a fake clock (nothing
waits on time); the app's with searches held by the test (``held_engine.py``).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.web.conftest import MakeHeld
from tests.web.held_engine import label
from tests.web.helpers import WAIT, Listener, create, wait_until
from webapp import protocol
from webapp.search_pool import WORKER_DIED, PoolBusy, SearchJob
from webapp.services.analysis import NOBODY, Analyses, Asker, OverShare
from webapp.services.errors import GameError
from webapp.web.app import socketio
from webapp.web.waiters import EXTENSION as WAITERS
from webapp.web.waiters import Waiters

NO_LIMITS = {"RATE_LIMIT_ANALYSE_PER_IDENTITY": None, "RATE_LIMIT_ANALYSE_PER_ADDRESS": None}
#: A search's result, as the pool reports it (``SearchResult.to_dict()``, the parts read).
RESULT = {"score": 0, "exact": True, "best_move": "5", "depth": 9,
          "move_scores": {"5": {"score": 0, "exact": True}}}  # fmt: skip


class FakePool:
    """Records what the analyses submit and cancel; runs nothing."""

    def __init__(self) -> None:
        self.submitted: list[SearchJob] = []
        self.cancelled: list[int] = []
        self.on_result: Any = None
        self.on_queued: Any = None

    def submit(self, job: SearchJob) -> int:
        job.id = len(self.submitted) + 1
        self.submitted.append(job)
        return job.id

    def cancel(self, job_id: int) -> None:
        self.cancelled.append(job_id)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def analyses(**options: Any) -> tuple[Analyses, FakePool, Clock]:
    pool, clock = FakePool(), Clock()
    made = Analyses(pool, clock=clock, sweep_thread=False, **options)  # type: ignore[arg-type]
    return made, pool, clock


def ask(made: Analyses, moves: str, asker: Asker = NOBODY) -> dict[str, Any] | None:
    return made.analyse("tictactoe", moves, seconds=1.0, wait=0.0, asker=asker)


# -- the service alone ----------------------------------------------------------------


def test_a_request_that_joined_a_refused_search_is_told_busy_at_once() -> None:
    """It waited out its whole wait and answered 202 (the refused search was forgotten but
    never marked done)."""

    class RefusingPool(FakePool):
        entered, refuse = threading.Event(), threading.Event()

        def submit(self, job: SearchJob) -> int:
            self.entered.set()
            self.refuse.wait(WAIT)
            raise PoolBusy("full")

    pool = RefusingPool()
    made = Analyses(pool, sweep_thread=False)  # type: ignore[arg-type]
    first: list[BaseException] = []

    def asks_first() -> None:
        try:
            made.analyse("tictactoe", "1", seconds=1.0, wait=0.0)
        except GameError as err:
            first.append(err)

    thread = threading.Thread(target=asks_first)
    thread.start()
    assert pool.entered.wait(WAIT)
    joined: list[BaseException] = []

    def joins() -> None:
        try:
            made.analyse("tictactoe", "1", seconds=1.0, wait=WAIT)
        except GameError as err:
            joined.append(err)

    joiner = threading.Thread(target=joins)
    joiner.start()
    wait_until(lambda: made.under_way() == 1 and any(
        p.waiting for p in made._pending.values()))  # fmt: skip
    pool.refuse.set()
    thread.join(WAIT)
    joiner.join(WAIT / 2)  # told at once: it never waits out its WAIT
    assert not joiner.is_alive()
    assert [e.code for e in first] == [protocol.BUSY] and [e.code for e in joined] == [
        protocol.BUSY
    ]


def test_an_analysis_nobody_asks_for_again_is_cancelled() -> None:
    made, pool, clock = analyses(abandon_seconds=5.0)
    assert ask(made, "5") is None
    clock.now = 4.9
    assert made.sweep() == 0 and pool.cancelled == []
    clock.now = 5.0
    assert made.sweep() == 1 and pool.cancelled == [1] and made.under_way() == 0
    assert ask(made, "5") is None and len(pool.submitted) == 2  # asked again: searched again


def test_asking_again_keeps_it_alive() -> None:
    made, pool, clock = analyses(abandon_seconds=5.0)
    for now in (0.0, 4.0, 8.0):
        clock.now = now
        assert ask(made, "5") is None
        assert made.sweep() == 0
    assert len(pool.submitted) == 1 and pool.cancelled == []


def test_a_search_a_request_waits_on_is_never_abandoned() -> None:
    made, pool, clock = analyses(abandon_seconds=5.0)
    answers: list[dict[str, Any] | None] = []

    def waits() -> None:
        answers.append(made.analyse("tictactoe", "5", seconds=1.0, wait=WAIT))

    waiting = threading.Thread(target=waits)
    waiting.start()
    wait_until(lambda: any(p.waiting for p in made._pending.values()))
    clock.now = 100.0
    assert made.sweep() == 0 and pool.cancelled == []
    pool.on_result(pool.submitted[0], RESULT, None)
    waiting.join()
    assert answers[0] is not None and answers[0]["exact"]


def test_a_second_asker_joins_the_running_search_and_keeps_it_alive() -> None:
    made, pool, clock = analyses(abandon_seconds=5.0, share_per_identity=1)
    alice, bob = Asker("alice", "10.0.0.1"), Asker("bob", "10.0.0.2")
    assert ask(made, "5", alice) is None
    clock.now = 3.0
    assert ask(made, "5", bob) is None
    assert len(pool.submitted) == 1  # one search for both
    clock.now = 6.0  # alice left at 0, bob asked at 3
    assert made.sweep() == 0
    pool.on_result(pool.submitted[0], RESULT, None)
    for asker in (alice, bob):
        answer = ask(made, "5", asker)
        assert answer is not None and answer["best_moves"] == ["5"] and answer["exact"]


def test_joining_is_never_refused_by_a_share() -> None:
    made, pool, _ = analyses(share_per_identity=1, share_per_address=1)
    assert ask(made, "5", Asker("alice", "10.0.0.1")) is None
    assert ask(made, "5", Asker("alice", "10.0.0.1")) is None  # the same: joined
    assert ask(made, "5", Asker("bob", "10.0.0.1")) is None  # the same address: joined
    assert len(pool.submitted) == 1


def test_each_identity_and_each_address_has_a_share() -> None:
    made, pool, clock = analyses(abandon_seconds=5.0, share_per_identity=2, share_per_address=3)
    alice, bob, carol = (Asker(who, "10.0.0.1") for who in ("alice", "bob", "carol"))
    assert ask(made, "1", alice) is None and ask(made, "2", alice) is None
    with pytest.raises(OverShare, match="this browser already has 2") as refused:
        ask(made, "3", alice)
    assert refused.value.status == 429 and refused.value.retry_after >= 1
    assert ask(made, "3", bob) is None  # the address's third
    with pytest.raises(OverShare, match="your network address already has 3"):
        ask(made, "4", carol)
    assert ask(made, "4", Asker("dave", "10.0.0.2")) is None  # another address
    pool.on_result(pool.submitted[0], RESULT, None)  # alice's first ends: a place for her
    assert ask(made, "5", alice) is None
    clock.now = 5.0
    assert made.sweep() == 4  # the abandoned ones give their places back too
    assert ask(made, "6", carol) is None and ask(made, "7", carol) is None


# -- the app ----------------------------------------------------------------------------


def get(client: FlaskClient, moves: str, game: str = "tictactoe") -> Any:
    return client.get(f"/api/analysis?game={game}&moves={moves}")


def browser(app: Any) -> FlaskClient:
    """A client with an identity cookie of its own."""
    client: FlaskClient = app.test_client()
    client.get("/")
    return client


@pytest.mark.slow
def test_an_abandoned_202_is_cancelled_in_its_worker(held: MakeHeld) -> None:
    app, holds = held(ANALYSIS_WAIT_SECONDS=0.05, ANALYSIS_ABANDON_SECONDS=1.0, **NO_LIMITS)
    analyses = app.extensions["lookahead_analyses"]
    assert analyses.pool.wait_ready(WAIT)  # the search starts at once: it is seen started
    client, name = app.test_client(), label("tictactoe", "5")
    assert get(client, "5").status_code == 202
    holds.started(name)
    wait_until(lambda: holds.cancelled(name))  # nobody polled: cancelled in its worker
    wait_until(lambda: analyses.under_way() == 0)
    # Asked again (and again, as a page polls): a new search, which runs.
    wait_until(lambda: get(client, "5").status_code == 202 and len(holds.runs(name)) == 2)


@pytest.mark.slow
def test_a_second_requester_joins_the_running_analysis(held: MakeHeld) -> None:
    app, holds = held(ANALYSIS_WAIT_SECONDS=0.05, **NO_LIMITS)
    first, second = browser(app), browser(app)
    assert get(first, "5").status_code == 202
    holds.started(label("tictactoe", "5"))
    assert get(second, "5").status_code == 202
    holds.release()
    wait_until(lambda: get(second, "5").status_code == 200)
    assert get(first, "5").get_json()["exact"]
    assert len(holds.runs(label("tictactoe", "5"))) == 1


def test_past_its_share_an_identity_is_refused_with_retry_after(held: MakeHeld) -> None:
    app, _ = held(ANALYSIS_WAIT_SECONDS=0.05, ANALYSIS_SHARE_PER_IDENTITY=2, **NO_LIMITS)
    greedy = browser(app)
    assert [get(greedy, moves).status_code for moves in ("1", "2")] == [202, 202]
    refused = get(greedy, "3")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert refused.get_json()["error"]["code"] == protocol.RATE_LIMITED
    assert get(greedy, "1").status_code == 202  # its own, under way: joined, not refused
    assert get(browser(app), "3").status_code == 202  # another browser has its own share


@pytest.mark.slow
def test_a_move_is_not_busy_while_analyses_fill_their_bound(held: MakeHeld) -> None:
    app, holds = held(
        ANALYSIS_WAIT_SECONDS=0.05,
        SEARCH_QUEUE_LIMIT=1,
        SEARCH_ANALYSIS_LIMIT=2,
        ANALYSIS_ABANDON_SECONDS=None,
        **NO_LIMITS,
    )
    assert app.extensions["lookahead_analyses"].pool.wait_ready(WAIT)
    assert get(browser(app), "1").status_code == 202
    holds.started(label("tictactoe", "1"))  # runs
    for moves in ("2", "3"):  # and two wait: the analyses' bound is full
        assert get(browser(app), moves).status_code == 202
    busy = get(browser(app), "4")
    assert busy.status_code == 503 and busy.get_json()["error"]["code"] == protocol.BUSY
    player = app.test_client()
    state = create(player, "tictactoe", settings={"engine_plays": "first"})  # not busy
    sio = Listener(socketio.test_client(app, flask_test_client=player))
    try:
        assert sio.emit(protocol.JOIN, {"game_id": state["id"]})["seat"] == "player"
        holds.release()
        moved = sio.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 1)
        cell = next(str(c) for c in range(1, 10) if str(c) not in moved["moves"])
        assert sio.emit(protocol.MOVE, {"game_id": state["id"], "move": cell}) == {"ok": True}
        sio.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 3)
        assert sio.named(protocol.ERROR) == []
    finally:
        sio.client.disconnect()


@pytest.mark.slow
def test_past_the_waiter_bound_requests_answer_at_once(held: MakeHeld) -> None:
    app, holds = held(ANALYSIS_WAIT_SECONDS=60.0, HTTP_WAITERS=1, **NO_LIMITS)
    waiters = app.extensions[WAITERS]
    answers: list[int] = []
    waiting = threading.Thread(
        target=lambda: answers.append(get(app.test_client(), "5").status_code)
    )
    waiting.start()
    wait_until(lambda: waiters.in_use == 1)  # the first request waits on its search
    holds.started(label("tictactoe", "5"))
    assert get(app.test_client(), "1").status_code == 202  # no place to wait: 202 at once
    tree = app.test_client().get("/api/tree?game=tictactoe&moves=1&algorithm=alphabeta&depth=2")
    assert tree.status_code == 503 and int(tree.headers["Retry-After"]) >= 1
    game_id = create(app.test_client(), "tictactoe", moves="15")["id"]
    review = app.test_client().get(f"/api/games/{game_id}/review")
    assert review.status_code == 200 and int(review.headers["X-Review-Pending"]) > 0
    assert waiting.is_alive() and answers == []  # the first one still waits
    holds.release()
    waiting.join()
    assert answers == [200] and waiters.in_use == 0


def test_a_waiter_bound_of_zero_is_no_bound() -> None:
    unbounded, bounded = Waiters(0), Waiters(1)
    with unbounded.place() as one, unbounded.place() as two:
        assert one and two and unbounded.in_use == 2
    with bounded.place() as one, bounded.place() as two:
        assert one and not two and bounded.in_use == 1
    assert bounded.in_use == 0


def test_spectators_asking_the_same_analysis_share_one_search(held: MakeHeld) -> None:
    app, holds = held(**NO_LIMITS)
    state = create(app.test_client(), "tictactoe")  # the player's turn: no engine search
    ask = {"game_id": state["id"], "algorithm": "alphabeta"}
    first, second, third = (Listener(socketio.test_client(app)) for _ in range(3))
    for spectator in (first, second, third):
        assert spectator.emit(protocol.JOIN, {"game_id": state["id"]})["seat"] == "spectator"
        assert spectator.emit(protocol.ANALYSE, ask) == {"ok": True}
    holds.started("tictactoe-start")
    first.client.disconnect()  # others still wait for it: it goes on
    holds.release()
    for spectator in (second, third):
        assert spectator.wait_for(protocol.ANALYSIS)["moves"] == ""
    assert len(holds.runs("tictactoe-start")) == 1 and not holds.cancelled("tictactoe-start")
    for spectator in (second, third):
        spectator.client.disconnect()


def test_the_last_client_leaving_cancels_a_shared_analysis(held: MakeHeld) -> None:
    app, holds = held(**NO_LIMITS)
    state = create(app.test_client(), "tictactoe")
    ask = {"game_id": state["id"], "algorithm": "alphabeta"}
    first, second = (Listener(socketio.test_client(app)) for _ in range(2))
    for spectator in (first, second):
        spectator.emit(protocol.JOIN, {"game_id": state["id"]})
        assert spectator.emit(protocol.ANALYSE, ask) == {"ok": True}
    holds.started("tictactoe-start")
    first.client.disconnect()
    second.client.disconnect()
    wait_until(lambda: holds.cancelled("tictactoe-start"))


def test_an_analysis_whose_worker_died_is_searched_again_once() -> None:
    """A search process killed under an analysis (the soak kills one every 2 minutes) is
    not the asker's 500: the search runs again, and only a second death fails it."""
    made, pool, _ = analyses()
    assert ask(made, "5") is None
    pool.on_result(pool.submitted[0], None, WORKER_DIED)
    assert len(pool.submitted) == 2 and made.under_way() == 1  # searching again
    pool.on_result(pool.submitted[0], RESULT, None)  # the dead run's late word: ignored
    assert made.under_way() == 1
    pool.on_result(pool.submitted[1], RESULT, None)
    answer = ask(made, "5")
    assert answer is not None and answer["exact"] and len(pool.submitted) == 2

    assert ask(made, "4") is None
    pending = made._pending[("tictactoe", "4", True)]
    for run in (2, 3):
        pool.on_result(pool.submitted[run], None, WORKER_DIED)
    assert len(pool.submitted) == 4 and made.under_way() == 0  # twice: failed, not a third
    assert pending.done and pending.answer is None and pending.error == WORKER_DIED


def test_a_heuristic_answer_past_its_time_leaves_the_cache_at_the_next_sweep() -> None:
    """Not only when the same position is asked again: an answer nobody asks for again
    would otherwise stay until the size bound pushed it out."""
    made, pool, clock = analyses(heuristic_seconds=30.0)
    assert ask(made, "5") is None and ask(made, "1") is None
    estimate = RESULT | {"exact": False, "move_scores": {"5": {"score": 0.1, "exact": False}}}
    pool.on_result(pool.submitted[0], estimate, None)
    pool.on_result(pool.submitted[1], RESULT, None)  # complete: kept while in use
    assert len(made._cache) == 2
    clock.now = 29.0
    made.sweep()
    assert len(made._cache) == 2
    clock.now = 30.0
    made.sweep()
    assert list(made._cache) == [("tictactoe", "1", True)]


def test_a_complete_answer_stays_while_asked_for_and_leaves_once_nobody_has() -> None:
    made, pool, clock = analyses(keep_seconds=600.0)
    assert ask(made, "5") is None
    pool.on_result(pool.submitted[0], RESULT, None)
    clock.now = 500.0
    assert ask(made, "5") is not None  # asked again: its 600 s start anew
    clock.now = 1000.0
    made.sweep()
    assert ask(made, "5") is not None and len(pool.submitted) == 1  # still cached
    clock.now = 1700.0  # 700 s since the last ask
    made.sweep()
    assert made._cache == {}
    assert ask(made, "5") is None and len(pool.submitted) == 2  # searched again
