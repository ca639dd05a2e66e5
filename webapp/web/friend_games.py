"""Games between two people on the web: creating one, taking its seat, joining its rooms.

``POST /api/games {"opponent": "friend", ...}`` (``api.create_game`` hands it
here) answers 201 ``{id, url, invite_url}`` and the creator's state;
``POST /api/games/<id>/seat {"invite": TOKEN}`` seats the browser that sends it
first (200 and its state), and refuses anyone else with 409 ``seat_taken`` (or
``already_seated`` for a player of the game). The socket handlers of the
players' actions are in ``friend_sockets.py``; ``sockets.py`` hands a friend
game's ``join``, ``move`` and ``analyse`` here.
"""

from __future__ import annotations

from typing import Any

import redis
from flask import Blueprint, Flask, Response, current_app, jsonify
from flask_socketio import emit, join_room

from webapp import protocol
from webapp.services import GameError
from webapp.services.friends import Friends, invite_url, room
from webapp.services.presence import SharedPresence
from webapp.store import GameRecord
from webapp.web.admission import admit, ensure_identity
from webapp.web.common import friend_game, game_error, json_body, service
from webapp.web.identity import identity

#: Seconds a presence read or write may take before it counts as Redis failing (short:
#: a friend game's updates wait on it holding the game's lock, and a failure only
#: counts as "present").
PRESENCE_TIMEOUT = 0.5

bp = Blueprint("friend_games", __name__, url_prefix="/api")
bp.register_error_handler(GameError, game_error)


def init_app(app: Flask) -> None:
    """The app's ``Friends`` beside its game service (closed with it)."""
    app.register_blueprint(bp)
    config = app.config
    presence = None  # every page connects to this process: its own sockets tell
    if config["REDIS_URL"]:  # pages of one game may connect to several processes
        client = redis.Redis.from_url(  # presence's own: nothing else waits as long
            config["REDIS_URL"],
            socket_timeout=PRESENCE_TIMEOUT,
            socket_connect_timeout=PRESENCE_TIMEOUT,
        )
        presence = SharedPresence(client, beat=config["PRESENCE_BEAT_SECONDS"])  # Redis's clock
    app.extensions["lookahead_friends"] = Friends(
        app.extensions["lookahead"],
        abandon_ms=int(config["FRIEND_ABANDON_SECONDS"] * 1000),
        presence=presence,
    )


def friends() -> Friends:
    found: Friends = current_app.extensions["lookahead_friends"]
    return found


def create(body: dict[str, Any], token: str) -> Response:
    """201 ``{id, url, invite_url}`` and the rest of the creator's state."""
    record, invite = friends().create(body.get("game"), body.get("settings"), owner=token)
    state = friends().state(record, token) | {"invite_url": invite_url(record.id, invite)}
    response = jsonify(state)
    response.status_code = 201
    response.headers["Location"] = state["url"]
    return response


@bp.post("/games/<game_id>/seat")
def take_seat(game_id: str) -> Response:
    """``{"invite": TOKEN}`` -> 200 and the state of the browser now seated."""
    token = ensure_identity()
    admit("event")
    body = json_body()
    record = friends().seat(game_id, body.get("invite"), token)
    return jsonify(friends().state(record, token))


def join(record: GameRecord, sid: str) -> dict[str, Any]:
    """Enter the viewer's room of the game (a player's side, or the spectators'), and get
    its state; a player's socket counts as that player being here."""
    token = identity()
    side = friends().side_of(record, token)
    join_room(room(record.id, side))
    friends().check_flag(record.id)  # a flag that fell while no timer of this process ran
    current = service().get(record.id)  # in the room before reading: no change falls between
    if friends().connected(sid, current, token):
        friends().announce(record.id)  # the other side sees this player back
    state = friends().state(current, token)
    emit(protocol.STATE, state)
    return state


def check_analysis(game_id: object) -> None:
    """Fair play: refuse an analysis of a game between two people while it is on, to its
    players, and to spectators unless the creator allowed it."""
    record = friend_game(game_id)
    if record is not None and not friends().analysis_allowed(record, identity()):
        raise GameError(protocol.FAIR_PLAY, "No engine analysis of this game while it is played.")


def requested_opponent(body: dict[str, Any]) -> str:
    opponent = body.get("opponent", "engine")
    if opponent not in protocol.OPPONENTS:
        raise GameError(
            protocol.BAD_REQUEST, f"opponent must be one of {', '.join(protocol.OPPONENTS)}."
        )
    return str(opponent)
