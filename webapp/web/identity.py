"""One identity per browser: a random token in one HttpOnly cookie owns every game it starts.

A seat used to be one cookie per game (``lookahead_seat_<id>``); after about
120 games a browser's Cookie header passed the 8 KB limit of common servers
and every request failed. Now a browser carries one small cookie whatever it
has played, and the store keeps the token's hash as each game's seat.

Old per-game cookies are still read (never set): the token for a game is its
own legacy cookie if the browser has one, else the identity.

The token never reaches page scripts: it travels only in the cookie, which
the browser also sends with the Socket.IO handshake.
"""

from __future__ import annotations

import re

from flask import Flask, current_app, g, request
from werkzeug.wrappers import Response as BaseResponse

from webapp.services.seats import cookie_name, new_token, token_hash

#: The identity cookie's name.
COOKIE = "lookahead_id"
#: How long a browser keeps it (seconds): a year.
MAX_AGE = 365 * 24 * 3600
#: What a token sent by a browser may look like (url-safe base64); anything else is no identity.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def identity() -> str | None:
    """The identity token this request carries (or was just given), if any."""
    given: str | None = g.get("new_identity")
    if given:
        return given
    token = request.cookies.get(COOKIE)
    return token if token and TOKEN_SHAPE.fullmatch(token) else None


def ensure_identity() -> str:
    """The request's identity; a new one (set as a cookie on the response) if it has none."""
    token = identity()
    if token is None:
        token = g.new_identity = new_token()
    return token


def token_for(game_id: object) -> str | None:
    """The token that may hold ``game_id``'s seat: its legacy cookie, else the identity."""
    if isinstance(game_id, str) and game_id:
        legacy = request.cookies.get(cookie_name(game_id))
        if legacy:
            return legacy
    return identity()


def has_legacy_seat(game_id: object) -> bool:
    """True when the browser holds ``game_id`` through a per-game cookie made before identities."""
    return isinstance(game_id, str) and bool(game_id) and cookie_name(game_id) in request.cookies


def _set_cookie(response: BaseResponse) -> BaseResponse:
    token: str | None = g.get("new_identity")
    if token and response.status_code < 400:  # a refused request leaves no trace
        response.set_cookie(
            COOKIE,
            token,
            max_age=MAX_AGE,
            path="/",
            httponly=True,
            samesite="Lax",
            secure=bool(current_app.config["SEAT_COOKIE_SECURE"]) or request.is_secure,
        )
    return response


def init_app(app: Flask) -> None:
    """Set the identity cookie on any response whose request was given one."""
    app.after_request(_set_cookie)


def requester() -> str:
    """Who asks (an HTTP request or a Socket.IO event), for the search quotas: the
    identity's hash, as the games it owns are keyed, or the address without one."""
    token = identity()
    return token_hash(token) if token else f"addr:{request.remote_addr}"
