"""The HTML pages: home, a game, and position links that show a position to start from.

The templates (``templates/``) autoescape; user-supplied text reaches a page
only as template values or inside ``tojson``. A ``GET`` never creates a game
or starts a search (link previews and ``<img>`` tags fetch URLs): a position
link shows the position and a form that POSTs to ``/new``.
"""

from __future__ import annotations

import re
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
)
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import HTTPException

from webapp import protocol
from webapp.games import GAMES
from webapp.games.connect4_kernel import database_status
from webapp.search_pool import timers
from webapp.search_pool.supervise import Supervisor
from webapp.services import GameError
from webapp.services.positions import preview
from webapp.web.admission import RateLimited, admit
from webapp.web.common import service
from webapp.web.friend_games import friend_game, friends
from webapp.web.identity import ensure_identity, identity, offer_identity, token_for

bp = Blueprint("pages", __name__)

TRUE_WORDS, FALSE_WORDS = ("1", "true", "on", "yes"), ("0", "false", "off", "no")
#: The fields of a position link and of the home form (POST /new takes the same).
LINK_FIELDS = ("game", "moves", "level", "algorithm", "engine_plays", "depth", "time")


def games_list() -> list[dict[str, str]]:
    """The games for the home page's picker: ``{name, label}``."""
    return [{"name": name, "label": protocol.GAME_LABELS.get(name, name)} for name in GAMES]


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
#: The home form's or a position page's POST that could not start a game (any 4xx).
FORM_WORDS = (
    "Game not started",
    "These settings do not start a game",
    "Go back and change them, or start a new game from the home page.",
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


@bp.get("/")
def home() -> str:
    offer_identity()  # so the first Socket.IO handshake already carries it
    return render_template("home.html", games=games_list(), config=protocol.client_config())


#: What /healthz tells only a request from this machine (a monitor, the benchmarks): the
#: pool's cumulative counts and timings.
LOCAL_ONLY = ("timings", "preempted", "sent_ahead")
LOOPBACK = ("127.0.0.1", "::1")


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    """The store, the workers alive and the queue: 200 when the server can play, else 503.

    ``book``: the 12-stone Connect Four database (``ok``, ``missing``, ``damaged``); without
    it the server still plays, solving early positions more slowly.

    ``threads``: each supervised background loop (``ok`` False while it is down after
    dying, until it is restarted) and the delayed-work thread; any down is a 503.

    The pool's counts and timings (``LOCAL_ONLY``) go only to a request from this machine.
    """
    health = service().health()
    health["book"] = database_status()
    supervisor: Supervisor | None = current_app.extensions.get("lookahead_threads")
    loops = {} if supervisor is None else supervisor.status()
    loops["timers"] = {"ok": timers.shared().alive()}
    health["threads"] = loops
    health["ok"] = health["ok"] and all(loop["ok"] for loop in loops.values())
    workers = health.get("workers")
    if request.remote_addr not in LOOPBACK and isinstance(workers, dict):
        for key in LOCAL_ONLY:  # from two looks anyone could read the server's traffic
            workers.pop(key, None)
    return jsonify(health), 200 if health["ok"] else 503


@bp.get("/g/<game_id>")
def game(game_id: str) -> Any:
    offer_identity()
    state = state_or_error(game_id)
    if isinstance(state, tuple):
        return state
    return render_template(
        "game.html", game_id=game_id, state=state, config=protocol.client_config()
    )


def state_or_error(game_id: str) -> dict[str, Any] | tuple[str, int]:
    """The game's state for this browser, or the error page saying why there is none."""
    try:
        record = friend_game(game_id)
        if record is not None:  # a game between two people: the viewer's seat in it
            return friends().state(record, identity())
        return service().state(game_id, token_for(game_id))
    except GameError as error:
        if error.code in (protocol.UNKNOWN_GAME, protocol.BAD_REQUEST):
            return error_page("There is no game at this link. It may have been mistyped.", 404)
        return error_page(error.message, error.status)  # damaged, or storage unavailable


@bp.get("/learn/<game_id>")
def learn(game_id: str) -> Any:
    """Learn from your mistakes: the game's mistakes and blunders, one position at a time
    (the page reads the review and the analyses from the API; nothing is created)."""
    state = state_or_error(game_id)
    if isinstance(state, tuple):
        return state
    return render_template(
        "learn.html", game_id=game_id, game=state["game"], config=protocol.client_config()
    )


@bp.get("/new")
def position_link() -> Any:
    """A position link: ``/new?game=connect4&moves=4453`` (+ engine_plays, level, ...).

    Shows the position and a "Play from here" button; nothing is created, no
    cookie is set (a link preview or a prefetcher changes nothing).
    """
    try:
        position = preview(
            request.args.get("game"), link_settings(request.args), request.args.get("moves", "")
        )
    except GameError as error:
        return error_page(f"This link cannot start a game: {error.message}", 400)
    fields = {key: request.args[key] for key in LINK_FIELDS if request.args.get(key)}
    if position["moves"]:
        fields["moves"] = position["moves"]  # as normalised: "4 4 5 3" and "ddec" are 4453
    fields["show_analysis"] = "true" if position["settings"]["show_analysis"] else "false"
    return render_template(
        "position.html", position=position, fields=fields, config=protocol.client_config()
    )


@bp.get("/analysis")
def analysis_board() -> Any:
    """The analysis board: ``/analysis?game=connect4&moves=4453`` (a new board without them).

    Both sides are moved by hand in the page; the scores come from
    ``GET /api/analysis``. Nothing is created, stored or searched by this GET.
    """
    try:
        position = preview(
            request.args.get("game", "connect4"), None, request.args.get("moves", "")
        )
    except GameError as error:
        return error_page(f"This position cannot be analysed: {error.message}", 400)
    return render_template(
        "analysis.html", position=position, games=games_list(), config=protocol.client_config()
    )


@bp.post("/new")
def new() -> Any:
    """The home form or a position page's button: create the game, then go to it (303)."""
    form = request.form
    try:
        owner = ensure_identity()
        admit("create")
        # typed forms ("4 4 5 3", "ddec") are normalised, and refused, as the link's GET does
        moves = preview(form.get("game"), None, form.get("moves", ""))["moves"]
        record = service().create(form.get("game"), link_settings(form), moves, owner=owner)
    except RateLimited as error:
        page, status = error_page(error.message, error.status)
        return page, status, {"Retry-After": str(error.retry_after)}
    except GameError as error:
        return error_page(f"This cannot start a game: {error.message}", error.status, FORM_WORDS)
    return redirect(f"/g/{record.id}", code=303)


def link_settings(args: MultiDict[str, str]) -> dict[str, Any]:
    """The settings a position link or the home form gives (the service checks them)."""
    settings: dict[str, Any] = {
        key: args[key] for key in ("algorithm", "level", "engine_plays") if key in args
    }
    if "show_analysis" in args:
        word = args["show_analysis"].lower()
        if word not in TRUE_WORDS + FALSE_WORDS:
            raise GameError(protocol.BAD_SETTINGS, "show_analysis must be true or false.")
        settings["show_analysis"] = word in TRUE_WORDS
    if settings.get("level") == "custom":  # the form sends depth and time for every level
        try:
            if args.get("depth"):
                settings["depth"] = int(args["depth"])
            if args.get("time"):
                settings["time"] = float(args["time"])
        except ValueError:
            raise GameError(protocol.BAD_SETTINGS, "depth and time must be numbers.") from None
    return settings


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
            return error_page("We could not find that page.", 404)
        return error_page(error.description or "That request did not work.", status)

    @app.errorhandler(500)
    def server_error(error: Exception) -> Response | tuple[str, int]:
        if request.path.startswith("/api/"):
            body = {"code": "server_error", "message": "The server failed to do that."}
            return jsonify({"error": body}), 500  # type: ignore[return-value]
        return error_page("Something went wrong on our side. Please try again.", 500)
