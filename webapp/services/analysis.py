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
Complete answers are the position's for ever: they are kept in an LRU keyed by
(game, moves, whether every move was scored), until nobody has asked for them
for ``KEEP_SECONDS`` (the sweep, or the next answer, drops them). Other answers
are kept only
``HEURISTIC_SECONDS``: long enough that a page polling after a "pending" answer,
a second tab or the review asking for the same position get it without a second
search, short enough that a later request (the pool less loaded, or a larger
budget) searches again and may reach an exact answer.

# Fair and finite
A search nobody waits for is cancelled, not run: each one remembers when it was
last asked for (a request waiting on it, a poll after a "pending" answer, a
second requester joining it), and once ``abandon_seconds`` have passed with
nobody asking, a sweep cancels it in the pool (on the process's timers, only
while searches are under way). Each asker (an identity, an address) has a share of
the searches under way: past ``share_per_identity`` started by one identity
or ``share_per_address`` by one address, a new one is refused (``OverShare``,
429 with ``Retry-After``). Refusing the new one rather than dropping the
asker's oldest keeps the work already spent and tells the client at once;
joining a search already under way is never refused (it adds no work).

# The pool's callbacks
The pool's dispatcher (``webapp.search_pool.dispatch``) sends the result of every
job tagged ``POSITION`` here; ``Analyses`` registers for that kind once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from webapp import protocol
from webapp.engine.game import Game
from webapp.engine.results import Limits
from webapp.games import new_game
from webapp.search_pool import WORKER_DIED, Pool, PoolBusy, Priority, SearchJob
from webapp.search_pool.dispatch import dispatcher_of
from webapp.search_pool.timers import Timers, shared
from webapp.services.errors import GameError
from webapp.services.state import result_of

log = logging.getLogger(__name__)

#: The tag kind of the jobs this module submits.
POSITION = "position"
#: Answers kept (about 2 KB each in memory, a whole best line and every move's score):
#: 2 MB at most. (4,096 took an hour of the soak bench to fill: memory that only ever
#: grew through the hour, bounded or not.)
CACHE_SIZE = 1024
#: Seconds a heuristic (not exact) answer is kept (see the module docstring).
HEURISTIC_SECONDS = 30.0
#: Seconds a complete answer stays once nobody asks for it: the cache holds the
#: positions in use, not the last 1,024 ever asked for (browsers keep their own copy).
KEEP_SECONDS = 600.0
#: Positions of one ``many`` call searched (or waiting) at once: the pool's
#: per-owner bound is left for the player's other work.
WINDOW = 4

#: Seconds a search nobody asked for again is kept before it is cancelled.
ABANDON_SECONDS = 5.0
#: The error of a search cancelled because nobody asked for it any more.
ABANDONED = "nobody asked for it any more"
#: The error of a search the pool refused (a request that joined it answers BUSY).
REFUSED = "the pool refused it"

Key = tuple[str, str, bool]  # game, moves, every move scored


@dataclass(frozen=True)
class Asker:
    """Who asks for an analysis, for the shares: an identity's hash and an address
    (either may be empty: not counted)."""

    identity: str = ""
    address: str = ""


#: An asker counted against no share (internal callers, tests).
NOBODY = Asker()


class OverShare(GameError):
    """The asker already has its share of searches under way; ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(protocol.RATE_LIMITED, message)
        self.retry_after = retry_after


@dataclass
class Pending:
    """A search under way for one key; ``answer`` or ``error`` once it has ended."""

    job: SearchJob
    asker: Asker
    asked: float  # when it was last asked for (the clock's time)
    waiting: int = 0  # requests waiting on it now: never abandoned while any does
    answer: dict[str, Any] | None = None
    error: str | None = None
    done: bool = False
    ran_again: bool = False  # its worker died once and it was started again


class Analyses:
    """Position analyses in ``pool``, cached; see the module docstring."""

    def __init__(
        self,
        pool: Pool,
        *,
        seed: int | None = None,
        cache_size: int = CACHE_SIZE,
        heuristic_seconds: float = HEURISTIC_SECONDS,
        keep_seconds: float = KEEP_SECONDS,
        abandon_seconds: float | None = ABANDON_SECONDS,
        share_per_identity: int | None = None,
        share_per_address: int | None = None,
        retry_seconds: int = 2,
        clock: Callable[[], float] = time.monotonic,
        sweep_thread: bool = True,
        timers: Timers | None = None,
    ) -> None:
        """``sweep_thread`` False: nothing sweeps on its own (tests call ``sweep``);
        ``timers``: where the sweeps wait (the process's)."""
        self.pool, self.seed, self.clock = pool, seed, clock
        self.cache_size, self.heuristic_seconds = cache_size, heuristic_seconds
        self.keep_seconds = keep_seconds
        self.abandon_seconds = abandon_seconds
        self.share_per_identity, self.share_per_address = share_per_identity, share_per_address
        self.retry_seconds = retry_seconds
        self._changed = threading.Condition()  # guards the maps; notified on every result
        self._cache: OrderedDict[Key, tuple[dict[str, Any], float]] = OrderedDict()
        self._pending: dict[Key, Pending] = {}
        self._shares: Counter[tuple[str, str]] = Counter()  # ("id"|"addr", who) -> under way
        self._sweep_thread, self._sweeping = sweep_thread, False
        self.timers = shared() if timers is None else timers
        self._closed = threading.Event()
        dispatcher_of(pool).register(POSITION, self._on_result)

    # -- asking -----------------------------------------------------------------------
    def analyse(
        self,
        game: str,
        moves: str,
        *,
        seconds: float,
        wait: float,
        owner: str = "",
        asker: Asker = NOBODY,
    ) -> dict[str, Any] | None:
        """The answer for a checked position with every move scored, or None if its search
        still runs after ``wait`` seconds (ask again within ``abandon_seconds``: it goes on
        and is cached; nobody asking, it is cancelled).

        Raises GameError BUSY when the pool refuses the search, OverShare past the asker's
        share, ENGINE_FAILED when it failed.
        """
        key = (game, moves, True)
        found = self.lookup(key)
        if found is not None:
            return found
        pending = self._start(key, seconds, owner, asker, whole_line=True)
        with self._changed:
            pending.waiting += 1
            self._changed.wait_for(lambda: pending.done, timeout=wait)
            pending.waiting -= 1
            pending.asked = self.clock()
        if not pending.done:
            return None
        if pending.error == REFUSED:
            raise GameError(protocol.BUSY, "The server is busy. Try again soon.")
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
        asker: Asker = NOBODY,
    ) -> dict[str, dict[str, Any]]:
        """The answers for ``positions`` found within ``wait`` seconds, by their moves.

        At most ``WINDOW`` searches run or wait at once (fewer if the asker's share is
        smaller); the ones still running at the end go on (their answers are cached for
        the next call, if it comes within ``abandon_seconds``). A full pool ends the call
        early with what it has.
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
                    key = (game, moves, move_scores)
                    flying[moves] = self._start(key, seconds, owner, asker)
                except OverShare:
                    todo.append(moves)  # the asker's share is full: again when one ends
                    break
                except GameError:
                    todo.clear()  # the pool is full: wait for the ones under way only
            remaining = deadline - self.clock()
            if not flying or remaining <= 0:
                break
            with self._changed:
                waited = list(flying.values())
                for pending in waited:
                    pending.waiting += 1
                self._changed.wait_for(lambda: any(p.done for p in flying.values()), remaining)
                for pending in waited:
                    pending.waiting -= 1
                    pending.asked = self.clock()
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
                    if answer["complete"]:  # kept while in use
                        self._cache[candidate] = (answer, self.clock() + self.keep_seconds)
                    self._cache.move_to_end(candidate)
                    return answer
        return None

    def _start(
        self, key: Key, seconds: float, owner: str, asker: Asker, whole_line: bool = False
    ) -> Pending:
        """The search under way for ``key``, joined (and kept alive), or started if there is
        none (GameError BUSY, OverShare). ``whole_line``: an exact answer's line is walked
        to the end of the game (a position asked for on its own, the analysis board's; a
        review's many positions need only their values and best moves)."""
        game, moves, move_scores = key
        with self._changed:
            pending = self._pending.get(key)
            if pending is not None:
                pending.asked = self.clock()
                return pending
            self._check_share(asker)
            job = SearchJob(
                game,
                moves,
                "alphabeta",
                # Each move solved on its own (no line), then (``whole_line``) an exact
                # answer's line walked to the end of the game, in the worker
                # (``webapp.engine.line``).
                Limits(time=seconds, line=False, whole_line=whole_line),
                seed=self.seed,
                tag=(POSITION, key, None),
                move_scores=move_scores,
                priority=Priority.ANALYSIS,
                owner=owner,
            )
            pending = self._pending[key] = Pending(job, asker, self.clock())
            for share in _shares_of(asker):
                self._shares[share] += 1
            start_sweeper = self._sweep_thread and not self._sweeping
            self._sweeping = self._sweeping or start_sweeper
        if start_sweeper:
            self._sweep_later()
        try:
            self.pool.submit(job)
        except PoolBusy as busy:
            with self._changed:
                self._settle(key, job)
                # A request that joined it meanwhile learns at once, not after its wait.
                pending.error, pending.done = REFUSED, True
                self._changed.notify_all()
            raise GameError(protocol.BUSY, f"The server is busy: {busy}. Try again soon.") from None
        return pending

    def _check_share(self, asker: Asker) -> None:
        """Raise OverShare if ``asker`` has its share under way (the caller holds the lock)."""
        limits = {"id": self.share_per_identity, "addr": self.share_per_address}
        for share in _shares_of(asker):
            limit = limits[share[0]]
            if limit is not None and self._shares[share] >= limit:
                who = "this browser" if share[0] == "id" else "your network address"
                raise OverShare(
                    f"{who} already has {limit} analyses under way: try again in "
                    f"{self.retry_seconds} s.",
                    self.retry_seconds,
                )

    def _settle(self, key: Key, job: SearchJob) -> Pending | None:
        """Forget the search ``job`` for ``key`` (the caller holds the lock)."""
        pending = self._pending.get(key)
        if pending is None or pending.job is not job:
            return None
        del self._pending[key]
        for share in _shares_of(pending.asker):
            self._shares[share] -= 1
            if self._shares[share] <= 0:
                del self._shares[share]
        return pending

    def searching(self, key: Key) -> bool:
        """Whether a search for ``key`` is under way (asking for it again starts none)."""
        with self._changed:
            return key in self._pending

    def under_way(self) -> int:
        """Searches started and not yet ended or cancelled."""
        with self._changed:
            return len(self._pending)

    # -- abandoned searches ------------------------------------------------------------
    def sweep(self) -> int:
        """Cancel the searches nobody has asked for in ``abandon_seconds``; how many.
        Heuristic answers past their time leave the cache too (else only a lookup of the
        same position or the size bound would drop them)."""
        with self._changed:
            now = self.clock()
            self._drop_expired(now)
        if self.abandon_seconds is None:
            return 0
        with self._changed:
            gone = [
                (key, pending)
                for key, pending in self._pending.items()
                if not pending.waiting and now - pending.asked >= self.abandon_seconds
            ]
            for key, pending in gone:
                self._settle(key, pending.job)
                pending.error, pending.done = ABANDONED, True
            if gone:
                self._changed.notify_all()
        for _, pending in gone:
            self.pool.cancel(pending.job.id)
        return len(gone)

    def _drop_expired(self, now: float) -> None:
        """Drop the answers past their time (``_changed`` is held). All are looked at: the
        cache's order is of use, not of expiry (estimates last less than complete answers)."""
        for key in [key for key, (_, expires) in self._cache.items() if now >= expires]:
            del self._cache[key]

    def close(self) -> None:
        """Stop the sweeper (the pool's close forgets the searches themselves)."""
        self._closed.set()

    def _sweep_later(self) -> None:
        """Sweep in a moment (on the process's timers), again while searches are under way."""
        self.timers.call_later(min(1.0, (self.abandon_seconds or 4.0) / 4), self._sweep_tick)

    def _sweep_tick(self) -> None:
        if self._closed.is_set():
            with self._changed:
                self._sweeping = False
            return
        try:
            self.sweep()
        except Exception:  # a pool that fails to cancel must not end the sweeping
            log.exception("analysis sweeper: a sweep failed")
        with self._changed:
            if not self._pending:
                self._sweeping = False
                return
        self._sweep_later()

    # -- the pool's callbacks (relay thread) ------------------------------------------
    def _on_result(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        key: Key = job.tag[1]
        if error == WORKER_DIED and self._run_again(key, job):
            return
        answer = None if result is None else answer_of(key, result)
        with self._changed:
            pending = self._settle(key, job)
            if pending is not None:
                pending.answer, pending.error, pending.done = answer, error, True
            if answer is not None:
                now = self.clock()
                lasts = self.keep_seconds if answer["complete"] else self.heuristic_seconds
                self._cache[key] = (answer, now + lasts)
                self._cache.move_to_end(key)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
                self._drop_expired(now)
            self._changed.notify_all()

    def _run_again(self, key: Key, job: SearchJob) -> bool:
        """Start ``job`` once more after its worker died under it (killed, out of memory):
        whoever waits gets the answer, not an error. Once only: a position that kills its
        worker twice fails. False when it was not started again."""
        with self._changed:
            pending = self._pending.get(key)
            if pending is None or pending.job is not job or pending.ran_again:
                return False
            again = replace(job, id=0, cancelled=False, dropped=False)
            pending.job, pending.ran_again = again, True
        try:
            self.pool.submit(again)
        except PoolBusy:
            with self._changed:
                if pending.job is again:
                    pending.job = job  # settled below as the failure it is
            return False
        log.warning("analysis of %s %r: its search worker died; searching again", *key[:2])
        return True


def _shares_of(asker: Asker) -> list[tuple[str, str]]:
    """The shares a search started by ``asker`` counts against."""
    return [(scope, who) for scope, who in (("id", asker.identity), ("addr", asker.address)) if who]


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
        "pv": str(result.get("pv") or ""),  # the line expected from here, best move first
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
        "pv": "",
        "move_scores": {},
        "depth": 0,
        "book": False,
        "complete": True,
    }
