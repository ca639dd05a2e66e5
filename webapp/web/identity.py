"""One identity per browser: a random token in one HttpOnly cookie owns every game it starts.

A seat used to be one cookie per game (``lookahead_seat_<id>``); after about
120 games a browser's Cookie header passed the 8 KB limit of common servers
and every request failed. Now a browser carries one small cookie whatever it
has played, and the store keeps the token's hash as each game's seat.

The cookie holds the token signed with the app's secret (itsdangerous, as
Flask's session is): ``<token>.<signature>``. Only identities this server
issued count; a forged or altered cookie is no identity (the request gets a
new one, if it may mint one). The secret is the ``SECRET_KEY`` setting or the
``LOOKAHEAD_SECRET_KEY`` environment variable when set, else a random one
generated once into ``instance/secret_key`` (mode 0600); every web process of
one deployment must share it. Cookies made before signing (a bare
token) are accepted while their token owns a game in the store, and re-issued
signed on that response: nobody loses their games, and an invented bare token
(it owns nothing) gives nothing.

New identities are minted by ``admission.ensure_identity``, counted per address
(``RATE_LIMIT_IDENTITIES_PER_ADDRESS``):
past it, a page is served without one (its visitor watches), and a creation
is refused (429). No identity is minted, nor any cookie set, on a refused
request or a cross-site one (``origin.py``; a link followed in the tab
excepted, as it carries the cookie): a forged form on another site can never
overwrite the cookie of the browser it runs in.

Old per-game cookies are still read (never set): the token for a game is its
own legacy cookie if the browser has one, else the identity.

The token never reaches page scripts: it travels only in the cookie, which
the browser also sends with the Socket.IO handshake.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Mapping
from pathlib import Path

from flask import Flask, current_app, g, request
from itsdangerous import BadSignature, Signer
from werkzeug.wrappers import Response as BaseResponse

from webapp.services.seats import cookie_name, token_hash
from webapp.web.origin import may_set_identity

#: The identity cookie's name.
COOKIE = "lookahead_id"
#: How long a browser keeps it (seconds): a year.
MAX_AGE = 365 * 24 * 3600
#: What a token may look like (url-safe base64); anything else is no identity.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")
#: Keeps the identity's signatures apart from anything else signed with the same secret.
SALT = "lookahead-identity"
#: The file (in the instance folder) that keeps the generated secret between restarts.
SECRET_FILE = "secret_key"
#: The environment variable that may give the secret (kept off the command line).
SECRET_ENV = "LOOKAHEAD_SECRET_KEY"
#: Where the request's checked identity is kept (``g``); "": it has none.
_CHECKED = "identity_checked"
#: Where the cookie's check is kept for the whole request: every Socket.IO event of a
#: connection shares its handshake's environ (and cookies), so it is checked once.
_CARRIED = "lookahead.identity"
#: Where the request's cookies are kept once parsed, for the same reason.
_COOKIES = "lookahead.cookies"


def identity() -> str | None:
    """The identity token this request carries (checked once) or was just given, if any."""
    state = g._get_current_object()  # asked a few times an event: one look-up, not six
    given: str | None = state.get("new_identity")
    if given:
        return given
    checked: str | None = state.get(_CHECKED)
    if checked is None:
        environ = request.environ
        checked = environ.get(_CARRIED)
        if checked is None:
            checked = environ[_CARRIED] = _carried() or ""
        setattr(state, _CHECKED, checked)
    return checked or None


def token_for(game_id: object) -> str | None:
    """The token that may hold ``game_id``'s seat: its legacy cookie, else the identity."""
    if isinstance(game_id, str) and game_id:
        legacy = _cookies().get(cookie_name(game_id))
        if legacy:
            return legacy
    return identity()


def _cookies() -> Mapping[str, str]:
    """The request's cookies: a Socket.IO event's are its connection's, parsed once."""
    environ = request.environ
    cookies: Mapping[str, str] | None = environ.get(_COOKIES)
    if cookies is None:
        cookies = environ[_COOKIES] = request.cookies
    return cookies


def has_legacy_seat(game_id: object) -> bool:
    """True when the browser holds ``game_id`` through a per-game cookie made before identities."""
    return isinstance(game_id, str) and bool(game_id) and cookie_name(game_id) in _cookies()


def sign(app: Flask, token: str) -> str:
    """The cookie's value for ``token``."""
    return _signer(app).sign(token).decode()


def _carried() -> str | None:
    """The token of the request's cookie when this server signed it, or when it is a bare
    token from before signing that owns a game (then it is re-issued signed)."""
    value = _cookies().get(COOKIE)
    if not value:
        return None
    try:
        token = _signer(current_app).unsign(value).decode()
    except BadSignature:
        if not TOKEN_SHAPE.fullmatch(value) or not _owns_a_game(value):
            return None
        g.reissue_identity = value
        return value
    return token if TOKEN_SHAPE.fullmatch(token) else None


def _owns_a_game(token: str) -> bool:
    """True when ``token`` holds at least one stored game (an unsigned cookie of old)."""
    store = current_app.extensions["lookahead"].store
    try:
        return bool(store.games_of(token_hash(token), 1))
    except Exception:  # a store that cannot answer: the cookie counts as none for now
        return False


def _signer(app: Flask) -> Signer:
    signer: Signer = app.extensions["lookahead_signer"]
    return signer


def _set_cookie(response: BaseResponse) -> BaseResponse:
    token: str | None = g.get("new_identity") or g.get("reissue_identity")
    if token and response.status_code < 400 and may_set_identity():  # a refusal: no trace
        response.set_cookie(
            COOKIE,
            sign(current_app, token),
            max_age=MAX_AGE,
            path="/",
            httponly=True,
            samesite="Lax",
            secure=bool(current_app.config["SEAT_COOKIE_SECURE"]) or request.is_secure,
        )
    return response


def secret_key(app: Flask) -> str:
    """``SECRET_KEY`` (the setting, else the ``LOOKAHEAD_SECRET_KEY`` environment variable),
    else the secret kept in ``SECRET_KEY_FILE`` (generated once, mode 0600)."""
    configured: str | None = app.config.get("SECRET_KEY") or os.environ.get(SECRET_ENV)
    if configured:
        return configured
    path = Path(app.config.get("SECRET_KEY_FILE") or Path(app.instance_path) / SECRET_FILE)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:  # O_EXCL: of processes starting at once, one writes and all read its secret
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_urlsafe(32) + "\n")
    for _ in range(100):  # another process may be between creating the file and writing it
        secret = path.read_text().strip()
        if secret:
            return secret
        time.sleep(0.05)
    raise OSError(f"{path} holds no secret: delete it to have a new one generated")


def init_app(app: Flask) -> None:
    """Sign identities with the app's secret; set the cookie on any response whose request
    was given one."""
    secret = secret_key(app)
    app.config["SECRET_KEY"] = secret
    app.extensions["lookahead_signer"] = Signer(secret, salt=SALT)
    app.after_request(_set_cookie)


def requester() -> str:
    """Who asks (an HTTP request or a Socket.IO event), for the search quotas: the
    identity's hash, as the games it owns are keyed, or the address without one."""
    token = identity()
    return token_hash(token) if token else f"addr:{request.remote_addr}"
