"""Socket.IO events (webapp/sockets.py): every client event, and every bad input left harmless.

A refused request gets an ``error`` event (to the sender only) and changes
nothing: each bad-input test compares the stored game before and after.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import flask
import pytest
from flask import Flask
from flask.sessions import NullSession
from flask.testing import FlaskClient
from socketio import packet as socketio_packet
from werkzeug import routing as werkzeug_routing

from tests.web.conftest import MakeHeld
from tests.web.fake_searches import PULSING
from tests.web.held_engine import label
from tests.web.helpers import (
    Listener,
    create,
    error_code,
    make_app,
    options_stored,
    seated,
    stored,
    wait_until,
)
from webapp import protocol
from webapp.games import new_game
from webapp.search_pool import DEPTHS, PULSE
from webapp.services import searches as searches_module
from webapp.web.app import close_app, service_of, socketio
from webapp.web.packets import SafePacket

Start = Callable[..., tuple[dict[str, Any], Listener]]
Watch = Callable[[str], Listener]

#: Settings under which the engine answers at once.
FAST = {"level": "easy"}


#: Stands for the test's own game id in parametrized payloads.
OURS = "<this game>"
#: What each `thinking` event carries (one per completed depth).
THINKING_FIELDS = {"depth", "score", "exact", "pv", "nodes", "elapsed_ms", "nps"}


def this_game(payload: Any, game_id: str) -> Any:
    """``payload`` with the ``OURS`` placeholder replaced by ``game_id``."""
    if isinstance(payload, dict) and payload.get("game_id") == OURS:
        return {**payload, "game_id": game_id}
    return payload


def refused(app: Flask, listener: Listener, game_id: str, event: str, payload: Any) -> str:
    """Send a request that must be refused; the error code (the game is checked unchanged)."""
    before = stored(app, game_id)
    listener.clear()
    answer = listener.emit(event, payload)
    code = error_code(listener)
    assert answer == listener.named(protocol.ERROR)[-1]  # the acknowledgement says it too
    assert stored(app, game_id) == before
    assert not listener.named(protocol.STATE)
    return code


# -- join ------------------------------------------------------------------------------


def test_join_answers_with_the_state_and_the_seat(start: Start, watch: Watch) -> None:
    state, player = start()
    assert player.wait_for(protocol.STATE)["seat"] == "player"
    # The state carries the live scores once their pass is in (none yet when the game was
    # made): wait for them, so that both joins below see the game at rest.
    scores = player.wait_for(protocol.SCORES, lambda s: s["moves"] == "" and s["complete"])
    rest = player.emit(protocol.JOIN, {"game_id": state["id"]})
    assert rest["scores"] == scores
    assert {**rest, "scores": None} == {**state, "scores": None}  # nothing else changed
    spectator = watch(state["id"])
    seen = spectator.wait_for(protocol.STATE)
    assert seen["seat"] == "spectator"
    assert {**seen, "seat": None} == {**rest, "seat": None}


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (None, protocol.BAD_REQUEST),
        ("abc", protocol.BAD_REQUEST),
        ({}, protocol.BAD_REQUEST),
        ({"game_id": 7}, protocol.BAD_REQUEST),
        ({"game_id": ""}, protocol.BAD_REQUEST),
        ({"game_id": "no-such-game"}, protocol.UNKNOWN_GAME),
        ({"game_id": "x" * 1000}, protocol.UNKNOWN_GAME),
    ],
)
def test_join_refuses_bad_payloads(start: Start, app: Flask, payload: Any, code: str) -> None:
    state, player = start()
    assert refused(app, player, state["id"], protocol.JOIN, payload) == code


# -- move ------------------------------------------------------------------------------


def test_a_move_is_stored_broadcast_and_answered_by_the_engine(
    start: Start, watch: Watch, app: Flask
) -> None:
    state, player = start("tictactoe", settings={"level": "perfect"})
    spectator = watch(state["id"])
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})
    engine = player.wait_for(protocol.ENGINE_MOVE)
    assert engine["game_id"] == state["id"] and engine["moves"] == "5"
    assert engine["move"] == engine["best_move"] and engine["exact"] and engine["score"] == 0
    assert engine["algorithm"] == "alphabeta" and engine["nodes"] > 0
    after = player.wait_for(protocol.STATE, lambda s: s["moves"] == "5" + engine["move"])

    # The scores of the player's options follow (the engine's own went with its move):
    # complete once solved (at once, unless a loaded machine stalled the first pass past
    # its tenth of a second: then its estimates come first).
    def solved(scores: dict[str, Any]) -> bool:
        return bool(scores["moves"] == after["moves"] and scores["complete"])

    scores = player.wait_for(protocol.SCORES, solved)
    assert scores["to_move"] == 0
    assert set(scores["move_scores"]) == set("12346789") - {engine["move"]}
    assert max(s["score"] for s in scores["move_scores"].values()) == -engine["score"]
    assert spectator.wait_for(protocol.SCORES, solved) == scores
    new_game("tictactoe", "5" + engine["pv"])  # the expected line is legal
    # Its depths: streamed as it searched, or (a search done in milliseconds) with its move.
    thinking = player.named(protocol.THINKING) + engine.get(DEPTHS, [])
    assert [row["depth"] for row in thinking] == list(range(1, engine["depth"] + 1))
    assert set(thinking[0]) >= THINKING_FIELDS and thinking[0]["moves"] == "5"
    move = {key: value for key, value in engine.items() if key != DEPTHS}
    assert after["last_engine_move"] == move and not after["engine_thinking"]  # no depths kept
    kept = stored(app, state["id"])["last_engine_move"]
    # The engine's options before its move: with it, or joining it once their pass is in.
    assert {**kept, "move_scores": None} == {**move, "move_scores": None}
    assert kept["move_scores"] is None or set(kept["move_scores"]) == set("12346789")
    assert stored(app, state["id"])["moves"] == after["moves"]
    # Everyone in the room saw the human's move (engine thinking) and the engine's.
    spectator.wait_for(protocol.STATE, lambda s: s["moves"] == after["moves"])
    seen = [s["moves"] for s in spectator.named(protocol.STATE)]
    assert seen[:3] == ["", "5", after["moves"]] and set(seen[3:]) <= {after["moves"]}
    assert spectator.wait_for(protocol.ENGINE_MOVE) == engine


def test_a_move_in_a_game_against_the_engine_reads_the_game_once(
    start: Start, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The handler learns the game's kind at its first move (a game's kind never changes):
    from then on a move reads the game once, under its lock."""
    state, player = start("connect4", settings=FAST)
    store = service_of(app).store
    real, reads = store.get, []

    def counted(game_id: str) -> Any:
        if threading.current_thread() is threading.main_thread():  # the handler's, not results'
            reads.append(game_id)
        return real(game_id)

    monkeypatch.setattr(store, "get", counted)
    moves, counts = "", []
    for move in "44":
        reads.clear()
        player.emit(protocol.MOVE, {"game_id": state["id"], "move": move})
        moves += move
        moves += player.wait_for(protocol.ENGINE_MOVE, lambda e, m=moves: e["moves"] == m)["move"]
        counts.append(len(reads))
    assert counts == [2, 1]
    assert stored(app, state["id"])["moves"] == moves


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ("5", protocol.BAD_REQUEST),
        ({"move": "5"}, protocol.BAD_REQUEST),
        ({"game_id": ["x"], "move": "5"}, protocol.BAD_REQUEST),
        ({"game_id": "no-such-game", "move": "5"}, protocol.UNKNOWN_GAME),
        ({"game_id": OURS}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "move": 5}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "move": "55"}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "move": ""}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "move": "0"}, protocol.ILLEGAL_MOVE),
        ({"game_id": OURS, "move": "x"}, protocol.ILLEGAL_MOVE),
        ({"game_id": OURS, "move": "5"}, protocol.ILLEGAL_MOVE),  # taken
    ],
)
def test_bad_moves_are_refused(start: Start, app: Flask, payload: Any, code: str) -> None:
    state, player = start("tictactoe", moves="51", settings=FAST)
    payload = this_game(payload, state["id"])
    assert refused(app, player, state["id"], protocol.MOVE, payload) == code


def test_a_spectator_cannot_move(start: Start, watch: Watch, app: Flask) -> None:
    state, _ = start()
    spectator = watch(state["id"])
    payload = {"game_id": state["id"], "move": "5"}
    assert refused(app, spectator, state["id"], protocol.MOVE, payload) == protocol.SPECTATOR


@pytest.mark.slow
def test_no_move_while_the_engine_is_to_move(held: MakeHeld) -> None:
    app, holds = held()
    state, player = seated(app, "connect4", settings={"engine_plays": "first"})
    holds.started("connect4-start")  # the engine's search is held: it stays its turn
    payload = {"game_id": state["id"], "move": "4"}
    assert refused(app, player, state["id"], protocol.MOVE, payload) == protocol.NOT_YOUR_TURN


@pytest.mark.slow
def test_a_page_that_joins_during_a_search_gets_its_depths_so_far(held: MakeHeld) -> None:
    app, holds = held()
    state, player = seated(app, "connect4", settings={"engine_plays": "first"})
    holds.started("connect4-start")  # held: the search sends nothing of its own
    searches = service_of(app).searches
    job = searches._engine[state["id"]].job
    assert job is not None
    rows = [
        {"depth": d, "score": 0.0, "exact": False, "pv": "4", "nodes": 10 * d, "elapsed_ms": d}
        for d in (1, 2)
    ]
    for row in rows:  # what the pool's relay thread reports for the search
        searches._on_progress(job, row)
    stale = replace(job, tag=job.tag)  # another search of the game (e.g. cancelled): not kept
    searches._on_progress(stale, {**rows[0], "depth": 9})
    assert [r["depth"] for r in player.named(protocol.THINKING)] == [1, 2]

    late = Listener(socketio.test_client(app, flask_test_client=app.test_client()))
    assert late.emit(protocol.JOIN, {"game_id": state["id"]})["seat"] == "spectator"
    received = [(event, payload) for event, payload in late.poll() if event != protocol.QUEUED]
    assert [event for event, _ in received] == [
        protocol.STATE,
        protocol.THINKING,
        protocol.THINKING,
    ]
    assert received[0][1]["engine_thinking"]
    replayed = [payload for _, payload in received[1:]]
    assert [r["depth"] for r in replayed] == [1, 2]
    assert replayed[1] == {
        **rows[1], "game_id": state["id"], "moves": "", "algorithm": job.algorithm, "nps": 10000
    }  # fmt: skip
    late.client.disconnect()


@pytest.mark.slow
def test_a_search_under_way_pulses_to_the_room_between_its_depths(tmp_path: Path) -> None:
    """Perfect minimax opening tic-tac-toe searches depth 9 in one pass, seconds with no
    depth complete: the room hears it under way (``searching``), its nodes so far, never
    more than the move's own count, and nothing after the move. The worker here pulses at
    every look at its budget (``PULSING``) instead of twice a second."""
    app = make_app(tmp_path / "games.db", SEARCH_FUNCTION=PULSING)
    try:
        settings = {"level": "perfect", "algorithm": "minimax", "engine_plays": "first"}
        state, player = seated(app, "tictactoe", settings=settings)
        spectator = Listener(socketio.test_client(app, flask_test_client=app.test_client()))
        spectator.emit(protocol.JOIN, {"game_id": state["id"]})
        player.wait_for(protocol.SEARCHING, timeout=120)
        # Never kept for a page that joins: what it would replay holds completed depths only.
        kept = service_of(app).searches.depths_so_far(state["id"], "")
        assert all(row["depth"] == 9 and "score" in row and PULSE not in row for row in kept)
        engine = player.wait_for(protocol.ENGINE_MOVE, timeout=120)
        events = [event for event, _ in player.poll()]
        pulses = player.named(protocol.SEARCHING)
        assert pulses
        assert {(p["game_id"], p["moves"], p["algorithm"], p["depth"]) for p in pulses} == {
            (state["id"], "", "minimax", 9)
        }
        nodes = [p["nodes"] for p in pulses]
        assert nodes == sorted(set(nodes)) and nodes[-1] <= engine["nodes"] == 549_946
        assert set(pulses[0]) == {"game_id", "moves", "algorithm", "depth", "nodes",
                                  "elapsed_ms", "nps"}  # fmt: skip
        assert spectator.named(protocol.SEARCHING)  # the room's, not the player's alone
        # The one depth, complete at the end: every pulse came before it.
        assert [row["depth"] for row in player.named(protocol.THINKING)] == [9]
        assert protocol.SEARCHING not in events[events.index(protocol.THINKING) :]
    finally:
        close_app(app)


def test_a_page_that_joins_after_a_search_gets_the_depths_of_the_move_it_played(
    start: Start, watch: Watch
) -> None:
    """A page opened (or reloaded) after the engine moved shows that move's depth table, as
    the page that watched it does; once that move is no longer the board's last (an undo),
    they are not replayed."""
    state, player = start("tictactoe", settings=FAST)
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})
    engine = player.wait_for(protocol.ENGINE_MOVE)
    played = player.named(protocol.THINKING) + engine.get(DEPTHS, [])
    assert played  # the real search sent its depths, streamed or with its move
    late = watch(state["id"])
    received = [event for event, _ in late.poll() if event != protocol.SCORES]
    assert received[0] == protocol.STATE  # the state first, then the depths
    assert late.named(protocol.THINKING) == played
    assert {row["moves"] for row in played} == {"5"}  # the position the engine searched
    player.emit(protocol.UNDO, {"game_id": state["id"]})
    player.wait_for(protocol.STATE, lambda s: s["moves"] == "")
    assert protocol.THINKING not in [event for event, _ in watch(state["id"]).poll()]


def test_the_depths_kept_for_late_pages_are_bounded(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = service_of(app).searches
    monkeypatch.setattr(searches_module, "LAST_DEPTHS_GAMES", 2)
    for game_id in ("g0", "g1", "g2"):
        searches._remember_depths(game_id, "", "5", [{"depth": 1}])
    assert list(searches._last_depths) == ["g1", "g2"]  # the least recently moved went
    searches._remember_depths("g1", "", "5", [])  # a move with no depths: none kept for it
    assert list(searches._last_depths) == ["g2"]


def test_no_move_in_a_finished_game(start: Start, app: Flask) -> None:
    state, player = start("tictactoe", moves="14253")
    payload = {"game_id": state["id"], "move": "9"}
    assert refused(app, player, state["id"], protocol.MOVE, payload) == protocol.GAME_OVER


def test_a_winning_move_ends_the_game(start: Start, app: Flask) -> None:
    state, player = start("tictactoe", moves="1425", settings=FAST)
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "3"})
    over = player.wait_for(protocol.STATE, lambda s: s["moves"] == "14253")
    assert (over["status"], over["winner"], over["engine_thinking"]) == ("won", 0, False)


def test_a_move_sent_from_an_older_position_is_refused(start: Start, app: Flask) -> None:
    """A double click: the second click's move names the position the first left. Once the
    engine has replied (an opening book replies at once), it must not be played there."""
    state, player = start("connect4", settings=FAST)
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4", "ply": 0})
    player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 2)
    options_stored(player)
    second = {"game_id": state["id"], "move": "4", "ply": 0}
    assert refused(app, player, state["id"], protocol.MOVE, second) == protocol.NOT_YOUR_TURN
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "3", "ply": 2})  # as seen
    assert player.wait_for(protocol.STATE, lambda s: len(s["moves"]) >= 3)["moves"][2] == "3"


@pytest.mark.parametrize("ply", [-1, 1.5, "2", True, [2]])
def test_a_ply_that_is_no_count_of_moves_is_refused(start: Start, app: Flask, ply: Any) -> None:
    state, player = start("tictactoe", settings=FAST)
    payload = {"game_id": state["id"], "move": "5", "ply": ply}
    assert refused(app, player, state["id"], protocol.MOVE, payload) == protocol.BAD_REQUEST
    undo = {"game_id": state["id"], "ply": ply}
    assert refused(app, player, state["id"], protocol.UNDO, undo) == protocol.BAD_REQUEST


# -- undo ------------------------------------------------------------------------------


def test_a_double_undo_takes_back_one_turn(start: Start, app: Flask) -> None:
    state, player = start("tictactoe", moves="5137", settings=FAST)
    player.emit(protocol.UNDO, {"game_id": state["id"], "ply": 4})
    player.wait_for(protocol.STATE, lambda s: s["moves"] == "51")
    again = {"game_id": state["id"], "ply": 4}  # sent with the first, from the same position
    assert refused(app, player, state["id"], protocol.UNDO, again) == protocol.NOTHING_TO_UNDO
    assert stored(app, state["id"])["moves"] == "51"


def test_undo_takes_back_the_move_and_the_engines_reply(start: Start, watch: Watch) -> None:
    state, player = start("tictactoe", settings=FAST)
    spectator = watch(state["id"])
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})
    player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 2)
    player.emit(protocol.UNDO, {"game_id": state["id"]})
    back = spectator.wait_for(protocol.STATE, lambda s: s["moves"] == "" and s["move_count"] == 0)
    assert back["status"] == "playing" and back["last_engine_move"] is None


def test_an_undo_keeps_the_analysis_of_the_engines_move_left_on_the_board(
    start: Start, watch: Watch, app: Flask
) -> None:
    """The engine's earlier move stays on the board after an undo: its analysis (the search
    it made then, not a new one) stays with it, for the panel, a reload and another tab."""
    state, player = start("tictactoe", settings=FAST)
    game_id = state["id"]
    player.emit(protocol.MOVE, {"game_id": game_id, "move": "5"})
    first = player.wait_for(protocol.ENGINE_MOVE, lambda e: e["moves"] == "5")
    after = player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 2)["moves"]
    mine = next(cell for cell in "123456789" if cell not in after)
    player.emit(protocol.MOVE, {"game_id": game_id, "move": mine})
    second = player.wait_for(protocol.ENGINE_MOVE, lambda e: e["moves"] == after + mine)
    now = player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 4)
    assert now["last_engine_move"]["move"] == second["move"]
    spectator = watch(game_id)
    player.emit(protocol.UNDO, {"game_id": game_id})
    back = spectator.wait_for(protocol.STATE, lambda s: s["moves"] == after)
    kept = back["last_engine_move"]
    assert kept is not None and (kept["moves"], kept["move"]) == ("5", first["move"])
    searched = ("nodes", "pv", "depth")  # the search made then, not a new one
    assert [kept[key] for key in searched] == [first[key] for key in searched]
    assert stored(app, game_id)["last_engine_move"]["move"] == first["move"]  # a reload's
    http = app.test_client()
    assert http.get(f"/api/games/{game_id}").get_json()["last_engine_move"]["move"] == first["move"]
    # What the store keeps behind the last move is its own: no viewer is sent it.
    for payload in player.named(protocol.STATE) + spectator.named(protocol.STATE):
        assert "previous" not in (payload["last_engine_move"] or {})
    player.emit(protocol.UNDO, {"game_id": game_id})  # one move's analysis is kept, no more
    start_again = spectator.wait_for(protocol.STATE, lambda s: s["moves"] == "")
    assert start_again["last_engine_move"] is None


@pytest.mark.slow
def test_an_undo_while_the_engine_thinks_keeps_its_last_moves_analysis(held: MakeHeld) -> None:
    """An undo that takes back only the player's move (the engine had not replied yet)
    leaves the engine's last move on the board: its analysis stays with it."""
    app, holds = held()
    state, player = seated(app, "connect4")
    game_id = state["id"]
    player.emit(protocol.MOVE, {"game_id": game_id, "move": "4"})
    holds.started(label("connect4", "4"))
    holds.release(label("connect4", "4"))
    first = player.wait_for(protocol.ENGINE_MOVE, lambda e: e["moves"] == "4")
    after = player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 2)["moves"]
    player.emit(protocol.MOVE, {"game_id": game_id, "move": "3"})
    holds.started(label("connect4", after + "3"))  # held: the engine is thinking
    player.emit(protocol.UNDO, {"game_id": game_id})
    back = player.wait_for(protocol.STATE, lambda s: s["moves"] == after)["last_engine_move"]
    assert back is not None and (back["move"], back["nodes"]) == (first["move"], first["nodes"])
    assert stored(app, game_id)["last_engine_move"]["move"] == first["move"]
    holds.release()


@pytest.mark.slow
def test_undo_while_the_engine_thinks_cancels_its_search(held: MakeHeld) -> None:
    app, holds = held()
    state, player = seated(app, "connect4")
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
    # An Easy reply: the room hears the move with it (the player's page drew it already).
    holds.started("connect4-4")
    player.emit(protocol.UNDO, {"game_id": state["id"]})
    back = player.wait_for(protocol.STATE, lambda s: s["moves"] == "")
    assert not back["engine_thinking"]
    assert not service_of(app).searches.thinking(state["id"])
    wait_until(lambda: holds.cancelled("connect4-4"))  # stopped inside its worker
    # The player moves again at once: the old search is gone, a new one answers.
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "3"})
    holds.release()
    assert player.wait_for(protocol.ENGINE_MOVE)["moves"] == "3"
    assert not [e for e in player.named(protocol.ENGINE_MOVE) if e["moves"] == "4"]


def test_undo_after_the_engine_won_reopens_the_game(start: Start) -> None:
    state, player = start("tictactoe", moves="1524", settings={"level": "perfect"})
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "9"})  # lets O win at 6
    lost = player.wait_for(protocol.STATE, lambda s: s["status"] == "won")
    assert lost["winner"] == 1 and lost["moves"] == "152496"
    player.emit(protocol.UNDO, {"game_id": state["id"]})
    back = player.wait_for(protocol.STATE, lambda s: s["moves"] == "1524")
    assert (back["status"], back["winner"]) == ("playing", None)


@pytest.mark.parametrize(
    ("engine_plays", "moves", "code"),
    [("second", "", protocol.NOTHING_TO_UNDO), ("first", "5", protocol.NOTHING_TO_UNDO)],
)
def test_nothing_to_undo(
    start: Start, app: Flask, engine_plays: str, moves: str, code: str
) -> None:
    settings = {**FAST, "engine_plays": engine_plays}
    state, player = start("tictactoe", moves=moves, settings=settings)
    assert refused(app, player, state["id"], protocol.UNDO, {"game_id": state["id"]}) == code


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ([], protocol.BAD_REQUEST),
        ({}, protocol.BAD_REQUEST),
        ({"game_id": None}, protocol.BAD_REQUEST),
        ({"game_id": "no-such-game"}, protocol.UNKNOWN_GAME),
    ],
)
def test_bad_undos_are_refused(start: Start, app: Flask, payload: Any, code: str) -> None:
    state, player = start("tictactoe", moves="51", settings=FAST)
    assert refused(app, player, state["id"], protocol.UNDO, payload) == code


def test_a_spectator_cannot_undo(start: Start, watch: Watch, app: Flask) -> None:
    state, _ = start("tictactoe", moves="51", settings=FAST)
    spectator = watch(state["id"])
    payload = {"game_id": state["id"]}
    assert refused(app, spectator, state["id"], protocol.UNDO, payload) == protocol.SPECTATOR


# -- settings ----------------------------------------------------------------------------


def test_settings_change_is_stored_and_broadcast(start: Start, watch: Watch, app: Flask) -> None:
    state, player = start()
    spectator = watch(state["id"])
    changes = {"algorithm": "minimax", "level": "custom", "depth": 3, "show_analysis": False}
    player.emit(protocol.SETTINGS, {"game_id": state["id"], "settings": changes})
    seen = spectator.wait_for(protocol.STATE, lambda s: s["settings"]["algorithm"] == "minimax")
    assert {key: seen["settings"][key] for key in changes} == changes
    assert stored(app, state["id"])["settings"] == seen["settings"]


@pytest.mark.slow
def test_a_new_level_applies_to_the_search_under_way(held: MakeHeld) -> None:
    app, holds = held()
    state, player = seated(app, "connect4")
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
    holds.started("connect4-4")
    player.emit(protocol.SETTINGS, {"game_id": state["id"], "settings": FAST})
    holds.started("connect4-4", times=2)  # searched again, at the new level
    assert holds.cancelled("connect4-4")
    holds.release()
    engine = player.wait_for(protocol.ENGINE_MOVE)
    assert engine["depth"] == protocol.LEVELS["easy"]["depth"]
    assert len(player.named(protocol.ENGINE_MOVE)) == 1


def test_settings_when_the_engine_waits_start_it(start: Start, app: Flask) -> None:
    state, player = start("tictactoe", settings=FAST)
    service = service_of(app)
    with service.locks.hold(state["id"]):  # as after a restart: the engine to move, no search
        record = service.store.get(state["id"])
        assert record is not None
        record.moves = "5"
        service.store.save(record)
    player.emit(protocol.SETTINGS, {"game_id": state["id"], "settings": {"level": "medium"}})
    assert player.wait_for(protocol.ENGINE_MOVE)["moves"] == "5"


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ("easy", protocol.BAD_REQUEST),
        ({"settings": {"level": "easy"}}, protocol.BAD_REQUEST),
        ({"game_id": "no-such-game", "settings": {"level": "easy"}}, protocol.UNKNOWN_GAME),
        ({"game_id": OURS}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "settings": "easy"}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"level": "legendary"}}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"algorithm": "mcts"}}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"level": "custom", "depth": 0}}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"level": "custom", "time": 60}}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"level": "custom"}}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"show_analysis": 1}}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"engine_plays": "first"}}, protocol.BAD_SETTINGS),
        ({"game_id": OURS, "settings": {"speed": 3}}, protocol.BAD_SETTINGS),
    ],
)
def test_bad_settings_are_refused(start: Start, app: Flask, payload: Any, code: str) -> None:
    state, player = start("tictactoe", settings=FAST)
    payload = this_game(payload, state["id"])
    assert refused(app, player, state["id"], protocol.SETTINGS, payload) == code


def test_a_spectator_cannot_change_settings(start: Start, watch: Watch, app: Flask) -> None:
    state, _ = start()
    spectator = watch(state["id"])
    payload = {"game_id": state["id"], "settings": {"level": "easy"}}
    assert refused(app, spectator, state["id"], protocol.SETTINGS, payload) == protocol.SPECTATOR


# -- new game, rematch -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "engine_plays"), [(protocol.NEW_GAME, "second"), (protocol.REMATCH, "first")]
)
def test_new_game_and_rematch_belong_to_the_same_browser(
    start: Start, client: FlaskClient, app: Flask, event: str, engine_plays: str
) -> None:
    state, player = start("tictactoe", settings=FAST)
    answer = player.emit(event, {"game_id": state["id"]})
    created = player.wait_for(protocol.GAME_CREATED)
    assert created == answer  # no token in it: the identity cookie holds the seat
    assert set(created) == {"game_id", "id", "url"}
    assert created["game_id"] == state["id"] and created["url"] == f"/g/{created['id']}"
    new = client.get(f"/api/games/{created['id']}").get_json()
    assert new["seat"] == "player" and new["settings"]["engine_plays"] == engine_plays
    other = app.test_client().get(f"/api/games/{created['id']}").get_json()
    assert other["seat"] == "spectator"


@pytest.mark.parametrize(
    ("event", "engine_plays"), [(protocol.NEW_GAME, "second"), (protocol.REMATCH, "first")]
)
def test_a_page_switches_to_its_next_game_in_place_on_its_connection(
    start: Start, client: FlaskClient, connect: Callable[[FlaskClient], Listener],
    event: str, engine_plays: str,
) -> None:  # fmt: skip
    """``switch``: the answer holds the new game's state as a join's would, the connection
    is in the new game's room and out of the old one's (no page load, no new connection)."""
    state, player = start("tictactoe", settings=FAST)
    other_tab = connect(client)  # the same browser, still on the old game
    other_tab.emit(protocol.JOIN, {"game_id": state["id"]})
    answer = player.emit(event, {"game_id": state["id"], "switch": True})
    new = answer["state"]
    assert answer["id"] == new["id"] != state["id"] and answer["url"] == f"/g/{new['id']}"
    assert new["seat"] == "player" and new["settings"]["engine_plays"] == engine_plays
    assert not player.named(protocol.GAME_CREATED)  # the answer says it
    if engine_plays == "second":
        assert player.emit(protocol.MOVE, {"game_id": new["id"], "move": "5"}) == {"ok": True}
    reply = player.wait_for(protocol.ENGINE_MOVE, lambda p: p["game_id"] == new["id"])
    assert reply["move"]
    # The old game moves on in the other tab: its room no longer holds the switched page.
    player.clear()
    assert other_tab.emit(protocol.MOVE, {"game_id": state["id"], "move": "1"}) == {"ok": True}
    other_tab.wait_for(protocol.ENGINE_MOVE, lambda p: p["game_id"] == state["id"])
    assert all(p.get("id", p.get("game_id")) != state["id"] for _, p in player.poll())


def test_a_switch_leaves_every_game_room_the_connection_was_in(
    start: Start, app: Flask, connect: Callable[[FlaskClient], Listener]
) -> None:
    """A page whose answer came too late re-joined its game: the next switch leaves both."""
    state, player = start("tictactoe", settings=FAST)
    other = app.test_client()
    elsewhere = create(other, "tictactoe", settings=FAST)  # another browser's game
    its_player = connect(other)
    its_player.emit(protocol.JOIN, {"game_id": elsewhere["id"]})
    player.emit(protocol.JOIN, {"game_id": elsewhere["id"]})  # watched from this page too
    answer = player.emit(protocol.NEW_GAME, {"game_id": state["id"], "switch": True})
    player.clear()
    assert its_player.emit(protocol.MOVE, {"game_id": elsewhere["id"], "move": "5"}) == {"ok": True}
    its_player.wait_for(protocol.ENGINE_MOVE, lambda p: p["game_id"] == elsewhere["id"])
    assert all(p.get("id", p.get("game_id")) == answer["id"] for _, p in player.poll())


def test_a_switch_that_is_not_true_or_false_is_refused(start: Start) -> None:
    state, player = start("tictactoe", settings=FAST)
    answer = player.emit(protocol.NEW_GAME, {"game_id": state["id"], "switch": "yes"})
    assert answer["code"] == protocol.BAD_REQUEST


@pytest.mark.parametrize("event", [protocol.NEW_GAME, protocol.REMATCH])
def test_the_next_game_of_an_older_deeper_setting_takes_the_games_bound(
    start: Start, client: FlaskClient, app: Flask, event: str
) -> None:
    """A tic-tac-toe game stored with a custom depth past the game's own bound (made before
    the bound) still leads to its next game, at the bound: it was refused as too deep."""
    state, player = start("tictactoe", settings={"level": "custom", "depth": 5})
    store = service_of(app).store
    record = store.get(state["id"])
    assert record is not None
    record.settings = {**record.settings, "depth": 30}  # as an older server stored it
    store.save(record)
    player.emit(event, {"game_id": state["id"]})
    created = player.wait_for(protocol.GAME_CREATED)
    new = client.get(f"/api/games/{created['id']}").get_json()
    assert new["settings"]["level"] == "custom"
    assert new["settings"]["depth"] == protocol.GAME_MAX_DEPTH["tictactoe"] == 9
    assert not player.named(protocol.ERROR)


@pytest.mark.parametrize("event", [protocol.NEW_GAME, protocol.REMATCH])
def test_a_spectator_cannot_start_the_next_game(
    start: Start, watch: Watch, app: Flask, event: str
) -> None:
    state, _ = start()
    spectator = watch(state["id"])
    assert (
        refused(app, spectator, state["id"], event, {"game_id": state["id"]}) == protocol.SPECTATOR
    )
    assert refused(app, spectator, state["id"], event, {"game": 1}) == protocol.BAD_REQUEST


# -- analyse ---------------------------------------------------------------------------------


def test_analysis_goes_to_the_asker_only(start: Start, watch: Watch) -> None:
    state, player = start(
        "tictactoe", moves="5", settings={"level": "perfect", "engine_plays": "first"}
    )
    spectator = watch(state["id"])
    results = {}
    for algorithm in ("alphabeta", "minimax"):
        spectator.emit(protocol.ANALYSE, {"game_id": state["id"], "algorithm": algorithm})
        results[algorithm] = spectator.wait_for(
            protocol.ANALYSIS, lambda r, a=algorithm: r["algorithm"] == a
        )
    for result in results.values():
        assert result["game_id"] == state["id"] and result["moves"] == "5"
        assert result["exact"] and result["score"] == 0
    assert results["minimax"]["nodes"] > results["alphabeta"]["nodes"]  # pruning pays
    assert not player.named(protocol.ANALYSIS)
    assert stored_moves(player, state["id"]) == "5"


def stored_moves(listener: Listener, game_id: str) -> str:
    state = listener.emit(protocol.JOIN, {"game_id": game_id})
    moves: str = state["moves"]
    return moves


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (3, protocol.BAD_REQUEST),
        ({"algorithm": "minimax"}, protocol.BAD_REQUEST),
        ({"game_id": "no-such-game", "algorithm": "minimax"}, protocol.UNKNOWN_GAME),
        ({"game_id": OURS}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "algorithm": "mcts"}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "algorithm": "minimax", "moves": 5}, protocol.BAD_REQUEST),
        ({"game_id": OURS, "algorithm": "minimax", "moves": "9"}, protocol.BAD_REQUEST),  # not ours
        ({"game_id": OURS, "algorithm": "minimax", "moves": "512"}, protocol.BAD_REQUEST),
    ],
)
def test_bad_analyses_are_refused(start: Start, app: Flask, payload: Any, code: str) -> None:
    state, player = start("tictactoe", moves="51", settings=FAST)
    payload = this_game(payload, state["id"])
    assert refused(app, player, state["id"], protocol.ANALYSE, payload) == code


def test_no_analysis_of_a_finished_position(start: Start, app: Flask) -> None:
    state, player = start("tictactoe", moves="14253")
    payload = {"game_id": state["id"], "algorithm": "minimax"}
    assert refused(app, player, state["id"], protocol.ANALYSE, payload) == protocol.GAME_OVER
    final = {**payload, "moves": "14253"}
    assert refused(app, player, state["id"], protocol.ANALYSE, final) == protocol.GAME_OVER


@pytest.mark.parametrize("moves", ["", "14", "1425"])
def test_an_earlier_position_of_a_finished_game_is_analysed(
    start: Start, watch: Watch, moves: str
) -> None:
    """A review compares the algorithms on any position of the game, the game over or not:
    the asker gets the search of that position (and a spectator may ask too)."""
    state, player = start("tictactoe", moves="14253")
    assert state["status"] == "won"
    for asker in (player, watch(state["id"])):
        asker.emit(
            protocol.ANALYSE, {"game_id": state["id"], "algorithm": "minimax", "moves": moves}
        )
        answer = asker.wait_for(protocol.ANALYSIS)
        assert answer["moves"] == moves and answer["algorithm"] == "minimax"
        assert answer["best_move"] in set("123456789") - set(moves)  # a free cell
        assert not asker.named(protocol.ERROR)


@pytest.mark.slow
def test_one_analysis_at_a_time_and_leaving_cancels_it(held: MakeHeld) -> None:
    app, holds = held()
    state, _ = seated(app, "connect4")
    spectator = Listener(socketio.test_client(app))
    spectator.emit(protocol.JOIN, {"game_id": state["id"]})
    payload = {"game_id": state["id"], "algorithm": "alphabeta"}
    spectator.emit(protocol.ANALYSE, payload)
    holds.started("connect4-start")
    assert refused(app, spectator, state["id"], protocol.ANALYSE, payload) == protocol.BUSY
    spectator.client.disconnect()
    wait_until(lambda: holds.cancelled("connect4-start"))  # stopped inside its worker


# -- a full server ------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_full_queue_refuses_moves_and_a_waiting_search_is_told_its_place(
    held: MakeHeld,
) -> None:
    app, holds = held(SEARCH_QUEUE_LIMIT=1)
    running, _ = seated(app, "connect4", settings={"engine_plays": "first"})
    holds.started("connect4-start")  # the one worker is busy
    waiting, waiter = seated(app, "connect4", moves="4", settings={"engine_plays": "second"})
    assert running["engine_thinking"] and waiting["engine_thinking"]
    assert waiter.wait_for(protocol.QUEUED) == {
        "game_id": waiting["id"], "position": 1, "kind": "engine",
    }  # fmt: skip
    state, player = seated(app, "tictactoe", settings=FAST)
    payload = {"game_id": state["id"], "move": "5"}
    assert refused(app, player, state["id"], protocol.MOVE, payload) == protocol.BUSY
    refused_http = app.test_client().post(
        "/api/games", json={"game": "tictactoe", "settings": {"engine_plays": "first"}}
    )
    assert refused_http.status_code == 503
    holds.release()  # the queue moves on: both engines answer, the refused player can play
    assert waiter.wait_for(protocol.ENGINE_MOVE)["moves"] == "4"
    wait_until(lambda: not service_of(app).searches.thinking(running["id"]))
    assert player.emit(protocol.MOVE, payload) == {"ok": True}


def test_a_clients_events_run_on_its_connection_not_on_a_new_thread_each(app: Flask) -> None:
    """Socket.IO would start a thread per event by default: one per move, under load
    hundreds a second. (Made before any test client, which turns this off for itself.)"""
    assert socketio.server.async_handlers is False
    assert socketio.server.eio.async_handlers is False


def test_a_payload_sent_is_never_walked_for_binary_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """python-socketio looks for bytes in every payload, recursively (a tenth of the web
    process's CPU under load): ours are JSON, sent as plain events."""

    def walked(data: Any) -> bool:
        raise AssertionError("the payload was walked")

    monkeypatch.setattr(socketio_packet.Packet, "data_is_binary", walked)
    payload = {
        "game_id": "g",
        "move_scores": {str(m): {"score": m, "exact": True} for m in range(7)},
    }
    sent = SafePacket(socketio_packet.EVENT, data=[protocol.STATE, payload])
    assert sent.packet_type == socketio_packet.EVENT
    assert sent.encode().startswith(str(socketio_packet.EVENT))


def test_flasks_session_is_never_opened(app: Flask) -> None:
    """Identities have their own cookie: Flask's session (a serializer and a cookie read
    for every request and every Socket.IO event) is a null one."""
    with app.test_request_context("/", headers={"Cookie": "session=anything"}):
        assert isinstance(flask.session, NullSession)


def test_socketio_events_are_not_routed_but_pages_are(
    start: Start, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flask routed every Socket.IO event's ``/socket.io/`` path (a quarter of an event's
    CPU, for a route none of them uses): an accepted connection's events skip it, and an
    HTTP request, even one for a path under ``/socket.io``, is routed as before."""
    state, player = start("connect4", settings=FAST)
    routed: list[str] = []
    bind = werkzeug_routing.Map.bind_to_environ

    def counting(self: werkzeug_routing.Map, environ: Any, *args: Any, **kwargs: Any) -> Any:
        routed.append(environ.get("PATH_INFO", ""))
        return bind(self, environ, *args, **kwargs)

    monkeypatch.setattr(werkzeug_routing.Map, "bind_to_environ", counting)
    player.clear()
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
    player.wait_for(protocol.ENGINE_MOVE)
    options_stored(player)
    assert refused(app, player, state["id"], protocol.MOVE, {"game_id": state["id"]})
    assert routed == []  # a move, the engine's reply, a refusal: no routing
    http = app.test_client()
    assert http.get("/socket.io").status_code == 404  # not Engine.IO's path: Flask's 404
    assert http.get(f"/g/{state['id']}").status_code == 200
    assert routed == ["/socket.io", f"/g/{state['id']}"]
