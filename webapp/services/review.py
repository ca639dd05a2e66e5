"""A stored game's review: every move classified from the positions' exact values.

The values come from the same analyses as ``GET /api/analysis``
(``analysis.Analyses``), one per position of the game, under a bounded budget:
each position gets ``position_seconds`` of search, and the whole review waits
``wait`` seconds at most. A 40-move Connect Four game is 40 searches; those
the book answers are instant, the others mostly solve in well under a second,
and any still unknown when the time is up leave their moves unclassified
(``class: null``). Their searches go on and are cached, so asking again later
fills them in; ``pending`` says how many positions were missing.

Tic-tac-toe scores every move of every position (milliseconds), so its review
lists all the best moves; Connect Four asks each position for its value only
(a full set of column scores can take seconds per position), so its
``best_moves`` hold the one best move the search names.

Complete reviews (every position answered, exactly or not) are cached per
(game id, version): a version never changes its moves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from webapp.engine.review import PositionValue, review_moves
from webapp.services.analysis import NOBODY, Analyses, Asker
from webapp.store import GameRecord

#: Games whose review scores every move of every position (cheap enough to solve outright).
EVERY_MOVE_SCORED = frozenset({"tictactoe"})
#: Reviews kept (a list of at most 42 small dicts each).
CACHE_SIZE = 256


class Reviews:
    """Reviews of stored games, from ``analyses``, cached per (game id, version)."""

    def __init__(self, analyses: Analyses, cache_size: int = CACHE_SIZE) -> None:
        self.analyses, self.cache_size = analyses, cache_size
        self._cache: OrderedDict[tuple[str, int], list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()  # request threads share the cache

    def review(
        self,
        record: GameRecord,
        *,
        position_seconds: float,
        wait: float,
        owner: str = "",
        asker: Asker = NOBODY,
    ) -> tuple[list[dict[str, Any]], int]:
        """``(entries, pending)``: the review of ``record`` and how many positions are unknown.

        Entries are ``engine.review.review_moves``'s.
        """
        key = (record.id, record.version)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached, 0
        positions = [record.moves[:ply] for ply in range(len(record.moves) + 1)]
        found = self.analyses.many(
            record.game,
            positions,
            move_scores=record.game in EVERY_MOVE_SCORED,
            seconds=position_seconds,
            wait=wait,
            owner=owner,
            asker=asker,
        )
        values = {
            moves: PositionValue(answer["score"], answer["exact"], tuple(answer["best_moves"]))
            for moves, answer in found.items()
        }
        entries = review_moves(record.moves, values.get)
        pending = len(positions) - len(found)
        if not pending:
            with self._lock:
                self._cache[key] = entries
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return entries, pending
