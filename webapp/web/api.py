"""The JSON API: create games, read their state, start the next one.

Every error answers ``{"error": {"code", "message"}}`` with a 4xx (429 with
``Retry-After`` past a rate limit, 503 when the server is busy) and changes
nothing. Seats belong to the browser's identity cookie (``identity.py``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from webapp import protocol
from webapp.services import GameError, GameService
from webapp.store import GameRecord
from webapp.web.admission import RateLimited, admit
from webapp.web.identity import ensure_identity, has_legacy_seat, identity, token_for

bp = Blueprint("api", __name__, url_prefix="/api")


def service() -> GameService:
    found: GameService = current_app.extensions["lookahead"]
    return found


def json_body() -> dict[str, Any]:
    """The request's JSON object; malformed or over-deep JSON is a 400, never a 500."""
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # the json module gives up on deep nesting with this, not ValueError
        body = None
    if not isinstance(body, dict):
        raise GameError(protocol.BAD_REQUEST, "The request body must be a JSON object.")
    return body


def created(record: GameRecord, token: str) -> Response:
    """201 with the new game's state (the requester holds its seat through its identity)."""
    state = service().state(record.id, token)
    response = jsonify(state)
    response.status_code = 201
    response.headers["Location"] = state["url"]
    return response


def next_game(game_id: object, swap: bool, owner: str | None) -> GameRecord:
    """The player's next game (``swap``: colours swapped), owned by the identity ``owner``.

    A game held through a legacy per-game cookie hands its next game to the
    identity, so that chain of games ends with it.
    """
    admit("create")
    token = token_for(game_id)
    if has_legacy_seat(game_id) and owner is None:
        raise GameError(protocol.BAD_REQUEST, "Reload the page to start the next game.")
    return service().another(game_id, token, swap, owner=owner)


@bp.errorhandler(GameError)
def game_error(error: GameError) -> tuple[Response, int]:
    response = jsonify({"error": error.payload()})
    if isinstance(error, RateLimited):
        response.headers["Retry-After"] = str(error.retry_after)
    return response, error.status


@bp.post("/games")
def create_game() -> Response:
    """{game, settings?, moves?} -> 201 and the game's state; the identity cookie is set."""
    token = ensure_identity()  # first, so a browser's first creation counts against it
    admit("create")
    body = json_body()
    unknown = set(body) - {"game", "settings", "moves"}
    if unknown:
        raise GameError(protocol.BAD_REQUEST, f"Unknown fields: {', '.join(sorted(unknown))}.")
    record = service().create(
        body.get("game"), body.get("settings"), body.get("moves"), owner=token
    )
    return created(record, token)


@bp.get("/my/games")
def my_games() -> Response:
    """The games this browser's identity owns, newest first (at most 20): the home page's list.

    Games held through legacy per-game cookies are not listed. Never cached:
    the list changes with every move.
    """
    response = jsonify(service().games_of(identity()))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/games/<game_id>")
def game_state(game_id: str) -> Response:
    return jsonify(service().state(game_id, token_for(game_id)))


@bp.post("/games/<game_id>/new")
def new_game(game_id: str) -> Response:
    """The player's next game with the same settings."""
    record = next_game(game_id, swap=False, owner=ensure_identity())
    return created(record, token_for(record.id) or "")


@bp.post("/games/<game_id>/rematch")
def rematch(game_id: str) -> Response:
    """The player's next game with the colours swapped."""
    record = next_game(game_id, swap=True, owner=ensure_identity())
    return created(record, token_for(record.id) or "")
