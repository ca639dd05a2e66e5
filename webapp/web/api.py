"""The JSON API: create games, read their state, start the next one.

Every error answers ``{"error": {"code", "message"}}`` with a 4xx (or 503
when the server is busy) and changes nothing.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.wrappers import Response as BaseResponse

from webapp import protocol
from webapp.services import GameError, GameService
from webapp.services.seats import cookie_name, holds_seat, new_token
from webapp.store import GameRecord

bp = Blueprint("api", __name__, url_prefix="/api")

#: How long a browser keeps a seat cookie (seconds): a year.
SEAT_MAX_AGE = 365 * 24 * 3600


def service() -> GameService:
    found: GameService = current_app.extensions["lookahead"]
    return found


def seat_token(game_id: object) -> str | None:
    """The seat token this request carries for ``game_id`` (its cookie), if any."""
    if not isinstance(game_id, str):
        return None
    return request.cookies.get(cookie_name(game_id))


def set_seat_cookie(response: BaseResponse, game_id: str, token: str) -> BaseResponse:
    """Give the browser the seat of ``game_id`` (HttpOnly: page scripts never see it)."""
    response.set_cookie(
        cookie_name(game_id),
        token,
        max_age=SEAT_MAX_AGE,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=bool(current_app.config["SEAT_COOKIE_SECURE"]),
    )
    return response


def json_body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise GameError(protocol.BAD_REQUEST, "The request body must be a JSON object.")
    return body


def created(record: GameRecord, token: str) -> Response:
    """201 with the new game's state (the requester holds its seat) and the seat cookie."""
    state = service().state(record.id, token)
    response = jsonify(state)
    response.status_code = 201
    response.headers["Location"] = state["url"]
    set_seat_cookie(response, record.id, token)
    return response


@bp.errorhandler(GameError)
def game_error(error: GameError) -> tuple[Response, int]:
    return jsonify({"error": error.payload()}), error.status


@bp.post("/games")
def create_game() -> Response:
    """{game, settings?, moves?} -> 201 and the game's state; the seat cookie is set."""
    body = json_body()
    unknown = set(body) - {"game", "settings", "moves"}
    if unknown:
        raise GameError(protocol.BAD_REQUEST, f"Unknown fields: {', '.join(sorted(unknown))}.")
    token = new_token()
    record = service().create(
        body.get("game"), body.get("settings"), body.get("moves"), owner=token
    )
    return created(record, token)


@bp.get("/games/<game_id>")
def game_state(game_id: str) -> Response:
    return jsonify(service().state(game_id, seat_token(game_id)))


@bp.post("/games/<game_id>/new")
def new_game(game_id: str) -> Response:
    """The player's next game with the same settings."""
    token = seat_token(game_id)
    record = service().another(game_id, token, swap=False)
    return created(record, token or "")


@bp.post("/games/<game_id>/rematch")
def rematch(game_id: str) -> Response:
    """The player's next game with the colours swapped."""
    token = seat_token(game_id)
    record = service().another(game_id, token, swap=True)
    return created(record, token or "")


@bp.post("/games/<game_id>/claim")
def claim(game_id: str) -> Response:
    """{token}: take the seat a socket's game_created event handed out (sets the cookie)."""
    token = json_body().get("token")
    record = service().get(game_id)
    if not isinstance(token, str) or not holds_seat(token, record.seat_hash):
        raise GameError(protocol.SPECTATOR, "That token is not this game's seat.")
    response = jsonify(service().state(game_id, token))
    set_seat_cookie(response, game_id, token)
    return response
