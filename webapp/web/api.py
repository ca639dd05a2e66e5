"""The JSON API: create games, read their state, start the next one; analyse positions
and review games (``GET /api/analysis``, ``GET /api/games/<id>/review``).

Every error answers ``{"error": {"code", "message"}}`` with a 4xx (429 with
``Retry-After`` past a rate limit, 503 when the server is busy) and changes
nothing. Seats belong to the browser's identity cookie (``identity.py``).
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from webapp import protocol
from webapp.search_pool import Pool
from webapp.services import GameError
from webapp.services.analysis import Analyses, Asker
from webapp.services.positions import preview, typed_moves
from webapp.services.review import Reviews
from webapp.services.seats import token_hash
from webapp.store import GameRecord
from webapp.web import friend_games, waiters
from webapp.web.admission import admit, ensure_identity
from webapp.web.common import (
    RETRY_SECONDS,
    address_turn,
    friend_game,
    game_error,
    json_body,
    next_game,
    service,
)
from webapp.web.identity import identity, token_for
from webapp.web.waiters import waiting_place

bp = Blueprint("api", __name__, url_prefix="/api")
bp.register_error_handler(GameError, game_error)  # {"error": ...}, Retry-After and all


def init_app(app: Flask, pool: Pool) -> None:
    """The position analyses and reviews, in ``pool`` (their results come back through
    its dispatcher, by job kind)."""
    config = app.config
    analyses = Analyses(
        pool,
        seed=config["SEARCH_SEED"],
        abandon_seconds=config["ANALYSIS_ABANDON_SECONDS"],
        share_per_identity=config["ANALYSIS_SHARE_PER_IDENTITY"],
        share_per_address=config["ANALYSIS_SHARE_PER_ADDRESS"],
        retry_seconds=RETRY_SECONDS,
    )
    app.extensions["lookahead_analyses"] = analyses
    waiters.init_app(app)
    app.extensions["lookahead_reviews"] = Reviews(analyses)


def created(record: GameRecord, token: str) -> Response:
    """201 with the new game's state (the requester holds its seat through its identity)."""
    state = service().state(record.id, token)
    response = jsonify(state)
    response.status_code = 201
    response.headers["Location"] = state["url"]
    return response


def asker() -> Asker:
    """Who asks for an analysis, for the shares: the identity's hash and the address."""
    token = identity()
    return Asker(token_hash(token) if token else "", request.remote_addr or "")


@bp.post("/games")
def create_game() -> Response:
    """{game, settings?, moves?} -> 201 and the game's state; the identity cookie is set."""
    token = ensure_identity()  # first, so a browser's first creation counts against it
    admit("create")
    body = json_body()
    unknown = set(body) - {"game", "settings", "moves", "opponent"}
    if unknown:
        raise GameError(protocol.BAD_REQUEST, f"Unknown fields: {', '.join(sorted(unknown))}.")
    if friend_games.requested_opponent(body) == "friend":
        if body.get("moves"):
            raise GameError(protocol.BAD_REQUEST, "A game between two people starts empty.")
        return friend_games.create(body, token)
    record = service().create(
        body.get("game"), body.get("settings"), body.get("moves"), owner=token, turn=address_turn()
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
    record = friend_game(game_id)
    if record is not None:
        return jsonify(friend_games.friends().state(record, identity()))
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


@bp.get("/analysis")
def analysis() -> Response:
    """``?game=G&moves=M`` -> the position's scores for the side to move (nothing stored).

    200 ``{game, moves, to_move, status, score, exact, best_moves, move_scores, depth,
    book, complete}``; 202 ``{game, moves, pending: true}`` with ``Retry-After`` while
    its search runs (ask again within ``ANALYSIS_ABANDON_SECONDS``: it goes on; else it
    is cancelled); 429 past the asker's share; 503 BUSY when the pool is full. With every
    waiting place taken (``HTTP_WAITERS``) it answers 202 at once instead of waiting.
    An answer known already (cached, or a finished position) and a poll of a search
    under way start no search: they are not counted against the analysis rate limits,
    which guard the searches.
    """
    try:
        position = preview(request.args.get("game"), None, request.args.get("moves", ""))
    except GameError:
        admit("analyse")  # a malformed request is counted (then refused)
        raise
    config = current_app.config
    analyses: Analyses = current_app.extensions["lookahead_analyses"]
    key = (position["game"], position["moves"], True)
    answer = analyses.lookup(key)
    if answer is None:
        if not analyses.searching(key):
            admit("analyse")
        with waiting_place() as may_wait:
            answer = analyses.analyse(
                position["game"],
                position["moves"],
                seconds=config["ANALYSIS_SECONDS"],
                wait=config["ANALYSIS_WAIT_SECONDS"] if may_wait else 0.0,
                owner=address_turn(),
                asker=asker(),
            )
    if answer is None:
        response = jsonify({"game": position["game"], "moves": position["moves"], "pending": True})
        response.status_code = 202
        response.headers["Retry-After"] = str(RETRY_SECONDS)
    else:
        response = jsonify(answer)
    # An exact answer is the position's for ever; a heuristic one may improve.
    complete = answer is not None and answer["complete"]
    response.headers["Cache-Control"] = "max-age=86400" if complete else "no-store"
    return response


@bp.get("/position")
def position_of() -> Response:
    """``?game=G&moves=4 4 5 3`` (typed) or ``?game=G&board=...&to_move=0`` (drawn) ->
    ``{game, moves}``: the move string the links take; 400 with the reason (nothing
    searched, nothing stored). A drawn board is traced back to a start, bounded work
    that still counts against the analysis rate limits."""
    admit("analyse")
    args = request.args
    moves = typed_moves(args.get("game"), args.get("moves"), args.get("board"), args.get("to_move"))
    return jsonify({"game": args.get("game"), "moves": moves})


@bp.get("/games/<game_id>/review")
def review(game_id: str) -> Response:
    """Every move of the game (finished or not) classified: ``[{ply, player, move,
    value_before, value_after, best_moves, class}]``.

    ``X-Review-Pending`` counts the positions still unknown (their moves have
    ``class: null``); when it is not 0, ``Retry-After`` says when asking again may know more.
    """
    admit("analyse")
    friend_games.check_analysis(game_id)  # fair play: no review while two people play
    record = service().get(game_id)
    reviews: Reviews = current_app.extensions["lookahead_reviews"]
    with waiting_place() as may_wait:  # none free: what is known now, the rest goes on
        entries, pending = reviews.review(
            record,
            position_seconds=current_app.config["REVIEW_POSITION_SECONDS"],
            wait=current_app.config["REVIEW_WAIT_SECONDS"] if may_wait else 0.0,
            owner=address_turn(),
            asker=asker(),
        )
    response = jsonify(entries)
    response.headers["X-Review-Pending"] = str(pending)
    if pending:
        response.headers["Retry-After"] = str(RETRY_SECONDS)
    response.headers["Cache-Control"] = "no-store"
    return response
