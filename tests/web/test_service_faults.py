"""The service under faults: cancelled, killed, crashing and preempted searches, shutdown, restart.

The workers run ``held_engine``: the real search, but only once the test
releases it (files in a hold folder), so nothing here depends on how fast a
search is. A killed worker is a real SIGKILL of a real worker process.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.web.conftest import MakeHeld
from tests.web.held_engine import CRASHING
from tests.web.helpers import Listener, seated, wait_until
from webapp import protocol
from webapp.store import open_store
from webapp.web.app import close_app, service_of, socketio


def never_idle_on_the_engines_turn(listener: Listener) -> None:
    """No state told the room the engine was to move with nothing on the way."""
    for state in listener.named(protocol.STATE):
        if state["status"] == "playing" and state["to_move"] == state["engine_side"]:
            assert state["engine_thinking"], state


def test_undo_cancels_the_search_inside_its_worker_and_frees_it(held: MakeHeld) -> None:
    app, holds = held(SEARCH_WORKERS=1)
    state, player = seated(app, settings={"level": "easy"})
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})
    holds.started("tictactoe-5")
    assert player.emit(protocol.UNDO, {"game_id": state["id"]}) == {"ok": True}
    wait_until(lambda: holds.cancelled("tictactoe-5"))  # the worker saw the cancel
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "1"})
    holds.started("tictactoe-1")  # the one worker took the next search
    holds.release()
    engine = player.wait_for(protocol.ENGINE_MOVE)
    assert engine["moves"] == "1"
    assert not [e for e in player.named(protocol.ENGINE_MOVE) if e["moves"] == "5"]


def test_a_worker_killed_mid_search_is_replaced_and_the_engine_still_moves(held: MakeHeld) -> None:
    app, holds = held(SEARCH_WORKERS=1)
    state, player = seated(app, settings={"level": "easy"})
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})
    first = holds.started("tictactoe-5")
    os.kill(first, signal.SIGKILL)
    second = holds.started("tictactoe-5", times=2)  # tried again, in a new worker
    assert second != first
    holds.release()
    engine = player.wait_for(protocol.ENGINE_MOVE)
    assert engine["moves"] == "5"
    assert service_of(app).store.get(state["id"]).moves == "5" + engine["move"]  # type: ignore[union-attr]
    never_idle_on_the_engines_turn(player)


def test_a_search_that_keeps_crashing_is_reported_and_tried_until_it_works(
    held: MakeHeld,
) -> None:
    app, holds = held(SEARCH_WORKERS=1, SEARCH_FUNCTION=CRASHING)
    state, player = seated(app, settings={"level": "easy"})
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})
    failed = player.wait_for(protocol.ERROR)
    assert failed["code"] == protocol.ENGINE_FAILED and "try again" in failed["message"]
    runs = len(holds.runs("tictactoe-5"))
    holds.started("tictactoe-5", times=runs + 1)  # still trying after the report
    assert service_of(app).searches.thinking(state["id"])
    (holds.folder / "heal").touch()
    engine = player.wait_for(protocol.ENGINE_MOVE)
    assert engine["moves"] == "5"
    never_idle_on_the_engines_turn(player)


@pytest.mark.slow
def test_shutdown_commits_no_cut_short_search_and_a_restart_resumes_it(
    held: MakeHeld, tmp_path: Path
) -> None:
    app, holds = held(SEARCH_WORKERS=1)
    state, player = seated(app, "connect4", settings={"level": "perfect"})
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
    holds.started("connect4-4")
    close_app(app)  # what SIGTERM does (python -m webapp's handler unwinds into close_app)
    store = open_store(tmp_path / "games.db")
    try:
        kept = store.get(state["id"])
        assert kept is not None and kept.moves == "4" and kept.last_engine_move is None
    finally:
        store.close()

    holds.release()
    again, _ = held(SEARCH_WORKERS=1)  # the same database: the engine resumes its move
    wait_until(lambda: len(service_of(again).store.get(state["id"]).moves) == 2)  # type: ignore[union-attr]
    assert holds.runs("connect4-4")  # searched again, from the start


def test_an_engine_move_overtakes_a_running_analysis(held: MakeHeld) -> None:
    app, holds = held(SEARCH_WORKERS=1)
    state, player = seated(app, settings={"level": "easy"})
    spectator = Listener(socketio.test_client(app))
    spectator.emit(protocol.JOIN, {"game_id": state["id"]})
    assert spectator.emit(protocol.ANALYSE, {"game_id": state["id"], "algorithm": "minimax"}) == {
        "ok": True
    }
    holds.started("tictactoe-start")  # the analysis holds the only worker
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "5"})
    holds.started("tictactoe-5")  # preempted: the engine's search runs, the analysis waits
    assert holds.cancelled("tictactoe-start")
    holds.release()
    assert player.wait_for(protocol.ENGINE_MOVE)["moves"] == "5"
    assert spectator.wait_for(protocol.ANALYSIS)["moves"] == ""  # it ran again afterwards
    assert len(holds.runs("tictactoe-start")) == 2


@pytest.mark.slow
def test_a_rematch_refused_as_busy_leaves_the_old_game_searching(held: MakeHeld) -> None:
    app, holds = held(SEARCH_QUEUE_LIMIT=1)
    state, player = seated(app, "connect4")
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
    holds.started("connect4-4")  # the one worker
    seated(app, "connect4", settings={"engine_plays": "first"})  # the one place in the queue
    answer = player.emit(protocol.REMATCH, {"game_id": state["id"]})  # the engine would start
    assert answer["code"] == protocol.BUSY
    assert service_of(app).searches.thinking(state["id"])
    assert not holds.cancelled("connect4-4")
    holds.release()
    assert player.wait_for(protocol.ENGINE_MOVE)["game_id"] == state["id"]
