"""The engine's side of the service: start searches, relay their progress, apply their moves.

Three kinds of work go to the pool, in this order of priority:

* the engine's move (``ENGINE``): the critical path. It searches for the move
  only (no scores of the other moves), so the reply goes out as soon as the
  book or the search has it;
* the scores of every move for the side to move now, and the engine's
  pondering on the player's time (``SCORES``, see ``live_scores.py``): the
  scores stream to the room as ``scores`` events; the engine's options before
  its move go with its move; dropped under load;
* analyses someone asked for (``ANALYSIS``), sent to the asker only.

At most one engine search per game is current. It is tied to the game's
version: anything that changes the game (undo, settings, a new game) cancels
it, and a result for another version is dropped. A failed engine search is
tried again at once, then reported and tried again after a growing delay, so
a game never rests with the engine to move and nothing on the way.

A move's walk, top to bottom: ``GameService.move`` checks the move and stores it
(compare-and-set), then ``changed`` here schedules everything that follows, in
order: (1) the engine's search under way stopped or kept, (2) the engine's reply
(``start_engine``: the pondered one if it answers, else a new ``ENGINE`` job),
(3) the new position's scores and pondering (``LiveScores.start``), (4) the
room told the game's state. Each job's news comes back through the pool's
dispatcher, by job kind, registered once by the module that applies it: here
``ENGINE``, ``PONDER`` (a pondering's news are the engine's once it is adopted)
and ``ANALYSIS``; ``SCORES`` in ``live_scores``, which also stores the engine's
options with its move. News is applied off the relay thread, one at a time per
game, under the game's lock (then ``_guard``), and what it has to say is sent
after letting the lock go. An engine result is applied by
``_apply_engine_result``: stored, then ``changed`` again for the position after
it, then ``engine_move`` told.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp import protocol
from webapp.engine.results import Limits
from webapp.game_settings import search_limits
from webapp.search_pool import DEPTHS, PULSE, Pool, PoolBusy, Priority, SearchJob
from webapp.search_pool.dispatch import dispatcher_of
from webapp.search_pool.local_pool import short
from webapp.search_pool.timers import Delayed, Timers, shared
from webapp.services.engine_job import ENGINE, engine_job
from webapp.services.engine_line import EngineLines, wants_line
from webapp.services.errors import GameError
from webapp.services.live_scores import PONDER, LiveScores
from webapp.services.locks import Emit, GameLocks, Outbox
from webapp.services.state import engine_to_move, game_state, with_previous
from webapp.store import GameRecord, GameStore, StoreError, VersionConflict, now, replayed

log = logging.getLogger(__name__)

ANALYSIS = "analysis"
#: One analysis over the socket: game id, moves, algorithm, limits, priority.
AnalysisKey = tuple[str, str, str, Limits, Priority]
#: Failed engine searches tried again at once before the room is told.
IMMEDIATE_RETRIES = 1
#: Places in the queue worth telling (past them a page says only that it waits).
QUEUED_PLACES_TOLD = 20
#: Seconds before each later try (the last one repeats).
RETRY_DELAYS = (2.0, 10.0, 30.0, 60.0)
#: Games whose engine's last search's depths are kept for a page that opens (or reloads)
#: the game after it (the least recently moved dropped first: about 2 KB a game at most).
LAST_DEPTHS_GAMES = 1000
#: Games whose last mover's turn (their address) is kept for the engine's reply
#: (``note_turn``). A game's entry lasts only while its engine is to move; this bounds the
#: rest (the least recently moved dropped first, their replies then take their player's turn).
TURNS_KEPT = 10_000


#: Seconds a move's state waits for a quick reply (``Searches._held_for_reply``) before it
#: goes out on its own: an Easy reply is a few milliseconds, this is for one held up.
HELD_SECONDS = 0.2


@dataclass
class EngineTask:
    """The engine's current work in one game: a job, or a retry waiting on a timer."""

    version: int  # the game's version it searches for
    moves: str
    job: SearchJob | None = None  # registered before it is submitted: a result can be quick
    # The game as the move that asked for the reply left it, its state not yet told:
    # a quick reply carries it (``Searches._held_for_reply``).
    held: GameRecord | None = None
    held_until: float = 0.0  # when the kept state goes out without the reply (monotonic)
    failures: int = 0
    timer: Delayed | None = None
    # The ``thinking`` rows sent so far by ``job`` (``rows_of``), replayed to a page that joins.
    rows: list[dict[str, Any]] = field(default_factory=list)
    rows_of: SearchJob | None = None


class Searches:
    """Engine moves, their scores and analyses for every game, run in ``pool``."""

    def __init__(
        self,
        store: GameStore,
        pool: Pool,
        emit: Emit,
        locks: GameLocks,
        seed: int | None = None,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        live_scores: bool = True,
        watched: Callable[[str], bool] = lambda _: False,
        timers: Timers | None = None,
    ) -> None:
        """``live_scores`` False: no scores of the live position, no pondering (tests that
        hold every search of a one-worker pool). ``watched(game_id)``: a page has the game
        open (its idle scores are kept). ``timers``: where retries wait (the process's)."""
        self.live_scores = live_scores
        self.timers = shared() if timers is None else timers
        self.store, self.pool, self.emit, self.locks, self.seed = store, pool, emit, locks, seed
        self.retry_delays = retry_delays
        self._guard = threading.Lock()  # guards the two maps below
        # Jobs are registered here before they are submitted (a quick search can
        # report before submit returns) and recognised by identity.
        self._engine: dict[str, EngineTask] = {}  # game id -> the engine's work
        self._held_sweep = False  # a look for late kept states is due (``_sweep_held``)
        # game id -> whose turn its engine's reply takes in the queue (``note_turn``)
        self._turns: OrderedDict[str, str] = OrderedDict()
        self._analyses: dict[str, SearchJob | None] = {}  # client sid -> its analysis job
        # An analysis under way and every client waiting for it: a second client asking the
        # same search joins it; it is cancelled when the last of them leaves.
        self._shared: dict[AnalysisKey, tuple[SearchJob, set[str]]] = {}
        # game id -> the position its engine last searched, the move it played and that
        # search's depth rows: a page that joins once it is over gets its depth table too
        # (never stored with the game: a move's save stays small).
        self._last_depths: OrderedDict[str, tuple[str, str, list[dict[str, Any]]]] = OrderedDict()
        self._closing = False
        # The scores, the engine's options and pondering: their jobs' results are its own.
        self.live = LiveScores(store, pool, emit, locks, seed, self.thinking, watched)
        # The line an exactly solved move expects: searched after the move goes out.
        self.lines = EngineLines(store, pool, emit, locks, seed, self.thinking, self.state)
        self.dispatch = dispatcher_of(pool)
        # A game's news is applied off the pool's relay thread, one at a time (``serial``).
        register = self.dispatch.register
        told = QUEUED_PLACES_TOLD
        register(ENGINE, self._on_engine_result, self._on_progress, self._on_queued, serial=True,
                 places=told)  # fmt: skip
        register(PONDER, self._on_ponder_result, self._on_progress, serial=True)
        register(ANALYSIS, self._on_analysis_result, queued=self._on_queued, serial=True,
                 places=told)  # fmt: skip

    # -- questions ----------------------------------------------------------------
    def thinking(self, game_id: str) -> bool:
        with self._guard:
            return game_id in self._engine

    def queued(self, game_id: str) -> dict[str, Any] | None:
        """The ``queued`` payload of the game's engine search if it waits for a worker."""
        with self._guard:
            task = self._engine.get(game_id)
        job = None if task is None else task.job
        place = None if job is None else self.pool.position(job.id)
        return None if place is None else {"game_id": game_id, "position": place, "kind": ENGINE}

    def depths_so_far(self, game_id: str, moves: str) -> list[dict[str, Any]]:
        """The ``thinking`` rows the game's current engine search (at ``moves``) has sent,
        oldest first: this process's own, else those a search host keeps for the cluster.
        With no search under way and the engine's move the last on the board (``moves``),
        the rows of the search that chose it, if this process applied it."""
        with self._guard:
            task = self._engine.get(game_id)
            if task is not None and task.job is not None and task.rows_of is task.job:
                return list(task.rows)
            last = self._last_depths.get(game_id) if task is None else None
        if last is not None and moves == last[0] + last[1]:
            return list(last[2])
        return self.pool.depths(game_id, moves)

    def _remember_depths(self, game_id: str, moves: str, move: str, rows: list[Any]) -> None:
        """Keep the depth rows of the search that played ``move`` at ``moves``."""
        with self._guard:
            self._last_depths.pop(game_id, None)
            if rows:
                self._last_depths[game_id] = (moves, move, rows)
                while len(self._last_depths) > LAST_DEPTHS_GAMES:
                    self._last_depths.popitem(last=False)

    def has_room(self, record: GameRecord) -> bool:
        """True when the pool would take this game's next engine search."""
        return self.pool.has_room(Priority.ENGINE, owner=record.seat_hash, game_id=record.id)

    def publish(self, record: GameRecord, out: Outbox) -> None:
        """Tell the game's room its state (sent when the caller lets the game's lock go)."""
        out.send(protocol.STATE, self.state(record), record.id)

    def state(self, record: GameRecord) -> dict[str, Any]:
        """The game's state, with the scores of its live position if known."""
        return game_state(
            record, self.thinking(record.id), self.live.current(record.id, record.moves)
        )

    def changed(
        self,
        record: GameRecord,
        out: Outbox | None,
        *,
        restart: bool = False,
        follow: bool = False,
        again: bool = False,
        move: bool = False,
    ) -> bool:
        """The game is ``record`` now (created, moved, taken back, new settings, its engine's
        move applied): everything that schedules, in order; True if the engine started.

        1. The engine's search under way: ``restart``, it is moot (an undo, new search
           settings); ``follow``, it still holds and is tied to the new version (settings
           it does not care about). The line after the engine's last move is another
           search: it holds while the position does, whatever the settings.
        2. The engine's reply, if it is to move (first: it may take the pondered reply).
        3. The scores of the position for the side to move, then pondering
           (``live_scores``); ``again``: afresh, the position unchanged (a new level).
        4. The room hears the game's state (``out``; None: nobody to tell yet), unless
           the change is the player's ``move`` and the engine's reply to it a short
           search just handed to a search process: then with the reply
           (``_held_for_reply``). A state sent supersedes one kept.

        The caller holds the game's lock.
        """
        if restart:
            self.stop_engine(record.id, line=False)  # the position's change drops it, below
        elif follow:
            self.follow(record)
        started = self.try_start_engine(record)
        self._drop_turn_unless_due(record.id, record)  # an undo: the player's move is next
        self.position_changed(record, again)
        if out is not None and not (move and started and self._held_for_reply(record)):
            self._tell_held(record.id)  # older than this one: never to be sent
            self.publish(record, out)
        return started

    def _held_for_reply(self, record: GameRecord) -> bool:
        """Keep ``record``'s state for the engine's reply if that reply is a short search
        (Easy, Medium: milliseconds) already with a worker of this process's pool (its
        ``quick_replies``; not the shared queue's hosts); True if kept.

        The room then hears the move that asked for the reply with the reply, in one
        ``state``, not in a state of its own a few milliseconds before (the player's page
        has drawn its move already). Should the reply not be quick after all, the state
        goes out as soon as that shows (``_tell_held``): its search waits for a worker
        again (a worker died), streams its depths (past ``STREAM_AFTER``), fails, or is
        stopped (a new game: ``stop_engine`` hands it back), and in any case once
        ``HELD_SECONDS`` have passed without the reply (a slow save of it, say).
        """
        if not getattr(self.pool, "quick_replies", False):
            return False  # a pool that does not say its short searches answer at once
        with self._guard:
            task = self._engine.get(record.id)
            job = None if task is None else task.job
            quick = (
                task is not None
                and job is not None
                and task.timer is None
                and task.version == record.version
                and short(job)
            )
        if not quick or job is None or self.pool.position(job.id) is not None:
            return False  # a reply that waits for a worker: the room hears the move now
        with self._guard:
            if self._engine.get(record.id) is not task or task is None or task.job is not job:
                return False
            task.held, task.held_until = record, time.monotonic() + HELD_SECONDS
            sweep, self._held_sweep = not self._held_sweep, True
        if sweep:  # one look a while for every game's kept state, not a timer a move
            self.timers.call_later(HELD_SECONDS, self._sweep_held)
        return True

    def _sweep_held(self) -> None:
        """Tell the kept states whose reply is late (``HELD_SECONDS``), on the timer
        thread: off the game's news, which may wait behind the very reply that is slow.
        Looks again while any is kept."""
        now = time.monotonic()
        with self._guard:
            kept = [(game_id, task) for game_id, task in self._engine.items() if task.held]
            late = [(game_id, task.job) for game_id, task in kept if task.held_until <= now]
            due = [task.held_until for _, task in kept if task.held_until > now]
            self._held_sweep = bool(due) and not self._closing
        for game_id, job in late:
            if job is not None:
                self._tell_now(game_id, job)
        if due and not self._closing:
            self.timers.call_later(max(0.0, min(due) - now), self._sweep_held)

    def _tell_held(self, game_id: str, job: SearchJob | None = None) -> GameRecord | None:
        """The state kept for the engine's reply (``_held_for_reply``), taken to be told
        now (``job``: only if it is the game's search); None if none is kept."""
        with self._guard:
            task = self._engine.get(game_id)
            if task is None or task.held is None or (job is not None and task.job is not job):
                return None
            record, task.held = task.held, None
        return record

    def position_changed(self, record: GameRecord, again: bool = False) -> None:
        """The game's position is ``record.moves`` now: score it for the side to move.

        ``again``: the same position, scored afresh (the level changed).
        The caller holds the game's lock.
        """
        self.lines.moved(record)
        if self.live_scores:
            self.live.start(record, again)

    # -- the engine's moves (the caller holds the game's lock) ------------------------
    def note_turn(self, record: GameRecord, turn: str) -> None:
        """The game's engine replies take ``turn``'s turn in the queue (the address of the
        player who moved): a flood of made-up identities from one address shares one turn,
        and delays another address's reply by a search or two, not minutes.

        Kept only while the engine is to move (its reply, or a retry of it, is to come):
        a game that ended or waits for its player holds nothing here."""
        with self._guard:
            if not turn or not engine_to_move(record):
                self._turns.pop(record.id, None)
                return
            self._turns[record.id] = turn
            self._turns.move_to_end(record.id)
            while len(self._turns) > TURNS_KEPT:
                self._turns.popitem(last=False)

    def _drop_turn_unless_due(self, game_id: str, record: GameRecord | None) -> None:
        """Forget the game's turn unless its engine is to move in ``record`` (None: the
        game is gone)."""
        if record is None or not engine_to_move(record):
            with self._guard:
                self._turns.pop(game_id, None)

    def _engine_job(self, record: GameRecord) -> SearchJob:
        with self._guard:
            turn = self._turns.get(record.id, "")
        return engine_job(record, self.seed, turn)

    def start_engine(self, record: GameRecord) -> bool:
        """Start the engine's search if it is to move and idle; True if started.

        Raises PoolBusy when the pool refuses the job.
        """
        if self._closing or not engine_to_move(record) or self.thinking(record.id):
            return False
        job = self._engine_job(record)
        pondering = self.live.take_ponder(record, job)
        task = EngineTask(record.version, record.moves, job if pondering is None else pondering.job)
        with self._guard:
            self._engine[record.id] = task
        if pondering is not None:
            self._adopt(record.id, task, pondering)
            return True
        try:
            self._submit(task)
        except PoolBusy:
            with self._guard:
                self._engine.pop(record.id, None)
            raise
        return True

    def try_start_engine(self, record: GameRecord) -> bool:
        """``start_engine``; when the pool is full the game waits for a retry, not for ever."""
        try:
            return self.start_engine(record)
        except PoolBusy:
            log.warning("search pool full: the engine's move in %s waits for a retry", record.id)
            task = EngineTask(record.version, record.moves)
            with self._guard:
                self._engine[record.id] = task
            self._retry_later(record.id, task)
            return True

    def stop_engine(self, game_id: str, line: bool = True) -> GameRecord | None:
        """Cancel the game's engine search (or its waiting retry), its scores and pondering;
        and, with ``line``, the search of the line after the engine's last move and the
        turn its engine's reply was to take (the game is left; without ``line`` its
        position changed and the engine may search again at once).

        The game as the player's last move left it if its state was kept for the reply
        (``_held_for_reply``): the room has not heard of that move, and a caller that
        tells the room no state of its own must tell it that one."""
        with self._guard:
            task = self._engine.pop(game_id, None)
            held = None if task is None else task.held
            if line:
                self._turns.pop(game_id, None)
        if task is not None:
            if task.timer is not None:
                task.timer.cancel()
            if task.job is not None:
                self.pool.cancel(task.job.id)
        self.live.stop(game_id)
        if line:
            self.lines.stop(game_id)
        return held

    def _adopt(self, game_id: str, task: EngineTask, pondering: Any) -> None:
        """The engine's reply was pondered: its search (or its result) is the engine's now.

        A result already in is applied in turn with the game's news, as if the pool
        had just sent it: after the player's move has been told.
        """
        result, rows = self.live.adopt(game_id, pondering)
        with self._guard:
            task.rows, task.rows_of = list(rows), task.job
        log.info("engine reply in %s pondered (%s)", game_id, "ready" if result else "running")

        def tell() -> None:
            with self.locks.hold(game_id):
                pass  # the player's move goes out first
            for row in rows:
                self.emit(protocol.THINKING, row, game_id)
            if result is not None and task.job is not None and not self._closing:
                self._engine_result(game_id, task.job, result | {"pondered": True}, None)

        self.dispatch.run_for_game(game_id, tell)  # after the game's news already in

    def follow(self, record: GameRecord) -> None:
        """The game changed in a way its engine search does not care about: keep the search."""
        with self._guard:
            task = self._engine.get(record.id)
            if task is not None and task.moves == record.moves:
                task.version = record.version

    def _submit(self, task: EngineTask) -> None:
        """Submit the task's job (registered already); PoolBusy if the pool refuses it."""
        assert task.job is not None
        self.pool.submit(task.job)

    def close(self) -> None:
        """From now on no result is applied and no retry runs (the server is stopping)."""
        self.live.close()  # first: the scores' results stop no later than the engine's
        self.lines.close()
        with self._guard:
            self._closing = True
            tasks = list(self._engine.values())
        for task in tasks:
            if task.timer is not None:
                task.timer.cancel()

    # -- the engine's news (off the relay thread, in turn with the game's news) ------------
    def _on_queued(self, job: SearchJob, position: int) -> None:
        """An engine search or an analysis waits for a worker: its room or asker hears
        its place (registered for those two kinds, up to ``QUEUED_PLACES_TOLD``: a long
        queue moving by one would be hundreds of emits)."""
        kind, game_id, sid = job.tag
        payload = {"game_id": game_id, "position": position, "kind": kind}
        if kind == ENGINE:
            self._tell_now(game_id, job)  # its move first: the room learns what waits
        self.emit(protocol.QUEUED, payload, game_id if kind == ENGINE else sid)

    def _tell_now(self, game_id: str, job: SearchJob) -> None:
        """Send the state kept for ``job``'s reply, if any: the reply is not quick after all
        (called off the game's lock: a page keeps the newest version it has seen)."""
        held = None if self._closing else self._tell_held(game_id, job)
        if held is not None:
            self.emit(protocol.STATE, self.state(held), game_id)

    def _on_progress(self, job: SearchJob, progress: dict[str, Any]) -> None:
        kind, game_id, _ = job.tag
        if kind not in (ENGINE, PONDER):
            return
        if kind == ENGINE:
            self._tell_now(game_id, job)  # a search that streams is no quick one
        if progress.get(PULSE):  # the engine's search under way (an adopted ponder's too)
            with self._guard:  # for the room now, never kept
                task = self._engine.get(game_id)
                current = task is not None and task.job is job
            if current:
                pulse = {k: v for k, v in progress.items() if k != PULSE}
                self.emit(protocol.SEARCHING, thinking_row(job, pulse), game_id)
            return
        payload = thinking_row(job, progress)
        if kind == PONDER and self.live.ponder_progress(job, payload):
            return  # kept for the engine's reply, should the player play the expected move
        with self._guard:  # kept for depths_so_far: a page that joins now gets them too
            task = self._engine.get(game_id)
            if task is None or task.job is not job:
                return
            if task.rows_of is not job:
                task.rows, task.rows_of = [], job
            task.rows.append(payload)
        self.emit(protocol.THINKING, payload, game_id)

    def _on_engine_result(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        if not self._closing:  # a stopping server commits nothing
            self._engine_result(job.tag[1], job, result, error)

    def _on_ponder_result(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        """A pondering's result: kept for the engine's reply (``LiveScores.ponder_done``),
        or applied as the engine's move if its search became the engine's (adopted)."""
        if not self._closing and not self.live.ponder_done(job, result):
            self._engine_result(job.tag[1], job, result, error)  # it became the engine's search

    def _engine_result(
        self, game_id: str, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        """Apply the engine's search result if it is still the game's current search."""
        if self._current(game_id, job):
            out = Outbox()
            try:
                with self.locks.hold(game_id):
                    try:
                        self._apply_engine_result(job, result, error, out)
                    except Exception as err:  # a bug must not leave the game waiting for ever
                        log.exception("engine result for %s not applied", game_id)
                        self._fail_current(game_id, job, f"internal error: {err}", out)
            finally:
                out.flush(self.emit)

    def _fail_current(self, game_id: str, job: SearchJob | None, why: str, out: Outbox) -> None:
        """``_failed`` for the game's task if it is still the one of ``job``."""
        with self._guard:
            task = self._engine.get(game_id)
        if task is not None and task.job is job:
            self._failed(game_id, task, why, out)

    def _current(self, game_id: str, job: SearchJob) -> bool:
        with self._guard:
            task = self._engine.get(game_id)
            return task is not None and task.job is job

    # -- applying an engine result (the game's lock is held) -------------------------------
    def _apply_engine_result(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None, out: Outbox
    ) -> None:
        game_id = job.tag[1]
        with self._guard:
            task = self._engine.get(game_id)
        if task is None or task.job is not job:
            return  # cancelled while waiting for the lock
        try:
            record = self.store.get(game_id)
        except StoreError as err:
            log.error("engine result for %s not applied: %s", game_id, err)
            self._failed(game_id, task, f"the store failed: {err}", out)
            return
        if record is None or record.version != task.version or not engine_to_move(record):
            with self._guard:
                self._engine.pop(game_id, None)
            self._drop_turn_unless_due(game_id, record)  # no reply of its engine to come
            return  # the game moved on: this result is stale
        if result is None or not result.get("best_move"):
            self._failed(game_id, task, error or "no move found", out, record)
            return
        # Replayed once: the store's check of the save finds it done (``replayed`` keeps it).
        status, winner = replayed(record.game, record.moves + result["best_move"])
        # A quick search's depths come with its result, not as ``thinking`` rows: they go
        # out with ``engine_move`` (the panel's depth table), never into the stored game.
        result = dict(result)
        depths = result.pop(DEPTHS, None)
        payload = move_payload(job, result)
        options = self.live.current(game_id, record.moves)  # the engine's, before its move
        payload["move_scores"] = None if options is None else options["move_scores"]
        record.moves += result["best_move"]
        record.status, record.winner = status, winner
        # The one before is kept with it: an undo puts that move back on the board last.
        record.last_engine_move = with_previous(payload, record.last_engine_move)
        record.updated_at = now()
        try:
            self.store.save(record)  # committed (compare-and-set) before anyone hears of it
        except VersionConflict:  # another server changed the game meanwhile: it stands
            with self._guard:
                self._engine.pop(game_id, None)
            current = self.store.get(game_id)
            self._drop_turn_unless_due(game_id, current)
            if current is not None:
                self.publish(current, out)
            return
        except StoreError as err:
            log.error("engine move in %s not stored: %s", game_id, err)
            self._failed(game_id, task, f"the store failed: {err}", out)
            return
        with self._guard:
            self._engine.pop(game_id, None)
            streamed = list(task.rows) if task.rows_of is job else []
        rows = [thinking_row(job, row) for row in depths] if depths else streamed
        self._remember_depths(game_id, job.moves, result["best_move"], rows)
        self.changed(record, out)  # its state carries the new position's scores, none stale
        if depths:
            payload = payload | {DEPTHS: rows}
        out.send(protocol.ENGINE_MOVE, payload, game_id)
        if wants_line(job, result, record):
            self.lines.start(record)  # after the move: display work

    def _failed(
        self,
        game_id: str,
        task: EngineTask,
        why: str,
        out: Outbox,
        record: GameRecord | None = None,
    ) -> None:
        """Try a failed engine search again: at once, then (after telling the room) later."""
        held = self._tell_held(game_id)
        if held is not None:  # a failed reply is no quick one: the room hears the move now
            self.publish(record or held, out)
        task.failures += 1
        task.job = None
        log.error("engine search failed in %s (%d): %s", game_id, task.failures, why)
        if task.failures <= IMMEDIATE_RETRIES and record is not None:
            task.job = self._engine_job(record)
            try:
                self._submit(task)
                return
            except PoolBusy:
                task.job = None
        failed = GameError(
            protocol.ENGINE_FAILED, f"The engine could not move ({why}); it will try again."
        )
        out.send(protocol.ERROR, failed.payload(), game_id)
        self._retry_later(game_id, task)

    def _retry_later(self, game_id: str, task: EngineTask) -> None:
        index = min(max(task.failures - IMMEDIATE_RETRIES - 1, 0), len(self.retry_delays) - 1)
        # The timer thread only hands the retry over: it takes the game's lock and reads
        # the store, which may be slow exactly when retries are due.
        task.timer = self.timers.call_later(
            self.retry_delays[index],
            lambda: self.dispatch.in_turn(game_id, lambda: self._retry(game_id, task)),
        )

    def _retry(self, game_id: str, task: EngineTask) -> None:
        try:
            self._retry_now(game_id, task)
        except Exception:  # a bug must not end the retries: try again later
            log.exception("engine retry in %s failed", game_id)
            task.job, task.failures = None, task.failures + 1
            if not self._closing:
                self._retry_later(game_id, task)

    def _retry_now(self, game_id: str, task: EngineTask) -> None:
        if self._closing:
            return
        with self.locks.hold(game_id):
            with self._guard:
                if self._engine.get(game_id) is not task:
                    return  # stopped meanwhile
            try:
                record = self.store.get(game_id)
            except StoreError as err:
                task.failures += 1
                log.error("engine retry in %s: %s", game_id, err)
                self._retry_later(game_id, task)
                return
            if record is None or record.version != task.version or not engine_to_move(record):
                with self._guard:
                    self._engine.pop(game_id, None)
                self._drop_turn_unless_due(game_id, record)
                return
            task.job, task.timer = self._engine_job(record), None
            try:
                self._submit(task)
            except PoolBusy:
                task.job = None
                task.failures += 1
                self._retry_later(game_id, task)

    # -- analyses -------------------------------------------------------------------
    def analyse(
        self,
        record: GameRecord,
        algorithm: str,
        sid: str,
        owner: str,
        player: bool,
        moves: str | None = None,
    ) -> None:
        """Search a position of the game with ``algorithm`` for client ``sid`` only: the
        live one, or ``moves``, an earlier one (a start of the game's moves; a finished
        game's too, for its review). A finished position has nothing to search.

        The player's own analyses come before spectators' (``player``). A client asking
        for a search already under way (same position, algorithm, limits and class)
        joins it: one search, its answer sent to each of them.
        """
        moves = record.moves if moves is None else moves
        if replayed(record.game, moves)[0] != "playing":
            over = "That position is over: there is nothing to analyse."
            raise GameError(protocol.GAME_OVER, over)
        limits = search_limits(record.settings, record.game, algorithm)
        # The player's own look at the live game comes first; a review's, and spectators',
        # are lesser work (they wait for no move).
        live = moves == record.moves and record.status == "playing"
        priority = Priority.SCORES if player and live else Priority.ANALYSIS
        key = (record.id, moves, algorithm, limits, priority)
        with self._guard:
            if sid in self._analyses:
                raise GameError(protocol.BUSY, "Your previous analysis is still running.")
            shared = self._shared.get(key)
            if shared is not None:  # the same search is under way: wait for it too
                shared[1].add(sid)
                self._analyses[sid] = shared[0]
                return
            self._analyses[sid] = None  # reserved: a second request meanwhile is refused
        job = SearchJob(
            record.game,
            moves,
            algorithm,
            limits,
            seed=self.seed,
            tag=(ANALYSIS, record.id, sid),
            priority=priority,
            owner=owner,
            game_id=record.id,
            progress=False,  # the asker gets the result only
        )
        with self._guard:
            if sid not in self._analyses:
                return  # the client left meanwhile
            self._analyses[sid] = job
        try:
            self.pool.submit(job)
        except PoolBusy as busy:
            with self._guard:
                self._analyses.pop(sid, None)
            raise GameError(protocol.BUSY, f"The server is busy: {busy}. Try again soon.") from None
        with self._guard:
            left = self._analyses.get(sid) is not job
            if not left and key not in self._shared:  # others may join it from now on
                self._shared[key] = (job, {sid})
        if left:
            self.pool.cancel(job.id)  # the client left meanwhile

    def forget_client(self, sid: str) -> None:
        """A client left: its analysis is cancelled, unless another client waits for it."""
        with self._guard:
            job = self._analyses.pop(sid, None)
            waiting = self._waiting_for(job, sid) if job is not None else set()
        if job is not None and not waiting:
            self.pool.cancel(job.id)

    def _waiting_for(self, job: SearchJob, leaving: str | None = None) -> set[str]:
        """The clients still waiting for the analysis ``job`` once ``leaving`` has left
        (the caller holds the guard); a job nobody waits for is no longer shared."""
        key = next((k for k, (shared, _) in self._shared.items() if shared is job), None)
        if key is None:
            return set()
        sids = self._shared[key][1]
        sids.discard(leaving or "")
        if not sids:
            del self._shared[key]
        return set(sids)

    def _on_analysis_result(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None
    ) -> None:
        if self._closing:
            return
        _, _, sid = job.tag
        with self._guard:
            sids = self._waiting_for(job) | {sid}
            for key in [k for k, (shared, _) in self._shared.items() if shared is job]:
                del self._shared[key]
            sids = {each for each in sids if self._analyses.get(each) is job}
            for each in sids:
                del self._analyses[each]
        for each in sorted(sids):
            self._send_analysis(job, result, error, each)

    def _send_analysis(
        self, job: SearchJob, result: dict[str, Any] | None, error: str | None, sid: str
    ) -> None:
        if result is None:
            why = "the server is busy" if job.dropped else error
            failed = GameError(protocol.ENGINE_FAILED, f"The analysis failed: {why}")
            self.emit(protocol.ERROR, failed.payload(), sid)
            return
        self.emit(protocol.ANALYSIS, move_payload(job, result), sid)


def thinking_row(job: SearchJob, progress: dict[str, Any]) -> dict[str, Any]:
    """A ``thinking`` row: one depth of the engine's search, with its game, position,
    algorithm and speed."""
    row = {"game_id": job.tag[1], "moves": job.moves, "algorithm": job.algorithm} | progress
    seconds = progress["elapsed_ms"] / 1000.0
    row["nps"] = round(progress["nodes"] / seconds) if seconds > 0 else None
    return row


def move_payload(job: SearchJob, result: dict[str, Any]) -> dict[str, Any]:
    """The ``engine_move`` / ``analysis`` payload: the result, its game and its position."""
    return {"game_id": job.tag[1], "moves": job.moves, "move": result["best_move"]} | result
