"""The web protocol, defined once: event names, settings, levels and limits.

The server imports these names, the page receives them as JSON (so the
browser never restates them), and the README documents them.
"""

from __future__ import annotations

from typing import Any

from webapp.engine.scores import max_exact_score
from webapp.engine.style import NEAR_EQUAL, WEAKER
from webapp.games import GAMES

# -- Socket.IO events, client to server --------------------------------------
JOIN = "join"  # {game_id}
MOVE = "move"  # {game_id, move, ply?}: ply, the moves seen (a friend game refuses a stale one)
UNDO = "undo"  # {game_id}
SETTINGS = "settings"  # {game_id, settings: {...partial settings}}
NEW_GAME = "new_game"  # {game_id}: a fresh game with the same settings
REMATCH = "rematch"  # {game_id}: a fresh game, colours swapped
ANALYSE = "analyse"  # {game_id, algorithm, moves?}: analyse the position (moves: an earlier one)
# A game between two people (``webapp.services.friends``):
RESIGN = "resign"  # {game_id}
OFFER = "offer"  # {game_id, kind}: offer a draw, ask for a takeback or a rematch (OFFER_KINDS)
ACCEPT = "accept"  # {game_id, kind}: accept the other player's offer
DECLINE = "decline"  # {game_id, kind}: decline the other's offer, or withdraw one's own
CLAIM = "claim"  # {game_id, result: "win" or "abort"}: the other player has been gone too long

# -- Socket.IO events, server to client --------------------------------------
STATE = "state"  # the whole game state, on join and after every change
THINKING = "thinking"  # one per completed depth of the engine's search
#: {game_id, moves, algorithm, depth, nodes, elapsed_ms, nps}: the engine's search under
#: way between two depths, every half second (``depth`` None: solving to the end)
SEARCHING = "searching"
ENGINE_MOVE = "engine_move"  # the engine's move with its full analysis
ANALYSIS = "analysis"  # the answer to ANALYSE (same fields as ENGINE_MOVE)
QUEUED = "queued"  # {game_id, position}: all workers busy, waiting its turn
#: {game_id, moves, to_move, move_scores, complete, solving}: the side to move's options
#: (``solving``: the exact pass is still to come, so an estimate may become exact)
SCORES = "scores"
GAME_CREATED = "game_created"  # {id, url}: answer to NEW_GAME / REMATCH
ERROR = "error"  # {code, message}

CLIENT_EVENTS = (
    JOIN, MOVE, UNDO, SETTINGS, NEW_GAME, REMATCH, ANALYSE, RESIGN, OFFER, ACCEPT, DECLINE, CLAIM
)  # fmt: skip
SERVER_EVENTS = (
    STATE,
    THINKING,
    SEARCHING,
    ENGINE_MOVE,
    ANALYSIS,
    SCORES,
    QUEUED,
    GAME_CREATED,
    ERROR,
)

# -- Error codes (the `code` of an ERROR event and of HTTP error bodies) ------
BAD_REQUEST = "bad_request"  # malformed payload
UNKNOWN_GAME = "unknown_game"  # no game with that id / no such kind of game
ILLEGAL_MOVE = "illegal_move"
NOT_YOUR_TURN = "not_your_turn"  # it is the engine's turn, or it is thinking
SPECTATOR = "spectator"  # the sender holds no seat in this game
GAME_OVER = "game_over"
BAD_SETTINGS = "bad_settings"
NOTHING_TO_UNDO = "nothing_to_undo"
BUSY = "busy"  # the server's search queue is full
ENGINE_FAILED = "engine_failed"  # the engine's search stopped with an error
CONFLICT = "conflict"  # the game changed at the same moment (another tab or server)
STORE_UNAVAILABLE = "store_unavailable"  # the database cannot be read or written now
CORRUPT_GAME = "corrupt_game"  # the game's stored record is damaged
RATE_LIMITED = "rate_limited"  # too many requests from this browser or address: wait and retry
CROSS_SITE = "cross_site"  # a state-changing request sent by another site (403)
# A game between two people:
NOT_YOUR_SEAT = "not_your_seat"  # a spectator tried to play (or offer, resign, claim)
SEAT_TAKEN = "seat_taken"  # the invite's seat has been taken by another browser (409)
ALREADY_SEATED = "already_seated"  # the browser holds a seat of this game already (409)
BAD_INVITE = "bad_invite"  # no seat to take: not a game between two people, or a wrong invite
NO_OFFER = "no_offer"  # nothing to accept (or decline), or an offer not possible now
FAIR_PLAY = "fair_play"  # no engine analysis for this viewer while the game is on (403)
TOO_EARLY = "too_early"  # the other player has not been gone long enough (or no win yet)

# -- A game between two people ----------------------------------------------------
OPPONENTS = ("engine", "friend")  # POST /api/games {"opponent": ...}
OFFER_KINDS = ("draw", "takeback", "rematch")
CLAIM_RESULTS = ("win", "abort")
STARTS = ("me", "friend", "random")  # who moves first: the creator, the friend, either
#: Seconds a player may be without connection before the other may claim the game.
ABANDON_SECONDS = 60

# -- Games ----------------------------------------------------------------------
#: The games' display names, by the name used in URLs and the API.
GAME_LABELS = {"tictactoe": "Tic-tac-toe", "connect4": "Connect Four"}
#: The game a page opens when its link names none (the analysis board, the tree explorer).
DEFAULT_GAME = "connect4"

# -- Settings -------------------------------------------------------------------
ALGORITHMS = ("alphabeta", "minimax")
ALGORITHM_LABELS = {"alphabeta": "Alpha-beta", "minimax": "Minimax"}

#: Named strengths: a depth and/or a time budget (seconds). None = no limit of
#: that kind (the server's own caps still apply). "perfect" searches until the
#: scores are exact (within the server's time cap). A level with a ``style``
#: plays like a person (``webapp.engine.style.Style``): any move within
#: ``margin`` of the best, a weaker move with probability ``blunder``, but never
#: a miss of a win or a walk into a loss within ``sight`` plies (Medium takes a
#: win in one and blocks a threat, yet may walk into a fork; Easy may miss all).
#: Tuned with ``python -m webapp.bench DIR --sections levels``.
LEVELS: dict[str, dict[str, Any]] = {
    "easy": {
        "label": "Easy",
        "depth": 2,
        "time": None,
        "style": {"margin": 0.02, "blunder": 0.3, "sight": 0},
    },
    "medium": {
        "label": "Medium",
        "depth": 4,
        "time": None,
        "style": {"margin": 0.005, "blunder": 0.1, "sight": 2},
    },
    "hard": {"label": "Hard", "depth": 8, "time": 2.0},
    "perfect": {"label": "Perfect", "depth": None, "time": None},
    "custom": {"label": "Custom", "depth": None, "time": None},
}

#: An engine move's ``extra.style`` when a level's style chose a move that is
#: not a best one (``webapp.engine.style``): the page says so in words.
PLAY_STYLES = {"weaker": WEAKER, "near_equal": NEAR_EQUAL}

#: The server's own caps, whatever a client asks for.
MAX_DEPTH = 42
MIN_TIME, MAX_TIME = 0.05, 10.0
#: A custom depth's bound per game: no deeper than the game's longest game (tic-tac-toe
#: ends within 9 moves), nor than ``MAX_DEPTH``.
GAME_MAX_DEPTH = {name: min(factory().cells, MAX_DEPTH) for name, factory in GAMES.items()}
#: Plain minimax has no pruning: the server caps its depth per game so that a
#: search ends in seconds, not hours (each game's ``minimax_max_depth``).
MINIMAX_MAX_DEPTH = {name: factory().minimax_max_depth for name, factory in GAMES.items()}
#: The depth plain minimax reaches at every level without a depth of its own
#: (None: the end of the game, the whole tree), shown beside the algorithm.
MINIMAX_DEPTH = {
    name: None if depth >= factory().cells else depth
    for (name, factory), depth in zip(GAMES.items(), MINIMAX_MAX_DEPTH.values(), strict=True)
}
#: The score convention (``webapp.engine.scores``) per game: a win with the
#: winner's k-th stone scores ``max_exact_score - k``.
#: ``heuristic_steps``: where an estimate (a heuristic score, strictly inside -1..1)
#: stops reading "about even" and becomes "slightly better", "better" and "much
#: better" for the side to move. The evaluations' scales differ: a Connect Four
#: threat is worth 0.024, a tic-tac-toe line of two 0.1.
HEURISTIC_STEPS = {"connect4": (0.01, 0.04, 0.1), "tictactoe": (0.05, 0.15, 0.4)}
SCORE_CONVENTION = {
    name: {
        "cells": factory().cells,
        "max_exact_score": max_exact_score(factory().cells),
        "heuristic_steps": HEURISTIC_STEPS[name],
    }
    for name, factory in GAMES.items()
}

DEFAULT_SETTINGS: dict[str, Any] = {
    "algorithm": "alphabeta",
    "level": "medium",
    "depth": None,  # custom level only
    "time": None,  # custom level only
    "engine_plays": "second",  # "first" or "second"
    "show_analysis": True,
}


def client_config() -> dict[str, Any]:
    """What the page needs to speak the protocol (embedded as JSON in the page)."""
    return {
        "events": {name: name for name in CLIENT_EVENTS + SERVER_EVENTS},
        "games": GAME_LABELS,
        "levels": LEVELS,
        "play_styles": PLAY_STYLES,
        "algorithms": ALGORITHM_LABELS,
        "limits": {
            "max_depth": MAX_DEPTH,
            "game_max_depth": GAME_MAX_DEPTH,
            "min_time": MIN_TIME,
            "max_time": MAX_TIME,
        },
        "defaults": DEFAULT_SETTINGS,
        "scores": SCORE_CONVENTION,
        "minimax_depth": MINIMAX_DEPTH,
    }
