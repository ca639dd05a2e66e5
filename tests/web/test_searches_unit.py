"""The service's bookkeeping of searches, with a pool that answers before ``submit`` returns.

A quick search (an Easy move takes a millisecond) can report its result on
the relay thread before the thread that submitted it has gone on; the service
must apply it all the same. ``InstantPool`` makes that the rule: it runs the
real search inside ``submit`` and calls back before returning.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.held_engine import cut_short, first_pass
from tests.web.helpers import WAIT, wait_until
from webapp import protocol
from webapp.game_settings import merge_settings
from webapp.search_pool import Priority, SearchJob
from webapp.search_pool.local_pool import short
from webapp.search_pool.process import run_search
from webapp.services import GameService
from webapp.services import searches as searches_module
from webapp.services.engine_job import engine_job, short_reply
from webapp.services.searches import ANALYSIS
from webapp.store import GameRecord, open_store


class _Never:
    def is_set(self) -> bool:
        return False


class InstantPool:
    """A pool whose every search is done, and reported, before ``submit`` returns."""

    size, reserve = 1, 1  # one worker, for engine moves: a scores job is not split

    def __init__(self) -> None:
        self.on_progress: Any = None
        self.on_result: Any = None
        self.on_queued: Any = None
        self.submitted: list[SearchJob] = []

    def submit(self, job: SearchJob) -> int:
        job.id = len(self.submitted) + 1
        self.submitted.append(job)
        self.finish(job)
        return job.id

    def finish(self, job: SearchJob) -> None:
        """Run ``job`` and report it as the relay thread would."""
        result = run_search(
            job.game,
            job.moves,
            job.algorithm,
            job.limits,
            move_scores=job.move_scores,
            seed=job.seed,
            progress=lambda progress: None,
            cancel=_Never(),
        )
        self.on_result(job, result, None)

    def has_room(self, *_: Any, **__: Any) -> bool:
        return True

    def sheds(self, *_: Any) -> bool:
        return False

    def cancel(self, job_id: int) -> None:
        return None

    def position(self, job_id: int) -> int | None:
        return None

    def close(self) -> None:
        return None


def engine_jobs(pool: InstantPool) -> list[SearchJob]:
    """The engine's searches the pool was given (not the scores of the live position)."""
    return [job for job in pool.submitted if job.tag[0] == "engine"]


class ManualPool(InstantPool):
    """A pool that keeps its jobs: the test delivers their results, from any thread. Its
    searches are quick (``SearchPool.quick_replies``) unless they take their time."""

    quick_replies = True

    def __init__(self) -> None:
        super().__init__()
        self.waiting: set[int] = set()  # jobs waiting for a worker (``position``)

    def submit(self, job: SearchJob) -> int:
        job.id = len(self.submitted) + 1
        self.submitted.append(job)
        return job.id

    def position(self, job_id: int) -> int | None:
        return 1 if job_id in self.waiting else None


def manual_service(**options: Any) -> tuple[GameService, ManualPool, list[tuple[str, Any, str]]]:
    """A service on a ``ManualPool`` (the test delivers the results), and what it sent."""
    pool = ManualPool()
    sent: list[tuple[str, Any, str]] = []
    games = GameService(
        open_store(":memory:"),
        pool,  # type: ignore[arg-type]
        lambda event, payload, to: sent.append((event, payload, to)),
        seed=0,
        **options,
    )
    return games, pool, sent


@pytest.fixture
def service() -> Iterator[tuple[GameService, InstantPool, list[tuple[str, Any, str]]]]:
    pool = InstantPool()
    sent: list[tuple[str, Any, str]] = []
    made = GameService(
        open_store(":memory:"),
        pool,  # type: ignore[arg-type]
        lambda event, payload, to: sent.append((event, payload, to)),
        seed=0,
    )
    yield made, pool, sent
    made.close()


def test_a_result_that_comes_before_submit_returns_is_applied(
    service: tuple[GameService, InstantPool, list[tuple[str, Any, str]]],
) -> None:
    games, pool, sent = service
    record = games.create("tictactoe", {"level": "hard"}, owner="me")
    (pondered,) = [job for job in pool.submitted if job.tag[0] == "ponder"]
    expected = pondered.moves  # the player's best-scored move (all draw: the first)
    games.move(record.id, expected, "me")  # the engine's reply to it was pondered
    wait_until(lambda: [e for e, _, _ in sent if e == protocol.ENGINE_MOVE])
    stored = games.store.get(record.id)
    assert stored is not None and len(stored.moves) == 2  # the engine moved
    assert not games.searches.thinking(record.id)
    kinds = [kind for kind, *_ in (job.tag for job in pool.submitted)]
    # The strongest analysis (at Hard too): a pass solves the empty board unless its tenth
    # of a second runs out first (a near thing here), then the full one; then the pondering.
    passes = kinds.index("ponder")
    assert kinds[:passes] == ["scores"] * passes and passes in (1, 2) and "engine" not in kinds
    scores = [payload for event, payload, _ in sent if event == protocol.SCORES]
    positions = list(dict.fromkeys(s["moves"] for s in scores))
    assert positions == ["", expected, stored.moves]
    assert [len(p) % 2 for p in positions] == [0, 1, 0]
    assert stored.last_engine_move and stored.last_engine_move["move_scores"]
    assert stored.last_engine_move["pondered"]


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_a_reply_of_milliseconds_is_not_pondered(
    service: tuple[GameService, InstantPool, list[tuple[str, Any, str]]], level: str
) -> None:
    """Easy's and Medium's searches (depth 2, 4) take milliseconds: pondering them would
    save the player nothing and cost the server a search per move."""
    games, pool, _ = service
    record = games.create("tictactoe", {"level": level}, owner="me")
    games.move(record.id, "5", "me")
    wait_until(lambda: len(games.store.get(record.id).moves) == 2)  # type: ignore[union-attr]
    assert [job.tag[0] for job in pool.submitted if job.tag[0] != "scores"] == ["engine"]
    assert games.searches.live.sizes()["pondering"] == 0


@pytest.mark.parametrize("game", ["tictactoe", "connect4"])
@pytest.mark.parametrize(
    ("settings", "is_short"),
    [
        ({"level": "easy"}, True),
        ({"level": "medium"}, True),
        ({"level": "hard"}, False),
        ({"level": "perfect"}, False),
        ({"level": "custom", "depth": 4}, True),
        ({"level": "custom", "depth": 5}, False),
        ({"level": "custom", "time": 1.0}, False),
        ({"level": "custom", "depth": 3, "time": 1.0}, True),
    ],
)
def test_a_short_reply_is_known_without_making_the_engines_job(
    game: str, settings: dict[str, Any], is_short: bool
) -> None:
    """``short_reply`` (asked of every live position in a crowd) says what ``short`` says of
    the engine's job, at every level of both games: a search bounded at depth 4 or less."""
    record = GameRecord("g", game, "", merge_settings(settings), "seat")
    assert short_reply(record) == short(engine_job(record, None)) == is_short


def test_a_move_not_pondered_is_searched_as_usual(
    service: tuple[GameService, InstantPool, list[tuple[str, Any, str]]],
) -> None:
    games, pool, _ = service
    record = games.create("tictactoe", {"level": "hard"}, owner="me")
    (pondered,) = [job for job in pool.submitted if job.tag[0] == "ponder"]
    other = "1" if pondered.moves != "1" else "2"
    games.move(record.id, other, "me")
    stored = games.store.get(record.id)
    assert stored is not None and len(stored.moves) == 2  # searched at once (instant pool)
    assert "pondered" not in (stored.last_engine_move or {})
    assert [job.moves for job in engine_jobs(pool)] == [other]


def test_a_split_scores_job_reaches_the_room_once_with_every_move(
    service: tuple[GameService, InstantPool, list[tuple[str, Any, str]]],
) -> None:
    """The full exact pass over a position's moves goes in two parts (two lesser workers;
    the first pass, a tenth of a second, goes whole); the room hears one complete scores
    event with every move, kept with the engine's move."""
    games, pool, sent = service
    pool.size = 3  # two workers for lesser work: the scores come in two parts
    finish = pool.finish

    def first_passes_cut_short(job: SearchJob) -> None:
        if job.tag[0] == "scores" and first_pass(job.limits):
            options = {"move_scores": job.move_scores, "seed": job.seed,
                       "progress": lambda _: None, "cancel": _Never()}  # fmt: skip
            answer = cut_short(job.game, job.moves, job.algorithm, job.limits, **options)
            pool.on_result(job, answer, None)
        else:
            finish(job)

    pool.finish = first_passes_cut_short  # type: ignore[method-assign]
    record = games.create("connect4", {"level": "perfect"}, owner="me")
    games.move(record.id, "4", "me")
    wait_until(lambda: len(games.store.get(record.id).moves) == 2)  # type: ignore[union-attr]
    parts = [
        job
        for job in pool.submitted
        if job.tag[0] == "scores" and job.moves == "4" and not first_pass(job.limits)
    ]
    assert [job.limits.root_moves for job in parts] == [("4", "2", "6"), ("3", "5", "1", "7")]
    complete = [
        payload
        for event, payload, _ in sent
        if event == protocol.SCORES and payload["moves"] == "4" and payload["complete"]
    ]
    assert len(complete) == 1 and list(complete[0]["move_scores"]) == list("1234567")
    stored = games.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    assert stored.last_engine_move["move_scores"] == complete[0]["move_scores"]


def test_an_analysis_that_comes_before_submit_returns_reaches_its_asker(
    service: tuple[GameService, InstantPool, list[tuple[str, Any, str]]],
) -> None:
    games, _, sent = service
    record = games.create("tictactoe", {"level": "easy"}, owner="me")
    games.analyse(record.id, "minimax", "sid-1", None, "addr:somewhere")
    answers = [(payload, to) for event, payload, to in sent if event == protocol.ANALYSIS]
    assert len(answers) == 1 and answers[0][1] == "sid-1"
    games.analyse(record.id, "minimax", "sid-1", None, "addr:somewhere")  # free for the next


def test_a_players_look_back_is_lesser_work_than_at_the_live_position(
    service: tuple[GameService, InstantPool, list[tuple[str, Any, str]]],
) -> None:
    """The player's analysis of the live game comes first (SCORES); of an earlier position
    (a review), and a spectator's, are lesser work (ANALYSIS): no move waits on them."""
    games, pool, _ = service
    record = games.create("tictactoe", {"level": "easy"}, owner="me")
    games.move(record.id, "5", "me")  # the engine replies at once
    games.analyse(record.id, "minimax", "sid-1", "me", "me")  # the live position
    games.analyse(record.id, "minimax", "sid-2", "me", "me", "")  # looking back
    games.analyse(record.id, "minimax", "sid-3", None, "addr:elsewhere")  # a spectator
    asked = {job.tag[2]: job.priority for job in pool.submitted if job.tag[0] == ANALYSIS}
    lesser = Priority.ANALYSIS
    assert asked == {"sid-1": Priority.SCORES, "sid-2": lesser, "sid-3": lesser}


@pytest.mark.parametrize("action", ["undo", "settings"])
def test_an_engine_result_that_waits_for_the_games_lock_is_dropped_if_the_game_changed(
    action: str,
) -> None:
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "easy"}, owner="me")
        games.move(record.id, "5", "me")
        (search,) = engine_jobs(pool)
        with games.locks.hold(record.id):  # the player's action holds the game...
            relay = threading.Thread(target=pool.finish, args=(search,))
            relay.start()  # ...while the engine's result comes in
            wait_until(lambda: games.locks.users(record.id) == 2)  # it waits for the lock
            if action == "undo":
                games.undo(record.id, "me")
            else:
                games.change_settings(record.id, {"level": "medium"}, "me")
        relay.join()
        stored = games.store.get(record.id)
        assert stored is not None
        assert not [event for event, *_ in sent if event == protocol.ENGINE_MOVE]
        if action == "undo":
            assert stored.moves == "" and not games.searches.thinking(record.id)
        else:  # the search at the old level was moot: the new one is on its way
            assert stored.moves == "5" and games.searches.thinking(record.id)
            assert engine_jobs(pool)[-1].limits.depth == protocol.LEVELS["medium"]["depth"]
    finally:
        games.close()


def test_a_result_that_cannot_be_applied_is_tried_again_not_left_waiting() -> None:
    games, pool, sent = manual_service(retry_delays=(0.01,))
    try:
        record = games.create("tictactoe", {"level": "easy"}, owner="me")
        games.move(record.id, "5", "me")
        (search,) = engine_jobs(pool)
        broken = {"best_move": "5", "score": 0, "exact": False, "pv": "5", "move_scores": None}
        pool.on_result(search, broken, None)  # "5" is taken: applying it raises
        assert games.searches.thinking(record.id)  # not left waiting: it will try again
        (failed,) = [payload for event, payload, _ in sent if event == protocol.ERROR]
        assert failed["code"] == protocol.ENGINE_FAILED
        # The move waited for its reply to reach the room; the failure tells it instead.
        assert [p["moves"] for e, p, _ in sent if e == protocol.STATE] == ["5"]
        wait_until(lambda: len(engine_jobs(pool)) == 2)
        again = engine_jobs(pool)[-1]
        assert again is not search and again.moves == "5"
        pool.finish(again)
        stored = games.store.get(record.id)
        assert stored is not None and len(stored.moves) == 2
    finally:
        games.close()


@pytest.mark.parametrize(("level", "before_reply"), [("easy", []), ("medium", []), ("hard", ["5"])])
def test_a_move_answered_in_milliseconds_reaches_the_room_with_its_reply(
    level: str, before_reply: list[str]
) -> None:
    """At Easy and Medium the engine's reply comes milliseconds after the move: the room
    hears both in one ``state`` (the player's page drew its move already), then the
    reply's analysis. At Hard and Perfect the move's state goes out at once, saying the
    engine thinks."""
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": level}, owner="me")
        games.move(record.id, "5", "me")
        (search,) = engine_jobs(pool)
        states = [p for e, p, _ in sent if e == protocol.STATE]
        assert [p["moves"] for p in states] == before_reply
        assert all(p["engine_thinking"] for p in states)
        pool.finish(search)
        wait_until(lambda: len(games.store.get(record.id).moves) == 2)  # type: ignore[union-attr]
        stored = games.store.get(record.id)
        assert stored is not None
        states = [p for e, p, _ in sent if e == protocol.STATE]
        assert [p["moves"] for p in states] == [*before_reply, stored.moves]
        assert not states[-1]["engine_thinking"]
        events = [e for e, _, _ in sent if e in (protocol.STATE, protocol.ENGINE_MOVE)]
        assert events[-2:] == [protocol.STATE, protocol.ENGINE_MOVE]
    finally:
        games.close()


ROW = {"depth": 1, "score": 0.0, "exact": False, "pv": "4", "nodes": 10, "elapsed_ms": 60}


@pytest.mark.parametrize("news", ["queued", "progress"])
def test_a_quick_reply_that_is_not_quick_after_all_tells_the_move_first(news: str) -> None:
    """The move's state kept for an Easy reply goes out, saying the engine thinks, as
    soon as the reply shows it is not quick: its search waits for a worker again (one
    died under it), or streams its depths (it ran past ``STREAM_AFTER``); once only."""
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "easy"}, owner="me")
        games.move(record.id, "5", "me")
        (search,) = engine_jobs(pool)
        assert not [e for e, _, _ in sent if e == protocol.STATE]
        for _ in range(2):
            if news == "queued":
                pool.on_queued(search, 1)
            else:
                pool.on_progress(search, ROW)
        wanted = protocol.QUEUED if news == "queued" else protocol.THINKING
        wait_until(lambda: len([e for e, _, _ in sent if e == wanted]) == 2)
        told = [(e, p) for e, p, _ in sent if e in (protocol.STATE, wanted)]
        assert [e for e, _ in told] == [protocol.STATE, wanted, wanted]
        assert told[0][1]["moves"] == "5" and told[0][1]["engine_thinking"]
        pool.finish(search)  # the reply: its state after the move's
        wait_until(lambda: len([e for e, _, _ in sent if e == protocol.STATE]) == 2)
        last = [p for e, p, _ in sent if e == protocol.STATE][-1]
        assert len(last["moves"]) == 2 and not last["engine_thinking"]
    finally:
        games.close()


def test_an_undo_before_a_quick_reply_drops_the_state_kept_for_it() -> None:
    """The undo's own state tells the room; the kept one, of a version gone, never goes."""
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "easy", "engine_plays": "second"}, owner="me")
        games.move(record.id, "5", "me")
        (search,) = engine_jobs(pool)
        games.undo(record.id, "me")
        pool.on_queued(search, 1)  # late news of the cancelled search
        pool.on_progress(search, ROW)
        pool.finish(search)
        handled = threading.Event()  # the game's news is handled in turn: after the above
        games.searches.dispatch.in_turn(record.id, handled.set)
        assert handled.wait(WAIT)
        states = [p for e, p, _ in sent if e == protocol.STATE]
        assert [p["moves"] for p in states] == [""]
        assert not games.searches.thinking(record.id)
    finally:
        games.close()


def states_of(sent: list[tuple[str, Any, str]], game_id: str) -> list[str]:
    return [p["moves"] for e, p, to in sent if e == protocol.STATE and to == game_id]


def test_a_quick_reply_that_waits_for_a_worker_from_the_start_tells_the_move_at_once() -> None:
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "easy"}, owner="me")
        pool.waiting.add(len(pool.submitted) + 1)  # the engine's reply will wait
        games.move(record.id, "5", "me")
        assert states_of(sent, record.id) == ["5"]
    finally:
        games.close()


def test_a_move_whose_quick_reply_does_not_come_is_told_after_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reply held up after its search (its save slow, say) tells nothing by itself: the
    move's state goes out on its own after ``HELD_SECONDS``, once."""
    monkeypatch.setattr(searches_module, "HELD_SECONDS", 0.05)
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "easy"}, owner="me")
        games.move(record.id, "5", "me")
        assert states_of(sent, record.id) == []
        wait_until(lambda: states_of(sent, record.id) == ["5"])
        pool.on_queued(engine_jobs(pool)[0], 1)  # told already: not again
        handled = threading.Event()
        games.searches.dispatch.in_turn(record.id, handled.set)
        assert handled.wait(WAIT)
        assert states_of(sent, record.id) == ["5"]
    finally:
        games.close()


def test_a_failed_quick_reply_tells_the_move_before_trying_again() -> None:
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "easy"}, owner="me")
        games.move(record.id, "5", "me")
        (search,) = engine_jobs(pool)
        pool.on_result(search, None, "worker died")  # tried again at once
        wait_until(lambda: len(engine_jobs(pool)) == 2)
        assert states_of(sent, record.id) == ["5"]
        assert not [e for e, _, _ in sent if e == protocol.ERROR]  # said only if it fails again
    finally:
        games.close()


def test_a_new_game_tells_the_old_room_the_move_its_reply_was_to_carry() -> None:
    """The new game stops the old one's engine: the reply that was to carry the player's
    last move never comes, so the old game's room hears that move now."""
    games, _, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "easy"}, owner="me")
        games.move(record.id, "5", "me")
        assert states_of(sent, record.id) == []
        games.another(record.id, "me", swap=False)
        assert states_of(sent, record.id) == ["5"]
        assert not games.searches.thinking(record.id)
    finally:
        games.close()


def test_a_settings_change_that_restarts_a_quick_reply_is_told_at_once() -> None:
    """Only a move waits for its reply: the room hears a new level as it is set."""
    games, pool, sent = manual_service()
    try:
        record = games.create("tictactoe", {"level": "hard"}, owner="me")
        games.move(record.id, "5", "me")
        games.change_settings(record.id, {"level": "easy"}, "me")
        told = [p for e, p, to in sent if e == protocol.STATE and to == record.id]
        assert [(p["moves"], p["settings"]["level"]) for p in told] == [
            ("5", "hard"),
            ("5", "easy"),
        ]
        assert engine_jobs(pool)[-1].limits.depth == protocol.LEVELS["easy"]["depth"]
    finally:
        games.close()
