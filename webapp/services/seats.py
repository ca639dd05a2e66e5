"""Seats: the one human seat of a game is a random token's hash.

The token is the browser's identity (``webapp/web/identity.py``: one cookie
for every game it starts); games made before identities are held by a
per-game cookie named by ``cookie_name``, which is still read, never set.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: Bytes of randomness in a game id and in a seat token (URL-safe base64 text).
GAME_ID_BYTES = 12
TOKEN_BYTES = 24
COOKIE_PREFIX = "lookahead_seat_"


def new_game_id() -> str:
    """An unguessable game id (the game's URL is its only key)."""
    return secrets.token_urlsafe(GAME_ID_BYTES)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def holds_seat(token: str | None, seat_hash: str) -> bool:
    """True when ``token`` is the seat whose hash is stored (constant-time compare)."""
    if not token or not isinstance(token, str):
        return False
    return hmac.compare_digest(token_hash(token), seat_hash)


def cookie_name(game_id: str) -> str:
    """The legacy per-game cookie that held the seat token of ``game_id``."""
    return COOKIE_PREFIX + game_id
