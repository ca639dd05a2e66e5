"""The scores of every move for the side to move now, and the engine's pondering.

After every move the live position's moves are scored for whoever is to move, on the
game's ``SCORES`` lane, and each improvement goes to the game's room as a ``scores``
event. Each pass is the strongest analysis the server gives
(``settings.analysis_limits``: the solver and the opening book, exact wherever they
solve in time): first under ``FIRST_TIME`` (a tenth of a second), which solves most
positions at once, then, where some move is still an estimate, the full pass; at every
level and with either algorithm: the level sets how the engine plays, never what the
board says. A pass shed under load (display work gives way to moves) is asked again
after ``RETRY_SECONDS``, while its position is the game's: the crowd gone, the scores
still become exact. A move makes them moot at once: the job is cancelled, and a result
is sent only while its position is still the game's (checked under the game's lock,
which every move takes), so a page never gets scores for a position the game has left.
The latest scores of the live position also go with the game's state
(``state["scores"]``), so a page that joins or reloads shows them; the engine's options
before its move go with its move (``last_engine_move.move_scores``); when the engine was
quicker than a first pass over its own position, that pass is let finish and its scores
join the move afterwards (``_store_options``). An exact pass over the engine's options
follows as lesser work (after the player's scores and the pondering; at once when the
engine's move ended the game), so that they read like the move's own exact score rather
than a depth-8 estimate beside "win in 14".

Pondering (thinking on the player's time, as chess engines do): once the
player's options are scored, the engine searches its reply to the player's
expected move (the best-scored one), with exactly the job it would run for
that position (same algorithm, limits and seed). If the player plays that
move, the engine's reply is that result, sent at once; if its search is still
running it becomes the engine's search, its depths so far replayed. Any other
move, an undo or new settings throw it away. A reply whose search takes
milliseconds (a small depth: Easy, Medium; ``search_pool.local_pool.short``) is
not pondered: it would save the player nothing and cost the server a search.

A move's walk through this module, top to bottom (``Searches.changed`` calls
``start`` under the game's lock, after the engine's reply is scheduled):

1. ``start``: the old position's pass is cancelled (or, over the engine's
   options, let finish or parked for an exact pass), the pondering of another
   move dropped, and the new position's first pass submitted (``SCORES``).
2. Each pass's result comes back through the pool's dispatcher to the handler
   registered here, ``_on_scores_result`` (a split pass once all its parts are
   in), off the relay thread, in turn with the game's other news:
   ``_scores_done`` takes the game's lock, ``_take`` merges the pass; a pass
   over the engine's options is stored with its move (``_store_options``), a
   live position's improvement goes out as a ``scores`` event once the lock is
   let go.
3. Then the next pass (the exact one), and once the scores are done, pondering
   (``_ponder``) and the exact pass over the engine's options
   (``_score_options``).
4. A pondering's news may be the engine's reply, so ``Searches`` takes them
   (``PONDER``) and asks here: ``ponder_progress`` and ``ponder_done`` keep them
   for the reply; ``take_ponder`` and ``adopt`` hand the pondering to the engine
   when the player plays the expected move.

Locks: the game's lock, then this object's ``_guard`` (never the other way round);
``thinking`` (``Searches``' guard) is asked without holding ``_guard``.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp import protocol
from webapp.engine.search import Limits
from webapp.game_settings import analysis_limits, engine_side
from webapp.games import GAMES, new_game
from webapp.search_pool import Pool, PoolBusy, Priority, SearchJob, timers
from webapp.search_pool.dispatch import dispatcher_of
from webapp.search_pool.local_pool import short
from webapp.search_pool.timers import Delayed
from webapp.services.engine_job import engine_job, short_reply
from webapp.services.locks import Emit, GameLocks, Outbox
from webapp.services.split import cancel as cancel_parts
from webapp.services.split import collect as collect_parts
from webapp.services.split import parts_at_most
from webapp.services.split import submit as submit_parts
from webapp.services.state import game_state
from webapp.store import GameRecord, GameStore, StoreError

log = logging.getLogger(__name__)

SCORES, PONDER = "scores", "ponder"
#: The first pass over a new position: the strongest analysis, under this many seconds.
#: Most positions are solved in it (19 of 20 random Connect Four positions on a 2-core
#: machine; the opening book answers at once), so one pass and one ``scores`` event
#: say everything; the others get the estimates it reached (the solver's heuristic
#: pass, depth 8, comes first) and the full pass follows. Two passes for every position
#: (a depth-8 one, then the exact one) cost each move a job, an event and, for the
#: engine's options, a save more (docs/operations.md, "A move's CPU").
FIRST_TIME = 0.1
#: The exact pass over the engine's options (display work that no one waits for) stops
#: here, about a second and a half, so that it never holds a worker long.
OPTIONS_NODES = 15_000_000
#: The scores' search: alpha-beta whatever the engine plays (same values, far fewer nodes).
SCORES_ALGORITHM = "alphabeta"
#: A game's scores (and pondering) are forgotten once nobody watches it (no page in its
#: room) and it has been idle this long: abandoned games must not hold memory for ever.
#: A page that opens it later gets them afresh (joining wakes the game).
IDLE_SECONDS = 600.0
#: How often, at most, the idle games are looked for (when a position becomes live).
SWEEP_SECONDS = 60.0
#: A pass shed under load (display work gives way to moves) is asked again after these
#: many seconds, one after the other, while its position is still the game's: once the
#: crowd has gone, its scores are still made exact. Past the last, the page is told that
#: nothing more is coming. (A quick game has moved on before the first comes due.)
RETRY_SECONDS = (2.0, 5.0, 10.0, 30.0, 60.0)


@dataclass
class Scoring:
    """The scores of one game's live position, pass by pass."""

    record: GameRecord  # the game as it stood when its position became live
    limits: Limits  # the strongest analysis's budget (the last pass), whatever the level
    legal: int = 0  # the position's legal moves: every one needs a score (0: not known)
    job: SearchJob | None = None
    last_pass: bool = False
    move_scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    sent: bool = False
    touched: float = field(default_factory=time.monotonic)  # its last news (monotonic seconds)
    retries: int = 0  # passes asked again after being shed (``RETRY_SECONDS``)
    retry: Delayed | None = None  # the next one, due

    @property
    def moves(self) -> str:
        return self.record.moves

    @property
    def complete(self) -> bool:
        """Every legal move's score is known exactly."""
        scores = self.move_scores
        every = len(scores) >= self.legal if self.legal else bool(scores)
        return every and all(s["exact"] for s in scores.values())

    @property
    def solving(self) -> bool:
        """The exact pass is under way or to follow: an estimate here may still become
        exact (the page says "solving…")."""
        waiting = self.job is not None or self.retry is not None
        return not self.complete and (waiting or not self.last_pass)

    @property
    def exact_due(self) -> bool:
        """An exact pass would add to these scores: the last pass is exact (no depth
        limit: always so for the scores, ``analysis_limits``) and some score is still an
        estimate."""
        return self.limits.depth is None and not self.complete

    def merge(self, result: dict[str, Any], limits: Limits) -> bool:
        """Take a pass's scores where they are better known; True if anything changed.

        An exact score beats an estimate; a deeper estimate beats a shallower
        one. An estimate the solver left behind (an exact result whose move
        is not exact) carries the depth of the heuristic search behind it
        (``MoveScore.depth``). A pass whose limits stopped it before the solver
        answered gives its heuristic pass's result, every estimate at that
        result's depth (its best move may be proven: a quick win). An unmarked
        estimate in a solved result, its depth unknown, is not taken.
        """
        changed = False
        solved = bool(result.get("exact")) and limits.depth is None
        cut_short = bool(result.get("stopped"))
        for move, value in (result.get("move_scores") or {}).items():
            entry = {"score": value["score"], "exact": bool(value["exact"])}
            if not entry["exact"]:
                depth = value.get("depth")  # the solver's leftover says; else the pass's
                if depth is None and (cut_short or not solved):
                    depth = result.get("depth")
                if depth is None:
                    continue  # the solver gave up on it and did not say how deep it saw
                entry["depth"] = depth
            old = self.move_scores.get(move)
            shallower = not entry["exact"] and entry["depth"] < ((old or {}).get("depth") or 0)
            if old is not None and (old["exact"] or shallower):
                continue
            if old != entry:
                self.move_scores[move] = entry
                changed = True
        return changed

    def payload(self) -> dict[str, Any]:
        return {
            "game_id": self.record.id,
            "moves": self.moves,
            "to_move": len(self.moves) % 2,
            "move_scores": dict(sorted(self.move_scores.items())),
            "complete": self.complete,
            "solving": self.solving,
        }


@dataclass
class Pondering:
    """The engine's reply to the player's expected move, searched on the player's time."""

    moves: str  # the position after the expected move
    job: SearchJob
    result: dict[str, Any] | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)  # its thinking rows so far


@functools.lru_cache(maxsize=len(GAMES))  # an entry a game
def _scores_limits(game: str) -> tuple[Limits, Limits]:
    """The limits of the scores in ``game``: a whole pass's, and a first pass's
    (``FIRST_TIME``). The strongest analysis at every level; scores only: no line, so
    an exact solve proves each move's score and no more."""
    limits = dataclasses.replace(analysis_limits(game), line=False)
    return limits, dataclasses.replace(limits, time=min(limits.time or FIRST_TIME, FIRST_TIME))


class LiveScores:
    """Scores of the side to move in every game, and the engine's pondering."""

    def __init__(
        self,
        store: GameStore,
        pool: Pool,
        emit: Emit,
        locks: GameLocks,
        seed: int | None,
        thinking: Callable[[str], bool],
        watched: Callable[[str], bool] = lambda _: False,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        """``thinking(game_id)``: the engine searches its move in the game (its options are
        not stored then). ``watched(game_id)``: a page has the game open."""
        self.store, self.pool, self.emit, self.locks, self.seed = store, pool, emit, locks, seed
        self.thinking = thinking
        self.watched, self.idle_seconds = watched, idle_seconds
        self._swept = time.monotonic()
        self._guard = threading.Lock()  # guards the maps below
        self._scoring: dict[str, Scoring] = {}  # game id -> its live position's scores
        self._options: dict[str, Scoring] = {}  # game id -> the engine's last position, finishing
        self._pondering: dict[str, Pondering] = {}  # game id -> the engine's pondered reply
        # game id -> its ponder job that became the engine's search (one per game at most)
        self._adopted: dict[str, SearchJob] = {}
        self._closing = False
        # A pass's result is applied off the pool's relay thread, in turn with the game's
        # other news. (A pondering's news may be the engine's reply: ``Searches`` takes it.)
        self.dispatch = dispatcher_of(pool)
        self.dispatch.register(SCORES, self._on_scores_result, serial=True)

    # -- questions ----------------------------------------------------------------------
    def current(self, game_id: str, moves: str) -> dict[str, Any] | None:
        """The ``scores`` payload of position ``moves`` if it is the game's live one."""
        with self._guard:
            scoring = self._scoring.get(game_id)
            if scoring is None or scoring.moves != moves or not scoring.move_scores:
                return None
            return scoring.payload()

    # -- the live position (the caller holds the game's lock) ---------------------------
    def start(self, record: GameRecord, again: bool = False) -> None:
        """``record.moves`` is the game's position now: score its moves (unless under way).

        ``again``: the settings changed, so scores of the same position start over (their
        values do not depend on the level, but the pondering does).
        """
        with self._guard:
            old = self._scoring.get(record.id)
            if old is not None and old.record.version > record.version:
                return  # an older view of the game (the engine's reply came first)
            if old is not None and old.moves == record.moves and not again:
                return
            self._scoring.pop(record.id, None)
            _drop_retry(old)
            pondering = self._pondering.get(record.id)
            if pondering is not None and (again or pondering.moves != record.moves):
                del self._pondering[record.id]
            else:
                pondering = None
        if old is not None and old.moves != record.moves:
            self._drop_options(record.id)  # an older position's: its move is not the last now
        if old is not None and old.job is not None:
            engines = engine_side(old.record.settings) == len(old.moves) % 2
            # A move that ends the game too: its options get their exact pass (the
            # finished game's panel shows them beside the exact result).
            options = engines and record.moves.startswith(old.moves)
            if options and not old.last_pass:
                with self._guard:  # a first pass over the engine's options: let it finish
                    self._options[record.id] = old
            else:
                cancel_parts(self.pool, old.job)
                if options and record.moves != old.moves:  # after the player's scores
                    self._park_options(old)
        if pondering is not None:
            self.pool.cancel(pondering.job.id)
        if self._closing or record.status != "playing":
            # No player's scores to wait for: the options' exact pass now (or once their
            # first pass is in, ``_options_done``).
            if not self._closing:
                self._score_options(record.id)
            return
        legal = len(new_game(record.game, record.moves).legal_moves())  # a known game's
        limits, first = _scores_limits(record.game)
        scoring = Scoring(dataclasses.replace(record), limits, legal)
        self._forget_idle(but=record.id)
        with self._guard:
            self._scoring[record.id] = scoring
        if not self._submit(scoring, first, last_pass=False):  # refused under load
            self._plan_retry(record.id, scoring)

    def _park_options(self, options: Scoring) -> None:
        """Keep the engine's options before its move for an exact pass, due once the
        player's own scores are done (``_score_options``), at every level, so that they
        read as exactly as the board's (game's lock held)."""
        if not options.exact_due or self._closing:
            return
        options.job, options.last_pass = None, False
        with self._guard:
            self._options[options.record.id] = options

    def _score_options(self, game_id: str) -> None:
        """Start the exact pass over the engine's options if one is parked: a lesser job
        (``ANALYSIS``: after the pondering too), dropped as soon as the game moves on
        (game's lock held)."""
        with self._guard:
            options = self._options.get(game_id)
            if options is None or options.job is not None:
                return  # none, or under way
            if self._gives_way(options.record):  # the players' replies wait
                del self._options[game_id]
                return
            # Counted against no one's bounds (owner and game empty): display work must
            # never make a player's own move wait or be refused.
            limits = dataclasses.replace(options.limits, nodes=OPTIONS_NODES)
            job = self._job(options.record, limits, Priority.ANALYSIS, owner="", game_id="")
            options.job, options.last_pass = job, True  # set under the guard: a stop sees it
        try:
            submit_parts(self.pool, job)
        except PoolBusy:  # display work: skipped under load
            with self._guard:
                if self._options.get(game_id) is options:
                    del self._options[game_id]

    def _drop_options(self, game_id: str) -> None:
        """Stop the pass over the engine's options before its last move, if any."""
        with self._guard:
            options = self._options.pop(game_id, None)
        if options is not None and options.job is not None:
            cancel_parts(self.pool, options.job)

    def stop(self, game_id: str) -> None:
        """Forget the game's scores and pondering (a new game, or the player left it)."""
        with self._guard:
            scoring = self._scoring.pop(game_id, None)
            pondering = self._pondering.pop(game_id, None)
            options = self._options.pop(game_id, None)
            self._adopted.pop(game_id, None)  # cancelled with the engine's search: no result
            _drop_retry(scoring)
        jobs = [
            None if scoring is None else scoring.job,
            None if pondering is None else pondering.job,
            None if options is None else options.job,
        ]
        for job in jobs:
            if job is not None:
                cancel_parts(self.pool, job)

    def _forget_idle(self, but: str) -> None:
        """Forget the games idle past ``idle_seconds`` that no page watches (their scores,
        pondering and options, as ``stop`` does), game ``but`` aside; at most every
        ``SWEEP_SECONDS``.

        Takes no game's lock (the caller may hold another game's): an entry is dropped
        only if it is still the idle one, and a result that comes for a forgotten game
        finds nothing and is dropped.
        """
        now = time.monotonic()
        with self._guard:
            if now - self._swept < min(SWEEP_SECONDS, self.idle_seconds):
                return
            self._swept = now
            idle: dict[str, Scoring | None] = {
                game_id: scoring
                for game_id, scoring in self._scoring.items()
                if scoring.job is None and now - scoring.touched >= self.idle_seconds
            }
            for game_id in [*self._pondering, *self._options]:  # left by a game that ended
                if game_id not in self._scoring:
                    idle[game_id] = None
            idle.pop(but, None)
        for game_id, scoring in idle.items():
            if self.watched(game_id):
                continue
            with self._guard:
                if self._scoring.get(game_id) is not scoring:
                    continue  # the game moved meanwhile: live again
                _drop_retry(self._scoring.pop(game_id, None))
                pondering = self._pondering.pop(game_id, None)
                options = self._options.pop(game_id, None)
            for job in (None if pondering is None else pondering.job,
                        None if options is None else options.job):  # fmt: skip
                if job is not None:
                    cancel_parts(self.pool, job)

    def sizes(self) -> dict[str, int]:
        """How many games each map holds (the tests watch them for leaks)."""
        with self._guard:
            return {
                "scoring": len(self._scoring),
                "options": len(self._options),
                "pondering": len(self._pondering),
                "adopted": len(self._adopted),
            }

    def close(self) -> None:
        self._closing = True

    def _job(
        self,
        record: GameRecord,
        limits: Limits,
        priority: Priority,
        owner: str | None = None,
        game_id: str | None = None,
    ) -> SearchJob:
        """A scores search of ``record``'s position (``owner``, ``game_id``: the game's
        seat and id unless given; they count against the pool's bounds)."""
        return SearchJob(
            record.game,
            record.moves,
            SCORES_ALGORITHM,
            limits,
            seed=self.seed,
            tag=(SCORES, record.id, None),
            priority=priority,
            progress=False,  # scores go out pass by pass, never depth by depth
            owner=record.seat_hash if owner is None else owner,
            game_id=record.id if game_id is None else game_id,
        )

    def _gives_way(self, record: GameRecord) -> bool:
        """Whether a scores pass over ``record``'s position gives way now: this process is
        behind with the engine's replies (``Dispatcher.behind``), and the game's engine
        replies are short searches (Easy, Medium). At Hard and Perfect the scores are
        kept: the player's choose the move the engine ponders, which is its reply, and
        giving way there made the replies slower (docs/operations.md)."""
        return self.dispatch.behind() and short_reply(record)

    def _would_shed(self, record: GameRecord, job: SearchJob, last_pass: bool) -> bool:
        """Whether the pass ``job`` (in its parts, a last pass) would push other games'
        waiting passes out of the pool's full scores lane, in a game whose engine replies
        are short searches. Each one pushed out came back through the dispatcher to be
        planned again: in a crowd nearly every pass went that way, for nothing. At Hard
        and Perfect a pass is asked still, as under ``_gives_way``: the player's scores
        choose the pondering, which is the engine's reply."""
        count = parts_at_most(self.pool, job) if last_pass else 1
        return self.pool.sheds(Priority.SCORES, count) and short_reply(record)

    def _submit(self, scoring: Scoring, limits: Limits, last_pass: bool) -> bool:
        """Submit a pass over the scoring's position; False if the pool refused it (busy),
        if it gives way to the engine's replies (``_gives_way``), or if it would only push
        other games' passes out of the pool's queue (``_would_shed``): then it is not even
        asked, and comes later as a shed one does."""
        record = scoring.record
        job = None if self._gives_way(record) else self._job(record, limits, Priority.SCORES)
        if job is not None and self._would_shed(record, job, last_pass):
            job = None
        with self._guard:
            if self._scoring.get(record.id) is not scoring:
                return True  # the game moved on: nothing was asked
            if job is None:
                return False  # asked again later, as a pass the pool shed
            scoring.job, scoring.last_pass = job, last_pass
        try:
            if last_pass:
                submit_parts(self.pool, job)  # in parts when free workers can share it
            else:
                self.pool.submit(job)  # a tenth of a second: not worth a job per part
        except PoolBusy:  # display work: skipped under load
            with self._guard:
                if scoring.job is job:
                    scoring.job = None
            return False
        return True

    # -- results (off the relay thread, in turn with the game's news) -------------------------
    def _on_scores_result(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        """The dispatcher's handler of ``SCORES`` news: a part of a split pass waits for
        the rest, a whole pass goes on to ``_scores_done``."""
        if self._closing:
            return
        whole = collect_parts(job, result, error)
        if whole is not None:
            self._scores_done(*whole)

    def _scores_done(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        """A pass over a live position ended: tell the room if it improved, then go on
        (its last pass, then pondering and the exact pass over the engine's options)."""
        game_id = job.tag[1]
        out = Outbox()
        scoring = None
        try:
            with self.locks.hold(game_id):
                scoring = self._take(job, result, error, out)
        finally:
            out.flush(self.emit)  # told before the next pass can report
        if scoring is None:
            self._options_done(game_id)
            return
        out = Outbox()
        with self.locks.hold(game_id):
            with self._guard:
                if self._scoring.get(game_id) is not scoring or scoring.job is not None:
                    return  # the game moved on meanwhile
            if not scoring.last_pass and not scoring.complete:
                self._full_pass(game_id, scoring, out)
            else:
                self._ponder(scoring)
                self._score_options(game_id)  # behind the pondering (a lesser class)
        out.flush(self.emit)

    def _plan_retry(self, game_id: str, scoring: Scoring) -> bool:
        """Ask the position's full pass again later, if its retries are not spent (the
        game's lock is held); False if they are."""
        if self._closing or scoring.retries >= len(RETRY_SECONDS):
            return False
        delay = RETRY_SECONDS[scoring.retries]
        with self._guard:
            if self._scoring.get(game_id) is not scoring:
                return False
            scoring.retries += 1
            scoring.last_pass = True  # the full pass, whichever was shed
            # The timer thread only hands it over: the retry takes the game's lock and
            # submits, in turn with the game's news (as the engine's retries do).
            scoring.retry = timers.shared().call_later(
                delay, lambda: self.dispatch.in_turn(game_id, lambda: self._retry(game_id, scoring))
            )
        return True

    def _retry(self, game_id: str, scoring: Scoring) -> None:
        """A shed pass's time to be asked again (in turn with the game's news)."""
        if self._closing:
            return
        out = Outbox()
        try:
            with self.locks.hold(game_id):
                with self._guard:
                    if self._scoring.get(game_id) is not scoring or scoring.retry is None:
                        return  # the game moved on, or was forgotten
                    scoring.retry = None
                self._full_pass(game_id, scoring, out)
        finally:
            out.flush(self.emit)

    def _full_pass(self, game_id: str, scoring: Scoring, out: Outbox) -> None:
        """Submit the position's full pass (the game's lock held). Refused under load, it
        is asked again later; past its retries, the page that said "solving…" hears that
        nothing more is coming."""
        if self._submit(scoring, scoring.limits, last_pass=True):
            return
        if not self._plan_retry(game_id, scoring) and scoring.sent:
            with self._guard:
                payload = scoring.payload()
            out.send(protocol.SCORES, payload, game_id)

    def _options_done(self, game_id: str) -> None:
        """After a first pass over the engine's options: their exact pass, now if the
        player's own scores are done, else when they are (``_scores_done``)."""
        with self.locks.hold(game_id):
            with self._guard:
                live = self._scoring.get(game_id)
                idle = live is not None and live.job is None and live.retry is None
                done = live is None or (idle and (live.last_pass or live.complete))
            if done:
                self._score_options(game_id)

    def _take(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None, out: Outbox
    ) -> Scoring | None:
        """Merge a pass's result into its position's scores (game's lock held); the scoring
        to go on with, or None if the game has left that position or the pass failed."""
        game_id = job.tag[1]
        with self._guard:
            options = self._options.get(game_id)
            mine = options is not None and options.job is job
            if options is not None and mine:
                options.job = None  # kept while its exact pass may follow (``_scores_done``)
                if result is not None:
                    options.merge(result, job.limits)
                if result is None or options.last_pass or not options.exact_due:
                    del self._options[game_id]
        if options is not None and mine:
            if result is not None:
                self._store_options(game_id, options.moves, options.payload()["move_scores"], out)
            return None  # the engine's options, kept with its move: no scores event
        with self._guard:
            scoring = self._scoring.get(game_id)
            if scoring is None or scoring.job is not job:
                return None  # the game left that position: never sent
            scoring.job = None
        stored = self._stored_moves(game_id)
        if stored is not None and stored != scoring.moves:  # moved by another process
            with self._guard:
                if self._scoring.get(game_id) is scoring:
                    del self._scoring[game_id]
            engines = engine_side(scoring.record.settings) == len(scoring.moves) % 2
            if result is not None and engines and stored[:-1] == scoring.moves:
                scoring.merge(result, job.limits)  # the engine's options before its move
                self._store_options(game_id, scoring.moves, scoring.payload()["move_scores"], out)
            return None
        if result is None:
            if not job.dropped:
                log.warning("scores search for %s failed: %s", game_id, error)
            elif self._plan_retry(game_id, scoring):
                return None  # shed under load: asked again later ("solving…" still)
            if scoring.sent and scoring.last_pass:  # the page said "solving…": no longer
                with self._guard:
                    payload = scoring.payload()
                out.send(protocol.SCORES, payload, game_id)
            return None
        with self._guard:
            changed = scoring.merge(result, job.limits)
            payload = scoring.payload()
            scoring.touched = time.monotonic()
        if changed or not scoring.sent:
            scoring.sent = True
            out.send(protocol.SCORES, payload, game_id)
        return scoring

    def _stored_moves(self, game_id: str) -> str | None:
        """The game's moves as stored, or None if it cannot be read now: another process
        (a search host) may have moved it without this one's lock."""
        try:
            record = self.store.get(game_id)
        except StoreError:
            return None
        return None if record is None else record.moves

    def _store_options(self, game_id: str, moves: str, scores: dict[str, Any], out: Outbox) -> None:
        """Keep the engine's options before its move with that move, if it is still the
        game's last (the game's lock is held); the room hears of it with the new state.
        Later, better scores (the exact pass after a first one) replace earlier ones."""
        try:
            record = self.store.get(game_id)
            last = None if record is None else record.last_engine_move
            if record is None or last is None or last.get("moves") != moves:
                return
            if record.moves != moves + str(last.get("move", "")):
                return  # the player has moved since (in another process): it waits on this version
            known = last.get("move_scores") or {}
            if self.thinking(game_id) or known == scores:
                return  # never bump the version an engine search is tied to
            if known and all(s["exact"] for s in known.values()):
                return  # already exact: nothing to add
            record.last_engine_move = {**last, "move_scores": scores}
            self.store.save(record)
            state = game_state(record, self.thinking(game_id), self.current(game_id, record.moves))
            out.send(protocol.STATE, state, game_id)
        except StoreError as err:
            log.warning("the engine's options in %s not stored: %s", game_id, err)

    # -- pondering ------------------------------------------------------------------------
    def _ponder(self, scoring: Scoring) -> None:
        """Search the engine's reply to the player's best-scored move (game's lock held)."""
        record = scoring.record
        if engine_side(record.settings) == len(record.moves) % 2 or not scoring.move_scores:
            return  # the engine is to move here: nothing to ponder
        expected = max(sorted(scoring.move_scores), key=lambda m: scoring.move_scores[m]["score"])
        after = dataclasses.replace(record, moves=record.moves + expected)
        if new_game(record.game, after.moves).is_terminal():
            return  # the expected move ends the game: no reply to think of
        reply = engine_job(after, self.seed)
        if short(reply):
            return  # a reply of milliseconds (Easy, Medium): pondering would save nothing
        job = dataclasses.replace(reply, tag=(PONDER, record.id, None), priority=Priority.SCORES)
        pondering = Pondering(after.moves, job)
        with self._guard:
            if self._scoring.get(record.id) is not scoring or record.id in self._pondering:
                return
            self._pondering[record.id] = pondering
        try:
            self.pool.submit(job)
        except PoolBusy:
            with self._guard:
                if self._pondering.get(record.id) is pondering:
                    del self._pondering[record.id]

    def take_ponder(self, record: GameRecord, wanted: SearchJob) -> Pondering | None:
        """The pondering that answers the engine's search ``wanted`` of ``record``, if any.

        The caller registers its job as the engine's search, then calls
        ``adopt``. A pondering of anything else is left for ``start`` to drop.
        """
        with self._guard:
            pondering = self._pondering.get(record.id)
        if pondering is None or pondering.moves != record.moves:
            return None
        job = pondering.job
        same = (job.game, job.moves, job.algorithm, job.limits, job.seed, job.move_scores) == (
            wanted.game, wanted.moves, wanted.algorithm, wanted.limits, wanted.seed,
            wanted.move_scores,
        )  # fmt: skip
        if not same or (pondering.result is None and self.pool.position(job.id) is not None):
            return None  # other settings, or still waiting for a worker: search afresh
        return pondering

    def adopt(self, game_id: str, pondering: Pondering) -> tuple[dict[str, Any] | None, list[Any]]:
        """Hand the pondering over to the engine: its result if in, and its rows so far.

        From now on its job's progress and result are the engine's.
        """
        with self._guard:
            if self._pondering.get(game_id) is pondering:
                del self._pondering[game_id]
            if pondering.result is None:
                self._adopted[game_id] = pondering.job
                pondering.job.adopted = True  # the engine's reply: the pool never preempts it
            return pondering.result, list(pondering.rows)

    def ponder_progress(self, job: SearchJob, row: dict[str, Any]) -> bool:
        """Keep a pondering's thinking row; False if the job is the engine's search now."""
        with self._guard:
            if self._adopted.get(job.tag[1]) is job:
                return False
            pondering = self._pondering.get(job.tag[1])
            if pondering is not None and pondering.job is job:
                pondering.rows.append(row)
            return True

    def ponder_done(self, job: SearchJob, result: dict[str, Any] | None) -> bool:
        """Keep a pondering's result; False if the job is the engine's search now."""
        with self._guard:
            if self._adopted.get(job.tag[1]) is job:
                del self._adopted[job.tag[1]]
                return False
            pondering = self._pondering.get(job.tag[1])
            if pondering is not None and pondering.job is job:
                if result is None or not result.get("best_move"):
                    del self._pondering[job.tag[1]]  # failed: the engine will search itself
                else:
                    pondering.result = result
            return True


def _drop_retry(scoring: Scoring | None) -> None:
    """Cancel the scoring's retry, if one is due (it is being forgotten; ``_guard`` held)."""
    if scoring is not None and scoring.retry is not None:
        scoring.retry.cancel()
        scoring.retry = None
