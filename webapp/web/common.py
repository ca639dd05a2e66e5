"""What the JSON API, the pages, the tree and the Socket.IO handlers share: the app's
game service, a player's next game, a request's JSON body, the JSON answer to a refusal,
and what is refused in a game between two people."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request

from webapp import protocol
from webapp.services import GameError, GameService
from webapp.services.analysis import OverShare
from webapp.store import GameRecord
from webapp.web.admission import RateLimited, admit
from webapp.web.identity import has_legacy_seat, token_for

#: Seconds a client is told to wait before asking again (202, 503, an incomplete review).
RETRY_SECONDS = 2


def service() -> GameService:
    """The game service of the app handling this request."""
    found: GameService = current_app.extensions["lookahead"]
    return found


def address_turn() -> str:
    """Whose turn this request's searches take in the pool's queue: its address's. Made-up
    identities from one address then share one turn, so a flood from one address delays
    another address's search by one search or two at most."""
    return f"addr:{request.remote_addr}"


def next_game(game_id: object, swap: bool, owner: str | None) -> GameRecord:
    """The player's next game (``swap``: colours swapped), owned by the identity ``owner``.

    A game held through a legacy per-game cookie hands its next game to the
    identity, so that chain of games ends with it.
    """
    admit("create")
    refuse_engine_action(game_id, "A new game or rematch from here")
    token = token_for(game_id)
    if has_legacy_seat(game_id) and owner is None:
        raise GameError(protocol.BAD_REQUEST, "Reload the page to start the next game.")
    return service().another(game_id, token, swap, owner=owner, turn=address_turn())


def game_error(error: GameError) -> tuple[Response, int]:
    """A refusal as JSON (``{"error": {code, message}}``), with ``Retry-After`` when asking
    again later may succeed: the API's and the tree's error handler."""
    response = jsonify({"error": error.payload()})
    if isinstance(error, (RateLimited, OverShare)):
        response.headers["Retry-After"] = str(error.retry_after)
    elif error.code == protocol.BUSY:
        response.headers["Retry-After"] = str(RETRY_SECONDS)
    return response, error.status


def json_body() -> dict[str, Any]:
    """The request's JSON object; malformed or over-deep JSON is a 400, never a 500."""
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # the json module gives up on deep nesting with this, not ValueError
        body = None
    if not isinstance(body, dict):
        raise GameError(protocol.BAD_REQUEST, "The request body must be a JSON object.")
    return body


def friend_game(game_id: object) -> GameRecord | None:
    """The game if it is one between two people (None: an engine game)."""
    record = service().get(game_id)
    return record if record.friend is not None else None


def refuse_engine_action(game_id: object, action: str) -> None:
    """Undo, settings and the engine's next games are not for a game between two people."""
    if friend_game(game_id) is not None:
        raise GameError(
            protocol.BAD_REQUEST, f"{action} is for games against the engine: use an offer."
        )
