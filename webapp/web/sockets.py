"""Socket.IO handlers, one per client event (names from ``webapp.protocol``).

Every handler checks its payload, acts through the game service and answers a
refusal with an ``error`` event to the sender only (also returned as the
acknowledgement); the game is left unchanged. The seat token comes from the
cookies sent with the Socket.IO handshake (``identity.py``). Every event is
counted against the sender's rate limits first (``admission.py``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from flask import request
from flask_socketio import ConnectionRefusedError as HandshakeRefused
from flask_socketio import emit, join_room, leave_room, rooms

import webapp.web.friend_games as friend_games
from webapp import protocol
from webapp.services import GameError
from webapp.services.state import game_url
from webapp.web.admission import admit
from webapp.web.common import (
    address_turn,
    friend_game,
    next_game,
    refuse_engine_action,
    service,
)
from webapp.web.extensions import SOCKETIO_EVENTS, socketio
from webapp.web.identity import identity, requester
from webapp.web.identity import token_for as seat_token  # on_join's name for it
from webapp.web.packets import MALFORMED

log = logging.getLogger(__name__)

Payload = dict[str, Any]
Handler = Callable[[Payload], Any]

#: Events with a limit of their own on top of the per-event one.
LIMITED_APART = {protocol.ANALYSE: "analyse"}  # new_game/rematch count as creations (next_game)


def handles(event: str) -> Callable[[Handler], Handler]:
    """Register a handler for ``event`` that gets a checked dict payload."""

    def decorate(handler: Handler) -> Handler:
        @functools.wraps(handler)
        def checked(*args: Any) -> Any:
            try:
                admit("event", per_address=event != protocol.JOIN)
                if event in LIMITED_APART:
                    admit(LIMITED_APART[event])
                if len(args) != 1 or not isinstance(args[0], dict):
                    raise GameError(protocol.BAD_REQUEST, f"{event} expects one JSON object.")
                if "game_id" not in args[0]:
                    raise GameError(protocol.BAD_REQUEST, f"{event} needs a game_id.")
                return handler(args[0])
            except GameError as error:
                emit(protocol.ERROR, error.payload())
                return error.payload()

        socketio.on_event(event, checked)
        return checked

    return decorate


def sid() -> str:
    client: str = request.sid  # type: ignore[attr-defined]
    return client


@handles(protocol.JOIN)
def on_join(payload: Payload) -> Payload:
    """Enter the game's room; answer with its state (and the sender's seat), the live
    position's scores so far, then the depths the engine's current search has completed
    (the page may come in the middle of it)."""
    game_id = payload["game_id"]
    record = service().get(game_id)  # no room for a game that does not exist
    if record.friend is not None:  # two people: no engine, no scores
        return friend_games.join(record, sid())
    return _enter(game_id)


def _enter(game_id: str, state_event: bool = True) -> Payload:
    """Put the sender in the game's room and answer with its state (with the sender's
    seat), sent as a ``state`` event too unless ``state_event`` is False (a page switching
    game in place takes the answer's); then the live position's scores so far, the
    depths of a search under way and its place in the queue."""
    join_room(game_id)  # in the room before reading: no change can fall in between
    state = service().state(game_id, seat_token(game_id))
    if state_event:
        emit(protocol.STATE, state)
    if state["scores"] is not None:  # the live position's scores so far
        emit(protocol.SCORES, state["scores"])
    # A search under way (through any process): its depths so far.
    for row in service().searches.depths_so_far(game_id, state["moves"]):
        emit(protocol.THINKING, row)
    service().wake(game_id)  # a game left waiting for the engine (e.g. by a restart)
    queued = service().searches.queued(game_id)
    if queued is not None:
        emit(protocol.QUEUED, queued)
    return state


@handles(protocol.MOVE)
def on_move(payload: Payload) -> Payload:
    game_id = payload["game_id"]
    # A game known to be against the engine is read once per move (under its lock), not twice.
    if not service().known_engine_game(game_id) and friend_game(game_id) is not None:
        friends = friend_games.friends()
        friends.move(game_id, payload.get("move"), identity(), payload.get("ply"))
        return {"ok": True}
    token, ply = seat_token(game_id), payload.get("ply")
    service().move(game_id, payload.get("move"), token, ply, turn=address_turn())
    return {"ok": True}


@handles(protocol.UNDO)
def on_undo(payload: Payload) -> Payload:
    game_id = payload["game_id"]
    refuse_engine_action(game_id, "Undo")
    service().undo(game_id, seat_token(game_id), payload.get("ply"))
    return {"ok": True}


@handles(protocol.SETTINGS)
def on_settings(payload: Payload) -> Payload:
    game_id = payload["game_id"]
    if "settings" not in payload:
        raise GameError(protocol.BAD_REQUEST, "settings needs a settings object.")
    refuse_engine_action(game_id, "Changing the engine’s settings")
    service().change_settings(game_id, payload["settings"], seat_token(game_id))
    return {"ok": True}


def _another(payload: Payload, swap: bool) -> Payload:
    """A new game for the sender's identity: ``{game_id, id, url}`` (the page goes to ``url``).

    ``switch: true`` (a page changing game in place): the sender leaves every game's
    room (its analysis cancelled) and enters the new one's, and the answer holds
    the new game's ``state`` as a join's would: one event for what was a page load, a
    connection, a join and a disconnect."""
    game_id = payload["game_id"]
    switch = payload.get("switch", False)
    if not isinstance(switch, bool):
        raise GameError(protocol.BAD_REQUEST, "switch must be true or false.")
    record = next_game(game_id, swap, identity())
    created: Payload = {"game_id": game_id, "id": record.id, "url": game_url(record.id)}
    if switch:
        for room in rooms():  # every game's (a late answer's switch too), not its own
            if room != sid():
                leave_room(room)
        service().forget_client(sid())  # its analysis was of the old game
        created["state"] = _enter(record.id, state_event=False)
        return created
    emit(protocol.GAME_CREATED, created)
    return created


@handles(protocol.NEW_GAME)
def on_new_game(payload: Payload) -> Payload:
    return _another(payload, swap=False)


@handles(protocol.REMATCH)
def on_rematch(payload: Payload) -> Payload:
    return _another(payload, swap=True)


@handles(protocol.ANALYSE)
def on_analyse(payload: Payload) -> Payload:
    """Analyse a position of the game (the live one, or ``moves``: an earlier one) with an
    algorithm; the ``analysis`` event goes to the sender."""
    game_id = payload["game_id"]
    friend_games.check_analysis(game_id)
    service().analyse(
        game_id,
        payload.get("algorithm"),
        sid(),
        seat_token(game_id),
        requester(),
        payload.get("moves"),
    )
    return {"ok": True}


def on_malformed(*_: Any) -> Payload:
    """An unreadable packet (see ``packets.py``): one error to the sender, no traceback."""
    error = GameError(protocol.BAD_REQUEST, "The server could not read that message.")
    try:
        admit("event")
    except GameError as refused:
        error = refused
    emit(protocol.ERROR, error.payload())
    return error.payload()


socketio.on_event(MALFORMED, on_malformed)


@socketio.on("*")
def on_unknown(event: object, *_: Any) -> Payload:
    """An event no handler knows (the catch-all): one clear error to the sender."""
    name = str(event)[:40]
    error = GameError(protocol.BAD_REQUEST, f"There is no event {name!r}.")
    try:
        admit("event")
    except GameError as refused:
        error = refused
    emit(protocol.ERROR, error.payload())
    return error.payload()


@socketio.on("connect")
def on_connect(*_: Any) -> None:
    """Count the connection against its address's limit (RATE_LIMIT_CONNECTS_PER_ADDRESS);
    past it, the handshake is refused with the reason."""
    try:
        admit("connect")
    except GameError as error:
        raise HandshakeRefused(error.payload()) from None
    request.environ[SOCKETIO_EVENTS] = True  # its events need no URL routing


@socketio.on("disconnect")
def on_disconnect(*_: Any) -> None:
    service().forget_client(sid())
    friend_games.friends().disconnected(sid())


@socketio.on_error_default
def on_error(error: Exception) -> None:
    log.exception("Socket.IO handler failed: %s", error)
    emit(protocol.ERROR, {"code": protocol.BAD_REQUEST, "message": "The server could not do that."})
