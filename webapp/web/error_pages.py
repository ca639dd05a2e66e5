"""Error pages: a failed request's page in plain words (JSON under ``/api/``).

Apart from the pages (``pages``) so that whatever refuses a request early (a cross-site
form, ``origin``) can draw one without importing the pages and what they import.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from webapp import protocol

#: An error page's words by HTTP status: the tab's title, the heading, and the hint
#: under the specific reason. A 400 is a link that says no position (any other 4xx is
#: said as one); only a 404 is something missing, so only it says "not found".
ERROR_WORDS: dict[int, tuple[str, str, str]] = {
    400: (
        "Link not valid",
        "This link does not describe a position",
        "Check that the whole link was copied, or start a new game from the home page.",
    ),
    404: (
        "Not found",
        "Nothing to play here",
        "Games live at their link for as long as the server keeps them. "
        "You can always start a new one.",
    ),
    429: (
        "Too many requests",
        "Too many requests at once",
        "Wait a moment, then try again.",
    ),
}
#: A 404 for an address that is no page of the site (not a game's link gone).
NO_PAGE_WORDS = (
    "Not found",
    "No such page",
    "Check the address, or start a new game from the home page.",
)
#: A 5xx is the server's fault, not the link's.
SERVER_WORDS = (
    "Server error",
    "Something went wrong on our side",
    "The link is fine: try again in a moment.",
)


#: A position's moves the rules refused, as the services word them ("Bad starting position:
#: move 7 of '1111111': move '1': column 1 is full"), the move's digit said once.
ILLEGAL_AT = re.compile(
    r"(?:Bad (?:starting )?position: )?move (\d+) of '([^']*)': (?:move '([^']*)':? ?)?(.*)$"
)


def plain_reason(message: str) -> str:
    """``message`` as sentences; a refused move in a link's moves in plain words.

    >>> plain_reason("No tree: Bad position: move 7 of '1111111': move '1': column 1 is full")
    'No tree. The moves in this link (1111111) cannot all be played: at move 7, column 1 is full.'
    >>> plain_reason("Bad starting position: move 1 of '99999': move '9' is not a column (1-7)")
    'The moves in this link (99999) cannot all be played: at move 1, 9 is not a column (1 to 7).'
    """
    found = ILLEGAL_AT.search(message)
    if found:
        ply, moves, move, detail = found.groups()
        if move and detail.startswith("is "):
            detail = f"{move} {detail}"
        detail = re.sub(r"\((\d+)-(\d+)\)", r"(\1 to \2)", detail)  # a range, not a minus
        lead = message[: found.start()].removesuffix(": ")
        lead = f"{lead}. " if lead else ""
        message = (
            f"{lead}The moves in this link ({moves}) cannot all be played: at move {ply}, {detail}"
        )
    return message if message.endswith((".", "!", "?")) else f"{message}."


def error_page(
    message: str, status: int, words: tuple[str, str, str] | None = None
) -> tuple[str, int]:
    """The error page for ``status``: ``message`` as the reason, under the status's words
    (ERROR_WORDS, SERVER_WORDS) unless ``words`` (title, heading, hint) are given."""
    if status >= 500:
        words = SERVER_WORDS
    title, heading, hint = words or ERROR_WORDS.get(status, ERROR_WORDS[400])
    # `config` is passed explicitly: otherwise Flask's app.config would reach the page.
    page = render_template(
        "error.html",
        title=title,
        heading=heading,
        message=plain_reason(message),
        hint=hint,
        config=protocol.client_config(),
    )
    return page, status


def register_error_pages(app: Flask) -> None:
    """Friendly pages for unknown URLs and failures (JSON under /api/)."""

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        status = error.code or 500
        if request.path.startswith("/api/"):
            body = {"code": protocol.BAD_REQUEST, "message": error.description}
            if status == 404:
                body["code"] = protocol.UNKNOWN_GAME
            return jsonify({"error": body}), status
        if status == 404:
            return error_page("We could not find that page.", 404, NO_PAGE_WORDS)
        return error_page(error.description or "That request did not work.", status)

    @app.errorhandler(500)
    def server_error(error: Exception) -> Response | tuple[str, int]:
        if request.path.startswith("/api/"):
            body = {"code": "server_error", "message": "The server failed to do that."}
            return jsonify({"error": body}), 500  # type: ignore[return-value]
        return error_page("Something went wrong on our side. Please try again.", 500)
