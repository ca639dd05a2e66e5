"""The scores of the side to move after every move (``scores`` events), and pondering.

``services/live_scores.py``: after each move, the player's or the engine's,
every legal move of the position is scored for the side to move then; a
result for a position the game has left is never sent; a page that joins
gets the scores so far. The values are checked against an independent
computation: the pure-Python engine (``native=False``), on tic-tac-toe and a
late Connect Four position.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from tests.web.held_engine import cut_short
from tests.web.helpers import Listener, seated, wait_until
from tests.web.holding_pool import (
    HoldingPool,
    Sent,
    first_pass,
    pure_python_scores,
    scores_of,
    values,
)
from tests.web.test_searches_unit import InstantPool, _Never
from webapp import protocol
from webapp.game_settings import analysis_limits
from webapp.games.connect4_kernel.native import FALLBACK_DEPTH
from webapp.search_pool import DROPPED, PoolBusy, Priority, SearchJob
from webapp.services import GameService, live_scores
from webapp.services import state as state_module
from webapp.services.locks import Outbox
from webapp.store import GameRecord, open_store
from webapp.web.app import game_watched, socketio

#: A late Connect Four position (28 stones, the first player to move) whose columns differ;
#: its best columns win, but not at once (so the engine has a reply to ponder).
LATE_CONNECT4 = "1666425755643557763612254722"


def test_after_the_players_move_and_the_engines_the_side_to_move_gets_its_scores(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, sent = games
    record = service.create("tictactoe", {"level": "perfect"}, owner="me")
    first = scores_of(sent)[-1]
    assert first["moves"] == "" and first["to_move"] == 0 and first["complete"]
    assert values(first) == pure_python_scores("tictactoe", "")
    service.move(record.id, "1", "me")  # the engine's search is held: it is to move
    after_player = scores_of(sent)[-1]
    assert after_player["moves"] == "1" and after_player["to_move"] == 1
    assert after_player["game_id"] == record.id and after_player["complete"]
    assert values(after_player) == pure_python_scores("tictactoe", "1")
    pool.release("engine")
    stored = service.store.get(record.id)
    assert stored is not None and len(stored.moves) == 2
    after_engine = scores_of(sent)[-1]
    assert after_engine["moves"] == stored.moves and after_engine["to_move"] == 0
    assert values(after_engine) == pure_python_scores("tictactoe", stored.moves)
    # The engine's own options before its move went with it: the scores of "1".
    assert stored.last_engine_move is not None
    assert stored.last_engine_move["move_scores"] == after_player["move_scores"]
    state = service.state(record.id, "me")
    assert state["scores"] == after_engine  # a page that loads now shows them


@pytest.mark.slow
def test_a_late_connect_four_position_is_scored_exactly_as_the_pure_python_engine_does(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, _, sent = games
    service.create("connect4", {"level": "perfect"}, LATE_CONNECT4, owner="me")
    final = scores_of(sent)[-1]
    assert final["moves"] == LATE_CONNECT4 and final["to_move"] == 0 and final["complete"]
    assert values(final) == pure_python_scores("connect4", LATE_CONNECT4)


def test_scores_of_a_position_the_game_has_left_are_never_sent(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, sent = games
    pool.hold.add("scores")
    record = service.create("tictactoe", {"level": "perfect"}, owner="me")
    service.move(record.id, "5", "me")  # the start's scores are still out
    pool.release("engine")
    stored = service.store.get(record.id)
    assert stored is not None and len(stored.moves) == 2
    pool.release("scores")  # every scores search comes back, the old ones too
    told = scores_of(sent)
    assert told and {payload["moves"] for payload in told} == {stored.moves}
    states = [payload for event, payload, _ in sent if event == protocol.STATE]
    assert all(s["scores"] is None or s["scores"]["moves"] == s["moves"] for s in states)


def test_a_position_the_first_pass_solves_is_told_once_and_exactly(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """The first pass is the strongest analysis under ``FIRST_TIME``: where it solves the
    position (most positions), one pass and one ``scores`` event say everything. (Five
    empty cells: solved in about a millisecond, far inside the pass's time however busy
    the machine.)"""
    service, pool, sent = games
    service.create("tictactoe", {"level": "perfect"}, "1593", owner="me")
    told = [s for s in scores_of(sent) if s["moves"] == "1593"]
    assert len(told) == 1 and told[0]["complete"] and not told[0]["solving"]
    assert set(told[0]["move_scores"]) == set("24678")
    assert all(s["exact"] and "depth" not in s for s in told[0]["move_scores"].values())
    scored = [job for job in pool.submitted if job.tag[0] == "scores" and job.moves == "1593"]
    assert len(scored) == 1 and first_pass(scored[0])


def test_estimates_come_first_where_the_first_pass_cannot_solve_then_the_exact_scores(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, sent = games
    pool.cut_first = True  # the first pass's time runs out before the solver is done
    service.create("connect4", {"level": "perfect"}, "4444", owner="me")
    told = [s for s in scores_of(sent) if s["moves"] == "4444"]
    assert len(told) == 2 and not told[0]["complete"] and told[1]["complete"]
    assert told[0]["solving"] and not told[1]["solving"]  # the page says "solving…", then not
    shallow = told[0]["move_scores"]
    assert all(s["depth"] == FALLBACK_DEPTH for s in shallow.values() if not s["exact"])
    assert all("depth" not in s for s in told[1]["move_scores"].values())
    scored = [job for job in pool.submitted if job.tag[0] == "scores" and job.moves == "4444"]
    assert [first_pass(job) for job in scored] == [True, False]
    assert scored[1].limits.time == analysis_limits("connect4").time  # the full budget


def test_scores_are_complete_only_when_every_legal_move_has_one(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """A solved first pass that left a move with no score (a leftover estimate that does
    not say how deep it was searched, as a search host of an older build sends): not
    complete, so the full pass follows, and nothing says "solved" meanwhile."""
    service, pool, sent = games
    pool.hold.add("scores")
    service.create("connect4", {"level": "perfect"}, "4444", owner="me")
    first = next(job for job in pool.waiting if job.moves == "4444")
    pool.waiting.remove(first)
    answer = cut_short(first.game, first.moves, first.algorithm, first.limits,
                       move_scores=True, seed=0, progress=lambda _: None,
                       cancel=_Never())  # fmt: skip
    answer |= {"exact": True, "stopped": None}  # solved, its leftover unmarked
    answer["move_scores"] = {m: {"score": 1, "exact": True} for m in "123456"}
    answer["move_scores"]["7"] = {"score": 0.1, "exact": False}
    pool.on_result(first, answer, None)
    told = [s for s in scores_of(sent) if s["moves"] == "4444"]
    assert len(told) == 1 and set(told[0]["move_scores"]) == set("123456")
    assert not told[0]["complete"] and told[0]["solving"]
    full = [job for job in pool.waiting if job.moves == "4444"]
    assert len(full) == 1 and not first_pass(full[0])  # the full pass, for the last move


def test_a_full_pass_that_fails_or_is_refused_past_its_retries_ends_solving(
    games: tuple[GameService, HoldingPool, Sent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first pass's estimates said "solving…"; when the full pass fails (a worker
    died), or the pool refuses it under load every time it is asked again, the page hears
    that nothing more is coming."""
    service, pool, sent = games
    pool.hold.add("scores")
    failing = service.create("connect4", {"level": "perfect"}, "4444", owner="me")
    first = pool.waiting.pop()
    pool.finish_cut_short(first)
    full = pool.waiting.pop()
    pool.on_result(full, None, "the search worker stopped unexpectedly")
    told = [s for s in scores_of(sent) if s["game_id"] == failing.id]
    assert [(s["complete"], s["solving"]) for s in told] == [(False, True), (False, False)]
    assert told[0]["move_scores"] == told[1]["move_scores"]

    monkeypatch.setattr(live_scores, "RETRY_SECONDS", (0.01, 0.01))
    refused = service.create("connect4", {"level": "perfect"}, "4444", owner="me")
    first = pool.waiting.pop()
    submit = pool.submit
    asked: list[SearchJob] = []

    def busy(job: SearchJob) -> int:
        if job.tag[0] == "scores":
            asked.append(job)
            raise PoolBusy("the pool is full")
        return submit(job)

    pool.submit = busy  # type: ignore[method-assign]
    pool.finish_cut_short(first)

    def solving_ended() -> bool:
        told = [s for s in scores_of(sent) if s["game_id"] == refused.id]
        return [(s["complete"], s["solving"]) for s in told] == [(False, True), (False, False)]

    wait_until(solving_ended)
    assert len(asked) == 3  # the full pass, then asked again twice


def test_a_pass_shed_under_load_is_asked_again_and_its_scores_end_exact(
    games: tuple[GameService, HoldingPool, Sent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The QA's empty board under load: its passes shed for the crowd's moves, it read
    "slightly better (depth 5)" for good. Shed, a pass is asked again later ("solving…"
    meanwhile), and once the workers have room its scores become exact."""
    monkeypatch.setattr(live_scores, "RETRY_SECONDS", (3600.0,))
    service, pool, sent = games
    pool.hold.add("scores")
    record = service.create("tictactoe", {"level": "perfect"}, owner="me")
    first = pool.waiting.pop()
    pool.finish_cut_short(first)  # estimates so far, "solving…"
    full = pool.waiting.pop()
    full.dropped = True  # shed: newer display work came and the queue was full
    pool.on_result(full, None, DROPPED)
    told = [s for s in scores_of(sent) if s["game_id"] == record.id]
    assert [(s["complete"], s["solving"]) for s in told] == [(False, True)]  # not "done"
    scoring = service.searches.live._scoring[record.id]
    assert scoring.retry is not None and scoring.solving
    scoring.retry.cancel()  # due in an hour: run it now
    service.searches.live._retry(record.id, scoring)
    pool.release("scores")
    last = scores_of(sent)[-1]
    assert last["game_id"] == record.id and last["complete"] and not last["solving"]
    assert values(last) == pure_python_scores("tictactoe", "")


def test_a_first_pass_refused_under_load_is_asked_again(
    games: tuple[GameService, HoldingPool, Sent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared queue (``--redis``) refuses display work when full: the position's scores
    are asked again later, not left unknown."""
    monkeypatch.setattr(live_scores, "RETRY_SECONDS", (0.01,))
    service, pool, sent = games
    submit, refused = pool.submit, []

    def full(job: SearchJob) -> int:
        if job.tag[0] == "scores" and not refused:
            refused.append(job)
            raise PoolBusy("the queue is full")
        return submit(job)

    pool.submit = full  # type: ignore[method-assign]
    record = service.create("tictactoe", {"level": "perfect"}, owner="me")
    assert refused and not scores_of(sent)
    wait_until(lambda: any(s["complete"] for s in scores_of(sent)))
    last = scores_of(sent)[-1]
    assert last["game_id"] == record.id and values(last) == pure_python_scores("tictactoe", "")


def test_while_the_engines_replies_wait_no_scores_are_asked_and_they_come_later(
    games: tuple[GameService, HoldingPool, Sent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a crowd, the scores' passes took a fifth of the web process's time a move
    and most were shed anyway. While the process is behind with the engine's replies
    (``Dispatcher.behind``) a new position's scores are not even asked, nor the exact
    pass over the engine's options; asked again later, as a shed pass is, they end
    exact once the crowd has gone. Where the player's scores lead to the pondering of a
    long reply (Perfect), they are asked still: the pondering is the reply itself."""
    monkeypatch.setattr(live_scores, "RETRY_SECONDS", (3600.0,))
    service, pool, sent = games
    live = service.searches.live
    behind = [True]
    monkeypatch.setattr(live.dispatch, "behind", lambda: behind[0])
    pool.hold.add("scores")
    pondered = service.create("tictactoe", {"level": "perfect"}, owner="me")
    assert [job.game_id for job in pool.waiting if job.tag[0] == "scores"] == [pondered.id]
    pool.waiting.clear()
    record = service.create("tictactoe", {"level": "easy"}, owner="me")
    assert not [job for job in pool.waiting if job.tag[0] == "scores"] and not scores_of(sent)
    scoring = live._scoring[record.id]
    assert scoring.retry is not None  # asked again later, as a shed pass is

    live._options[record.id] = scoring  # an engine's options waiting for their exact pass
    live._score_options(record.id)
    assert record.id not in live._options and not pool.waiting  # display work gives way

    behind[0] = False  # the crowd has gone
    scoring.retry.cancel()  # due in an hour: run it now
    live._retry(record.id, scoring)
    asked = [job for job in pool.waiting if job.tag[0] == "scores"]
    assert len(asked) == 1 and not first_pass(asked[0])  # the full pass at once
    pool.release("scores")
    last = scores_of(sent)[-1]
    assert last["game_id"] == record.id and last["complete"] and not last["solving"]
    assert values(last) == pure_python_scores("tictactoe", "")


def test_a_pass_that_would_shed_another_games_is_not_asked_and_comes_later(
    games: tuple[GameService, HoldingPool, Sent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked while the pool's scores lane is full, a pass would push out the oldest one
    waiting (another game's), whose news then comes back to be planned again: in a
    crowd nearly every pass went that way. In a game with quick replies such a pass is
    not asked; it is planned again like a shed one, and the passes waiting keep their
    places. At Perfect it is asked still: the player's scores choose the pondering."""
    monkeypatch.setattr(live_scores, "RETRY_SECONDS", (3600.0,))
    service, pool, sent = games
    live = service.searches.live
    pool.hold.add("scores")
    waiting = service.create("tictactoe", {"level": "easy"}, owner="me")
    before = [job for job in pool.waiting if job.tag[0] == "scores"]
    assert [job.game_id for job in before] == [waiting.id]
    full, asked_for = [True], []

    def sheds(priority: Priority, count: int = 1) -> bool:
        asked_for.append(count)
        return full[0] and priority == Priority.SCORES

    monkeypatch.setattr(pool, "sheds", sheds)
    record = service.create("tictactoe", {"level": "easy"}, owner="me")
    assert [job for job in pool.waiting if job.tag[0] == "scores"] == before  # in place
    scoring = live._scoring[record.id]
    assert scoring.retry is not None  # asked again later, as a shed pass is
    perfect = service.create("tictactoe", {"level": "perfect"}, owner="me")
    assert [job.game_id for job in pool.waiting if job.tag[0] == "scores"][-1] == perfect.id
    assert asked_for == [1, 1]  # first passes go whole

    full[0] = False  # the lane has room again
    scoring.retry.cancel()  # due in an hour: run it now
    live._retry(record.id, scoring)
    assert [job.game_id for job in pool.waiting if job.tag[0] == "scores"][-1] == record.id
    pool.release("scores")
    last = [s for s in scores_of(sent) if s["game_id"] == record.id][-1]
    assert last["complete"] and not last["solving"]
    assert values(last) == pure_python_scores("tictactoe", "")


def test_a_page_that_joins_gets_the_scores_so_far(app: Flask) -> None:
    state, player = seated(app, "tictactoe", settings={"level": "perfect"})
    scores = player.wait_for(protocol.SCORES, lambda s: s["moves"] == "" and s["complete"])
    late = Listener(socketio.test_client(app))
    joined = late.emit(protocol.JOIN, {"game_id": state["id"]})
    assert joined["scores"] == scores
    assert late.wait_for(protocol.SCORES) == scores


def test_the_players_expected_move_gets_the_pondered_reply(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, sent = games
    pool.hold.discard("ponder")
    record = service.create("connect4", {"level": "perfect"}, LATE_CONNECT4, owner="me")
    (pondered,) = [job for job in pool.submitted if job.tag[0] == "ponder"]
    expected = pondered.moves[-1]
    assert values(scores_of(sent)[-1])[expected] == (6, True)  # the best move
    service.move(record.id, expected, "me")
    wait_until(lambda: any(event == protocol.ENGINE_MOVE for event, _, _ in sent))
    assert not [job for job in pool.submitted if job.tag[0] == "engine"]  # no search needed
    (reply,) = [payload for event, payload, _ in sent if event == protocol.ENGINE_MOVE]
    assert reply["pondered"] and reply["moves"] == pondered.moves
    assert reply["score"] == -6  # the engine's side of the player's exact value


def test_the_engines_options_join_its_move_when_it_was_quicker_than_them(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, sent = games
    pool.hold.add("scores")
    record = service.create("tictactoe", {"level": "perfect", "engine_plays": "first"}, owner="me")
    pool.release("engine")  # the engine moves before its options' first pass is in
    moved = service.store.get(record.id)
    assert moved is not None and len(moved.moves) == 1
    assert moved.last_engine_move is not None and moved.last_engine_move["move_scores"] is None
    pool.release("scores")
    stored = service.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    options = stored.last_engine_move["move_scores"]
    assert options is not None and set(options) == set("123456789")
    assert {payload["moves"] for payload in scores_of(sent)} == {stored.moves}  # none for ""
    last_state = [payload for event, payload, _ in sent if event == protocol.STATE][-1]
    assert last_state["last_engine_move"]["move_scores"] == options


def test_at_perfect_the_engines_options_are_finished_exactly_after_the_players_scores(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """The engine moved during the exact pass over its options: that pass is cancelled
    for the player's scores, then run as lesser work, and the options kept with the move
    become exact (checked against the pure-Python engine)."""
    service, pool, sent = games
    pool.hold.add("scores")
    record = service.create("tictactoe", {"level": "perfect", "engine_plays": "first"}, owner="me")
    quick = pool.waiting[-1]
    assert first_pass(quick)
    pool.waiting.remove(quick)
    pool.finish_cut_short(quick)  # the options' first pass: estimates; their exact pass waits
    exact = pool.waiting[-1]
    assert exact.moves == "" and exact.limits.depth is None and exact.priority == Priority.SCORES
    pool.release("engine")  # the engine moves during that pass
    assert not [job for job in pool.waiting if job.moves == "" and job is not exact]
    moved = service.store.get(record.id)
    assert moved is not None and moved.last_engine_move is not None
    shallow = moved.last_engine_move["move_scores"]
    assert shallow is not None and not all(s["exact"] for s in shallow.values())
    pool.release("scores")
    # Its exact pass again, once the player's own scores were done, as lesser work:
    scored = [job for job in pool.submitted if job.tag[0] == "scores"]
    again = [i for i, job in enumerate(scored) if job.moves == "" and job not in (quick, exact)]
    player = [i for i, job in enumerate(scored) if job.moves == moved.moves]
    assert len(again) == 1 and scored[again[0]].priority == Priority.ANALYSIS
    assert player and max(player) < again[0]
    stored = service.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    options = stored.last_engine_move["move_scores"]
    assert values({"move_scores": options}) == pure_python_scores("tictactoe", "")
    last_state = [payload for event, payload, _ in sent if event == protocol.STATE][-1]
    assert last_state["last_engine_move"]["move_scores"] == options


def test_the_exact_pass_over_the_engines_options_stops_when_the_player_moves(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, _ = games
    pool.hold.add("scores")
    record = service.create("tictactoe", {"level": "perfect", "engine_plays": "first"}, owner="me")
    quick = pool.waiting[-1]
    pool.waiting.remove(quick)
    pool.finish_cut_short(quick)
    pool.release("engine")
    pool.hold.add("engine")

    def exact_pass() -> SearchJob | None:
        return next((j for j in pool.waiting if j.priority == Priority.ANALYSIS), None)

    def players_scores_done() -> bool:
        """Finish the player's own scores as they are asked, until the options' exact pass
        is: results are applied off the reporting thread (the test raced them), and a
        first pass that its tenth of a second cuts short on a busy machine asks a full one."""
        for job in [j for j in pool.waiting if j.tag[0] == "scores" and j.moves != ""]:
            pool.waiting.remove(job)
            pool.finish(job)
        return exact_pass() is not None

    wait_until(players_scores_done)
    options = exact_pass()
    assert options is not None and options.tag[0] == "scores" and options.moves == ""
    cancelled: list[int] = []
    pool.cancel = cancelled.append  # type: ignore[method-assign]
    moved = service.store.get(record.id)
    assert moved is not None
    service.move(record.id, next(m for m in "123456789" if m not in moved.moves), "me")
    assert options.id in cancelled


def test_no_exact_pass_over_the_engines_options_once_its_move_ended_the_game(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, _ = games
    pool.hold.add("scores")
    settings = {"level": "perfect", "engine_plays": "first"}
    record = service.create("tictactoe", settings, "1425", owner="me")  # X wins with 3
    pool.release("engine")
    over = service.store.get(record.id)
    assert over is not None and over.status != "playing"
    pool.release("scores")  # the first pass over its options is let finish, no more
    assert not [job for job in pool.submitted if job.priority == Priority.ANALYSIS]
    stored = service.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    assert stored.last_engine_move["move_scores"] is not None


@pytest.mark.slow
def test_options_cut_off_by_the_engines_winning_move_are_finished_exactly(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """The engine wins (three in column 1, it plays the fourth) while the exact pass over
    its options runs (not the first one, as with "1425" above): that pass starts again
    as lesser work (a finished game's panel showed "about even - depth 8" beside the win),
    its exact scores join the move, and nothing stays kept for the finished game."""
    service, pool, _ = games
    pool.hold.add("scores")
    settings = {"level": "perfect", "engine_plays": "first"}
    record = service.create("connect4", settings, "121212", owner="me")
    quick = pool.waiting[-1]
    pool.waiting.remove(quick)
    pool.finish_cut_short(quick)
    full = pool.waiting[-1]  # the full exact pass, under way
    assert full.tag[0] == "scores" and full.moves == "121212" and not first_pass(full)
    pool.release("engine")
    moved = service.store.get(record.id)
    assert moved is not None and moved.status != "playing"
    pool.release("scores")
    assert [job for job in pool.submitted if job.priority == Priority.ANALYSIS]
    assert record.id not in service.searches.live._options
    stored = service.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    options = stored.last_engine_move["move_scores"]
    assert options and all(s["exact"] for s in options.values())
    assert max(options, key=lambda m: options[m]["score"]) == "1"  # the win at once


def test_at_a_custom_level_the_engines_options_get_their_exact_pass_too(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """A custom level deeper than the solver's heuristic pass, the engine quicker than its
    options' first pass (one its time cut short): that pass joins the move, and the exact
    pass follows, as at every level (the board shows the strongest analysis whatever the
    level)."""
    service, pool, _ = games
    pool.hold.add("scores")
    pool.cut_first = True
    settings = {"level": "custom", "depth": 9, "time": 5, "engine_plays": "first"}
    service.create("tictactoe", settings, owner="me")
    pool.release("engine")  # the engine moves before its options' first pass is in
    pool.release("scores")
    assert [job for job in pool.submitted if job.priority == Priority.ANALYSIS]


def test_options_that_come_after_the_players_move_are_not_stored(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """The player moved in another process (a search host still scores the engine's
    options): storing them would bump the version the engine's next search is tied to."""
    service, pool, _ = games
    record = service.create("tictactoe", {"level": "perfect", "engine_plays": "first"}, owner="me")
    pool.release("engine")
    moved = service.store.get(record.id)
    assert moved is not None and moved.last_engine_move is not None
    before = moved.last_engine_move["moves"]
    moved.moves += next(m for m in "123456789" if m not in moved.moves)  # elsewhere
    moved.last_engine_move = {**moved.last_engine_move, "move_scores": None}  # none in yet
    service.store.save(moved)
    version = moved.version
    scores = {"5": {"score": 0, "exact": True}}
    service.searches.live._store_options(record.id, before, scores, Outbox())
    stored = service.store.get(record.id)
    assert stored is not None and stored.version == version


def test_options_are_stored_again_only_when_they_know_more(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """Each store bumps the game's version (a player's move then retries): the same
    scores, or any once every one is exact, are not stored again."""
    service, pool, _ = games
    record = service.create("tictactoe", {"level": "perfect", "engine_plays": "first"}, owner="me")
    pool.release("engine")
    pool.release("ponder")
    stored = service.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    options = stored.last_engine_move["move_scores"]
    assert options and all(s["exact"] for s in options.values())
    store = service.searches.live._store_options  # the rule under test
    estimates = {m: {"score": 0.0, "exact": False, "depth": 8} for m in options}
    for scores in (options, estimates):
        store(record.id, "", scores, Outbox())
        again = service.store.get(record.id)
        assert again is not None and again.version == stored.version
        assert again.last_engine_move is not None
        assert again.last_engine_move["move_scores"] == options


@pytest.mark.slow
def test_abandoned_games_scores_are_forgotten_once_idle_and_unwatched() -> None:
    watching: set[str] = set()
    service = GameService(
        open_store(":memory:"),
        InstantPool(),  # type: ignore[arg-type]
        lambda *_: None,
        seed=0,
        watched=watching.__contains__,
    )
    live = service.searches.live
    live.idle_seconds = 0.0  # idle at once: every new live position looks for idle games
    try:
        kept = service.create("tictactoe", {"level": "easy"}, owner="me")
        watching.add(kept.id)  # a page has this one open
        for _ in range(20):
            service.create("tictactoe", {"level": "easy"}, owner="me")  # and leaves it
        assert live.sizes()["scoring"] == 2  # the watched game and the newest one
        assert live.current(kept.id, kept.moves) is not None
        watching.clear()
        service.create("tictactoe", {"level": "easy"}, owner="me")
        sizes = live.sizes()
        assert (sizes["scoring"], sizes["options"], sizes["adopted"]) == (1, 0, 0)
        assert sizes["pondering"] <= 1  # the newest game's own reply, pondered
        assert live.current(kept.id, kept.moves) is None
        service.wake(kept.id)  # a page opens it again: scored afresh
        assert live.current(kept.id, kept.moves) is not None
    finally:
        service.close()


def test_games_stay_scored_while_they_are_not_idle(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, _, _ = games
    for _ in range(5):
        service.create("tictactoe", {"level": "easy"}, owner="me")
    assert service.searches.live.sizes()["scoring"] == 5  # idle for less than IDLE_SECONDS


class RunningPondersPool(HoldingPool):
    """Holds the pondering as if a worker were running it (it waits for no place)."""

    def position(self, job_id: int) -> int | None:
        return None


def test_an_undo_during_an_adopted_ponder_leaks_nothing() -> None:
    pool = RunningPondersPool({"engine", "ponder"})
    service = GameService(open_store(":memory:"), pool, lambda *_: None, seed=0)  # type: ignore[arg-type]
    live = service.searches.live
    try:
        record = service.create("connect4", {"level": "perfect"}, LATE_CONNECT4, owner="me")
        (pondered,) = [job for job in pool.submitted if job.tag[0] == "ponder"]
        service.move(record.id, pondered.moves[-1], "me")  # the expected move: adopted
        assert live.sizes()["adopted"] == 1 and service.searches.thinking(record.id)
        service.undo(record.id, "me")  # its search is cancelled: no result will come
        assert live.sizes()["adopted"] == 0
        assert live.sizes()["pondering"] <= 1  # at most the new position's own
    finally:
        service.close()


def test_a_game_is_watched_while_a_page_has_it_open(app: Flask) -> None:
    state, player = seated(app, "tictactoe")
    assert game_watched(state["id"])
    player.client.disconnect()
    assert not game_watched(state["id"])


def test_only_the_engines_searches_and_its_pondering_report_their_depths(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    """Scores and analyses go out whole: their workers send no depth by depth progress."""
    service, pool, _ = games
    pool.hold.discard("ponder")
    service.create("connect4", {"level": "perfect"}, LATE_CONNECT4, owner="me")
    wait_until(lambda: any(job.tag[0] == "ponder" for job in pool.submitted))
    reported = {job.tag[0]: job.progress for job in pool.submitted}
    assert reported == {"scores": False, "ponder": True}
    other = service.create("tictactoe", {"engine_plays": "first"}, owner="me")
    assert [job.progress for job in pool.submitted if job.tag[0] == "engine"] == [True]
    service.analyse(other.id, "alphabeta", "sid-1", "me", "me")  # the answer only
    assert [job.progress for job in pool.submitted if job.tag[0] == "analysis"] == [False]


def test_a_move_reads_its_game_once_and_replays_it_once(
    games: tuple[GameService, HoldingPool, Sent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the game's lock, once: the read before it (to find the lock) was a second
    read of every move; the state sent replayed the moves again for the side to move.
    (At Hard: the move's state goes out on its own, not with a reply of milliseconds.)"""
    service, pool, sent = games
    pool.hold.update({"scores", "ponder", "engine"})  # their results read the game too: not now
    record = service.create("connect4", {"engine_plays": "second", "level": "hard"}, "", owner="me")
    reads: list[str] = []
    get = service.store.get

    def counted(game_id: str) -> GameRecord | None:
        reads.append(game_id)
        return get(game_id)

    monkeypatch.setattr(service.store, "get", counted)
    replays: list[str] = []
    monkeypatch.setattr(state_module, "new_game", lambda *a: replays.append("state"), raising=False)
    service.move(record.id, "4", "me")
    assert reads == [record.id]
    assert [p["moves"] for e, p, _ in sent if e == protocol.STATE] == ["4"]
    assert replays == []


#: X (the engine, first) to fill the last cell, 4: a draw that ends the game.
LAST_MOVE = "15928736"


def estimate(job: SearchJob) -> dict[str, Any]:
    """A first pass's result that did not solve the last move."""
    scores = {"4": {"score": 0, "exact": False, "depth": 8}}
    return {"best_move": "4", "score": 0, "exact": False, "pv": "4", "nodes": 1, "depth": 8,
            "time_ms": 0.1, "algorithm": job.algorithm, "move_scores": scores}  # fmt: skip


def stored_options(service: GameService, game_id: str) -> dict[str, Any]:
    record = service.store.get(game_id)
    assert record is not None and record.status != "playing"
    assert record.last_engine_move is not None and record.last_engine_move["move"] == "4"
    options: dict[str, Any] = record.last_engine_move["move_scores"]
    return options


def test_a_game_ending_move_before_the_first_pass_gets_exact_options(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, _ = games
    pool.hold.add("scores")
    record = service.create(
        "tictactoe", {"level": "easy", "engine_plays": "first"}, LAST_MOVE, owner="me"
    )
    quick = pool.waiting[-1]
    assert first_pass(quick)
    pool.waiting.remove(quick)
    pool.release("engine")  # the engine's move ends the game while its options are scored
    pool.on_result(quick, estimate(quick), None)
    assert stored_options(service, record.id) == {"4": {"score": 0, "exact": False, "depth": 8}}
    exact = [job for job in pool.waiting if job.priority == Priority.ANALYSIS]
    assert exact and not first_pass(exact[0]) and exact[0].limits.depth is None  # it follows
    pool.release("scores")
    assert stored_options(service, record.id) == {"4": {"score": 0, "exact": True}}


def test_a_game_ending_move_during_the_exact_pass_gets_exact_options(
    games: tuple[GameService, HoldingPool, Sent],
) -> None:
    service, pool, _ = games
    pool.hold.add("scores")
    record = service.create(
        "tictactoe", {"level": "easy", "engine_plays": "first"}, LAST_MOVE, owner="me"
    )
    quick = pool.waiting[-1]
    pool.waiting.remove(quick)
    pool.on_result(quick, estimate(quick), None)  # an estimate: the exact pass starts
    assert not first_pass(pool.waiting[-1]) and pool.waiting[-1].limits.depth is None
    pool.release("engine")  # the move ends the game while the exact pass runs
    assert [job for job in pool.waiting if job.priority == Priority.ANALYSIS]
    pool.release("scores")
    assert stored_options(service, record.id) == {"4": {"score": 0, "exact": True}}
