"""Analyses of any position, for anyone: ``GET /api/analysis`` and the post-game review.

A position (a game and its moves, nothing stored) is searched in the worker
pool at ``Priority.ANALYSIS``, never on a request's thread: the request waits
on a condition for a while and, if the search is still running, answers
"pending" and asks again later. A second request for the same position while
its search runs waits on that search; nothing is searched twice at once.

The search is the perfect level's: alpha-beta with no depth limit, which
answers from the Connect Four opening book where it holds the position and
solves exactly elsewhere, under a time budget (the server's cap, ``MAX_TIME``,
unless the caller gives a smaller one). A search stopped by its budget
answers its deepest heuristic values, ``exact: false``, with the depth reached.

# Cache
Exact answers are the position's for ever: they are kept in an LRU keyed by
(game, moves, whether every move was scored). Heuristic answers are kept only
``HEURISTIC_SECONDS``: long enough that a page polling after a "pending" answer,
a second tab or the review asking for the same position get it without a second
search, short enough that a later request (the pool less loaded, or a larger
budget) searches again and may reach an exact answer.

# The pool's callbacks
The pool has one ``on_result`` and one ``on_queued``, set by the game service's
``Searches``. ``Analyses`` puts itself in front of them: a job it submitted
(tagged ``POSITION``) is its own; every other job goes on to ``Searches``.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp import protocol
from webapp.engine.game import Game
from webapp.engine.results import Limits
from webapp.games import new_game
from webapp.services.errors import GameError
from webapp.services.state import result_of
from webapp.workers import Pool, PoolBusy, Priority, SearchJob

#: The tag kind of the jobs this module submits.
POSITION = "position"
#: Answers kept (about 1 KB each): a few megabytes at most.
CACHE_SIZE = 4096
#: Seconds a heuristic (not exact) answer is kept (see the module docstring).
HEURISTIC_SECONDS = 30.0
#: Positions of one ``many`` call searched (or waiting) at once: the pool's
#: per-owner bound is left for the player's other work.
WINDOW = 4

Key = tuple[str, str, bool]  # game, moves, every move scored


@dataclass
class Pending:
    """A search under way for one key; ``answer`` or ``error`` once it has ended."""

    job: SearchJob
    answer: dict[str, Any] | None = None
    error: str | None = None
    done: bool = False


class Analyses:
    """Position analyses in ``pool``, cached; see the module docstring."""

    def __init__(
        self,
        pool: Pool,
        *,
        seed: int | None = None,
        cache_size: int = CACHE_SIZE,
        heuristic_seconds: float = HEURISTIC_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pool, self.seed, self.clock = pool, seed, clock
        self.cache_size, self.heuristic_seconds = cache_size, heuristic_seconds
        self._changed = threading.Condition()  # guards the two maps; notified on every result
        self._cache: OrderedDict[Key, tuple[dict[str, Any], float]] = OrderedDict()
        self._pending: dict[Key, Pending] = {}
        self._next_result, self._next_queued = pool.on_result, pool.on_queued
        pool.on_result, pool.on_queued = self._on_result, self._on_queued

    # -- asking -----------------------------------------------------------------------
    def analyse(
        self, game: str, moves: str, *, seconds: float, wait: float, owner: str = ""
    ) -> dict[str, Any] | None:
        """The answer for a checked position with every move scored, or None if its search
        still runs after ``wait`` seconds (ask again: it goes on and is cached).

        Raises GameError BUSY when the pool refuses the search, ENGINE_FAILED when it failed.
        """
        key = (game, moves, True)
        found = self.lookup(key)
        if found is not None:
            return found
        pending = self._start(key, seconds, owner)
        with self._changed:
            self._changed.wait_for(lambda: pending.done, timeout=wait)
        if not pending.done:
            return None
        if pending.answer is None:
            raise GameError(protocol.ENGINE_FAILED, f"The analysis failed: {pending.error}")
        return pending.answer

    def many(
        self,
        game: str,
        positions: list[str],
        *,
        move_scores: bool,
        seconds: float,
        wait: float,
        owner: str = "",
    ) -> dict[str, dict[str, Any]]:
        """The answers for ``positions`` found within ``wait`` seconds, by their moves.

        At most ``WINDOW`` searches run or wait at once; the ones still running at
        the end go on (their answers are cached for the next call). A full pool
        ends the call early with what it has.
        """
        deadline = self.clock() + wait
        found: dict[str, dict[str, Any]] = {}
        todo = list(reversed(positions))  # popped from the end: in order
        flying: dict[str, Pending] = {}
        while todo or flying:
            while todo and len(flying) < WINDOW:
                moves = todo.pop()
                answer = self.lookup((game, moves, move_scores))
                if answer is not None:
                    found[moves] = answer
                    continue
                try:
                    flying[moves] = self._start((game, moves, move_scores), seconds, owner)
                except GameError:
                    todo.clear()  # the pool is full: wait for the ones under way only
            remaining = deadline - self.clock()
            if not flying or remaining <= 0:
                break
            with self._changed:
                self._changed.wait_for(lambda: any(p.done for p in flying.values()), remaining)
            for moves, pending in list(flying.items()):
                if pending.done:
                    del flying[moves]
                    if pending.answer is not None:
                        found[moves] = pending.answer
        return found

    def lookup(self, key: Key) -> dict[str, Any] | None:
        """A cached answer (an exact one with every move scored serves both kinds);
        a finished position's answer is made here, with no search."""
        game, moves, move_scores = key
        position = new_game(game, moves)
        if position.is_terminal():
            return terminal_answer(game, moves, position)
        with self._changed:
            for candidate in [(game, moves, True)] + ([] if move_scores else [key]):
                entry = self._cache.get(candidate)
                if entry is None:
                    continue
                answer, expires = entry
                if self.clock() >= expires:
                    del self._cache[candidate]
                    continue
                if candidate == key or answer["exact"]:
                    self._cache.move_to_end(candidate)
                    return answer
        return None

    def _start(self, key: Key, seconds: float, owner: str) -> Pending:
        """The search under way for ``key``, started if there is none (GameError BUSY)."""
        game, moves, move_scores = key
        with self._changed:
            pending = self._pending.get(key)
            if pending is not None:
                return pending
            job = SearchJob(
                game,
                moves,
                "alphabeta",
                Limits(time=seconds, line=False),  # answers carry no line
                seed=self.seed,
                tag=(POSITION, key, None),
                move_scores=move_scores,
                priority=Priority.ANALYSIS,
                owner=owner,
            )
            pending = self._pending[key] = Pending(job)
        try:
            self.pool.submit(job)
        except PoolBusy as busy:
            with self._changed:
                self._pending.pop(key, None)
            raise GameError(protocol.BUSY, f"The server is busy: {busy}. Try again soon.") from None
        return pending

    # -- the pool's callbacks (relay thread) ------------------------------------------
    def _on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        if not _mine(job):
            self._next_result(job, result, error)
            return
        key: Key = job.tag[1]
        answer = None if result is None else answer_of(key, result)
        with self._changed:
            pending = self._pending.get(key)
            if pending is not None and pending.job is job:
                del self._pending[key]
                pending.answer, pending.error, pending.done = answer, error, True
            if answer is not None:
                lasts = float("inf") if answer["complete"] else self.heuristic_seconds
                self._cache[key] = (answer, self.clock() + lasts)
                self._cache.move_to_end(key)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            self._changed.notify_all()

    def _on_queued(self, job: SearchJob, place: int) -> None:
        if not _mine(job):
            self._next_queued(job, place)


def _mine(job: SearchJob) -> bool:
    return isinstance(job.tag, tuple) and bool(job.tag) and job.tag[0] == POSITION


def answer_of(key: Key, result: dict[str, Any]) -> dict[str, Any]:
    """The public answer for a search's result (``SearchResult.to_dict()``)."""
    game, moves, _ = key
    scores: dict[str, dict[str, Any]] = result.get("move_scores") or {}
    score, exact = result["score"], bool(result["exact"])
    if scores:
        # Every move that keeps the position's value; with heuristic values, the top ones.
        top = score if exact else max(s["score"] for s in scores.values())
        best = [m for m, s in scores.items() if s["score"] == top and (s["exact"] or not exact)]
    else:
        best = [result["best_move"]] if result.get("best_move") else []
    return {
        "game": game,
        "moves": moves,
        "to_move": len(moves) % 2,
        "status": "playing",
        "score": score,
        "exact": exact,
        "best_moves": sorted(best),
        "move_scores": scores,
        "depth": result.get("depth"),
        "book": bool((result.get("extra") or {}).get("book")),
        "complete": exact and all(s["exact"] for s in scores.values()),
    }


def terminal_answer(game: str, moves: str, position: Game) -> dict[str, Any]:
    """A finished position's answer: its exact score, no moves."""
    status, _ = result_of(position)
    return {
        "game": game,
        "moves": moves,
        "to_move": len(moves) % 2,
        "status": status,
        "score": position.terminal_score(),
        "exact": True,
        "best_moves": [],
        "move_scores": {},
        "depth": 0,
        "book": False,
        "complete": True,
    }
