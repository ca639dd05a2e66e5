"""The HTML pages: home, a game, and position links that show a position to start from.

The templates (``templates/``) autoescape; user-supplied text reaches a page
only as template values or inside ``tojson``. A ``GET`` never creates a game
or starts a search (link previews and ``<img>`` tags fetch URLs): a position
link shows the position and a form that POSTs to ``/new``.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
)
from werkzeug.datastructures import MultiDict

from webapp import protocol
from webapp.games import GAMES
from webapp.games.connect4_kernel import database_status
from webapp.search_pool import timers
from webapp.search_pool.supervise import Supervisor
from webapp.services import GameError
from webapp.services.positions import chosen_game, preview
from webapp.web import admission
from webapp.web.admission import RateLimited, admit, ensure_identity, offer_identity
from webapp.web.common import address_turn, friend_game, service
from webapp.web.error_pages import error_page
from webapp.web.friend_games import friends
from webapp.web.identity import identity, token_for

bp = Blueprint("pages", __name__)

TRUE_WORDS, FALSE_WORDS = ("1", "true", "on", "yes"), ("0", "false", "off", "no")
#: The fields of a position link and of the home form (POST /new takes the same).
LINK_FIELDS = ("game", "moves", "level", "algorithm", "engine_plays", "depth", "time")


def games_list() -> list[dict[str, str]]:
    """The games for the home page's picker: ``{name, label}``."""
    return [{"name": name, "label": protocol.GAME_LABELS.get(name, name)} for name in GAMES]


#: The home form's or a position page's POST that could not start a game (any 4xx).
FORM_WORDS = (
    "Game not started",
    "These settings do not start a game",
    "Go back and change them, or start a new game from the home page.",
)


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

    ``rate_limits`` (to a request from this machine only: anyone else would learn when
    to flood): where the limits count (``local``, ``shared``), or ``failing open`` while
    their shared storage (Redis) failed a check: the games go on, unguarded by the
    limits meanwhile, so it is reported but no 503.

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
    if request.remote_addr in LOOPBACK:
        health["rate_limits"] = current_app.extensions[admission.EXTENSION].status()
    elif isinstance(workers, dict):
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
        position = preview(chosen_game(request.args), None, request.args.get("moves", ""))
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
        position = preview(form.get("game"), None, form.get("moves", ""))
        if position["status"] != "playing":  # its page offers the analysis board instead
            raise GameError(protocol.GAME_OVER, "that game is over: there is nothing to play.")
        moves = position["moves"]
        record = service().create(
            form.get("game"), link_settings(form), moves, owner=owner, turn=address_turn()
        )
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
