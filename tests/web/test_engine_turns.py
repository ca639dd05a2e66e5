"""An engine move's search takes its mover's address's turn in the pool's queue
(``SearchJob.turn``, ``Searches.note_turn``): made-up identities from one address share
one turn (the scheduler's own test: ``test_identities_of_one_address_share_one_turn``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import MakeHeld
from tests.web.helpers import Listener, create, seated, wait_until
from webapp import protocol
from webapp.search_pool import SearchJob
from webapp.web.app import service_of


@pytest.fixture
def submitted(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[SearchJob]:
    """Every job the app's pool is given (it still runs them)."""
    pool = app.extensions["lookahead"].searches.pool
    seen: list[SearchJob] = []
    real = pool.submit

    def submit(job: SearchJob) -> int:
        seen.append(job)
        return int(real(job))

    monkeypatch.setattr(pool, "submit", submit)
    return seen


def engine_jobs(seen: list[SearchJob]) -> list[SearchJob]:
    return [job for job in seen if job.tag and job.tag[0] == "engine"]


def test_the_engines_reply_takes_the_movers_address_turn(
    client: FlaskClient,
    connect: Callable[[FlaskClient], Listener],
    submitted: list[SearchJob],
) -> None:
    first = create(client, "tictactoe", settings={"engine_plays": "first", "level": "easy"})
    wait_until(lambda: len(engine_jobs(submitted)) == 1)
    assert engine_jobs(submitted)[0].turn == "addr:127.0.0.1"  # created by this address
    game = create(client, "tictactoe", settings={"level": "easy"})
    player = connect(client)
    player.emit(protocol.JOIN, {"game_id": game["id"]})
    assert player.emit(protocol.MOVE, {"game_id": game["id"], "move": "5"}) == {"ok": True}
    wait_until(lambda: any(job.game_id == game["id"] for job in engine_jobs(submitted)))
    (reply,) = [job for job in engine_jobs(submitted) if job.game_id == game["id"]]
    assert reply.turn == "addr:127.0.0.1" and reply.owner  # its bounds stay the player's
    assert first["id"] != game["id"]


def test_a_games_turn_is_kept_only_while_its_engine_is_to_move(
    app: Flask,
    client: FlaskClient,
    connect: Callable[[FlaskClient], Listener],
    submitted: list[SearchJob],
) -> None:
    """A crowd's finished and waiting games hold nothing: the map of turns grew by every
    game ever replied to, filling only after an hour of a crowd (the soak's memory)."""
    searches = app.extensions["lookahead"].searches
    game = create(client, "tictactoe", settings={"level": "easy"})
    assert game["id"] not in searches._turns  # its player moves first: no reply to come
    player = connect(client)
    player.emit(protocol.JOIN, {"game_id": game["id"]})
    assert player.emit(protocol.MOVE, {"game_id": game["id"], "move": "5"}) == {"ok": True}
    player.wait_for(protocol.ENGINE_MOVE)
    assert game["id"] not in searches._turns  # the reply is made
    assert any(job.game_id == game["id"] for job in engine_jobs(submitted))
    first = create(client, "tictactoe", settings={"engine_plays": "first", "level": "easy"})
    wait_until(lambda: any(job.game_id == first["id"] for job in engine_jobs(submitted)))
    wait_until(lambda: first["id"] not in searches._turns)  # its first move made
    assert [job.turn for job in engine_jobs(submitted)] == ["addr:127.0.0.1"] * 2


@pytest.mark.slow
def test_an_undo_while_the_engine_thinks_forgets_its_turn(held: MakeHeld) -> None:
    """The engine's search is cancelled and the player is to move: no reply is to come."""
    app, holds = held()
    state, player = seated(app, "connect4")
    searches = service_of(app).searches
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
    # An Easy reply: the room hears the move with it (the player's page drew it already).
    holds.started("connect4-4")
    assert searches._turns.get(state["id"]) == "addr:127.0.0.1"  # its reply is to come
    player.emit(protocol.UNDO, {"game_id": state["id"]})
    player.wait_for(protocol.STATE, lambda s: s["moves"] == "")
    assert state["id"] not in searches._turns
