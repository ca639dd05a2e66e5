"""The search-tree explorer: its page (``/tree``) and its data (``GET /api/tree``); and the
game panel's comparison of the two algorithms on one position (``GET /api/compare``).

The page is a shell: its script reads the same query (``game, moves,
algorithm, depth``) and asks the API for the nodes, which are traced in the
search pool (``webapp.services.tree.Trees``). Both refuse a bad position the
same way (``webapp.services.tree.tree_request``); the API answers
``{"error": {code, message}}``, the page a readable error page.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request

from webapp import protocol
from webapp.engine.trace import DEFAULT_LIMIT, MAX_LIMIT
from webapp.search_pool import Pool
from webapp.services import GameError
from webapp.services.compare import Comparisons
from webapp.services.tree import Trees, position_facts, tree_request
from webapp.web.admission import admit
from webapp.web.common import game_error
from webapp.web.error_pages import error_page
from webapp.web.identity import requester
from webapp.web.waiters import waiting_place

bp = Blueprint("tree", __name__)


def init_app(app: Flask, pool: Pool) -> None:
    """The traces, in ``pool`` (their results come back through its dispatcher)."""
    app.extensions["lookahead_trees"] = Trees(pool, wait=app.config["TREE_WAIT_SECONDS"])
    app.extensions["lookahead_comparisons"] = Comparisons(
        pool, wait=app.config["TREE_WAIT_SECONDS"]
    )


bp.register_error_handler(GameError, game_error)  # the JSON API's errors, Retry-After and all


@bp.get("/api/tree")
def tree_data() -> Response:
    """Every node of the search, in visit order (see the README's "Search-tree explorer")."""
    admit("analyse")
    trees: Trees = current_app.extensions["lookahead_trees"]
    with waiting_place() as may_wait:
        if not may_wait:  # every waiting place is taken: 503 and Retry-After, at once
            raise GameError(protocol.BUSY, "The server is busy drawing trees. Try again soon.")
        response = jsonify(trees.search_tree(request.args, owner=requester()))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/compare")
def compare_data() -> Response:
    """Minimax and alpha-beta on one position and depth (``webapp.services.compare``)."""
    admit("analyse")
    comparisons: Comparisons = current_app.extensions["lookahead_comparisons"]
    with waiting_place() as may_wait:
        if not may_wait:
            raise GameError(protocol.BUSY, "The server is busy searching. Try again soon.")
        response = jsonify(comparisons.compare(request.args, owner=requester()))
    response.headers["Cache-Control"] = "no-store"
    return response


#: The page's words for a finished position (a link that is right, to a game that is over).
FINISHED_WORDS = (
    "Game over",
    "No search from a finished position",
    "Step back a move in the game, or open the tree of an earlier position.",
)


#: The page's words for a link with no tree to show (its position, or its depth, order or
#: algorithm: more than a position, so not the 400 page's "does not describe a position").
NO_TREE_WORDS = (
    "Link not valid",
    "This link does not describe a search tree",
    "Check that the whole link was copied, or open the tree from a game or the analysis board.",
)


@bp.get("/tree")
def tree_page() -> Any:
    try:
        shown = tree_request(request.args)
    except GameError as error:
        if error.code == protocol.GAME_OVER:  # a position, but a finished one: said so
            return error_page(error.message, 409, FINISHED_WORDS)
        return error_page(f"There is no search tree to show: {error.message}", 400, NO_TREE_WORDS)
    limits = {"default": DEFAULT_LIMIT, "max": MAX_LIMIT}
    return render_template(
        "tree.html",
        tree=shown,
        facts=position_facts(shown),
        limits=limits,
        config=protocol.client_config(),
    )
