"""Socket.IO handlers of a game between two people: resign, offers, claims.

Each answers ``{"ok": true}`` or, refused, the ``error`` event (``sockets.handles``);
the game's state goes to both players and the spectators after every change.
"""

from __future__ import annotations

from webapp import protocol
from webapp.web.friend_games import friends
from webapp.web.identity import identity
from webapp.web.sockets import Payload, handles


@handles(protocol.RESIGN)
def on_resign(payload: Payload) -> Payload:
    friends().resign(payload["game_id"], identity())
    return {"ok": True}


@handles(protocol.OFFER)
def on_offer(payload: Payload) -> Payload:
    friends().offer(payload["game_id"], payload.get("kind"), identity())
    return {"ok": True}


@handles(protocol.ACCEPT)
def on_accept(payload: Payload) -> Payload:
    friends().accept(payload["game_id"], payload.get("kind"), identity())
    return {"ok": True}


@handles(protocol.DECLINE)
def on_decline(payload: Payload) -> Payload:
    friends().decline(payload["game_id"], payload.get("kind"), identity())
    return {"ok": True}


@handles(protocol.CLAIM)
def on_claim(payload: Payload) -> Payload:
    friends().claim(payload["game_id"], payload.get("result"), identity())
    return {"ok": True}
