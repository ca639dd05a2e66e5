"""The error every game action raises: a protocol code, a message for people, an HTTP status."""

from __future__ import annotations

from typing import Any

from webapp import protocol

#: The HTTP status of each protocol error code (the JSON API answers with it).
HTTP_STATUS = {
    protocol.BAD_REQUEST: 400,
    protocol.UNKNOWN_GAME: 404,
    protocol.ILLEGAL_MOVE: 400,
    protocol.NOT_YOUR_TURN: 409,
    protocol.SPECTATOR: 403,
    protocol.GAME_OVER: 409,
    protocol.BAD_SETTINGS: 400,
    protocol.NOTHING_TO_UNDO: 409,
    protocol.BUSY: 503,
    protocol.ENGINE_FAILED: 500,
    protocol.CONFLICT: 409,
    protocol.STORE_UNAVAILABLE: 503,
    protocol.CORRUPT_GAME: 500,
    protocol.RATE_LIMITED: 429,
    protocol.NOT_YOUR_SEAT: 403,
    protocol.SEAT_TAKEN: 409,
    protocol.ALREADY_SEATED: 409,
    protocol.BAD_INVITE: 403,
    protocol.NO_OFFER: 409,
    protocol.FAIR_PLAY: 403,
    protocol.TOO_EARLY: 409,
}


class GameError(Exception):
    """An action refused; nothing was changed.

    >>> GameError("game_over", "The game is over.").payload()
    {'code': 'game_over', 'message': 'The game is over.'}
    """

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        self.status = status or HTTP_STATUS.get(code, 400)

    def payload(self) -> dict[str, Any]:
        """The protocol's ``error`` payload."""
        return {"code": self.code, "message": self.message}
