"""The engine's search of a game's position: one job for its reply and its pondering.

The engine's reply (``searches``) and its pondering on the player's time
(``live_scores``) run exactly this job, so that a pondered reply is the one the
engine would have searched (same algorithm, limits and seed) and can be taken
as its move.

An exact solve (no depth limit: Perfect) walks no line: its move goes out alone, and
the line it expects follows as display work (``engine_line``), as the scores do.
"""

from __future__ import annotations

from dataclasses import replace

from webapp.game_settings import search_limits
from webapp.search_pool import Priority, SearchJob
from webapp.search_pool.local_pool import short_limits
from webapp.store import GameRecord

#: The kind of the engine's reply (its tag's first item): the dispatcher routes by it.
ENGINE = "engine"


def engine_job(record: GameRecord, seed: int | None, turn: str = "") -> SearchJob:
    """The engine's search for its move in ``record``'s position, in the level's style;
    ``turn``: whose turn it takes in the queue (the mover's address), else its player's."""
    algorithm = record.settings["algorithm"]
    limits = search_limits(record.settings, record.game, play=True)  # in the level's style
    if limits.depth is None and algorithm == "alphabeta":
        limits = replace(limits, line=False)  # its line follows the move (``engine_line``)
    return SearchJob(
        record.game,
        record.moves,
        algorithm,
        limits,
        seed=seed,
        tag=(ENGINE, record.id, None),
        move_scores=False,  # the critical path: the move, nothing else
        priority=Priority.ENGINE,
        owner=record.seat_hash,
        game_id=record.id,
        turn=turn,
    )


def short_reply(record: GameRecord) -> bool:
    """Whether the engine's reply in ``record``'s game is a short search (Easy, Medium):
    ``local_pool.short`` of its ``engine_job``, without making the job (asked of every
    live position while a crowd plays)."""
    return short_limits(search_limits(record.settings, record.game, play=True))
