"""What the JSON API, the pages, the tree and the Socket.IO handlers share: the app's
game service, a player's next game, and the JSON answer to a refusal."""

from __future__ import annotations

from flask import Response, current_app, jsonify

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


def next_game(game_id: object, swap: bool, owner: str | None) -> GameRecord:
    """The player's next game (``swap``: colours swapped), owned by the identity ``owner``.

    A game held through a legacy per-game cookie hands its next game to the
    identity, so that chain of games ends with it.
    """
    admit("create")
    from webapp.web import friend_games  # it imports this module

    friend_games.refuse_engine_action(game_id, "A new game or rematch from here")
    token = token_for(game_id)
    if has_legacy_seat(game_id) and owner is None:
        raise GameError(protocol.BAD_REQUEST, "Reload the page to start the next game.")
    return service().another(game_id, token, swap, owner=owner)


def game_error(error: GameError) -> tuple[Response, int]:
    """A refusal as JSON (``{"error": {code, message}}``), with ``Retry-After`` when asking
    again later may succeed: the API's and the tree's error handler."""
    response = jsonify({"error": error.payload()})
    if isinstance(error, (RateLimited, OverShare)):
        response.headers["Retry-After"] = str(error.retry_after)
    elif error.code == protocol.BUSY:
        response.headers["Retry-After"] = str(RETRY_SECONDS)
    return response, error.status
