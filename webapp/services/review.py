"""A stored game's review: every move classified from the positions' exact values.

The values come from the same analyses as ``GET /api/analysis``
(``analysis.Analyses``), one per position of the game, under a bounded budget:
each position gets ``position_seconds`` of search, and the whole review waits
``wait`` seconds at most. A 40-move Connect Four game is 40 searches; those
the book answers are instant, the others mostly solve in well under a second,
and any still unknown when the time is up leave their moves unclassified
(``class: null``). Their searches go on and are cached, so asking again later
fills them in; ``pending`` says how many positions were missing.

``best_moves`` lists every move that keeps the position's value. Tic-tac-toe
scores every move of every position at once (milliseconds). Connect Four first
asks each position for its value only (what the classes need: the opening book
answers many at once), then, with the time left, every move's score of the
positions whose value is exact, so that "Best: column 5" names column 7 too
when it keeps the same value. Both rounds go newest first (late positions solve
fastest). A position whose moves are not all solved in time keeps the one best
move its value's search named and counts as pending: asking again fills it in
(the values come from the cache then, leaving the time to the moves).

The game's first ``record.preset`` moves (a game made from a link with
``moves=``) are marked ``preset`` and judged as no one's.

Complete reviews (every position answered, exactly or not) are cached per
(game id, version): a version never changes its moves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from webapp.engine.review import PositionValue, review_moves
from webapp.services.analysis import KEEP_SECONDS, NOBODY, Analyses, Asker
from webapp.store import GameRecord

#: Games whose review scores every move of every position at once (cheap to solve outright).
EVERY_MOVE_SCORED = frozenset({"tictactoe"})
#: Reviews kept (a list of at most 42 small dicts each), each while asked for within
#: ``KEEP_SECONDS`` (the analyses' own: a review is made of their answers).
CACHE_SIZE = 256


class Reviews:
    """Reviews of stored games, from ``analyses``, cached per (game id, version)."""

    def __init__(
        self, analyses: Analyses, cache_size: int = CACHE_SIZE, keep_seconds: float = KEEP_SECONDS
    ) -> None:
        self.analyses, self.cache_size, self.keep_seconds = analyses, cache_size, keep_seconds
        # (game id, version) -> (entries, when last asked for)
        self._cache: OrderedDict[tuple[str, int], tuple[list[dict[str, Any]], float]] = (
            OrderedDict()
        )
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
                self._cache[key] = (cached[0], self.analyses.clock())
                self._cache.move_to_end(key)
                return cached[0], 0
        positions = [record.moves[:ply] for ply in range(len(record.moves), -1, -1)]
        deadline = self.analyses.clock() + wait
        every = record.game in EVERY_MOVE_SCORED
        found = self.analyses.many(
            record.game,
            positions,  # newest first: late positions solve fastest
            move_scores=every,
            seconds=position_seconds,
            wait=wait,
            owner=owner,
            asker=asker,
        )
        if not every:  # every move of the solved positions: their complete best moves
            solved = [moves for moves in positions if _partly_solved(found.get(moves))]
            scored = self.analyses.many(
                record.game,
                solved,
                move_scores=True,
                seconds=position_seconds,
                wait=max(0.0, deadline - self.analyses.clock()),
                owner=owner,
                asker=asker,  # the heavier round counts against the asker's share too
            )
            found |= {m: a for m, a in scored.items() if a["exact"] and not _partly_solved(a)}
        # Unknown, or solved with some move still unsolved (its best moves may be more).
        pending = sum(
            1 for moves in positions if moves not in found or _partly_solved(found[moves])
        )
        values = {
            moves: PositionValue(answer["score"], answer["exact"], tuple(answer["best_moves"]))
            for moves, answer in found.items()
        }
        entries = review_moves(record.moves, values.get, min(record.preset, len(record.moves)))
        if not pending:
            now = self.analyses.clock()
            with self._lock:
                self._cache[key] = (entries, now)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
                while self._cache:  # least recently asked for first, while idle too long
                    _, asked = next(iter(self._cache.values()))
                    if asked > now - self.keep_seconds:
                        break
                    self._cache.popitem(last=False)
        return entries, pending


def _partly_solved(answer: dict[str, Any] | None) -> bool:
    """An exact value whose moves are not all scored exactly (a value-only answer too)."""
    if answer is None or not answer["exact"]:
        return False
    every_move = bool(answer["move_scores"]) or answer["status"] != "playing"  # or: game over
    return not (answer["complete"] and every_move)
